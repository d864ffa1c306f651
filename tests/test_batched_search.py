"""Search batched for analysis: pruned best plays, many cube decisions at once, a position's plays asked twice."""

from __future__ import annotations

import numpy as np
import pytest

from bot.equity.cube import CubeState, Owner, decision_value, model_decisions, model_values
from bot.equity.outcomes import equity
from bot.facade import MONEY, Bot
from bot.search.nply import afterstate_probabilities, best_plays
from bot.evaluation.evaluator import best_children
from bot.evaluation.prune import in_contact
from engine import ROLLS, START, afterstates, flip, legal_plays


@pytest.fixture(scope="module")
def bot() -> Bot:
    return Bot.load()


def played_positions(count: int, plies: int, seed: int) -> np.ndarray:
    """Positions (side on roll's view) after ``plies`` random plays from the start."""
    rng = np.random.default_rng(seed)
    boards = np.tile(START, (count, 1))
    for _ in range(plies):
        children, parent = afterstates(boards, rng.integers(1, 7, size=(count, 2)))
        pick = best_children(rng.random(len(children)), parent, count)
        boards = flip(children[pick])
    return boards


def every_roll(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each board once per roll, and the plays of each."""
    repeated = np.repeat(boards, len(ROLLS), axis=0)
    children, parent = afterstates(repeated, np.tile(ROLLS, (len(boards), 1)))
    return repeated, children, parent


def test_without_pruning_the_best_play_is_the_best_by_the_networks(bot):
    boards, children, parent = every_roll(played_positions(15, 6, seed=1))
    best, five = best_plays(bot.evaluator, boards, children, parent)
    full = afterstate_probabilities(bot.evaluator, children)
    assert best.tolist() == best_children(equity(full), parent, len(boards)).tolist()
    np.testing.assert_array_equal(five, full[best])


@pytest.mark.slow
def test_pruned_best_plays_are_the_networks_best_but_for_a_few_close_ones(bot):
    if bot.evaluator.pruner is None:
        pytest.skip("the shipped bot has no pruner")
    boards, children, parent = every_roll(played_positions(150, 8, seed=2))
    best, five = best_plays(bot.evaluator, boards, children, parent, prune=True)
    full = afterstate_probabilities(bot.evaluator, children)
    exact = best_children(equity(full), parent, len(boards))
    np.testing.assert_array_equal(five, full[best])  # the kept plays are scored by the networks themselves
    contact = in_contact(boards)
    assert contact.mean() > 0.5
    assert (best[~contact] == exact[~contact]).all()  # races keep every play
    assert (best == exact).mean() >= 0.95
    lost = equity(full[exact]) - equity(full[best])
    assert lost.min() >= 0.0 and lost.mean() < 0.005


@pytest.mark.parametrize("plies", [0, 1])
def test_cube_decisions_in_one_batch_equal_one_at_a_time(bot, plies):
    boards = played_positions(12, 10, seed=3)
    states = [
        MONEY
        if i % 3 == 0
        else CubeState(cube=2, owner=Owner.ME if i % 3 == 1 else Owner.OPP, match_length=7, score=(2, 4))
        for i in range(len(boards))
    ]
    together = bot.cube_decisions(boards, states, plies)
    for board, state, decision in zip(boards, states, together):
        alone = bot.cube_decision(board, state, plies)
        assert decision.verdict == alone.verdict
        assert decision.no_double == pytest.approx(alone.no_double, abs=1e-6)
        assert decision.double_take == pytest.approx(alone.double_take, abs=1e-6)
        assert decision.double_pass == pytest.approx(alone.double_pass, abs=1e-6)


def test_a_positions_plays_asked_again_are_the_same_and_a_changed_list_does_not_stick():
    first = legal_plays(START, (3, 1))
    first.clear()
    again = legal_plays(START, (3, 1))
    assert len(again) == 16 and again == legal_plays(np.array(START, dtype=np.int64), (3, 1))
    with pytest.raises(ValueError):
        again[0].afterstate[1] = 3  # read-only: a caller cannot change another's plays


@pytest.mark.parametrize(
    "state",
    [
        CubeState(),
        CubeState(beavers=True, jacoby=True),
        CubeState(cube=2, owner=Owner.ME),
        CubeState(cube=4, owner=Owner.OPP),
        CubeState(match_length=7, score=(2, 4)),
        CubeState(cube=2, owner=Owner.OPP, match_length=7, score=(5, 3)),
        CubeState(match_length=5, score=(4, 2), crawford=True),
        CubeState(match_length=5, score=(2, 4)),  # post-Crawford
    ],
    ids=str,
)
def test_leaf_values_are_the_decisions_values(state):
    """A search's leaves take ``model_values`` in one batch: the value of ``model_decisions``' right actions."""
    rng = np.random.default_rng(4)
    win = rng.random(3000)
    win[:50] = [0.0, 1.0] * 25  # certain games, whose cube is dead
    gammon = win * rng.random(3000) * 0.6
    lose_gammon = (1.0 - win) * rng.random(3000) * 0.6
    fives = np.stack([win, gammon, gammon * rng.random(3000) * 0.3, lose_gammon, lose_gammon * 0.1], axis=1)
    efficiencies = rng.random(3000)
    values = model_values(fives, efficiencies, state)
    decisions = model_decisions(fives, efficiencies, state)
    assert values.tolist() == pytest.approx([decision_value(d, state) for d in decisions], abs=1e-12)
    assert len({d.verdict for d in decisions}) > 1 or not state.can_double
