"""Config loading, TD(lambda) returns, self-play, training runs, checkpoints and resume."""

from __future__ import annotations

import math
import os
import re
import signal
from pathlib import Path

import numpy as np
import pytest

from conftest import wrap_start_actors

from bot.evaluation.checkpoint import CheckpointError, load_checkpoint, load_network
from bot.evaluation.evaluator import NetworkEvaluator, RandomEvaluator
from bot.evaluation.network import NetworkConfig
from training.torch_network import ValueNetwork
from bot.equity.outcomes import INVERT6
from engine import START
from training.__main__ import main
from training.config import Config, ConfigError, config_from_dict, config_to_toml, load_config
from training.evaluate import evaluate
from training.selfplay import SelfPlay, lambda_returns, opening_dice
from training.train import LATEST, checkpoint_name, train

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def quick(**changes) -> Config:
    return load_config(CONFIGS / "quick.toml").replace(**changes)


# Config.


def test_shipped_configs_load_and_round_trip(tmp_path):
    for name in ("quick.toml", "td.toml"):
        config = load_config(CONFIGS / name)
        (tmp_path / name).write_text(config_to_toml(config))
        assert load_config(tmp_path / name) == config
    assert load_config(CONFIGS / "td.toml").network.hidden == (128,)


def test_unknown_keys_and_bad_values_are_named(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[learning]\nlearning_rat = 0.1\n")
    with pytest.raises(ConfigError, match=r"bad.toml.*'learning.learning_rat': unknown"):
        load_config(path)
    path.write_text("games = 'many'\n")
    with pytest.raises(ConfigError, match="'games': expected int"):
        load_config(path)
    path.write_text("[network]\nactivation = 'softplus'\n")
    with pytest.raises(ConfigError, match="activation"):
        load_config(path)
    with pytest.raises(ConfigError, match="td_lambda"):
        config_from_dict({"learning": {"td_lambda": 1.5}})
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")


@pytest.mark.parametrize(
    "data, named",
    [
        ({"network": {"hidden": [1000000, 1000000]}}, "'network.hidden': must be 1..4096 units in each layer"),
        ({"network": {"hidden": [8] * 9}}, "'network.hidden': must be 1..8 layers"),
        ({"selfplay": {"parallel_games": 100000000}}, "'selfplay.parallel_games': must be 1..65536, got 100000000"),
        ({"selfplay": {"workers": 10000}}, "'selfplay.workers': must be 0..1024, got 10000"),
        ({"selfplay": {"ray_max_restarts": -2}}, "'selfplay.ray_max_restarts': must be -1..1000"),
        ({"learning": {"batch_size": 0}}, "'learning.batch_size': must be 1..65536, got 0"),
        ({"learning": {"samples_per_update": 1 << 40}}, "'learning.samples_per_update': must be 1..1048576"),
        ({"learning": {"learning_rate": float("inf")}}, "'learning.learning_rate': must be a positive number"),
        ({"seed": -1}, "'seed': must be 0..9223372036854775807, got -1"),
        ({"games": 10**30}, "'games': must be 1..1000000000000"),
        ({"eval_games": 0}, "'eval_games': must be 2..1000000"),
        ({"torch_threads": 100000}, "'torch_threads': must be 0..1024"),
    ],
)
def test_every_size_and_count_is_bounded_with_the_key_named(data, named):
    with pytest.raises(ConfigError, match=re.escape(named)):
        config_from_dict(data)


def test_every_shipped_config_is_within_the_bounds():
    for path in CONFIGS.glob("*.toml"):
        load_config(path)


def test_more_worker_processes_than_the_cores_can_take_are_refused_before_any_starts():
    from training.actors import check_backend
    from training.config import WORKERS_PER_CORE

    too_many = WORKERS_PER_CORE * (os.cpu_count() or 1) + 1
    with pytest.raises(ConfigError, match=f"'selfplay.workers': {too_many} processes is more than"):
        check_backend(config_from_dict({"selfplay": {"workers": too_many}}))
    check_backend(config_from_dict({"selfplay": {"workers": 2}}))


# TD(lambda) returns and self-play.


def test_lambda_returns_by_hand():
    # Three moves; the third wins a gammon for its mover (one-hot).
    y0 = np.array([0.1, 0.2, 0.1, 0.3, 0.2, 0.1])
    y1 = np.array([0.4, 0.1, 0.0, 0.3, 0.1, 0.1])
    y2 = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    steps = np.stack([y0, y1, y2])[None].astype(np.float32)
    lam = 0.5
    g2 = y2
    g1 = 0.5 * y1 + 0.5 * g2[INVERT6]
    g0 = 0.5 * y0 + 0.5 * g1[INVERT6]
    got = lambda_returns(steps, np.array([3]), lam)[0]
    np.testing.assert_allclose(got, np.stack([g0, g1, g2]), atol=1e-6)
    # lambda = 1: the real result, seen by each mover; lambda = 0: one-step targets.
    np.testing.assert_allclose(lambda_returns(steps, np.array([3]), 1.0)[0], [y2, y2[INVERT6], y2], atol=1e-6)
    np.testing.assert_allclose(lambda_returns(steps, np.array([3]), 0.0)[0], steps[0], atol=1e-6)
    # A shorter game in the same batch ends at its own length.
    padded = np.concatenate([steps, np.stack([y1, y2, y0])[None].astype(np.float32)])
    np.testing.assert_allclose(lambda_returns(padded, np.array([3, 2]), lam)[1, :2], [0.5 * y1 + 0.5 * y2[INVERT6], y2])


def test_self_play_games_start_at_start_and_end_with_the_real_result():
    network = NetworkEvaluator(ValueNetwork(NetworkConfig(hidden=(8,))))
    samples = SelfPlay(8, 0.7, 0.0, np.random.default_rng(0)).play(network, 1)
    starts = np.flatnonzero((samples.boards == START).all(axis=1))
    assert len(starts) == samples.games and starts[0] == 0
    finals = samples.targets[np.append(starts[1:], len(samples)) - 1]
    assert ((finals == 1).sum(axis=1) == 1).all() and finals[:, :3].sum() == samples.games
    assert (np.bincount(finals.argmax(axis=1), minlength=3) == samples.results).all()


def test_opening_rolls_are_never_doubles():
    dice = opening_dice(1000, np.random.default_rng(0))
    assert (dice[:, 0] != dice[:, 1]).all() and len({tuple(d) for d in dice}) == 30


# Training runs.


@pytest.mark.slow
def test_quick_training_beats_a_random_player(tmp_path):
    network = train(quick(), tmp_path)
    result = evaluate(NetworkEvaluator(network.eval()), RandomEvaluator(np.random.default_rng(5)), 200, seed=5)
    assert result.win_rate > 0.75 and result.ppg - result.ppg_interval > 0.5, result.summary()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "config.toml" in names and LATEST in names and any(n.startswith("events.out.tfevents") for n in names)
    assert load_config(tmp_path / "config.toml") == quick()
    payload = load_checkpoint(tmp_path / LATEST)
    assert payload["training"]["games"] >= 1500 and (tmp_path / checkpoint_name(payload["training"]["games"])).exists()


@pytest.mark.slow
def test_resume_continues_from_latest(tmp_path):
    first = train(quick(games=300, checkpoint_every=100, eval_every=10**6), tmp_path)
    saved = load_checkpoint(tmp_path / LATEST)
    played = saved["training"]["games"]
    # Resuming a finished run changes nothing: same weights, optimizer and counts come back.
    again = train(quick(games=played, checkpoint_every=100, eval_every=10**6), tmp_path, resume=True)
    boards = np.tile(START, (1, 1))
    np.testing.assert_array_equal(again.probabilities(boards), first.probabilities(boards))
    # Resuming for more games continues the count and the optimizer's step count.
    train(quick(games=played + 200, checkpoint_every=100, eval_every=10**6), tmp_path, resume=True)
    resumed = load_checkpoint(tmp_path / LATEST)["training"]
    assert resumed["games"] >= played + 200
    assert resumed["learner"]["steps"] > saved["training"]["learner"]["steps"]
    assert resumed["wall_seconds"] > saved["training"]["wall_seconds"] > 0, "training time adds up across resumes"


class _CtrlCDuringFirstUpdate:
    """In-process self-play; a Ctrl-C (SIGINT) comes while the first update is published."""

    def __init__(self, actors) -> None:
        self.actors = actors
        self.updates: list[int] = []  # samples of each update

    def next_samples(self):
        samples = self.actors.next_samples()
        self.updates.append(len(samples))
        return samples

    def publish(self, network) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        self.actors.publish(network)

    def close(self) -> None:
        self.actors.close()


@pytest.mark.slow
def test_ctrl_c_saves_latest_and_resume_continues(tmp_path, monkeypatch, capsys):
    fakes = wrap_start_actors(monkeypatch, _CtrlCDuringFirstUpdate)
    out = tmp_path / "run"
    assert main(["train", "--config", str(CONFIGS / "quick.toml"), "--out", str(out)]) == 130
    assert f"continue with --resume --out {out}" in capsys.readouterr().err
    # The update the Ctrl-C came in was finished, then saved with its games.
    saved = load_checkpoint(out / LATEST)["training"]
    assert fakes[0].updates == [fakes[0].updates[0]]
    assert saved["learner"]["steps"] == math.ceil(fakes[0].updates[0] / quick().learning.batch_size)
    assert 0 < saved["games"] < quick().games
    monkeypatch.undo()
    assert main(["train", "--resume", "--out", str(out), "--set", f"games={saved['games'] + 100}"]) == 0
    resumed = load_checkpoint(out / LATEST)["training"]
    assert resumed["games"] >= saved["games"] + 100 and resumed["learner"]["steps"] > saved["learner"]["steps"]


def test_resume_with_another_network_shape_is_refused(tmp_path):
    train(quick(games=100, eval_every=10**6), tmp_path)
    other = quick(games=200).network.to_dict() | {"hidden": [16]}
    config = quick(games=200, network=NetworkConfig(**other))
    with pytest.raises(CheckpointError, match="hidden"):
        train(config, tmp_path, resume=True)
    with pytest.raises(CheckpointError, match="no such file"):
        train(quick(), tmp_path / "empty", resume=True)


@pytest.mark.slow
def test_worker_processes_feed_the_learner(tmp_path):
    config = quick(games=200, eval_every=10**6)
    config = config.replace(selfplay=type(config.selfplay)(parallel_games=64, workers=2))
    train(config, tmp_path)
    assert load_checkpoint(tmp_path / LATEST)["training"]["games"] >= 200


@pytest.mark.slow
def test_command_line_train_and_evaluate(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--config", str(CONFIGS / "quick.toml"), "--set", "games=100", "--out", str(out)]) == 0
    assert load_network(out / LATEST).config == quick().network
    assert main(["evaluate", "--checkpoint", str(out / LATEST), "--opponent", "random", "--set", "games=20"]) == 0
    assert "vs random: games 20  win rate" in capsys.readouterr().out
    assert main(["train", "--config", str(tmp_path / "absent.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err
