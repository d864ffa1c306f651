"""Positions per second of the batched generator, against baselines measured in the same run.

Two samples. The mixed batch: 4,096 positions of pubeval playing itself (64 games in
lockstep, restarted as they end), with the dice they rolled, so doubles come in their
natural share (one roll in six); the headline is the batched generator (compiled, as
``engine.afterstates`` serves a batch this big with numba installed) against GNU
Backgammon's C generator on it, each timed in turn, repeated. Then the 3,000 positions
of GNU Backgammon's move-generation fixtures (its self-play, random play full of hits
and bar checkers, bear-offs; dice uniform over the 21 rolls, so doubles over-represented),
tiled to each batch size. Before timing, the fixtures' afterstate count is checked against
GNU Backgammon's answers and the compiled generator against the numpy one, row for row.
Baselines: the project's plain one-position-at-a-time Python generator (``engine.plays``)
and, when the PyPI package ``gnubg-nn`` is installed, GNU Backgammon's C generator called
in a Python loop.

    python -m benchmarks.movegen [--seconds 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from benchmarks.common import FIXTURES
from bot.evaluation.evaluator import choose_afterstates
from bot.evaluation.pubeval import Pubeval
from engine import START, afterstates, decode_position_id, encode_position_id, flip
from engine.movegen import numpy_afterstates
from engine.plays import legal_plays

BATCH_SIZES = (1, 64, 1024, 4096)


def load_sample() -> tuple[np.ndarray, np.ndarray, int]:
    """Boards, dice and GNU Backgammon's total number of afterstates (a blocked roll counts one)."""
    records = [json.loads(line) for line in open(FIXTURES / "movegen.jsonl")]
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    dice = np.array([r["dice"] for r in records])
    expected = sum(max(1, len(r["afterstates"])) for r in records)
    return boards, dice, expected


def natural_sample(count: int = 4096, games: int = 64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Boards (mover's view) and dice of ``count`` turns of pubeval against itself, ``games`` games in lockstep."""
    rng = np.random.default_rng(seed)
    pubeval = Pubeval()
    boards = np.repeat(START[None], games, axis=0)
    seen, rolled = [], []
    for _ in range(-(-count // games)):
        dice = rng.integers(1, 7, size=(games, 2))
        seen.append(boards)
        rolled.append(dice)
        chosen = choose_afterstates(pubeval, boards, dice)
        over = ~np.any(chosen > 0, axis=1)
        boards = np.where(over[:, None], START, flip(chosen))
    return np.concatenate(seen)[:count], np.concatenate(rolled)[:count]


def gnubg_sample(boards: np.ndarray, dice: np.ndarray) -> list | None:
    """The positions in gnubg's own board layout, read by gnubg itself; None without ``gnubg-nn``."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    return [
        (gnubg_nn.board_from_position_id(encode_position_id(board)), int(d1), int(d2))
        for board, (d1, d2) in zip(boards, dice)
    ]


def mixed_batch(seconds: float, repeats: int) -> None:
    """The batched generator against gnubg's on one mixed batch from real games, timed in turn ``repeats`` times."""
    boards, dice = natural_sample()
    doubles = float(np.mean(dice[:, 0] == dice[:, 1]))
    compiled, reference = afterstates(boards, dice), numpy_afterstates(boards, dice)
    if not all(np.array_equal(a, b) for a, b in zip(compiled, reference)):
        raise SystemExit("wrong answer: the compiled generator differs from the numpy one on the mixed batch")
    sample = gnubg_sample(boards, dice)
    print(
        f"mixed batch: {len(boards)} positions of pubeval self-play, {doubles:.1%} doubles, "
        f"{len(compiled[0])} afterstates"
    )
    for _ in range(repeats):
        batched = rate(lambda: afterstates(boards, dice), len(boards), seconds)
        plain = rate(lambda: numpy_afterstates(boards, dice), len(boards), seconds)
        line = f"  batched {batched:10,.0f} positions/s, numpy alone {plain:10,.0f}"
        if sample is not None:
            import gnubg_nn

            moves = gnubg_nn.moves
            gnubg = rate(lambda: [moves(b, d1, d2) for b, d1, d2 in sample], len(sample), seconds)
            line += f", gnubg {gnubg:10,.0f}: batched {batched / gnubg:5.2f}x gnubg, numpy alone {plain / gnubg:5.2f}x"
        print(line)


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
    sample = gnubg_sample(boards, dice)
    if sample is None:
        return None
    import gnubg_nn

    moves = gnubg_nn.moves
    return rate(lambda: [moves(b, d1, d2) for b, d1, d2 in sample], len(sample), seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="timing budget per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="timings of the mixed batch, each against gnubg")
    args = parser.parse_args()
    mixed_batch(args.seconds, args.repeats)

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
