"""Exact match-play cube values of small bear-offs (bot.evaluation.bearoff_match) against a plain recursion
and GNU Backgammon."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from bot.evaluation import bearoff as bo
from bot.evaluation.bearoff_match import MAX_PAIRS, reachable, solve, solve_many
from bot.equity.cube import CubeState, MatchScore, Owner, Verdict, cube_decision
from engine import ROLL_WEIGHTS, ROLLS, afterstates, decode_position_id
from tests.conftest import load_fixture


@functools.cache
def results(index: int, roll: int) -> tuple[int, ...]:
    """One side's home-board indices after each play of ``ROLLS[roll]``, straight from the engine."""
    board = np.zeros((1, 26), dtype=np.int8)
    board[0, 1:7] = bo.home_counts(np.array([index]))[0]
    after, _ = afterstates(board, ROLLS[roll][None])
    return tuple(int(i) for i in bo.home_index(after[:, 1:7]))


def brute_force(mine: int, theirs: int, state: CubeState) -> tuple[float, float]:
    """(no double, double take) MWCs of the side on roll, by a memoised recursion over single positions."""
    score = MatchScore.of(state)
    away = {True: score.away_me, False: score.away_opp}

    def may_double(a_on_roll: bool, value: int, owner: Owner) -> bool:
        own = Owner.ME if a_on_roll else Owner.OPP
        return not state.crawford and owner in (Owner.CENTERED, own) and away[a_on_roll] > value

    @functools.cache
    def before_roll(a_on_roll: bool, i: int, j: int, value: int, owner: Owner) -> float:
        """A's MWC with the cube at ``value``, before the side on roll's own roll (no cube action)."""
        total = 0.0
        for roll, weight in enumerate(ROLL_WEIGHTS):
            if a_on_roll:
                total += weight * max(
                    score.after(value) if c == 0 else before_cube(False, c, j, value, owner) for c in results(i, roll)
                )
            else:
                total += weight * min(
                    score.after(-value) if c == 0 else before_cube(True, i, c, value, owner) for c in results(j, roll)
                )
        return total

    @functools.cache
    def before_cube(a_on_roll: bool, i: int, j: int, value: int, owner: Owner) -> float:
        stay = before_roll(a_on_roll, i, j, value, owner)
        if not may_double(a_on_roll, value, owner):
            return stay
        if a_on_roll:
            return max(stay, min(before_roll(True, i, j, 2 * value, Owner.OPP), score.after(value)))
        return min(stay, max(before_roll(False, i, j, 2 * value, Owner.ME), score.after(-value)))

    return (
        before_roll(True, mine, theirs, state.cube, state.owner),
        before_roll(True, mine, theirs, 2 * state.cube, Owner.OPP),
    )


def index(counts: dict[int, int]) -> int:
    home = np.zeros(6, dtype=np.int64)
    for point, n in counts.items():
        home[point - 1] = n
    return int(bo.home_index(home[None])[0])


STATES = [
    CubeState(cube=1, owner="centered", match_length=7, score=(0, 3)),
    CubeState(cube=1, owner="centered", match_length=5, score=(3, 2)),
    CubeState(cube=2, owner="me", match_length=9, score=(2, 3)),
    CubeState(cube=2, owner="opp", match_length=11, score=(4, 6)),
    CubeState(cube=1, owner="centered", match_length=7, score=(6, 2)),  # post-Crawford: only the trailer doubles
    CubeState(cube=1, owner="centered", match_length=7, score=(2, 6), crawford=True),
]
POSITIONS = [({1: 2, 2: 1}, {1: 1, 3: 1}), ({4: 1, 5: 1}, {1: 1, 2: 1, 6: 1}), ({6: 2}, {2: 2, 3: 1})]


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{s.match_length}-{s.score}-{s.cube}{s.owner.value}")
@pytest.mark.parametrize("mine, theirs", POSITIONS)
@pytest.mark.slow
def test_solve_is_the_plain_recursion(mine, theirs, state):
    exact = solve(index(mine), index(theirs), state)
    assert exact is not None
    no_double, double_take = brute_force(index(mine), index(theirs), state)
    assert exact.no_double == pytest.approx(no_double, abs=1e-12)
    assert exact.double_take == pytest.approx(double_take, abs=1e-12)


@pytest.mark.parametrize("state", STATES[:4], ids=lambda s: f"{s.match_length}-{s.score}-{s.cube}{s.owner.value}")
def test_many_pairs_solved_together_are_each_solved_alone(state):
    # A search's leaves: overlapping sets of reachable boards, one backward pass for all.
    pairs = [(index(a), index(b)) for a, b in POSITIONS] + [(index({3: 2, 1: 1}), index({6: 1, 5: 1, 2: 2}))]
    for together, (mine, theirs) in zip(solve_many(pairs, state), pairs):
        alone = solve(mine, theirs, state)
        assert together is not None and alone is not None
        assert together.no_double == pytest.approx(alone.no_double, abs=1e-12)
        assert together.double_take == pytest.approx(alone.double_take, abs=1e-12)
    assert solve_many([], state) == []


def test_the_crawford_game_is_cubeless():
    """No doubling: the game is worth one point, at the database's exact winning chance."""
    state = CubeState(cube=1, owner="centered", match_length=7, score=(2, 6), crawford=True)
    mine, theirs = index({2: 2, 5: 1}), index({1: 1, 4: 2})
    win = bo.build_two_sided(3, progress=False).win[mine, theirs]
    score = MatchScore.of(state)
    exact = solve(mine, theirs, state)
    assert exact is not None
    assert exact.no_double == pytest.approx(win * score.after(1) + (1 - win) * score.after(-1), abs=1e-12)


def test_gnubgs_small_bearoffs():
    """GNU Backgammon's 2-ply is exact where the game ends within its horizon: the same normalised equities."""
    checked = 0
    for record in load_fixture("cube.jsonl"):
        board = decode_position_id(record["position_id"])
        if record["match_length"] == 0 or not bo.is_bearoff(board[None])[0]:
            continue
        mine, theirs = (int(bo.home_index(h)[0]) for h in bo.home_boards(board[None]))
        if max(mine, theirs) >= bo.positions_count(bo.TWO_SIDED_CHECKERS):  # beyond the two-sided database
            continue
        if len(reachable(mine)) * len(reachable(theirs)) > 2000:  # longer than gnubg's 2 plies can see
            continue
        state = CubeState(
            record["cube"], record["owner"], record["match_length"], tuple(record["score"]), record["crawford"]
        )
        exact = solve(mine, theirs, state)
        assert exact is not None
        score = MatchScore.of(state)
        assert score.normalise(exact.no_double, state.cube) == pytest.approx(record["no_double"], abs=2e-3)
        assert score.normalise(exact.double_take, state.cube) == pytest.approx(record["double_take"], abs=2e-3)
        decision = cube_decision(board, np.array([0.5, 0, 0, 0, 0]), state, exact=exact)  # probabilities unused
        assert decision.should_double == record["should_double"] and decision.should_take == record["should_take"]
        checked += 1
    assert checked >= 4


def test_the_cube_model_takes_where_the_exact_answer_passes():
    """7-point match, 3-away against 4-away; 5 checkers against 6, P(win) 0.744 (the fixture's tQEAgFIBAAAAAA).

    The cube model, given the exact winning chance, calls the double a take; solved exactly
    it is a pass, as GNU Backgammon's 2-ply says.
    """
    board = decode_position_id("tQEAgFIBAAAAAA")
    state = CubeState(cube=1, owner="centered", match_length=7, score=(4, 3))
    mine, theirs = (int(bo.home_index(h)[0]) for h in bo.home_boards(board[None]))
    win = bo.two_sided(progress=False).win[mine, theirs]
    probabilities = np.array([win, 0, 0, 0, 0])
    assert cube_decision(board, probabilities, state).verdict is Verdict.DOUBLE_TAKE
    exact = cube_decision(board, probabilities, state, exact=solve(mine, theirs, state))
    assert exact.verdict is Verdict.DOUBLE_PASS and exact.double_take == pytest.approx(1.21, abs=0.01)


def test_too_big_or_money_is_refused():
    six = index({6: 6})
    assert len(reachable(six)) ** 2 > MAX_PAIRS
    assert solve(six, six, CubeState(cube=1, owner="centered", match_length=7, score=(0, 0))) is None
    with pytest.raises(ValueError, match="match-play position"):
        solve(index({1: 1}), index({1: 1}), CubeState())
