"""The batched generator against GNU Backgammon's answers, properties of its output, and the compiled
generator against the numpy one."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import load_fixture
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import ROLLS, START, afterstates, compiled, decode_position_id, encode_position_id, flip, validate_board
from engine.movegen import numpy_afterstates


def _fixture_batch():
    records = load_fixture("movegen.jsonl")
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    dice = np.array([r["dice"] for r in records])
    return records, boards, dice


@pytest.mark.slow
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
@pytest.mark.slow
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


def _random_boards(rng: np.random.Generator, count: int) -> np.ndarray:
    """Legal boards of four kinds in turn: contact, checkers on the bar against a partly closed home board,
    bear-offs, and bear-offs with one straggler outside (mover's view)."""
    boards = np.zeros((count, 26), dtype=np.int8)
    for i, board in enumerate(boards):
        kind = i % 4
        if kind < 2:
            owners = rng.choice([-1, 0, 1], size=24, p=[0.35, 0.3, 0.35])
            if kind == 1:
                owners[18:24] = np.where(rng.random(6) < 0.6, -1, owners[18:24])
                board[25] = rng.integers(1, 4)
            mine = [p + 1 for p in range(24) if owners[p] == 1] or [25]
            theirs = [p + 1 for p in range(24) if owners[p] == -1] or [0]
            for _ in range(rng.integers(10, 16) - board[25]):
                board[rng.choice(mine)] += 1
            for _ in range(rng.integers(10, 16) if kind == 0 else rng.integers(3, 10)):
                board[rng.choice(theirs)] -= 1
            if kind == 1:  # at most six more of the opponent's checkers: 15 in all
                board[19:25] = np.where(board[19:25] < 0, np.minimum(board[19:25], -2), board[19:25])
        else:
            for _ in range(rng.integers(1, 16 - (kind == 3))):
                board[rng.integers(1, 7)] += 1
            if kind == 3:
                board[rng.integers(7, 13)] += 1
            for _ in range(rng.integers(5, 16)):
                board[rng.integers(13, 25)] -= 1
            board[13:25] = np.where(board[13:25] > 0, 0, board[13:25])
    return boards


def _every_roll(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each board with each of the 21 rolls."""
    return np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (len(boards), 1))


@pytest.mark.slow
def test_compiled_generator_equals_the_numpy_reference_row_for_row():
    """Thousands of random boards with all 21 rolls: the same afterstates in the same order, so an action
    index means the same play whichever generator served it."""
    kernels = pytest.importorskip("engine.kernels")
    boards, dice = _every_roll(_random_boards(np.random.default_rng(7), 2000))
    for board in boards:
        validate_board(board)
    children, parent = kernels.afterstates(boards, dice)
    expected_children, expected_parent = numpy_afterstates(boards, dice)
    np.testing.assert_array_equal(parent, expected_parent)
    mismatch = np.flatnonzero(np.any(children != expected_children, axis=1))
    assert len(mismatch) == 0, (
        f"Position ID {encode_position_id(boards[parent[mismatch[0]]])} dice {dice[parent[mismatch[0]]]}"
    )
    # The batch holds the cases where the rules branch: bar entry, bear-off, a blocked roll, one die only.
    mover_pips = (np.maximum(boards, 0) * np.arange(26)).sum(axis=1)
    moved = mover_pips[parent] - (np.maximum(children, 0) * np.arange(26)).sum(axis=1)
    on_board = np.maximum(children, 0).sum(axis=1) == np.maximum(boards, 0).sum(axis=1)[parent]
    high, low = dice.max(axis=1)[parent], dice.min(axis=1)[parent]
    one_die = on_board & (high != low) & ((moved == high) | (moved == low))
    assert boards[:, 25].any() and (~on_board).any() and (moved == 0).any() and one_die.sum() > 100


def test_compiled_generator_grows_its_buffers(monkeypatch):
    kernels = pytest.importorskip("engine.kernels")
    boards, dice = _every_roll(_random_boards(np.random.default_rng(8), 40))
    expected = numpy_afterstates(boards, dice)
    monkeypatch.setattr(kernels, "_FIRST_ROOM", 0)  # room for 32 rows a board: doubles overflow it
    for got, want in zip(kernels.afterstates(boards, dice), expected):
        np.testing.assert_array_equal(got, want)
    most = int(np.argmax(np.bincount(expected[1])))  # a roll with more plays than its room
    single = kernels.afterstates(boards[most : most + 1], dice[most : most + 1])
    assert len(single[0]) > 32 + kernels._FIRST_ROOM
    np.testing.assert_array_equal(single[0], numpy_afterstates(boards[most : most + 1], dice[most : most + 1])[0])


def test_once_loaded_every_batch_runs_compiled_and_without_numba_none_does(monkeypatch):
    pytest.importorskip("numba")
    assert compiled.use_compiled_generator() and compiled.afterstates_kernel(1) is not None
    monkeypatch.setitem(sys.modules, "engine.kernels", None)  # its import fails, as without numba
    compiled._compiled_afterstates.cache_clear()
    try:
        assert compiled.afterstates_kernel(10**6) is None and not compiled.use_compiled_generator()
        boards, dice = _every_roll(_random_boards(np.random.default_rng(9), 20))
        for got, want in zip(afterstates(boards, dice), numpy_afterstates(boards, dice)):
            np.testing.assert_array_equal(got, want)
    finally:
        compiled._compiled_afterstates.cache_clear()
