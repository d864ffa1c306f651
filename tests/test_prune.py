"""Rollouts' move pruner: which plays it keeps, whose networks it goes with, and rollouts that agree without it."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from bot.evaluation.checkpoint import load_evaluator
from bot.facade import REPO_CHECKPOINT
from bot.evaluation.prune import Pruner, pruner_paths
from bot.search.rollout import RolloutSettings, rollout_position
from engine import decode_position_id

shipped = pytest.mark.skipif(
    not REPO_CHECKPOINT.exists() or not pruner_paths(REPO_CHECKPOINT)[0].exists(),
    reason="no shipped network with a pruner",
)


class _Equities:
    """A stand-in network: an afterstate's equity for its mover is its checkers on point 1 (the opponent's
    equity, on roll after it, is their negation)."""

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        five = np.zeros((len(boards), 5))
        five[:, 0] = (1.0 + boards[:, 24]) / 2.0  # the opponent's point 24 holds minus the mover's point 1
        return five


def test_kept_are_each_positions_best_few_by_the_pruners_equity():
    pruner = Pruner(_Equities(), keep=2)
    equities = np.array([0.1, 0.5, 0.3, 0.2, 0.9, 0.0, -0.4])
    parent = np.array([0, 0, 0, 1, 1, 2, 2])
    assert pruner.kept(equities, parent, 3).tolist() == [False, True, True, True, True, True, True]
    boards = np.zeros((3, 26), dtype=np.int8)
    boards[:, 1] = [3, 0, 1]
    assert pruner.equities(boards).tolist() == pytest.approx([3.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="keep"):
        Pruner(_Equities(), keep=0)


@shipped
def test_the_pruner_goes_only_with_the_networks_it_was_fitted_to(tmp_path, capsys):
    bot = tmp_path / "bot.npz"
    shutil.copyfile(REPO_CHECKPOINT, bot)
    assert load_evaluator(bot).pruner is None  # none beside it
    network, record = pruner_paths(bot)
    shutil.copyfile(pruner_paths(REPO_CHECKPOINT)[0], network)
    shutil.copyfile(pruner_paths(REPO_CHECKPOINT)[1], record)
    evaluator = load_evaluator(bot)
    assert evaluator.pruner is not None and evaluator.pruner.keep == json.loads(record.read_text())["keep"]
    assert capsys.readouterr().err == ""
    record.write_text(json.dumps({**json.loads(record.read_text()), "fitted_to": "0" * 64}))
    assert load_evaluator(bot).pruner is None
    assert "fitted to other networks" in capsys.readouterr().err
    record.write_text("{")
    assert load_evaluator(bot).pruner is None
    assert "unreadable" in capsys.readouterr().err


@shipped
@pytest.mark.parametrize("position_id", ["4HPwATDgc/ABMA", "zJ3BCCjMzsEBKA", "jDMjGAtwZ8yAIg"])
@pytest.mark.slow
def test_rollouts_with_the_pruner_agree_with_the_full_networks_within_their_standard_errors(position_id):
    """The pruned trials play the full networks' choice among the pruner's few: a slightly different player,
    whose rollout answer must stay within the noise of the full one's (same dice)."""
    evaluator = load_evaluator(REPO_CHECKPOINT)
    board = decode_position_id(position_id)
    results = [
        rollout_position(
            evaluator,
            board,
            np.random.default_rng(5),
            RolloutSettings(trials=48, variance_reduction=True, prune=prune),
        )
        for prune in (True, False)
    ]
    pruned, full = results
    spread = np.hypot(pruned.equity_std_error, full.equity_std_error)
    assert abs(pruned.equity - full.equity) < 3.0 * spread, (pruned.equity, full.equity, spread)
    assert np.all(
        np.abs(pruned.probabilities - full.probabilities) < 3.0 * np.hypot(pruned.std_errors, full.std_errors) + 1e-9
    )


@shipped
def test_fit_pruner_writes_a_pruner_the_bot_then_uses(tmp_path):
    pytest.importorskip("torch")
    from training.config import PrunerSettings
    from training.pruner import fit_pruner

    bot = tmp_path / "bot.npz"
    shutil.copyfile(REPO_CHECKPOINT, bot)
    report = fit_pruner(str(bot), PrunerSettings(games=8, hidden=4, epochs=1, keep=3))
    assert 0.0 <= report["ranking"]["best_kept"] <= 1.0 and report["ranking"]["equity_lost"] >= 0.0
    record = json.loads(pruner_paths(bot)[1].read_text())
    assert record["keep"] == 3 and record["network"]["hidden"] == [4]
    pruner = load_evaluator(bot).pruner
    assert pruner is not None and pruner.keep == 3 and pruner.network.config.hidden == (4,)
