"""The batched generator against GNU Backgammon's answers, plus properties of its output."""

from __future__ import annotations

import numpy as np
from conftest import load_fixture
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import START, afterstates, decode_position_id, encode_position_id, flip


def _fixture_batch():
    records = load_fixture("movegen.jsonl")
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    dice = np.array([r["dice"] for r in records])
    return records, boards, dice


def test_all_gnubg_fixtures_match_in_one_batch():
    records, boards, dice = _fixture_batch()
    children, parent = afterstates(boards, dice)
    assert np.all(np.diff(parent) >= 0), "children must be grouped by parent in order"
    starts = np.searchsorted(parent, np.arange(len(records) + 1))
    for i, record in enumerate(records):
        mine = sorted(encode_position_id(flip(c)) for c in children[starts[i] : starts[i + 1]])
        # gnubg lists no afterstate when the roll cannot be played; we return the board itself.
        expected = record["afterstates"] or [encode_position_id(flip(boards[i]))]
        assert mine == sorted(expected), (
            f"Position ID {record['position_id']} dice {record['dice']}: "
            f"missing {sorted(set(expected) - set(mine))}, extra {sorted(set(mine) - set(expected))}"
        )


def test_batch_of_one_equals_the_big_batch():
    records, boards, dice = _fixture_batch()
    children, parent = afterstates(boards, dice)
    for i in range(0, len(records), 97):
        single, single_parent = afterstates(boards[i : i + 1], dice[i : i + 1])
        assert np.all(single_parent == 0)
        assert np.array_equal(single, children[parent == i]), records[i]["position_id"]


def test_opening_roll_31_makes_the_five_point():
    children, _ = afterstates(START[None], np.array([[3, 1]]))
    assert "sGfwATDgc/ABMA" in {encode_position_id(flip(c)) for c in children}
    assert len(children) == 16


def test_no_legal_play_returns_the_board_itself():
    board = np.zeros(26, dtype=np.int8)
    board[25] = 1  # one checker on the bar against a closed board
    board[19:25] = -2
    board[1] = 3
    children, parent = afterstates(board[None], np.array([[6, 6]]))
    assert len(children) == 1 and np.array_equal(children[0], board)


@st.composite
def positions(draw):
    """Random legal positions: up to 15 checkers a side, never both sides on a point."""
    board = np.zeros(26, dtype=np.int8)
    owners = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=24, max_size=24))
    for side in (1, -1):
        points = [p + 1 for p, o in enumerate(owners) if o == side]
        total = draw(st.integers(0, 15))
        slots = points + [25 if side == 1 else 0]
        for _ in range(total):
            board[draw(st.sampled_from(slots))] += side
    dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    return board, dice


@settings(max_examples=300, deadline=None)
@given(positions())
def test_properties(case):
    board, dice = case
    children, parent = afterstates(board[None], np.array([dice]))
    assert len(children) >= 1 and np.all(parent == 0)
    mover_before = int(np.maximum(board, 0).sum())
    opponent_before = int(np.maximum(-board, 0).sum())
    for child in children:
        assert np.maximum(-child, 0).sum() == opponent_before, "opponent checkers are conserved"
        assert mover_before - 4 <= np.maximum(child, 0).sum() <= mover_before, "mover only bears off"
        assert np.all(flip(flip(child)) == child)
        assert not np.any((child[1:25] > 0) & (board[1:25] < -1)), "never lands on a closed point"
    assert len({c.tobytes() for c in children}) == len(children), "no afterstate is repeated"
    assert np.all(flip(flip(board)) == board)
