"""The take-point measure (benchmarks/take_point.py) and the rollout probabilities of benchmarks/cube.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np


from benchmarks.cube import load_records, rollout_probabilities
from benchmarks.take_point import LARGE_FIXTURE, NEAR, near_take_point

from bot.evaluation.checkpoint import load_evaluator  # noqa: E402
from bot.evaluation.classes import PositionClass, classify  # noqa: E402
from bot.search.rollout import RolloutSettings, rollout_boards  # noqa: E402
from engine import decode_position_id, encode_position_id  # noqa: E402

CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "default.pt"


def test_the_positions_are_the_contact_ones_near_a_pass():
    boards = near_take_point()
    assert 200 < len(boards) < 400  # 267 in the committed fixture
    assert (classify(boards) >= PositionClass.CONTACT).all()
    gaps = {r["position_id"]: abs(r["double_take"] - r["double_pass"]) for r in load_records(LARGE_FIXTURE)}
    assert all(gaps[encode_position_id(board)] < NEAR for board in boards)


def test_rollout_probabilities_are_the_rollouts_means_made_consistent():
    evaluator = load_evaluator(CHECKPOINT)
    boards = np.array([decode_position_id(pid) for pid in ("4HPwATDgc/ABMA", "mO8GgwBY52kGAA")])
    probs, errors = rollout_probabilities(evaluator, boards, trials=6, truncate=2, seed=5)
    samples = rollout_boards(evaluator, boards, np.random.default_rng(5), RolloutSettings(trials=6, truncate=2))
    np.testing.assert_allclose(probs, np.clip(samples.mean(axis=1), 0.0, 1.0), atol=1e-12)
    np.testing.assert_allclose(errors, samples.std(axis=1, ddof=1) / np.sqrt(6))
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = probs.T
    assert ((0 <= win_backgammon) & (win_backgammon <= win_gammon) & (win_gammon <= win) & (win <= 1)).all()
    assert ((0 <= lose_backgammon) & (lose_backgammon <= lose_gammon) & (lose_gammon <= 1 - win)).all()
