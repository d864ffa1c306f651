"""Strength of a long nardy network: points per game against a random player and the heuristic player.

Cubeless money games in pairs with the same dice and sides swapped (``training.evaluate``);
oin 1 point, mars 2. Each figure is printed with its 95% confidence interval over pairs.
With ``--record``, the figures and the command go into the ``results`` of the checkpoint's
``.json`` (the one ``python -m training ship`` wrote beside it).

    python -m benchmarks.long_nardy_strength [--checkpoint checkpoints/long_nardy.npz] [--games 400] [--plies 0]
        [--record]
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

import numpy as np

from bot.evaluation.evaluator import Evaluator, RandomEvaluator
from bot.evaluation.long_nardy_heuristic import HeuristicPlayer
from bot.facade import Bot, default_long_nardy_checkpoint
from bot.search.nply import SearchEvaluator, candidates_filter
from training.evaluate import evaluate
from training.ship import write_json_atomically


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--checkpoint", type=Path, default=default_long_nardy_checkpoint(), help="long nardy network (.npz or .pt)"
    )
    parser.add_argument("--games", type=int, default=400, help="games against each opponent (even)")
    parser.add_argument(
        "--plies", type=int, default=0, help="the network's search depth (1: its best 8 plays at 1-ply)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the dice")
    parser.add_argument("--record", action="store_true", help="write the figures into the checkpoint's .json")
    args = parser.parse_args()

    network = Bot.load(args.checkpoint, variant="long_nardy").evaluator
    player: Evaluator = network if args.plies == 0 else SearchEvaluator(network, args.plies, candidates_filter(8))
    opponents: dict[str, Evaluator] = {
        "random": RandomEvaluator(np.random.default_rng([args.seed, 1]), network.game),
        "heuristic": HeuristicPlayer(network.game),
    }
    results = {}
    for name, opponent in opponents.items():
        started = time.perf_counter()
        result = evaluate(player, opponent, args.games, args.seed)
        print(
            f"{args.checkpoint} ({args.plies}-ply) vs {name}: {result.summary()}  "
            f"[{time.perf_counter() - started:.0f} s]"
        )
        results[f"long_nardy_{args.plies}ply_vs_{name}"] = {
            "games": result.games,
            "ppg": round(result.ppg, 4),
            "ppg_95": round(result.ppg_interval, 4),
            "win_rate": round(result.win_rate, 4),
            "measured_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": " ".join(["python -m benchmarks.long_nardy_strength", *sys.argv[1:]]),
        }
    if args.record:
        path = args.checkpoint.with_suffix(".json")
        metadata = json.loads(path.read_text()) if path.is_file() else {}
        metadata.setdefault("results", {}).update(results)
        write_json_atomically(path, metadata)
        print(f"recorded in {path}")


if __name__ == "__main__":
    main()
