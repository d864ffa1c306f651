"""Batched legal-move generation: every distinct afterstate of a roll, for many boards at once.

All work is numpy array operations over the whole batch; the only Python loops run
over the (at most four) die steps of a turn. Big batches go to the compiled generator
(``engine.kernels``) when numba is installed; this module is its reference. Boards are in the mover's view (see
``engine.board``); afterstates stay in the mover's view.

How it stays fast (see docs/DESIGN.md): boards live in 32-byte rows so a gather moves
four 64-bit words; the mover's checkers and the opponent's blocks are bit masks,
so the legal sources of a die are a few integer operations per row; every board
carries a linear hash key that a step updates with three table lookups, so the
last step of a non-double is de-duplicated by key before any row is built; and
doubles need no de-duplication because their steps are generated with
non-increasing source points.
"""

from __future__ import annotations

import numpy as np

from engine.afterstate_rows import (
    CHUNK,
    HASH,
    WIDTH,
    Piece,
    bear_off_sources,
    bits,
    first_per_key,
    hash_keys,
    in_chunks,
    merge_by_board,
    set_bits,
    take_rows,
    to_rows,
)
from engine.board import MOVER_BAR as BAR
from engine.compiled import afterstates_kernel

__all__ = ["CHUNK", "HASH", "WIDTH", "afterstates", "grouped_afterstates", "numpy_afterstates"]

# Sources a die can move from without bearing off: points d+1..25.
_NORMAL_SOURCES = np.array([((1 << 26) - 1) & ~((1 << (d + 1)) - 1) for d in range(7)], dtype=np.int64)


def afterstates(boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All distinct afterstates of each board's roll.

    ``boards`` is (B, 26) int8 in the mover's view, ``dice`` (B, 2). Returns
    ``children`` (N, 26) int8, still in the mover's view, and ``parent`` (N,)
    int64, the index of each child's board; children are grouped by parent in
    order. A board with no legal play yields one child equal to itself.
    Inputs are trusted: validate them at the front door (``engine.board``).

    Big batches run compiled (``engine.kernels``, with numba installed), small ones and
    any without numba in numpy (``numpy_afterstates``); both give the same rows in the
    same order, so an action index means the same play either way.
    """
    boards, dice = _contiguous(boards, dice)
    kernel = afterstates_kernel(len(boards))
    if kernel is not None:
        return kernel(boards, dice)
    return numpy_afterstates(boards, dice)


def grouped_afterstates(boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``afterstates`` and ``starts`` (B,) int64, where each board's children begin: for callers that index them
    board by board. The compiled generator notes them as it goes, sparing a search of ``parent``."""
    boards, dice = _contiguous(boards, dice)
    kernel = afterstates_kernel(len(boards))
    if kernel is not None:
        starts = np.empty(len(boards), dtype=np.int64)
        children, parent = kernel(boards, dice, starts)
        return children, parent, starts
    children, parent = numpy_afterstates(boards, dice)
    return children, parent, np.searchsorted(parent, np.arange(len(boards)))


def _contiguous(boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boards (B, 26) int8 and dice (B, 2) int64, C-contiguous, as the compiled generator takes them."""
    return (
        np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26),
        np.ascontiguousarray(dice, dtype=np.int64).reshape(-1, 2),
    )


def numpy_afterstates(boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``afterstates`` in numpy alone: the reference the compiled generator is tested against."""
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    dice = np.asarray(dice, dtype=np.int64).reshape(-1, 2)
    return in_chunks(_afterstates, boards, dice)


def _afterstates(boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``afterstates`` for one chunk of boards."""
    count = len(boards)
    rows = to_rows(boards)
    keys = hash_keys(boards)
    high = dice.max(axis=1)
    low = dice.min(axis=1)
    is_double = high == low

    pieces = []  # (rows, board index) of every final afterstate, each piece grouped by board
    doubles = np.flatnonzero(is_double)
    if len(doubles):
        pieces += [(found, doubles[board]) for found, board in _doubles(take_rows(rows, doubles), high[doubles])]
    mixed = np.flatnonzero(~is_double)
    if len(mixed):
        found_mixed = _non_doubles(take_rows(rows, mixed), keys[mixed], high[mixed], low[mixed])
        pieces += [(found, mixed[board]) for found, board in found_mixed]
    children, parent = merge_by_board(pieces, count)
    return np.ascontiguousarray(children[:, :26]), parent


def _masks(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bit masks per row: points holding the mover's checkers (bit 25 = bar), points the opponent blocks."""
    return bits(rows > 0), bits(rows < -1)


def _legal_steps(
    rows: np.ndarray, blocked: np.ndarray, die: np.ndarray, max_source: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every legal single checker step of ``die`` from each row.

    Returns (row index, source, destination, hit) per step; a destination <= 0
    is a bear-off. ``max_source`` caps the source point per row (for doubles).
    """
    own = bits(rows > 0)
    on_bar = (own >> BAR) & 1 == 1
    normal = own & ~(blocked << die) & _NORMAL_SOURCES[die]
    normal = np.where(on_bar, normal & (1 << BAR), normal)
    sources = normal | bear_off_sources(own, die)
    if max_source is not None:
        sources &= (np.int64(2) << max_source) - 1
    row, source = set_bits(sources)
    destination = source - die[row]
    on_board = destination > 0
    landing = rows.reshape(-1)[row * WIDTH + np.where(on_board, destination, 0)]
    hit = on_board & (landing == -1)
    return row, source, destination, hit


def _step_keys(keys: np.ndarray, source: np.ndarray, destination: np.ndarray, hit: np.ndarray) -> np.ndarray:
    """Hash keys after a step, from the keys before it: no row is built."""
    on_board = destination > 0
    dest = np.where(on_board, destination, 0)
    gain = np.where(on_board, np.where(hit, 2, 1), 0)
    return keys - HASH[source] + gain * HASH[dest] - np.where(hit, HASH[0], 0)


def _apply(
    rows: np.ndarray, row: np.ndarray, source: np.ndarray, destination: np.ndarray, hit: np.ndarray
) -> np.ndarray:
    """New rows: ``rows[row]`` with one step each applied."""
    out = take_rows(rows, row)
    flat = out.reshape(-1)
    base = np.arange(0, len(row) * WIDTH, WIDTH, dtype=np.int64)
    flat[base + source] -= 1
    on_board = np.nonzero(destination > 0)[0]
    # A landing adds one checker, or turns the opponent's blot (-1) into the mover's (+1).
    flat[base[on_board] + destination[on_board]] += (1 + hit[on_board]).astype(np.int8)
    flat[base[hit]] -= 1  # the hit checker goes to the opponent's bar, b[0]
    return out


def _doubles(rows: np.ndarray, die: np.ndarray) -> list[Piece]:
    """Afterstates of doubles, as pieces of (rows, board index) each grouped by board.

    Up to four steps, sources non-increasing so no play repeats.
    """
    count = len(rows)
    _, blocked = _masks(rows)
    level_rows, level_board = rows, np.arange(count)
    max_source = np.full(count, BAR, dtype=np.int64)
    depth = np.zeros(count, dtype=np.int64)
    levels = [(level_rows, level_board)]
    for step in range(1, 5):
        row, source, destination, hit = _legal_steps(level_rows, blocked[level_board], die[level_board], max_source)
        if len(row) == 0:
            break
        level_rows = _apply(level_rows, row, source, destination, hit)
        level_board = level_board[row]
        max_source = source
        depth[level_board] = step
        levels.append((level_rows, level_board))
    # Each board keeps the rows of the deepest level it reached: play as many dice as possible.
    kept = []
    for step, (level_rows, level_board) in enumerate(levels):
        keep = np.nonzero(depth[level_board] == step)[0]
        kept.append((take_rows(level_rows, keep), level_board[keep]))
    return kept


def _non_doubles(rows: np.ndarray, keys: np.ndarray, high: np.ndarray, low: np.ndarray) -> list[Piece]:
    """Afterstates of non-doubles, as pieces of (rows, board index) each grouped by board.

    Both orders of the dice are tried, and plays of both dice de-duplicated by hash key.

    Each board appears twice in the first step, once per die first, so every
    later array stays grouped by board.
    """
    count = len(rows)
    _, blocked = _masks(rows)
    twice = np.repeat(np.arange(count), 2)
    first_die = np.stack([high, low], axis=1).reshape(-1)
    second_die = np.stack([low, high], axis=1).reshape(-1)
    start_rows = take_rows(rows, twice)

    row1, src1, dst1, hit1 = _legal_steps(start_rows, blocked[twice], first_die)
    rows1 = _apply(start_rows, row1, src1, dst1, hit1)
    keys1 = _step_keys(keys[twice[row1]], src1, dst1, hit1)
    board1 = twice[row1]  # which board each one-step row belongs to

    row2, src2, dst2, hit2 = _legal_steps(rows1, blocked[board1], second_die[row1])
    board2 = board1[row2]
    keys2 = _step_keys(keys1[row2], src2, dst2, hit2)

    two_dice = np.zeros(count, dtype=bool)
    two_dice[board2] = True

    # Two dice played: sort by (board, key) and keep one row per distinct key.
    unique = first_per_key(board2, keys2, count)
    rows_two = _apply(rows1, row2[unique], src2[unique], dst2[unique], hit2[unique])
    board_two = board2[unique]

    # One die only: the larger one if it can be played, else the smaller.
    played_high = np.zeros(count, dtype=bool)
    played_high[board1[first_die[row1] == high[board1]]] = True
    one_die = np.nonzero(~two_dice[board1] & ((first_die[row1] == high[board1]) | ~played_high[board1]))[0]
    rows_one = take_rows(rows1, one_die)
    board_one = board1[one_die]

    # No die can be played: the board itself.
    none = np.ones(count, dtype=bool)
    none[board1] = False
    board_none = np.nonzero(none)[0]

    return [(rows_two, board_two), (rows_one, board_one), (take_rows(rows, board_none), board_none)]
