"""Long nardy matches and money sessions through the engine: the Crawford game, the points of each game, the end."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from engine.errors import InvalidMatchError
from engine.game import IllegalActionError, Phase
from engine.long_nardy import LongGame, LongGameResult, Rules, legal_plays, new_long_game
from engine.match import MatchState, Outcome


@dataclass
class Played:
    """One game of a match as a random player played it: the match before it, the result, the doubles tried."""

    before: MatchState
    result: LongGameResult
    doubles_offered: int
    refused_doubles: int


def _play_game(match: MatchState, rules: Rules, rng: np.random.Generator, double_rate: float) -> Played:
    """A game of random plays, cube actions and, rarely, resignations; every double the cube rules forbid is tried
    too, and must be refused."""
    game: LongGame | LongGameResult = new_long_game(match, rules)
    offered = refused = 0
    for _ in range(2000):
        if isinstance(game, LongGameResult):
            return Played(match, game, offered, refused)
        if game.phase is Phase.OPENING:
            game = game.roll_opening(*rng.integers(1, 7, size=2).tolist())
        elif game.phase is Phase.BEFORE_ROLL:
            if not game.may_double and rules.cube != "none":
                with pytest.raises(IllegalActionError, match="no access to the cube"):
                    game.double()
                refused += 1
            if game.may_double and rng.random() < double_rate:
                offered += 1
                game = game.double()
            elif not game.last_roll and rng.random() < 0.002:
                game = game.resign(int(rng.integers(2)))
            else:
                game = game.roll(tuple(rng.integers(1, 7, size=2).tolist()))
        elif game.phase is Phase.DOUBLED:
            game = game.take() if rng.random() < 0.6 else game.drop()
        else:
            assert game.dice is not None
            options = legal_plays(game.board, game.dice, rules)
            game = game.move(options[rng.integers(len(options))])
    pytest.fail("a game did not end in 2000 actions")


def _play_match(length: int, rules: Rules, seed: int, double_rate: float = 0.1) -> list[Played]:
    """A whole match (or, at length 0, twelve money games) of the random player."""
    rng = np.random.default_rng(seed)
    match, games = MatchState(match_length=length), list[Played]()
    while not match.is_over and (length or len(games) < 12):
        games.append(_play_game(match, rules, rng, double_rate))
        match = games[-1].result.next_match
    return games


def _points_of(result: LongGameResult) -> int:
    """What the game is worth: nothing drawn, the stake for a dropped cube, else oin 1 or mars 2 times the stake."""
    if result.draw:
        return 0
    if result.outcome is None:
        return result.cube
    return int(result.outcome) * result.cube


RULES = [
    Rules(cube="doubling"),
    Rules(cube="doubling", opening="sport", last_roll_draw=True),
    Rules(cube="linear"),
]


@pytest.mark.parametrize("rules", RULES, ids=["doubling", "doubling-sport-lastroll", "linear"])
@pytest.mark.parametrize(
    "length", [1, 3, pytest.param(5, marks=pytest.mark.slow), pytest.param(7, marks=pytest.mark.slow)]
)
def test_random_matches_keep_the_crawford_rule_and_end_at_their_length(rules, length):
    for seed in range(4):
        games = _play_match(length, rules, seed)
        score = [0, 0]
        crawford_games = 0
        for number, game in enumerate(games):
            before, result = game.before, game.result
            assert before.score == tuple(score) and not before.is_over
            # The Crawford game: the game right after a side first reaches length - 1, the cube out of play.
            reached = any(s == length - 1 for s in score)
            earlier = [g.before.score for g in games[:number]]
            first_time = reached and not any(length - 1 in s for s in earlier)
            after_draw = number > 0 and games[number - 1].result.draw and games[number - 1].before.crawford
            assert before.crawford == (length > 1 and (first_time or after_draw)), (number, before)
            crawford_games += before.crawford and not after_draw
            if before.crawford:
                assert game.doubles_offered == 0 and game.refused_doubles > 0
                assert result.cube == 1
            assert before.post_crawford == any(g.before.crawford and not g.result.draw for g in games[:number])
            # The points of the game go to its winner, and only to it.
            assert result.points == _points_of(result)
            if result.winner is not None:
                score[result.winner] += result.points
            assert result.next_match.score == tuple(score)
        assert crawford_games <= 1
        final = games[-1].result.next_match
        assert final.is_over and final.winner is not None
        assert final.score[final.winner] >= length > final.score[1 - final.winner]
        assert sum(final.score) == sum(g.result.points for g in games)
        with pytest.raises(InvalidMatchError, match="already over"):
            new_long_game(final, rules)


def test_a_match_with_a_side_at_length_minus_one_plays_one_crawford_game_then_the_cube_is_back():
    rules = Rules(cube="doubling")
    crawford = MatchState(match_length=5, score=(1, 4), crawford=True)
    game = new_long_game(crawford, rules).roll_opening(6, 1)
    assert not game.may_double
    with pytest.raises(IllegalActionError, match="Crawford game"):
        game.double()
    won = game.resign(0).next_match  # the leader wins by mars: 2 points, past the length
    assert won.score == (1, 6) and won.winner == 1
    after = game.resign(1).next_match  # the trailer wins by mars
    assert (after.score, after.crawford, after.post_crawford) == ((3, 4), False, True)
    # Post-Crawford the trailer may double, and a take makes the next game worth twice as much.
    game = new_long_game(after, rules).roll_opening(6, 1)
    assert game.turn == 0 and game.may_double
    game = game.double().take()
    result = game.resign(1)
    assert result.points == 2 * int(Outcome.GAMMON) and result.next_match.winner == 0


@pytest.mark.slow
def test_a_cubeless_match_never_offers_the_cube_and_each_game_scores_its_outcome():
    rules = Rules(cube="none")
    for seed in range(3):
        games = _play_match(3, rules, seed)
        assert all(g.doubles_offered == 0 and g.result.cube == 1 for g in games)
        assert all(g.result.points in (1, 2) for g in games)
        assert games[-1].result.next_match.is_over


@pytest.mark.parametrize(
    "rules",
    [*RULES[:2], pytest.param(Rules(), marks=pytest.mark.slow)],
    ids=["doubling", "doubling-sport-lastroll", "no-cube"],
)
def test_a_money_session_goes_on_game_after_game_and_adds_up(rules):
    games = _play_match(0, rules, seed=5, double_rate=0.2)
    assert len(games) == 12
    assert not any(g.before.crawford or g.before.post_crawford or g.before.is_over for g in games)
    final = games[-1].result.next_match
    assert not final.is_over and final.winner is None
    wins = [sum(g.result.points for g in games if g.result.winner == seat) for seat in (0, 1)]
    assert final.score == (wins[0], wins[1])
    if rules.cube != "none":
        assert any(g.result.cube > 1 for g in games), "a money game with the cube at 20% doubles some game up"
