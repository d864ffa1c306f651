"""Game outcomes and the arithmetic of the five probabilities of docs/DESIGN.md.

Two forms describe a game's expected result for one side:

- six outcome probabilities, summing to one:
  ``[win single, win gammon, win backgammon, lose single, lose gammon, lose backgammon]``
  (gammon here excludes backgammon);
- five cumulative probabilities ``[win, win gammon, win bg, lose gammon, lose bg]``
  (gammon includes backgammon), as GNU Backgammon and wildbg report them.

Both are always in the view of one named side (the side on roll, or the mover of
an afterstate). Swapping sides is a permutation of the six (``INVERT6``) and
``invert`` on the five.
"""

from __future__ import annotations

import numpy as np

from engine.match import winning_points

OUTCOMES = ("win", "win gammon", "win backgammon", "lose", "lose gammon", "lose backgammon")
# Points won by the side whose view the six outcomes are in.
OUTCOME_POINTS = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0], dtype=np.float32)
# Index permutation of the six outcomes that turns them into the other side's view.
INVERT6 = np.array([3, 4, 5, 0, 1, 2])
# Cumulative matrix: five = six @ CUMULATIVE.
CUMULATIVE = np.array(
    [
        [1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0],
        [1, 1, 1, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 1, 0],
        [0, 0, 0, 1, 1],
    ],
    dtype=np.float32,
)


def to_cumulative(six: np.ndarray) -> np.ndarray:
    """Five cumulative probabilities from six outcome probabilities (same side's view)."""
    return six @ CUMULATIVE


def to_six(five: np.ndarray) -> np.ndarray:
    """Six outcome probabilities from five cumulative ones (same side's view)."""
    win, wg, wbg, lg, lbg = (five[..., i] for i in range(5))
    return np.stack([win - wg, wg - wbg, wbg, 1.0 - win - lg, lg - lbg, lbg], axis=-1)


def invert(five: np.ndarray) -> np.ndarray:
    """The same five probabilities seen by the other side: [1-win, lg, lbg, wg, wbg]."""
    out = five[..., [0, 3, 4, 1, 2]].copy()
    out[..., 0] = 1.0 - five[..., 0]
    return out


def equity(five: np.ndarray) -> np.ndarray:
    """Cubeless money equity 2*win - 1 + wg - lg + wbg - lbg, in the same side's view."""
    return 2.0 * five[..., 0] - 1.0 + five[..., 1] - five[..., 3] + five[..., 2] - five[..., 4]


def is_finished(boards: np.ndarray) -> np.ndarray:
    """(N,) bool: the side whose view the boards are in has borne off all 15 checkers."""
    return ~np.any(boards > 0, axis=-1)


def winner_outcome(afterstates: np.ndarray) -> np.ndarray:
    """(N,) outcome index 0, 1 or 2 (single, gammon, backgammon) of finished afterstates.

    The boards are in the view of the winner, who has just borne off the last checker
    (the rule: ``engine.match.winning_points``).
    """
    return winning_points(afterstates) - 1


def finished_probabilities(afterstates: np.ndarray) -> np.ndarray:
    """(N, 5) exact probabilities, for the winner, of afterstates where the mover has won."""
    outcome = winner_outcome(afterstates)
    five = np.zeros((len(afterstates), 5), dtype=np.float32)
    five[:, 0] = 1.0
    five[:, 1] = outcome >= 1
    five[:, 2] = outcome >= 2
    return five
