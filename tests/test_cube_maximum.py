"""The cube at its maximum (4096, GNU Backgammon's largest): no door advises doubling it."""

from __future__ import annotations

import io
import json

import pytest

from conftest import board, tiny_bot
from bot.doors.bei import BeiSession
from bot.doors.ubgi import UbgiEngine, serve
from bot.equity.cube import CubeState, Owner, Verdict
from bot.facade import Bot
from bot.play.match_play import BotPlayer
from engine.match import MAX_CUBE
from engine.position_id import encode_position_id

# The side on roll bears its last checker off with any roll; the opponent has one checker off (no gammon).
# One roll ahead the bot sees the sure win: a double that must be passed.
LAST_ROLL = board({1: 1}, {19: 3, 20: 3, 21: 3, 22: 3, 23: 2})
PLIES = 1


@pytest.fixture(scope="module")
def bot() -> Bot:
    return tiny_bot(7)


def test_the_side_on_roll_may_not_double_a_cube_at_its_maximum():
    assert MAX_CUBE == 4096
    assert CubeState(cube=MAX_CUBE // 2, owner=Owner.ME).can_double
    assert not CubeState(cube=MAX_CUBE, owner=Owner.ME).can_double
    assert not CubeState(cube=MAX_CUBE, owner=Owner.ME, beavers=True, jacoby=True).can_double


def test_the_bot_doubles_a_sure_win_below_the_maximum_and_not_at_it(bot):
    below = bot.cube_decision(LAST_ROLL, CubeState(cube=MAX_CUBE // 2, owner=Owner.ME), PLIES)
    at_max = bot.cube_decision(LAST_ROLL, CubeState(cube=MAX_CUBE, owner=Owner.ME), PLIES)
    assert below.should_double and below.verdict is Verdict.REDOUBLE_PASS
    assert not at_max.should_double and at_max.verdict is Verdict.NOT_AVAILABLE


def ubgi(bot: Bot, *lines: str) -> list[str]:
    """The answers (no info or eval lines) of a UBGI engine to ``lines``."""
    out: list[str] = []
    serve(UbgiEngine(bot, out.append, lambda path: bot), io.BytesIO("\n".join(lines).encode()), background=False)
    return [line for line in out if not line.startswith(("info ", "eval "))]


def test_ubgi_advises_no_double_of_a_cube_at_its_maximum(bot):
    position = ["set engine.ply 1", "position gnubgid " + encode_position_id(LAST_ROLL), "dice 2 1"]
    for cube, verdict in ((MAX_CUBE // 2, "double"), (MAX_CUBE, "nodouble")):
        out = ubgi(bot, *position, f"setcube value {cube} owner p0", "go cube", "go turn")
        assert out == [f"bestcube {verdict}", f"bestturn cube={verdict} move=1/off"], cube


def bei_state(cube: int) -> str:
    """``LAST_ROLL`` as a BEI state: player 1 on turn, not rolled, owning the cube at ``cube``, money."""
    fields = [0] * 45
    fields[0] = 14  # player 1's checkers borne off
    fields[1] = 1
    for point, checkers in {19: 3, 20: 3, 21: 3, 22: 3, 23: 2}.items():
        fields[point] = -checkers
    fields[25] = -1  # player 2's one checker borne off
    fields[31] = 1  # player 1's turn
    fields[33], fields[34] = cube, 1  # the cube and its owner, player 1
    return ",".join(map(str, fields))


def test_bei_advises_no_double_of_a_cube_at_its_maximum(bot):
    session = BeiSession(BotPlayer(bot, plies=PLIES))
    assert json.loads(session.answer("bei") or "")["Type"] == "okbei"
    for cube, double in ((MAX_CUBE // 2, True), (MAX_CUBE, False)):
        event = json.loads(session.answer(f"double {bei_state(cube)}") or "")
        assert event["Type"] == "okdouble" and event["Double"] is double, (cube, event)
