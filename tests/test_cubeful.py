"""The cubeful lookahead (bot.search.cube_decision): a roll ahead of exact bear-off cube values, and of
finished games."""

from __future__ import annotations

import numpy as np
import pytest

from bot.evaluation import bearoff as bo
from bot.evaluation.classes import BearoffDatabases, ClassEvaluator, cube_decisions, exact_cube
from bot.equity.cube import CubeState, MatchCubeMWCs, MatchScore, MoneyCubeEquities, Owner, Verdict, cube_decision
from bot.search.cube_decision import lookahead_cube_decision, value_after_play
from bot.evaluation.network import Network
from conftest import board, tiny_bot
from engine import ROLL_WEIGHTS, ROLLS, flip
from engine.movegen import afterstates
from training.torch_network import ValueNetwork
from bot.evaluation.network import NetworkConfig

# Five checkers against three: one more than the 4-checker two-sided table holds, so the root
# is searched, and after any roll (two or four off) both sides are inside it.
ROOT = board({1: 5}, {24: 2, 23: 1})
MONEY = CubeState()
MATCH = CubeState(match_length=7, score=(2, 4))


@pytest.fixture(scope="module")
def evaluator() -> ClassEvaluator:
    network = ValueNetwork(NetworkConfig(hidden=(8,))).eval()
    databases = BearoffDatabases(bo.build_one_sided(6, progress=False), bo.build_two_sided(4, progress=False))
    return ClassEvaluator({"contact": Network(network.config, network.state_dict())}, databases)


def replies(root: np.ndarray) -> list[np.ndarray]:
    """The opponent's board on roll after each of the 21 rolls (every play of a roll leaves the same)."""
    out = []
    for roll in ROLLS:
        children, _ = afterstates(root[None], np.array([roll]))
        assert len(np.unique(children, axis=0)) == 1
        out.append(flip(children[0]))
    return out


def opponent_value(board_o: np.ndarray, state_o: CubeState, evaluator: ClassEvaluator) -> float:
    """The opponent's value after its right cube action, from the exact values: points per unit cube or MWC."""
    exact = exact_cube(evaluator, board_o, state_o)
    if isinstance(exact, MoneyCubeEquities):
        no_double, double_take, double_pass = exact.no_double(state_o.owner), 2.0 * exact.unavailable, 1.0
    else:
        assert isinstance(exact, MatchCubeMWCs)
        no_double, double_take, double_pass = (
            exact.no_double,
            exact.double_take,
            MatchScore.of(state_o).after(state_o.cube),
        )
    return max(no_double, min(double_take, double_pass)) if state_o.can_double else no_double


def test_money_lookahead_is_the_roll_mean_of_the_exact_values_a_roll_ahead(evaluator):
    assert exact_cube(evaluator, ROOT, MONEY) is None  # searched, not looked up
    centred_o = CubeState()
    owned_o = CubeState(cube=2, owner=Owner.ME)  # the opponent took a double and owns the cube
    leaves = replies(ROOT)
    no_double = sum(w * -opponent_value(b, centred_o, evaluator) for w, b in zip(ROLL_WEIGHTS, leaves))
    double_take = sum(w * -2.0 * opponent_value(b, owned_o, evaluator) for w, b in zip(ROLL_WEIGHTS, leaves))
    decision = lookahead_cube_decision(evaluator, ROOT, MONEY, 1)
    assert decision.no_double == pytest.approx(no_double, abs=1e-9)
    assert decision.double_take == pytest.approx(double_take, abs=1e-9)
    assert decision.double_pass == 1.0
    assert decision.should_take == (double_take <= 1.0)


def test_match_lookahead_is_the_roll_mean_of_the_exact_mwcs_a_roll_ahead(evaluator):
    centred_o = CubeState(match_length=7, score=(4, 2))
    owned_o = CubeState(cube=2, owner=Owner.ME, match_length=7, score=(4, 2))
    leaves = replies(ROOT)
    no_double = sum(w * (1.0 - opponent_value(b, centred_o, evaluator)) for w, b in zip(ROLL_WEIGHTS, leaves))
    double_take = sum(w * (1.0 - opponent_value(b, owned_o, evaluator)) for w, b in zip(ROLL_WEIGHTS, leaves))
    decision = lookahead_cube_decision(evaluator, ROOT, MATCH, 1)
    assert decision.mwc_no_double == pytest.approx(no_double, abs=1e-9)
    assert decision.mwc_double_take == pytest.approx(double_take, abs=1e-9)
    score = MatchScore.of(MATCH)
    assert decision.mwc_double_pass == pytest.approx(score.after(1))
    assert decision.no_double == pytest.approx(score.normalise(no_double, 1))


def test_a_game_every_roll_wins_is_worth_the_gammon(evaluator):
    last_two = board({1: 2}, {20: 15})  # the opponent has borne off nothing: a gammon
    decision = lookahead_cube_decision(evaluator, last_two, MONEY, 1)
    assert (decision.no_double, decision.double_take) == (2.0, 4.0)
    assert decision.verdict is Verdict.TOOGOOD_PASS and not decision.should_double
    jacoby = lookahead_cube_decision(evaluator, last_two, CubeState(jacoby=True), 1)
    assert (jacoby.no_double, jacoby.double_take) == (1.0, 4.0)  # no gammons until the cube is turned
    assert jacoby.should_double
    match = lookahead_cube_decision(evaluator, last_two, MATCH, 2)
    score = MatchScore.of(MATCH)
    assert (match.mwc_no_double, match.mwc_double_take) == pytest.approx((score.after(2), score.after(4)))


def test_zero_plies_and_the_database_are_the_model(evaluator):
    five = evaluator.probabilities(ROOT[None])[0]
    assert lookahead_cube_decision(evaluator, ROOT, MATCH, 0) == cube_decision(ROOT, five, MATCH)
    inside = board({1: 2, 2: 1}, {24: 2, 23: 1})
    exact = exact_cube(evaluator, inside, MONEY)
    assert exact is not None
    expected = cube_decision(inside, evaluator.probabilities(inside[None])[0], MONEY, exact=exact)
    assert lookahead_cube_decision(evaluator, inside, MONEY, 2) == expected


def test_value_after_play_of_a_finished_game_is_what_was_won():
    won = board({}, {20: 15})
    five = np.array([1.0, 1.0, 0.0, 0.0, 0.0])
    assert value_after_play(won, five, CubeState(cube=2, owner=Owner.ME)) == 2.0  # a gammon, per unit cube
    assert value_after_play(won, five, CubeState(jacoby=True)) == 1.0
    assert value_after_play(won, five, MATCH) == pytest.approx(
        MatchScore.of(MATCH).normalise(MatchScore.of(MATCH).after(2), 1)
    )


def test_the_bot_decides_searched_cubes_by_lookahead():
    bot = tiny_bot(3)
    position = board({6: 5, 8: 3, 13: 5, 24: 2}, {19: 5, 17: 3, 12: 5, 1: 2})
    assert bot.cube_decision(position, MONEY, plies=1) == lookahead_cube_decision(bot.evaluator, position, MONEY, 1)
    five = bot.probabilities(position)
    assert bot.cube_decision(position, MONEY) == cube_decision(position, five, MONEY)


def test_batched_cube_decisions_are_the_single_ones_exact_inside_the_database(evaluator):
    inside = board({1: 2, 2: 1}, {24: 2, 23: 1})
    boards = np.stack([ROOT, inside, board({6: 3, 13: 2}, {1: 2, 19: 3}), inside])
    fives = np.asarray(evaluator.probabilities(boards), dtype=np.float64)
    for state in (MONEY, MATCH, CubeState(cube=2, owner=Owner.ME)):
        expected = [cube_decision(b, p, state, exact=exact_cube(evaluator, b, state)) for b, p in zip(boards, fives)]
        assert cube_decisions(evaluator, boards, fives, state) == expected
    # Without the match solve, a match bear-off is priced by the model like any other position.
    model = cube_decisions(evaluator, boards, fives, MATCH, exact_in_match=False)
    assert model[1] == cube_decision(inside, fives[1], MATCH) != cube_decisions(evaluator, boards, fives, MATCH)[1]
    assert cube_decisions(evaluator, boards, fives, MONEY, exact_in_match=False)[1].no_double == pytest.approx(
        exact_cube(evaluator, inside, MONEY).no_double(Owner.CENTERED)
    )
