"""Shared test helpers: where the read-only shared material lives, fixture loading, a network at the edge."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from bot.evaluation.evaluator import NetworkEvaluator
from bot.facade import Bot
from bot.evaluation.network import NetworkConfig
from training.torch_network import ValueNetwork

SHARED = Path(os.environ.get("NARDY_SHARED", Path(__file__).resolve().parents[2] / "shared"))
# The command line in a process of its own: -P (Python 3.11+) keeps the working directory off
# sys.path, so a folder named ``bot`` there cannot stand in for the package.
PYTHON_M_BOT = [sys.executable, *(["-P"] if sys.version_info >= (3, 11) else []), "-m", "bot"]


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """Keep the assertion-rewritten test modules in ``__pycache__`` even where PYTHONDONTWRITEBYTECODE is set
    (as in many containers): otherwise every test process rewrites every module again, about 5 s of CPU each."""
    dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = dont_write


# The files that take longest (``--durations`` of a full run, longest first) go first, so that the README's two
# processes (``-n 2 --dist loadfile``) share the short ones at the end instead of one running a long file alone.
LONGEST_FIRST = (
    "test_ray.py",
    "test_training_faults.py",
    "test_web_entry_browser.py",
    "test_web_phone_match_browser.py",
    "test_prune.py",
    "test_long_nardy_bot.py",
    "test_web_long_nardy_browser.py",
    "test_checkpoint_hostile.py",
    "test_distill.py",
    "test_cache_healing.py",
    "test_web_browser.py",
    "test_web_tokens.py",
    "test_web_api.py",
    "test_network.py",
    "test_ship_speed.py",
    "test_training.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the ``LONGEST_FIRST`` files first; the others keep their order."""
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def board(mover: dict[int, int], opponent: dict[int, int]) -> np.ndarray:
    """A board from {point: checkers} of each side, both in the mover's numbering (0/25 = bars)."""
    b = np.zeros(26, dtype=np.int8)
    for point, n in mover.items():
        b[point] = n
    for point, n in opponent.items():
        b[point] = -n
    return b


def load_fixture(name: str) -> list[dict]:
    """The records of ``SHARED/fixtures/<name>`` (a .jsonl file), one dict per line."""
    path = SHARED / "fixtures" / name
    if not path.exists():
        pytest.skip(f"fixture {path} not found (set NARDY_SHARED)")
    with path.open() as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture
def shared_dir() -> Path:
    """The shared reference directory (``../shared`` beside the repo, or $NARDY_SHARED)."""
    return SHARED


# Output logits whose float32 softmax, summed into P(win), comes to 1.0000001: a sure gammon for
# the side on roll, one rounding error past 1.
SURE_GAMMON_LOGITS = [
    -16.72304344177246,
    0.0,
    -15.93333625793457,
    -26.781570434570312,
    -26.57658576965332,
    -25.975595474243164,
]


def tiny_bot(seed: int) -> Bot:
    """A bot on a small random network (seeded): the doors' tests need answers, not good ones."""
    torch.manual_seed(seed)
    return Bot(NetworkEvaluator(ValueNetwork(NetworkConfig(hidden=(8,))).eval()))


def sure_gammon_network() -> ValueNetwork:
    """A network that gives every position ``SURE_GAMMON_LOGITS`` (the side on roll wins a gammon)."""
    network = ValueNetwork(NetworkConfig(hidden=(8,)))
    with torch.no_grad():
        network.output_layer.weight.zero_()
        network.output_layer.bias.copy_(torch.tensor(SURE_GAMMON_LOGITS))
    return network.eval()


def wrap_start_actors(monkeypatch, wrap) -> list:
    """Make ``training.train.start_actors`` hand the learner ``wrap(actors)``; the wrapped actors, in order."""
    import training.train

    start_actors = training.train.start_actors
    wrapped: list = []

    def wrapping(*args):
        wrapped.append(wrap(start_actors(*args)))
        return wrapped[-1]

    monkeypatch.setattr(training.train, "start_actors", wrapping)
    return wrapped
