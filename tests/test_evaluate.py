"""Evaluation games: duplicate dice, scoring and the reported numbers."""

from __future__ import annotations

import numpy as np
import pytest

from bot.evaluation.evaluator import RandomEvaluator
from bot.evaluation.pubeval import Pubeval
from training.evaluate import MatchResult, evaluate


def test_a_deterministic_player_against_itself_scores_exactly_zero():
    result = evaluate(Pubeval(), Pubeval(), 200, seed=3)
    pairs = result.points.reshape(-1, 2)
    np.testing.assert_array_equal(pairs[:, 0], -pairs[:, 1])  # same dice, sides swapped: mirror results
    assert result.ppg == 0.0 and result.win_rate == 0.5 and result.ppg_interval == 0.0
    assert set(np.abs(result.points)) <= {1.0, 2.0, 3.0}


def test_numbers_by_hand():
    result = MatchResult(np.array([1.0, -2.0, 3.0, -1.0]))
    assert result.games == 4 and result.win_rate == 0.5 and result.ppg == 0.25
    # Pair means -0.5 and 1.0: sample std sqrt(1.125), interval 1.96 * std / sqrt(2).
    assert result.ppg_interval == pytest.approx(1.96 * np.sqrt(1.125) / np.sqrt(2))
    assert "ppg +0.250 +- 1.470 (95%)" in result.summary()


def test_same_seed_same_games_and_pubeval_crushes_random():
    first = evaluate(Pubeval(), RandomEvaluator(np.random.default_rng(1)), 100, seed=9)
    second = evaluate(Pubeval(), RandomEvaluator(np.random.default_rng(1)), 100, seed=9)
    np.testing.assert_array_equal(first.points, second.points)
    assert first.win_rate > 0.9 and first.ppg > 1.5
    swapped = evaluate(RandomEvaluator(np.random.default_rng(1)), Pubeval(), 100, seed=9)
    assert swapped.ppg < -1.5


def test_batches_of_pairs_cover_every_game():
    result = evaluate(Pubeval(), Pubeval(), 10, seed=1, batch_pairs=2)
    assert result.games == 10 and result.ppg == 0.0


def test_odd_game_counts_are_refused():
    with pytest.raises(ValueError, match="games 7"):
        evaluate(Pubeval(), Pubeval(), 7, seed=1)
