"""Positions per second of the batched generator, against baselines measured in the same run.

The sample is the 3,000 positions of GNU Backgammon's move-generation fixtures
(its self-play, random play full of hits and bar checkers, bear-offs), tiled to
each batch size. The result count is checked against GNU Backgammon's answers
before anything is timed. Baselines: the project's plain one-position-at-a-time
Python generator (``engine.plays``) and, when the PyPI package ``gnubg-nn`` is
installed, GNU Backgammon's C generator called in a Python loop.

    python benchmarks/movegen.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from engine import afterstates, decode_position_id, encode_position_id
from engine.plays import legal_plays

SHARED = Path(os.environ.get("NARDY_SHARED", Path(__file__).resolve().parents[2] / "shared"))
BATCH_SIZES = (1, 64, 1024, 4096)


def load_sample() -> tuple[np.ndarray, np.ndarray, int]:
    """Boards, dice and GNU Backgammon's total number of afterstates (a blocked roll counts one)."""
    records = [json.loads(line) for line in open(SHARED / "fixtures" / "movegen.jsonl")]
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    dice = np.array([r["dice"] for r in records])
    expected = sum(max(1, len(r["afterstates"])) for r in records)
    return boards, dice, expected


def rate(run, positions: int, seconds: float) -> float:
    """Positions per second of ``run()`` (which handles ``positions`` positions), best of repeated timings."""
    run()
    best = float("inf")
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return positions / best


def batched_rates(boards: np.ndarray, dice: np.ndarray, seconds: float) -> dict[int, float]:
    rates = {}
    for size in BATCH_SIZES:
        reps = -(-size // len(boards))
        batch = np.tile(boards, (reps, 1))[:size]
        batch_dice = np.tile(dice, (reps, 1))[:size]
        rates[size] = rate(lambda: afterstates(batch, batch_dice), size, seconds)
    return rates


def python_rate(boards: np.ndarray, dice: np.ndarray, seconds: float) -> float:
    sample = list(zip(boards[:300], dice[:300]))
    return rate(lambda: [legal_plays(b, d) for b, d in sample], len(sample), seconds)


def gnubg_rate(boards: np.ndarray, dice: np.ndarray, seconds: float) -> float | None:
    try:
        import gnubg_nn
    except ImportError:
        return None
    # gnubg's own board layout, read from the same positions by gnubg itself.
    sample = [
        (gnubg_nn.board_from_position_id(encode_position_id(board)), int(d1), int(d2))
        for board, (d1, d2) in zip(boards, dice)
    ]
    moves = gnubg_nn.moves
    return rate(lambda: [moves(b, d1, d2) for b, d1, d2 in sample], len(sample), seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="timing budget per measurement")
    args = parser.parse_args()

    boards, dice, expected = load_sample()
    children, _ = afterstates(boards, dice)
    if len(children) != expected:
        raise SystemExit(f"wrong answer: {len(children)} afterstates, GNU Backgammon has {expected}")
    print(f"checked: {len(boards)} positions give {expected} afterstates, as GNU Backgammon says")

    plain = python_rate(boards, dice, args.seconds)
    gnubg = gnubg_rate(boards, dice, args.seconds)
    print(f"plain Python generator (one position at a time): {plain:10,.0f} positions/s")
    if gnubg is None:
        print("gnubg C generator: not measured (pip install gnubg-nn)")
    else:
        print(f"gnubg C generator (gnubg_nn.moves in a loop):     {gnubg:10,.0f} positions/s")
    for size, value in batched_rates(boards, dice, args.seconds).items():
        line = f"batched, batch {size:5d}: {value:10,.0f} positions/s  {value / plain:7.1f}x plain Python"
        if gnubg is not None:
            line += f"  {value / gnubg:5.2f}x gnubg"
        print(line)


if __name__ == "__main__":
    main()
