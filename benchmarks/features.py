"""Positions per second of bot.evaluation.features.contact_features beside the "extended" encoding's globals.

The compiled kernel (big batches) and the numpy reference are both timed in the same run.

Boards come from random self-play from the start (hits, bar checkers and bear-offs among
them), one batch; the features are checked on the starting position before timing.

    python -m benchmarks.features [--batch 4096] [--seconds 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bot.evaluation.encoding import get_encoding
from bot.evaluation.features import CONTACT_FEATURES, contact_features, numpy_contact_features
from engine import afterstates
from engine.board import START, flip


def sample(count: int, seed: int = 1) -> np.ndarray:
    """``count`` boards after 1..60 random plies from the start, in the mover's view."""
    rng = np.random.default_rng(seed)
    boards = np.tile(START, (count, 1))
    seen: list[np.ndarray] = []
    while sum(len(s) for s in seen) < count:
        children, parent = afterstates(boards, rng.integers(1, 7, size=(len(boards), 2)))
        starts = np.searchsorted(parent, np.arange(len(boards)))
        sizes = np.bincount(parent, minlength=len(boards))
        boards = flip(children[starts + (rng.random(len(boards)) * sizes).astype(int)])
        done = (np.maximum(boards, 0).sum(axis=1) == 0) | (np.maximum(-boards, 0).sum(axis=1) == 0)
        boards[done] = START
        seen.append(boards[rng.random(len(boards)) < 0.05])
    return np.concatenate(seen)[:count]


def rate(run, positions: int, seconds: float) -> float:
    """Positions per second of ``run()``, best of repeated timings over about ``seconds``."""
    best = float("inf")
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return positions / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()

    start = dict(zip(CONTACT_FEATURES, contact_features(START[None])[0]))
    assert abs(start["mover.break_contact"] - 1.0) < 1e-6 and abs(start["mover.timing"] - 0.52) < 1e-6

    boards = sample(args.batch)
    extended = get_encoding("extended")
    contact = get_encoding("contact")
    rows = [
        ("extended global_features", lambda: extended.global_features(boards)),
        ("contact_features", lambda: contact_features(boards)),
        ("contact_features, numpy", lambda: numpy_contact_features(boards)),
        ("contact encoding, dense encode", lambda: contact.encode(boards)),
        ("extended encoding, dense encode", lambda: extended.encode(boards)),
    ]
    print(f"batch {len(boards)}")
    base = None
    for name, run in rows:
        r = rate(run, len(boards), args.seconds)
        base = base or r
        print(f"{name:34s} {r:12,.0f} positions/s  ({r / base:.3f}x the extended globals)")


if __name__ == "__main__":
    main()
