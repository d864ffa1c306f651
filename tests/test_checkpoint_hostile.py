"""Hostile ``.pt`` files: every checkpoint reader refuses them with one line naming what it refused, without a
walk that spins, an allocation the file only claims, or a traceback.

Each file is a few hundred bytes to a few hundred kilobytes built here; what it claims (a DAG of 2**48 paths,
80 GB behind a zero stride, 100,000 levels of nesting) is never built.
"""

from __future__ import annotations

import io
import os
import re
import resource
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import torch

from conftest import tiny_bot
from bot.doors.ubgi import UbgiEngine, serve
from bot.evaluation.checkpoint import (
    FORMAT,
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_OBJECT_BYTES,
    MAX_VALUES,
    CheckpointError,
    load_checkpoint,
    load_class_payload,
    load_evaluator,
    load_network,
    load_player,
    weights_checksum,
)
from bot.evaluation.network import NetworkConfig
from training.__main__ import main as training_main
from training.config import load_config
from training.td import Learner
from training.torch_network import ValueNetwork
from training.train import LATEST, _save, resume_point

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "quick.toml"
START = "4HPwATDgc/ABMA"
HOLE = "HOLE"  # a string in the training state that ``_inject`` replaces with raw pickle opcodes


def _doubling(levels: int) -> list:
    """Lists ``levels`` deep, each holding its child twice: 2**levels paths to the bottom, levels + 1 objects."""
    node: list = [0]
    for _ in range(levels):
        node = [node, node]
    return node


def _write(path: Path, training: Any) -> Path:
    """A checkpoint of a small network whose trainer state is ``training``, with a training checksum to verify
    (a reader checks it by walking the state)."""
    torch.manual_seed(0)
    weights = ValueNetwork(NetworkConfig(hidden=(8,))).state_dict()
    payload = {
        "format": FORMAT,
        "network_config": NetworkConfig(hidden=(8,)).to_dict(),
        "weights": weights,
        "weights_sha256": weights_checksum(weights),
        "training": training,
        "training_sha256": "0" * 64,
        "config": None,
    }
    torch.save(payload, path)
    return path


def _members(path: Path) -> list[tuple[zipfile.ZipInfo, bytes]]:
    with zipfile.ZipFile(path) as archive:
        return [(info, archive.read(info)) for info in archive.infolist()]


def _inject(path: Path, opcodes: bytes) -> Path:
    """A checkpoint whose trainer state holds, under ``"w"``, what the pickle ``opcodes`` build."""
    _write(path, {"games": 1, "w": HOLE})
    placeholder = b"X" + len(HOLE).to_bytes(4, "little") + HOLE.encode()  # torch.save's protocol 2
    members = _members(path)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for info, data in members:
            if info.filename.endswith("/data.pkl"):
                assert data.count(placeholder) == 1
                data = data.replace(placeholder, opcodes)
            archive.writestr(info.filename, data)
    return path


def _patch(path: Path, signature: bytes, offset: int, value: int, width: int, after: bytes = b"") -> Path:
    """``path`` with the little-endian field at ``offset`` of its last zip record ``signature`` (the one followed
    by ``after``, if given) set to ``value``."""
    data = bytearray(path.read_bytes())
    at = data.rfind(signature) if not after else data.rfind(signature, 0, data.rfind(after))
    data[at + offset : at + offset + width] = value.to_bytes(width, "little")
    path.write_bytes(bytes(data))
    return path


def _huge_member(path: Path) -> Path:
    """A checkpoint whose zip directory says a tensor's data is 4 GB."""
    _write(path, {"games": 1})
    return _patch(path, b"PK\x01\x02", 24, 0xFFFFFFF0, 4, after=b"PK\x05\x06")


def _huge_directory(path: Path) -> Path:
    """A checkpoint whose zip64 end record says its directory is 256 MB (zipfile would read and parse that)."""
    _write(path, {"games": 1})
    return _patch(path, b"PK\x06\x06", 40, 256 << 20, 8)


def _huge_file(path: Path) -> Path:
    """A file one byte over the size a checkpoint may have (sparse: nothing is written)."""
    with path.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    return path


LONG_PUT, LONG_GET = b"r" + (99_999).to_bytes(4, "little"), b"j" + (99_999).to_bytes(4, "little")
HOSTILE: dict[str, tuple[Callable[[Path], Path], str]] = {
    "a DAG 48 levels deep": (
        lambda p: _write(p, {"games": 1, "learner": _doubling(48)}),
        f"its 'training' nests more than {MAX_DEPTH} levels deep",
    ),
    "a DAG of 2**21 paths": (
        lambda p: _write(p, {"games": 1, "learner": _doubling(20)}),
        f"its 'training' holds more than {MAX_VALUES:,} values",
    ),
    "a zero stride claiming 2 GB": (
        lambda p: _write(p, {"games": 1, "w": torch.zeros(1).expand(1 << 29)}),
        r"its 'training' holds a tensor float32\[536870912\] claiming 2,147,483,648 bytes of a storage of 4$",
    ),
    "a zero stride claiming 80 GB": (
        lambda p: _write(p, {"games": 1, "w": torch.zeros(1).expand(20 << 30)}),
        r"claiming 85,899,345,920 bytes of a storage of 4$",
    ),
    "lists 100,000 deep": (
        lambda p: _inject(p, b"]" * 100_000 + b"a" * 99_999),
        f"its 'training' nests more than {MAX_DEPTH} levels deep",
    ),
    "a list holding itself": (lambda p: _inject(p, b"]" + LONG_PUT + LONG_GET + b"a"), "its 'training' holds itself"),
    "bytearray(2 GB)": (
        lambda p: _inject(p, b"cbuiltins\nbytearray\n(J" + (0x7FFFFFFF).to_bytes(4, "little") + b"tR"),
        "it calls builtins.bytearray, which no checkpoint of this project holds",
    ),
    "an integer of 2,000 bits": (
        lambda p: _inject(p, b"\x8a\xfb" + (1 << 1999).to_bytes(251, "little", signed=True)),  # LONG1
        r"its 'training' holds an integer of 2,000 bits \(at most 1024\)",
    ),
    "an object table over its bound": (
        lambda p: _write(p, {"games": 1, "w": "x" * MAX_OBJECT_BYTES}),
        rf"its object table '[^']*data.pkl' is [\d,]+ bytes \(at most {MAX_OBJECT_BYTES:,}\)",
    ),
    "a zip member claiming 4 GB": (_huge_member, r"damaged \(its zip directory claims more data than the file holds\)"),
    "a zip directory claiming 256 MB": (_huge_directory, r"refused, its zip directory claims 268,435,456 bytes"),
    "a file over the size bound": (_huge_file, f"refused, {MAX_FILE_BYTES + 1:,} bytes"),
}
# Refused after a walk of its 100,000 levels: about 0.4 s a reader.
SLOW_TO_REFUSE = {"lists 100,000 deep"}
READERS = {
    "load_checkpoint": load_checkpoint,
    "load_class_payload": load_class_payload,
    "load_network": load_network,
    "load_player": load_player,
    "load_evaluator": load_evaluator,
}


@pytest.fixture(
    params=[pytest.param(name, marks=pytest.mark.slow) if name in SLOW_TO_REFUSE else name for name in sorted(HOSTILE)]
)
def hostile(request, tmp_path) -> tuple[Path, str]:
    """(a hostile checkpoint, a pattern of the refusal that names what it is)."""
    build, refusal = HOSTILE[request.param]
    return build(tmp_path / "hostile.pt"), refusal


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_library_reader_refuses_every_hostile_file_naming_what(hostile, reader):
    path, refusal = hostile
    with pytest.raises(CheckpointError) as raised:
        READERS[reader](path)
    message = str(raised.value)
    assert message.startswith(f"checkpoint {str(path)!r}: ") and "\n" not in message
    assert re.search(refusal, message), message


def _without_much_memory() -> None:
    """Cap the child's data at 2 GiB: materializing what a hostile file claims would fail there."""
    resource.setrlimit(resource.RLIMIT_DATA, (2 << 30, 2 << 30))


def _nardy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_without_much_memory,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["a DAG 48 levels deep", "a zero stride claiming 80 GB", "lists 100,000 deep", "bytearray(2 GB)"]
)
def test_nardy_hint_answers_one_error_line(tmp_path, name):
    build, refusal = HOSTILE[name]
    path = build(tmp_path / "hostile.pt")
    result = _nardy("hint", "--checkpoint", str(path), START, "31")
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"error: checkpoint {str(path)!r}: ") and re.search(refusal, result.stderr)


@pytest.mark.slow
def test_nardy_hint_reads_a_training_checkpoint_within_the_memory_cap(tmp_path):
    """The cap of the test above leaves an ordinary checkpoint room to load and play."""
    result = _nardy("hint", "--checkpoint", str(_training_checkpoint(tmp_path)), START, "31")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert " 1. " in result.stdout


def test_ubgi_refuses_the_checkpoint_and_keeps_reading_commands(tmp_path):
    build, refusal = HOSTILE["a DAG 48 levels deep"]
    path = build(tmp_path / "dag.pt")
    out: list[str] = []
    engine = UbgiEngine(tiny_bot(7), out.append)  # engine.checkpoint reads files with the bot's own loader
    lines = f"set engine.checkpoint {path}\nget engine.checkpoint\nisready\nquit\n"
    serve(engine, io.BytesIO(lines.encode()), background=False)
    assert out[0].startswith(f"error bad_value engine.checkpoint checkpoint {str(path)!r}: refused, ")
    assert re.search(refusal, out[0])
    assert out[1:] == ["value engine.checkpoint default", "readyok"]


def _training_checkpoint(directory: Path) -> Path:
    """A run's ``latest.pt`` as training writes it: a quick network, its Adam state after one step, the random
    states and the config (no games are played)."""
    config = load_config(QUICK)
    torch.manual_seed(0)
    network = ValueNetwork(config.network)
    learner = Learner(network, config.learning, np.random.default_rng(0))
    for parameter in network.parameters():
        parameter.grad = torch.ones_like(parameter)
    learner.optimizer.step()
    run = directory / "run"
    run.mkdir()
    _save(run, network, learner, config, games=100, wall_seconds=1.5)
    return run / LATEST


@pytest.mark.slow
def test_a_training_checkpoint_is_within_every_bound(tmp_path):
    path = _training_checkpoint(tmp_path)
    found, payload = resume_point(path.parent)
    assert found == path and payload["training"]["games"] == 100
    assert payload["training"]["learner"]["optimizer"]["state"], "the Adam state after a step"


@pytest.mark.parametrize("name", ["a DAG 48 levels deep", "a zero stride claiming 80 GB", "bytearray(2 GB)"])
def test_training_resume_init_from_and_evaluate_answer_one_error_line(tmp_path, capsys, name):
    build, refusal = HOSTILE[name]
    run = tmp_path / "run"
    run.mkdir()
    path = build(run / LATEST)
    commands = {
        "resume": ["train", "--resume", "--out", str(run)],
        "init-from": ["train", "--config", str(QUICK), "--init-from", str(path), "--out", str(tmp_path / "new")],
        "evaluate": ["evaluate", "--checkpoint", str(path), "--opponent", "random"],
        "evaluate against it": [
            "evaluate",
            "--checkpoint",
            str(ROOT / "checkpoints" / "default.npz"),
            "--opponent",
            str(path),
        ],
    }
    for command, argv in commands.items():
        assert training_main(argv) == 2, command
        captured = capsys.readouterr()
        assert captured.out == "" and len(captured.err.splitlines()) == 1, (command, captured.err)
        assert captured.err.startswith(f"error: checkpoint {str(path)!r}: refused, "), (command, captured.err)
        assert re.search(refusal, captured.err), (command, captured.err)
    assert not (tmp_path / "new" / LATEST).exists()
