"""Move pruning for rollouts: a small network ranks a roll's plays, the full networks score the best few.

Scoring every legal play with the full networks is most of a rollout trial's cost, and most
plays are clearly worse than the best. GNU Backgammon ranks them with small pruning networks
first; so does this: the pruner (a network of a few dozen hidden units, fitted to the bot's own
evaluations by ``training.pruner``) keeps each position's ``keep`` best plays, and only those
go to the full evaluator. It ranks the plays of positions in contact only: a race has few plays,
often exact ones (bear-offs), and its rollouts are short.

A pruner belongs to the networks it was fitted to: it lives beside the bot's file
(``default.pt`` / ``default.npz`` -> ``default.pruner.npz`` and ``default.pruner.json``),
whose JSON records the networks' checksums; ``bot.evaluation.checkpoint.load_evaluator`` attaches it
only to those networks.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Mapping

import numpy as np

from bot.evaluation.encoding import is_race
from bot.evaluation.evaluator import group_starts
from bot.evaluation.network import Network
from bot.equity.outcomes import equity


class Pruner:
    """Keeps each position's ``keep`` best plays by a small network's equity (mover's view).

    A window below the best (as GNU Backgammon's move filters have) kept no fewer plays for the same
    loss in ``training.pruner.ranking_report``'s measure, so there is none.
    """

    def __init__(self, network: Network, keep: int = 5) -> None:
        if keep < 1:
            raise ValueError(f"pruner keep {keep!r}: expected 1 or more plays")
        self.network, self.keep = network, keep

    def equities(self, afterstates: np.ndarray) -> np.ndarray:
        """(N,) the pruner's cubeless equity of afterstates (N, 26) for their mover (mover's view)."""
        return -equity(self.network.probabilities(-afterstates[:, ::-1]))  # engine.flip: the opponent on roll

    def kept(self, equities: np.ndarray, parent: np.ndarray, count: int) -> np.ndarray:
        """(N,) whether each play is kept, by ``equities`` (``self.equities`` of afterstates grouped by
        ``parent`` of ``count`` positions; equal equities either way)."""
        order = np.argsort(parent * 8.0 - equities)  # by parent, best first (an equity is within +-3)
        starts, _ = group_starts(parent, count)
        rank = np.arange(len(parent)) - starts[parent[order]]
        kept = np.empty(len(parent), dtype=bool)
        kept[order] = rank < self.keep
        return kept


def in_contact(boards: np.ndarray) -> np.ndarray:
    """(B,) whether boards (B, 26) are positions in contact, where the pruner ranks plays (races keep them all)."""
    return ~is_race(boards)


def fingerprint(checksums: Mapping[str, str]) -> str:
    """One SHA-256 over the networks' weight checksums by class label: what a pruner was fitted to."""
    text = json.dumps(dict(sorted(checksums.items())), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def pruner_paths(bot: Path) -> tuple[Path, Path]:
    """The pruner's network (.npz) and record (.json) beside the bot file ``bot`` (shared by its .pt and .npz)."""
    stem = bot.with_suffix("")
    return stem.with_name(stem.name + ".pruner.npz"), stem.with_name(stem.name + ".pruner.json")
