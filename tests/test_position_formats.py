"""engine.position_formats.read_position: the POSITION text (Position ID, PositionID:MatchID, XGID) as engine data."""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import START, flip
from engine.errors import InvalidMatchError, InvalidPositionError
from engine.match import MatchState
from engine.position_formats import read_position

XGID_START = "XGID=-b----E-C---eE---c-e----B-"


def test_a_position_id_alone_is_a_money_game_before_the_roll():
    s = read_position(" 4HPwATDgc/ABMA ")
    np.testing.assert_array_equal(s.board, START)
    assert s.dice is None and s.match == MatchState() and s.player == 0
    assert not s.double_offered and s.resign_offered == 0 and not s.beavers
    assert not s.board.flags.writeable


def test_a_match_id_gives_the_match_by_gnubg_seats():
    # 9-point match, score 2-4 (player 0 - player 1), cube 2 owned by player 0, player 1 rolled 52.
    s = read_position("sGfwATDgc/ABMA:QYkqASAAIAAA")
    assert s.dice == (5, 2) and s.player == 1 and s.names == ("player 0", "player 1")
    assert s.match == MatchState(match_length=9, score=(2, 4), cube_value=2, cube_owner=0)
    # Money: player 1 on roll has offered to resign a gammon, player 0 must answer.
    offered = read_position("4HPwATDgc/ABMA:cEEAAAAAAAAA")
    assert offered.resign_offered == 2 and offered.player == 1 and offered.match == MatchState(jacoby=True)


def test_an_xgid_gives_the_match_by_bottom_and_top():
    top = read_position(f"{XGID_START}:1:-1:-1:52:2:4:0:9:10")
    np.testing.assert_array_equal(top.board, flip(START))
    assert top.dice == (5, 2) and top.player == 1 and top.names == ("bottom", "top")
    assert top.match == MatchState(match_length=9, score=(2, 4), cube_value=2, cube_owner=1)
    money = read_position(f"{XGID_START}:0:0:1:D:0:0:3:0:10")
    assert money.player == 0 and money.double_offered and money.beavers and money.match.jacoby


@pytest.mark.parametrize(
    "text, error, message",
    [
        ("nonsense", InvalidPositionError, "Position ID 'nonsense': expected 14 characters"),
        ("4HPwATDgc/ABMA:", InvalidPositionError, "'4HPwATDgc/ABMA:': nothing after ':'"),
        ("4HPwATDgc/ABMA:short", InvalidMatchError, "Match ID 'short'"),
        (f"{XGID_START}:0:0:1:00", InvalidPositionError, "XGID .*expected 10 fields"),
        # The Crawford game with the cube turned: the match state is impossible.
        (f"{XGID_START}:1:1:-1:52:8:4:1:9:10", InvalidMatchError, "XGID '.*:8:4:1:9:10'.*Crawford"),
        (None, InvalidPositionError, "position None: expected text"),
    ],
)
def test_bad_text_names_the_input(text, error, message):
    with pytest.raises(error, match=message):
        read_position(text)
