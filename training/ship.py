"""Turn a training checkpoint into the bot that ships: weights and config only, plus metadata.

The shipped ``.pt`` file drops the optimizer state (a third of the size and of no use
to a player); beside it goes the numpy export (``.npz``) the bot serves from without
torch. Its metadata, a JSON file beside it, records where it came from:
the training config, the number of self-play games, the wall time and machine;
``benchmarks/strength.py --record`` adds the measured strength to it.

``ship_classes`` combines a network per position class (``--contact A.pt --race B.pt --crashed C.pt
--late-contact D.pt``) into one multi-network file (``bot.checkpoint``'s class format), bear-offs exact,
and the bot's learned cube correction (``--cube-correction``) if given.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
from pathlib import Path
from typing import Any

from bot.checkpoint import (
    export_class_numpy,
    export_numpy,
    load_checkpoint,
    load_class_payload,
    save_checkpoint,
    save_class_checkpoint,
)
from bot.classes import NETWORK_CLASSES
from bot.cube_correction import CubeCorrection
from bot.storage import atomic_write
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


def ship_classes(sources: dict[str, Path], target: Path, wall_seconds: float | None = None,
                 cube_correction: CubeCorrection | None = None) -> dict[str, Any]:
    """Write one network per class (``{"contact": run_a.pt, "race": run_b.pt}``) to ``target`` (.pt), its .npz and .json.

    Each source is a training checkpoint, or a shipped bot whose network for that class is taken
    (to replace one network of it); the shipped file holds every network with its class, encoding
    and config, and plays bear-offs from the databases; with ``cube_correction``, the bot's learned
    correction to its 0-ply cube decisions too.
    """
    if "contact" not in sources:
        raise ValueError("ship: a multi-network bot needs a contact network (--contact)")
    payloads = {label: load_class_payload(path, label, fallback=False) for label, path in sources.items()}
    networks = {label: network_from_payload(payload, source=f"checkpoint {str(sources[label])!r}")
                for label, payload in payloads.items()}
    games = {label: (payload.get("training") or {}).get("games") for label, payload in payloads.items()}
    save_class_checkpoint(
        target,
        networks,
        training={label: {"games": games[label]} for label in networks},
        config={label: payload.get("config") for label, payload in payloads.items()},
        cube_correction=cube_correction,
    )
    export_class_numpy(target.with_suffix(".npz"),
                       {label: (network.config, network.state_dict()) for label, network in networks.items()},
                       cube_correction=cube_correction)
    walls = [(payload.get("training") or {}).get("wall_seconds") for payload in payloads.values()]
    known = [float(w) for w in walls if w is not None]
    metadata = {
        "checkpoint": target.name,
        "numpy_export": target.with_suffix(".npz").name,
        "shipped_from": {label: str(path) for label, path in sources.items()},
        "shipped_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "classes": {"bearoff": "databases", **{label: label if label in networks else "contact network"
                                                for label in NETWORK_CLASSES if label != "contact"}},
        "self_play_games": games,
        "training_wall_seconds": wall_seconds if wall_seconds is not None
        else (sum(known) if len(known) == len(walls) else None),
        "machine": {"platform": platform.platform(), "processor": platform.machine(), "cpu_count": os.cpu_count()},
        "network": {label: payload["network_config"] for label, payload in payloads.items()},
        "cube_correction": None if cube_correction is None else {"hidden": len(cube_correction.hidden_bias)},
        "training_config": {label: payload.get("config") for label, payload in payloads.items()},
        "results": {},
    }
    write_json_atomically(target.with_suffix(".json"), metadata)
    return metadata
