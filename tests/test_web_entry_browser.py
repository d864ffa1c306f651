"""Entering plays on the web board in a real browser: any path to a legal play, by clicks and by drag.

Sixty random positions (contact, hits, entering from the bar, bear-offs,
doubles, rolls of which only one die can be played, rolls that cannot be played) are
opened in one page through the game the page holds (the Play mode's ``?game=`` token,
here loaded position after position through ``window.nardyPlay``). For each, a legal
play chosen at random is entered through a random order of its steps, some of a
checker's steps joined into one move, by mouse clicks (checker, then destination) or by
dragging; the page must accept every move, reach that play's position and have the
server accept it on Confirm. A move that leads to no legal play is refused with a
message and changes nothing. Touch drags go through Chromium's touch emulation.
Screenshots of an entry half made go to $NARDY_SHOTS (default /tmp/shots). Skipped,
as tests/test_web_browser.py is, when Playwright or /usr/bin/chromium is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from engine.game import Game, Phase
from engine.match import MatchState
from engine.notation import parse_move
from engine.plays import legal_plays
from engine.position import Position
from entry_cases import Situation, combined, entry_order, situations

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install .[browser])")
from test_web_browser import SIZES, browser, page, point_centres, pytestmark, servers  # noqa: E402,F401  (its fixtures and skips)

SHOTS = Path(os.environ.get("NARDY_SHOTS", "/tmp/shots"))
NEVER = 2_000_000_000  # ms before the page would start the bot's turn: never, within a test
# Every kind of position (seven) entered every way (three) three times. The rule itself is tested wider without a
# browser: tests/test_web_entry_rule.py enters every legal play of 300 positions by random paths through entry.js.
POSITIONS = 63


def token(s: Situation) -> str:
    """The game token of a money game with the human (seat 0) to play ``s.dice`` on ``s.board``."""
    return ":".join(Game(MatchState(), Phase.ROLLED, 0, Position(s.board), s.dice).ids())


class Board:
    """The page's board as a test drives it: where each point is on the screen, and the entry's state."""

    def __init__(self, page) -> None:
        self.page = page
        self.centres: dict[int, tuple[float, float]] = {}

    def measure(self) -> None:
        self.centres = point_centres(self.page)

    def load(self, s: Situation) -> None:
        self.page.evaluate("async (t) => { await window.nardyPlay.act('/v1/game/view', {}, t); }", token(s))
        state = self.state()
        assert state["phase"] == "move" and state["board"] == [int(x) for x in s.board], state

    def state(self) -> dict:
        return self.page.evaluate("""() => { const p = window.nardyPlay, e = p.entry;
            return { phase: p.view.phase, turn: p.view.turn, viewBoard: p.view.board,
                     board: e ? e.board : null, moves: e ? e.history.length : 0,
                     notice: document.querySelector('[data-testid="notice"]').textContent,
                     complete: Boolean(p.complete()), selected: p.selected }; }""")

    def targets(self, point: int) -> list[int]:
        return self.page.evaluate("(p) => [...window.nardyPlay.entry.targets(p)]", point)

    def click(self, point: int) -> None:
        self.page.mouse.click(*self.centres[point])

    def drag(self, a: int, b: int) -> None:
        mouse = self.page.mouse
        mouse.move(*self.centres[a])
        mouse.down()
        mouse.move(*self.centres[b], steps=3)
        mouse.up()

    def touch_drag(self, cdp, a: int, b: int) -> None:
        (x0, y0), (x1, y1) = self.centres[a], self.centres[b]
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
        for k in range(1, 4):
            x, y = x0 + (x1 - x0) * k / 3, y0 + (y1 - y0) * k / 3
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def enter(self, a: int, b: int, how: str, cdp=None) -> None:
        """One move (a checker from ``a`` to ``b``) by ``how``; the page must take it."""
        before = self.state()["moves"]
        if how == "drag":
            self.drag(a, b)
        elif how == "touch":
            self.touch_drag(cdp, a, b)
        else:
            self.click(a)
            # A checker with one place to go goes there on the first click; the second does nothing then.
            self.click(b)
        after = self.state()
        assert after["moves"] == before + 1 and after["notice"] == "", f"{how} {a}->{b}: {after}"


def _refused(board: Board, s: Situation, rng: np.random.Generator) -> None:
    """A move that leads to no legal play is refused with a message and changes nothing."""
    start = board.state()["board"]
    mine = [p for p in range(1, 26) if s.board[p] > 0]
    for _ in range(20):
        a = int(rng.choice(mine))
        allowed = set(board.targets(a))
        wrong = [p for p in range(0, a) if p not in allowed]
        if not wrong:
            continue
        b = int(rng.choice(wrong))
        if allowed:
            board.drag(a, b)
        else:
            board.click(a)
        after = board.state()
        assert after["notice"], f"{a}->{b} refused without a message"
        assert after["board"] == start and after["moves"] == 0
        if after["selected"] is not None:
            board.click(after["selected"])  # put the checker down again
        return


@pytest.mark.slow
def test_random_plays_entered_by_any_path_are_accepted(page, servers):
    rng = np.random.default_rng(41)
    cases = situations(rng, POSITIONS)
    page.goto(servers["favourite"] + f"/?delay={NEVER}&game={token(cases[0])}")
    page.wait_for_function("() => window.nardyPlay && window.nardyPlay.entry")
    board = Board(page)
    board.measure()
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    ways = ["click", "drag", "touch"]
    counts: dict[tuple[str, str], int] = {}
    for i, s in enumerate(cases):
        board.load(s)
        plays = legal_plays(s.board, s.dice)
        if plays[0].steps:
            _refused(board, s, rng)
        play = plays[rng.integers(len(plays))]
        how = ways[i % len(ways)]
        for a, b in combined(entry_order(s.board, play, rng), rng):
            board.enter(a, b, how, cdp)
        state = board.state()
        assert state["complete"] and state["board"] == [int(x) for x in play.afterstate], (token(s), state)
        page.get_by_test_id("confirm").click()
        page.wait_for_function("() => !window.nardyPlay.busy && window.nardyPlay.view.phase !== 'move'")
        state = board.state()
        assert state["turn"] == "bot" or state["phase"] == "over", state
        assert state["viewBoard"] == [int(x) for x in play.afterstate], (token(s), state)
        counts[s.kind, how] = counts.get((s.kind, how), 0) + 1
    kinds = {"bar", "bearoff", "contact", "doubles", "hits", "none", "partial"}
    assert set(counts) == {(kind, how) for kind in kinds for how in ways}, counts


@pytest.mark.slow
def test_the_reported_play_and_its_messages(page, servers):
    """56 with checkers on 13, 8 and 7: 13/8 then 8/2 (through the other point), or 13 straight to 2."""
    b = np.zeros(26, dtype=np.int8)
    b[[13, 8, 7, 6, 24]] = [2, 2, 2, 5, 2]
    b[[1, 19, 12, 17]] = [-2, -5, -5, -3]
    s = Situation(b, (5, 6), "contact")
    page.goto(servers["favourite"] + f"/?delay={NEVER}&game={token(s)}")
    page.wait_for_function("() => window.nardyPlay && window.nardyPlay.entry")
    board = Board(page)
    board.measure()
    for moves in ([(13, 8), (8, 2)], [(8, 2), (13, 8)], [(13, 7), (7, 2)], [(13, 2)]):
        for a, c in moves:
            board.enter(a, c, "click")
        assert board.state()["complete"]
        for _ in moves:
            page.get_by_test_id("undo").click()
    board.drag(13, 4)
    assert board.state()["notice"] == "No legal play moves a checker from 13 to 4"
    board.enter(13, 8, "click")
    assert board.targets(8) == [2]
    shoot(page, board, "entry-mid", 8, 2)
    board.click(11)
    assert board.state()["notice"] == "No checker of yours on 11"
    board.enter(8, 2, "drag")
    page.get_by_test_id("confirm").click()
    page.wait_for_function("() => !window.nardyPlay.busy && window.nardyPlay.view.turn === 'bot'")
    assert board.state()["viewBoard"] == [int(x) for x in parse_move("13/2", b, "56").afterstate]
    assert "You play 13/2" in page.locator("#log").inner_text()


def shoot(page, board: Board, name: str, a: int, b: int) -> None:
    """Screenshots at each size in SIZES of a checker dragged from ``a`` half way to ``b`` (then put back)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(50)
        board.measure()
        (x0, y0), (x1, y1) = board.centres[a], board.centres[b]
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2 - 30, steps=3)
        assert page.get_by_test_id("dragged-checker").count() == 1
        page.screenshot(path=str(SHOTS / f"{name}-{size}.png"))
        page.mouse.move(x0, y0, steps=2)
        page.mouse.up()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_timeout(50)
    board.measure()


HUMAN_TO_ACT = (
    """() => {
    const p = window.nardyPlay, v = p && p.view, """
    """shown = (id) => !document.querySelector(`[data-testid="${id}"]`).hidden;
    if (!v || p.busy) return false;
    if (shown('bot-resignation')) return 'offer';
    if (v.phase === 'over') return shown('next-game') ? 'next' : 'match-over';
    if (v.turn !== 'human') return false;
    if (v.phase === 'doubled') return 'doubled';
    if (v.phase === 'roll' || v.phase === 'opening') return 'roll';
    return v.phase === 'move' && p.entry ? 'move' : false;
}"""
)


@pytest.mark.slow
def test_a_whole_match_by_clicks_with_random_plays_and_paths(page, servers):
    """A 5-point match against the bot, every play chosen at random and entered through a random path."""
    rng = np.random.default_rng(5)
    page.goto(servers["real"] + "/?seed=11&delay=0")
    page.select_option("#length", "5")
    page.get_by_test_id("new-game").click()
    board = Board(page)
    board.measure()
    games = plays_entered = 0
    for _ in range(3000):
        what = page.wait_for_function(HUMAN_TO_ACT, timeout=30000).json_value()
        if what == "match-over":
            break
        if what == "next":
            games += 1
            page.get_by_test_id("next-game").click()
        elif what == "offer":
            page.get_by_test_id("accept-resignation" if rng.random() < 0.5 else "reject-resignation").click()
        elif what == "doubled":
            page.get_by_test_id("take" if rng.random() < 0.5 else "pass").click()
        elif what == "roll":
            page.get_by_test_id("roll").click()
        else:
            position, dice = page.evaluate("() => [window.nardyPlay.view.board, window.nardyPlay.view.dice]")
            position = np.array(position, dtype=np.int8)
            plays = legal_plays(position, tuple(dice))
            play = plays[rng.integers(len(plays))]
            for a, b in combined(entry_order(position, play, rng), rng):
                board.enter(a, b, "click")
            assert board.state()["board"] == [int(x) for x in play.afterstate]
            page.get_by_test_id("confirm").click()
            plays_entered += 1
    else:
        pytest.fail("the match did not end")
    result = page.evaluate("() => window.nardyPlay.view.result")
    assert result["match_over"] and max(result["score"].values()) >= 5, result
    assert plays_entered > 10, (games, plays_entered)
