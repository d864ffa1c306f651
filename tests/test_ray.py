"""The Ray self-play backend: a clear error without Ray, a local instance that trains to the end
while actors are killed, resume, nothing left running; and the learner's device setting.

The tests that start Ray are skipped (with the reason) where Ray is not installed
(``pip install 'nardy[ray]'``); each starts a local instance of 2 CPUs and stops it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from conftest import wrap_start_actors

from bot.evaluation.checkpoint import load_checkpoint
from training.config import Config, ConfigError, LearningConfig, SelfPlayConfig, load_config
from training.train import LATEST, train

ROOT = Path(__file__).resolve().parents[1]


def small(games: int, **selfplay) -> Config:
    """configs/quick.toml, shortened, with Ray actors (a local instance of ``workers`` CPUs)."""
    config = load_config(ROOT / "configs" / "quick.toml")
    settings = {"parallel_games": 64, "workers": 2, "backend": "ray"} | selfplay
    return config.replace(games=games, checkpoint_every=300, eval_every=10**6, selfplay=SelfPlayConfig(**settings))


def _ray_children() -> list[str]:
    """Command lines of this process's children that belong to Ray (a local instance's processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid() and "ray" in command.lower():
            found.append(command)
    return found


# Without Ray, and the device setting: no Ray needed.


def test_ray_backend_without_ray_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(ConfigError, match=r"pip install 'nardy\[ray\]'"):
        train(small(100), tmp_path)
    assert not (tmp_path / "config.toml").exists(), "the error comes before the run writes anything"


@pytest.mark.slow
def test_importing_training_does_not_import_ray():
    code = "import sys, training.train, training.actors, training.__main__; assert 'ray' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


@pytest.mark.slow
def test_learner_device_setting(tmp_path):
    config = load_config(ROOT / "configs" / "quick.toml")
    with pytest.raises(ConfigError, match="learning.device"):
        config.replace(learning=LearningConfig(device="tpu"))
    if not torch.cuda.is_available():
        cuda = config.replace(games=50, learning=LearningConfig(device="cuda"))
        with pytest.raises(ConfigError, match="'cuda' asked for, but torch sees no CUDA GPU"):
            train(cuda, tmp_path)
    # "auto" trains where torch finds a device; on a CPU machine exactly as "cpu" does.
    auto = config.replace(
        games=100, eval_every=10**6, learning=LearningConfig(device="auto", batch_size=64, samples_per_update=2048)
    )
    cpu = auto.replace(learning=LearningConfig(device="cpu", batch_size=64, samples_per_update=2048))
    first, second = train(auto, tmp_path / "auto"), train(cpu, tmp_path / "cpu")
    if not torch.cuda.is_available():
        for (name, a), b in zip(first.state_dict().items(), second.state_dict().values()):
            assert torch.equal(a, b), name


# A local Ray instance.


class _KillingActors:
    """The run's RayActors; after its 1st batch one actor's process is SIGKILLed, after its 3rd the other is
    ray.kill-ed."""

    def __init__(self, actors) -> None:
        self.actors = actors
        self.batches = 0
        self.pids: list[int] = []

    def next_samples(self):
        import ray

        samples = self.actors.next_samples()
        self.batches += 1
        handles = self.actors.actors
        if self.batches == 1:
            self.pids = ray.get([actor.pid.remote() for actor in handles])
            os.kill(self.pids[0], signal.SIGKILL)  # a crash
        elif self.batches == 3:
            ray.kill(handles[1], no_restart=False)  # Ray's own kill, restart allowed
        return samples

    def publish(self, network) -> None:
        self.actors.publish(network)

    def close(self) -> None:
        import ray

        self.restarted_pids = ray.get([actor.pid.remote() for actor in self.actors.actors], timeout=60)
        self.gone = list(self.actors.gone)
        self.actors.close()


@pytest.mark.slow
def test_ray_run_survives_killed_actors_then_resumes(tmp_path, monkeypatch):
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'nardy[ray]')")
    wrapped = wrap_start_actors(monkeypatch, _KillingActors)
    config = small(900)
    train(config, tmp_path)
    fake = wrapped[0]
    assert fake.batches > 3
    assert not fake.gone, "both actors came back"
    assert all(new != old for new, old in zip(fake.restarted_pids, fake.pids)), "Ray restarted both actors"
    saved = load_checkpoint(tmp_path / LATEST)["training"]
    assert saved["games"] >= config.games
    assert not ray.is_initialized() and not _ray_children(), "the run's local instance is gone"

    monkeypatch.undo()
    train(config.replace(games=saved["games"] + 200), tmp_path, resume=True)
    resumed = load_checkpoint(tmp_path / LATEST)["training"]
    assert resumed["games"] >= saved["games"] + 200 and resumed["learner"]["steps"] > saved["learner"]["steps"]
    assert not ray.is_initialized() and not _ray_children()
