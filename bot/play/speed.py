"""How fast a bot decides and rolls out, measured beside another bot in the same run.

Speed is a property a bot ships with (a wider network is stronger and slower), and one
machine's figures wander with its load: ``measure_speeds`` times bots in turn, each
measure repeated, the fastest run of each counting, so the ratios mean something where the
absolute figures do not. ``python -m training ship`` uses it to refuse a candidate slower
than the shipped bot (``docs/training.md``); ``benchmarks/rollout.py`` times rollouts alone.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np

from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.facade import Bot
from bot.search.rollout import RolloutSettings, rollout_position

# Decisions timed, with their dice, per game. Backgammon: the opening, middle games, late contact, a crashed
# game and a race (positions of GNU Backgammon's move-choice fixture, and benchmarks/rollout.py's race).
# Long nardy: positions of the bot's self-play, one or two of each phase (engine.long_nardy.phases).
DECISIONS = {
    "backgammon": (
        ("4HPwATDgc/ABMA", (4, 4)),
        ("33YDgAB22wAAAA", (6, 3)),
        ("zzoGA0DbtosAAA", (2, 5)),
        ("ZpsNABzYO4MBDA", (5, 1)),
        ("jDMjGAtwZ8yAIg", (3, 3)),
        ("sM/BgBGMZ/ACJA", (5, 3)),
        ("u9kBQkB2ewcQAA", (4, 1)),
        ("BwAAAD4PBhYEAA", (5, 6)),
    ),
    "long_nardy": (
        ("ACACf/wACAT/+", (5, 1)),
        ("AkICW/wBCRIv+", (2, 2)),
        ("AEQRT/wCBCkf+", (2, 5)),
        ("QgKpcawRgmuZG", (6, 4)),
        ("giUPiKylNg1Sg", (1, 1)),
        ("c99wAAHubsAQA", (2, 3)),
        ("97piAABr7AAAA", (4, 3)),
        ("3wAAAd3fAAAAA", (2, 1)),
    ),
}
# Rolled out, before the roll: the opening and a middle game (backgammon's are benchmarks/rollout.py's).
ROLLOUTS = {
    "backgammon": ("4HPwATDgc/ABMA", "zJ3BCCjMzsEBKA"),
    "long_nardy": ("AAAB//wAAAP/+", "c99wAAHubsAQA"),
}


@dataclass(frozen=True)
class Speed:
    """A bot's speed: median milliseconds per checker-play decision at 0-ply and 1-ply, rollout trials per second."""

    ply0_ms: float
    ply1_ms: float
    rollout_trials_per_s: float

    def slowdowns(self, baseline: "Speed") -> dict[str, float]:
        """How many times slower than ``baseline`` at each measure (above 1: slower)."""
        return {
            "ply0": self.ply0_ms / baseline.ply0_ms,
            "ply1": self.ply1_ms / baseline.ply1_ms,
            "rollout": baseline.rollout_trials_per_s / self.rollout_trials_per_s,
        }

    def to_json(self) -> dict[str, float]:
        return {key: round(value, 4) for key, value in asdict(self).items()}


def _decision_ms(bot: Bot, plies: int, rounds: int = 5) -> float:
    """Median over the bot's game's ``DECISIONS`` of each decision's fastest of ``rounds`` (a decision takes well
    under a millisecond at 0-ply, where one preemption would otherwise decide the figure), in milliseconds."""
    decisions = DECISIONS[bot.variant.name]
    times = np.full((rounds, len(decisions)), np.inf)
    boards = [bot.variant.position.from_id(position_id).board for position_id, _ in decisions]
    for round_ in range(rounds):
        for index, (board, (_, dice)) in enumerate(zip(boards, decisions)):
            start = time.perf_counter()
            bot.best_play(board, dice, plies=plies)
            times[round_, index] = time.perf_counter() - start
    return float(np.median(times.min(axis=0))) * 1000.0


def _rollout_seconds(evaluator: ProbabilityEvaluator, trials: int) -> float:
    """Seconds to roll out the evaluator's game's ``ROLLOUTS``, ``trials`` cubeless 0-ply trials each, without
    variance reduction."""
    settings = RolloutSettings(trials=trials, variance_reduction=False)
    game = evaluator.game
    start = time.perf_counter()
    for position_id in ROLLOUTS[game.name]:
        rollout_position(evaluator, game.position.from_id(position_id).board, np.random.default_rng(1), settings)
    return time.perf_counter() - start


def measure_speeds(
    evaluators: Sequence[ProbabilityEvaluator],
    repeats: int = 3,
    trials: int = 288,
    progress: Callable[[str], None] | None = None,
) -> list[Speed]:
    """The ``Speed`` of each evaluator, every measure run ``repeats`` times with the bots in turn, the fastest counting.

    Each bot warms up first (numba compiles or loads its kernels, the bear-off databases load).
    """
    bots = [Bot(evaluator) for evaluator in evaluators]
    for bot in bots:
        _decision_ms(bot, 1, rounds=1)
        _rollout_seconds(bot.evaluator, 36)
    best = [[np.inf] * 3 for _ in bots]
    for repeat in range(repeats):
        for index, bot in enumerate(bots):
            figures = (_decision_ms(bot, 0), _decision_ms(bot, 1), _rollout_seconds(bot.evaluator, trials))
            best[index] = [min(a, b) for a, b in zip(best[index], figures)]
        if progress is not None:
            progress(f"speed: run {repeat + 1} of {repeats} done")
    return [Speed(b[0], b[1], len(ROLLOUTS[bot.variant.name]) * trials / b[2]) for bot, b in zip(bots, best)]
