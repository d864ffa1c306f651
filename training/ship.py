"""Turn a training checkpoint into the bot that ships: weights and config only, plus metadata.

The shipped ``.pt`` file drops the optimizer state (a third of the size and of no use
to a player); beside it goes the numpy export (``.npz``) the bot serves from without
torch. Its metadata, a JSON file beside it, records where it came from:
the training config, the number of self-play games, the wall time and machine;
``benchmarks/strength.py --record`` adds the measured strength to it.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
from pathlib import Path
from typing import Any

from bot.checkpoint import atomic_write, export_numpy, load_checkpoint, save_checkpoint
from training.network import network_from_payload


def write_json_atomically(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as indented JSON to ``path`` through a temporary file and a rename."""
    with atomic_write(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def ship(source: Path, target: Path, wall_seconds: float | None = None) -> dict[str, Any]:
    """Write ``source``'s network to ``target``, its numpy export and its metadata beside it (.npz, .json)."""
    payload = load_checkpoint(source)
    network = network_from_payload(payload, source=f"checkpoint {str(source)!r}")
    training = payload.get("training") or {}
    save_checkpoint(target, network, training={"games": training.get("games")}, config=payload.get("config"))
    export_numpy(target.with_suffix(".npz"), network.config, network.state_dict())
    metadata = {
        "checkpoint": target.name,
        "numpy_export": target.with_suffix(".npz").name,
        "shipped_from": str(source),
        "shipped_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "self_play_games": training.get("games"),
        "training_wall_seconds": wall_seconds if wall_seconds is not None else training.get("wall_seconds"),
        "machine": {"platform": platform.platform(), "processor": platform.machine(), "cpu_count": os.cpu_count()},
        "network": payload["network_config"],
        "training_config": payload.get("config"),
        "results": {},
    }
    write_json_atomically(target.with_suffix(".json"), metadata)
    return metadata
