"""Where a candidate bot differs from a baseline on the fixtures, and whether the difference is more than chance.

The strength bars are read on small fixtures (300 move-choice positions, 400 cube positions), where two
networks of one lineage differ in a handful of positions. This lists those positions and gives paired figures:

- move choice at each depth of ``--plies``: the equity each bot's play loses in each position (x1000, GNU
  Backgammon's 2-ply, scored as ``benchmarks/strength.py`` scores it), the mean difference (candidate minus
  baseline) with its 95% interval over the positions, and the positions that differ most;
- cube decisions at 0-ply on ``--cube-fixture`` (default the official one): the positions where only one of
  the two agrees with GNU Backgammon on the double, or on the take, and an exact two-sided sign test on them
  (the chance of a split at least that uneven between two equally good bots).

    python -m benchmarks.fixture_diff BASELINE CANDIDATE [--plies 0 1] [--cube-fixture PATH] [--show 8]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from bot.evaluation.checkpoint import CheckpointError, load_evaluator
from bot.evaluation.classes import PositionClass
from bot.equity.cube import CubeDecision
from engine import decode_position_id

from benchmarks.common import load_records
from benchmarks.cube import OFFICIAL_FIXTURE, network_decisions, verdicts
from benchmarks.strength import MOVE_FIXTURE, fixture_classes, move_losses, served_search


def paired_interval(differences: np.ndarray) -> tuple[float, float]:
    """(mean, half-width of its 95% normal interval) of per-position differences."""
    differences = np.asarray(differences, dtype=np.float64)
    if len(differences) < 2:
        return float(differences.mean()) if len(differences) else 0.0, math.inf
    return float(differences.mean()), float(1.96 * differences.std(ddof=1) / math.sqrt(len(differences)))


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided p-value of ``wins`` against ``losses`` among the positions where only one side is right."""
    n = wins + losses
    tail = sum(math.comb(n, k) for k in range(min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def cube_split(
    records: Sequence[dict], baseline: Sequence[CubeDecision], candidate: Sequence[CubeDecision]
) -> dict[str, tuple[list[int], list[int]]]:
    """For "double" and "take": (rows only the baseline gets right, rows only the candidate gets right)."""
    split: dict[str, tuple[list[int], list[int]]] = {"double": ([], []), "take": ([], [])}
    for row, (record, before, after) in enumerate(zip(records, baseline, candidate)):
        for name, old, new in zip(("double", "take"), verdicts(record, before), verdicts(record, after)):
            if old != new:
                split[name][1 if new else 0].append(row)
    return split


def report_moves(
    records: list[dict], classes: np.ndarray, baseline: np.ndarray, candidate: np.ndarray, plies: int, show: int
) -> None:
    """Print the paired move-choice figures of one depth (losses x1000 per record, ``classes`` the records'
    ``fixture_classes``)."""
    difference = candidate - baseline
    mean, half_width = paired_interval(difference)
    print(
        f"move choice, {plies}-ply: baseline {baseline.mean():.2f}, candidate {candidate.mean():.2f} "
        f"(x1000 equity a move, {len(records)} positions); candidate minus baseline {mean:+.2f} +- {half_width:.2f} "
        f"(95%); {np.sum(difference > 0)} positions worse, {np.sum(difference < 0)} better"
    )
    for row in np.argsort(-np.abs(difference), kind="stable")[:show]:
        if difference[row]:
            record = records[row]
            print(
                f"  {record['position_id']} {record['dice'][0]}{record['dice'][1]} "
                f"({PositionClass(int(classes[row])).name.lower()}): {baseline[row]:.1f} -> {candidate[row]:.1f}"
            )


def report_cube(records: list[dict], split: dict[str, tuple[list[int], list[int]]], show: int) -> None:
    """Print the cube decisions only one bot gets right, with the sign test."""
    for name, (baseline_only, candidate_only) in split.items():
        p = sign_test(len(candidate_only), len(baseline_only))
        print(
            f"cube, {name}: right only for the baseline {len(baseline_only)}, only for the candidate "
            f"{len(candidate_only)} (of {len(records)}; sign test p = {p:.2f})"
        )
        for label, rows in (("baseline", baseline_only), ("candidate", candidate_only)):
            for row in rows[:show]:
                record = records[row]
                print(
                    f"  right only for the {label}: {record['position_id']} {record['decision']} "
                    f"(length {record['match_length']}, score {record['score']}, "
                    f"cube {record['cube']} {record['owner']})"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline")
    parser.add_argument("candidate")
    parser.add_argument(
        "--plies",
        type=int,
        nargs="*",
        choices=(0, 1),
        default=[0, 1],
        help="move-choice depths (none: the cube decisions only)",
    )
    parser.add_argument("--cube-fixture", type=Path, default=OFFICIAL_FIXTURE)
    parser.add_argument("--show", type=int, default=8, help="positions listed per figure")
    args = parser.parse_args()
    if not args.cube_fixture.is_file():
        parser.error(f"cube fixture {str(args.cube_fixture)!r}: no such file")
    with threadpool_limits(limits=1, user_api="blas"):
        try:
            bots = [load_evaluator(path) for path in (args.baseline, args.candidate)]
        except (CheckpointError, OSError) as error:
            parser.error(str(error))
        moves = load_records(MOVE_FIXTURE)
        classes = fixture_classes(moves)
        for plies in args.plies:
            before, after = (move_losses(served_search(bot, plies), moves)[0] * 1000 for bot in bots)
            report_moves(moves, classes, before, after, plies, args.show)
        cubes = load_records(args.cube_fixture)
        boards = np.array([decode_position_id(r["position_id"]) for r in cubes])
        decisions = [network_decisions(cubes, boards, bot, 0, lookahead=True) for bot in bots]
        report_cube(cubes, cube_split(cubes, *decisions), args.show)


if __name__ == "__main__":
    main()
