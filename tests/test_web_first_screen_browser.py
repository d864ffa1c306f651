"""The web board as a player's first screen, in a real browser (Playwright driving Debian's Chromium).

The page opens in Play with New game in view at 1280x800 and 390x844; each tab shows its own mode only and
the address keeps it; on a phone the board and the game's buttons, and in match review the board and the
step buttons, are in the first screen; Resign asks first; the tutor warns before a play that loses at least
0.05 and not before the best play, in backgammon and long nardy, and grades each turn; match review ranks a
checker play's candidates and a cube decision's three equities. Screenshots of the states a player meets go to
$NARDY_SHOTS (default /tmp/shots). Skipped as tests/test_web_browser.py is, whose fixtures these tests share.
"""

from __future__ import annotations

import json
import re
import urllib.request
from urllib.parse import urlencode

import pytest

from bot.doors.analysis_views import SetupQuery, setup
from bot.facade import REPO_CHECKPOINT
from test_web_board_modes_browser import shoot
from test_web_browser import (  # noqa: F401  (fixtures)
    BLUNDER_MAT,
    CHROMIUM,
    _wait_for_human,
    browser,
    by,
    page,
    servers,
    sync_api,
)

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium)"),
    pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason=f"no shipped network at {REPO_CHECKPOINT}"),
]
DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
MODES = ("play", "analyse", "match")
expect = sync_api.expect


def in_first_screen(page, *testids: str) -> list[dict]:
    """Each element is visible and wholly inside the window, the page not scrolled (one look at the page for all);
    their boxes."""
    expect(by(page, testids[-1])).to_be_visible()
    scrolled, boxes = page.evaluate(
        """(ids) => [window.scrollY, ids.map((id) => {
            const element = document.querySelector(`[data-testid="${id}"]`);
            const box = element && element.getBoundingClientRect();
            const shown = box && box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== "hidden";
            return shown ? {x: box.x, y: box.y, width: box.width, height: box.height} : null;
        })]""",
        list(testids),
    )
    assert scrolled == 0
    size = page.viewport_size
    assert size is not None
    for testid, box in zip(testids, boxes):
        assert box is not None, f"{testid} is not visible"
        assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], f"{testid} at {box}, window {size}"
        assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], f"{testid} at {box}, window {size}"
    return boxes


def only_mode(page, mode: str) -> None:
    """The mode's container is shown, the others' hidden, its tab marked."""
    for name in MODES:
        container = by(page, f"mode-{name}")
        if name == mode:
            expect(container).to_be_visible()
            expect(page.locator(f"#tab-{name}")).to_have_attribute("aria-selected", "true")
        else:
            expect(container).to_be_hidden()


def api(server: str, path: str, **query) -> dict:
    with urllib.request.urlopen(f"{server}{path}?{urlencode(query)}", timeout=60) as answer:
        return json.load(answer)


def enter(page, play: dict) -> None:
    """Click a play's steps (source, then destination) and confirm it."""
    for step in play["steps"]:
        by(page, "bar" if step["from"] == 25 else f"point-{step['from']}").click()
        by(page, "off" if step["to"] == 0 else f"point-{step['to']}").click()
    expect(by(page, "confirm")).to_be_enabled()
    by(page, "confirm").click()


def human_to_act(page) -> dict:
    """Wait until the page has the server's answer and the human must act, or the tutor warns; the view."""
    page.wait_for_function(
        "() => { const p = window.nardyPlay, v = p && p.view;"
        " return v && !p.busy && (p.warned || v.phase === 'over' || v.turn === 'human'); }",
        timeout=60000,
    )
    return page.evaluate("() => window.nardyPlay.view")


def legal(page, move: str) -> dict:
    """The legal play of the page's game written ``move``, once the page has its game."""
    return next(p for p in human_to_act(page)["plays"] if p["move"] == move)


# ---------------------------------------------------------------- modes


@pytest.mark.slow
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_page_opens_in_play_with_new_game_in_the_first_screen(page, servers, size):
    page.set_viewport_size(size)
    page.goto(servers["real"] + "/")
    only_mode(page, "play")
    in_first_screen(page, "new-game")
    if size == PHONE:
        shoot(page, "first-screen")
    expect(by(page, "position-input")).to_be_hidden()
    expect(by(page, "analyse")).to_be_hidden()
    expect(by(page, "mat-input")).to_be_hidden()
    expect(by(page, "board")).to_be_visible()


@pytest.mark.slow
def test_each_tab_shows_only_its_mode_and_the_address_keeps_it(page, servers):
    page.goto(servers["real"] + "/")
    page.click("#tab-analyse")
    only_mode(page, "analyse")
    expect(by(page, "roll")).to_be_hidden()
    expect(by(page, "new-game")).to_be_hidden()
    expect(by(page, "position-input")).to_be_visible()
    assert page.url.endswith("/#analyse")
    page.click("#tab-match")
    only_mode(page, "match")
    expect(by(page, "analyse")).to_be_hidden()
    expect(by(page, "mat-input")).to_be_visible()
    assert page.url.endswith("/#match")
    page.click("#tab-play")
    only_mode(page, "play")
    expect(by(page, "new-game")).to_be_visible()
    expect(by(page, "roll")).to_be_hidden()  # until a game is started
    assert page.url.endswith("/")
    # A shared address opens its mode.
    for address, mode in (
        ("/#analyse", "analyse"),
        ("/?mode=analyse", "analyse"),
        ("/#match", "match"),
        ("/?mode=nonsense", "play"),
    ):
        page.goto(servers["real"] + address)
        only_mode(page, mode)
    page.goto(servers["real"] + "/#match")
    page.evaluate("() => { location.hash = 'analyse'; }")
    only_mode(page, "analyse")


# ---------------------------------------------------------------- a phone's first screen


@pytest.mark.slow
def test_on_a_phone_the_board_and_the_games_buttons_are_in_the_first_screen(page, servers):
    page.set_viewport_size(PHONE)
    page.goto(servers["real"] + "/?seed=7&delay=0")
    by(page, "new-game").click()
    page.evaluate("() => window.scrollTo(0, 0)")
    in_first_screen(page, "board", "roll")
    by(page, "roll").click()
    while _wait_for_human(page) != "move":
        by(page, "roll").click()
    page.evaluate("() => window.scrollTo(0, 0)")
    for testid in ("board", "confirm", "undo", "resign", "double"):
        in_first_screen(page, testid)
    in_first_screen(page, "dice")


@pytest.mark.slow
def test_on_a_phone_match_review_keeps_board_and_step_buttons_in_the_first_screen(page, servers, tmp_path):
    blunder = tmp_path / "blunder.mat"
    blunder.write_text(BLUNDER_MAT)
    page.set_viewport_size(PHONE)
    page.goto(servers["real"] + "/#match")
    by(page, "mat-input").set_input_files(str(blunder))
    by(page, "analyse-match").click()
    expect(by(page, "decision-count")).to_have_text(re.compile(r"^1 / \d+"), timeout=30000)
    page.evaluate("() => window.scrollTo(0, 0)")
    for testid in ("board", "prev-decision", "next-decision", "next-error", "decision-detail"):
        in_first_screen(page, testid)


# ---------------------------------------------------------------- resign


@pytest.mark.slow
def test_resign_asks_before_ending_the_game(page, servers):
    page.goto(servers["real"] + "/?seed=11&delay=0")
    by(page, "new-game").click()
    by(page, "roll").click()
    _wait_for_human(page)
    by(page, "resign").click()
    question = by(page, "confirm-resign")
    expect(question).to_be_visible()
    expect(question).to_contain_text("Resign this game?")
    shoot(page, "resign-asks")
    by(page, "resign-no").click()
    expect(question).to_be_hidden()
    expect(by(page, "game-over")).to_be_hidden()
    assert page.evaluate("() => window.nardyPlay.view.phase") in ("roll", "move")
    by(page, "resign").click()
    page.select_option("#resign-level", "3")  # a backgammon: nardy accepts at once
    by(page, "resign-yes").click()
    expect(by(page, "game-over")).to_have_text(re.compile(r"nardy wins 3 points \(resignation\)"))
    expect(question).to_be_hidden()


# ---------------------------------------------------------------- the tutor


def _opening_51(server: str, length: int) -> tuple[str, list[dict]]:
    """The game token of the opening position with 51 to play (the human's), and its ranked plays (0-ply)."""
    game = setup(SetupQuery.model_validate({"checkers": "4HPwATDgc/ABMA", "dice": "51", "length": length})).game
    return game, api(server, "/v1/moves", position=game, plies=0)["moves"]


@pytest.mark.slow
def test_the_tutor_warns_before_a_play_losing_005_and_not_before_the_best(page, servers):
    game, ranked = _opening_51(servers["real"], 0)
    best = ranked[0]
    poor = next(m for m in ranked if 0.06 <= best["equity"] - m["equity"] < 0.12)  # a bad play, not very bad
    loss = best["equity"] - poor["equity"]
    page.goto(servers["real"] + f"/?delay=100000&game={game}")
    expect(by(page, "tutor")).not_to_be_checked()  # off by default
    by(page, "tutor").check()
    enter(page, legal(page, poor["move"]))
    warning = by(page, "tutor-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text(f"loses {loss:.3f} equity (bad)")
    expect(warning).to_contain_text(f"the better play is {best['move']}")
    shoot(page, "tutor-warning")
    # Take it back: nothing was sent, the play is undone.
    by(page, "tutor-back").click()
    expect(warning).to_be_hidden()
    expect(by(page, "confirm")).to_be_disabled()
    assert page.evaluate("() => window.nardyPlay.view.phase") == "move"
    enter(page, legal(page, best["move"]))
    expect(page.locator("#log")).to_contain_text(f"You play {best['move']}")
    expect(warning).to_be_hidden()
    expect(by(page, "tutor-grade").last).to_contain_text("best")
    expect(by(page, "tutor-tally")).to_contain_text("0 errors this game")
    # Remembered by the browser; played anyway, the error is graded in its mark's colour and counted.
    page.goto(servers["real"] + f"/?delay=100000&game={game}")
    expect(by(page, "tutor")).to_be_checked()
    enter(page, legal(page, poor["move"]))
    expect(warning).to_be_visible()
    by(page, "tutor-anyway").click()
    expect(page.locator("#log")).to_contain_text(f"You play {poor['move']}")
    grade = by(page, "tutor-grade").last
    expect(grade).to_contain_text(f"bad, −{loss:.3f}")
    expect(grade).to_have_class(re.compile(r"\bmark-bad\b"))
    expect(by(page, "tutor-tally")).to_contain_text("1 error this game (0 doubtful, 1 bad, 0 very bad)")
    shoot(page, "tutor-graded")


@pytest.mark.slow
def test_the_tutor_weighs_a_match_play_in_emg(page, servers):
    game, ranked = _opening_51(servers["real"], 5)
    worst = ranked[-1]
    page.goto(servers["real"] + f"/?delay=100000&game={game}")
    by(page, "tutor").check()
    enter(page, legal(page, worst["move"]))
    expect(by(page, "tutor-warning")).to_contain_text(re.compile(r"loses \d\.\d{3} EMG \((doubtful|bad|very bad)\)"))
    by(page, "tutor-back").click()
    enter(page, legal(page, ranked[0]["move"]))
    expect(by(page, "tutor-grade").last).to_contain_text("best")


@pytest.mark.slow
def test_the_tutor_warns_in_long_nardy(page, servers):
    page.goto(servers["real"] + "/?seed=5&delay=0")
    by(page, "tutor").check()
    page.select_option("#variant", "long")
    by(page, "new-game").click()
    warned = graded = False
    for _ in range(30):
        view = human_to_act(page)
        if view["phase"] != "move":
            by(page, "roll").click()
            continue
        ranked = api(
            servers["real"],
            "/v1/moves",
            variant="long",
            position=view["position_id"],
            dice="".join(map(str, view["dice"])),
            plies=0,
        )["moves"]
        if len(ranked) > 1 and ranked[0]["equity"] - ranked[-1]["equity"] >= 0.05 and not warned:
            enter(page, legal(page, ranked[-1]["move"]))
            expect(by(page, "tutor-warning")).to_contain_text(f"the better play is {ranked[0]['move']}")
            by(page, "tutor-back").click()
            warned = True
        enter(page, legal(page, ranked[0]["move"]))
        if len(ranked) > 1:
            expect(by(page, "tutor-warning")).to_be_hidden()
            expect(by(page, "tutor-grade").last).to_contain_text("best")
            graded = True
        if warned and graded:
            break
    assert warned and graded


# ---------------------------------------------------------------- match review's candidates


@pytest.mark.slow
def test_match_review_ranks_the_candidates_of_a_checker_play(page, servers, tmp_path):
    blunder = tmp_path / "blunder.mat"
    blunder.write_text(BLUNDER_MAT.replace(" 1 point match", " 3 point match"))  # with the cube
    page.goto(servers["real"] + "/#match")
    by(page, "mat-input").set_input_files(str(blunder))
    by(page, "analyse-match").click()
    expect(by(page, "decision-count")).to_have_text(re.compile(r"^1 / \d+"), timeout=30000)
    rows = by(page, "candidate-row")
    expect(rows.first).to_contain_text("24/23 13/8")  # the best of 51, first
    assert rows.count() >= 2
    played = page.locator('[data-testid="candidate-row"].played')
    expect(played).to_have_count(1)
    expect(played).to_contain_text("8/7 8/3")
    expect(played).to_contain_text("played")
    expect(by(page, "candidates").locator("th", has_text="Depth")).to_have_count(1)
    expect(by(page, "match-players").locator("th", has_text="PR")).to_have_attribute("title", re.compile("rating"))
    expect(page.locator("#stats-legend")).to_contain_text("mEMG")
    shoot(page, "match-candidates")
    # A cube decision: its three equities, the proper action in words, the action taken marked.
    for _ in range(5):
        by(page, "next-decision").click()
        if "cube" in (by(page, "decision-detail").text_content() or ""):
            break
    cube = by(page, "cube-row")
    expect(cube).to_have_count(3)
    expect(by(page, "candidates")).to_contain_text(
        re.compile(
            r"Proper cube action: (No double, take|Double, take|"
            r"Double, pass|Too good to double, pass)"
        )
    )
    expect(page.locator('[data-testid="cube-row"].played')).to_have_count(1)
    shoot(page, "match-cube")


@pytest.mark.slow
def test_the_tutor_warns_before_passing_a_double_that_should_be_taken(page, servers):
    # The side on roll always wins 72%, no gammons: nardy doubles at once, and the double is a take
    # (after a take it holds 0.69 of a pass's 1.00).
    page.goto(servers["favourite"] + "/?seed=3&delay=0")
    by(page, "tutor").check()
    page.select_option("#length", "0")
    by(page, "new-game").click()
    for _ in range(20):
        view = human_to_act(page)
        if view["phase"] == "doubled":
            break
        if by(page, "tutor-warning").is_visible():  # rolling where a double is right: doubtful
            expect(by(page, "tutor-warning")).to_contain_text("the better action is double")
            by(page, "tutor-anyway").click()
        elif view["phase"] in ("opening", "roll"):
            by(page, "roll").click()
        elif view["phase"] == "move":
            enter(page, view["plays"][0])
    else:
        pytest.fail("nardy never doubled")
    by(page, "pass").click()
    warning = by(page, "tutor-warning")
    expect(warning).to_contain_text("Passing loses 0.310 equity (very bad): the better action is take (Double, take)")
    by(page, "tutor-back").click()
    expect(warning).to_be_hidden()
    by(page, "take").click()
    expect(page.locator("#cube-info")).to_have_text("Cube 2, yours")
    expect(by(page, "tutor-grade").last).to_contain_text("Tutor: taking best")
