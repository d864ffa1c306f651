"""Small evaluators for search and rollout tests: fast, deterministic, no network."""

from __future__ import annotations

import numpy as np

from bot.evaluation.evaluator import ProbabilityEvaluator


class PipEvaluator(ProbabilityEvaluator):
    """The side on roll's chances from the pip counts alone (a race formula), small gammon rates."""

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        boards = np.asarray(boards).reshape(-1, 26)
        points = np.arange(26)
        mine = (np.maximum(boards, 0) * points).sum(axis=1)
        theirs = (np.maximum(-boards, 0) * (25 - points)).sum(axis=1)
        win = 1.0 / (1.0 + np.exp(-(theirs - mine + 8.0) / 12.0))
        five = np.zeros((len(boards), 5), dtype=np.float32)
        five[:, 0] = win
        five[:, 1] = 0.1 * win
        five[:, 3] = 0.1 * (1.0 - win)
        return five
