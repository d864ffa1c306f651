"""One evaluator interface, and batched move choice built on it.

An ``Evaluator`` scores afterstates for the side that just moved (the mover):
higher is better for the mover. A ``ProbabilityEvaluator`` also gives the five
probabilities of docs/DESIGN.md for positions with the side on roll, and scores an
afterstate by the mover's cubeless money equity: flip the afterstate (the
opponent is then on roll), evaluate, invert. Finished afterstates (the mover has
borne off all 15) get their exact result without asking the network.

Move choice (``choose_afterstates``) works on whole batches: one call of the
afterstate generator of the evaluator's ``game`` (``engine.variant``: backgammon unless
given, or long nardy), one evaluation, a segment argmax per parent; no Python loop
over positions. Search (N-ply probabilities, filtered ranking) lives in
``bot.search.nply``: ``probabilities_at``, ``rank_afterstates`` and ``SearchEvaluator``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol

import numpy as np

from engine.variant import BACKGAMMON, Variant
from bot.equity.outcomes import equity, invert, is_finished


class Evaluator(ABC):
    """Anything that can rank the afterstates of a roll for the mover."""

    # The game whose boards it scores (``engine.variant``): move choice and search take its rules from here.
    game: Variant = BACKGAMMON

    @abstractmethod
    def afterstate_scores(self, boards: np.ndarray, children: np.ndarray, parent: np.ndarray) -> np.ndarray:
        """(N,) scores of ``children`` (mover's view), higher = better for the mover.

        ``boards`` (B, 26) are the positions before the move and ``parent`` (N,) maps
        each child to its board, as ``engine.afterstates`` returns them.
        """


class ProbabilityEvaluator(Evaluator):
    """An evaluator that knows the five outcome probabilities of positions."""

    @abstractmethod
    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(B, 5) [win, wg, wbg, lg, lbg] of the side on roll of each board (B, 26)."""

    def afterstate_probabilities(self, children: np.ndarray) -> np.ndarray:
        """(N, 5) probabilities for the mover of afterstates (N, 26) in the mover's view."""
        five = invert(self.probabilities(self.game.flip(children)))
        done = is_finished(children)
        if done.any():
            five[done] = self.game.finished_probabilities(children[done])
        return five

    def afterstate_scores(self, boards: np.ndarray, children: np.ndarray, parent: np.ndarray) -> np.ndarray:
        """(N,) the mover's cubeless money equity of each afterstate."""
        return equity(self.afterstate_probabilities(children))


class ProbabilityModel(Protocol):
    """A network: ``bot.evaluation.network.Network`` (numpy, serving) or
    ``training.torch_network.ValueNetwork`` (torch)."""

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(B, 5) probabilities of the side on roll of each board (B, 26)."""
        ...


class NetworkEvaluator(ProbabilityEvaluator):
    """A network as an evaluator (inference only), of boards of ``game``."""

    def __init__(self, network: ProbabilityModel, game: Variant = BACKGAMMON) -> None:
        self.network = network
        self.game = game

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        return self.network.probabilities(boards)


class RandomEvaluator(Evaluator):
    """Uniformly random scores: a player that picks any legal play with equal chance."""

    def __init__(self, rng: np.random.Generator, game: Variant = BACKGAMMON) -> None:
        self.rng = rng
        self.game = game

    def afterstate_scores(self, boards: np.ndarray, children: np.ndarray, parent: np.ndarray) -> np.ndarray:
        return self.rng.random(len(children))


def group_starts(parent: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(first child index, number of children) of each of ``count`` parents, grouped in order."""
    sizes = np.bincount(parent, minlength=count)
    return np.cumsum(sizes) - sizes, sizes


def best_children(
    scores: np.ndarray,
    parent: np.ndarray,
    count: int,
    rng: np.random.Generator | None = None,
    epsilon: float = 0.0,
) -> np.ndarray:
    """(count,) index of each parent's best child (first of equal scores).

    With ``epsilon`` > 0, each parent instead takes a uniformly random child with
    probability ``epsilon`` (``rng`` required). Every parent must have a child.
    """
    starts, sizes = group_starts(parent, count)
    maxima = np.maximum.reduceat(scores, starts)
    hits = np.flatnonzero(scores >= maxima[parent])
    hit_parent = parent[hits]
    first = np.empty(len(hits), dtype=bool)
    first[0] = True
    first[1:] = hit_parent[1:] != hit_parent[:-1]
    best = hits[first]
    if epsilon > 0.0:
        assert rng is not None, "exploration (epsilon > 0) needs a random generator"
        explore = rng.random(count) < epsilon
        random_child = starts + (rng.random(count) * sizes).astype(np.int64)
        best = np.where(explore, random_child, best)
    return best


def choose_afterstates(
    evaluator: Evaluator,
    boards: np.ndarray,
    dice: np.ndarray,
    rng: np.random.Generator | None = None,
    epsilon: float = 0.0,
) -> np.ndarray:
    """(B, 26) the chosen afterstate of each board (B, 26) and roll (B, 2), mover's view, in the evaluator's game."""
    children, parent = evaluator.game.afterstates(boards, dice)
    scores = evaluator.afterstate_scores(boards, children, parent)
    return children[best_children(scores, parent, len(boards), rng, epsilon)]
