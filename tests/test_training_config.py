"""One config for every training command: a TOML file's tables and ``--set KEY=VALUE`` overrides."""

from __future__ import annotations

import pytest

import training.__main__ as command
from training.config import (
    ConfigError,
    CubeCorrectionSettings,
    EvaluateSettings,
    command_settings,
    load_config,
    with_overrides,
)
from training.distill import DistillConfig

CONFIG = """
name = "mixed"
games = 3000

[selfplay]
workers = 1

[distill]
games = 40
teachers = ["a.pt", "b.pt"]
win_range = [0.45, 0.97]

[cube_correction]
samples = 500
"""


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "mixed.toml"
    path.write_text(CONFIG)
    return path


def test_train_reads_its_part_and_the_overrides(config):
    loaded = load_config(config, ["selfplay.workers=3", "games=5000", "learning.optimizer=sgd"])
    assert (loaded.name, loaded.games, loaded.selfplay.workers, loaded.learning.optimizer) == ("mixed", 5000, 3, "sgd")


def test_each_command_reads_its_table_then_the_overrides(config):
    distill = command_settings(DistillConfig, "distill", config, ["epochs=3", "plies=2"], checkpoint="x.pt")
    assert (distill.games, distill.epochs, distill.plies) == (40, 3, 2)
    assert distill.teachers == ("a.pt", "b.pt") and distill.win_range == (0.45, 0.97)
    assert command_settings(CubeCorrectionSettings, "cube_correction", config, ["hidden=8"]).samples == 500
    assert command_settings(EvaluateSettings, "evaluate", None, ["games=20"]) == EvaluateSettings(games=20)


def test_a_recorded_run_is_the_base_the_file_and_overrides_change(config):
    recorded = {"games": 7, "chunk": 9}
    distill = command_settings(DistillConfig, "distill", config, [], base=recorded, checkpoint="x.pt")
    assert (distill.games, distill.chunk) == (40, 9)


@pytest.mark.parametrize(
    "assignments, message",
    [
        (["epochs=many"], "'distill.epochs': expected int, got 'many'"),
        (["epoch=3"], "'distill.epoch': unknown"),
        (["teachers=[1, 2]"], "'distill.teachers': expected tuple"),
        (["epochs"], "override 'epochs': expected KEY=VALUE"),
        (["workers=0"], "workers 0: expected 1 or more"),
    ],
)
def test_a_bad_override_is_one_error_naming_it(config, assignments, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        command_settings(DistillConfig, "distill", config, assignments, checkpoint="x.pt")


def test_values_are_toml_and_bare_words_strings():
    assert with_overrides({}, ["a.b=2", "c=[1, 2]", "d=random", "e=true", 'f="x y"']) == {
        "a": {"b": 2},
        "c": [1, 2],
        "d": "random",
        "e": True,
        "f": "x y",
    }


def test_the_command_prints_one_line_for_bad_input(config, capsys):
    assert command.main(["evaluate", "--checkpoint", "x.pt", "--config", str(config), "--set", "games=3"]) == 2
    expected = f"error: config {str(config)!r}: config key 'evaluate.games': expected an even number of at least 2"
    assert capsys.readouterr().err == expected + ", got 3\n"


def test_a_bug_is_not_hidden_as_bad_input(monkeypatch):
    def broken(args):
        raise ValueError("a bug")

    monkeypatch.setattr(command, "_evaluate", broken)
    with pytest.raises(ValueError, match="a bug"):
        command.main(["evaluate", "--checkpoint", "x.pt"])
