"""The value network's inputs for long nardy boards, registered as ``bot.evaluation.encoding``'s ``long_nardy``.

Boards are (B, 26) int8 in the view of the side on roll (``engine.long_nardy.board``).
Each side is described in its own numbering (its head 24, its home 1..6), in the same
columns layout for both, so that turning the board round swaps the two sides' columns
and nothing else (``swapped_columns``): the network sees the opponent's position as
the opponent would.

Slot features (a function of one board entry's value, so the network's first layer
can be an embedding bag, ``bot.evaluation.encoding``): for each side and each of its points,
Tesauro's four units (n >= 1, n >= 2, n >= 3, (n - 3) / 2), then its pip count / 200
and its checkers in each quarter of its path (24..19 where the head is, 18..13 the
other side's home, 12..7, its own home 6..1) / 15. The head count is the first
quarter's units at point 24.

Global features: checkers borne off / 15, whether any is off (a side with none off
loses a mars), the longest run of held points along the other side's path / 6 (what
blocks it; six with every opposing checker behind is illegal, rule R9), and whether
all its checkers are home (it may bear off), each for the side on roll then the other.

The ``long_nardy_primes`` encoding adds, per side, what its blocks do to the other side and
how soon it can bear off (``PRIME_NAMES``): the other side's checkers still behind its longest
run of three or more points / 15 (held back), how many of the six points in front of the
other side's rearmost checker it holds / 6 (how hard that checker escapes), whether it has
passed every opposing checker (nothing can block it again), and the pips its checkers
outside home still have to go to reach home / 100 (its timing, and the mars it risks).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from engine.long_nardy.board import CHECKERS, flip, other_point
from engine.long_nardy.phases import BLOCKED_PATH, has_passed, longest_runs

VALUES = 31  # a board entry holds -15..15
_COUNTS = np.arange(-15, 16)
UNITS = 4  # Tesauro's units per point and side
QUARTERS = 4
SIDE_SLOT_COLUMNS = 24 * UNITS + 1 + QUARTERS  # one side's slot features
PIP_SCALE = 200.0

GLOBAL_NAMES = (
    "mover.off",
    "opponent.off",
    "mover.any_off",
    "opponent.any_off",
    "mover.run",
    "opponent.run",
    "mover.all_home",
    "opponent.all_home",
)
PRIME_NAMES = GLOBAL_NAMES + (
    "mover.held_back",
    "opponent.held_back",
    "mover.escape_blocked",
    "opponent.escape_blocked",
    "mover.passed",
    "opponent.passed",
    "mover.pips_to_home",
    "opponent.pips_to_home",
)
PRIME_RUN = 3  # a run of held points this long or longer holds the other side back
HOME_PIP_SCALE = 100.0


def _units(count: np.ndarray) -> np.ndarray:
    """Tesauro's four units of one side's checker count n >= 0 on a point."""
    return np.stack([count >= 1, count >= 2, count >= 3, np.maximum(count - 3, 0) / 2.0], axis=-1)


def _side_columns(table: np.ndarray, slot: int, own_point: int, count: np.ndarray, start: int) -> None:
    """Write one side's features of ``count`` checkers on its own point ``own_point`` (board slot ``slot``)."""
    base = start + UNITS * (own_point - 1)
    table[slot, :, base : base + UNITS] = _units(count)
    extra = start + 24 * UNITS
    table[slot, :, extra] = count * own_point / PIP_SCALE
    quarter = 3 - (own_point - 1) // 6  # 24..19 -> 0, ..., 6..1 -> 3
    table[slot, :, extra + 1 + quarter] = count / float(CHECKERS)


def slot_table() -> np.ndarray:
    """(26 * 31, 2 * SIDE_SLOT_COLUMNS) float32 slot features, row ``slot * 31 + value + 15``.

    The side on roll's columns first, then the other side's, in the same layout; the
    unused bar slots 0 and 25 have no features.
    """
    table = np.zeros((26, VALUES, 2 * SIDE_SLOT_COLUMNS), dtype=np.float32)
    mover = np.maximum(_COUNTS, 0)
    opponent = np.maximum(-_COUNTS, 0)
    for slot in range(1, 25):
        _side_columns(table, slot, slot, mover, 0)
        _side_columns(table, slot, int(other_point(slot)), opponent, SIDE_SLOT_COLUMNS)
    return np.ascontiguousarray(table.reshape(26 * VALUES, -1))


def _side_globals(boards: np.ndarray) -> np.ndarray:
    """(B, 4): off / 15, any off, longest run / 6, all home, of the side whose checkers are positive."""
    own = np.maximum(boards, 0)
    on_board = own.sum(axis=1, dtype=np.int64)
    off = CHECKERS - on_board
    run = longest_runs(own[:, BLOCKED_PATH] > 0)
    all_home = own[:, 7:25].sum(axis=1, dtype=np.int64) == 0
    return np.stack([off / float(CHECKERS), off > 0, run / 6.0, all_home & (on_board > 0)], axis=1)


def _side_primes(boards: np.ndarray) -> np.ndarray:
    """(B, 4): held back / 15, escape blocked / 6, passed, pips to home / 100 (``PRIME_NAMES``), of the side
    whose checkers are positive; the other side's checkers are read along its path (``BLOCKED_PATH``)."""
    held = boards[:, BLOCKED_PATH] > 0  # (B, 24) this side's points in the order the other side meets them
    theirs = np.maximum(-boards[:, BLOCKED_PATH], 0).astype(np.int64)
    run = np.zeros(len(boards), dtype=np.int64)
    best = np.zeros(len(boards), dtype=np.int64)
    best_start = np.zeros(len(boards), dtype=np.int64)
    for index, column in enumerate(held.T):
        run = np.where(column, run + 1, 0)
        longer = run > best
        best = np.where(longer, run, best)
        best_start = np.where(longer, index - run + 1, best_start)
    behind = np.concatenate([np.zeros((len(boards), 1), dtype=np.int64), np.cumsum(theirs, axis=1)], axis=1)
    held_back = np.where(best >= PRIME_RUN, np.take_along_axis(behind, best_start[:, None], axis=1)[:, 0], 0)
    rearmost = np.where(theirs.any(axis=1), np.argmax(theirs > 0, axis=1), len(BLOCKED_PATH))
    ahead = rearmost[:, None] + np.arange(1, 7)
    in_front = np.take_along_axis(np.pad(held, ((0, 0), (0, 7))), ahead, axis=1)
    own = np.maximum(boards[:, 7:25], 0).astype(np.int64)
    to_home = (own * np.arange(1, 19)).sum(axis=1)  # point p >= 7 is p - 6 pips from home
    return np.stack(
        [held_back / float(CHECKERS), in_front.sum(axis=1) / 6.0, has_passed(boards), to_home / HOME_PIP_SCALE],
        axis=1,
    )


def _both_sides(side_features: Callable[[np.ndarray], np.ndarray], boards: np.ndarray) -> np.ndarray:
    """(B, 2K) float32: one side's K features of the side on roll then of the other, interleaved by feature."""
    boards = np.asarray(boards).reshape(-1, 26)
    mover = side_features(boards)
    opponent = side_features(flip(boards))
    return np.stack([mover, opponent], axis=2).reshape(len(boards), -1).astype(np.float32)


def global_features(boards: np.ndarray) -> np.ndarray:
    """(B, 8) float32 features named ``GLOBAL_NAMES`` of boards (B, 26) seen by the side on roll."""
    return _both_sides(_side_globals, boards)


def prime_features(boards: np.ndarray) -> np.ndarray:
    """(B, 16) float32 features named ``PRIME_NAMES`` of boards (B, 26) seen by the side on roll."""
    return np.concatenate([global_features(boards), _both_sides(_side_primes, boards)], axis=1)


def swapped_columns(global_names: tuple[str, ...] = GLOBAL_NAMES) -> np.ndarray:
    """The column order that turns the encoding of a board into that of the same board seen by the other side.

    ``encode(flip(b)) == encode(b)[:, swapped_columns(names)]`` for an encoding with the global columns
    ``names``: the two sides' slot columns trade places, and each (mover, opponent) pair of global columns swaps.
    """
    side = np.arange(SIDE_SLOT_COLUMNS)
    slots = np.concatenate([side + SIDE_SLOT_COLUMNS, side])
    globals_ = 2 * SIDE_SLOT_COLUMNS + (np.arange(len(global_names)) ^ 1)
    return np.concatenate([slots, globals_])
