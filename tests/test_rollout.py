"""Rollouts (bot.search.rollout): repeatable, honest standard errors, exact where the answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from bot.evaluation import bearoff as bo
from bot.evaluation.classes import BearoffDatabases, ClassEvaluator, exact_cube
from bot.equity.cube import CubeState, MatchScore, MoneyCubeEquities, Verdict
from bot.search.rollout import (
    ROLLS36,
    RolloutDice,
    RolloutSettings,
    rollout_afterstates,
    rollout_cube,
    rollout_position,
)
from bot.search.nply import InvalidSearchError
from engine import START, encode_position_id, flip
from conftest import board
from fakes import PipEvaluator

SHORT = RolloutSettings(trials=72, truncate=6)


def last_checkers() -> np.ndarray:
    """Each side has one checker left on its own 6-point; the side on roll rolls first."""
    board = np.zeros(26, dtype=np.int8)
    board[6] = 1
    board[19] = -1
    return board


def bear_off_chance() -> float:
    """P(one roll bears a lone checker off the 6-point): a 6, a sum of 6 or more, or doubles 2+."""
    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    return sum(a + b >= 6 or (a == b and 4 * a >= 6) for a, b in rolls) / 36


def test_same_seed_same_result_and_json_shape():
    first = rollout_position(PipEvaluator(), START, np.random.default_rng(5), SHORT)
    second = rollout_position(PipEvaluator(), START, np.random.default_rng(5), SHORT)
    np.testing.assert_array_equal(first.samples, second.samples)
    other = rollout_position(PipEvaluator(), START, np.random.default_rng(6), SHORT)
    assert not np.array_equal(first.samples, other.samples)
    data = first.to_json()
    assert set(data) == {"position_id", "trials", "probabilities", "std_errors", "equity", "equity_std_error"}
    assert data["position_id"] == "4HPwATDgc/ABMA" and data["trials"] == 72
    assert len(data["probabilities"]) == 5 and len(data["std_errors"]) == 5


def test_standard_errors_shrink_with_more_trials():
    settings = RolloutSettings(trials=36, truncate=4, variance_reduction=False)
    few = rollout_position(PipEvaluator(), START, np.random.default_rng(1), settings)
    many = rollout_position(
        PipEvaluator(),
        START,
        np.random.default_rng(1),
        RolloutSettings(trials=576, truncate=4, variance_reduction=False),
    )
    assert many.equity_std_error < few.equity_std_error
    assert many.std_errors[0] < few.std_errors[0]


@pytest.mark.parametrize("variance_reduction", [False, True])
def test_a_bear_off_race_matches_the_exact_chances(variance_reduction):
    q = bear_off_chance()
    exact = q + (1 - q) ** 2  # miss, the opponent misses too, then home for sure
    settings = RolloutSettings(trials=360, variance_reduction=variance_reduction, rotate_second=False)
    result = rollout_position(PipEvaluator(), last_checkers(), np.random.default_rng(2), settings)
    assert abs(result.probabilities[0] - exact) <= 3 * max(result.std_errors[0], 1e-9)
    # Both sides have borne off checkers: no gammons (the fake evaluator's gammon guesses enter the
    # variance-reduction terms, whose mean is zero).
    assert np.all(np.abs(result.probabilities[1:]) <= 3 * result.std_errors[1:] + 1e-9)
    if not variance_reduction:
        np.testing.assert_array_equal(result.probabilities[1:], 0.0)


def test_variance_reduction_agrees_and_narrows():
    settings = RolloutSettings(trials=144, truncate=8, variance_reduction=False)
    plain = rollout_position(PipEvaluator(), START, np.random.default_rng(3), settings)
    reduced = rollout_position(
        PipEvaluator(),
        START,
        np.random.default_rng(3),
        RolloutSettings(trials=144, truncate=8, variance_reduction=True),
    )
    both = np.hypot(plain.equity_std_error, reduced.equity_std_error)
    assert abs(plain.equity - reduced.equity) <= 3 * both
    assert reduced.equity_std_error < plain.equity_std_error


def test_rotated_first_rolls_are_used_equally_and_second_rolls_per_first():
    dice = RolloutDice(1296, np.random.default_rng(4))
    first, second = dice.roll(0), dice.roll(1)
    codes = (first[:, 0] - 1) * 6 + first[:, 1] - 1
    assert np.all(np.bincount(codes, minlength=36) == 36)
    pairs = codes * 36 + (second[:, 0] - 1) * 6 + second[:, 1] - 1
    assert len(np.unique(pairs)) == 1296  # every (first, second) pair exactly once
    partial = RolloutDice(72, np.random.default_rng(4)).roll(0)
    assert np.all(np.bincount((partial[:, 0] - 1) * 6 + partial[:, 1] - 1, minlength=36) == 2)
    assert set(map(tuple, ROLLS36)) == {(a, b) for a in range(1, 7) for b in range(1, 7)}


def test_afterstates_are_rolled_out_for_the_mover_with_common_dice():
    evaluator = PipEvaluator()
    won = np.zeros(26, dtype=np.int8)
    won[[8, 9, 10]] = [-5, -5, -5]  # the mover has borne off everything: a gammon, exact
    candidates = np.stack([flip(START), won])
    results = rollout_afterstates(evaluator, candidates, np.random.default_rng(7), SHORT)
    assert results[0].position_id == encode_position_id(START)
    np.testing.assert_array_equal(results[1].probabilities, [1, 1, 0, 0, 0])
    assert results[1].equity_std_error == 0.0
    alone = rollout_position(evaluator, START, np.random.default_rng(7), SHORT)
    np.testing.assert_allclose(
        results[0].probabilities, [1 - alone.probabilities[0], *alone.probabilities[[3, 4, 1, 2]]], atol=1e-9
    )


def test_progress_reaches_all_trials():
    seen = []
    rollout_position(PipEvaluator(), START, np.random.default_rng(1), SHORT, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (72, 72) and all(t == 72 for _, t in seen)


def test_settings_are_checked():
    with pytest.raises(ValueError, match="trials 1"):
        RolloutSettings(trials=1)


def small_bearoff_evaluator() -> ClassEvaluator:
    """Exact bear-offs of up to 4 checkers a side (two-sided), built in memory; a pip formula elsewhere."""
    return ClassEvaluator(
        {"contact": PipEvaluator()},
        BearoffDatabases(bo.build_one_sided(6, progress=False), bo.build_two_sided(4, progress=False)),
    )


BEAROFF_CUBES = [
    ({2: 1, 4: 1, 5: 1}, {24: 1, 22: 1, 20: 1}, Verdict.DOUBLE_TAKE),
    ({3: 2, 5: 1}, {23: 2, 20: 2}, Verdict.DOUBLE_PASS),
    ({6: 2, 5: 1}, {20: 1, 22: 2}, Verdict.NODOUBLE_TAKE),
]


@pytest.mark.parametrize("variance_reduction", [False, True])
@pytest.mark.parametrize("mine, theirs, verdict", BEAROFF_CUBES)
@pytest.mark.slow
def test_cubeful_trials_of_a_bearoff_find_the_databases_cube_equities(mine, theirs, verdict, variance_reduction):
    """Both sides doubling, taking and passing inside the trials reproduce the exact cubeful money equities."""
    evaluator = small_bearoff_evaluator()
    position = board(mine, theirs)
    exact = exact_cube(evaluator, position, CubeState())
    assert isinstance(exact, MoneyCubeEquities)
    settings = RolloutSettings(trials=1296, variance_reduction=variance_reduction)
    cube = rollout_cube(evaluator, position, CubeState(), np.random.default_rng(1), settings)
    nd_error, dt_error, dp_error = cube.std_errors
    assert abs(cube.decision.no_double - exact.centred) <= 3.5 * nd_error + 0.01
    assert abs(cube.decision.double_take - 2 * exact.unavailable) <= 3.5 * dt_error + 0.01
    assert cube.decision.double_pass == 1.0 and dp_error == 0.0
    assert cube.decision.verdict is verdict


@pytest.mark.slow
def test_variance_reduction_narrows_the_cubeful_trials():
    evaluator = small_bearoff_evaluator()
    mine, theirs, _ = BEAROFF_CUBES[0]
    errors = [
        rollout_cube(
            evaluator,
            board(mine, theirs),
            CubeState(),
            np.random.default_rng(3),
            RolloutSettings(trials=648, variance_reduction=vr),
        ).std_errors
        for vr in (False, True)
    ]
    assert errors[1][0] < 0.7 * errors[0][0] and errors[1][1] < 0.7 * errors[0][1]


def test_cubeful_trials_in_a_match_report_match_winning_chances():
    state = CubeState(match_length=5, score=(2, 2))
    cube = rollout_cube(PipEvaluator(), START, state, np.random.default_rng(2), RolloutSettings(trials=72, truncate=4))
    data = cube.to_json()
    assert {"no_double", "double_take", "double_pass", "std_errors", "verdict", "trials", "method", "mwc"} <= set(data)
    assert data["trials"] == 72 and "cubeful trials" in data["method"]
    assert data["mwc"][2] == pytest.approx(MatchScore.of(state).after(1), abs=1e-6)  # a pass wins the 1-cube
    again = rollout_cube(PipEvaluator(), START, state, np.random.default_rng(2), RolloutSettings(trials=72, truncate=4))
    assert again.to_json() == data


def test_a_finished_game_has_no_cube_to_roll_out():
    with pytest.raises(InvalidSearchError, match="game is over"):
        rollout_cube(PipEvaluator(), board({}, {20: 1}), CubeState(), np.random.default_rng(0))
