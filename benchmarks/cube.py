"""Cube decisions against GNU Backgammon's 2-ply answers on the 400 fixture positions.

For each position of ``fixtures/cube.jsonl`` (money and match play, every cube
position, Crawford and post-Crawford scores) the bot decides as it plays: at 0-ply
``bot.equity.cube.cube_decision`` on cubeless probabilities, at 1-ply and 2-ply the cubeful
lookahead of ``bot.search.cube_decision`` (``--no-lookahead``: the model on the searched cubeless
probabilities instead). Printed:

- agreement on ``should_double`` (an ``OPTIONAL_*`` verdict, or no double and the double within 1e-5,
  accepts either answer: such a double costs nothing, as in a race won for sure without gammons),
  over all positions and over those where GNU Backgammon lets the side double;
- agreement on ``should_take`` (a take and a pass within 1e-5 accept either);
- the average cost of the bot's choices measured with GNU Backgammon's own
  normalised equities (pass = +1): for the doubler, best of no double and
  double (the taker answering as GNU Backgammon says) minus what the bot's
  choice is worth; for the taker, what the bot's answer gives away;
- the time a decision takes, beside (where gnubg-nn is installed) the time gnubg-nn
  takes for its cubeless evaluation of a position at the same depth, in the same run.

Probabilities come from the project's network (``--probabilities network``,
checkpoint ``checkpoints/default.pt``), or, to check the cube arithmetic on its
own, from GNU Backgammon's neural net through the PyPI package ``gnubg-nn``
(``--probabilities gnubg``, its cubeless probabilities ``--plies`` deep and the model): with the same inputs as
GNU Backgammon the decisions should mostly agree; or, to see what better probabilities would give, from the
bot's own truncated variance-reduced rollouts (``--probabilities rollout``, about half a second a position).
With the network, the figures come twice in one run: "before" plays bear-offs with the race network, "after"
with the exact bear-off databases (``bot.evaluation.classes``), as the bot does: exact probabilities, and within the
two-sided database exact cube values (money equities, or match-winning chances solved for
the score); and split by position class. A bot with a learned cube correction
(``bot.evaluation.cube_correction``, applied at 0-ply) gets a third line between them, "no correction".

    python -m benchmarks.cube [--probabilities network|gnubg|rollout] [--rollout-trials 36] [--rollout-truncate 10]
        [--checkpoint PATH] [--plies 0|1|2] [--no-lookahead] [--fixture PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from benchmarks.common import DEFAULT_CHECKPOINT, FIXTURES, gnubg_board, load_records
from bot.evaluation.classes import PositionClass, classify, exact_cube
from bot.equity.cube import CubeDecision, CubeState, MatchCubeMWCs, MoneyCubeEquities, cube_decision
from engine import decode_position_id

TIE = 1e-5
NO_CUBE_ACCESS = {"NOT_AVAILABLE", "NODOUBLE_DEADCUBE", "NO_REDOUBLE_DEADCUBE"}
# The order of the by-class tables here and in benchmarks/strength.py.
CLASS_COLUMNS = (
    PositionClass.CONTACT,
    PositionClass.LATE_CONTACT,
    PositionClass.CRASHED,
    PositionClass.RACE,
    PositionClass.BEAROFF,
)


OFFICIAL_FIXTURE = FIXTURES / "cube.jsonl"


def state_of(record: dict) -> CubeState:
    return CubeState(
        cube=record["cube"],
        owner=record["owner"],
        match_length=record["match_length"],
        score=tuple(record["score"]),
        crawford=record["crawford"],
    )


def gnubg_probabilities(boards: np.ndarray, plies: int) -> np.ndarray:
    import gnubg_nn

    return np.array([gnubg_nn.probabilities(gnubg_board(b), plies) for b in boards], dtype=np.float64)


def network_evaluators(checkpoint: Path) -> dict:
    """The bot's evaluators of ``checkpoint``: {"before": bear-offs by the race network and no cube correction,
    "no correction": bear-offs exact (where the bot has a cube correction), "after": the bot as it plays}."""
    from bot.evaluation.checkpoint import load_evaluator
    from bot.evaluation.classes import ClassEvaluator

    after = load_evaluator(checkpoint)
    if after.bearoff is None:
        return {"bot": after}
    evaluators = {"before": ClassEvaluator(after.networks, bearoff=None)}
    if after.cube_correction is not None:
        evaluators["no correction"] = ClassEvaluator(after.networks, after.bearoff)
    return {**evaluators, "after": after}


def network_probabilities(boards: np.ndarray, evaluator, plies: int) -> np.ndarray:
    """An evaluator's cubeless probabilities for the side on roll, ``plies`` deep (deeper than 0: over its 21 rolls)."""
    from bot.search.nply import probabilities_at
    from bot.equity.outcomes import invert
    from engine import flip

    if plies == 0:
        return np.asarray(evaluator.probabilities(boards), dtype=np.float64)
    # The position before the roll is the opponent's afterstate: searched as deep, turned around.
    return np.asarray(invert(probabilities_at(evaluator, flip(boards), plies)), dtype=np.float64)


def rollout_probabilities(
    evaluator, boards: np.ndarray, trials: int, truncate: int, seed: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """(N, 5) means and standard errors of ``trials`` variance-reduced rollouts of each board (0-ply play), stopped
    after ``truncate`` plies (0: played out) for the evaluator's value; side on roll's view, clipped to be
    probabilities (variance reduction can leave a mean a hair below 0)."""
    from bot.search.rollout import RolloutSettings, rollout_boards

    settings = RolloutSettings(trials=trials, truncate=truncate or None)
    rng = np.random.default_rng(seed)
    samples = np.concatenate(
        [rollout_boards(evaluator, boards[i : i + 32], rng, settings) for i in range(0, len(boards), 32)]
    )
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = np.clip(samples.mean(axis=1), 0.0, 1.0).T
    win_gammon, lose_gammon = np.minimum(win_gammon, win), np.minimum(lose_gammon, 1.0 - win)
    probs = np.column_stack(
        [win, win_gammon, np.minimum(win_backgammon, win_gammon), lose_gammon, np.minimum(lose_backgammon, lose_gammon)]
    )
    return probs, samples.std(axis=1, ddof=1) / np.sqrt(trials)


def model_decisions(
    records: list[dict],
    boards: np.ndarray,
    probs: np.ndarray,
    exact: Sequence[Optional[MoneyCubeEquities | MatchCubeMWCs]],
) -> list[CubeDecision]:
    """``bot.equity.cube``'s decisions from ``probs`` (and exact cube values where given)."""
    return [
        cube_decision(board, p, state_of(record), exact=known)
        for record, board, p, known in zip(records, boards, probs, exact)
    ]


def network_decisions(
    records: list[dict], boards: np.ndarray, evaluator, plies: int, lookahead: bool
) -> list[CubeDecision]:
    """The bot's decisions: the model on its 0-ply probabilities, or deeper the cubeful lookahead
    (``bot.search.cube_decision``; without ``lookahead``, the model on the ``plies``-deep probabilities)."""
    from bot.evaluation.classes import exact_cube
    from bot.search.cube_decision import lookahead_cube_decision

    if plies and not lookahead:
        exact = [exact_cube(evaluator, board, state_of(record)) for board, record in zip(boards, records)]
        return model_decisions(records, boards, network_probabilities(boards, evaluator, plies), exact)
    five = network_probabilities(boards, evaluator, 0)
    return [
        lookahead_cube_decision(evaluator, board, state_of(record), plies, five=p)
        for record, board, p in zip(records, boards, five)
    ]


def doubler_cost(record: dict, doubles: bool) -> float:
    """GNU Backgammon's equity lost by the side on roll's choice (0 if right)."""
    if record["decision"] in NO_CUBE_ACCESS:
        return 0.0
    doubled = min(record["double_take"], record["double_pass"])
    chosen = doubled if doubles else record["no_double"]
    return max(record["no_double"], doubled) - chosen


def taker_cost(record: dict, takes: bool) -> float:
    """GNU Backgammon's equity lost by the doubled side's answer (0 if right)."""
    chosen = record["double_take"] if takes else record["double_pass"]
    return chosen - min(record["double_take"], record["double_pass"])


def verdicts(record: dict, decision: CubeDecision) -> tuple[bool, bool]:
    """Whether ``decision`` agrees with GNU Backgammon's on the double and on the take (an optional double, no
    double and the double within ``TIE``, or a take and a pass within ``TIE``, accepts either answer)."""
    doubled = min(record["double_take"], record["double_pass"])
    double_ok = (
        record["decision"].startswith("OPTIONAL_")
        or abs(record["no_double"] - doubled) <= TIE
        or decision.should_double == record["should_double"]
    )
    take_ok = abs(record["double_take"] - record["double_pass"]) <= TIE or decision.should_take == record["should_take"]
    return double_ok, take_ok


def run(records: list[dict], decisions: Sequence[CubeDecision]) -> dict:
    """Agreement and costs of the bot's ``decisions``, one per record."""
    tally: Counter = Counter()
    double_cost = take_cost = 0.0
    misses = []
    for record, decision in zip(records, decisions):
        double_ok, take_ok = verdicts(record, decision)
        access = record["decision"] not in NO_CUBE_ACCESS
        tally["double_ok"] += double_ok
        tally["access"] += access
        tally["access_ok"] += access and double_ok
        tally["take_ok"] += take_ok
        double_cost += doubler_cost(record, decision.should_double)
        take_cost += taker_cost(record, decision.should_take)
        if not (double_ok and take_ok):
            misses.append((record, decision))
    n = len(records)
    return {
        "n": n,
        "double": tally["double_ok"] / n,
        "double_misses": n - tally["double_ok"],
        "double_access": tally["access_ok"] / max(tally["access"], 1),
        "access": tally["access"],
        "take": tally["take_ok"] / n,
        "take_misses": n - tally["take_ok"],
        "double_cost": double_cost / n,
        "take_cost": take_cost / n,
        "misses": misses,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--probabilities",
        choices=("network", "gnubg", "rollout"),
        default="network",
        help="network: the project's checkpoint; gnubg: GNU Backgammon's net via gnubg-nn; rollout: "
        "the model on the checkpoint's own truncated rollouts (a measure of better probabilities)",
    )
    parser.add_argument("--rollout-trials", type=int, default=36, help="with --probabilities rollout: games a position")
    parser.add_argument(
        "--rollout-truncate",
        type=int,
        default=10,
        help="with --probabilities rollout: plies before the network's value (0: to the end)",
    )
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument(
        "--plies", type=int, choices=(0, 1, 2), default=0, help="search depth of the decisions (default 0)"
    )
    parser.add_argument(
        "--no-lookahead",
        action="store_true",
        help="at 1-ply and deeper, the model on the network's searched cubeless probabilities "
        "instead of the cubeful lookahead",
    )
    parser.add_argument("--show", type=int, default=0, help="print this many disagreements")
    parser.add_argument(
        "--fixture",
        type=Path,
        default=OFFICIAL_FIXTURE,
        help="the cube fixture (default: fixtures/cube.jsonl, the bar's; benchmarks/cube_fixture.py "
        "writes larger ones)",
    )
    args = parser.parse_args()

    records = load_records(args.fixture)
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    classes = classify(boards)
    if args.probabilities == "gnubg":
        try:
            probs = gnubg_probabilities(boards, args.plies)
        except ImportError:
            print("gnubg mode needs the PyPI package gnubg-nn (pip install gnubg-nn)", file=sys.stderr)
            return 2
        decisions = model_decisions(records, boards, probs, [None] * len(boards))
        report(
            records,
            decisions,
            f"GNU Backgammon's net, {args.plies}-ply cubeless (gnubg-nn) -- checks the cube arithmetic only",
            args.show,
        )
        report_classes(records, decisions, classes)
        return 0
    try:
        evaluators = network_evaluators(args.checkpoint)
    except (ImportError, OSError, ValueError) as error:
        print(f"no trained network ({error}); train one, or run with --probabilities gnubg", file=sys.stderr)
        return 2
    if args.probabilities == "rollout":
        bot = evaluators["after"] if "after" in evaluators else evaluators["bot"]
        exact = [exact_cube(bot, board, state_of(record)) for board, record in zip(boards, records)]
        live = np.flatnonzero([known is None for known in exact])
        probs = network_probabilities(boards, bot, 0)
        probs[live] = rollout_probabilities(bot, boards[live], args.rollout_trials, args.rollout_truncate)[0]
        decisions = model_decisions(records, boards, probs, exact)
        report(
            records,
            decisions,
            f"the model on {args.checkpoint}'s rollouts ({args.rollout_trials} games, variance-reduced, "
            f"{args.rollout_truncate or 'no'} truncation; exact values where known)",
            args.show,
        )
        report_classes(records, decisions, classes)
        return 0
    how = "cubeless probabilities and the model" if args.no_lookahead or not args.plies else "cubeful lookahead"
    baseline_ms = None
    if importlib.util.find_spec("gnubg_nn"):
        start = time.perf_counter()
        gnubg_probabilities(boards, args.plies)
        baseline_ms = 1000 * (time.perf_counter() - start) / len(boards)
    for name, evaluator in evaluators.items():
        start = time.perf_counter()
        decisions = network_decisions(records, boards, evaluator, args.plies, not args.no_lookahead)
        ms = 1000 * (time.perf_counter() - start) / len(boards)
        report(
            records,
            decisions,
            f"the project's network at {args.plies}-ply ({how}), {args.checkpoint} ({name})",
            args.show,
        )
        baseline = (
            (
                f"; gnubg-nn's {args.plies}-ply cubeless evaluation of a position {baseline_ms:.2f} ms, "
                f"ratio {ms / baseline_ms:.1f}"
            )
            if baseline_ms
            else ""
        )
        print(f"  time: {ms:.2f} ms a decision{baseline}")
        report_classes(records, decisions, classes)
    return 0


def report(records: list[dict], decisions: Sequence[CubeDecision], source: str, show: int) -> None:
    """Print the agreement and cost of ``decisions`` (and ``show`` disagreements)."""
    result = run(records, decisions)
    print(f"cube decisions vs GNU Backgammon 2-ply, {result['n']} positions; probabilities: {source}")
    print(
        f"  should_double agreement: {result['double']:.1%}, {result['double_misses']} misses "
        f"({result['double_access']:.1%} of the {result['access']} positions where gnubg lets the side double)"
    )
    print(f"  should_take agreement:   {result['take']:.1%}, {result['take_misses']} misses")
    print(
        f"  mean equity cost (gnubg's equities, pass = 1): doubler {result['double_cost']:.4f}, "
        f"taker {result['take_cost']:.4f}"
    )
    for record, decision in result["misses"][:show]:
        print(
            f"  {record['position_id']} len {record['match_length']} score {record['score']} "
            f"cube {record['cube']} {record['owner']}{' crawford' if record['crawford'] else ''}: "
            f"gnubg {record['decision']} nd {record['no_double']:+.3f} dt {record['double_take']:+.3f} | "
            f"bot {decision.verdict.value} nd {decision.no_double:+.3f} dt {decision.double_take:+.3f}"
        )


def report_classes(records: list[dict], decisions: Sequence[CubeDecision], classes: np.ndarray) -> None:
    """Print the agreement and take misses of ``decisions`` in each position class."""
    cells = []
    for kind in CLASS_COLUMNS:
        rows = np.flatnonzero(classes == kind).tolist()
        if rows:
            part = run([records[i] for i in rows], [decisions[i] for i in rows])
            cells.append(
                f"{kind.label} ({len(rows)}) {part['double']:.1%} / {part['take']:.1%} ({part['take_misses']})"
            )
    print(f"  by class, double / take agreement (take misses): {'; '.join(cells)}")


if __name__ == "__main__":
    sys.exit(main())
