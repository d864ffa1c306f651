"""N-ply search on any ``ProbabilityEvaluator``: one code path for every depth, batched.

``probabilities_at`` scores afterstates (mover's view) ``plies`` deep: 0-ply is
the evaluator; n-ply averages, over the opponent's 21 rolls, the mover's result
after the opponent's reply chosen by 0-ply equity and then searched n-1 plies
deep (as GNU Backgammon's n-ply evaluation does). Each level is one call of the
evaluator's game's afterstate generator (``engine.variant``: backgammon or long nardy)
and one evaluator call over the whole batch (cut in chunks only to bound memory).

``rank_afterstates`` is GNU Backgammon's candidate filtering: every play at
0-ply, the best few (a ``MoveFilter``: at most ``keep`` within ``window`` of the
best) one ply deeper, and so on; all parents of a batch at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np

from bot.search.cancel import check_cancelled
from bot.evaluation.evaluator import Evaluator, ProbabilityEvaluator, best_children, group_starts
from bot.evaluation.prune import in_contact
from bot.equity.outcomes import equity, invert, is_finished
from engine import ROLL_WEIGHTS, ROLLS
from engine.errors import BackgammonError


class InvalidSearchError(BackgammonError):
    """A search depth, move filter or number of plays out of range."""


# Boards per evaluator call: bigger batches are cut so the network's working arrays stay small.
EVALUATION_CHUNK = 1 << 16
# Positions expanded per afterstates call at one level (x 21 rolls, about x 20 children each).
EXPANSION_CHUNK = 2048
# A ranking key: (probabilities (N, 5), afterstates (N, 26)), both the mover's, -> (N,) higher = better.
Key = Callable[[np.ndarray, np.ndarray], np.ndarray]


def afterstate_probabilities(evaluator: ProbabilityEvaluator, children: np.ndarray) -> np.ndarray:
    """(N, 5) the evaluator's 0-ply probabilities for the mover of afterstates (N, 26), mover's view.

    The same as ``evaluator.afterstate_probabilities``, cut in chunks of ``EVALUATION_CHUNK``; work
    under ``bot.search.cancel.cancel_on`` stops (``Cancelled``) before any chunk once cancelled.
    """
    check_cancelled()
    if len(children) <= EVALUATION_CHUNK:
        return evaluator.afterstate_probabilities(children)
    chunks = []
    for i in range(0, len(children), EVALUATION_CHUNK):
        check_cancelled()
        chunks.append(evaluator.afterstate_probabilities(children[i : i + EVALUATION_CHUNK]))
    return np.concatenate(chunks)


def best_plays(
    evaluator: ProbabilityEvaluator, boards: np.ndarray, children: np.ndarray, parent: np.ndarray, prune: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(index (B,) into ``children`` of each board's best play by 0-ply equity, its probabilities (B, 5)): the plays
    ``children`` (mover's view) of ``boards`` (B, 26, side on roll's view), grouped by ``parent``.

    With ``prune``, where the evaluator has a pruner (``bot.evaluation.prune``), the evaluator scores only the
    pruner's best few plays of a position in contact, as rollouts and GNU Backgammon's searches do.
    """
    pruner = getattr(evaluator, "pruner", None) if prune else None
    scored = np.ones(len(children), dtype=bool)
    if pruner is not None:
        contact = in_contact(boards)[parent]
        if contact.any():
            equities = np.zeros(len(children))  # races keep every play
            equities[contact] = pruner.equities(children[contact])
            scored = ~contact | pruner.kept(equities, parent, len(boards))
    five = np.zeros((len(children), 5), dtype=np.float32)
    five[scored] = afterstate_probabilities(evaluator, children[scored])
    best = best_children(np.where(scored, equity(five), -np.inf), parent, len(boards))
    return best, five[best]


def best_replies(
    evaluator: ProbabilityEvaluator, positions: np.ndarray, prune: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The opponent's best reply by 0-ply equity to each afterstate (M, 26) for each of the 21 rolls.

    Returns (replies (M * 21, 26), the opponent's afterstates in the opponent's view,
    row ``m * 21 + r`` for roll ``ROLLS[r]``; their 0-ply probabilities (M * 21, 5), the
    opponent's). The afterstates must not be finished. ``prune``: as ``best_plays``.
    """
    game = evaluator.game  # both games roll the same 21 rolls
    replies_to = np.repeat(game.flip(positions), len(ROLLS), axis=0)  # the opponent on roll
    dice = np.tile(ROLLS, (len(positions), 1))
    children, parent = game.afterstates(replies_to, dice)
    best, opponent_five = best_plays(evaluator, replies_to, children, parent, prune)
    return children[best], opponent_five


def probabilities_at(
    evaluator: ProbabilityEvaluator, positions: np.ndarray, plies: int, prune: bool = False
) -> np.ndarray:
    """(M, 5) the mover's probabilities of afterstates (M, 26, mover's view) searched ``plies`` deep.

    0: the evaluator. n > 0: the roll-weighted mean over the opponent's 21 rolls of
    the mover's probabilities after the opponent's best reply by 0-ply, that reply
    searched n-1 plies deep. Finished afterstates get their exact result. ``prune``: the
    replies found as ``best_plays`` says.
    """
    if plies < 0:
        raise InvalidSearchError(f"plies {plies!r}: expected 0 or more")
    positions = np.asarray(positions, dtype=np.int8).reshape(-1, 26)
    if plies == 0:
        return afterstate_probabilities(evaluator, positions)
    five = np.empty((len(positions), 5), dtype=np.float32)
    done = is_finished(positions)
    if done.any():
        five[done] = evaluator.game.finished_probabilities(positions[done])
    live = np.flatnonzero(~done)
    for i in range(0, len(live), EXPANSION_CHUNK):
        check_cancelled()
        rows = live[i : i + EXPANSION_CHUNK]
        replies, opponent_five = best_replies(evaluator, positions[rows], prune)
        if plies > 1:
            opponent_five = probabilities_at(evaluator, replies, plies - 1, prune)
        mover_five = invert(opponent_five).reshape(len(rows), len(ROLLS), 5)
        five[rows] = np.einsum("mrk,r->mk", mover_five, ROLL_WEIGHTS)  # float64 weights: stays in [0, 1]
    return five


@dataclass(frozen=True)
class MoveFilter:
    """Which plays of a roll go one ply deeper: the best ``keep`` whose key is within ``window`` of the best."""

    keep: int = 8
    window: float = 0.16

    def __post_init__(self) -> None:
        if self.keep < 1 or not self.window >= 0.0:
            raise InvalidSearchError(
                f"move filter keep={self.keep!r}, window={self.window!r}: expected keep >= 1, window >= 0"
            )


# GNU Backgammon-like: 8 plays within 0.16 of the best go on to 1-ply, 2 of those within 0.04 to 2-ply.
DEFAULT_FILTERS = (MoveFilter(8, 0.16), MoveFilter(2, 0.04))


def equity_key(five: np.ndarray, children: np.ndarray) -> np.ndarray:
    """The default ranking key: the mover's cubeless money equity (float64)."""
    return equity(five).astype(np.float64)


@dataclass(frozen=True)
class Ranking:
    """The plays (afterstates) of one or more rolls, each evaluated as deep as the filters let it go.

    ``probabilities`` (N, 5) and ``keys`` (N,) are the mover's, at the play's ``depth`` (N,);
    ``order`` lists the plays grouped by parent and, within a parent, best first
    (deeper first, then higher key).
    """

    probabilities: np.ndarray
    keys: np.ndarray
    depth: np.ndarray
    parent: np.ndarray
    order: np.ndarray

    def best(self) -> np.ndarray:
        """(P,) the index of each parent's best play."""
        count = int(self.parent.max()) + 1 if len(self.parent) else 0
        starts, _ = group_starts(self.parent[self.order], count)
        return self.order[starts]

    def scores(self) -> np.ndarray:
        """(N,) the key of each play at its parent's deepest level, -inf for plays left shallower."""
        count = int(self.parent.max()) + 1 if len(self.parent) else 0
        deepest = np.zeros(count, dtype=np.int64)
        np.maximum.at(deepest, self.parent, self.depth)
        return np.where(self.depth == deepest[self.parent], self.keys, -np.inf)


def survivors(keys: np.ndarray, parent: np.ndarray, among: np.ndarray, rule: MoveFilter) -> np.ndarray:
    """Indices, out of ``among``, of the best ``rule.keep`` plays of each parent within ``rule.window``."""
    k, p = keys[among], parent[among]
    order = np.lexsort((-k, p))  # by parent, best first
    p_sorted = p[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = p_sorted[1:] != p_sorted[:-1]
    starts = np.flatnonzero(first)
    group = np.cumsum(first) - 1
    rank = np.arange(len(order)) - starts[group]
    best_key = k[order][starts][group]
    kept = (rank < rule.keep) & (k[order] >= best_key - rule.window)
    return among[order[kept]]


def rank_afterstates(
    evaluator: ProbabilityEvaluator,
    children: np.ndarray,
    plies: int = 2,
    parent: Optional[np.ndarray] = None,
    filters: Sequence[MoveFilter] = DEFAULT_FILTERS,
    key: Key = equity_key,
    prune: bool = False,
) -> Ranking:
    """Rank the plays ``children`` (N, 26, mover's view) of one roll, or of several (``parent``), by filtered search.

    Every play is scored at 0-ply; ``filters[k]`` (the last one for deeper levels)
    picks, per parent, the plays that go from k to k+1 plies, up to ``plies``. Each
    level is one batched ``probabilities_at`` call for all parents. ``key`` ranks
    the plays (default: the mover's cubeless equity). ``prune``: the deeper levels' replies
    found as ``best_plays`` says.
    """
    if plies < 0:
        raise InvalidSearchError(f"plies {plies!r}: expected 0 or more")
    if plies > 0 and not filters:
        raise InvalidSearchError("rank_afterstates: a search deeper than 0-ply needs at least one move filter")
    children = np.asarray(children, dtype=np.int8).reshape(-1, 26)
    parent = np.zeros(len(children), dtype=np.int64) if parent is None else np.asarray(parent, dtype=np.int64)
    five = probabilities_at(evaluator, children, 0)
    keys = np.asarray(key(five, children), dtype=np.float64)
    depth = np.zeros(len(children), dtype=np.int64)
    among = np.arange(len(children))
    for level in range(1, plies + 1):
        among = survivors(keys, parent, among, filters[min(level - 1, len(filters) - 1)])
        five[among] = probabilities_at(evaluator, children[among], level, prune)
        keys[among] = key(five[among], children[among])
        depth[among] = level
    order = np.lexsort((-keys, -depth, parent))
    return Ranking(probabilities=five, keys=keys, depth=depth, parent=parent, order=order)


class SearchEvaluator(Evaluator):
    """Filtered n-ply search over an inner evaluator, as an ``Evaluator`` for move choice.

    A play's score is its key (mover's equity) at its parent's deepest search level;
    plays the filters left shallower score -inf.
    """

    def __init__(
        self, inner: ProbabilityEvaluator, plies: int = 2, filters: Sequence[MoveFilter] = DEFAULT_FILTERS
    ) -> None:
        self.inner = inner
        self.plies = plies
        self.filters = tuple(filters)
        self.game = inner.game

    def afterstate_scores(self, boards: np.ndarray, children: np.ndarray, parent: np.ndarray) -> np.ndarray:
        return rank_afterstates(self.inner, children, self.plies, parent, self.filters).scores()


def candidates_filter(candidates: int) -> tuple[MoveFilter]:
    """A filter that lets the best ``candidates`` plays go deeper whatever their equity (no window)."""
    return (MoveFilter(candidates, math.inf),)
