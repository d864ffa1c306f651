"""Cost and strength of search by depth: median ms per decision and move-choice error at 0, 1, 2 plies.

1. Time per decision: for single positions of ``fixtures/move_choice.jsonl`` (one
   roll each, ``engine.afterstates`` then ``bot.search.nply.rank_afterstates`` with the
   filters the doors use, ``bot.facade.search_filters``: the best 8 plays to 1-ply,
   2 of those within 0.04 to 2-ply), the median wall time at each depth; 0-ply is
   the baseline. The bot is the one the doors serve (numpy network, position
   classes, exact bear-offs), on one BLAS thread.
2. Move-choice error (x1000 equity per move against gnubg's 2-ply, as in
   benchmarks/strength.py) at each depth over all 300 positions, batched.

    python -m benchmarks.search [--checkpoint checkpoints/default.npz] [--positions 40]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from bot.evaluation.checkpoint import load_evaluator
from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.facade import default_checkpoint, search_filters
from bot.search.nply import SearchEvaluator, rank_afterstates
from engine import START, afterstates
from benchmarks.common import load_records
from benchmarks.strength import MOVE_FIXTURE, decision_ms, error_rate

DEPTHS = (0, 1, 2)


def check_answer(evaluator: ProbabilityEvaluator) -> None:
    """The opening 31 must be 8/5 6/5 at every depth before anything is timed."""
    children, _ = afterstates(START[None], np.array([[3, 1]]))
    expected = START.copy()
    expected[[8, 6, 5]] = [2, 4, 2]
    for plies in DEPTHS:
        best = children[rank_afterstates(evaluator, children, plies, filters=search_filters()).best()[0]]
        assert np.array_equal(best, expected), f"opening 31 at {plies}-ply: not 8/5 6/5"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(default_checkpoint()))
    parser.add_argument("--positions", type=int, default=40, help="positions timed one at a time")
    args = parser.parse_args()
    evaluator = load_evaluator(args.checkpoint)
    records = load_records(MOVE_FIXTURE)
    print(f"checkpoint: {args.checkpoint}; one BLAS thread; filters {search_filters()}")
    with threadpool_limits(limits=1, user_api="blas"):
        measure(evaluator, records, args.positions)


def measure(evaluator: ProbabilityEvaluator, records: list[dict], positions: int) -> None:
    """Print time per decision and move-choice error at each depth."""
    check_answer(evaluator)

    baseline = None
    for plies in DEPTHS:
        ms = decision_ms(evaluator, records[:positions], plies)
        median = float(np.median(ms))
        baseline = baseline or median
        print(
            f"time per decision, {plies}-ply: median {median:7.1f} ms, max {ms.max():7.1f} ms "
            f"({median / baseline:5.1f}x 0-ply; {len(ms)} positions)"
        )
    for plies in DEPTHS:
        start = time.perf_counter()
        rate, outside = error_rate(SearchEvaluator(evaluator, plies, search_filters()), records)
        print(
            f"move-choice error, {plies}-ply: {rate:6.2f} (x1000 equity/move; {outside} plays outside gnubg's "
            f"top 8; {len(records)} positions in {time.perf_counter() - start:.1f} s)"
        )


if __name__ == "__main__":
    main()
