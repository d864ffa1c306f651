"""Training under faults: killed learners, SIGTERM, cut-short writes, damaged and foreign checkpoints.

Every wait here has a timeout; subprocesses run in their own process group, which a
test kills whole (SIGKILL) when it ends, whatever happened.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from bot.evaluation.checkpoint import CheckpointError, load_checkpoint, load_class_payload, load_evaluator, load_network
from training.__main__ import main
from training.config import load_config
from training.train import LATEST, checkpoint_name, train

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs"
SHIPPED = ROOT / "checkpoints" / "default.pt"


def quick(**changes):
    return load_config(CONFIGS / "quick.toml").replace(**changes)


def _write_config(
    path: Path, games: int, workers: int = 1, hidden: int = 32, checkpoint_every: int = 500, encoding: str = "extended"
) -> Path:
    text = (CONFIGS / "quick.toml").read_text()
    text = text.replace("games = 1500", f"games = {games}")
    text = text.replace("checkpoint_every = 500", f"checkpoint_every = {checkpoint_every}")
    text = text.replace("eval_every = 750", "eval_every = 1000000")
    text = text.replace("workers = 1", f"workers = {workers}")
    text = text.replace("hidden = [32]", f'hidden = [{hidden}]\nencoding = "{encoding}"')
    path.write_text(text)
    return path


def _group(pgid: int) -> list[int]:
    """Pids of live (not zombie) processes in process group ``pgid``, read from /proc."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            pids.append(int(entry.name))
    return pids


def _wait_for(condition, timeout: float, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


def _start(args: list[str], cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "training", *args],
        cwd=cwd,
        env=env,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        pass


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")


# The learner dies: its workers and the resource tracker end with it.


@needs_proc
@pytest.mark.slow
def test_sigkill_of_the_learner_leaves_no_worker_or_tracker_behind(tmp_path):
    config = _write_config(tmp_path / "run.toml", games=10**7, workers=2)
    learner = _start(["train", "--config", str(config), "--out", str(tmp_path / "run")], tmp_path)
    try:
        # The learner, the resource tracker and two workers, the workers past their start.
        assert _wait_for(lambda: len(_group(learner.pid)) >= 4, timeout=60), _group(learner.pid)
        time.sleep(3)
        assert learner.poll() is None, learner.communicate(timeout=10)
        _assert_sigkill_leaves_nothing(learner)
    finally:
        _kill_group(learner)


def _assert_sigkill_leaves_nothing(process: subprocess.Popen) -> None:
    """SIGKILL ``process`` alone: soon nothing of its process group may be left (a generous deadline: its workers
    notice on their next poll, which a busy machine delays)."""
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=60)
    left = _wait_for(lambda: not _group(process.pid), timeout=60)
    assert left, f"processes left behind: {_group(process.pid)}"


def _distill_with_workers(tmp_path: Path) -> subprocess.Popen:
    """A distillation computing targets in two worker processes, once all of them are running."""
    shipped = ROOT / "checkpoints" / "default.pt"
    if not shipped.exists():
        pytest.skip("no shipped network")
    run = _start(
        [
            "distill",
            "--checkpoint",
            str(shipped),
            "--out",
            str(tmp_path / "run"),
            "--set",
            "games=100",
            "--set",
            "chunk=256",
            "--set",
            "workers=2",
            "--stage",
            "targets",
        ],
        tmp_path,
    )
    # The run, the resource tracker and two workers.
    assert _wait_for(lambda: len(_group(run.pid)) >= 4, timeout=120), _group(run.pid)
    assert run.poll() is None, run.communicate(timeout=10)
    return run


@needs_proc
@pytest.mark.parametrize("settle", [0.0, 3.0], ids=["workers-starting", "workers-busy"])
@pytest.mark.slow
def test_sigkill_of_a_distillation_leaves_no_target_worker_behind(tmp_path, settle):
    run = _distill_with_workers(tmp_path)
    try:
        time.sleep(settle)
        _assert_sigkill_leaves_nothing(run)
    finally:
        _kill_group(run)


@needs_proc
@pytest.mark.slow
def test_a_killed_target_worker_ends_the_run_with_one_clear_error(tmp_path):
    run = _distill_with_workers(tmp_path)
    try:
        assert _wait_for(lambda: list((tmp_path / "run").glob("targets-*.npz")), timeout=120)
        worker = max(pid for pid in _group(run.pid) if pid != run.pid)  # the last started: a worker
        os.kill(worker, signal.SIGKILL)
        _, err = run.communicate(timeout=60)
        assert run.returncode == 1 and "a target worker died" in err and "Traceback" not in err, err
        assert _wait_for(lambda: not _group(run.pid), timeout=60), _group(run.pid)
        assert list((tmp_path / "run").glob("targets-*.npz"))  # what was done is kept for the rerun
    finally:
        _kill_group(run)


# SIGTERM saves as Ctrl-C does.


@pytest.mark.slow
def test_sigterm_saves_a_resumable_latest_and_exits_like_an_interrupt(tmp_path):
    config = _write_config(tmp_path / "run.toml", games=10**7, checkpoint_every=10**6)
    out = tmp_path / "run"
    learner = _start(["train", "--config", str(config), "--out", str(out)], tmp_path)
    try:
        # Training has started once its TensorBoard file is there; let it play an update or two.
        assert _wait_for(lambda: any(out.glob("events.out.tfevents*")), timeout=60)
        time.sleep(2)
        learner.send_signal(signal.SIGTERM)
        _, err = learner.communicate(timeout=60)
    finally:
        _kill_group(learner)
    assert learner.returncode == 128 + signal.SIGTERM, err
    assert f"continue with --resume --out {out}" in err and "Traceback" not in err
    saved = load_checkpoint(out / LATEST)["training"]
    assert saved["games"] >= 0 and "learner" in saved and "torch_rng" in saved
    assert not list(out.glob(".*.tmp"))
    assert main(["train", "--resume", "--out", str(out), "--set", f"games={saved['games'] + 100}"]) == 0
    assert load_checkpoint(out / LATEST)["training"]["games"] >= saved["games"] + 100


# Cut-short writes and a kill between the two checkpoint writes.


def test_stale_temporaries_are_removed_at_start(tmp_path, capsys):
    stale = [tmp_path / ".latest.pt.abc123.tmp", tmp_path / f".{checkpoint_name(500)}.x.tmp"]
    for path in stale:
        path.write_bytes(b"half a checkpoint")
    keep = tmp_path / "notes.tmp"
    keep.write_text("not ours")
    train(quick(games=100, eval_every=10**6), tmp_path)
    assert not any(path.exists() for path in stale) and keep.exists()
    assert "removed 2 temporary file(s)" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["deleted", "truncated"])
@pytest.mark.slow
def test_resume_falls_back_to_the_newest_numbered_checkpoint_that_loads(tmp_path, capsys, damage):
    train(quick(games=300, checkpoint_every=100, eval_every=10**6), tmp_path)
    numbered = sorted(tmp_path.glob("games-*.pt"))
    assert len(numbered) >= 2
    newest = load_checkpoint(numbered[-1])["training"]["games"]
    if damage == "deleted":
        (tmp_path / LATEST).unlink()
        expected = newest
    else:  # latest.pt and the newest numbered one both cut short: the one before it is used
        for path in (tmp_path / LATEST, numbered[-1]):
            data = path.read_bytes()
            path.write_bytes(data[: len(data) // 2])
        expected = load_checkpoint(numbered[-2])["training"]["games"]
    capsys.readouterr()
    train(quick(games=expected + 100, checkpoint_every=100, eval_every=10**6), tmp_path, resume=True)
    err = capsys.readouterr().err
    assert "resuming from games-" in err and (damage == "deleted" and "no such file" in err or "unreadable" in err)
    assert load_checkpoint(tmp_path / LATEST)["training"]["games"] >= expected + 100


def test_latest_is_written_before_the_numbered_checkpoint(tmp_path, monkeypatch):
    import training.train as module

    written = []
    real = module.save_checkpoint
    monkeypatch.setattr(
        module, "save_checkpoint", lambda path, *args: (written.append(Path(path).name), real(path, *args))
    )
    train(quick(games=100, checkpoint_every=100, eval_every=10**6), tmp_path)
    assert written[:2] == [LATEST, checkpoint_name(load_checkpoint(tmp_path / LATEST)["training"]["games"])]


# Malformed checkpoints: one clear CheckpointError, through the loader and the command line.


def _junk_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", os.urandom(600))
        archive.writestr("archive/version", "3\n")
    assert len(buffer.getvalue()) <= 1024
    return buffer.getvalue()


def _malformed(kind: str, path: Path, good: Path) -> None:
    """Write at ``path`` a checkpoint damaged in the way ``kind`` names, made from the good one at ``good``."""
    if kind in ("truncated", "flipped byte", "junk zip"):
        data = bytearray(good.read_bytes())
        if kind == "truncated":
            data = data[: len(data) * 2 // 3]
        elif kind == "flipped byte":  # inside the first layer's weights (the biggest record)
            with zipfile.ZipFile(good) as archive:
                member = max(archive.infolist(), key=lambda m: m.file_size)
            offset = (
                member.header_offset + 30 + len(member.filename.encode()) + len(member.extra) + member.file_size // 2
            )
            data[offset] ^= 0x10
        else:
            data = bytearray(_junk_zip())
        path.write_bytes(bytes(data))
        return
    payload = torch.load(good, weights_only=True)
    if kind == "network_config types":
        payload["network_config"] = {"encoding": 5, "hidden": "many", "activation": None}
    elif kind == "missing weights":
        del payload["weights"]
    elif kind == "extra keys":
        payload["surprise"] = {"a": 1}
    elif kind == "non-tensor weights":
        payload["weights"] = {name: "not a tensor" for name in payload["weights"]}
        payload.pop("weights_sha256")
    torch.save(payload, path)


KINDS = [
    "network_config types",
    "missing weights",
    "extra keys",
    "non-tensor weights",
    "flipped byte",
    "truncated",
    "junk zip",
]


@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> Path:
    """A run directory with a finished quick run (its latest.pt is a good resumable checkpoint)."""
    run = tmp_path_factory.mktemp("good")
    train(quick(games=100, eval_every=10**6), run)
    for numbered in run.glob("games-*.pt"):
        numbered.unlink()  # a resume of a damaged latest.pt has nothing to fall back to
    return run


@pytest.mark.parametrize("kind", KINDS)
def test_malformed_checkpoints_give_one_clear_error(tmp_path, capsys, good_run, kind):
    bad = tmp_path / "run" / LATEST
    bad.parent.mkdir()
    _malformed(kind, bad, good_run / LATEST)
    with pytest.raises(CheckpointError, match=r"checkpoint '.*latest.pt': \w") as raised:
        load_network(bad)
    message = str(raised.value)
    assert "\n" not in message
    # The command line: exit status 2 and one error line, with --config and without.
    capsys.readouterr()
    for args in (
        ["train", "--config", str(CONFIGS / "quick.toml"), "--resume", "--out", str(bad.parent)],
        ["train", "--resume", "--out", str(bad.parent)],
        ["evaluate", "--checkpoint", str(bad), "--opponent", "random", "--set", "games=2"],
    ):
        assert main(args) == 2, args
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and "\n" not in err and "latest.pt" in err, (args, err)


def test_a_flipped_weight_byte_is_caught_by_the_checksum(tmp_path, good_run):
    _malformed("flipped byte", tmp_path / "bad.pt", good_run / LATEST)
    with pytest.raises(CheckpointError, match="the weights do not match their checksum"):
        load_network(tmp_path / "bad.pt")


def test_a_damaged_training_state_is_caught(tmp_path, good_run):
    payload = torch.load(good_run / LATEST, weights_only=True)
    payload["training"]["games"] += 1  # the checksum no longer fits
    torch.save(payload, tmp_path / "changed.pt")
    with pytest.raises(CheckpointError, match="training state does not match its checksum"):
        load_checkpoint(tmp_path / "changed.pt")
    for training, message in (
        ({"games": "many"}, "count of games"),
        ({"games": 5, "wall_seconds": float("nan")}, "training time"),
        ({"games": 5, "learner": {"optimizer": {}, "steps": 1, "rng": {}}, "torch_rng": torch.zeros(3)}, "optimizer"),
    ):
        payload["training"] = training
        payload.pop("training_sha256", None)
        (tmp_path / "run").mkdir(exist_ok=True)
        torch.save(payload, tmp_path / "run" / LATEST)
        with pytest.raises(CheckpointError, match=message):
            train(quick(games=200), tmp_path / "run", resume=True)


@pytest.mark.slow
def test_a_subprocess_resume_of_a_damaged_checkpoint_prints_no_traceback(tmp_path, good_run):
    run = tmp_path / "run"
    run.mkdir()
    _malformed("junk zip", run / LATEST, good_run / LATEST)
    result = subprocess.run(
        [sys.executable, "-m", "training", "train", "--resume", "--out", str(run)],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and result.stderr.strip().startswith("error: ") and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


# The shipped checkpoint: no trainer state to resume, but a new run can start from its weights.


@pytest.mark.skipif(not SHIPPED.exists(), reason="no shipped checkpoint")
def test_resume_of_the_shipped_checkpoint_says_to_use_init_from(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / LATEST).write_bytes(SHIPPED.read_bytes())
    config = _write_config(tmp_path / "td384.toml", games=200, hidden=384)
    assert main(["train", "--config", str(config), "--resume", "--out", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "no trainer state" in err and f"--init-from {run / LATEST}" in err


@pytest.mark.skipif(not SHIPPED.exists(), reason="no shipped checkpoint")
@pytest.mark.slow
def test_init_from_the_shipped_checkpoint(tmp_path, capsys):
    shipped = load_evaluator(SHIPPED).networks["contact"]  # the network a run starts from (``load_class_payload``)
    described = load_config(CONFIGS / "shipped.toml").network
    assert shipped.config == described, "configs/shipped.toml describes the shipped network"
    config = _write_config(
        tmp_path / "shipped.toml", games=300, hidden=described.hidden[0], encoding=described.encoding
    )
    out = tmp_path / "run"
    assert main(["train", "--config", str(config), "--init-from", str(SHIPPED), "--out", str(out)]) == 0
    trained = load_checkpoint(out / LATEST)
    assert 300 <= trained["training"]["games"] < 300 + 2048  # counted from zero, a new run
    name = "hidden_layers.0.weight"
    start = load_class_payload(SHIPPED)["weights"][name].numpy().ravel()
    now = trained["weights"][name].numpy().ravel()
    assert np.corrcoef(start, now)[0, 1] > 0.95, "training went on from the shipped weights"
    # A network of another shape is refused with the difference named; --resume and --init-from exclude each other.
    capsys.readouterr()
    assert (
        main(
            [
                "train",
                "--config",
                str(CONFIGS / "quick.toml"),
                "--init-from",
                str(SHIPPED),
                "--out",
                str(tmp_path / "other"),
            ]
        )
        == 2
    )
    assert (
        "network shape differs from the config (encoding: checkpoint has 'hits', config asks for 'extended', "
        "hidden: checkpoint has (512,), config asks for (32,))"
    ) in capsys.readouterr().err
    assert main(["train", "--config", str(config), "--init-from", str(SHIPPED), "--resume", "--out", str(out)]) == 2
    assert "give one of them" in capsys.readouterr().err


def test_a_small_file_claiming_huge_records_is_refused_before_loading(tmp_path):
    data = bytearray(_junk_zip())
    directory = data.rindex(b"PK\x01\x02")  # the last member's central directory entry
    data[directory + 20 : directory + 28] = b"\xff\xff\xff\xfe" * 2  # its compressed and stored sizes: ~4 GB
    (tmp_path / "huge.pt").write_bytes(bytes(data))
    assert len(data) <= 1024
    with pytest.raises(CheckpointError, match="damaged|unreadable"):
        load_checkpoint(tmp_path / "huge.pt")
