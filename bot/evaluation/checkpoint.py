"""The one module that reads and writes checkpoints, in two files of one content.

A training checkpoint (``.pt``) is a ``torch.save`` file holding a dict:

- ``format``: the layout version (``FORMAT``);
- ``network_config``: the ``NetworkConfig`` as plain data, enough to rebuild the network;
- ``weights``: the network's ``state_dict`` (names as ``bot.evaluation.network.weight_shapes``);
- ``weights_sha256``: ``weights_checksum`` of the weights, verified on loading (files
  written before it existed have none and load unverified);
- ``training``: the trainer's state (optimizer, games played, random states), or None;
- ``training_sha256``: ``state_checksum`` of ``training``, verified on loading (absent in
  older files);
- ``config``: the full resolved training config as plain data, or None.

A file with any other key is not a checkpoint of this project.

A serving export (``.npz``, written beside the shipped ``.pt`` by ``python -m training
ship``) holds ``format``, ``network_config`` (as JSON), ``weights_sha256`` and one array
per weight. The bot reads it with numpy alone; torch is imported only to read or write
a ``.pt`` file.

Files are written atomically: to a temporary file in the same directory, flushed
to disk, then renamed over the target, so a crash never leaves a half-written
checkpoint. ``.pt`` files load with ``weights_only=True`` (a checkpoint cannot run code), and
reading any file is bounded (``MAX_FILE_BYTES`` and the bounds beside it): its zip directory and
pickled object table are checked before torch reads it, so it cannot make the loader allocate more
than it holds, and what it holds is measured before any other walk meets it (``_bounded``), so no
nesting, shared value or zero-stride tensor can make a checksum, a copy or a restore spin or
allocate what it only claims. A file past a bound is refused in one line naming it.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import pickletools
import struct
import zipfile
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import numpy as np

from bot.evaluation.classes import NETWORK_CLASSES, BearoffDatabases, ClassEvaluator
from bot.evaluation.cube_correction import CubeCorrection
from bot.evaluation.evaluator import NetworkEvaluator, ProbabilityEvaluator
from bot.evaluation.network import Network, NetworkConfig, weight_shapes
from bot.evaluation.prune import Pruner, fingerprint, pruner_paths
from engine.errors import BackgammonError
from engine.variant import find_variant
from bot.evaluation.storage import atomic_write, warn

FORMAT = 1
# The keys a checkpoint may have (a numpy export has no training state or config; older files no checksums).
_KEYS = ("format", "network_config", "weights", "training", "config", "weights_sha256", "training_sha256")
_OPTIONAL = ("weights_sha256", "training_sha256")
# A numpy export's keys besides the weights.
_NPZ_META = ("format", "network_config", "weights_sha256")


class CheckpointError(BackgammonError):
    """A checkpoint file that is missing, unreadable, damaged, or does not fit the network asked for."""


def _as_array(value: Any) -> np.ndarray:
    """A weight (torch tensor or array) as a numpy array."""
    return value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)


def weights_checksum(weights: Mapping[str, Any]) -> str:
    """SHA-256 over every weight's name, dtype, shape and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(weights):
        array = np.ascontiguousarray(_as_array(weights[name]))
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.data)  # its bytes in place (C-contiguous): no copy of the weights
    return digest.hexdigest()


def state_checksum(state: Any) -> str:
    """SHA-256 of nested plain data (dicts, lists, tuples, scalars, tensors, arrays), key order aside."""
    digest = hashlib.sha256()

    def feed(value: Any) -> None:
        if isinstance(value, Mapping):
            digest.update(b"{")
            for key in sorted(value, key=repr):
                feed(key)
                feed(value[key])
            digest.update(b"}")
        elif isinstance(value, (list, tuple)):
            digest.update(b"[")
            for item in value:
                feed(item)
            digest.update(b"]")
        elif hasattr(value, "detach") or isinstance(value, np.ndarray):
            array = np.ascontiguousarray(_as_array(value))
            digest.update(f"array|{array.dtype.str}|{array.shape}|".encode())
            digest.update(array.tobytes())
        else:
            digest.update(f"{type(value).__name__}|{value!r};".encode())

    feed(state)
    return digest.hexdigest()


def save_checkpoint(
    path: str | os.PathLike,
    network: Any,
    training: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
) -> None:
    """Write a torch ``network`` (``.config``, ``.state_dict()``) and optional trainer state to ``path``."""
    import torch

    weights = network.state_dict()
    payload = {
        "format": FORMAT,
        "network_config": network.config.to_dict(),
        "weights": weights,
        "weights_sha256": weights_checksum(weights),
        "training": training,
        "training_sha256": state_checksum(training),
        "config": config,
    }
    with atomic_write(path) as f:
        torch.save(payload, f)


def export_numpy(path: str | os.PathLike, config: NetworkConfig, weights: Mapping[str, Any]) -> None:
    """Write the serving export (``.npz``) of a network's config and weights to ``path``."""
    arrays = {name: _as_array(value).astype(np.float32) for name, value in weights.items()}
    meta = {
        "format": np.array(FORMAT),
        "network_config": np.array(json.dumps(config.to_dict())),
        "weights_sha256": np.array(weights_checksum(arrays)),
    }
    contents: dict[str, Any] = {**meta, **arrays}
    with atomic_write(path) as f:
        np.savez(f, **contents)


def _check_payload(payload: Any, source: str) -> dict[str, Any]:
    """``payload`` if it has a checkpoint's structure (see the module docstring); else CheckpointError.

    Checks the keys and their types, the training state's checksum, and the counts a
    resume reads from ``training``; ``checked_weights`` checks the network's config and weights.
    """
    if not isinstance(payload, dict) or type(payload.get("format")) is not int or payload["format"] != FORMAT:
        raise CheckpointError(f"{source}: not a format-{FORMAT} checkpoint of this project")
    extra = sorted(map(repr, set(payload) - set(_KEYS)))
    if extra:
        raise CheckpointError(f"{source}: unexpected keys {', '.join(extra)} (not a checkpoint of this project)")
    if not isinstance(payload.get("network_config"), dict):
        raise CheckpointError(f"{source}: no network config")
    if not isinstance(payload.get("weights"), Mapping):
        raise CheckpointError(f"{source}: no weights")
    for key in ("training", "config"):
        if not isinstance(payload.get(key), (dict, type(None))):
            raise CheckpointError(f"{source}: {key!r} is a {type(payload[key]).__name__}, expected a dict")
    for key in _OPTIONAL:
        checksum = payload.get(key)
        if checksum is not None and not isinstance(checksum, str):
            raise CheckpointError(f"{source}: the checksum {key!r} is not a string")
    checksum = payload.get("training_sha256")
    if checksum is not None and state_checksum(payload.get("training")) != checksum:
        raise CheckpointError(f"{source}: the training state does not match its checksum (the file is damaged)")
    training = payload.get("training") or {}
    games = training.get("games")
    if games is not None and (type(games) is not int or not 0 <= games < 2**63):
        raise CheckpointError(f"{source}: the games count {games!r} is not a count of games")
    seconds = training.get("wall_seconds")
    if seconds is not None and (type(seconds) not in (int, float) or not 0 <= seconds < 1e12):  # NaN fails too
        raise CheckpointError(f"{source}: the training time {seconds!r} is not a non-negative number of seconds")
    return payload


# What reading one checkpoint file may cost: far above what this project writes, far below what would exhaust a
# machine. A file past any bound is refused before the walk or allocation it would make, with the bound named.
MAX_FILE_BYTES = 4 << 30  # the largest network training/config.py allows, with its optimizer state: about 1.4 GB
MAX_DIRECTORY_BYTES = 1 << 20  # a zip directory, which zipfile parses whole: ~10,000 members (one per tensor)
MAX_OBJECT_BYTES = 1 << 18  # a .pt file's pickled object table or an export's text; the shipped bot's is 6 KB
MAX_VALUES = 100_000  # values in a loaded payload, one met twice counted twice; the shipped bot's has ~330
MAX_DEPTH = 32  # levels of nesting of a loaded payload; a training checkpoint has 7
MAX_INT_BITS = 1024  # numpy's generator state holds 128-bit integers
# The callables a .pt file of this project names: dicts and dense tensors. Torch's weights-only loader allows more,
# some of which allocate whatever the file claims (``bytearray(n)``, quantized tensors).
_STORAGES = ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
_GLOBALS = frozenset(
    {"collections OrderedDict", "torch._utils _rebuild_tensor_v2", *(f"torch {kind}Storage" for kind in _STORAGES)}
)
_END = struct.Struct("<4s4H2LH")  # a zip's end record (zipfile.structEndArchive)
_END64 = struct.Struct("<4sQ2H2L4Q")  # its zip64 end record, which zipfile reads when the locator is there
_LOCATOR64 = 20  # the size of the zip64 locator between the two


def _directory_bytes(path: Path, size: int) -> int:
    """The size of the zip directory at the end of ``path`` as its end records claim it (the largest claim).

    ``zipfile`` reads and parses that much before it lists a single member; BadZipFile if there is no end record.
    """
    with path.open("rb") as f:
        f.seek(max(0, size - (_END.size + 0xFFFF + _LOCATOR64 + _END64.size)))
        tail = f.read()
    ends = {tail.rfind(b"PK\x05\x06", 0, len(tail) - _END.size + 1), len(tail) - _END.size}  # commented or not
    claims = []
    for at in ends:
        if at < 0 or tail[at : at + 4] != b"PK\x05\x06":
            continue
        claims.append(_END.unpack_from(tail, at)[5])
        record = at - _LOCATOR64 - _END64.size
        if record >= 0 and tail[at - _LOCATOR64 : at - _LOCATOR64 + 4] == b"PK\x06\x07":
            claims.append(_END64.unpack_from(tail, record)[8])
    if not claims:
        raise zipfile.BadZipFile("no end record")
    return max(claims)


def _archive_members(path: Path, source: str) -> list[zipfile.ZipInfo]:
    """The members of the zip archive (``.pt`` or ``.npz``) at ``path``, once its directory has been found to claim
    no more than the bounds and the file allow: stored members (none inflates) whose sizes sum to at most the file's."""
    if not path.is_file():
        raise CheckpointError(f"{source}: no such file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise CheckpointError(f"{source}: refused, {size:,} bytes (a checkpoint may have {MAX_FILE_BYTES:,})")
    unreadable = CheckpointError(f"{source}: unreadable (not a zip archive)")
    try:
        directory = _directory_bytes(path, size)
    except (zipfile.BadZipFile, OSError):
        raise unreadable from None
    if directory > MAX_DIRECTORY_BYTES:
        raise CheckpointError(
            f"{source}: refused, its zip directory claims {directory:,} bytes (at most {MAX_DIRECTORY_BYTES:,})"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise unreadable from None
    if any(m.compress_type != zipfile.ZIP_STORED for m in members) or sum(m.file_size for m in members) > size:
        raise CheckpointError(f"{source}: damaged (its zip directory claims more data than the file holds)")
    return members


def _check_object_table(path: Path, source: str) -> None:
    """Refuse a ``.pt`` file whose pickled object table is over ``MAX_OBJECT_BYTES`` or names a callable outside
    ``_GLOBALS``, read op by op without building anything (torch's loader would call it)."""
    members = _archive_members(path, source)
    try:
        with zipfile.ZipFile(path) as archive:
            for member in members:
                if member.filename.rsplit("/", 1)[-1] != "data.pkl":
                    continue
                if member.file_size > MAX_OBJECT_BYTES:
                    raise CheckpointError(
                        f"{source}: refused, its object table {member.filename!r} is {member.file_size:,} bytes "
                        f"(at most {MAX_OBJECT_BYTES:,})"
                    )
                for opcode, argument, _ in pickletools.genops(archive.read(member)):
                    named = str(argument) if opcode.name in ("GLOBAL", "INST") else "a name built on the stack"
                    if opcode.name in ("GLOBAL", "INST", "STACK_GLOBAL") and named not in _GLOBALS:
                        raise CheckpointError(
                            f"{source}: refused, it calls {named.replace(' ', '.')}, which no checkpoint "
                            "of this project holds"
                        )
    except CheckpointError:
        raise
    except Exception as error:  # zip and pickle errors of a damaged or foreign file
        raise CheckpointError(f"{source}: unreadable ({type(error).__name__})") from None


class _Walk:
    """One walk over a loaded payload, bounded before any other walk (a checksum, a copy, torch's optimizer restore)
    meets it: each subtree is measured once by identity, so a value referred to twice costs this walk nothing more
    while it counts twice, as every later walk will meet it."""

    def __init__(self, source: str, stored: int) -> None:
        self.source, self.stored = source, stored
        self.memo: dict[int, tuple[int, int, int]] = {}  # id: (values, tensor bytes, levels) of the tree below
        self.values = self.bytes = 0  # of the parts walked so far
        self.where = "its contents"

    def refuse(self, what: str) -> CheckpointError:
        return CheckpointError(f"{self.source}: refused, {self.where} {what}")

    def part(self, where: str, value: Any) -> None:
        """Walk ``value`` (named ``where`` in errors), one level below the payload itself."""
        self.where = where
        measured = self._measure(value)
        self._add([0, 0, 0], measured, 0)
        self.values, self.bytes = self.values + measured[0], self.bytes + measured[1]

    def _add(self, total: list[int], measured: tuple[int, int, int], level: int) -> None:
        """Add a child's measure to its parent's ``total`` (the parent ``level`` levels below the payload)."""
        total[0] += measured[0]
        total[1] += measured[1]
        total[2] = max(total[2], measured[2])
        if self.values + total[0] > MAX_VALUES:
            raise self.refuse(f"holds more than {MAX_VALUES:,} values (one met twice counted twice)")
        if self.bytes + total[1] > self.stored:
            raise self.refuse(f"holds tensors claiming more than the {self.stored:,} bytes the file stores")
        if 1 + level + measured[2] > MAX_DEPTH:
            raise self.refuse(f"nests more than {MAX_DEPTH} levels deep")

    def _leaf(self, value: Any) -> tuple[int, int, int]:
        import torch

        if isinstance(value, torch.Tensor):
            size = value.element_size()
            claimed, held = value.numel() * size, value.untyped_storage().nbytes()
            reach = value.storage_offset() + sum((n - 1) * s for n, s in zip(value.shape, value.stride())) + 1
            if claimed > held or (claimed and reach * size > held):
                kind = f"{str(value.dtype).removeprefix('torch.')}{list(value.shape)}"
                raise self.refuse(f"holds a tensor {kind} claiming {claimed:,} bytes of a storage of {held:,}")
            return 1, claimed, 0
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
            raise self.refuse(f"holds an integer of {value.bit_length():,} bits (at most {MAX_INT_BITS})")
        return 1, 0, 0

    def _enter(self, value: Any, stack: list[tuple[Any, Iterator[Any], list[int]]]) -> tuple[int, int, int] | None:
        """The measure of ``value`` if it is a leaf or measured before; else None, with its frame pushed."""
        if id(value) in self.memo:
            return self.memo[id(value)]
        if isinstance(value, Mapping):
            children: Iterator[Any] = itertools.chain.from_iterable(value.items())
        elif isinstance(value, (list, tuple, set, frozenset)):
            children = iter(value)
        else:
            return self._leaf(value)
        if any(frame[0] is value for frame in stack):
            raise self.refuse("holds itself")
        if 1 + len(stack) + 1 > MAX_DEPTH:
            raise self.refuse(f"nests more than {MAX_DEPTH} levels deep")
        stack.append((value, children, [1, 0, 0]))
        return None

    def _measure(self, root: Any) -> tuple[int, int, int]:
        """(values, tensor bytes, levels) of the tree ``root`` unfolds to, without unfolding it; iterative."""
        stack: list[tuple[Any, Iterator[Any], list[int]]] = []
        measured = self._enter(root, stack)
        while stack:
            value, children, total = stack[-1]
            child = next(children, _END_OF)
            if child is not _END_OF:
                measured = self._enter(child, stack)
                if measured is None:
                    continue
            else:
                stack.pop()
                measured = self.memo[id(value)] = (total[0], total[1], total[2] + 1)
                if not stack:
                    break
            self._add(stack[-1][2], measured, len(stack))
        assert measured is not None
        return measured


_END_OF = object()  # the end of a container's children in ``_Walk``


def _bounded(payload: Any, source: str, stored: int) -> Any:
    """``payload``, loaded from a file of ``stored`` bytes, once ``_Walk`` has found every walk over it bounded:
    at most ``MAX_DEPTH`` levels and ``MAX_VALUES`` values, no cycle, no integer over ``MAX_INT_BITS``, no tensor
    claiming more bytes than its storage holds, nor all together more than the file; else CheckpointError."""
    walk = _Walk(source, stored)
    if not isinstance(payload, dict):
        walk.part("its contents", payload)
        return payload
    for key, value in payload.items():
        if not isinstance(key, str) or len(key) > 64:
            raise CheckpointError(f"{source}: not a checkpoint of this project (a key that is not a name)")
        walk.part(f"its {key!r}", value)
    return payload


def _read_npz(path: Path, source: str) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` file at ``path`` by name, in one pass over its zip archive.

    The zip directory, and each array's ``.npy`` header before its data, must claim no more than the file
    holds: numpy's own reader allocates an array's whole claimed size before reading its data.
    """
    members = _archive_members(path, source)
    arrays: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for member in members:
                with archive.open(member) as f:
                    version = np.lib.format.read_magic(f)
                    shape, fortran_order, dtype = (
                        np.lib.format.read_array_header_1_0(f)
                        if version == (1, 0)
                        else np.lib.format.read_array_header_2_0(f)
                    )
                    claimed = dtype.itemsize * int(np.prod(shape, dtype=object))
                    if dtype.hasobject or claimed > member.file_size - f.tell():
                        raise CheckpointError(
                            f"{source}: damaged (array {member.filename!r} claims "
                            f"{dtype}{list(shape)}, more than the file holds)"
                        )
                    if dtype.kind in "SU" and claimed > MAX_OBJECT_BYTES:
                        raise CheckpointError(
                            f"{source}: refused, its text {member.filename!r} is {claimed:,} bytes "
                            f"(at most {MAX_OBJECT_BYTES:,})"
                        )
                    flat = np.frombuffer(bytearray(f.read(claimed)), dtype=dtype)  # writable, as np.load's
                array = flat.reshape(shape[::-1]).T if fortran_order else flat.reshape(shape)
                arrays[member.filename.removesuffix(".npy")] = array
    except CheckpointError:
        raise
    except Exception as error:  # zip and .npy errors of a damaged or foreign file
        raise CheckpointError(f"{source}: unreadable numpy export ({type(error).__name__})") from None
    return arrays


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """The payload dict of the single-network ``.pt`` checkpoint at ``path``; raise CheckpointError if it is not
    one (a file of a network per class names its classes: ``load_class_payload`` reads one of them)."""
    path = Path(path)
    source = f"checkpoint {str(path)!r}"
    payload = _read_torch_file(path, source)
    if _is_class_file(payload):
        networks = payload.get("networks")
        raise _several_networks(source, networks if isinstance(networks, dict) else ["?"])
    return _check_payload(payload, source)


def checked_weights(
    payload: Mapping[str, Any], source: str, expected: NetworkConfig | None = None
) -> tuple[NetworkConfig, dict[str, np.ndarray]]:
    """The network config and weights (numpy) of a checkpoint payload, checked for shape and checksum.

    With ``expected``, the stored network must have that shape too.
    """
    stored_config = payload["network_config"]
    types = {"encoding": (str,), "hidden": (list, tuple), "activation": (str,)}
    for key, value in stored_config.items():
        if key not in types:
            raise CheckpointError(f"{source}: bad network config (unknown key {key!r})")
        if not isinstance(value, types[key]) or (key == "hidden" and not all(type(size) is int for size in value)):
            raise CheckpointError(f"{source}: bad network config ({key} is {value!r})")
    try:
        config = NetworkConfig(**stored_config)
    except (TypeError, ValueError) as error:
        raise CheckpointError(f"{source}: bad network config ({error})") from None
    if expected is not None and config != expected:
        differences = ", ".join(
            f"{key}: checkpoint has {value!r}, config asks for {getattr(expected, key)!r}"
            for key, value in vars(config).items()
            if value != getattr(expected, key)
        )
        raise CheckpointError(f"{source}: network shape differs from the config ({differences})")
    stored = payload["weights"]
    shapes = weight_shapes(config)
    if set(stored) != set(shapes):
        missing, extra = sorted(set(shapes) - set(stored)), sorted(set(stored) - set(shapes), key=repr)
        raise CheckpointError(f"{source}: weights do not fit {config} (missing {missing}, unexpected {extra})")
    try:
        weights = {name: _as_array(stored[name]) for name in shapes}
    except (TypeError, ValueError, RuntimeError):  # nested lists of unequal lengths and the like
        raise CheckpointError(f"{source}: weights do not fit {config} (not arrays)") from None
    for name, shape in shapes.items():
        array = weights[name]
        if array.shape != shape or not np.issubdtype(array.dtype, np.floating):
            raise CheckpointError(
                f"{source}: weights do not fit {config} "
                f"({name} is {array.dtype}{list(array.shape)}, expected float{list(shape)})"
            )
    checksum = payload.get("weights_sha256")
    if checksum is not None and weights_checksum(weights) != checksum:
        raise CheckpointError(f"{source}: the weights do not match their checksum (the file is damaged)")
    if not all(np.isfinite(array).all() for array in weights.values()):
        raise CheckpointError(f"{source}: the weights hold NaN or infinite values")
    return config, weights


def _load_npz(arrays: dict[str, np.ndarray], source: str) -> dict[str, Any]:
    """A numpy export's arrays (``_read_npz``) as a payload dict (weights as arrays)."""
    try:
        meta = {key: arrays.pop(key) for key in _NPZ_META}
        payload = {
            "format": int(meta["format"]),
            "network_config": json.loads(str(meta["network_config"])),
            "weights_sha256": str(meta["weights_sha256"]),
            "weights": arrays,
        }
    except Exception as error:  # missing keys, wrong types and JSON errors of a damaged or foreign file
        raise CheckpointError(f"{source}: unreadable numpy export ({type(error).__name__})") from None
    return _check_payload(payload, source)


def load_network(path: str | os.PathLike, expected: NetworkConfig | None = None) -> Network:
    """The one numpy network stored at ``path`` (a ``.npz`` export, or a ``.pt`` checkpoint read with torch).

    A file with a network per position class is refused: ``load_evaluator`` reads it.
    """
    source = f"checkpoint {str(path)!r}"
    payloads, _, several = load_class_payloads(path)
    if several:
        raise _several_networks(source, payloads)
    return Network(*checked_weights(payloads["contact"], source, expected))


def _several_networks(source: str, labels: Iterable[str]) -> CheckpointError:
    """The error for a file of a network per class handed to a reader of one network."""
    return CheckpointError(
        f"{source}: holds a network per position class ({', '.join(sorted(labels))}): "
        "load it as a bot (bot.evaluation.checkpoint.load_evaluator), or one of its networks (load_class_payload)"
    )


# --- one file, every network of the bot (position classes) --------------------------------
#
# A bot with a network per position class (``bot.evaluation.classes``) ships one file holding them all:
#
# - ``.pt``: a dict ``{"classes_format": CLASSES_FORMAT, "bearoff": BEAROFF_MODE,
#   "networks": {label: payload}}``, each payload a single-network checkpoint dict as above
#   (``format``, ``network_config``, ``weights``, ``weights_sha256``, ``training``, ``config``);
# - ``.npz``: one JSON string under ``"classes"``, ``{"format": CLASSES_FORMAT, "bearoff": ...,
#   "networks": {label: {"network_config": ..., "weights_sha256": ...}}}``, and each network's
#   arrays under ``"<label>/<weight name>"`` (``contact/hidden_layers.0.weight``...).
#
# ``bearoff`` is ``"databases"`` (bear-offs exact, from ``bot.evaluation.bearoff``) or ``"network"``
# (played by the race network). A bot with a learned cube correction (``bot.evaluation.cube_correction``)
# holds it too: in ``.pt`` under ``"cube_correction"`` as ``{"arrays": {name: tensor}, "sha256": ...}``,
# in ``.npz`` as arrays ``"cube_correction/<name>"`` and the manifest's ``"cube_correction": {"sha256": ...}``;
# a file without one plays the plain cube model. Labels are ``bot.evaluation.classes.NETWORK_CLASSES``; ``contact`` is
# required, a missing ``race``, ``crashed`` or ``late_contact`` falls back to the contact network. An old
# single-network file loads as the network of every class, with bear-offs from the databases (``load_evaluator``).

CLASSES_FORMAT = 1
CLASSES_KEY = "classes"
BEAROFF_MODES = ("databases", "network")
CUBE_CORRECTION_KEY = "cube_correction"


def _class_labels(labels: Any, source: str) -> None:
    unknown = sorted(set(labels) - set(NETWORK_CLASSES))
    if unknown:
        raise CheckpointError(
            f"{source}: networks for unknown classes {unknown} (expected some of {list(NETWORK_CLASSES)})"
        )


def save_class_checkpoint(
    path: str | os.PathLike,
    networks: Mapping[str, Any],
    training: Mapping[str, dict[str, Any] | None] | None = None,
    config: Mapping[str, dict[str, Any] | None] | None = None,
    bearoff: str = "databases",
    cube_correction: CubeCorrection | None = None,
) -> None:
    """Write torch networks by class label (``{"contact": net, "race": net}``) to one ``.pt`` file.

    ``training`` and ``config`` map labels to each network's trainer state and run config;
    ``cube_correction`` the bot's learned cube correction, if it has one.
    """
    import torch

    _class_labels(networks, f"checkpoint {str(path)!r}")
    if bearoff not in BEAROFF_MODES:
        raise ValueError(f"bearoff {bearoff!r}: expected one of {BEAROFF_MODES}")
    entries = {}
    for label, network in networks.items():
        weights = network.state_dict()
        entries[label] = {
            "format": FORMAT,
            "network_config": network.config.to_dict(),
            "weights": weights,
            "weights_sha256": weights_checksum(weights),
            "training": (training or {}).get(label),
            "config": (config or {}).get(label),
        }
    payload: dict[str, Any] = {"classes_format": CLASSES_FORMAT, "bearoff": bearoff, "networks": entries}
    if cube_correction is not None:
        arrays = cube_correction.arrays()
        payload[CUBE_CORRECTION_KEY] = {
            "arrays": {name: torch.from_numpy(np.array(array)) for name, array in arrays.items()},
            "sha256": weights_checksum(arrays),
        }
    with atomic_write(path) as f:
        torch.save(payload, f)


def export_class_numpy(
    path: str | os.PathLike,
    networks: Mapping[str, tuple[NetworkConfig, Mapping[str, Any]]],
    bearoff: str = "databases",
    cube_correction: CubeCorrection | None = None,
) -> None:
    """Write the serving export (``.npz``) of networks by class label: ``{label: (config, weights)}``,
    and the bot's learned cube correction if it has one."""
    _class_labels(networks, f"checkpoint {str(path)!r}")
    if bearoff not in BEAROFF_MODES:
        raise ValueError(f"bearoff {bearoff!r}: expected one of {BEAROFF_MODES}")
    arrays: dict[str, np.ndarray] = {}
    manifest: dict[str, Any] = {"format": CLASSES_FORMAT, "bearoff": bearoff, "networks": {}}
    for label, (network_config, weights) in networks.items():
        converted = {name: _as_array(value).astype(np.float32) for name, value in weights.items()}
        manifest["networks"][label] = {
            "network_config": network_config.to_dict(),
            "weights_sha256": weights_checksum(converted),
        }
        arrays.update({f"{label}/{name}": array for name, array in converted.items()})
    if cube_correction is not None:
        manifest[CUBE_CORRECTION_KEY] = {"sha256": weights_checksum(cube_correction.arrays())}
        arrays.update({f"{CUBE_CORRECTION_KEY}/{name}": a for name, a in cube_correction.arrays().items()})
    contents: dict[str, Any] = {CLASSES_KEY: np.array(json.dumps(manifest)), **arrays}
    with atomic_write(path) as f:
        np.savez(f, **contents)


def _read_torch_file(path: Path, source: str) -> Any:
    """Whatever the ``.pt`` file at ``path`` holds (weights only): read once its zip directory and object table
    pass ``_check_object_table``, returned once ``_bounded`` has measured it; the one place torch reads a file."""
    import torch

    _check_object_table(path, source)
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a corrupt or foreign file
        raise CheckpointError(f"{source}: unreadable ({type(error).__name__})") from None
    return _bounded(payload, source, path.stat().st_size)


def _class_manifest(payload: Any, source: str) -> tuple[dict[str, Any], str]:
    """(the networks' entries by label, the bear-off mode) of a multi-network payload or manifest."""
    if not isinstance(payload, dict) or payload.get("format", payload.get("classes_format")) != CLASSES_FORMAT:
        raise CheckpointError(f"{source}: not a format-{CLASSES_FORMAT} multi-network checkpoint of this project")
    networks, bearoff = payload.get("networks"), payload.get("bearoff")
    if not isinstance(networks, dict) or not all(isinstance(entry, dict) for entry in networks.values()):
        raise CheckpointError(f"{source}: no table of networks by class")
    if bearoff not in BEAROFF_MODES:
        raise CheckpointError(f"{source}: bear-off mode {bearoff!r}, expected one of {list(BEAROFF_MODES)}")
    _class_labels(networks, source)
    return networks, bearoff


def _npz_class_payloads(
    arrays: dict[str, np.ndarray], source: str
) -> tuple[dict[str, dict[str, Any]], str, CubeCorrection | None] | None:
    """The per-class payloads, bear-off mode and cube correction of a multi-network ``.npz``'s arrays
    (``_read_npz``); None for a single-network one."""
    if CLASSES_KEY not in arrays:
        return None
    try:
        manifest = json.loads(str(arrays.pop(CLASSES_KEY)))
    except Exception as error:  # the manifest of a damaged or foreign file: not JSON
        raise CheckpointError(f"{source}: unreadable numpy export ({type(error).__name__})") from None
    networks, bearoff = _class_manifest(manifest, source)
    payloads: dict[str, dict[str, Any]] = {}
    for label, entry in networks.items():
        prefix = f"{label}/"
        payloads[label] = {
            "format": FORMAT,
            "network_config": entry.get("network_config"),
            "weights_sha256": entry.get("weights_sha256"),
            "weights": {name[len(prefix) :]: array for name, array in arrays.items() if name.startswith(prefix)},
        }
    correction_prefix = f"{CUBE_CORRECTION_KEY}/"
    correction = {
        name[len(correction_prefix) :]: array for name, array in arrays.items() if name.startswith(correction_prefix)
    }
    stray = sorted(
        name for name in arrays if name.split("/", 1)[0] not in networks and not name.startswith(correction_prefix)
    )
    if stray:
        raise CheckpointError(f"{source}: arrays of no listed network ({', '.join(stray[:3])})")
    entry = manifest.get(CUBE_CORRECTION_KEY)
    if entry is None and correction:
        raise CheckpointError(f"{source}: cube-correction arrays the manifest does not list")
    found = (
        None
        if entry is None
        else _checked_correction(
            {"arrays": correction, "sha256": entry.get("sha256") if isinstance(entry, dict) else None}, source
        )
    )
    return payloads, bearoff, found


def _is_class_file(raw: Any) -> bool:
    """Whether what a ``.pt`` file holds is a network per class (``save_class_checkpoint``), not one network."""
    return isinstance(raw, dict) and "classes_format" in raw


def _checked_correction(entry: Any, source: str) -> CubeCorrection:
    """The cube correction stored as ``{"arrays": ..., "sha256": ...}``, checked; else CheckpointError."""
    arrays = entry.get("arrays") if isinstance(entry, dict) else None
    if not isinstance(arrays, Mapping) or not isinstance(entry.get("sha256"), str):
        raise CheckpointError(f"{source}: a damaged cube correction (no arrays or no checksum)")
    try:
        converted = {str(name): _as_array(array) for name, array in arrays.items()}
        correction = CubeCorrection.from_arrays(converted)
    except (TypeError, ValueError, RuntimeError) as error:
        raise CheckpointError(f"{source}: {error}") from None
    if weights_checksum(converted) != entry["sha256"]:
        raise CheckpointError(f"{source}: the cube correction does not match its checksum (the file is damaged)")
    return correction


def load_class_payloads(path: str | os.PathLike) -> tuple[dict[str, dict[str, Any]], str, bool]:
    """(checked payloads by class label, bear-off mode, whether the file holds several networks).

    An old single-network file (``.pt`` or ``.npz``) comes back as ``{"contact": payload}``
    with bear-offs from the databases.
    """
    payloads, bearoff, several, _ = _read_class_file(path)
    return payloads, bearoff, several


def _read_class_file(path: str | os.PathLike) -> tuple[dict[str, dict[str, Any]], str, bool, CubeCorrection | None]:
    """``load_class_payloads``'s answer and the file's cube correction (None if it has none)."""
    path = Path(path)
    source = f"checkpoint {str(path)!r}"
    if path.suffix == ".npz":
        if not path.is_file():
            raise CheckpointError(f"{source}: no such file")
        arrays = _read_npz(path, source)
        multi = _npz_class_payloads(arrays, source)
        if multi is None:
            return {"contact": _load_npz(arrays, source)}, "databases", False, None
        payloads, bearoff, correction = multi
    else:
        raw = _read_torch_file(path, source)
        if not _is_class_file(raw):
            return {"contact": _check_payload(raw, source)}, "databases", False, None
        payloads, bearoff = _class_manifest(raw, source)
        entry = raw.get(CUBE_CORRECTION_KEY)
        correction = None if entry is None else _checked_correction(entry, source)
    checked = {label: _check_payload(payload, f"{source} ({label} network)") for label, payload in payloads.items()}
    return checked, bearoff, True, correction


def load_class_payload(path: str | os.PathLike, label: str = "contact", fallback: bool = True) -> dict[str, Any]:
    """The checked payload of the network that plays ``label`` positions in the checkpoint at ``path``.

    A file of several networks gives that class's own network, else (``fallback``) its contact
    network, as ``ClassEvaluator`` plays, or (not ``fallback``) a CheckpointError; a single-network
    file gives its one network. What training starts from (``--init-from``, distillation) when it
    is handed a shipped bot, and what ``ship`` takes from one.
    """
    if label not in NETWORK_CLASSES:
        raise CheckpointError(f"position class {label!r}: expected one of {list(NETWORK_CLASSES)}")
    payloads, _, several = load_class_payloads(path)
    if several and label not in payloads and not fallback:
        raise _no_network(f"checkpoint {str(path)!r}", [label], payloads)
    return payloads.get(label, payloads["contact"])


def load_player(path: str | os.PathLike) -> ProbabilityEvaluator:
    """What the checkpoint at ``path`` plays as in training's games and searches: a single-network
    file's network on its own in its encoding's game (bear-offs too, as such a network played when it
    was trained), a file of several networks as the bot (``load_evaluator``)."""
    source = f"checkpoint {str(path)!r}"
    payloads, mode, several, correction = _read_class_file(path)  # the file read once
    if several:
        return _class_evaluator(payloads, mode, source, correction=correction)
    network = Network(*checked_weights(payloads["contact"], source))
    return NetworkEvaluator(network, find_variant(network.encoding.game))


def load_evaluator(
    path: str | os.PathLike, required: tuple[str, ...] = ("contact",), bearoff: BearoffDatabases | None = None
) -> ClassEvaluator:
    """The ``bot.evaluation.classes.ClassEvaluator`` of the checkpoint at ``path`` (one network or several).

    Every label in ``required`` must have its own network in the file (an old single-network
    file has ``contact`` only), else CheckpointError. ``bearoff`` (a ``BearoffDatabases``)
    replaces the default databases where the file asks for them.
    """
    payloads, mode, _, correction = _read_class_file(path)
    evaluator = _class_evaluator(payloads, mode, f"checkpoint {str(path)!r}", required, bearoff, correction)
    evaluator.pruner = _pruner_beside(Path(path), payloads)
    return evaluator


def _pruner_beside(path: Path, payloads: Mapping[str, dict[str, Any]]) -> Pruner | None:
    """The rollout pruner beside the bot file ``path`` (``bot.evaluation.prune``), if it was fitted to these networks.

    None without one; a damaged one, or one fitted to other networks, is left out with a warning:
    rollouts then score every play with the full networks, as they would without it.
    """
    network_path, record_path = pruner_paths(path)
    if not network_path.is_file():
        return None
    try:
        record = json.loads(record_path.read_text())
        fitted_to, keep = str(record["fitted_to"]), int(record["keep"])
        network = load_network(network_path)
    except (OSError, ValueError, KeyError, TypeError, CheckpointError) as error:
        warn(f"{network_path}: not used, unreadable ({type(error).__name__}: {error})")
        return None
    if fitted_to != fingerprint({label: str(payload.get("weights_sha256")) for label, payload in payloads.items()}):
        warn(
            f"{network_path}: not used, fitted to other networks than {path.name}'s (refit: python -m training pruner)"
        )
        return None
    return Pruner(network, keep)


def _no_network(source: str, missing: Iterable[str], payloads: Mapping[str, Any]) -> CheckpointError:
    """The error for a file that lacks the networks of the classes ``missing``, naming those it has."""
    return CheckpointError(
        f"{source}: no {' or '.join(dict.fromkeys(missing))} network "
        f"(the file has {', '.join(sorted(payloads)) or 'none'})"
    )


def _class_evaluator(
    payloads: Mapping[str, dict[str, Any]],
    mode: str,
    source: str,
    required: tuple[str, ...] = ("contact",),
    bearoff: BearoffDatabases | None = None,
    correction: CubeCorrection | None = None,
) -> ClassEvaluator:
    """``load_evaluator``'s evaluator from the checked payloads, bear-off mode and cube correction of a file."""
    missing = [label for label in ("contact",) + tuple(required) if label not in payloads]
    if missing:
        raise _no_network(source, missing, payloads)
    networks = {
        label: Network(*checked_weights(payload, f"{source} ({label} network)")) for label, payload in payloads.items()
    }
    for label, network in networks.items():
        if network.encoding.game != "backgammon":
            raise CheckpointError(
                f"{source}: its {label} network plays {network.encoding.game.replace('_', ' ')}, not backgammon"
                + (" (nardy hint --game long-nardy reads it)" if network.encoding.game == "long_nardy" else "")
            )
    databases = (bearoff if bearoff is not None else BearoffDatabases()) if mode == "databases" else None
    return ClassEvaluator(networks, databases, correction)
