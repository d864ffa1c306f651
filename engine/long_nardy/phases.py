"""The phase of a long nardy position: what kind of play it calls for, for measures that sample every kind.

Boards are (B, 26) int8 seen by the side on roll (``engine.long_nardy.board``). Each board gets
one phase, the first that applies in this order:

- ``BEAR_OFF``: a race in which both sides have every checker home.
- ``RACE``: no checker of either side has any of the other's still ahead of it on its path: nothing
  can block anything again.
- ``OPENING``: both heads still hold at least ``OPENING_HEAD`` checkers.
- ``HEAD``: a head still holds at least ``LOADED_HEAD`` checkers (one leaves per turn, R6).
- ``BLOCKS``: a side holds ``BLOCK_RUN`` or more points in a row on the other's path (R9's blocks and primes).
- ``MIDDLE``: any other contact position.

>>> import numpy as np
>>> from engine.long_nardy.board import START
>>> [Phase(p).name for p in phases(np.stack([START]))]
['OPENING']
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from engine.long_nardy.board import flip

OPENING_HEAD = 12
LOADED_HEAD = 6
BLOCK_RUN = 4
HEAD_POINT = 24

# The points the other side moves through, in the holder's numbering, in the order it meets them
# (its 12 down to 1, then 24 down to 13; the seam between 1 and 24 joins a run, R9): a run along it blocks it.
BLOCKED_PATH = np.array(list(range(12, 0, -1)) + list(range(24, 12, -1)), dtype=np.int64)


class Phase(IntEnum):
    """A long nardy position's phase, in the order ``phases`` tries them."""

    BEAR_OFF = 0
    RACE = 1
    OPENING = 2
    HEAD = 3
    BLOCKS = 4
    MIDDLE = 5


def has_passed(boards: np.ndarray) -> np.ndarray:
    """(B,) whether the side on roll has no checker behind an opposing one on its own path.

    On its path (24 down to 1) the mover's checker on point p meets every point below p; an opposing
    checker sits on one of those exactly when the mover's highest point is above the lowest point
    holding an opposing checker (both in the mover's numbering).
    """
    points = np.arange(26)
    mine = boards[:, 1:25] > 0
    theirs = boards[:, 1:25] < 0
    highest_mine = np.where(mine, points[1:25], 0).max(axis=1)
    lowest_theirs = np.where(theirs, points[1:25], 25).min(axis=1)
    return highest_mine < lowest_theirs


_CHUNK = 12  # bits looked up at once in the run tables
_WEIGHTS = (1 << np.arange(_CHUNK)).astype(np.int64)


def _run_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every 12-bit pattern (bit i = position i held): its leading run from position 0, its trailing run
    ending at position 11, and its longest run."""
    bits = (np.arange(1 << _CHUNK)[:, None] >> np.arange(_CHUNK)) & 1
    run = np.zeros(len(bits), dtype=np.int64)
    best = np.zeros(len(bits), dtype=np.int64)
    leading = np.zeros(len(bits), dtype=np.int64)
    open_ = np.ones(len(bits), dtype=bool)
    for column in bits.T.astype(bool):
        run = np.where(column, run + 1, 0)
        np.maximum(best, run, out=best)
        open_ &= column
        leading += open_
    return leading, run, best


_LEADING, _TRAILING, _BEST = _run_tables()


def longest_runs(held: np.ndarray) -> np.ndarray:
    """(B,) the longest run of True along each row of ``held`` (B, L), 12 positions at a time by table lookup."""
    held = np.asarray(held, dtype=bool)
    width = -(-held.shape[1] // _CHUNK) * _CHUNK
    padded = np.zeros((len(held), width), dtype=np.int64)
    padded[:, : held.shape[1]] = held
    best = np.zeros(len(held), dtype=np.int64)
    trailing = np.zeros(len(held), dtype=np.int64)
    for start in range(0, width, _CHUNK):
        pattern = padded[:, start : start + _CHUNK] @ _WEIGHTS
        best = np.maximum(np.maximum(best, _BEST[pattern]), trailing + _LEADING[pattern])
        trailing = np.where(pattern == (1 << _CHUNK) - 1, trailing + _CHUNK, _TRAILING[pattern])
    return best


def phases(boards: np.ndarray) -> np.ndarray:
    """(B,) the ``Phase`` of each board (B, 26), seen by the side on roll."""
    boards = np.asarray(boards).reshape(-1, 26)
    other = flip(boards)
    race = has_passed(boards) & has_passed(other)
    all_home = ~(boards[:, 7:25] > 0).any(axis=1) & ~(other[:, 7:25] > 0).any(axis=1)
    heads = np.stack([boards[:, HEAD_POINT], other[:, HEAD_POINT]], axis=1)
    runs = np.maximum(longest_runs(boards[:, BLOCKED_PATH] > 0), longest_runs(other[:, BLOCKED_PATH] > 0))
    phase = np.full(len(boards), Phase.MIDDLE, dtype=np.int64)
    for mask, value in reversed(
        [
            (race & all_home, Phase.BEAR_OFF),
            (race, Phase.RACE),
            (heads.min(axis=1) >= OPENING_HEAD, Phase.OPENING),
            (heads.max(axis=1) >= LOADED_HEAD, Phase.HEAD),
            (runs >= BLOCK_RUN, Phase.BLOCKS),
        ]
    ):
        phase[mask] = value
    return phase
