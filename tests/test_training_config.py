"""One config for every training command: a TOML file's tables and ``--set KEY=VALUE`` overrides."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import pytest

import training.__main__ as command
from training.config import (
    BOUNDS,
    COMMAND_SECTIONS,
    MAX_CONFIG_BYTES,
    WORKERS_PER_CORE,
    Config,
    ConfigError,
    CubeCorrectionSettings,
    EvaluateSettings,
    PrunerSettings,
    ShipSettings,
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
        (["workers=0"], "'distill.workers': must be 1..1024, got 0"),
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


def one_error_line(capsys, argv: list[str]) -> str:
    """The one ``error:`` line a training command prints for bad input, with exit status 2."""
    assert command.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("error: ") and captured.err.count("\n") == 1
    return captured.err


@pytest.mark.parametrize("name", ["", ".", "..", "../elsewhere", "a/b", "a\\b", "/tmp", "a\0b", "a b", "x" * 65, "é"])
def test_a_run_name_that_is_not_a_plain_name_is_refused(name):
    with pytest.raises(ConfigError, match="config key 'name': expected a plain name"):
        Config(name=name)


@pytest.mark.parametrize("name", ["td384-long", "r1.2_a", ".hidden", "x" * 64])
def test_plain_run_names_are_taken(name):
    assert Config(name=name).name == name


def test_a_path_as_run_name_touches_no_folder(tmp_path, monkeypatch, capsys):
    """An absolute or ``../`` name would have put the run in that folder, rewriting its config.toml."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "config.toml").write_text("mine\n")
    (victim / ".keep.1.tmp").write_text("mine\n")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    config = work / "run.toml"
    for name in (str(victim), "../../victim"):
        config.write_text(f"name = {name!r}\ngames = 10\n")
        assert "config key 'name'" in one_error_line(capsys, ["train", "--config", str(config)])
    config.write_text('name = "a\\u0000b"\n')
    assert "'a\\x00b'" in one_error_line(capsys, ["train", "--config", str(config)])
    assert sorted(p.name for p in victim.iterdir()) == [".keep.1.tmp", "config.toml"]
    assert (victim / "config.toml").read_text() == "mine\n" and not (work / "runs").exists()


# A settings class of every command, by its config table.
CLASSES = {
    "distill": DistillConfig,
    "cube_correction": CubeCorrectionSettings,
    "pruner": PrunerSettings,
    "evaluate": EvaluateSettings,
    "ship": ShipSettings,
}


def settings_from(key: str, value: object) -> object:
    """Train's Config or a command's settings with the config key ``key`` set to ``value``."""
    section, _, name = key.partition(".")
    if section not in COMMAND_SECTIONS:
        return load_config(None, [f"{key}={value}"])
    given: dict[str, Any] = {"checkpoint": "x.pt"} if section == "distill" else {}
    return command_settings(CLASSES[section], section, None, [f"{name}={value}"], **given)


def just_outside(low: float, high: float) -> list[float]:
    return [low - 1, high + 1] if isinstance(low, int) else [low - 1.0, high * 2 + 1.0, float("nan")]


@pytest.mark.parametrize("key", list(BOUNDS))
def test_every_bound_is_kept_by_its_command(key):
    low, high = BOUNDS[key]
    for value in just_outside(low, high):
        with pytest.raises(ConfigError, match=f"config key '{key}': must be {low}..{high}, got {value}"):
            settings_from(key, value)


def test_every_count_of_every_command_has_bounds():
    """Each integer setting of every command is in ``BOUNDS``: a new one cannot go unbounded."""
    tables = [(cls, section + ".") for section, cls in CLASSES.items()]
    tables += [(Config, "")] + [(type(getattr(Config(), f.name)), f.name + ".") for f in dataclasses.fields(Config)]
    for cls, prefix in tables:
        if not dataclasses.is_dataclass(cls):
            continue
        for f in dataclasses.fields(cls):
            if f.type == "int":
                assert prefix + f.name in BOUNDS, f"{prefix}{f.name}: no bounds"


@pytest.mark.parametrize(
    "argv, named",
    [
        (["cube-correction", "--out", "OUT", "--set", "workers=5000"], "'cube_correction.workers': must be 1..1024"),
        (["cube-correction", "--out", "OUT", "--set", "hidden=100000000"], "'cube_correction.hidden': must be 1..4096"),
        (["cube-correction", "--out", "OUT", "--set", "samples=10"], "'cube_correction.samples': must be 100.."),
        (["distill", "--out", "OUT", "--set", "widen=100000000"], "'distill.widen': must be 0..4096"),
        (["distill", "--out", "OUT", "--set", "chunk=0"], "'distill.chunk': must be 1..1048576, got 0"),
        (["distill", "--out", "OUT", "--set", "plies=5000"], "'distill.plies': must be 0..3"),
        (["distill", "--out", "OUT", "--set", "learning_rate=inf"], "'distill.learning_rate': must be a positive"),
        (["pruner", "--set", "hidden=100000000"], "'pruner.hidden': must be 1..4096"),
        (["evaluate", "--set", "seed=-1"], "'evaluate.seed': must be 0..9223372036854775807, got -1"),
        (["ship", "--set", "speed_repeats=100000000"], "'ship.speed_repeats': must be 1..100"),
        (["ship", "--set", "wall_seconds=inf"], "'ship.wall_seconds': must be 0.0..1000000000.0, got inf"),
    ],
)
def test_out_of_bounds_settings_are_one_error_line_before_any_work(tmp_path, capsys, argv, named):
    out = tmp_path / "out"
    argv = [str(out) if arg == "OUT" else arg for arg in argv]
    err = one_error_line(capsys, [argv[0], "--checkpoint", str(tmp_path / "absent.pt"), *argv[1:]])
    assert named in err and not out.exists()


def test_more_worker_processes_than_the_cores_take_are_refused(tmp_path, capsys):
    too_many = WORKERS_PER_CORE * (os.cpu_count() or 1) + 1
    for argv, key in [
        (["cube-correction", "--out", str(tmp_path / "c")], "cube_correction.workers"),
        (["distill", "--out", str(tmp_path / "d")], "distill.workers"),
    ]:
        err = one_error_line(capsys, [*argv, "--checkpoint", "x.pt", "--set", f"workers={too_many}"])
        assert f"config key '{key}': {too_many} processes is more than {WORKERS_PER_CORE} per CPU core" in err
    assert list(tmp_path.iterdir()) == []


DEEP = 5000


@pytest.mark.parametrize(
    "text",
    [
        "hidden = " + "[" * DEEP + "]" * DEEP,
        "hidden = " + "{a = " * DEEP + "1" + "}" * DEEP,
        "hidden = {" + "a." * DEEP + "b = 1}",
        ".".join(["a"] * DEEP) + " = 1",
        "[" + ".".join(["a"] * DEEP) + "]",
    ],
    ids=["arrays", "inline tables", "dotted inline keys", "dotted keys", "table header"],
)
def test_deep_nesting_in_a_file_is_one_error_line(tmp_path, capsys, text):
    config = tmp_path / "deep.toml"
    config.write_text(f"[pruner]\n{text}\n")
    err = one_error_line(capsys, ["pruner", "--checkpoint", "x.pt", "--config", str(config)])
    assert err == f"error: config {str(config)!r}: arrays or tables nested more than 16 deep\n"


@pytest.mark.parametrize(
    "assignment",
    ["hidden=" + "[" * DEEP + "]" * DEEP, "hidden={" + "a." * DEEP + "b = 1}", "a." * DEEP + "b=1"],
    ids=["array", "inline table", "key"],
)
def test_deep_nesting_in_an_override_is_one_error_line(capsys, assignment):
    err = one_error_line(capsys, ["pruner", "--checkpoint", "x.pt", "--set", assignment])
    assert err.startswith("error: override ") and "nested more than 16 deep" in err and len(err) < 300


def test_brackets_in_strings_and_comments_are_not_nesting(tmp_path):
    config = tmp_path / "brackets.toml"
    deep = "[" * 100
    config.write_text(f'name = "a{deep}"  # {deep}\n[distill]\nteachers = [\'{deep}\', """{deep}\n"""]\n')
    assert command_settings(DistillConfig, "distill", config, [], checkpoint="x.pt").teachers == (deep, deep + "\n")
    with pytest.raises(ConfigError, match="config key 'name'"):
        load_config(config)


def test_a_config_file_past_its_size_is_refused_unread(tmp_path):
    config = tmp_path / "big.toml"
    config.write_text("# " + "x" * MAX_CONFIG_BYTES + "\n")
    with pytest.raises(ConfigError, match=f"larger than {MAX_CONFIG_BYTES} bytes"):
        load_config(config)
