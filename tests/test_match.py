"""Match state: scoring with cube and gammons, Crawford and post-Crawford, cube access, opening roll."""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import START, flip
from engine.errors import InvalidMatchError, InvalidPositionError
from engine.game import start_game
from engine.match import MatchState, Outcome, after_game, game_outcome, game_result_points, may_double


def final(loser: dict[int, int]) -> np.ndarray:
    """A finished game in the winner's view: the winner has borne off, ``loser`` maps point -> checkers."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in loser.items():
        b[p] = -n
    return b


def test_single_gammon_backgammon():
    assert game_outcome(final({20: 3})) == Outcome.SINGLE
    assert game_outcome(final({20: 10, 12: 5})) == Outcome.GAMMON
    assert game_outcome(final({20: 10, 12: 4, 6: 1})) == Outcome.BACKGAMMON  # in the winner's home board
    assert game_outcome(final({20: 14, 0: 1})) == Outcome.BACKGAMMON  # on the bar
    assert game_outcome(final({20: 14, 7: 1})) == Outcome.GAMMON
    # The same board seen by the loser.
    assert game_outcome(flip(final({20: 14, 0: 1}))) == Outcome.BACKGAMMON


def test_points_with_cube_and_jacoby():
    assert game_result_points(final({20: 3}), cube=4) == 4
    assert game_result_points(final({20: 10, 12: 5}), cube=2) == 4
    assert game_result_points(final({20: 14, 0: 1}), cube=8) == 24
    assert game_result_points(Outcome.GAMMON, cube=1) == 2
    assert game_result_points(2, cube=1, jacoby=True) == 1  # cube not turned: gammon counts single
    assert game_result_points(3, cube=2, jacoby=True) == 6


def test_bad_scoring_input():
    with pytest.raises(InvalidPositionError, match="not over"):
        game_outcome(START)
    with pytest.raises(InvalidMatchError, match="outcome 4"):
        game_result_points(4)
    with pytest.raises(InvalidMatchError, match="cube 3"):
        game_result_points(1, cube=3)


def test_crawford_then_post_crawford():
    s = MatchState(match_length=5, score=(2, 1), cube_value=2, cube_owner=1)
    s = after_game(s, winner=0, points=2)  # 4-1: player 0 is 1-away for the first time
    assert s.score == (4, 1) and s.crawford and not s.post_crawford
    assert (s.cube_value, s.cube_owner) == (1, None)
    assert not may_double(s, 0) and not may_double(s, 1)
    s = after_game(s, winner=1, points=2)  # the Crawford game is over: 4-3, post-Crawford
    assert s.score == (4, 3) and not s.crawford and s.post_crawford
    assert may_double(s, 1) and may_double(s, 0)
    s = after_game(s, winner=1, points=1)  # 4-4: still post-Crawford, never Crawford again
    assert not s.crawford and s.post_crawford and not s.is_over
    s = after_game(s, winner=0, points=1)
    assert s.is_over and s.winner == 0


def test_no_crawford_when_the_match_ends_or_jumps_past():
    s = after_game(MatchState(match_length=5, score=(2, 0)), winner=0, points=4)
    assert s.is_over and s.winner == 0 and not s.crawford
    s = after_game(MatchState(match_length=7, score=(0, 3)), winner=1, points=2)
    assert s.score == (0, 5) and not s.crawford and not s.post_crawford
    with pytest.raises(InvalidMatchError, match="already over"):
        after_game(MatchState(match_length=3, score=(3, 0)), winner=1, points=1)


def test_money_session():
    s = after_game(MatchState(jacoby=True, cube_value=4, cube_owner=0), winner=1, points=8)
    assert s.score == (0, 8) and not s.is_over and s.winner is None and s.cube_value == 1
    assert may_double(s, 0) and may_double(s, 1)


def test_cube_access():
    s = MatchState(match_length=7, score=(1, 2), cube_value=2, cube_owner=1)
    assert may_double(s, 1) and not may_double(s, 0)
    with pytest.raises(InvalidMatchError, match="player must be 0 or 1"):
        may_double(s, 2)


def test_invalid_states():
    with pytest.raises(InvalidMatchError, match="no Crawford"):
        MatchState(crawford=True)
    with pytest.raises(InvalidMatchError, match="power of 2"):
        MatchState(cube_value=3)
    with pytest.raises(InvalidMatchError, match="not used in the Crawford game"):
        MatchState(match_length=5, score=(4, 0), crawford=True, cube_value=2)
    with pytest.raises(InvalidMatchError, match="positive"):
        after_game(MatchState(match_length=5), winner=0, points=0)


def test_the_opening_roll_starts_either_player_with_the_higher_die_first():
    rng = np.random.default_rng(1)
    starters = []
    for _ in range(2000):
        game = start_game(MatchState(), rng)
        high, low = game.dice
        assert high > low and 1 <= low and high <= 6
        starters.append(game.turn)
    assert 0.45 < np.mean(starters) < 0.55
    assert start_game(MatchState(), np.random.default_rng(7)) == start_game(MatchState(), np.random.default_rng(7))
