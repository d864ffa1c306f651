"""Cubeless money games between two evaluators, batched, with duplicate dice.

Games come in pairs that share one dice sequence: in the first game of a pair
player A moves first, in the second player B does, so luck largely cancels out.
All games advance together (one move-choice call per player per ply). Both players
play the first player's game (``engine.variant``: backgammon or long nardy). Gammons (long
nardy's mars) count 2 points and backgammons 3. Points per game (ppg) are reported with a 95%
confidence interval over pairs: mean +- 1.96 * std / sqrt(pairs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bot.evaluation.evaluator import Evaluator, choose_afterstates
from engine.variant import Variant
from bot.equity.outcomes import is_finished
from training.config import ConfigError
from training.selfplay import first_dice, roll_dice

DICE_CHUNK = 128  # plies of dice drawn at a time for every pair


@dataclass(frozen=True)
class MatchResult:
    """Results of a series of game pairs, in player A's view."""

    points: np.ndarray  # (games,) points won by A in each game (negative: lost); pair k = games 2k, 2k+1

    @property
    def games(self) -> int:
        return len(self.points)

    @property
    def win_rate(self) -> float:
        """Fraction of games A won."""
        return float(np.mean(self.points > 0))

    @property
    def ppg(self) -> float:
        """A's mean points per game."""
        return float(np.mean(self.points))

    @property
    def ppg_interval(self) -> float:
        """Half-width of the 95% confidence interval of ``ppg``, from the per-pair means."""
        pairs = self.points.reshape(-1, 2).mean(axis=1)
        if len(pairs) < 2:
            return float("nan")
        return float(1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs)))

    def summary(self) -> str:
        return f"games {self.games}  win rate {self.win_rate:.3f}  ppg {self.ppg:+.3f} +- {self.ppg_interval:.3f} (95%)"


class _Dice:
    """Every pair's dice sequence, drawn from one generator in chunks of plies as needed."""

    def __init__(self, pairs: int, rng: np.random.Generator, game: Variant) -> None:
        self.pairs = pairs
        self.rng = rng
        first = first_dice(pairs, rng, game)[:, None, :]
        self.table = np.concatenate([first, self._chunk()[:, 1:]], axis=1)

    def _chunk(self) -> np.ndarray:
        return roll_dice(self.pairs * DICE_CHUNK, self.rng).reshape(self.pairs, DICE_CHUNK, 2)

    def at(self, ply: int, pairs: np.ndarray) -> np.ndarray:
        """(len(pairs), 2) the dice of ``pairs`` at ``ply``."""
        while ply >= self.table.shape[1]:
            self.table = np.concatenate([self.table, self._chunk()], axis=1)
        return self.table[pairs, ply]


def play_pairs(first: Evaluator, second: Evaluator, pairs: int, rng: np.random.Generator) -> MatchResult:
    """Play ``pairs`` game pairs of ``first`` (A) against ``second`` (B), all at once.

    Game 2k: A moves first; game 2k+1: B moves first; both use pair k's dice. The game is A's.
    """
    game = first.game
    if second.game is not game:
        raise ConfigError(f"a {game.name} player against a {second.game.name} player")
    dice = _Dice(pairs, rng, game)
    count = 2 * pairs
    pair = np.arange(count) // 2
    a_moves_on_even_plies = np.arange(count) % 2 == 0
    boards = np.tile(game.start, (count, 1))  # side on roll's view
    points = np.zeros(count)
    active = np.ones(count, dtype=bool)
    ply = 0
    while active.any():
        a_to_move = a_moves_on_even_plies == (ply % 2 == 0)
        for player, sign, mask in ((first, 1.0, a_to_move), (second, -1.0, ~a_to_move)):
            games = np.flatnonzero(active & mask)
            if not len(games):
                continue
            chosen = choose_afterstates(player, boards[games], dice.at(ply, pair[games]))
            done = is_finished(chosen)
            points[games[done]] = sign * game.winning_points(chosen[done])
            active[games[done]] = False
            boards[games] = game.flip(chosen)
        ply += 1
    return MatchResult(points)


def evaluate(first: Evaluator, second: Evaluator, games: int, seed: int, batch_pairs: int = 1024) -> MatchResult:
    """``games`` (even) cubeless money games of ``first`` against ``second``, A's view.

    Pairs are played ``batch_pairs`` at a time to bound memory; dice come from ``seed``.
    """
    if games < 2 or games % 2:
        raise ConfigError(f"games {games}: expected an even number of at least 2")
    rng = np.random.default_rng(seed)
    pairs = games // 2
    parts = [play_pairs(first, second, min(batch_pairs, pairs - start), rng) for start in range(0, pairs, batch_pairs)]
    return MatchResult(np.concatenate([p.points for p in parts]))
