"""The web board's modes as players use them, in a real browser (Playwright driving Debian's Chromium).

The bot's offer to resign a lost game (accepted, or rejected and played on); a whole situation set up
(checkers, side on roll, dice, cube, score, match length, Crawford) whose Position ID and Match ID are
the server's encoding and survive an analysis; "Play from here"; the match analysis' chart; and, at a
phone's 390x844, no mode wider than the screen and every button big enough for a finger. Screenshots of
every mode at 1280x800 and 390x844 go to $NARDY_SHOTS (default /tmp/shots). Skipped as
tests/test_web_browser.py is, whose server, browser and page fixtures these tests share.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from bot.doors.analysis_views import SetupQuery, setup
from bot.facade import REPO_CHECKPOINT
from engine.match_id import decode_match_id
from engine.position_id import encode_position_id
from test_web_browser import (  # noqa: F401  (fixtures)
    BAD_REQUEST_LOG,
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
SHOTS = Path(os.environ.get("NARDY_SHOTS", "/tmp/shots"))
DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
# Smaller than this (CSS pixels) a button is hard to hit with a finger.
TOUCH_TARGET = 40


def shoot(page, name: str) -> None:
    """Screenshots at 1280x800 (the window) and 390x844 (the whole page), then back to 1280x800."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(80)
        page.screenshot(path=str(SHOTS / f"{name}-{size}.png"), full_page=size == "phone")
    page.set_viewport_size(DESKTOP)


def lost_for_top() -> np.ndarray:
    """Bottom's view: bottom's last two checkers on its 1-point, top's fifteen deep in bottom's home board."""
    board = np.zeros(26, dtype=int)
    board[1] = 2
    board[2] = board[3] = board[4] = -5
    return board


def set_up(page, checkers: np.ndarray, **fields) -> None:
    """Analyse a typed Position ID (bottom's view), set it up from there, then fill the set-up fields."""
    if by(page, "setup").get_attribute("aria-pressed") == "true":
        by(page, "setup").click()  # leave the set-up under way
    by(page, "position-input").fill(encode_position_id(checkers))
    by(page, "dice-input").fill("")
    by(page, "analyse").click()
    sync_api.expect(by(page, "cube-verdict")).to_be_visible()
    by(page, "setup").click()
    sync_api.expect(by(page, "setup-on-roll")).to_be_visible()
    for name, value in fields.items():
        field = by(page, f"setup-{name.replace('_', '-')}")
        if name == "crawford":
            field.set_checked(bool(value))
        elif name in ("on_roll", "cube", "owner"):
            field.select_option(str(value))
        elif name == "dice":
            by(page, "dice-input").fill(str(value))
        else:
            field.fill(str(value))
            field.dispatch_event("change")


def expect_ids(page, query: SetupQuery) -> tuple[str, str]:
    """The page shows the server's Position ID and Match ID of ``query`` (its unit-tested encoding)."""
    answer = setup(query)
    sync_api.expect(by(page, "position-id")).to_have_text(answer.position_id)
    sync_api.expect(page.locator("#match-id")).to_have_text(answer.match_id)
    sync_api.expect(by(page, "position-input")).to_have_value(answer.game)
    return answer.position_id, answer.match_id


# ---------------------------------------------------------------- the bot resigns


@pytest.mark.slow
def test_the_bot_offers_to_resign_a_lost_game_and_the_human_accepts(page, servers):
    page.goto(servers["real"] + "/?seed=3&delay=0#analyse")
    set_up(page, lost_for_top(), on_roll="top")
    expect_ids(page, SetupQuery(checkers=encode_position_id(lost_for_top()), on_roll="top"))
    by(page, "play-from-here").click()
    offer = by(page, "bot-resignation")
    sync_api.expect(offer).to_be_visible()
    sync_api.expect(offer).to_contain_text("resign a backgammon game")
    sync_api.expect(offer).to_contain_text("win 3 points")
    sync_api.expect(by(page, "roll")).to_be_disabled()
    sync_api.expect(by(page, "resign")).to_be_disabled()
    shoot(page, "play-bot-resigns")
    by(page, "accept-resignation").click()
    sync_api.expect(by(page, "game-over")).to_have_text(re.compile(r"You win 3 points \(resignation\)"))
    sync_api.expect(offer).to_be_hidden()


@pytest.mark.slow
def test_the_human_rejects_and_the_bot_plays_on(page, servers):
    page.goto(servers["real"] + "/?seed=3&delay=0#analyse")
    set_up(page, lost_for_top(), on_roll="top")
    by(page, "play-from-here").click()
    sync_api.expect(by(page, "bot-resignation")).to_be_visible()
    by(page, "reject-resignation").click()
    sync_api.expect(by(page, "bot-resignation")).to_be_hidden()
    sync_api.expect(page.locator("#log")).to_contain_text("nardy plays on")
    sync_api.expect(page.locator("#log")).to_contain_text("nardy rolls")
    assert _wait_for_human(page) == "roll"


# ---------------------------------------------------------------- setting up a situation


@pytest.mark.slow
def test_every_set_up_field_round_trips_through_the_ids(page, servers):
    page.goto(servers["real"] + "/#analyse")
    expect = sync_api.expect
    checkers = lost_for_top()
    checkers[1], checkers[6], checkers[25] = 5, 9, 1  # bottom: a real game, a checker on the bar
    fields = dict(on_roll="top", dice="52", cube=4, owner="bottom", length=7, score_bottom=2, score_top=5)
    set_up(page, checkers, **fields)
    query = SetupQuery(
        checkers=encode_position_id(checkers),
        on_roll="top",
        dice="52",
        cube=4,
        cube_owner="bottom",
        length=7,
        score_bottom=2,
        score_top=5,
    )
    _, match_id = expect_ids(page, query)
    m = decode_match_id(match_id)
    assert (m.player_on_roll, m.dice, m.cube_value, m.cube_owner, m.match_length, m.score, m.crawford) == (
        1,
        (5, 2),
        4,
        0,
        7,
        (2, 5),
        False,
    )
    expect(page.locator("#score")).to_have_text("Score 2-5 in a 7-point match")
    expect(page.locator("#cube-info")).to_have_text("Cube 4, bottom's")
    shoot(page, "setup-situation")
    # The Crawford game, bottom on roll, no dice: a cube decision.
    set_up(page, checkers, on_roll="bottom", dice="", cube=1, length=5, score_bottom=4, score_top=2, crawford=True)
    crawford = SetupQuery(checkers=encode_position_id(checkers), length=5, score_bottom=4, score_top=2, crawford=True)
    position_id, match_id = expect_ids(page, crawford)
    assert decode_match_id(match_id).crawford
    # Analysed, then set up again: the fields come back from the Position ID and Match ID.
    by(page, "analyse").click()
    expect(by(page, "cube-verdict")).to_contain_text("dead cube")  # the Crawford game
    expect(by(page, "position-id")).to_have_text(position_id)
    expect(page.locator("#match-id")).to_have_text(match_id)
    by(page, "setup").click()
    for name, value in (
        ("on-roll", "bottom"),
        ("cube", "1"),
        ("owner", ""),
        ("length", "5"),
        ("score-bottom", "4"),
        ("score-top", "2"),
    ):
        expect(by(page, f"setup-{name}")).to_have_value(value)
    expect(by(page, "setup-crawford")).to_be_checked()
    expect_ids(page, crawford)


@pytest.mark.slow
def test_an_impossible_set_up_is_named_and_play_from_here_plays_the_situation(page, servers):
    page.allowed_logs.add(BAD_REQUEST_LOG)
    page.goto(servers["real"] + "/?seed=5&delay=0#analyse")
    expect = sync_api.expect
    by(page, "setup").click()
    by(page, "setup-cube").select_option("2")  # owned by the side not on roll
    expect(by(page, "setup-owner")).to_have_value("top")
    by(page, "setup-score-top").fill("3")
    by(page, "setup-score-top").dispatch_event("change")
    expect(by(page, "error")).to_contain_text("a money game has no score")
    by(page, "setup-length").fill("3")
    by(page, "setup-length").dispatch_event("change")
    expect(by(page, "error")).to_contain_text("a 3-point match would be over")
    by(page, "setup-score-top").fill("1")
    by(page, "setup-score-top").dispatch_event("change")
    expect(by(page, "error")).to_be_hidden()
    by(page, "dice-input").fill("31")
    expect_ids(page, SetupQuery(checkers="4HPwATDgc/ABMA", dice="31", cube=2, cube_owner="top", length=3, score_top=1))
    by(page, "play-from-here").click()
    expect(page.locator("#tab-play")).to_have_class(re.compile(r"\bactive\b"))
    expect(by(page, "dice")).to_have_text("31")
    expect(page.locator("#score")).to_contain_text("3-point match")
    expect(page.locator("#cube-info")).to_have_text("Cube 2, nardy's")
    assert _wait_for_human(page) == "move"
    assert page.evaluate("() => window.nardyPlay.view.plays.length") > 1


# ---------------------------------------------------------------- the match chart


@pytest.mark.slow
def test_the_match_analysis_draws_the_match(page, servers, tmp_path):
    blunder = tmp_path / "blunder.mat"
    blunder.write_text(BLUNDER_MAT)
    page.goto(servers["real"] + "/")
    page.click("#tab-match")
    by(page, "mat-input").set_input_files(str(blunder))
    by(page, "analyse-match").click()
    chart = by(page, "match-chart")
    sync_api.expect(chart).to_be_visible(timeout=30000)
    sync_api.expect(chart.locator("polyline")).to_have_count(1)
    errors = chart.locator("circle.error")
    assert errors.count() >= 1
    sync_api.expect(errors.first.locator("title")).to_contain_text("8/7 8/3 (very bad")
    # A mark on the chart is a way to its decision.
    by(page, "next-decision").click()
    sync_api.expect(by(page, "decision-count")).to_have_text(re.compile(r"^2 / "))
    errors.first.click()
    sync_api.expect(by(page, "decision-count")).to_have_text(re.compile(r"^1 / "))
    sync_api.expect(by(page, "decision-detail")).to_contain_text("very bad")
    box = chart.bounding_box()
    assert box and box["width"] > 250 and box["height"] > 80


# ---------------------------------------------------------------- phones and screenshots


def _fits_a_phone(page, mode: str) -> None:
    """At 390x844: nothing scrolls sideways, the board fills the width, every visible button is big enough."""
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(80)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{mode}: the page is {width} px wide at a phone's {PHONE['width']}"
    board = by(page, "board").bounding_box()
    assert board and board["width"] >= 340, f"{mode}: the board is {board} on a phone"
    small = page.evaluate(
        """(least) => [...document.querySelectorAll('button')]
        .filter((b) => b.offsetParent !== null && b.getBoundingClientRect().height < least)
        .map((b) => `${b.id || b.textContent}: ${b.getBoundingClientRect().height}`)""",
        TOUCH_TARGET - 8,
    )
    assert not small, f"{mode}: buttons too small for a finger: {small}"
    page.set_viewport_size(DESKTOP)


@pytest.mark.slow
def test_every_mode_fits_a_phone_and_is_photographed(page, servers, tmp_path):
    exported = tmp_path / "exported.mat"
    from bot.doors import cli

    assert cli.run(["match", "--length", "3", "--seed", "3", "--mat", str(exported)]) in (0, None)
    page.goto(servers["real"] + "/?seed=7&delay=0#analyse")
    expect = sync_api.expect
    # Analyse: ranked plays (the widest table), then set-up.
    by(page, "dice-input").fill("31")
    by(page, "analyse").click()
    expect(by(page, "hint-row").first).to_contain_text("8/5 6/5")
    _fits_a_phone(page, "analyse")
    shoot(page, "analyse")
    by(page, "setup").click()
    expect(by(page, "setup-on-roll")).to_be_visible()
    _fits_a_phone(page, "set-up")
    shoot(page, "setup")
    by(page, "setup").click()
    # Play: a game under way, with the hint's table.
    page.click("#tab-play")
    by(page, "new-game").click()
    by(page, "roll").click()
    while _wait_for_human(page) != "move":
        by(page, "roll").click()
    page.click("#hint")
    expect(by(page, "hint-row").first).to_be_visible()
    _fits_a_phone(page, "play")
    shoot(page, "play")
    # Match analysis: statistics, chart, decisions.
    page.click("#tab-match")
    by(page, "mat-input").set_input_files(str(exported))
    by(page, "analyse-match").click()
    expect(by(page, "match-chart")).to_be_visible(timeout=30000)
    expect(by(page, "decision-count")).to_have_text(re.compile(r"^1 / \d+"))
    _fits_a_phone(page, "match analysis")
    shoot(page, "match")
