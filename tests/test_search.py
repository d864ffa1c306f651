"""Search at every depth (bot.search.nply): 1-ply as before, exact sure results, filtered ranking."""

from __future__ import annotations

import numpy as np
import pytest

from bot.evaluation.evaluator import best_children, choose_afterstates
from bot.equity.outcomes import equity, finished_probabilities, invert, is_finished
from bot.search.nply import (
    InvalidSearchError,
    MoveFilter,
    SearchEvaluator,
    candidates_filter,
    probabilities_at,
    rank_afterstates,
)
from conftest import load_fixture
from engine import ROLL_WEIGHTS, ROLLS, START, afterstates, decode_position_id, encode_position_id, flip
from fakes import PipEvaluator


def reference_one_ply(evaluator, positions):
    """The 1-ply code bot/evaluation/evaluator.py had before bot/search/nply.py, kept as the oracle."""
    count = len(positions)
    replies_to = np.repeat(flip(positions), len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (count, 1))
    children, parent = afterstates(replies_to, dice)
    opponent_five = evaluator.afterstate_probabilities(children)
    best = best_children(equity(opponent_five), parent, len(replies_to))
    mover_five = invert(opponent_five[best]).reshape(count, len(ROLLS), 5)
    five = np.einsum("mrk,r->mk", mover_five, ROLL_WEIGHTS).astype(np.float32)
    done = is_finished(positions)
    if done.any():
        five[done] = finished_probabilities(positions[done])
    return five


def fixture_afterstates(count: int) -> np.ndarray:
    records = load_fixture("movegen.jsonl")[:count]
    ids = [a for r in records for a in r["afterstates"][:3]]
    return flip(np.array([decode_position_id(i) for i in ids]))  # the mover's view


def sure_gammon() -> np.ndarray:
    """An afterstate where the mover has one checker left on its 1-point, the opponent 15 far away."""
    board = np.zeros(26, dtype=np.int8)
    board[1] = 1
    board[[8, 9, 10]] = [-5, -5, -5]
    return board


def test_one_ply_from_search_equals_the_former_one_ply():
    evaluator = PipEvaluator()
    positions = np.concatenate([fixture_afterstates(40), sure_gammon()[None]])
    expected = reference_one_ply(evaluator, positions)
    np.testing.assert_allclose(probabilities_at(evaluator, positions, 1), expected, atol=1e-6)


def test_zero_ply_is_the_evaluator_and_finished_afterstates_are_exact():
    evaluator = PipEvaluator()
    positions = fixture_afterstates(10)
    np.testing.assert_array_equal(
        probabilities_at(evaluator, positions, 0), evaluator.afterstate_probabilities(positions)
    )
    finished = sure_gammon()
    finished[1] = 0
    for plies in (0, 1, 2):
        np.testing.assert_array_equal(probabilities_at(evaluator, finished[None], plies), [[1, 1, 0, 0, 0]])


def test_two_ply_of_a_decided_position_is_exact():
    # Whatever the opponent rolls, the mover bears off its last checker next: a sure gammon,
    # which 2-ply sees exactly (1-ply still trusts the evaluator after the opponent's reply).
    five = probabilities_at(PipEvaluator(), sure_gammon()[None], 2)
    np.testing.assert_allclose(five, [[1, 1, 0, 0, 0]], atol=1e-6)
    assert probabilities_at(PipEvaluator(), sure_gammon()[None], 1)[0, 1] < 0.5


def test_ranking_batches_parents_and_filters_by_keep_and_window():
    evaluator = PipEvaluator()
    records = load_fixture("movegen.jsonl")[:12]
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    dice = np.array([r["dice"] for r in records])
    children, parent = afterstates(boards, dice)
    filters = (MoveFilter(4, 0.5), MoveFilter(2, 0.1))
    together = rank_afterstates(evaluator, children, 2, parent, filters)
    sizes = np.bincount(parent, minlength=len(boards))
    for b in range(len(boards)):
        mine = np.flatnonzero(parent == b)
        alone = rank_afterstates(evaluator, children[mine], 2, None, filters)
        np.testing.assert_array_equal(together.depth[mine], alone.depth)
        np.testing.assert_allclose(together.probabilities[mine], alone.probabilities, atol=1e-6)
        assert together.best()[b] == mine[alone.best()[0]]
        assert 1 <= (alone.depth >= 1).sum() <= min(4, sizes[b])
        assert 1 <= (alone.depth == 2).sum() <= 2
        zero = equity(evaluator.afterstate_probabilities(children[mine]))
        assert np.all(zero[alone.depth >= 1] >= zero.max() - 0.5)
    order = together.order
    assert np.all(np.diff(together.parent[order]) >= 0)


def test_a_one_ply_search_evaluator_keeps_its_candidates():
    evaluator = PipEvaluator()
    records = load_fixture("movegen.jsonl")[:10]
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    dice = np.array([r["dice"] for r in records])
    children, parent = afterstates(boards, dice)
    scores = SearchEvaluator(evaluator, 1, candidates_filter(3)).afterstate_scores(boards, children, parent)
    assert np.all(np.isfinite(scores).sum() == np.minimum(np.bincount(parent), 3).sum())
    finite = np.isfinite(scores)
    np.testing.assert_allclose(scores[finite], equity(reference_one_ply(evaluator, children[finite])), atol=1e-5)


def test_plies_must_be_known():
    with pytest.raises(InvalidSearchError, match="plies -1"):
        probabilities_at(PipEvaluator(), START[None], -1)


@pytest.fixture(scope="module")
def network():
    from bot.evaluation.checkpoint import load_evaluator
    from bot.facade import REPO_CHECKPOINT

    if not REPO_CHECKPOINT.is_file():
        pytest.skip("no shipped network")
    return load_evaluator(REPO_CHECKPOINT)


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_the_opening_31_makes_the_5_point_at_every_depth(network, plies):
    children, _ = afterstates(START[None], np.array([[3, 1]]))
    ranking = rank_afterstates(network, children, plies)
    best = children[ranking.best()[0]]
    expected = START.copy()
    expected[[8, 6, 5]] = [2, 4, 2]
    np.testing.assert_array_equal(best, expected)
    assert ranking.depth[ranking.best()[0]] == plies
    chosen = choose_afterstates(SearchEvaluator(network, plies), START[None], np.array([[3, 1]]))
    assert encode_position_id(chosen[0]) == encode_position_id(expected)
