"""Tesauro's pubeval (1993), the classic baseline player, as a batched evaluator.

pubeval is linear: the score of an afterstate (mover's view) is a dot product of
a weight vector with 122 inputs that depend on each point's checker count, the
opponent's bar and the mover's borne-off checkers (``bot/data/pubeval.json``
describes them exactly). Being linear, it is computed here as a sum of per-slot
lookups: ``table[slot, value + 15]`` holds the weighted inputs of one board entry.
The race weights apply when the position BEFORE the move has no contact.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

from bot.evaluation.encoding import VALUES, is_race, slot_indices
from bot.evaluation.evaluator import Evaluator
from bot.equity.outcomes import is_finished

INPUTS = 122


def pubeval_inputs(count: np.ndarray) -> np.ndarray:
    """(31, 5) the five inputs of one point for signed counts -15..15 (mover positive)."""
    count = np.asarray(count)
    return np.stack(
        [count == -1, count == 1, count >= 2, count == 3, np.where(count >= 4, (count - 3) / 2.0, 0.0)],
        axis=-1,
    ).astype(np.float64)


def _score_table(weights: np.ndarray) -> np.ndarray:
    """(26 * 31,) per-slot score contributions of a weight vector (the borne-off term aside)."""
    table = np.zeros((26, VALUES))
    units = pubeval_inputs(np.arange(-15, 16))
    for point in range(1, 25):
        base = 5 * (24 - point)
        table[point] = units @ weights[base : base + 5]
    table[0] = np.maximum(-np.arange(-15, 16), 0) / 2.0 * weights[120]  # opponent's bar
    return table.reshape(-1)


class Pubeval(Evaluator):
    """pubeval as an evaluator: scores afterstates directly (higher = better for the mover)."""

    def __init__(self, weights: dict[str, list[float]] | None = None) -> None:
        if weights is None:
            text = resources.files("bot").joinpath("data/pubeval.json").read_text()
            weights = json.loads(text)
        self.weights = {kind: np.asarray(weights[kind], dtype=np.float64) for kind in ("race", "contact")}
        for kind, vector in self.weights.items():
            if vector.shape != (INPUTS,):
                raise ValueError(f"pubeval {kind} weights: expected {INPUTS} values, got {vector.shape}")
        self.tables = {kind: _score_table(vector) for kind, vector in self.weights.items()}

    def afterstate_scores(self, boards: np.ndarray, children: np.ndarray, parent: np.ndarray) -> np.ndarray:
        rows = slot_indices(children)
        off = 15 - np.maximum(children, 0).sum(axis=1, dtype=np.int64)
        race = is_race(boards)[parent]
        scores = np.empty(len(children))
        for kind, use in (("race", race), ("contact", ~race)):
            scores[use] = self.tables[kind][rows[use]].sum(axis=1) + off[use] / 15.0 * self.weights[kind][121]
        scores[is_finished(children)] = np.inf
        return scores
