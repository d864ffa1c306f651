"""Long nardy in the web board's Analyse mode, hint table, resignation and match analysis, in a real browser.

Playwright drives Debian's Chromium against the uvicorn server of ``test_web_browser`` (its fixtures and
skips): a typed long nardy Position ID draws long nardy's board and ranks its plays with the game's own
columns (mars, no backgammons) and its score matrix; a long nardy match game's hint shows the same
columns, ranked by match-winning chance, and its resignation says what the board makes it; a recorded
3-point long nardy match against the heuristic is analysed and stepped through with its candidates.
Screenshots go to $NARDY_SHOTS. Skipped without playwright or Chromium.
"""

from __future__ import annotations

import json
import re
import urllib.request
from urllib.parse import urlencode

import numpy as np
import pytest

from engine.long_nardy import LongPosition
from test_web_browser import (  # noqa: F401  (its fixtures and skips)
    BAD_REQUEST_LOG,
    browser,
    by,
    page,
    pytestmark,
    servers,
    shoot,
    sync_api,
)
from test_web_long_nardy_browser import _human_to_act

START = "AAAB//wAAAP/+"  # long nardy's start: each side's 15 checkers on its head
# A position of a 3-point match at 0-0 (as the analysis of a long nardy match names it), to play 54.
MIDDLE, MIDDLE_MATCH = "AEJEH/wARAS/+", "MIFyAAAAAAAE"


def _header(page, testid: str) -> list[str]:
    """The column titles of the table holding the rows ``testid``."""
    table = page.locator(f"table:has([data-testid={testid}])").first
    return table.locator("thead th").all_inner_texts()


def _game_columns(titles: list[str]) -> list[str]:
    return [t for t in titles if t.startswith(("Win", "W ", "L "))]


def _drawn(page) -> list[int]:
    """The board drawn, point by point (1..24): checkers shown (at most 5 a stack), negative for the top side's."""
    out = []
    for p in range(1, 25):
        point = by(page, f"point-{p}")
        mine, theirs = point.locator(".checker.mine").count(), point.locator(".checker.theirs").count()
        out.append(mine - theirs)
    return out


def _expected(board) -> list[int]:
    return [int(np.sign(n)) * min(abs(int(n)), 5) for n in board[1:25]]


@pytest.mark.slow
def test_analyse_a_long_nardy_position_id(page, servers):
    expect = sync_api.expect
    page.goto(servers["real"] + "/#analyse")
    by(page, "position-input").fill(START)
    by(page, "dice-input").fill("63")
    by(page, "analyse").click()
    expect(by(page, "hint-row").first).to_be_visible(timeout=15000)
    # Long nardy's board: both heads of 15, nothing on a bar; its own probability columns.
    expect(by(page, "point-24")).to_contain_text("15")
    expect(by(page, "point-12")).to_contain_text("15")
    assert by(page, "bar").locator("[data-testid=checker]").count() == 0
    expect(by(page, "board")).to_have_attribute("aria-label", "long nardy board")
    expect(page.locator("#turn")).to_have_text("Side on roll at the bottom (long nardy)")
    expect(page.locator("#pips")).to_have_text("Pips: bottom 360, top 360")
    expect(by(page, "position-id")).to_have_text(START)
    assert _game_columns(_header(page, "hint-row")) == ["Win", "W mars", "L mars"]
    # A position of a match as the match analysis names it (PositionID:MatchID): its score, its plays.
    by(page, "position-input").fill(f"{MIDDLE}:{MIDDLE_MATCH}")
    by(page, "dice-input").fill("54")
    by(page, "analyse").click()
    expect(page.locator("#score")).to_have_text("Score 0-0 in a 3-point match")
    expect(by(page, "position-id")).to_have_text(MIDDLE)
    assert by(page, "hint-row").count() > 3
    assert _game_columns(_header(page, "hint-row")) == ["Win", "W mars", "L mars"]
    assert "MWC" in _header(page, "hint-row")
    assert _drawn(page) == _expected(LongPosition.from_id(MIDDLE).board)
    shoot(page, "long-analyse")
    # A play clicked: the position after it, seen by the side that played (long nardy's board turned round).
    second = by(page, "hint-row").nth(1)
    played = second.locator("td").nth(1).inner_text()
    second.click()
    expect(page.locator("#turn")).to_have_text(f"Position after {played} (long nardy)")
    after = by(page, "position-id").text_content()
    assert after != MIDDLE
    assert _drawn(page) == _expected(LongPosition.from_id(after).flipped().board)
    # No dice: the cube decision, its chances named as the game names them.
    by(page, "position-input").fill(START)
    by(page, "dice-input").fill("")
    by(page, "analyse").click()
    expect(by(page, "cube-verdict")).to_contain_text("mars")
    expect(by(page, "cube-verdict")).not_to_contain_text("backgammon")
    # A long nardy ID that is not a position: the server's message, and the page goes on.
    page.allowed_logs.add(BAD_REQUEST_LOG)
    by(page, "position-input").fill("AAAAAAAAAAAAA")
    by(page, "analyse").click()
    expect(by(page, "error")).to_contain_text("long nardy")
    # Backgammon's Position ID still gets backgammon's columns.
    by(page, "position-input").fill("4HPwATDgc/ABMA")
    by(page, "dice-input").fill("31")
    by(page, "analyse").click()
    expect(by(page, "board")).to_have_attribute("aria-label", "backgammon board")
    expect(by(page, "hint-row").first).to_contain_text("8/5 6/5")
    expect(by(page, "error")).to_be_hidden()
    assert _game_columns(_header(page, "hint-row")) == ["Win", "W g", "W bg", "L g", "L bg"]


@pytest.mark.slow
def test_play_from_a_long_nardy_position_analysed(page, servers):
    expect = sync_api.expect
    page.goto(servers["real"] + "/?seed=5&delay=0#analyse")
    by(page, "position-input").fill(START)
    by(page, "dice-input").fill("54")
    by(page, "analyse").click()
    expect(by(page, "hint-row").first).to_be_visible(timeout=15000)
    by(page, "play-from-here").click()
    expect(by(page, "mode-play")).to_be_visible()
    view = _human_to_act(page)
    assert view["variant"] == "long" and view["phase"] == "move" and view["dice"] == [5, 4]
    expect(page.locator("#turn")).to_have_text("Your turn: move 54")


@pytest.mark.slow
def test_a_long_nardy_positions_score_matrix(page, servers):
    expect = sync_api.expect
    page.goto(servers["real"] + "/?delay=0#analyse")
    by(page, "position-input").fill(f"{MIDDLE}:{MIDDLE_MATCH}")
    by(page, "analyse").click()
    expect(by(page, "hint-row").first).to_be_visible(timeout=15000)
    by(page, "matrix-length").fill("3")
    by(page, "score-matrix").click()
    table = by(page, "matrix-table")
    expect(table).to_be_visible(timeout=30000)
    expect(by(page, "error")).to_be_hidden()
    expect(by(page, "score-matrix-result")).to_contain_text(f"Score matrix of {MIDDLE} (long nardy), 3-point match")
    # The cells are the server's long nardy matrix at the depth shown, each titled with its verdict in words.
    plies = re.search(r"(\d)-ply", by(page, "score-matrix-result").inner_text()).group(1)
    query = urlencode({"variant": "long", "position": MIDDLE, "length": 3, "plies": plies})
    with urllib.request.urlopen(f"{servers['real']}/v1/cube/matrix?{query}", timeout=60) as answer:
        expected = json.load(answer)
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(3)
    shown = [row.locator("[data-testid=matrix-verdict]").all_text_contents() for row in rows.all()]
    assert shown == [[c["label"] for c in row] for row in expected["matrix"]["rows"]]
    cell = expected["matrix"]["rows"][2][2]
    title = rows.nth(2).locator("[data-testid=matrix-cell]").nth(2).get_attribute("title")
    assert title.startswith(f"3-away/3-away: {cell['action']}; double "), title
    money = by(page, "matrix-money").locator("[data-testid=matrix-verdict]").all_text_contents()
    assert money == [c["label"] for c in expected["money"]]
    shoot(page, "long-matrix")


@pytest.mark.slow
def test_a_long_nardy_hint_and_resignation(page, servers):
    expect = sync_api.expect
    page.goto(servers["real"] + "/?seed=3&delay=0")
    page.select_option("#variant", "long")
    page.select_option("#length", "3")
    by(page, "new-game").click()
    for _ in range(20):
        view = _human_to_act(page)
        if view["phase"] == "move":
            break
        by(page, "roll").click()
    assert view["phase"] == "move" and view["variant"] == "long"
    page.click("#hint")
    expect(by(page, "hint-row").first).to_be_visible(timeout=15000)
    assert _game_columns(_header(page, "hint-row")) == ["Win", "W mars", "L mars"]
    # A match: the view's Match ID is shown, and the hint ranks by match-winning chance.
    expect(page.locator("#match-id")).to_have_text(view["match_id"])
    assert view["match_id"] and "MWC" in _header(page, "hint-row")
    shoot(page, "long-hint")
    # The resignation has no level to choose: with no checker borne off, it is a mars.
    by(page, "resign").click()
    expect(by(page, "confirm-resign")).to_be_visible()
    expect(page.locator("#resign-level")).to_be_hidden()
    expect(page.locator("#resign-question")).to_have_text(
        "Resign this game? nardy wins a mars, 2 points: you have borne off no checker."
    )
    shoot(page, "long-resign")
    by(page, "resign-yes").click()
    expect(by(page, "game-over")).to_have_text(re.compile(r"^nardy wins 2 points"))


@pytest.mark.slow
def test_long_nardy_match_analysis_steps_through_the_decisions(page, servers, tmp_path):
    from bot.doors import cli

    record = tmp_path / "long.mat"
    argv = ["match", "--variant", "long", "--length", "3", "--opponent", "heuristic", "--seed", "2"]
    assert cli.run([*argv, "--mat", str(record)]) in (0, None)
    assert 'Variation "Long Nardy"' in record.read_text()
    expect = sync_api.expect
    page.goto(servers["real"] + "/#match")
    by(page, "mat-input").set_input_files(str(record))
    by(page, "analyse-match").click()
    expect(by(page, "player-row")).to_have_count(2, timeout=60000)
    expect(by(page, "match-players")).to_contain_text("heuristic")
    expect(page.locator("#match-games")).to_contain_text("Long nardy, 3-point match")
    expect(page.locator("#match-chart svg")).to_be_visible()
    rows = by(page, "decision-row")
    n = rows.count()
    assert n > 20
    expect(by(page, "decision-count")).to_have_text(f"1 / {n}")
    # The first decision: long nardy's start, drawn from its Position ID with the match's score.
    expect(by(page, "position-id")).to_have_text(START)
    expect(by(page, "board")).to_have_attribute("aria-label", "long nardy board")
    expect(by(page, "point-24")).to_contain_text("15")
    expect(page.locator("#score")).to_have_text("Score 0-0 in a 3-point match")
    first_id = by(page, "position-id").text_content()
    # Step on to the first checker play with a choice: its candidates, ranked in match-winning chances.
    for i in range(1, n):
        by(page, "next-decision").click()
        expect(by(page, "decision-count")).to_have_text(f"{i + 1} / {n}")
        page.wait_for_selector("#candidates .verdict", timeout=15000)
        if by(page, "candidate-row").count():
            break
    else:
        pytest.fail("no checker play with candidates in the match")
    expect(by(page, "position-id")).not_to_have_text(first_id)
    expect(by(page, "position-id")).to_have_text(re.compile(r"^[A-Za-z0-9+/]{13}$"))
    titles = _header(page, "candidate-row")
    assert "MWC" in titles and _game_columns(titles) == ["Win", "W mars", "L mars"]
    expect(page.locator("[data-testid=candidate-row].played")).to_have_count(1)
    shoot(page, "long-match")
