"""Long nardy's cube against the bot's own 2-ply cubeful lookahead, on a fixed set of its self-play positions.

The set (``benchmarks/data/long_nardy_cube.jsonl``, written by ``--build``): positions before a roll from the long
nardy network's self-play games (``training.distill.sample_positions``, 5% random plays; of each round's shuffled
positions every fourth is looked at, so that the set spans many games), each given a random cube state as
``training.cube_correction.random_state`` draws them (money 30% of the time, else a 3- to 13-point match at any
score), kept where the side on roll may double and the network's 0-ply P(win) is 0.45 to 0.97 (where a cube
decision can be near). Each is decided by the bot's own 2-ply cubeful lookahead (``bot.search.cube_decision``)
whose leaves are priced by the borrowed model, backgammon's race efficiency at the mover's pips, so that the
reference does not move with the model fitted to it. Two parts from different self-play games: ``fit`` (what
``--fit`` may look at) and ``measure`` (held out). Each record: the Position ID, the cube state, the network's
0-ply probabilities (win, win mars, lose mars), the lookahead's verdict and its normalised no-double and
double/take equities (the side on roll's, a pass is +1), the network file's digest. ``--build`` is resumable: the
file is rewritten whole (atomically) after each round of games, and a rerun goes on from its last record.

Printed, on the measure part, for the borrowed model and long nardy's own (``bot.equity.cube.long_nardy_efficiencies``),
both Janowski's model at 0-ply on the stored probabilities: how often the doubler's choice (double or not) and the
taker's (take or pass) are the lookahead's, with 95% Wilson intervals (an optional double, or a take and a pass
within 1e-5, accepts either answer: ``benchmarks.cube.verdicts``), the paired difference of the two models with its
95% interval, and the mean equity given away by wrong choices, valued by the lookahead's own equities.

``--fit``: the grid search that gave long nardy's constants: the cube efficiency rising in a line from ``end`` at 0
pips to ``full`` at ``ramp_pips`` of the mover's pips, flat above; the grid point giving away the least equity
(doubler plus taker) on the fit part, ties to the better agreement. It prints the constants to put in
``bot/equity/cube.py`` and their figures on both parts.

    python -m benchmarks.long_nardy_cube [--build] [--fit] [--checkpoint checkpoints/long_nardy.npz]
        [--set benchmarks/data/long_nardy_cube.jsonl] [--positions 1000] [--fit-positions 2000] [--seed 1] [--show 0]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.common import load_records
from benchmarks.cube import doubler_cost, run, state_of, taker_cost
from bot.equity.cube import (
    DOUBLING_VERDICTS,
    LONG_NARDY_EFFICIENCY,
    LONG_NARDY_END_EFFICIENCY,
    LONG_NARDY_RAMP_PIPS,
    CubeDecision,
    CubeState,
    long_nardy_efficiencies,
    long_nardy_race_efficiencies,
    model_decisions,
)
from bot.equity.met import MatchEquityTable, met_for
from engine.errors import BackgammonError
from engine.variant import LONG_NARDY

SET = Path(__file__).resolve().parent / "data" / "long_nardy_cube.jsonl"
PARTS = ("fit", "measure")
WIN_RANGE = (0.45, 0.97)
GAMES_A_ROUND = 8  # self-play games whose positions make one round of ``--build``
SPREAD = 4  # of a round's positions (shuffled) every SPREAD-th is looked at: more games, fewer alike positions
EPSILON = 0.05  # the share of random plays in those games
# The fit's grid: efficiency at 0 pips, the flat efficiency, the pips where the line reaches it.
END_GRID = np.round(np.arange(0.2, 1.0001, 0.05), 3)
FULL_GRID = np.round(np.arange(0.5, 1.0001, 0.025), 3)
RAMP_GRID = (30, 60, 90, 120, 150, 180, 240, 300, 360)
# The efficiencies the fit's table prices each position at: a model's efficiency is rounded to the nearest.
TABLE_STEP = 0.005


class SetError(BackgammonError):
    """A cube set that cannot be used: unreadable, or built with another network."""


def network_digest(path: Path) -> str:
    """The first 12 hex digits of the SHA-256 of the network file at ``path``: which network a set was built with."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


def _table(state: CubeState) -> Optional[MatchEquityTable]:
    return None if state.is_money else met_for("long_nardy")


def boards_of(records: Sequence[dict]) -> np.ndarray:
    """(N, 26) the records' boards, each in its side on roll's view."""
    return np.array([LONG_NARDY.position.from_id(r["position_id"]).board for r in records], dtype=np.int8)


def fives_of(records: Sequence[dict]) -> np.ndarray:
    """(N, 5) the records' stored 0-ply probabilities as the cube arithmetic reads them (no backgammons)."""
    win, win_mars, lose_mars = np.array([r["probabilities"] for r in records], dtype=np.float64).reshape(-1, 3).T
    zero = np.zeros_like(win)
    return np.column_stack([win, win_mars, zero, lose_mars, zero])


def with_answers(record: dict) -> dict:
    """A stored record with what ``benchmarks.cube.run`` reads besides: the pass (+1) and both sides' answers."""
    return {
        **record,
        "double_pass": 1.0,
        "should_double": record["decision"] in {v.value for v in DOUBLING_VERDICTS},
        "should_take": record["double_take"] <= 1.0,
    }


def load_set(path: Path, part: Optional[str] = None) -> list[dict]:
    """The records of the set at ``path`` (of one ``part`` if named), with their answers; SetError if unreadable."""
    try:
        records = load_records(path)
    except (OSError, ValueError) as error:
        raise SetError(f"cube set {str(path)!r}: unreadable ({error}); build it with --build") from None
    return [with_answers(r) for r in records if part is None or r["part"] == part]


# ---------------------------------------------------------------- building


def _round_candidates(evaluator, seed: int, part: int, round_: int) -> tuple[np.ndarray, np.ndarray, list[CubeState]]:
    """One round's positions (self-play of ``GAMES_A_ROUND`` games), their 0-ply probabilities and cube states,
    the same each time for the same seed, part and round."""
    from training.cube_correction import random_state
    from training.distill import sample_positions

    boards = sample_positions(
        evaluator, GAMES_A_ROUND, EPSILON, GAMES_A_ROUND, np.random.default_rng([seed, part, round_])
    )
    fives = np.clip(np.asarray(evaluator.probabilities(boards), dtype=np.float64), 0.0, 1.0)
    fives[:, [2, 4]] = 0.0  # long nardy has no backgammons
    state_rng = np.random.default_rng([seed, part, round_, 1])
    return boards, fives, [random_state(state_rng) for _ in boards]


def _record(evaluator, board: np.ndarray, five: np.ndarray, state: CubeState, part: str, where: tuple, digest: str):
    """The set's record of one position: its cube state, probabilities, and the 2-ply lookahead's decision."""
    from bot.search.cube_decision import lookahead_cube_decision

    decision = lookahead_cube_decision(
        evaluator, board, state, 2, _table(state), efficiencies=long_nardy_race_efficiencies
    )
    return {
        "part": part,
        "round": where[0],
        "index": where[1],
        "position_id": LONG_NARDY.position(board).id,
        "cube": state.cube,
        "owner": state.owner.value,
        "match_length": state.match_length,
        "score": list(state.score),
        "crawford": state.crawford,
        "probabilities": [round(float(five[k]), 6) for k in (0, 1, 3)],
        "decision": decision.verdict.value,
        "no_double": round(decision.no_double, 6),
        "double_take": round(decision.double_take, 6),
        "network": digest,
    }


def build(checkpoint: Path, path: Path, positions: int, seed: int, fit_positions: Optional[int] = None) -> list[dict]:
    """Add to the set at ``path`` until the measure part has ``positions`` records and the fit part ``fit_positions``
    (default as many); the file is rewritten after each round."""
    from bot.evaluation.storage import atomic_write
    from bot.facade import Bot

    digest = network_digest(checkpoint)
    records = load_records(path) if path.exists() else []
    others = {r["network"] for r in records} - {digest}
    if others:
        raise SetError(
            f"cube set {str(path)!r} was built with another network ({', '.join(sorted(others))}, this one {digest}):"
            " name a new file with --set, or delete it"
        )
    evaluator = Bot.load(checkpoint, variant="long").evaluator
    start = time.perf_counter()
    wanted = {"fit": fit_positions or positions, "measure": positions}
    for number, part in enumerate(PARTS):
        mine = [r for r in records if r["part"] == part]
        round_, index = (mine[-1]["round"], mine[-1]["index"] + SPREAD) if mine else (0, 0)
        while len(mine) < wanted[part]:
            with threadpool_limits(1):
                boards, fives, states = _round_candidates(evaluator, seed, number, round_)
                for i in range(index, len(boards), SPREAD):
                    if len(mine) >= wanted[part]:
                        break
                    if states[i].can_double and WIN_RANGE[0] <= fives[i, 0] <= WIN_RANGE[1]:
                        mine.append(_record(evaluator, boards[i], fives[i], states[i], part, (round_, i), digest))
            records = [r for r in records if r["part"] != part] + mine
            with atomic_write(path, "w") as f:
                f.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
            print(f"{part}: {len(mine)} positions (round {round_}, {time.perf_counter() - start:.0f} s)", flush=True)
            round_, index = round_ + 1, 0
    return [with_answers(r) for r in records]


# ---------------------------------------------------------------- measuring


def decisions_at(records: Sequence[dict], efficiencies: np.ndarray) -> list[CubeDecision]:
    """Janowski's model's 0-ply decision of each record at its cube efficiency (``efficiencies`` (N,))."""
    fives = fives_of(records)
    return [
        model_decisions(fives[i : i + 1], efficiencies[i : i + 1], state_of(r), _table(state_of(r)))[0]
        for i, r in enumerate(records)
    ]


def wilson(hits: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of a share ``hits`` / ``n``."""
    if n == 0:
        return 0.0, 1.0
    z, share = 1.96, hits / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@dataclass(frozen=True)
class Agreement:
    """How one model's decisions match the lookahead's: per position, right or not, and what wrong choices cost."""

    double_ok: np.ndarray
    take_ok: np.ndarray
    double_cost: float
    take_cost: float

    @classmethod
    def of(cls, records: Sequence[dict], decisions: Sequence[CubeDecision]) -> "Agreement":
        from benchmarks.cube import verdicts

        right = np.array([verdicts(r, d) for r, d in zip(records, decisions)], dtype=bool).reshape(-1, 2)
        result = run(list(records), decisions)
        return cls(right[:, 0], right[:, 1], result["double_cost"], result["take_cost"])

    def line(self, name: str) -> str:
        cells = []
        for who, ok in (("doubler", self.double_ok), ("taker", self.take_ok)):
            low, high = wilson(int(ok.sum()), len(ok))
            cells.append(f"{who} {ok.mean():.1%} ({low:.1%}-{high:.1%})")
        cost = f"equity given away {self.double_cost:.4f} + {self.take_cost:.4f} a position"
        return f"  {name:<34} {', '.join(cells)}; {cost}"


def paired(new: np.ndarray, old: np.ndarray) -> str:
    """The mean of ``new - old`` (per-position right or not) with its 95% normal interval, as points."""
    differences = new.astype(np.float64) - old.astype(np.float64)
    half = 1.96 * differences.std(ddof=1) / math.sqrt(len(differences)) if len(differences) > 1 else math.inf
    return f"{differences.mean():+.1%} ({differences.mean() - half:+.1%} to {differences.mean() + half:+.1%})"


def report(records: Sequence[dict], models: dict[str, Callable[[np.ndarray], np.ndarray]], show: int = 0) -> None:
    """Print each model's agreement with the lookahead on ``records``, and each against the first (the borrowed)."""
    boards = boards_of(records)
    results = {}
    for name, efficiencies in models.items():
        decisions = decisions_at(records, efficiencies(boards))
        results[name] = Agreement.of(records, decisions)
        print(results[name].line(name))
        if show:
            shown = 0
            for r, d, ok in zip(records, decisions, results[name].double_ok & results[name].take_ok):
                if not ok and shown < show:
                    shown += 1
                    print(
                        f"    {r['position_id']} {state_of(r)}: 2-ply {r['decision']} nd {r['no_double']:+.3f} "
                        f"dt {r['double_take']:+.3f} | model {d.verdict.value} nd {d.no_double:+.3f} "
                        f"dt {d.double_take:+.3f}"
                    )
    first, *rest = results
    for name in rest:
        new, old = results[name], results[first]
        print(
            f"  {name} minus {first}: doubler {paired(new.double_ok, old.double_ok)}, "
            f"taker {paired(new.take_ok, old.take_ok)}"
        )


# ---------------------------------------------------------------- fitting


@dataclass(frozen=True)
class Fit:
    """Long nardy's efficiency line (``long_nardy_efficiencies``' parameters) and what it gives on the fit part."""

    end: float
    full: float
    ramp_pips: int
    cost: float
    agreement: float

    def efficiencies(self, boards: np.ndarray) -> np.ndarray:
        return long_nardy_efficiencies(boards, self.end, self.full, self.ramp_pips)


def fit(records: Sequence[dict]) -> Fit:
    """The grid point of (``END_GRID``, ``FULL_GRID``, ``RAMP_GRID``) giving away the least mean equity (doubler plus
    taker) against the lookahead on ``records``, ties to the better mean agreement.

    Each position's decision is worked out once at every efficiency of a ``TABLE_STEP`` grid; a candidate's
    efficiency is rounded to it."""
    from benchmarks.cube import verdicts

    xs = np.arange(0.0, 1.0 + TABLE_STEP / 2, TABLE_STEP)
    fives = fives_of(records)
    cost = np.empty((len(records), len(xs)))
    right = np.empty((len(records), len(xs)))
    for i, r in enumerate(records):
        state = state_of(r)
        for k, d in enumerate(model_decisions(np.repeat(fives[i : i + 1], len(xs), 0), xs, state, _table(state))):
            cost[i, k] = doubler_cost(r, d.should_double) + taker_cost(r, d.should_take)
            right[i, k] = sum(verdicts(r, d)) / 2.0
    boards = boards_of(records)
    rows = np.arange(len(records))
    best: Optional[Fit] = None
    for end, full, ramp in itertools.product(END_GRID, FULL_GRID, RAMP_GRID):
        column = np.rint(long_nardy_efficiencies(boards, end, full, ramp) / TABLE_STEP).astype(int)
        candidate = Fit(
            float(end), float(full), ramp, float(cost[rows, column].mean()), float(right[rows, column].mean())
        )
        if best is None or (candidate.cost, -candidate.agreement) < (best.cost, -best.agreement):
            best = candidate
    assert best is not None  # the grid is not empty
    return best


def main(argv: Optional[Sequence[str]] = None) -> int:
    from bot.facade import default_long_nardy_checkpoint

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, default=None, help="the long nardy network (default: the shipped)")
    parser.add_argument("--set", type=Path, default=SET, help=f"the cube set (default {SET.name} in benchmarks/data)")
    parser.add_argument("--build", action="store_true", help="build (or extend) the set first, resumable")
    parser.add_argument("--positions", type=int, default=1000, help="with --build: positions of the measure part")
    parser.add_argument("--fit-positions", type=int, default=2000, help="with --build: positions of the fit part")
    parser.add_argument("--seed", type=int, default=1, help="with --build: the self-play games' seed")
    parser.add_argument("--fit", action="store_true", help="grid-search long nardy's efficiency on the fit part")
    parser.add_argument("--show", type=int, default=0, help="print this many disagreements of each model")
    args = parser.parse_args(argv)
    checkpoint = args.checkpoint or default_long_nardy_checkpoint()
    for name, value in (("--positions", args.positions), ("--fit-positions", args.fit_positions)):
        if value < 1:
            parser.error(f"{name} {value}: expected a positive number")
    try:
        if args.build:
            build(checkpoint, args.set, args.positions, args.seed, args.fit_positions)
        records = {part: load_set(args.set, part) for part in PARTS}
    except BackgammonError as error:
        print(error, file=sys.stderr)
        return 2
    if not records["measure"]:
        print(f"cube set {str(args.set)!r} has no measure part; build it with --build", file=sys.stderr)
        return 2
    networks = {r["network"] for rs in records.values() for r in rs}
    models: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "borrowed (backgammon's race)": long_nardy_race_efficiencies,
        "long nardy's own": long_nardy_efficiencies,
    }
    print(
        f"long nardy's own efficiency: {LONG_NARDY_END_EFFICIENCY} at 0 pips, rising to {LONG_NARDY_EFFICIENCY} "
        f"at {LONG_NARDY_RAMP_PIPS} pips"
    )
    if args.fit:
        if not records["fit"]:
            print(f"cube set {str(args.set)!r} has no fit part; build it with --build", file=sys.stderr)
            return 2
        found = fit(records["fit"])
        print(
            f"fitted on the {len(records['fit'])} of the fit part: LONG_NARDY_END_EFFICIENCY = {found.end}, "
            f"LONG_NARDY_EFFICIENCY = {found.full}, LONG_NARDY_RAMP_PIPS = {found.ramp_pips} "
            f"(equity given away {found.cost:.4f} a position, agreement {found.agreement:.1%})"
        )
        models["fitted now"] = found.efficiencies
        print(f"fit part, {len(records['fit'])} positions:")
        report(records["fit"], models)
    print(
        f"measure part (held out), {len(records['measure'])} positions, network {', '.join(sorted(networks))}; "
        "0-ply model against the bot's 2-ply cubeful lookahead, 95% intervals:"
    )
    report(records["measure"], models, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
