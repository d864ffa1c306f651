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
"""

from __future__ import annotations

import numpy as np

from engine.long_nardy.board import CHECKERS, flip, other_point

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

# The path a side's run blocks, in that side's own numbering: the other side moves through
# this side's 12 down to 1, then 24 down to 13 (the seam between 1 and 24 joins a run, R9).
BLOCKED_PATH = np.array(list(range(12, 0, -1)) + list(range(24, 12, -1)), dtype=np.int64)


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


def longest_runs(held: np.ndarray) -> np.ndarray:
    """(B,) the longest run of True along each row of ``held`` (B, L)."""
    run = np.zeros(len(held), dtype=np.int64)
    best = np.zeros(len(held), dtype=np.int64)
    for column in held.T:
        run = np.where(column, run + 1, 0)
        np.maximum(best, run, out=best)
    return best


def _side_globals(boards: np.ndarray) -> np.ndarray:
    """(B, 4): off / 15, any off, longest run / 6, all home, of the side whose checkers are positive."""
    own = np.maximum(boards, 0)
    on_board = own.sum(axis=1, dtype=np.int64)
    off = CHECKERS - on_board
    run = longest_runs(own[:, BLOCKED_PATH] > 0)
    all_home = own[:, 7:25].sum(axis=1, dtype=np.int64) == 0
    return np.stack([off / float(CHECKERS), off > 0, run / 6.0, all_home & (on_board > 0)], axis=1)


def global_features(boards: np.ndarray) -> np.ndarray:
    """(B, 8) float32 features named ``GLOBAL_NAMES`` of boards (B, 26) seen by the side on roll."""
    boards = np.asarray(boards).reshape(-1, 26)
    mover = _side_globals(boards)
    opponent = _side_globals(flip(boards))
    return np.stack([mover, opponent], axis=2).reshape(len(boards), -1).astype(np.float32)


def swapped_columns() -> np.ndarray:
    """The column order that turns the encoding of a board into that of the same board seen by the other side.

    ``encode(flip(b)) == encode(b)[:, swapped_columns()]``: the two sides' slot columns
    trade places, and each (mover, opponent) pair of global columns swaps.
    """
    side = np.arange(SIDE_SLOT_COLUMNS)
    slots = np.concatenate([side + SIDE_SLOT_COLUMNS, side])
    globals_ = 2 * SIDE_SLOT_COLUMNS + (np.arange(len(GLOBAL_NAMES)) ^ 1)
    return np.concatenate([slots, globals_])
