"""The web board on a phone, by touch, and the tutor's arrows, in a real browser (Playwright driving Debian's Chromium).

A whole 5-point match against the 0-ply bot is played at 390x844 with touch taps only (a touch-screen, mobile
context), each checker play tapped out on the board as the first legal play of the roll, and before every tap
the board and what is tapped are both in the first screen: no phase of a match (the opening roll, a double to
answer, a resignation offered, a game over, the next game, the match's end) needs a scroll. The tutor's
warning draws the better play as arrows on the board, in backgammon and long nardy, gone once the player acts;
a long nardy game links its rules page. Screenshots go to $NARDY_SHOTS (default /tmp/shots). Skipped as
tests/test_web_browser.py is, whose fixtures these tests share.
"""

from __future__ import annotations

import re
import time

import pytest

from bot.facade import REPO_CHECKPOINT
from test_web_board_modes_browser import SHOTS, shoot
from test_web_browser import (  # noqa: F401  (fixtures)
    CHROMIUM,
    browser,
    by,
    page,
    servers,
    sync_api,
)
from test_web_first_screen_browser import _opening_51, api, enter, human_to_act, in_first_screen, legal

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium)"),
    pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason=f"no shipped network at {REPO_CHECKPOINT}"),
]
expect = sync_api.expect
MATCH_DEADLINE = 900  # seconds for a whole match on a busy machine; one usually takes a minute or two


@pytest.fixture
def phone(browser, servers):
    """A touch-screen phone's page (390x844, mobile) that records console errors and requests leaving 127.0.0.1."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors, outside = [], []
    page.route(
        re.compile(r"^(?!https?://127\.0\.0\.1[:/]).*"),
        lambda route: (outside.append(route.request.url), route.abort()),
    )
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert not errors, f"console errors: {errors}"
    assert not outside, f"requests outside 127.0.0.1: {outside}"


def tap(page, testid: str) -> None:
    """Tap the middle of an element, as a finger does, after checking that it and the board are in the first screen,
    nothing scrolled."""
    box = in_first_screen(page, "board", testid)[1]
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def point(n: int) -> str:
    return {25: "bar", 0: "off"}.get(n, f"point-{n}")


@pytest.mark.slow
def test_a_whole_five_point_match_by_touch_on_a_phone(phone, servers):
    phone.goto(servers["real"] + "/?seed=17&delay=0")
    expect(phone.locator("#length")).to_have_value("5")
    expect(phone.locator("#level")).to_have_value("0")
    tap(phone, "new-game")
    seen, deadline = set(), time.monotonic() + MATCH_DEADLINE
    while time.monotonic() < deadline:
        view = human_to_act(phone)
        phase = view["phase"]
        seen.add(phase)
        if phase == "over":
            result = view["result"]
            expect(by(phone, "game-over")).to_be_visible()
            in_first_screen(phone, "game-over")
            expect(by(phone, "roll")).to_be_hidden()  # the turn's buttons give way to the result
            if result["match_over"]:
                break
            SHOTS.mkdir(parents=True, exist_ok=True)
            phone.screenshot(path=str(SHOTS / "phone-touch-next-game.png"))
            tap(phone, "next-game")
        elif phase in ("opening", "roll"):
            tap(phone, "roll")
        elif phase == "doubled":
            tap(phone, "take")
        elif phase == "resigned":
            tap(phone, "accept-resignation")
        else:
            for step in view["plays"][0]["steps"]:
                tap(phone, point(step["from"]))
                tap(phone, point(step["to"]))
            expect(by(phone, "confirm")).to_be_enabled()
            tap(phone, "confirm")
    else:
        pytest.fail(f"no winner within {MATCH_DEADLINE} s; phases seen {sorted(seen)}")
    score = result["score"]
    assert max(score["human"], score["bot"]) >= 5
    winner = "You win" if result["winner"] == "human" else "nardy wins"
    expect(by(phone, "game-over")).to_have_text(re.compile(rf"^{winner} \d+ points?.* and the match, \d+-\d+\.$"))
    expect(by(phone, "next-game")).to_be_hidden()
    assert {"opening", "move", "over"} <= seen
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SHOTS / "phone-touch-match-over.png"))


# ---------------------------------------------------------------- the tutor's arrows


def arrows(page, testid: str) -> list[tuple[int, int]]:
    """The (from, to) of the board's arrows of one kind, in the order drawn."""
    return [
        (int(a.get_attribute("data-from") or -1), int(a.get_attribute("data-to") or -1)) for a in by(page, testid).all()
    ]


def steps(play: list[dict]) -> list[tuple[int, int]]:
    return [(s["from"], s["to"]) for s in play]


@pytest.mark.slow
def test_the_tutor_draws_the_better_play_as_arrows_until_the_player_acts(page, servers):
    game, ranked = _opening_51(servers["real"], 0)
    best, worst = ranked[0], ranked[-1]
    page.goto(servers["real"] + f"/?delay=100000&game={game}")
    by(page, "tutor").check()
    human_to_act(page)
    assert arrows(page, "tutor-arrow") == []
    poor = legal(page, worst["move"])
    enter(page, poor)
    expect(by(page, "tutor-warning")).to_contain_text("the better play in yellow, yours dashed")
    assert arrows(page, "tutor-arrow") == steps(best["play"])
    assert arrows(page, "played-arrow") == steps(poor["steps"])
    # The board under the arrows is the one before the play: the checkers back where they were.
    assert by(page, "point-24").locator('[data-testid="checker"]').count() == 2
    shoot(page, "tutor-arrows")
    by(page, "tutor-back").click()
    expect(by(page, "tutor-arrow")).to_have_count(0)
    expect(by(page, "played-arrow")).to_have_count(0)
    enter(page, poor)
    expect(by(page, "tutor-arrow")).to_have_count(len(best["play"]))
    by(page, "tutor-anyway").click()
    expect(page.locator("#log")).to_contain_text(f"You play {worst['move']}")
    expect(by(page, "tutor-arrow")).to_have_count(0)


@pytest.mark.slow
def test_the_tutor_draws_arrows_in_long_nardy_and_the_board_links_its_rules(page, servers):
    page.goto(servers["real"] + "/?seed=5&delay=0")
    expect(by(page, "rules-link")).to_be_hidden()  # backgammon chosen
    by(page, "tutor").check()
    page.select_option("#variant", "long")
    expect(by(page, "rules-link")).to_be_visible()
    by(page, "new-game").click()
    for _ in range(30):
        view = human_to_act(page)
        if view["phase"] != "move":
            by(page, "roll").click()
            continue
        dice = "".join(map(str, view["dice"]))
        ranked = api(servers["real"], "/v1/moves", variant="long", position=view["position_id"], dice=dice, plies=0)
        moves = ranked["moves"]
        if len(moves) > 1 and moves[0]["equity"] - moves[-1]["equity"] >= 0.05:
            enter(page, legal(page, moves[-1]["move"]))
            expect(by(page, "tutor-warning")).to_be_visible()
            assert arrows(page, "tutor-arrow") == steps(moves[0]["play"])
            shoot(page, "tutor-arrows-long")
            by(page, "tutor-back").click()
            expect(by(page, "tutor-arrow")).to_have_count(0)
            break
        enter(page, legal(page, moves[0]["move"]))
    else:
        pytest.fail("no long nardy roll with a play that loses 0.05")
    link = by(page, "rules-link")
    expect(link).to_have_attribute("href", "/rules/long-nardy")
    with page.context.expect_page() as opened:
        link.click()
    rules = opened.value
    expect(rules.get_by_test_id("rules").locator("h1")).to_have_text("Long nardy: the rules, for players")
    expect(rules.locator("#the-head-rule-r6")).to_be_visible()
    shoot(rules, "rules-long-nardy")
    assert page.evaluate("() => window.nardyPlay.view.phase") == "move"  # the game is still there
