"""The Position value: equality, hashing, the pasteable repr, Position IDs, and the records that hold one."""

import numpy as np
import pytest

from engine import Position, read_position
from engine.board import START, flip
from engine.errors import InvalidPositionError
from engine.fibs import FibsBoard
from engine.xgid import parse_xgid

IDS = ["4HPwATDgc/ABMA", "zGbiIQgxH/AAWA", "AAAAAAAAAAAAAA"]


@pytest.mark.parametrize("position_id", IDS)
def test_id_and_repr_round_trip(position_id):
    p = Position.from_id(position_id)
    assert p.id == position_id
    assert repr(p) == f"Position.from_id({position_id!r})"
    assert eval(repr(p)) == p


def test_equality_and_hash_by_board():
    a, b = Position(START), Position(START.copy())
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Position.from_id("zGbiIQgxH/AAWA") and a != "4HPwATDgc/ABMA"
    assert Position(a) == a


def test_board_is_a_read_only_copy():
    board = START.copy()
    p = Position(board)
    board[24] = 0
    assert p.board[24] == 2 and p.board.dtype == np.int8
    with pytest.raises(ValueError):
        p.board[24] = 1
    with pytest.raises(AttributeError):
        p.board = START  # type: ignore[misc]


def test_flipped_and_pips():
    p = Position.from_id("zGbiIQgxH/AAWA")
    np.testing.assert_array_equal(p.flipped().board, flip(p.board))
    assert p.flipped().flipped() == p
    assert p.flipped().pip_counts() == p.pip_counts()[::-1]


def test_bad_boards_are_refused():
    with pytest.raises(InvalidPositionError):
        Position(np.zeros(25, dtype=np.int8))
    with pytest.raises(InvalidPositionError):
        Position.from_id("not an id")


def test_records_holding_a_board_compare_and_hash():
    text = "4HPwATDgc/ABMA:QYkqASAAIAAA"
    assert read_position(text) == read_position(text) and hash(read_position(text)) == hash(read_position(text))
    assert read_position(text) != read_position("4HPwATDgc/ABMA")
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert parse_xgid(xgid) == parse_xgid(xgid) and "Position.from_id(" in repr(parse_xgid(xgid))
    assert FibsBoard(START.copy()) == FibsBoard(START) != FibsBoard(flip(Position.from_id(IDS[1]).board))
