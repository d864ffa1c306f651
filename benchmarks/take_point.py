"""How far the cubeless probabilities are off near the take point, where the take decisions are made.

The positions: the contact positions of ``benchmarks/data/cube_large.jsonl`` whose double/take
equity by GNU Backgammon's 2-ply is within 0.15 of a pass. For each source of probabilities
(GNU Backgammon's 0-ply, each checkpoint's 0-ply, its searched probabilities ``--plies`` deep,
its own truncated rollouts) it prints the RMS and mean difference of the five probabilities
from GNU Backgammon's 2-ply (gnubg-nn, in-process; it shares networks with GNU Backgammon's
0-ply, so that line has a home advantage), and the time per position beside GNU Backgammon's
2-ply in the same run. A rollout line also prints its own standard error (RMS over the
positions): the part of its difference that is the dice's.

    python -m benchmarks.take_point [--checkpoint PATH ...] [--plies 2] [--rollout-trials 36]
        [--rollout-truncate 10] [--limit N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from bot.evaluation.checkpoint import load_evaluator
from bot.evaluation.classes import PositionClass, classify
from benchmarks.common import DEFAULT_CHECKPOINT, load_records
from benchmarks.cube import gnubg_probabilities, network_probabilities, rollout_probabilities
from engine import decode_position_id

LARGE_FIXTURE = Path(__file__).resolve().parent / "data" / "cube_large.jsonl"
NEAR = 0.15  # of a pass, in GNU Backgammon's normalised double/take equity


def near_take_point(path: Path = LARGE_FIXTURE, near: float = NEAR) -> np.ndarray:
    """(N, 26) the fixture's contact positions whose double/take is within ``near`` of a pass, side on roll's view."""
    records = [r for r in load_records(path) if abs(r["double_take"] - r["double_pass"]) < near]
    boards = np.array([decode_position_id(r["position_id"]) for r in records]).reshape(-1, 26)
    return boards[classify(boards) >= PositionClass.CONTACT]


def line(name: str, probs: np.ndarray, reference: np.ndarray, ms: float, baseline_ms: float) -> str:
    error = probs - reference
    rms, mean = np.sqrt((error**2).mean(axis=0)), error.mean(axis=0)
    return (
        f"  {name:<34} RMS {' '.join(f'{v:.4f}' for v in rms)}   mean {' '.join(f'{v:+.4f}' for v in mean)}"
        f"   {ms:8.2f} ms a position ({ms / baseline_ms:.2f}x gnubg 2-ply)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, nargs="+", default=[DEFAULT_CHECKPOINT])
    parser.add_argument("--plies", type=int, default=2, help="depth of each checkpoint's searched line (0: none)")
    parser.add_argument("--rollout-trials", type=int, default=36, help="games a rollout (0: no rollout line)")
    parser.add_argument(
        "--rollout-truncate", type=int, default=10, help="plies before the network's value (0: to the end)"
    )
    parser.add_argument("--limit", type=int, default=0, help="the first N positions only (0: all)")
    args = parser.parse_args()

    boards = near_take_point()
    if args.limit:
        boards = boards[: args.limit]
    n = len(boards)

    def timed(compute):
        start = time.perf_counter()
        result = compute()
        return result, 1000 * (time.perf_counter() - start) / n

    reference, baseline_ms = timed(lambda: gnubg_probabilities(boards, 2))
    print(
        f"{n} contact positions of {LARGE_FIXTURE.name} within {NEAR} of the take point; differences from "
        "GNU Backgammon's 2-ply, [win, win gammon, win backgammon, lose gammon, lose backgammon]"
    )
    gnubg0, ms = timed(lambda: gnubg_probabilities(boards, 0))
    print(line("GNU Backgammon 0-ply", gnubg0, reference, ms, baseline_ms))
    for checkpoint in args.checkpoint:
        evaluator = load_evaluator(checkpoint)
        print(f"{checkpoint}:")
        for plies in sorted({0, args.plies}):
            probs, ms = timed(lambda: network_probabilities(boards, evaluator, plies))
            print(line(f"{plies}-ply", probs, reference, ms, baseline_ms))
        if args.rollout_trials:
            (probs, errors), ms = timed(
                lambda: rollout_probabilities(evaluator, boards, args.rollout_trials, args.rollout_truncate)
            )
            name = f"rollout {args.rollout_trials} games, {args.rollout_truncate or 'no'} truncation"
            print(line(name, probs, reference, ms, baseline_ms))
            print(
                f"  {'its standard error, RMS':<34}     "
                f"{' '.join(f'{v:.4f}' for v in np.sqrt((errors**2).mean(axis=0)))}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
