"""A simple long nardy player by hand-set rules: the yardstick a trained network must beat.

It scores each afterstate for the mover (the board in the mover's view, as
``engine.long_nardy.afterstates`` gives it) by a weighted sum of plain features:
checkers borne off, pips left, points held, the longest run of held points along the
opponent's path (what blocks it), and a penalty for tall stacks (the head's included,
so that checkers leave it). Greedy, one roll deep, no search: about what a beginner
who knows "make points, build blocks, run home" plays.
"""

from __future__ import annotations

import numpy as np

from bot.evaluation.evaluator import Evaluator
from engine.variant import LONG_NARDY, Variant
from engine.long_nardy.phases import BLOCKED_PATH, longest_runs
from engine.long_nardy.board import CHECKERS

# Weights of the features, in pips: what each is worth against a pip of the race.
OFF = 12.0  # a checker borne off
POINT = 3.0  # a point held outside the home board
RUN = 4.0  # each point of the longest run past two
STACK = 1.0  # each checker past three on one point


class HeuristicPlayer(Evaluator):
    """Long nardy plays chosen by hand-set features of the afterstate (mover's view); higher is better for the mover."""

    def __init__(self, game: Variant = LONG_NARDY) -> None:
        if game.name != "long_nardy":
            raise ValueError(f"the heuristic player plays long nardy, not {game.name}")
        self.game = game

    def afterstate_scores(self, boards: np.ndarray, children: np.ndarray, parent: np.ndarray) -> np.ndarray:
        return heuristic_scores(children)


def heuristic_scores(children: np.ndarray) -> np.ndarray:
    """(N,) float64 the heuristic's score of afterstates (N, 26), mover's view: higher is better for the mover."""
    own = np.maximum(np.asarray(children, dtype=np.int64), 0)
    off = CHECKERS - own.sum(axis=1)
    pips = own @ np.arange(26)
    points = (own[:, 7:25] > 0).sum(axis=1)
    run = longest_runs(own[:, BLOCKED_PATH] > 0)
    stacks = np.maximum(own - 3, 0).sum(axis=1)
    return OFF * off - pips + POINT * points + RUN * np.maximum(run - 2, 0) - STACK * stacks
