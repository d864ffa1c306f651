"""Distillation (training/distill.py): self-play positions, search targets, the fit, resuming."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from bot.evaluation.checkpoint import load_checkpoint, load_evaluator, load_network, save_checkpoint
from bot.evaluation.evaluator import NetworkEvaluator
from bot.evaluation.network import NetworkConfig
from bot.equity.outcomes import invert, is_finished
from bot.search.rollout import RolloutSettings, rollout_boards
from bot.search.nply import probabilities_at
from engine import START, flip
from training.__main__ import main
from training.distill import (
    POSITIONS,
    DistillConfig,
    chunk_path,
    chunk_targets,
    distill,
    fit,
    held_out_split,
    sample_positions,
    search_targets,
    six_targets,
)
from training.torch_network import ValueNetwork
from training.td import target_loss

CONFIG = NetworkConfig(hidden=(8,))
ROOT = Path(__file__).resolve().parents[1]


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_target_workers_import_no_torch():
    """A target worker (a spawned process importing training.distill) needs numpy only: torch costs 1.5 s of CPU."""
    found = _python("import sys, training.distill; print('torch' in sys.modules)")
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "False"


def test_training_without_torch_says_what_to_install():
    found = _python("import sys; sys.modules['torch'] = None; import training.distill")
    assert found.returncode != 0
    assert "training needs torch and tensorboard: pip install torch==2.13.0 'nardy[train]'" in found.stderr


def tiny_checkpoint(tmp_path, seed: int = 0):
    torch.manual_seed(seed)
    path = tmp_path / "tiny.pt"
    save_checkpoint(path, ValueNetwork(CONFIG), training={"games": 5})
    return path


def some_positions(evaluator, count: int = 12) -> np.ndarray:
    boards = sample_positions(evaluator, games=2, epsilon=0.1, parallel_games=2, rng=np.random.default_rng(3))
    return boards[:count]


def test_positions_are_distinct_live_and_from_self_play(tmp_path):
    evaluator = NetworkEvaluator(load_network(tiny_checkpoint(tmp_path)))
    boards = sample_positions(evaluator, games=3, epsilon=0.1, parallel_games=3, rng=np.random.default_rng(1))
    assert boards.dtype == np.int8 and boards.shape[1] == 26
    assert len(np.unique(boards, axis=0)) == len(boards)
    assert not is_finished(boards).any()
    assert any((b == START).all() for b in boards)
    assert (np.abs(boards).sum(axis=1) > 0).all()


def test_one_ply_targets_are_what_bot_search_gives(tmp_path):
    evaluator = NetworkEvaluator(load_network(tiny_checkpoint(tmp_path)))
    boards = some_positions(evaluator, 6)
    targets = search_targets(evaluator, boards, plies=1)
    for board, target in zip(boards, targets):
        expected = invert(probabilities_at(evaluator, flip(board)[None], 1)[0])
        np.testing.assert_allclose(target, expected, atol=1e-6)
    assert targets.shape == (len(boards), 5) and ((targets >= 0) & (targets <= 1)).all()


def test_six_targets_are_distributions():
    five = np.array([[1.0, 1.0, 0.0, 0.0, 0.0], [0.5, 0.1, 0.01, 0.2, 0.02], [1.0000001, 0.0, 0.0, 0.0, 0.0]])
    six = six_targets(five)
    assert (six >= 0).all()
    np.testing.assert_allclose(six.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(six[1], [0.4, 0.09, 0.01, 0.3, 0.18, 0.02], atol=1e-6)


@pytest.mark.slow
def test_fitting_lowers_the_loss(tmp_path):
    path = tiny_checkpoint(tmp_path)
    evaluator = NetworkEvaluator(load_network(path))
    boards = some_positions(evaluator, 32)
    # Targets the tiny network is far from: a sure single win for the side on roll.
    five = np.tile(np.array([1.0, 0.0, 0.0, 0.0, 0.0], dtype=np.float32), (len(boards), 1))
    config = DistillConfig(checkpoint=str(path), epochs=1, learning_rate=1e-2, batch_size=64, holdout=0.0)
    payload = load_checkpoint(path)

    def loss(network):
        with torch.no_grad():
            logits = network(*network.inputs(boards))
            return target_loss(network, logits, torch.from_numpy(six_targets(five)), "cross_entropy").item()

    from training.torch_network import network_from_payload

    before = loss(network_from_payload(payload))
    network, report = fit(payload, boards, five, config, log=False)
    assert loss(network) < before
    assert report["best_epoch"] == 1


def test_the_held_out_share_is_the_runs_own_and_never_trained_on():
    rng = np.random.default_rng(0)
    own = rng.integers(-2, 3, size=(40, 26)).astype(np.int8)
    others = np.concatenate([own[:20], rng.integers(-2, 3, size=(30, 26)).astype(np.int8)])  # 20 copies of own boards
    boards = np.concatenate([own, others])
    valid, train = held_out_split(boards, len(own), 0.25, np.random.default_rng(1))
    assert len(valid) == 10 and valid.max() < len(own)
    held = {boards[i].tobytes() for i in valid}
    assert not any(boards[i].tobytes() in held for i in train)
    assert len(set(valid) | set(train)) == len(train) + len(valid)  # no row twice
    # Every row that is not a held-out board is trained on.
    assert len(train) == sum(board.tobytes() not in held for board in boards)
    assert len(held_out_split(boards, len(own), 0.0, np.random.default_rng(1))[1]) == len(boards)


def test_a_round_writes_resumable_chunks_and_a_checkpoint(tmp_path, capsys):
    path = tiny_checkpoint(tmp_path)
    run = tmp_path / "run"
    config = DistillConfig(checkpoint=str(path), games=2, parallel_games=2, max_positions=10, chunk=4, epochs=1)
    distill(config, run, stages=("positions", "targets"))
    boards = np.load(run / POSITIONS)["boards"]
    assert len(boards) == 10
    chunks = sorted(run.glob("targets-*.npz"))
    assert [c.name for c in chunks] == ["targets-00000.npz", "targets-00001.npz", "targets-00002.npz"]
    first = np.load(chunks[0])["targets"]

    # A killed run: one chunk gone, one damaged. The rerun recomputes just those and fits.
    chunk_path(run, 1).unlink()
    chunk_path(run, 2).write_bytes(b"not a chunk")
    stamp = chunks[0].stat().st_mtime_ns
    report = distill(config, run)
    assert chunk_path(run, 0).stat().st_mtime_ns == stamp  # reused, not recomputed
    assert np.load(chunk_path(run, 2))["targets"].shape == (2, 5)
    np.testing.assert_array_equal(np.load(chunks[0])["targets"], first)
    assert report["positions"] == 10 and not list(run.glob(".*.tmp"))
    distilled = load_network(run / "distilled.npz")
    assert distilled.config == CONFIG
    assert load_checkpoint(run / "distilled.pt")["training"]["distill"]["positions"] == 10
    assert json.loads((run / "fit.json").read_text())["held_out_positions"] == 1

    # The same run directory with other sampling settings is refused with one error line.
    assert main(["distill", "--checkpoint", str(path), "--out", str(run), "--set", "games=3"]) == 2
    assert "other settings" in capsys.readouterr().err


def test_command_line_runs_a_round(tmp_path, capsys):
    path = tiny_checkpoint(tmp_path)
    run = tmp_path / "cli"
    args = [
        "distill",
        "--checkpoint",
        str(path),
        "--out",
        str(run),
        "--set",
        "games=2",
        "--set",
        "max_positions=6",
        "--set",
        "chunk=3",
        "--set",
        "epochs=1",
    ]
    assert main(args) == 0
    assert (run / "distilled.pt").is_file() and (run / "distilled.npz").is_file()
    stamp = (run / "targets-00000.npz").stat().st_mtime_ns
    # A refit reuses the targets and need not repeat the sampling settings.
    assert main(["distill", "--checkpoint", str(path), "--out", str(run), "--stage", "fit", "--set", "epochs=2"]) == 0
    assert (run / "targets-00000.npz").stat().st_mtime_ns == stamp
    assert json.loads((run / "fit.json").read_text())["settings"]["epochs"] == 2
    assert "run directory" in capsys.readouterr().out


@pytest.mark.slow
def test_teachers_average_and_workers_change_nothing(tmp_path, capsys):
    student = tiny_checkpoint(tmp_path)
    (tmp_path / "other").mkdir()
    teacher = tiny_checkpoint(tmp_path / "other", seed=1)
    settings = dict(games=2, parallel_games=2, max_positions=9, chunk=4, epochs=1, teachers=(str(teacher),))
    alone = tmp_path / "alone"
    distill(
        DistillConfig(checkpoint=str(student), **{**settings, "teachers": ()}), alone, stages=("positions", "targets")
    )
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    for run, workers in ((serial, 1), (parallel, 2)):
        (run).mkdir()
        (run / POSITIONS).write_bytes((alone / POSITIONS).read_bytes())  # the same positions
        distill(
            DistillConfig(checkpoint=str(student), workers=workers, **settings), run, stages=("positions", "targets")
        )
    boards = np.load(alone / POSITIONS)["boards"]
    theirs = search_targets(NetworkEvaluator(load_network(teacher)), boards, plies=1)
    for index in range(3):
        own = np.load(chunk_path(alone, index))["targets"]
        expected = (own + theirs[index * 4 : (index + 1) * 4]) / 2
        np.testing.assert_allclose(np.load(chunk_path(serial, index))["targets"], expected, atol=1e-6)
        np.testing.assert_array_equal(
            np.load(chunk_path(parallel, index))["targets"], np.load(chunk_path(serial, index))["targets"]
        )
    # The teachers are part of a run's settings: a run made without them refuses them.
    assert main(["distill", "--checkpoint", str(student), "--out", str(alone), "--set", f'teachers=["{teacher}"]']) == 2
    assert "teachers" in capsys.readouterr().err


def test_a_run_recorded_before_teachers_existed_resumes(tmp_path):
    path = tiny_checkpoint(tmp_path)
    run = tmp_path / "old"
    config = DistillConfig(checkpoint=str(path), games=2, parallel_games=2, max_positions=4, chunk=4, epochs=1)
    distill(config, run, stages=("positions",))
    recorded = json.loads((run / "distill.json").read_text())
    del recorded["teachers"], recorded["workers"]
    (run / "distill.json").write_text(json.dumps(recorded))
    distill(config, run, stages=("positions", "targets"))
    assert chunk_path(run, 0).is_file()


@pytest.mark.parametrize("plies", [0])
def test_zero_ply_targets_are_the_network(tmp_path, plies):
    evaluator = NetworkEvaluator(load_network(tiny_checkpoint(tmp_path)))
    boards = some_positions(evaluator, 5)
    np.testing.assert_allclose(search_targets(evaluator, boards, plies), evaluator.probabilities(boards), atol=1e-6)


def test_a_widened_network_computes_the_same_map_and_learns(tmp_path):
    from training.torch_network import network_from_payload, widen

    payload = load_checkpoint(tiny_checkpoint(tmp_path))
    narrow = network_from_payload(payload).eval()
    wide = widen(narrow, 12, seed=1).eval()
    boards = some_positions(NetworkEvaluator(load_network(tmp_path / "tiny.pt")), 12)
    assert wide.config.hidden == (12,)
    np.testing.assert_allclose(wide.probabilities(boards), narrow.probabilities(boards), atol=1e-6)
    five = np.tile(np.array([1.0, 0.0, 0.0, 0.0, 0.0], dtype=np.float32), (len(boards), 1))
    config = DistillConfig(checkpoint="tiny.pt", epochs=1, learning_rate=1e-2, batch_size=4, holdout=0.0, widen=12)
    fitted, _ = fit(payload, boards, five, config, log=False)
    assert fitted.config.hidden == (12,) and fitted.output_layer.weight[:, 8:].abs().sum() > 0  # the new units learnt
    with pytest.raises(ValueError, match="widen to 4 hidden units"):
        widen(narrow, 4)


def test_a_reencoded_network_computes_the_same_map_with_the_new_inputs_silent(tmp_path):
    from training.torch_network import network_from_payload, reencode

    narrow = network_from_payload(load_checkpoint(tiny_checkpoint(tmp_path))).eval()
    boards = some_positions(NetworkEvaluator(load_network(tmp_path / "tiny.pt")), 12)
    expert = reencode(narrow, "contact").eval()
    assert expert.config.encoding == "contact" and expert.config.hidden == narrow.config.hidden
    np.testing.assert_allclose(expert.probabilities(boards), narrow.probabilities(boards), atol=1e-6)
    with pytest.raises(ValueError, match="does not extend"):
        reencode(narrow, "tesauro")


def test_reencoding_moves_each_global_input_to_its_named_column(tmp_path):
    """hits -> contact: the shot counts' weights follow their names into contact's columns."""
    from training.torch_network import network_from_payload, reencode

    narrow = network_from_payload(load_checkpoint(tiny_checkpoint(tmp_path))).eval()
    boards = some_positions(NetworkEvaluator(load_network(tmp_path / "tiny.pt")), 12)
    hits = reencode(narrow, "hits").eval()
    with torch.no_grad():
        hits.hidden_layers[0].weight[:, -6:] = torch.randn(hits.hidden_layers[0].weight.shape[0], 6)
    assert np.abs(hits.probabilities(boards) - narrow.probabilities(boards)).max() > 1e-3  # the shot counts count
    np.testing.assert_allclose(
        reencode(hits, "contact").eval().probabilities(boards), hits.probabilities(boards), atol=1e-6
    )
    with pytest.raises(ValueError, match=r"lacks its global features \['mover.break_contact'"):
        reencode(reencode(narrow, "contact"), "hits")


@pytest.mark.slow
def test_rollout_targets_are_the_bots_own_games_and_do_not_depend_on_workers(tmp_path):
    path = tiny_checkpoint(tmp_path)
    settings = dict(games=2, parallel_games=2, max_positions=6, chunk=3, epochs=1, rollout_trials=4)
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    distill(DistillConfig(checkpoint=str(path), **settings), serial, stages=("positions", "targets"))
    parallel.mkdir()
    (parallel / POSITIONS).write_bytes((serial / POSITIONS).read_bytes())
    distill(DistillConfig(checkpoint=str(path), workers=2, **settings), parallel, stages=("positions", "targets"))
    boards = np.load(serial / POSITIONS)["boards"]
    bot = load_evaluator(path)
    for index in range(2):
        chunk = boards[index * 3 : (index + 1) * 3]
        games = rollout_boards(
            bot, chunk, np.random.default_rng([1, 3, index]), RolloutSettings(trials=4, variance_reduction=False)
        )
        stored = np.load(chunk_path(serial, index))["targets"]
        np.testing.assert_allclose(stored, games.mean(axis=1), atol=1e-6)
        np.testing.assert_array_equal(np.load(chunk_path(parallel, index))["targets"], stored)
        # Each target is a mean of four finished games: win and gammon rates in quarters.
        np.testing.assert_allclose(stored * 4, np.round(stored * 4), atol=1e-5)
    # With variance reduction: the same games, each result less its summed luck.
    config = DistillConfig(checkpoint=str(path), rollout_trials=4, rollout_vr=True)
    reduced = rollout_boards(
        bot, boards[:3], np.random.default_rng([1, 3, 0]), RolloutSettings(trials=4, variance_reduction=True)
    )
    np.testing.assert_allclose(chunk_targets(config, [bot], boards[:3], 0), reduced.mean(axis=1), atol=1e-6)


def test_also_fits_other_runs_targets_and_refuses_an_unfinished_run(tmp_path, capsys):
    path = tiny_checkpoint(tmp_path)
    searched, rolled = tmp_path / "searched", tmp_path / "rolled"
    distill(
        DistillConfig(checkpoint=str(path), games=2, parallel_games=2, max_positions=5, chunk=5),
        searched,
        stages=("positions", "targets"),
    )
    args = [
        "distill",
        "--checkpoint",
        str(path),
        "--out",
        str(rolled),
        "--set",
        "games=2",
        "--set",
        "max_positions=4",
        "--set",
        "seed=2",
        "--set",
        "rollout_trials=2",
        "--set",
        "epochs=1",
        "--set",
        f'also=["{searched}"]',
    ]
    assert main(args) == 0
    assert load_checkpoint(rolled / "distilled.pt")["training"]["distill"]["also_positions"] == 5
    assert json.loads((rolled / "fit.json").read_text())["train_positions"] + 1 == 9
    chunk_path(searched, 0).unlink()
    assert main(args[:-2] + ["--stage", "fit", "--set", f'also=["{searched}"]']) == 2
    assert "targets-00000.npz is missing" in capsys.readouterr().err
    assert (
        main(["distill", "--checkpoint", str(path), "--out", str(tmp_path / "one"), "--set", "rollout_trials=1"]) == 2
    )
    assert "rollout trials 1" in capsys.readouterr().err
    assert main(["distill", "--checkpoint", str(path), "--out", str(tmp_path / "two"), "--set", "rollout_vr=true"]) == 2
    assert "give rollout trials too" in capsys.readouterr().err


def test_a_class_round_keeps_that_class_and_fits_its_network(tmp_path):
    from bot.evaluation.classes import PositionClass, classify
    from training.distill import finished_targets

    path = tiny_checkpoint(tmp_path)
    every, races = tmp_path / "every", tmp_path / "races"
    distill(
        DistillConfig(checkpoint=str(path), games=4, parallel_games=4, chunk=64), every, stages=("positions", "targets")
    )
    all_boards, all_targets = finished_targets(every)
    config = DistillConfig(
        checkpoint=str(path), games=4, parallel_games=4, chunk=64, epochs=1, position_class="race", also=(str(every),)
    )
    report = distill(config, races)
    boards = np.load(races / POSITIONS)["boards"]
    assert len(boards) and (classify(boards) == PositionClass.RACE).all()
    # The same games' race positions, in their order; the other run's are taken by class too.
    expected = all_boards[classify(all_boards) == PositionClass.RACE]
    np.testing.assert_array_equal(boards, expected)
    race_boards, race_targets = finished_targets(every, "race")
    np.testing.assert_array_equal(race_boards, expected)
    np.testing.assert_array_equal(race_targets, all_targets[classify(all_boards) == PositionClass.RACE])
    assert load_checkpoint(races / "distilled.pt")["training"]["distill"]["also_positions"] == len(expected)
    assert report["held_out_positions"] >= 1
    with pytest.raises(ValueError, match="position class 'bearoff'"):
        DistillConfig(checkpoint=str(path), position_class="bearoff")


def test_a_win_range_keeps_the_positions_whose_side_on_roll_wins_that_often(tmp_path, capsys):
    path = tiny_checkpoint(tmp_path)
    every, leads = tmp_path / "every", tmp_path / "leads"
    distill(DistillConfig(checkpoint=str(path), games=4, parallel_games=4, chunk=64), every, stages=("positions",))
    all_boards = np.load(every / POSITIONS)["boards"]
    win = NetworkEvaluator(load_network(path)).probabilities(all_boards)[:, 0]
    low, high = np.quantile(win, [0.25, 0.75])
    distill(
        DistillConfig(checkpoint=str(path), games=4, parallel_games=4, chunk=64, win_range=(low, high)),
        leads,
        stages=("positions",),
    )
    # The same games' positions, in their order, those in the range only.
    np.testing.assert_array_equal(np.load(leads / POSITIONS)["boards"], all_boards[(win >= low) & (win <= high)])
    # A rerun with another range would mix two samples: refused, naming it.
    with pytest.raises(ValueError, match="win_range"):
        distill(DistillConfig(checkpoint=str(path), games=4, parallel_games=4, chunk=64), leads, stages=("positions",))
    for bad in (["0.9", "0.5"], ["-0.1", "0.5"], ["0.5", "1.5"]):
        assert (
            main(
                [
                    "distill",
                    "--checkpoint",
                    str(path),
                    "--out",
                    str(tmp_path / "bad"),
                    "--set",
                    f"win_range=[{bad[0]}, {bad[1]}]",
                ]
            )
            == 2
        )
        assert "win range" in capsys.readouterr().err
