"""Long nardy's match equity table, built from the shipped bot's own play (``bot/data/met_long_nardy.json``).

The bot plays ``--games`` cubeless 0-ply games against itself from the start (``training.evaluate``,
pairs of games on the same dice); the share of the games won by a mars, with a 95% interval
over the pairs, is the table's mars rate. The network's own win chances after each first roll
give what the leader's free drop is worth after the Crawford game. The table then comes by
the standard recursions (docs/long_nardy_met.md):

- post-Crawford: the trailer doubles at its first turn and the leader takes or drops, whichever
  is better for it (the free drop); a game taken is worth 2 points, or 4 with a mars;
- the Crawford game: no cube, each side wins half the games, a mars at the mars rate;
- before it: Zadeh's model of the doubling cube (N. Zadeh, Management Science 23, 986 (1977)),
  as GNU Backgammon builds its "zadeh" tables, with the mars rate as both sides' gammon rate and
  its cube-efficiency parameters (delta 0.08, delta-bar 0.06).

    python -m benchmarks.long_nardy_met [--checkpoint checkpoints/long_nardy.npz] [--games 10000]
        [--seed 1] [--size 25] [--out bot/data/met_long_nardy.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from benchmarks.common import ROOT
from bot.equity.met import LONG_NARDY_TABLE_FILE
from bot.equity.outcomes import equity
from bot.evaluation.checkpoint import CheckpointError, load_network
from bot.evaluation.evaluator import NetworkEvaluator, ProbabilityEvaluator, best_children
from engine.variant import LONG_NARDY
from training.evaluate import evaluate

DEFAULT_CHECKPOINT = ROOT / "checkpoints" / "long_nardy.npz"
DEFAULT_OUT = ROOT / "bot" / "data" / LONG_NARDY_TABLE_FILE
# Zadeh's cube-efficiency parameters, GNU Backgammon's defaults for its "zadeh" tables.
DELTA = 0.08
DELTA_BAR = 0.06


@dataclass(frozen=True)
class SelfPlayRates:
    """Cubeless self-play games from the start, in pairs on the same dice (the first game's starter is the
    network as player A, the second's as player B): the games won by a mars and by the side that moved first."""

    mars: np.ndarray  # (games,) bool: won by a mars
    starter_won: np.ndarray  # (games,) bool: won by the side that moved first

    @property
    def games(self) -> int:
        """How many games were played (even: whole pairs)."""
        return len(self.mars)

    @property
    def mars_rate(self) -> float:
        """The share of games won by a mars: every game has a winner, so also of wins (no draws by default)."""
        return float(self.mars.mean())

    @property
    def mars_interval(self) -> tuple[float, float]:
        """The 95% interval of the mars rate, from the spread of the pairs' means (the pairs share dice)."""
        return _interval(self.mars)

    @property
    def starter_rate(self) -> float:
        """The share of games the side that moved first won: what the first move is worth."""
        return float(self.starter_won.mean())

    @property
    def starter_interval(self) -> tuple[float, float]:
        """The 95% interval of the starter's rate, as ``mars_interval``."""
        return _interval(self.starter_won)


def _interval(hits: np.ndarray) -> tuple[float, float]:
    """Mean -+ 1.96 standard errors of per-pair means of ``hits`` (games 2k and 2k+1 are pair k)."""
    pairs = hits.reshape(-1, 2).mean(axis=1)
    half = 1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs))
    return float(hits.mean() - half), float(hits.mean() + half)


def measure_rates(evaluator: ProbabilityEvaluator, games: int, seed: int) -> SelfPlayRates:
    """``games`` (even) cubeless games of the evaluator's 0-ply plays against itself, every one to its end."""
    points = evaluate(evaluator, evaluator, games, seed).points
    starter_won = np.where(np.arange(len(points)) % 2 == 0, points > 0, points < 0)
    return SelfPlayRates(np.abs(points) == 2, starter_won)


def first_turn_chances(evaluator: ProbabilityEvaluator) -> tuple[np.ndarray, np.ndarray]:
    """(weights, chances): the chance, as the network sees it, that the side that moves first wins the game
    after each possible first roll and its best play (0-ply), with the rolls' probabilities."""
    game = evaluator.game
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7) if game.opening_doubles or a != b]
    weights = np.array([1.0 if a == b else 2.0 for a, b in rolls])
    children, parent = game.afterstates(np.tile(game.start, (len(rolls), 1)), np.array(rolls))
    five = evaluator.afterstate_probabilities(children)
    best = best_children(equity(five), parent, len(rolls))
    return weights / weights.sum(), five[best, 0].astype(np.float64)


def post_crawford(mars_rate: float, weights: np.ndarray, starter_chances: np.ndarray, size: int) -> np.ndarray:
    """(size,) the trailer's MWC needing 1..size points against a leader needing 1, after the Crawford game.

    The trailer doubles at its first turn: before its first roll if it moves first (the leader's chance of
    the game is then 1 - the starter's), else after the leader's first play. The leader drops when the
    score the drop leaves is worth more to it than the game at 2 points (4 with a mars): the free drop.
    """
    starter = float(weights @ starter_chances)
    # The leader's game chance when it must answer, and how likely each case is.
    chance = np.concatenate([[1.0 - starter], starter_chances])
    likely = np.concatenate([[0.5], 0.5 * weights])
    trailer = np.ones(size + 1)  # trailer[k]: MWC needing k (0: won)

    def at(k: int) -> float:
        return 1.0 if k <= 0 else float(trailer[k])

    for k in range(1, size + 1):
        taken = (1.0 - chance) * ((1.0 - mars_rate) * at(k - 2) + mars_rate * at(k - 4))
        trailer[k] = float(likely @ np.minimum(taken, at(k - 1)))
    return trailer[1:]


def pre_crawford(mars_rate: float, post: np.ndarray, delta: float = DELTA, delta_bar: float = DELTA_BAR) -> np.ndarray:
    """(N, N) MWC of a side needing i + 1 points against one needing j + 1, before the Crawford game (row and
    column 0: the Crawford game), by Zadeh's model with the mars rate as both sides' gammon rate."""
    size = len(post)
    g = mars_rate

    def post_at(k: int) -> float:
        return 1.0 if k <= 0 else float(post[k - 1])

    @lru_cache(maxsize=None)
    def mwc(a: int, b: int) -> float:
        """MWC needing ``a`` against ``b`` (away counts; 0 or less: that side has won)."""
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if b == 1:  # the Crawford game: no cube, even chances, a mars at the mars rate
            return 0.5 * ((1.0 - g) * post_at(a - 1) + g * post_at(a - 2))
        if a == 1:
            return 1.0 - mwc(b, a)
        # The game goes on until one side's chance reaches its cash point (the other drops its double): as a
        # fair random walk from even chances, the other side's cash point weighs my point and mine weighs theirs.
        mine, theirs = drop_point(a, b, 1) + delta_bar - 0.5, drop_point(b, a, 1) + delta_bar - 0.5
        return (theirs * mwc(a - 1, b) + mine * mwc(a, b - 1)) / (mine + theirs)

    @lru_cache(maxsize=None)
    def dead_drop_point(a: int, b: int, cube: int) -> float:
        """My game chance at which the other side is indifferent to my double from ``cube``, the cube dead after."""
        # When I could only win by the next cube anyway, the other side's redouble is automatic.
        after = 2 * cube if a <= 2 * cube < b else cube
        dropped = mwc(a - cube, b)
        won = g * mwc(a - 4 * after, b) + (1.0 - g) * mwc(a - 2 * after, b)
        lost = g * mwc(a, b - 4 * after) + (1.0 - g) * mwc(a, b - 2 * after)
        return (dropped - lost) / (won - lost)

    @lru_cache(maxsize=None)
    def drop_point(a: int, b: int, cube: int) -> float:
        """The same with a live cube: the other side's redouble counts with Zadeh's efficiency ``delta``."""
        dead = dead_drop_point(a, b, cube)
        if min(a, b) <= 2 * cube:
            return dead
        return 1.0 + (drop_point(b, a, 2 * cube) + delta) * (dead - 1.0)

    return np.array([[mwc(i + 1, j + 1) for j in range(size)] for i in range(size)])


def build(evaluator: NetworkEvaluator, games: int, seed: int, size: int, checkpoint: str) -> dict:
    """The table's file as a dict: the tables and how they were made."""
    started = time.perf_counter()
    rates = measure_rates(evaluator, games, seed)
    weights, chances = first_turn_chances(evaluator)
    post = post_crawford(rates.mars_rate, weights, chances, size)
    pre = pre_crawford(rates.mars_rate, post)
    low, high = rates.mars_interval
    return {
        "name": "Long nardy (mars rate)",
        "description": (
            "Match equity table of long nardy (match-winning chances), laid out as met_kazaross_xg2.json: "
            "pre_crawford[i][j] for a side needing i+1 points against one needing j+1, cube centred, before the "
            "Crawford game; post_crawford[k] for the trailer needing k+1 against a leader needing 1 after it. "
            "Built by python -m benchmarks.long_nardy_met from the shipped bot's mars rate in self-play "
            "(docs/long_nardy_met.md)."
        ),
        "variant": "long_nardy",
        "checkpoint": checkpoint,
        "games": rates.games,
        "seed": seed,
        "mars_rate": round(rates.mars_rate, 5),
        "mars_rate_95": [round(low, 5), round(high, 5)],
        "starter_win_rate": round(rates.starter_rate, 5),
        "starter_win_rate_95": [round(x, 5) for x in rates.starter_interval],
        "network_starter_win_chance": round(float(weights @ chances), 5),
        "zadeh": {"delta": DELTA, "delta_bar": DELTA_BAR},
        "seconds": round(time.perf_counter() - started, 1),
        "pre_crawford": np.round(pre, 6).tolist(),
        "post_crawford": np.round(post, 6).tolist(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT, help="long nardy network (.npz or .pt)")
    parser.add_argument("--games", type=int, default=10000, help="self-play games for the mars rate (even)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the dice")
    parser.add_argument("--size", type=int, default=25, help="the longest away score of the table")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the table's JSON")
    args = parser.parse_args(argv)
    if args.games < 4 or args.games % 2:
        print(f"error: --games {args.games}: expected an even number of at least 4", file=sys.stderr)
        return 2
    if not 2 <= args.size <= 64:
        print(f"error: --size {args.size}: expected 2 to 64", file=sys.stderr)
        return 2
    try:
        network = load_network(args.checkpoint)
    except (CheckpointError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if network.encoding.game != "long_nardy":
        print(f"error: {args.checkpoint}: a {network.encoding.game} network, not a long nardy one", file=sys.stderr)
        return 2
    try:
        shown = str(args.checkpoint.resolve().relative_to(ROOT))
    except ValueError:
        shown = str(args.checkpoint)
    table = build(NetworkEvaluator(network, LONG_NARDY), args.games, args.seed, args.size, shown)
    args.out.write_text(json.dumps(table, indent=1) + "\n")
    low, high = table["mars_rate_95"]
    print(
        f"{table['games']} games: mars rate {table['mars_rate']:.4f} (95% {low:.4f} to {high:.4f}), "
        f"starter wins {table['starter_win_rate']:.4f}; wrote {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
