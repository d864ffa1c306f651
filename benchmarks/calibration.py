"""Does the network's equity agree with its own play? Bias of 0-ply and 1-ply against the bot's own rollouts.

The positions are the contact positions of ``fixtures/cube.jsonl`` (before the roll,
many of them in the doubling window, where a bias moves cube decisions). Each is
rolled out cubeless to the end by the bot itself at 0-ply (no variance reduction),
in ``--groups`` groups of positions, each group with its own dice, so the groups are
independent. Printed, for the side on roll, in equity and in P(win) and P(gammon):
the mean of (search value - own rollout) at 0-ply and at 1-ply, with a 95% interval
from the spread of the group means. A network that agrees with its own play reads
about 0 at every depth; self-distillation rounds (``training.distill``) fit 0-ply
to 1-ply, so a bias that flips sign from one depth to the next is handed on from
round to round.

``--gnubg`` also prints the same means against GNU Backgammon's 2-ply (gnubg-nn): a
measure only, nothing of it goes into training.

    python -m benchmarks.calibration [--checkpoint PATH] [--trials 324] [--groups 10] [--gnubg]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from bot.evaluation.checkpoint import load_evaluator
from bot.evaluation.classes import PositionClass, classify
from bot.equity.outcomes import equity
from bot.search.rollout import RolloutSettings, rollout_boards
from engine import decode_position_id

from benchmarks.common import DEFAULT_CHECKPOINT, load_records
from benchmarks.cube import OFFICIAL_FIXTURE, gnubg_probabilities, network_probabilities


def group_bias(values: np.ndarray, reference: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean of (values - reference) over all rows, and the half-width of its 95% interval over groups.

    Columns: equity, then P(win) and P(gammon) of the side on roll.
    """

    def measures(p: np.ndarray) -> np.ndarray:
        return np.column_stack([equity(p), p[:, 0], p[:, 1]])

    diff = measures(values) - measures(reference)
    means = np.array([diff[groups == g].mean(axis=0) for g in np.unique(groups)])
    half_width = 1.96 * means.std(axis=0, ddof=1) / np.sqrt(len(means))
    return diff.mean(axis=0), half_width


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument("--trials", type=int, default=324, help="rollout games per position")
    parser.add_argument("--groups", type=int, default=10, help="independent groups of positions (each its own dice)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gnubg", action="store_true", help="also against GNU Backgammon 2-ply (gnubg-nn)")
    args = parser.parse_args()
    if args.groups < 2:
        parser.error("--groups: at least 2, for an interval")

    boards = np.array([decode_position_id(r["position_id"]) for r in load_records(OFFICIAL_FIXTURE)])
    boards = boards[
        np.isin(classify(boards), (PositionClass.CONTACT, PositionClass.LATE_CONTACT, PositionClass.CRASHED))
    ]
    groups = np.arange(len(boards)) % args.groups
    evaluator = load_evaluator(args.checkpoint)
    with threadpool_limits(limits=1, user_api="blas"):
        start = time.perf_counter()
        rolled = np.empty((len(boards), 5))
        settings = RolloutSettings(trials=args.trials, variance_reduction=False)
        for g in range(args.groups):
            rows = groups == g
            trials = rollout_boards(evaluator, boards[rows], np.random.default_rng([args.seed, g]), settings)
            rolled[rows] = trials.mean(axis=1)
        seconds = time.perf_counter() - start
        searched = {f"{plies}-ply": network_probabilities(boards, evaluator, plies) for plies in (0, 1)}
    print(
        f"{args.checkpoint}: {len(boards)} contact positions of fixtures/cube.jsonl, side on roll; "
        f"own rollouts {args.trials} games each, 0-ply play, {args.groups} groups ({seconds:.0f} s)"
    )
    references = {"own rollout": rolled}
    if args.gnubg:
        references["gnubg 2-ply"] = gnubg_probabilities(boards, 2)
    for name, reference in references.items():
        for depth, values in searched.items():
            mean, half = group_bias(values, reference, groups)
            print(
                f"  {depth} minus {name}: equity {mean[0]:+.4f} +- {half[0]:.4f}, "
                f"P(win) {mean[1]:+.4f} +- {half[1]:.4f}, P(gammon) {mean[2]:+.4f} +- {half[2]:.4f} (95%)"
            )
    if args.gnubg:
        mean, half = group_bias(rolled, references["gnubg 2-ply"], groups)
        print(
            f"  own rollout minus gnubg 2-ply: equity {mean[0]:+.4f} +- {half[0]:.4f}, "
            f"P(win) {mean[1]:+.4f} +- {half[1]:.4f}, P(gammon) {mean[2]:+.4f} +- {half[2]:.4f} (95%)"
        )


if __name__ == "__main__":
    main()
