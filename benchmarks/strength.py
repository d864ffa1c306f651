"""How strong a checkpoint is: points per game against pubeval and move-choice error against gnubg.

1. Cubeless money games against Tesauro's pubeval (gammons and backgammons
   count), each dice sequence played twice with the sides swapped; points per
   game with a 95% confidence interval.
2. Error rate on ``fixtures/move_choice.jsonl`` (300 positions with GNU
   Backgammon's 2-ply equity of the best plays): mean over positions of
   (best 2-ply equity - 2-ply equity of the bot's play) x 1000, at 0-ply and
   1-ply, with pubeval's figure measured in the same run as the baseline. A
   play outside gnubg's top 8 has no stored 2-ply equity: it is computed with
   the PyPI package ``gnubg-nn`` when installed, else its 0-ply equity stands in.
   Also by position class of the fixture position (contact, late contact, crashed, race, bear-off:
   ``bot.evaluation.classes.classify``), for the bot without and with its exact bear-off class
   ("before" plays bear-offs with its race network), in the same run.
3. Speed: the median wall time of one move choice for a single position (the plays
   generated, ranked 0-ply, or 1-ply over the best 8 as ``Bot.rank_plays`` does; the
   best of 3 runs of each position), over the fixture's positions, before and after the bear-off class; the bear-off
   positions' median beside it.

4. Head to head against GNU Backgammon 0-ply (gnubg-nn's evaluator in-process, the
   bench extra): cubeless money games with duplicate dice, the bot at 0-ply (and at
   the depths ``--gnubg-plies`` names), points per game with a 95% confidence interval.
   The same against bgsage's static evaluation (``--bgsage-games``; bgsage calls it
   "1ply", its production model), a second yardstick. Where gnubg-nn and bgsage are
   installed, their own move-choice errors on the fixture at 0-ply and 1-ply (every play
   scored at that depth) are printed beside the bot's, as references.

    python -m benchmarks.strength [--checkpoint checkpoints/default.pt] [--games 10000]
        [--gnubg-games 10000] [--gnubg-plies 0 1] [--bgsage-games 10000] [--record]

``--games 0`` skips the games against pubeval, ``--gnubg-games 0`` those against gnubg.

``--record`` writes the figures into the checkpoint's metadata file (same name, .json), beside the figures
other measures put there.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from bot.evaluation.checkpoint import load_evaluator
from bot.evaluation.classes import ClassEvaluator, PositionClass, classify
from bot.evaluation.evaluator import Evaluator, ProbabilityEvaluator, choose_afterstates
from bot.facade import search_filters
from bot.equity.outcomes import equity
from bot.evaluation.pubeval import Pubeval
from bot.search.nply import SearchEvaluator, rank_afterstates
from engine import afterstates, decode_position_id, encode_position_id, flip
from training.evaluate import evaluate

from benchmarks.common import FIXTURES, ROOT, gnubg_board, load_records
from benchmarks.cube import CLASS_COLUMNS
from training.ship import write_json_atomically

MOVE_FIXTURE = FIXTURES / "move_choice.jsonl"


def gnubg_two_ply(position_id: str) -> float | None:
    """GNU Backgammon's 2-ply cubeless equity for the mover of an afterstate (opponent on roll)."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    opponent_five = np.array(gnubg_nn.probabilities(gnubg_nn.board_from_position_id(position_id), 2))
    return -float(equity(opponent_five))


def error_rate(evaluator: Evaluator, records: list[dict]) -> tuple[float, int]:
    """(mean equity lost x 1000, number of plays outside gnubg's top 8) of the evaluator's choices."""
    losses, outside = move_losses(evaluator, records)
    return 1000 * float(np.mean(losses)), outside


def fixture_classes(records: list[dict]) -> np.ndarray:
    """(N,) ``PositionClass`` of each fixture position (side on roll's view, before its move)."""
    return classify(np.array([decode_position_id(r["position_id"]) for r in records]))


def move_losses(evaluator: Evaluator, records: list[dict]) -> tuple[np.ndarray, int]:
    """((N,) equity lost by the evaluator's choice in each record, plays outside gnubg's top 8)."""
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    dice = np.array([r["dice"] for r in records])
    chosen = choose_afterstates(evaluator, boards, dice)
    losses, outside = [], 0
    for record, afterstate in zip(records, chosen):
        plays = {p["afterstate"]: p for p in record["plays"]}
        best = max(p["eq2"] for p in record["plays"] if p["eq2"] is not None)
        key = encode_position_id(flip(afterstate))
        value = plays[key]["eq2"]
        if value is None:
            outside += 1
            value = gnubg_two_ply(key)
            if value is None:
                value = plays[key]["eq0"]
        losses.append(best - value)
    return np.array(losses), outside


def decision_ms(evaluator: ProbabilityEvaluator, records: list[dict], plies: int) -> np.ndarray:
    """Wall time (ms) of one move choice per record: generate the plays, rank them ``plies`` deep as the bot does."""
    times = []
    for record in records:
        board = decode_position_id(record["position_id"])[None]
        start = time.perf_counter()
        children, _ = afterstates(board, np.array([record["dice"]]))
        rank_afterstates(evaluator, children, plies, filters=search_filters())
        times.append(1000 * (time.perf_counter() - start))
    return np.array(times)


class GnubgEvaluator(ProbabilityEvaluator):
    """GNU Backgammon ``plies`` deep as an opponent or reference (gnubg-nn's evaluator, in-process: its nets,
    race and bear-off classes).

    Scoring every afterstate by gnubg's own equity plays gnubg's best move at that depth.
    """

    def __init__(self, plies: int = 0) -> None:
        self.plies = plies

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        import gnubg_nn

        return np.array([gnubg_nn.probabilities(gnubg_board(b), self.plies) for b in boards], dtype=np.float32)


class BgsageEvaluator(ProbabilityEvaluator):
    """bgsage as an opponent or reference, in-process: ``level`` "1ply" is its static evaluation (its
    production model; our 0-ply), "2ply" that searched one ply (our 1-ply)."""

    def __init__(self, level: str = "1ply") -> None:
        self.level = level

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        import bgsage

        positions = [{"board": bgsage_board(b), "cube_value": 1, "cube_owner": "centered"} for b in boards]
        evaluations = bgsage.batch_evaluate(positions, self.level, n_threads=1)
        return np.array([e.probs.to_list() for e in evaluations], dtype=np.float32)


def bgsage_board(board: np.ndarray) -> list[int]:
    """Our board (side on roll's view) as bgsage's: the same points, the opponent's bar count positive."""
    cells = [int(v) for v in board]
    cells[0] = -cells[0]
    return cells


def against(
    bot: ProbabilityEvaluator, opponent: ProbabilityEvaluator, name: str, games: int, plies: int, seed: int
) -> dict:
    """Cubeless money games, duplicate dice, the bot ``plies`` deep against ``opponent``; printed and returned."""
    start = time.perf_counter()
    result = evaluate(served_search(bot, plies), opponent, games, seed=seed)
    print(f"against {name}, bot {plies}-ply: {result.summary()}  ({time.perf_counter() - start:.0f} s)")
    return {
        "games": result.games,
        "seed": seed,
        "points_per_game": round(result.ppg, 4),
        "ppg_95ci_half_width": round(result.ppg_interval, 4),
        "win_rate": round(result.win_rate, 4),
    }


def served_search(evaluator: ProbabilityEvaluator, plies: int) -> Evaluator:
    """Move choice ``plies`` deep with the candidate filters the doors use (``bot.facade.search_filters``)."""
    return evaluator if plies == 0 else SearchEvaluator(evaluator, plies, search_filters(game=evaluator.game))


def by_class(evaluators: Mapping[str, ProbabilityEvaluator], records: list[dict]) -> dict[str, dict]:
    """Move-choice error x1000 overall and by class, at 0-ply and 1-ply, of each evaluator; printed as a table."""
    classes = fixture_classes(records)
    counts = ", ".join(f"{kind.label} {int((classes == kind).sum())}" for kind in CLASS_COLUMNS)
    print(f"move-choice error by class (x1000 equity/move; positions: {counts})")
    print(f"  {'':22s} {'all':>7s} " + " ".join(f"{kind.label:>12s}" for kind in CLASS_COLUMNS))
    results: dict[str, dict] = {}
    for plies in (0, 1):
        for name, evaluator in evaluators.items():
            losses, _ = move_losses(served_search(evaluator, plies), records)
            row = {"all": 1000 * float(losses.mean())}
            row.update({kind.label: 1000 * float(losses[classes == kind].mean()) for kind in CLASS_COLUMNS})
            print(
                f"  {f'{plies}-ply, {name}':22s} {row['all']:7.2f} "
                + " ".join(f"{row[kind.label]:12.2f}" for kind in CLASS_COLUMNS)
            )
            results[f"move_choice_error_by_class_{plies}ply_{name.replace(' ', '_')}"] = {
                key: round(value, 2) for key, value in row.items()
            }
    return results


REPEATS = 3


def speed(evaluators: Mapping[str, ProbabilityEvaluator], records: list[dict]) -> dict[str, dict]:
    """Median ms of a single-position move choice at 0-ply and 1-ply, all positions and bear-offs; printed.

    The evaluators take turns position by position, so a busy machine slows them alike, and each
    position's time is the best of ``REPEATS`` runs (a shared machine's stalls then drop out).
    """
    bearoffs = fixture_classes(records) == PositionClass.BEAROFF
    results: dict[str, dict] = {}
    for evaluator in evaluators.values():
        decision_ms(evaluator, records[:20], 1)  # warm up (and read the bear-off databases)
    for plies in (0, 1):
        times: dict[str, list[float]] = {name: [] for name in evaluators}
        for record in records:
            for name, evaluator in evaluators.items():
                times[name].append(min(decision_ms(evaluator, [record], plies)[0] for _ in range(REPEATS)))
        for name, measured in times.items():
            ms = np.array(measured)
            print(
                f"single-position move choice, {plies}-ply, {name:8s}: median {np.median(ms):6.2f} ms "
                f"(bear-offs {np.median(ms[bearoffs]):6.2f} ms; {len(ms)} positions)"
            )
            results[f"move_choice_ms_{plies}ply_{name.replace(' ', '_')}"] = {
                "median_ms": round(float(np.median(ms)), 3),
                "bearoff_median_ms": round(float(np.median(ms[bearoffs])), 3),
                "positions": len(ms),
            }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "default.pt"))
    parser.add_argument("--games", type=int, default=10_000, help="games against pubeval (even)")
    parser.add_argument(
        "--gnubg-games",
        type=int,
        default=10_000,
        help="games against gnubg 0-ply (even; needs gnubg-nn, the bench extra; 0 = skip)",
    )
    parser.add_argument(
        "--gnubg-plies",
        type=int,
        nargs="+",
        default=[0],
        choices=(0, 1, 2),
        help="the bot's depths against gnubg (default 0; 1-ply takes about 15x longer)",
    )
    parser.add_argument(
        "--bgsage-games",
        type=int,
        default=0,
        help="games against bgsage's static evaluation at 0-ply (even; needs bgsage, the bench extra)",
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--record", action="store_true", help="store the figures in the checkpoint's .json metadata")
    args = parser.parse_args()
    results: dict[str, dict] = {}

    network = load_evaluator(args.checkpoint)  # the bot as it plays: its classes, bear-offs exact
    # The same networks without the exact bear-off class: bear-offs played by the race network.
    before = ClassEvaluator(network.networks, bearoff=None)
    pubeval = Pubeval()
    print(
        f"checkpoint: {args.checkpoint} (networks: {', '.join(network.networks)}; bear-offs: "
        f"{'databases' if network.bearoff is not None else 'network'})"
    )

    if args.games:
        start = time.perf_counter()
        result = evaluate(network, pubeval, args.games, seed=args.seed)
        print(f"against pubeval, 0-ply: {result.summary()}  ({time.perf_counter() - start:.0f} s)")
        results["vs_pubeval_0ply"] = {
            "games": result.games,
            "seed": args.seed,
            "points_per_game": round(result.ppg, 4),
            "ppg_95ci_half_width": round(result.ppg_interval, 4),
            "win_rate": round(result.win_rate, 4),
        }

    has_gnubg, has_bgsage = (importlib.util.find_spec(name) is not None for name in ("gnubg_nn", "bgsage"))
    if args.gnubg_games and has_gnubg:
        for plies in args.gnubg_plies:
            results[f"vs_gnubg_0ply_bot_{plies}ply"] = against(
                network, GnubgEvaluator(), "gnubg 0-ply", args.gnubg_games, plies, args.seed
            )
    elif args.gnubg_games:
        print("against gnubg 0-ply: skipped (pip install -e '.[bench]' brings gnubg-nn)")
    if args.bgsage_games and has_bgsage:
        results["vs_bgsage_0ply_bot_0ply"] = against(
            network, BgsageEvaluator(), "bgsage 0-ply", args.bgsage_games, 0, args.seed
        )
    elif args.bgsage_games:
        print("against bgsage 0-ply: skipped (pip install -e '.[bench]' brings bgsage)")

    records = load_records(MOVE_FIXTURE)
    references: list[tuple[str, str, ProbabilityEvaluator]] = (
        [(f"gnubg {plies}-ply (reference)", f"gnubg_{plies}ply", GnubgEvaluator(plies)) for plies in (0, 1)]
        if has_gnubg
        else []
    )
    references += (
        [
            (f"bgsage {plies}-ply (reference)", f"bgsage_{plies}ply", BgsageEvaluator(f"{plies + 1}ply"))
            for plies in (0, 1)
        ]
        if has_bgsage
        else []
    )
    for name, key, evaluator in (
        ("pubeval (baseline)", "pubeval", pubeval),
        *references,
        ("bot 0-ply", "bot_0ply", network),
        ("bot 1-ply", "bot_1ply", served_search(network, 1)),
    ):
        start = time.perf_counter()
        rate, outside = error_rate(evaluator, records)
        print(
            f"move-choice error, {name:24s}: {rate:6.1f} (x1000 equity/move; "
            f"{outside} plays outside gnubg's top 8; {time.perf_counter() - start:.1f} s)"
        )
        results[f"move_choice_error_{key}"] = {"error_x1000": round(rate, 2), "positions": len(records)}
    pair = {"before": before, "after": network} if network.bearoff is not None else {"bot": network}
    results.update(by_class(pair, records))
    results.update(speed(pair, records))

    if args.record:
        path = Path(args.checkpoint).with_suffix(".json")
        metadata = json.loads(path.read_text()) if path.exists() else {}
        # Other measures' figures (the speed gate's, the cube's) stay; this run's replace their own keys.
        command = "python -m benchmarks.strength --record"
        metadata["results"] = {**metadata.get("results", {}), "command": command, **results}
        write_json_atomically(path, metadata)
        print(f"recorded in {path}")


if __name__ == "__main__":
    main()
