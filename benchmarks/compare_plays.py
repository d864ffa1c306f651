"""Which of two networks plays better at 0-ply (or 1-ply), where they disagree, by GNU Backgammon's 2-ply judgement.

Positions come from fresh self-play games of the ``baseline`` network (random
dice); each network chooses its play, at 0-ply or with ``--plies 1`` searched as the
doors search (``bot.facade.search_filters``); where the plays differ, gnubg-nn's
2-ply equity scores both (a measure only: nothing of it goes into training). The
figure is the mean gain per move, equity x1000, with its 95% interval: more
sensitive than a few hundred fixture positions or a 10,000-game match. With
``--position-class`` (``crashed``, say) only positions of that class (``bot.evaluation.classes``)
are kept, from ``--games`` games: where a class's own network is what differs.

    python -m benchmarks.compare_plays BASELINE.npz CANDIDATE.npz [...] [--positions 15000] [--seed 99] [--plies 1]
        [--position-class crashed --games 6000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from bot.evaluation.checkpoint import load_evaluator
from bot.evaluation.evaluator import choose_afterstates
from bot.equity.outcomes import equity
from bot.evaluation.classes import NETWORK_CLASSES
from training.distill import class_rows, sample_positions
from training.selfplay import roll_dice

from benchmarks.common import gnubg_board
from benchmarks.strength import served_search


def gnubg_two_ply(afterstates: np.ndarray) -> np.ndarray:
    """(N,) the mover's equity of each afterstate (mover's view) by gnubg 2-ply, the opponent on roll."""
    import gnubg_nn

    return np.array([-float(equity(np.array(gnubg_nn.probabilities(gnubg_board(-a[::-1]), 2)))) for a in afterstates])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline")
    parser.add_argument("candidates", nargs="+")
    parser.add_argument("--positions", type=int, default=15_000)
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--plies", type=int, choices=(0, 1), default=0, help="depth of both networks' move choice")
    parser.add_argument("--position-class", choices=NETWORK_CLASSES, help="keep only positions of this class")
    parser.add_argument("--games", type=int, default=400, help="self-play games that give the positions")
    args = parser.parse_args()
    with threadpool_limits(limits=1, user_api="blas"):
        baseline = load_evaluator(args.baseline)
        rng = np.random.default_rng(args.seed)
        boards = sample_positions(baseline, args.games, 0.0, 400, rng)
        boards = boards[class_rows(boards, args.position_class or "")][: args.positions]
        dice = roll_dice(len(boards), rng)
        before = choose_afterstates(served_search(baseline, args.plies), boards, dice)
        for path in args.candidates:
            start = time.perf_counter()
            after = choose_afterstates(served_search(load_evaluator(path), args.plies), boards, dice)
            differ = np.flatnonzero((before != after).any(axis=1))
            gain = np.zeros(len(boards))
            gain[differ] = 1000 * (gnubg_two_ply(after[differ]) - gnubg_two_ply(before[differ]))
            half_width = 1.96 * gain.std(ddof=1) / np.sqrt(len(gain))
            print(
                f"{path}, {args.plies}-ply: {len(boards)} positions, {len(differ)} plays differ; "
                "candidate minus baseline, "
                f"equity x1000 per move {gain.mean():+.2f} +- {half_width:.2f} (95%) "
                f"({time.perf_counter() - start:.0f} s)"
            )


if __name__ == "__main__":
    main()
