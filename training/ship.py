"""Turn a training checkpoint into the bot that ships: weights and config only, plus metadata.

The shipped ``.pt`` file drops the optimizer state (a third of the size and of no use
to a player); beside it goes the numpy export (``.npz``) the bot serves from without
torch. Its metadata, a JSON file beside it, records where it came from:
the training config, the number of self-play games, the wall time and machine;
``benchmarks/strength.py --record`` adds the measured strength to it.

``ship_classes`` combines a network per position class (``--contact A.pt --race B.pt --crashed C.pt
--late-contact D.pt``) into one multi-network file (``bot.evaluation.checkpoint``'s class format), bear-offs exact,
and the bot's learned cube correction (``--cube-correction``) if given.

``ship_gated`` writes a candidate beside the target first, times it against the shipped bot
there (``bot.play.speed``: 0-ply and 1-ply decisions, rollout trials/s, in the same run) and moves it
into place only if it is at most ``SLOWER_LIMIT`` times slower at each, unless told to accept it;
its figures and the ratios go into its metadata, beside the replaced bot's history (``carry_history``).
A rollout pruner (``bot.evaluation.prune``) beside a source that was fitted to the candidate's networks
travels with it.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable

from bot.evaluation.checkpoint import (
    export_class_numpy,
    export_numpy,
    load_checkpoint,
    load_class_payload,
    load_class_payloads,
    save_checkpoint,
    save_class_checkpoint,
)
from bot.evaluation.classes import NETWORK_CLASSES
from bot.evaluation.cube_correction import CubeCorrection
from bot.evaluation.encoding import get_encoding
from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.evaluation.prune import fingerprint, pruner_paths
from bot.facade import Bot
from bot.play.speed import measure_speeds
from bot.evaluation.storage import atomic_write
from engine.errors import BackgammonError
from training.config import ConfigError
from training.torch_network import network_from_payload


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


def ship_classes(
    sources: dict[str, Path],
    target: Path,
    wall_seconds: float | None = None,
    cube_correction: CubeCorrection | None = None,
) -> dict[str, Any]:
    """Write one network per class (``{"contact": run_a.pt, "race": run_b.pt}``) to ``target`` (.pt),
    its .npz and .json.

    Each source is a training checkpoint, or a shipped bot whose network for that class is taken
    (to replace one network of it); the shipped file holds every network with its class, encoding
    and config, and plays bear-offs from the databases; with ``cube_correction``, the bot's learned
    correction to its 0-ply cube decisions too.
    """
    if "contact" not in sources:
        raise ConfigError("ship: a multi-network bot needs a contact network (--contact)")
    payloads = {label: load_class_payload(path, label, fallback=False) for label, path in sources.items()}
    networks = {
        label: network_from_payload(payload, source=f"checkpoint {str(sources[label])!r}")
        for label, payload in payloads.items()
    }
    games = {label: (payload.get("training") or {}).get("games") for label, payload in payloads.items()}
    save_class_checkpoint(
        target,
        networks,
        training={label: {"games": games[label]} for label in networks},
        config={label: payload.get("config") for label, payload in payloads.items()},
        cube_correction=cube_correction,
    )
    export_class_numpy(
        target.with_suffix(".npz"),
        {label: (network.config, network.state_dict()) for label, network in networks.items()},
        cube_correction=cube_correction,
    )
    walls = [(payload.get("training") or {}).get("wall_seconds") for payload in payloads.values()]
    known = [float(w) for w in walls if w is not None]
    metadata = {
        "checkpoint": target.name,
        "numpy_export": target.with_suffix(".npz").name,
        "shipped_from": {label: str(path) for label, path in sources.items()},
        "shipped_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "classes": {
            "bearoff": "databases",
            **{
                label: label if label in networks else "contact network"
                for label in NETWORK_CLASSES
                if label != "contact"
            },
        },
        "self_play_games": games,
        "training_wall_seconds": wall_seconds
        if wall_seconds is not None
        else (sum(known) if len(known) == len(walls) else None),
        "machine": {"platform": platform.platform(), "processor": platform.machine(), "cpu_count": os.cpu_count()},
        "network": {label: payload["network_config"] for label, payload in payloads.items()},
        "cube_correction": None if cube_correction is None else {"hidden": len(cube_correction.hidden_bias)},
        "training_config": {label: payload.get("config") for label, payload in payloads.items()},
        "results": {},
    }
    write_json_atomically(target.with_suffix(".json"), metadata)
    return metadata


# A candidate this many times slower than the shipped bot at any measure is refused (unless accepted).
SLOWER_LIMIT = 1.10


class SlowerCandidate(BackgammonError):
    """A candidate bot slower than the shipped one by more than ``SLOWER_LIMIT`` at some measure."""


def _carry_pruner(sources: Iterable[Path], staged: Path) -> bool:
    """Copy beside ``staged`` the first rollout pruner beside a source that was fitted to ``staged``'s networks."""
    payloads, _, _ = load_class_payloads(staged.with_suffix(".npz"))
    wanted = fingerprint({label: str(payload.get("weights_sha256")) for label, payload in payloads.items()})
    for source in sources:
        network, record = pruner_paths(Path(source))
        try:
            fitted_to = json.loads(record.read_text()).get("fitted_to")
        except (OSError, ValueError, AttributeError):
            continue
        if network.is_file() and fitted_to == wanted:
            for path, to in zip((network, record), pruner_paths(staged)):
                shutil.copyfile(path, to)
            return True
    return False


def ship_gated(
    write: Callable[[Path], dict[str, Any]],
    target: Path,
    sources: Iterable[Path],
    accept_slower: bool = False,
    repeats: int = 3,
    log: Callable[[str], None] = print,
    trials: int = 288,
) -> dict[str, Any]:
    """Ship the bot ``write(path)`` writes (``ship`` or ``ship_classes``) to ``target``, behind the speed gate.

    The candidate is written to a temporary folder beside ``target`` and timed against the bot at
    ``target`` (if there is one) in the same run; more than ``SLOWER_LIMIT`` times slower at any
    measure raises ``SlowerCandidate`` (the shipped files untouched) unless ``accept_slower``. ``repeats`` and
    ``trials``: as ``bot.play.speed.measure_speeds`` takes them.
    Its figures go into its metadata's ``results.speed``. Returns the metadata.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=".ship-", dir=target.parent))
    try:
        staged = folder / target.name
        metadata = write(staged)
        has_pruner = _carry_pruner(sources, staged)
        shipped = target.with_suffix(".npz")
        payloads, _, _ = load_class_payloads(staged.with_suffix(".npz"))
        (game,) = {get_encoding(p["network_config"]["encoding"]).game for p in payloads.values()}
        if shipped.is_file():
            metadata["results"]["speed"] = _gate(
                Bot.load(staged.with_suffix(".npz"), variant=game).evaluator,
                shipped,
                accept_slower,
                repeats,
                trials,
                log,
                has_pruner,
            )
        else:
            log(f"no shipped bot at {shipped}: no speed to compare with")
        write_json_atomically(staged.with_suffix(".json"), carry_history(metadata, target))
        for suffix in (".pt", ".npz", ".json"):
            os.replace(staged.with_suffix(suffix), target.with_suffix(suffix))
        for path, to in zip(pruner_paths(staged), pruner_paths(target)):
            if has_pruner:
                os.replace(path, to)
            else:
                to.unlink(missing_ok=True)  # a pruner fitted to the networks this bot replaces
        return metadata
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# The replaced bot's metadata that tells how the networks came to be, kept by the bot that replaces it.
HISTORY_KEYS = ("training_note", "distillation")


def carry_history(metadata: dict[str, Any], target: Path) -> dict[str, Any]:
    """``metadata`` with the history of the bot it replaces at ``target`` (that bot's .json) carried over.

    A network taken from a shipped bot keeps that bot's record of where it came from; the replaced bot's
    history (``HISTORY_KEYS``, earlier ``previous_results_*``) stays as it was; and its measured results
    move to ``previous_results_shipped_<its shipped_at>``. What describes the replaced bot's networks
    (classes, shapes, cube correction) is not carried.
    """
    carried = dict(metadata)
    shipped_from = metadata.get("shipped_from")
    if isinstance(shipped_from, dict):
        carried["shipped_from"] = {label: _origin(path, label) for label, path in shipped_from.items()}
    elif isinstance(shipped_from, str):
        carried["shipped_from"] = _origin(shipped_from, "contact")
    replaced = _shipped_metadata(target)
    carried.update(
        {key: value for key, value in replaced.items() if key in HISTORY_KEYS or key.startswith("previous_results")}
    )
    if replaced.get("results"):
        carried[f"previous_results_shipped_{replaced.get('shipped_at', 'unknown')}"] = replaced["results"]
    return carried


def _shipped_metadata(path: Path) -> dict[str, Any]:
    """The metadata beside a shipped bot's .pt or .npz; empty for a file that is not one."""
    try:
        metadata = json.loads(Path(path).with_suffix(".json").read_text())
    except (OSError, ValueError):
        return {}
    return metadata if isinstance(metadata, dict) else {}


def _origin(source: str, label: str) -> Any:
    """Where the ``label`` network of ``source`` came from: a shipped bot's own record, else ``source``."""
    recorded = _shipped_metadata(Path(source)).get("shipped_from")
    if isinstance(recorded, dict):
        return recorded.get(label, source)
    return recorded if isinstance(recorded, str) else source


def _gate(
    candidate: ProbabilityEvaluator,
    shipped: Path,
    accept_slower: bool,
    repeats: int,
    trials: int,
    log: Callable[[str], None],
    has_pruner: bool,
) -> dict[str, Any]:
    """The candidate's speed record beside the bot at ``shipped``; ``SlowerCandidate`` if it is too slow."""
    bots = [candidate, Bot.load(shipped, variant=candidate.game).evaluator]
    speeds = measure_speeds(bots, repeats, trials, progress=log)
    slowdowns = speeds[0].slowdowns(speeds[1])
    log(
        "candidate / shipped: "
        + ", ".join(f"{key} {value:.2f}x as slow" for key, value in slowdowns.items())
        + f" (0-ply {speeds[0].ply0_ms:.2f} / {speeds[1].ply0_ms:.2f} ms, 1-ply {speeds[0].ply1_ms:.2f} / "
        f"{speeds[1].ply1_ms:.2f} ms, rollouts {speeds[0].rollout_trials_per_s:.0f} / "
        f"{speeds[1].rollout_trials_per_s:.0f} trials/s)"
    )
    slower = [key for key, value in slowdowns.items() if value > SLOWER_LIMIT]
    if slower and not accept_slower:
        raise SlowerCandidate(
            f"ship: the candidate is more than {SLOWER_LIMIT:.2f}x as slow as {shipped} at "
            f"{', '.join(f'{key} ({slowdowns[key]:.2f}x)' for key in slower)}; nothing shipped "
            "(--accept-slower ships it anyway"
            f"{'' if has_pruner else '; it has no rollout pruner: python -m training pruner'})"
        )
    return {
        "command": "python -m training ship",
        **speeds[0].to_json(),
        "times_as_slow_as_shipped": {key: round(value, 3) for key, value in slowdowns.items()},
    }
