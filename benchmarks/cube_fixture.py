"""A larger cube fixture: GNU Backgammon's 2-ply cube decisions on positions of its own self-play games.

``fixtures/cube.jsonl`` has 400 positions, and the 0-ply cube bars (95% / 98%) move by a quarter of a
percent a position, most of them at a verdict's edge: two fits of the cube correction the bot's own
2-ply cannot tell apart read 93.8% and 95.8% there. This script writes a fixture ten times larger in
the same format, for telling such candidates apart; the issue's bars stay on ``fixtures/cube.jsonl``.

- Positions: GNU Backgammon 0-ply's self-play games (gnubg-nn in-process, its best play by cubeless
  equity), every position before a roll, distinct: neither the bot's games nor its training's.
- Each gets a random cube state as the fixtures have them (``training.cube_correction.random_state``:
  money 30% of the time, else a 3- to 13-point match at any score, Crawford and post-Crawford);
  states where the opponent owns the cube are dropped (GNU Backgammon's ``hint`` answers only the
  side that may double).
- GNU Backgammon 1.07's terminal program answers each at 2-ply (``hint``, 5 digits), as it answered
  ``fixtures/cube.jsonl``: before building, the script asks it for those 400 positions' answers and
  stops unless every verdict it gives is the fixture's, and its equities within 0.03 of the fixture's.
- The kept positions have the official fixture's mix of the two answers the bar scores (double or
  not, take or pass) over its 280 positions that ``hint`` answers (not where the opponent owns the
  cube or it is dead), drawn at random within each of the four pairs, so that the figures read on
  the scale of the bar's; fewer than ``--positions`` where a pair has too few candidates. A
  measure only: nothing of it goes into training.

    python -m benchmarks.cube_fixture [--positions 4000] [--candidates 20000] [--seed 2027]
        [--out benchmarks/data/cube_large.jsonl] [--workers 2]

then ``python -m benchmarks.cube --fixture benchmarks/data/cube_large.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from bot.equity.cube import CubeState, Owner
from bot.evaluation.storage import atomic_write
from engine import encode_position_id
from training.cube_correction import random_state
from training.distill import sample_positions

from benchmarks.cube import OFFICIAL_FIXTURE
from benchmarks.common import ROOT, load_records
from benchmarks.gnubg_cube import ask_gnubg, gnubg_answers
from benchmarks.strength import GnubgEvaluator

DEFAULT_OUT = ROOT / "benchmarks" / "data" / "cube_large.jsonl"
DOUBLES = {"DOUBLE_TAKE", "DOUBLE_PASS", "REDOUBLE_TAKE", "REDOUBLE_PASS"}
CHUNK = 500  # positions per run of GNU Backgammon's program
# Debian's gnubg 1.07 gives fixtures/cube.jsonl's verdicts back, its equities to within 4e-5 for half of
# them and 0.024 at most (the fixture's were made with other settings or build): the check's slack.
EQUITY_SLACK = 0.03


def verdict_name(verdict: str) -> str:
    """GNU Backgammon's printed cube action ("Too good to redouble, pass", "No double, take (19.1%)") as
    the fixture's name of it (``TOOGOODRE_PASS``, ``NODOUBLE_TAKE``)."""
    text = verdict.split(" (")[0].lower()
    action, _, answer = text.partition(", ")
    redouble = "redouble" in action
    if action.startswith("too good"):
        stem = "TOOGOODRE" if redouble else "TOOGOOD"
    elif action.startswith("never"):
        return "NO_REDOUBLE_DEADCUBE" if redouble else "NODOUBLE_DEADCUBE"
    elif action.startswith("no "):
        stem = "NO_REDOUBLE" if redouble else "NODOUBLE"
    elif action.startswith("optional"):
        stem = "OPTIONAL_REDOUBLE" if redouble else "OPTIONAL_DOUBLE"
    elif action in ("double", "redouble"):
        stem = action.upper()
    else:
        raise ValueError(f"unknown cube action {verdict!r}")
    if answer not in ("take", "pass"):
        raise ValueError(f"unknown answer in cube action {verdict!r}")
    return f"{stem}_{answer.upper()}"


def fixture_record(stub: dict, answer: tuple[float, float, float, str]) -> dict:
    """A fixture line from a position and cube state (``stub``) and GNU Backgammon's 2-ply answer to it."""
    nd, dt, dp, verdict = answer
    decision = verdict_name(verdict)
    return {
        **stub,
        "plies": 2,
        "no_double": nd,
        "double_take": dt,
        "double_pass": dp,
        "decision": decision,
        "should_double": decision in DOUBLES,
        "should_take": dt <= dp,
    }


def answered(stubs: list[dict], program: str, workers: int) -> list[dict]:
    """The fixture lines of the ``stubs`` GNU Backgammon answers at 2-ply (one program run per chunk)."""
    chunks = [stubs[i : i + CHUNK] for i in range(0, len(stubs), CHUNK)]
    with ThreadPoolExecutor(workers) as pool:
        outputs = pool.map(lambda chunk: ask_gnubg(chunk, 2, program), chunks)
        return [
            fixture_record(stub, answer)
            for chunk, output in zip(chunks, outputs)
            for stub, answer in zip(chunk, gnubg_answers(output, len(chunk)))
            if answer is not None
        ]


def check_against_fixture(program: str, workers: int) -> tuple[list[dict], float]:
    """GNU Backgammon's answers to ``fixtures/cube.jsonl``'s positions (those it answers), and the largest equity
    difference from the fixture's; ValueError on a verdict that differs or an equity off by more than
    ``EQUITY_SLACK``."""
    official = load_records(OFFICIAL_FIXTURE)
    keys = ("position_id", "match_length", "score", "crawford", "cube", "owner")
    ours = answered([{key: record[key] for key in keys} for record in official], program, workers)
    by_key = {json.dumps([record[key] for key in keys]): record for record in official}
    largest = 0.0
    for record in ours:
        theirs = by_key[json.dumps([record[key] for key in keys])]
        for key in ("no_double", "double_take", "double_pass"):
            largest = max(largest, abs(record[key] - theirs[key]))
            if abs(record[key] - theirs[key]) > EQUITY_SLACK:
                raise ValueError(f"{record['position_id']}: {key} {record[key]} against the fixture's {theirs[key]}")
        if any(record[key] != theirs[key] for key in ("decision", "should_double", "should_take")):
            raise ValueError(
                f"{record['position_id']}: {record['decision']} against the fixture's {theirs['decision']}"
            )
    return ours, largest


def candidate_stubs(games: int, seed: int) -> list[dict]:
    """Positions of GNU Backgammon's self-play games, each with a random cube state the side on roll may use."""
    rng = np.random.default_rng(seed)
    boards = sample_positions(GnubgEvaluator(0), games, 0.0, 64, rng)
    stubs = []
    for board in boards:
        state: CubeState = random_state(rng)
        if state.owner is Owner.OPP:
            continue
        stubs.append(
            {
                "position_id": encode_position_id(board),
                "match_length": state.match_length,
                "score": list(state.score),
                "crawford": state.crawford,
                "cube": state.cube,
                "owner": Owner(state.owner).value,
            }
        )
    return stubs


def answer_pair(record: dict) -> tuple[bool, bool]:
    """What the bar scores of a fixture line: should the side on roll double, should the other side take."""
    return record["should_double"], record["should_take"]


def answer_mix(
    records: list[dict], shares: dict[tuple[bool, bool], float], size: int, rng: np.random.Generator
) -> list[dict]:
    """Up to ``size`` of ``records``, drawn at random within each answer pair in the proportions ``shares``
    gives: fewer where a pair has too few records for ``size``."""
    by_pair: dict[tuple[bool, bool], list[dict]] = {pair: [] for pair in shares}
    for record in records:
        by_pair.setdefault(answer_pair(record), []).append(record)
    size = min(size, *(int(len(by_pair[pair]) / share) for pair, share in shares.items()))
    exact = {pair: share * size for pair, share in shares.items()}
    counts = {pair: int(n) for pair, n in exact.items()}
    for pair in sorted(exact, key=lambda pair: counts[pair] - exact[pair])[: size - sum(counts.values())]:
        counts[pair] += 1  # the largest remainders round up, so that the counts add up to size
    kept = [
        by_pair[pair][i]
        for pair, n in counts.items()
        for i in sorted(rng.choice(len(by_pair[pair]), min(n, len(by_pair[pair])), replace=False))
    ]
    return [kept[i] for i in rng.permutation(len(kept))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=4000, help="positions in the fixture (default 4000)")
    parser.add_argument(
        "--candidates",
        type=int,
        default=20000,
        help="positions to ask GNU Backgammon about and draw from (default 20000; it answers about four in five)",
    )
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--workers", type=int, default=2, help="GNU Backgammon processes at once (default 2)")
    parser.add_argument("--gnubg", default="/usr/games/gnubg", help="GNU Backgammon's program")
    args = parser.parse_args()
    if shutil.which(args.gnubg) is None:
        print(f"error: no GNU Backgammon at {args.gnubg} (apt-get install gnubg)", file=sys.stderr)
        return 2
    if args.positions < 1 or args.candidates < args.positions or args.workers < 1:
        print("error: need --positions >= 1, --candidates >= --positions and --workers >= 1", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        official, largest = check_against_fixture(args.gnubg, args.workers)
    except OSError as error:
        print(
            f"error: cannot read the official cube fixture ({error}); set NARDY_SHARED to the folder holding "
            "fixtures/cube.jsonl",
            file=sys.stderr,
        )
        return 2
    except ValueError as error:
        print(
            f"error: GNU Backgammon does not give fixtures/cube.jsonl's answers back, so a fixture built with it "
            f"would not be comparable: {error}",
            file=sys.stderr,
        )
        return 1
    print(
        f"GNU Backgammon gives fixtures/cube.jsonl's verdicts back on the {len(official)} positions it answers, "
        f"equities within {largest:.4f} ({time.perf_counter() - start:.0f} s)",
        flush=True,
    )
    shares = {pair: n / len(official) for pair, n in Counter(map(answer_pair, official)).items()}
    # About 57 distinct positions a game, four in five with a cube the side on roll may use.
    stubs = candidate_stubs(max(1, args.candidates // 45), args.seed)[: args.candidates]
    print(
        f"{len(stubs)} candidate positions from GNU Backgammon's self-play ({time.perf_counter() - start:.0f} s)",
        flush=True,
    )
    records = answered(stubs, args.gnubg, args.workers)
    print(
        f"{len(records)} answered at 2-ply ({time.perf_counter() - start:.0f} s): "
        + ", ".join(f"{v} {n}" for v, n in Counter(r["decision"] for r in records).most_common()),
        flush=True,
    )
    kept = answer_mix(records, shares, args.positions, np.random.default_rng([args.seed, 1]))
    with atomic_write(args.out, "w") as f:
        f.writelines(json.dumps(record) + "\n" for record in kept)
    print(
        f"wrote {len(kept)} positions to {args.out}: "
        + ", ".join(f"{v} {n}" for v, n in Counter(r["decision"] for r in kept).most_common())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
