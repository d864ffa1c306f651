"""How close bots come to a finished rollout run of the bot's own: KL and equity error over thousands of positions.

A run directory of ``python -m training distill`` with rollout targets (``rollout_trials``) holds
positions (``positions.npz``) and the mean results of the bot's own rollouts from each
(``targets-*.npz``), for the side on roll. This prints, for each checkpoint, at 0-ply and 1-ply:
the mean KL divergence from the rollouts' six outcomes to the bot's (``bot.equity.outcomes.to_six``),
and the root-mean-square difference of the cubeless equities. Both include the rollouts' own
noise, which is the same for every bot: the differences between bots are what they measure. The
positions of a class-specific run are all of that class, so this measures one class network.
``--noise N`` says how large that noise is: N of the run's positions rolled out again with new dice
by the first bot given (the bot that made the run, for a figure of the noise alone), with the
run's settings, against the stored rollouts.

    python -m benchmarks.rollout_fit --run runs/distill/race-108 checkpoints/default.npz candidate.npz
    python -m benchmarks.rollout_fit --run runs/distill/r28a --noise 640 checkpoints/default.npz

The runs the journal uses are in ``checkpoints/targets/rollouts-class.tar.xz``
(``tar xJf checkpoints/targets/rollouts-class.tar.xz -C runs/distill``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from bot.equity.outcomes import equity, invert, to_six
from bot.evaluation.checkpoint import load_evaluator
from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.search.nply import probabilities_at
from engine import flip
from training.config import ConfigError
from training.distill import DistillConfig, finished_targets, recorded_settings, rollout_targets


def kl(reference: np.ndarray, other: np.ndarray) -> float:
    """Mean KL divergence from ``reference``'s six outcomes to ``other``'s (rows of five probabilities)."""
    p, q = (np.clip(to_six(x), 1e-6, 1.0) for x in (reference, other))
    p, q = p / p.sum(axis=1, keepdims=True), q / q.sum(axis=1, keepdims=True)
    return float(np.mean(np.sum(p * np.log(p / q), axis=1)))


def rollout_noise(
    run: Path, evaluator: ProbabilityEvaluator, boards: np.ndarray, rollouts: np.ndarray, count: int, seed: int
) -> str:
    """``count`` of the run's positions rolled out again by ``evaluator`` with the run's settings and new dice,
    against the stored rollouts: the KL and equity RMS of two rollouts of one position ("" if ``count`` is 0)."""
    if not count:
        return ""
    config = DistillConfig(checkpoint="", **recorded_settings(run))
    if not config.rollout_trials:
        raise ConfigError(f"{run}: its targets are searched values, not rollouts; --noise measures rollout runs")
    rows = np.random.default_rng(seed).choice(len(boards), min(count, len(boards)), replace=False)
    again = rollout_targets(evaluator, boards[rows], config, np.random.default_rng([seed, 1]))
    rms = np.sqrt(np.mean((equity(rollouts[rows]) - equity(again)) ** 2))
    return (
        f"  the rollouts' own noise, {len(rows)} positions rolled out again with new dice: "
        f"KL {kl(rollouts[rows], again):.5f}, equity RMS {rms:.4f} "
        "(of a bot's figures above, about half this KL and this RMS over 1.41 are the rollouts' noise)"
    )


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, type=Path, help="a distill run directory with rollout targets")
    parser.add_argument("checkpoints", nargs="+", help="bots (.npz or .pt) to measure")
    parser.add_argument(
        "--noise", type=int, default=0, metavar="N", help="also roll N positions out again with the first bot"
    )
    parser.add_argument("--seed", type=int, default=1, help="which positions and dice --noise takes")
    args = parser.parse_args(argv)
    if args.noise < 0:
        raise SystemExit(f"error: --noise {args.noise}: expected a number of positions, 0 or more")
    with threadpool_limits(limits=1, user_api="blas"):
        evaluators = [(path, load_evaluator(path)) for path in args.checkpoints]
        try:
            boards, rollouts = finished_targets(args.run)
            noise = rollout_noise(args.run, evaluators[0][1], boards, rollouts, args.noise, args.seed)
        except ConfigError as error:
            raise SystemExit(f"error: {error}") from None
        print(f"{args.run}: {len(boards)} positions")
        for path, evaluator in evaluators:
            figures = []
            for plies in (0, 1):
                # Each position is the afterstate its opponent left: searched from there, seen by the side on roll.
                mine = invert(probabilities_at(evaluator, flip(boards), plies))
                rms = np.sqrt(np.mean((equity(rollouts) - equity(mine)) ** 2))
                figures.append(f"{plies}-ply KL {kl(rollouts, mine):.5f}, equity RMS {rms:.4f}")
            print(f"  {Path(path).name}: " + "; ".join(figures))
        if noise:
            print(noise)


if __name__ == "__main__":
    main()
