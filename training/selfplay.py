"""Batched self-play: many games advance together, and finished games become TD(lambda) samples.

Per ply, every game rolls, one call of the game's afterstate generator (``engine.variant``:
backgammon or long nardy) lists every child, one evaluation scores them all, and each
game takes its best (or, with probability epsilon, a random one). No Python loop runs
over games.

TD targets. Let s_t be the position before the t-th move (side on roll's view),
a_t the chosen afterstate and s_{t+1} = flip(a_t). The evaluation of a_t for the
mover, ``invert(V(s_{t+1}))``, was computed when choosing, and is the one-step
target y_t of V(s_t); when a_t ends the game, y_t is the real result. Kept as six
outcome probabilities, the lambda-return is

    G_t = y_t                                      at the last move,
    G_t = (1 - lambda) y_t + lambda INVERT6(G_{t+1})  before it,

where INVERT6 turns the next mover's view into this one's. They are computed
backwards, for all games that finish on the same ply at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from bot.evaluation.evaluator import ProbabilityEvaluator, best_children
from engine.compiled import expect_long_work
from engine.variant import BACKGAMMON, Variant, find_variant
from bot.equity.outcomes import INVERT6, equity, is_finished, to_six
from training.config import Config

# The opening roll: each player throws one die and the higher one moves first with both,
# so the first move of a game is never a double.
OPENING_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, 7) if a != b], dtype=np.int64)


@dataclass
class Samples:
    """Positions of finished self-play games with their TD(lambda) targets."""

    boards: np.ndarray  # (S, 26) int8, side on roll's view
    targets: np.ndarray  # (S, 6) float32, lambda-return over the six outcomes, side on roll's view
    games: int  # games these samples come from
    results: np.ndarray  # (3,) int: games won single, gammon, backgammon

    def __len__(self) -> int:
        return len(self.boards)

    @staticmethod
    def concatenate(parts: list[Samples]) -> Samples:
        """All samples of ``parts`` together."""
        return Samples(
            np.concatenate([p.boards for p in parts]),
            np.concatenate([p.targets for p in parts]),
            sum(p.games for p in parts),
            np.sum([p.results for p in parts], axis=0),
        )


def opening_dice(count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, 2) opening rolls, uniform over the 30 non-doubles."""
    return OPENING_ROLLS[rng.integers(len(OPENING_ROLLS), size=count)]


def roll_dice(count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, 2) rolls of two dice."""
    return rng.integers(1, 7, size=(count, 2))


def lambda_returns(steps: np.ndarray, lengths: np.ndarray, td_lambda: float) -> np.ndarray:
    """(G, L, 6) lambda-returns of games' one-step targets ``steps`` (G, L, 6).

    Game g's moves are ``steps[g, :lengths[g]]``, the last holding the real result;
    entries past a game's length are meaningless.
    """
    returns = np.empty_like(steps)
    carried = steps[:, -1]
    for t in range(steps.shape[1] - 1, -1, -1):
        last = (t >= lengths - 1)[:, None]
        carried = np.where(last, steps[:, t], (1.0 - td_lambda) * steps[:, t] + td_lambda * carried[:, INVERT6])
        returns[:, t] = carried
    return returns


def first_dice(count: int, rng: np.random.Generator, game: Variant) -> np.ndarray:
    """(count, 2) the first rolls of ``count`` games of ``game``: doubles only where its opening allows them."""
    return roll_dice(count, rng) if game.opening_doubles else opening_dice(count, rng)


class SelfPlay:
    """A batch of self-play games of ``game`` that advance together; finished games restart from its start.

    Self-play is long work: its batches run compiled from the first (``engine.compiled.expect_long_work``)."""

    def __init__(
        self,
        parallel_games: int,
        td_lambda: float,
        epsilon: float,
        rng: np.random.Generator,
        game: Variant = BACKGAMMON,
    ) -> None:
        expect_long_work()
        self.td_lambda = td_lambda
        self.epsilon = epsilon
        self.rng = rng
        self.game = game
        self.boards = np.tile(game.start, (parallel_games, 1))  # side on roll's view
        self.length = np.zeros(parallel_games, dtype=np.int64)  # moves played in each game
        self.history_boards = np.zeros((parallel_games, 128, 26), dtype=np.int8)
        self.history_steps = np.zeros((parallel_games, 128, 6), dtype=np.float32)

    def play(
        self, evaluator: ProbabilityEvaluator, min_samples: int, before_ply: Callable[[], None] | None = None
    ) -> Samples:
        """Play plies until the games finished meanwhile give at least ``min_samples`` samples.

        ``before_ply``, if given, runs before every ply (a worker refreshes its weights there).
        """
        parts: list[Samples] = []
        collected = 0
        while collected < min_samples:
            if before_ply is not None:
                before_ply()
            finished = self.ply(evaluator)
            if finished is not None:
                parts.append(finished)
                collected += len(finished)
        return Samples.concatenate(parts)

    def ply(self, evaluator: ProbabilityEvaluator) -> Samples | None:
        """Every game makes one move; return the samples of games that ended, if any."""
        if evaluator.game is not self.game:
            raise ValueError(f"self-play of {self.game.name} with an evaluator of {evaluator.game.name}")
        count = len(self.boards)
        dice = roll_dice(count, self.rng)
        opening = self.length == 0
        dice[opening] = first_dice(int(opening.sum()), self.rng, self.game)
        children, parent = self.game.afterstates(self.boards, dice)
        five = evaluator.afterstate_probabilities(children)
        best = best_children(equity(five), parent, count, self.rng, self.epsilon)
        chosen = children[best]
        self._record(to_six(five[best]))
        self.boards = self.game.flip(chosen)
        done = np.flatnonzero(is_finished(chosen))
        if not len(done):
            return None
        samples = self._finish(done)
        self.boards[done] = self.game.start
        self.length[done] = 0
        return samples

    def _record(self, steps: np.ndarray) -> None:
        """Append the current boards and the chosen moves' one-step targets to each game."""
        if self.length.max() >= self.history_boards.shape[1]:
            self.history_boards = np.concatenate([self.history_boards, np.zeros_like(self.history_boards)], axis=1)
            self.history_steps = np.concatenate([self.history_steps, np.zeros_like(self.history_steps)], axis=1)
        games = np.arange(len(self.boards))
        self.history_boards[games, self.length] = self.boards
        self.history_steps[games, self.length] = steps
        self.length += 1

    def _finish(self, games: np.ndarray) -> Samples:
        """Samples of the finished ``games``: every position with its lambda-return."""
        lengths = self.length[games]
        longest = int(lengths.max())
        steps = self.history_steps[games, :longest]
        returns = lambda_returns(steps, lengths, self.td_lambda)
        played = np.arange(longest) < lengths[:, None]
        final = steps[np.arange(len(games)), lengths - 1]
        results = np.bincount(final[:, :3].argmax(axis=1), minlength=3)
        return Samples(self.history_boards[games, :longest][played], returns[played], len(games), results)


def self_play_of(config: Config, seed: np.random.SeedSequence) -> SelfPlay:
    """The self-play a run's config asks for: its game, games in flight, exploration and TD(lambda)."""
    return SelfPlay(
        config.selfplay.parallel_games,
        config.learning.td_lambda,
        config.selfplay.epsilon,
        np.random.default_rng(seed),
        find_variant(config.game),
    )
