"""Race inputs: how many rolls each side needs to come home and bear off, from the one-sided database.

A race is decided by rolls, not pips: stacked or gapped home boards waste pips, and a gammon turns
on whether the loser bears off one checker before the winner bears off fifteen. A network given
pips learns these as a curve it fits from rare examples; here they are read exactly where the
one-sided bear-off database reaches (``bot.evaluation.bearoff``) and estimated beyond it.

For one side, in its own numbering: its checkers outside home are first brought to its 6 point,
which costs their pips beyond it; the database then gives the expected rolls to bear off the home
board so made (all of them, and one of them). The estimate in rolls is
``pips_to_home / AVERAGE_ROLL + database rolls``: exact once the side is home, and the usual
effective-pip-count reasoning before. Every column is in the side's own view; "lead" columns
compare the mover with the opponent (the mover is on roll, half a roll ahead).
"""

from __future__ import annotations

import functools

import numpy as np

from bot.evaluation import bearoff
from bot.evaluation.compiled import kernel

AVERAGE_ROLL = 49 / 6  # pips of an average roll, doubles counted four times
ROLL_SCALE = 10.0  # rolls are divided by this: a race of 15 checkers is at most about 10 rolls from home
_SIDE = ("rolls", "first_off", "none_off", "outside", "crossovers")
RACE_FEATURES: tuple[str, ...] = tuple(f"{side}.race_{name}" for side in ("mover", "opponent") for name in _SIDE) + (
    "race_lead",
    "gammon_lead",
    "gammon_save_lead",
)


@functools.cache
def _means() -> tuple[np.ndarray, np.ndarray]:
    """Expected rolls to bear off all checkers and one checker, per one-sided position."""
    table = bearoff.one_sided(progress=False)
    return table.mean_rolls().astype(np.float32), table.mean_first_off().astype(np.float32)


def _side(own: np.ndarray) -> np.ndarray:
    """(B, 5): one side's race columns from its checkers (B, 26) on its own points (25 = bar, 0 = off)."""
    points = np.arange(26)
    outside = own[:, 7:].sum(axis=1)
    to_home = (own[:, 7:] * (points[7:] - 6)).sum(axis=1)
    home = own[:, 1:7].copy()
    home[:, 5] += outside
    index = bearoff.home_index(home)
    all_off, one_off = _means()
    rolls = to_home / AVERAGE_ROLL + all_off[index]
    none_off = own[:, 1:].sum(axis=1) == 15
    first_off = np.where(none_off, to_home / AVERAGE_ROLL + one_off[index], 0.0)
    crossovers = (own[:, 7:] * ((points[7:] - 1) // 6)).sum(axis=1)
    return np.stack(
        [rolls / ROLL_SCALE, first_off / ROLL_SCALE, none_off, outside / 15.0, crossovers / 45.0], axis=1
    ).astype(np.float32)


def race_features(boards: np.ndarray) -> np.ndarray:
    """(B, 13) float32, columns ``RACE_FEATURES``, of boards (B, 26) in the mover's view (defined for any position;
    meant for races, where no checker can be hit); compiled for big batches."""
    compiled = kernel("race_features", len(boards))
    if compiled is None:
        return numpy_race_features(boards)
    out = np.empty((len(boards), len(RACE_FEATURES)), dtype=np.float32)
    all_off, one_off = _means()
    compiled(np.ascontiguousarray(boards, dtype=np.int8), bearoff.BINOMIAL, all_off, one_off, AVERAGE_ROLL, out)
    return out


def numpy_race_features(boards: np.ndarray) -> np.ndarray:
    """``race_features`` in numpy (small batches, and machines without numba)."""
    boards = np.asarray(boards).reshape(-1, 26).astype(np.int64)
    mover = np.maximum(boards, 0)
    opponent = np.maximum(-boards[:, ::-1], 0)  # the opponent's checkers on its own points: slot i -> 25 - i
    own, other = _side(mover), _side(opponent)
    half_roll = 0.5 / ROLL_SCALE
    leads = np.stack(
        [
            other[:, 0] - own[:, 0] + half_roll,  # > 0: the mover is ahead in the race
            other[:, 1] - own[:, 0] + half_roll,  # > 0: the mover bears off before the opponent gets one off
            other[:, 0] - own[:, 1] + half_roll,  # > 0: the mover gets one off before the opponent finishes
        ],
        axis=1,
    )
    return np.concatenate([own, other, leads], axis=1).astype(np.float32)
