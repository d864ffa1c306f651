"""The one module that reads and writes checkpoints.

A checkpoint is a ``torch.save`` file holding a dict:

- ``format``: the layout version (``FORMAT``);
- ``network_config``: the ``NetworkConfig`` as plain data, enough to rebuild the network;
- ``weights``: the network's ``state_dict``;
- ``training``: the trainer's state (optimizer, games played, random states), or None;
- ``config``: the full resolved training config as plain data, or None.

Files are written atomically: to a temporary file in the same directory, flushed
to disk, then renamed over the target, so a crash never leaves a half-written
checkpoint. Loading uses ``weights_only=True``: a checkpoint cannot run code.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from bot.network import NetworkConfig, ValueNetwork

FORMAT = 1


class CheckpointError(ValueError):
    """A checkpoint file that is missing, unreadable, or does not fit the network asked for."""


def save_checkpoint(
    path: str | os.PathLike,
    network: ValueNetwork,
    training: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
) -> None:
    """Write ``network`` (and optionally trainer state and config) to ``path`` atomically."""
    path = Path(path)
    payload = {
        "format": FORMAT,
        "network_config": network.config.to_dict(),
        "weights": network.state_dict(),
        "training": training,
        "config": config,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """The payload dict of the checkpoint at ``path``; raise CheckpointError if it is not one."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r}: no such file")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a corrupt or foreign file
        raise CheckpointError(f"checkpoint {str(path)!r}: unreadable ({error})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {str(path)!r}: not a format-{FORMAT} checkpoint of this project")
    return payload


def network_from_payload(
    payload: dict[str, Any], expected: NetworkConfig | None = None, source: str = "checkpoint"
) -> ValueNetwork:
    """Rebuild the network of a checkpoint payload, checking its shape against ``expected``."""
    try:
        config = NetworkConfig(**payload["network_config"])
    except (TypeError, ValueError) as error:
        raise CheckpointError(f"{source}: bad network config ({error})") from None
    if expected is not None and config != expected:
        differences = ", ".join(
            f"{key}: checkpoint has {value!r}, config asks for {getattr(expected, key)!r}"
            for key, value in vars(config).items()
            if value != getattr(expected, key)
        )
        raise CheckpointError(f"{source}: network shape differs from the config ({differences})")
    network = ValueNetwork(config)
    try:
        network.load_state_dict(payload["weights"])
    except RuntimeError as error:
        raise CheckpointError(f"{source}: weights do not fit {config} ({error})") from None
    return network


def load_network(path: str | os.PathLike, expected: NetworkConfig | None = None) -> ValueNetwork:
    """The network stored at ``path``, in eval mode, ready for inference."""
    network = network_from_payload(load_checkpoint(path), expected, source=f"checkpoint {str(path)!r}")
    return network.eval()
