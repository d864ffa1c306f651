"""Positions per second of the batched long nardy generator, against the single-position path in the same run.

The sample is every position met in 200 random self-play games (the batched
generator picks each side's plays). Before anything is timed, the batched
afterstates of 500 of them are checked against the checked single-position path
(``engine.long_nardy.plays.legal_plays``). The ratio printed is batched over single.

    python -m benchmarks.long_nardy_movegen [--seconds 2] [--block-check step|turn]
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.movegen import rate

from engine.long_nardy import START, Rules, afterstates, flip, legal_plays

BATCH_SIZES = (1, 64, 1024, 4096)


def self_play_sample(rules: Rules, games: int = 200, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Every (board, dice) of ``games`` random games played to the end, boards in the mover's view, shuffled."""
    rng = np.random.default_rng(seed)
    boards = np.tile(START, (games, 1))
    seen_boards, seen_dice = [], []
    while len(boards):
        dice = rng.integers(1, 7, size=(len(boards), 2))
        seen_boards.append(boards)
        seen_dice.append(dice)
        children, parent = afterstates(boards, dice, rules)
        counts = np.bincount(parent, minlength=len(boards))
        after = children[np.cumsum(counts) - counts + (rng.random(len(boards)) * counts).astype(np.int64)]
        boards = flip(after[np.any(after > 0, axis=1)])
    order = rng.permutation(sum(len(b) for b in seen_boards))  # early and late positions mixed in every batch
    return np.concatenate(seen_boards)[order], np.concatenate(seen_dice)[order]


def check(boards: np.ndarray, dice: np.ndarray, rules: Rules) -> int:
    """The number of afterstates, after checking them against the single-position path; SystemExit on a mismatch."""
    children, parent = afterstates(boards, dice, rules)
    starts = np.searchsorted(parent, np.arange(len(boards) + 1))
    for i in range(len(boards)):
        batched = sorted(c.tobytes() for c in children[starts[i] : starts[i + 1]])
        single = sorted(p.afterstate.tobytes() for p in legal_plays(boards[i], dice[i], rules))
        if batched != single:
            raise SystemExit(f"wrong answer: board {boards[i].tolist()} dice {dice[i].tolist()}")
    return len(children)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="timing budget per measurement")
    parser.add_argument("--block-check", choices=("step", "turn"), default="step", help="the block_check flag")
    args = parser.parse_args()
    rules = Rules(block_check=args.block_check)

    boards, dice = self_play_sample(rules)
    found = check(boards[:500], dice[:500], rules)
    print(
        f"checked: {found} afterstates of 500 positions, batched = single-position path ({len(boards)} in the sample)"
    )

    sample = list(zip(boards[:300], dice[:300]))
    single = rate(lambda: [legal_plays(b, d, rules) for b, d in sample], len(sample), args.seconds)
    print(f"single-position path (one at a time, with steps): {single:10,.0f} positions/s")
    for size in BATCH_SIZES:
        batch, batch_dice = boards[:size], dice[:size]
        value = rate(lambda: afterstates(batch, batch_dice, rules), len(batch), args.seconds)
        print(f"batched, batch {size:5d}: {value:10,.0f} positions/s  {value / single:7.1f}x the single-position path")


if __name__ == "__main__":
    main()
