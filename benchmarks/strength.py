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

    python benchmarks/strength.py [--checkpoint checkpoints/default.pt] [--games 10000] [--record]

``--record`` writes the figures into the checkpoint's metadata file (same name, .json).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from bot.checkpoint import load_network
from bot.evaluator import Evaluator, NetworkEvaluator, OnePlyEvaluator, choose_afterstates
from bot.outcomes import equity
from bot.pubeval import Pubeval
from engine import decode_position_id, encode_position_id, flip
from training.evaluate import evaluate
from training.ship import write_json_atomically

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("NARDY_SHARED", ROOT.parent / "shared"))


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
    return 1000 * float(np.mean(losses)), outside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "default.pt"))
    parser.add_argument("--games", type=int, default=10_000, help="games against pubeval (even)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--record", action="store_true", help="store the figures in the checkpoint's .json metadata")
    args = parser.parse_args()
    results: dict[str, dict] = {}

    network = NetworkEvaluator(load_network(args.checkpoint))
    pubeval = Pubeval()
    print(f"checkpoint: {args.checkpoint}")

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

    records = [json.loads(line) for line in open(SHARED / "fixtures" / "move_choice.jsonl")]
    for name, key, evaluator in (
        ("pubeval (baseline)", "pubeval", pubeval),
        ("bot 0-ply", "bot_0ply", network),
        ("bot 1-ply", "bot_1ply", OnePlyEvaluator(network)),
    ):
        start = time.perf_counter()
        rate, outside = error_rate(evaluator, records)
        print(
            f"move-choice error, {name:18s}: {rate:6.1f} (x1000 equity/move; "
            f"{outside} plays outside gnubg's top 8; {time.perf_counter() - start:.1f} s)"
        )
        results[f"move_choice_error_{key}"] = {"error_x1000": round(rate, 2), "positions": len(records)}

    if args.record:
        path = Path(args.checkpoint).with_suffix(".json")
        metadata = json.loads(path.read_text()) if path.exists() else {}
        metadata["results"] = {"command": "python benchmarks/strength.py --record", **results}
        write_json_atomically(path, metadata)
        print(f"recorded in {path}")


if __name__ == "__main__":
    main()
