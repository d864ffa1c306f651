"""Fit the rollouts' move pruner: a small network distilled from the bot's own evaluations of its own plays.

Rollout trials play at 0-ply, and scoring every legal play with the full networks is most of a
trial's cost. ``bot.evaluation.prune.Pruner`` ranks a roll's plays with a small network first and leaves
only the best few to the full ones (GNU Backgammon prunes with small networks the same way).
The pruner is fitted here: positions in contact of the bot's own self-play games
(``distill.sample_positions``), one random roll each, every play of it, and as targets the bot's
own 0-ply probabilities of those plays; nothing else enters. It ranks well enough when the bot's
best play is among the few it keeps (``ranking_report`` measures that on held-out positions).

    python -m training pruner --checkpoint checkpoints/default.npz   # writes default.pruner.npz and .json
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from bot.evaluation.checkpoint import FORMAT, export_numpy, load_class_payloads, load_evaluator, weights_checksum
from bot.evaluation.evaluator import group_starts
from bot.evaluation.network import Network, NetworkConfig
from bot.equity.outcomes import equity
from bot.evaluation.prune import Pruner, fingerprint, in_contact, pruner_paths
from bot.evaluation.storage import atomic_write
from engine import afterstates, flip
from training.config import PrunerSettings
from training.distill import DistillConfig, fit, sample_positions


def sample_plays(checkpoint: str, games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(plays (N, 26) in the side on roll's view after each play, parent (N,), the bot's five (N, 5) of them).

    One random roll of each position in contact (``bot.evaluation.prune.in_contact``: the pruner ranks those) of
    ``games`` self-play games, where the roll has two plays or more.
    """
    evaluator = load_evaluator(checkpoint)
    rng = np.random.default_rng([seed, 7])
    boards = sample_positions(evaluator, games, 0.05, 512, rng)
    boards = boards[in_contact(boards)]
    children, parent = afterstates(boards, rng.integers(1, 7, size=(len(boards), 2)))
    sizes = np.bincount(parent, minlength=len(boards))
    keep = (sizes >= 2)[parent]
    seen = flip(children[keep])
    _, parent = np.unique(parent[keep], return_inverse=True)
    return seen, parent, np.asarray(evaluator.probabilities(seen), dtype=np.float32)


def ranking_report(pruner: Pruner, plays: np.ndarray, parent: np.ndarray, five: np.ndarray) -> dict[str, float]:
    """How well ``pruner`` keeps the bot's best play: the share of positions where it is kept, and the
    mean equity lost (the bot's best minus the bot's best of the kept plays), over positions."""
    count = int(parent[-1]) + 1
    truth = -equity(five.astype(np.float64))  # the mover's equity of each play
    kept = pruner.kept(pruner.equities(flip(plays)), parent, count)
    best = np.maximum.reduceat(truth, group_starts(parent, count)[0])
    best_kept = np.full(count, -np.inf)
    np.maximum.at(best_kept, parent[kept], truth[kept])
    return {
        "positions": count,
        "plays": len(plays),
        "kept_plays": int(kept.sum()),
        "best_kept": float(np.mean(best_kept >= best)),
        "equity_lost": float(np.mean(best - best_kept)),
    }


def fit_pruner(
    checkpoint: str, settings: PrunerSettings = PrunerSettings(), encoding: str = "extended"
) -> dict[str, Any]:
    """Fit a pruner of ``settings.hidden`` units to the bot ``checkpoint``'s own evaluations and write it beside
    the bot (``bot.evaluation.prune.pruner_paths``); its report, also written there."""
    import torch

    from training.torch_network import ValueNetwork

    games, hidden, epochs, keep, seed = settings.games, settings.hidden, settings.epochs, settings.keep, settings.seed

    plays, parent, five = sample_plays(checkpoint, games, seed)
    torch.manual_seed(seed)  # the initial weights: the same command fits the same pruner
    count = int(parent[-1]) + 1
    held = parent >= int(count * 0.9)  # the last tenth of the positions, all their plays, held out
    config = NetworkConfig(encoding=encoding, hidden=(hidden,), activation="sigmoid")
    weights = ValueNetwork(config).state_dict()
    payload = {
        "format": FORMAT,
        "network_config": config.to_dict(),
        "weights": weights,
        "weights_sha256": weights_checksum(weights),
    }
    fit_settings = DistillConfig(
        checkpoint=checkpoint, epochs=epochs, learning_rate=3e-3, batch_size=1024, holdout=0.0, seed=seed
    )
    network, report = fit(payload, plays[~held], five[~held], fit_settings, log=False)
    state = {name: value.numpy() for name, value in network.state_dict().items()}
    pruner = Pruner(Network(config, state), keep)
    report["ranking"] = ranking_report(pruner, plays[held], parent[held] - parent[held][0], five[held])
    network_path, record_path = pruner_paths(Path(checkpoint))
    export_numpy(network_path, config, state)
    payloads, _, _ = load_class_payloads(checkpoint)
    record = {
        "fitted_to": fingerprint({label: p["weights_sha256"] for label, p in payloads.items()}),
        "keep": keep,
        "network": config.to_dict(),
        "games": games,
        "epochs": epochs,
        "seed": seed,
        "command": f"python -m training pruner --checkpoint {checkpoint} --set games={games} --set hidden={hidden} "
        f"--set epochs={epochs} --set keep={keep} --set seed={seed}",
        "ranking": report["ranking"],
    }
    with atomic_write(record_path, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    return report
