"""The long nardy state machine: openings, the cube flags, resignations, the last-roll rule, matches."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import board

from engine.errors import IllegalMoveError, InvalidMatchError
from engine.game import IllegalActionError, Phase
from engine.long_nardy import LongGame, LongPosition, Rules, legal_plays, new_long_game, parse_long_move
from engine.match import MatchState, Outcome


def test_classic_opening_lets_the_starter_roll_afresh_sport_plays_the_opening_dice():
    classic = new_long_game().roll_opening(2, 5)
    assert (classic.phase, classic.turn, classic.first_mover, classic.dice) == (Phase.BEFORE_ROLL, 1, 1, None)
    sport = new_long_game(rules=Rules(opening="sport")).roll_opening(6, 1)
    assert (sport.phase, sport.turn, sport.dice) == (Phase.ROLLED, 0, (6, 1))
    assert new_long_game().roll_opening(4, 4).phase is Phase.OPENING


def test_a_classic_opening_double_is_played_with_the_first_turn_exception():
    game = new_long_game().roll_opening(3, 1).roll((4, 4))
    game = game.move(parse_long_move("24/16(2)", game.board, game.dice))
    assert isinstance(game, LongGame) and game.turn == 1
    assert game.position.flipped().board[16] == 2  # seen by player 0 again


def test_an_illegal_play_is_refused():
    game = new_long_game().roll_opening(3, 1).roll((6, 6))
    two_head_sixes = legal_plays(game.board, (6, 6))[0]
    one = new_long_game(rules=Rules(head_doubles="")).roll_opening(3, 1).roll((6, 6))
    with pytest.raises(IllegalMoveError, match="not a legal play of 66"):
        one.move(two_head_sixes)
    assert isinstance(game.move(two_head_sixes), LongGame)


def test_no_cube_by_default_doubling_doubles_linear_adds_one_stake():
    game = new_long_game().roll_opening(3, 1)
    with pytest.raises(IllegalActionError, match="no cube"):
        game.double()
    doubling = new_long_game(rules=Rules(cube="doubling")).roll_opening(3, 1).double().take()
    assert (doubling.cube, doubling.cube_owner, doubling.raised_cube) == (2, 1, 4)
    linear = new_long_game(rules=Rules(cube="linear")).roll_opening(3, 1).double().take()
    assert (linear.cube, linear.cube_owner, linear.raised_cube) == (2, 1, 3)
    with pytest.raises(IllegalActionError, match="owned by player 1"):
        linear.double()
    result = linear.roll((3, 1))
    result = result.move(legal_plays(result.board, (3, 1))[0])
    assert isinstance(result, LongGame)
    dropped = result.double().drop()
    assert (dropped.winner, dropped.points, dropped.outcome) == (1, 2, None)


def test_resigning_concedes_mars_unless_a_checker_is_off():
    position = LongPosition(board({6: 3}, {13: 5}))  # player 0 on roll has 12 off, player 1 has 10 off
    game = LongGame(Rules(cube="doubling"), MatchState(), Phase.BEFORE_ROLL, 0, position, cube=2, first_mover=0)
    assert (game.resign(1).winner, game.resign(1).points, game.resign(1).outcome) == (0, 2, Outcome.SINGLE)
    no_off = LongGame(Rules(), MatchState(), Phase.BEFORE_ROLL, 0, LongPosition(board({6: 3}, {13: 15})), first_mover=0)
    assert (no_off.resign(1).points, no_off.resign(1).outcome) == (2, Outcome.GAMMON)
    assert no_off.resign(0).outcome is Outcome.SINGLE


def _near_end(rules: Rules, opponent: dict[int, int], turn: int = 0, first_mover: int = 0) -> LongGame:
    """Player ``turn`` on roll with one checker on its 1 and 1-1 to play, the other side's checkers as given."""
    return LongGame(
        rules, MatchState(), Phase.ROLLED, turn, LongPosition(board({1: 1}, opponent)), (1, 1), first_mover=first_mover
    )


def test_bearing_off_the_fifteenth_wins_oin_or_mars():
    assert _near_end(Rules(), {13: 2}).move(legal_plays(board({1: 1}, {13: 2}), "11")[0]).points == 1
    result = _near_end(Rules(), {13: 15}).move(legal_plays(board({1: 1}, {13: 15}), "11")[0])
    assert (result.winner, result.points, result.outcome) == (0, 2, Outcome.GAMMON)


def test_last_roll_rule_the_second_mover_finishing_too_draws():
    rules = Rules(last_roll_draw=True)
    game = _near_end(rules, {13: 2})
    last = game.move(legal_plays(game.board, (1, 1))[0])
    assert isinstance(last, LongGame) and last.last_roll and last.turn == 1
    with pytest.raises(IllegalActionError):
        last.resign(1)
    rolled = last.roll((2, 1))
    draw = rolled.move(legal_plays(rolled.board, (2, 1))[0])
    assert draw.draw and draw.points == 0 and draw.next_match == MatchState()


def test_last_roll_rule_the_second_mover_failing_loses_oin():
    game = _near_end(Rules(last_roll_draw=True), {18: 3})  # the other side's three on its 6
    last = game.move(legal_plays(game.board, (1, 1))[0])
    rolled = last.roll((2, 1))
    result = rolled.move(legal_plays(rolled.board, (2, 1))[0])
    assert (result.winner, result.points, result.outcome) == (0, 1, Outcome.SINGLE)


def test_last_roll_is_not_given_when_it_cannot_matter():
    rules = Rules(last_roll_draw=True)
    # The second mover cannot finish (five left); the second mover finishing first just wins.
    for game in (_near_end(rules, {13: 5}), _near_end(rules, {13: 2}, first_mover=1)):
        result = game.move(legal_plays(game.board, (1, 1))[0])
        assert not isinstance(result, LongGame) and result.winner == 0


def test_crawford_game_has_no_cube_and_scores_carry_into_the_match():
    match = MatchState(match_length=3, score=(2, 0), crawford=True)
    game = new_long_game(match, Rules(cube="doubling")).roll_opening(5, 2)
    assert not game.may_double
    with pytest.raises(IllegalActionError, match="Crawford"):
        game.double()
    assert game.resign(1).next_match.score == (4, 0) and game.resign(1).next_match.is_over


def test_inconsistent_states_are_refused():
    with pytest.raises(InvalidMatchError):
        LongGame(Rules(), MatchState(), Phase.ROLLED, 0, LongPosition(board({6: 1}, {13: 1})), None, first_mover=0)
    with pytest.raises(InvalidMatchError):
        LongGame(
            Rules(), MatchState(), Phase.BEFORE_ROLL, 0, LongPosition(board({6: 1}, {13: 1})), cube=2, first_mover=0
        )
    with pytest.raises(InvalidMatchError, match="keeps its own cube"):
        new_long_game(MatchState(cube_value=2))
    with pytest.raises(IllegalActionError):
        new_long_game().roll((3, 1))


def _random_match(rng: np.random.Generator, rules: Rules, length: int) -> tuple[MatchState, int]:
    """Play a match of random plays and cube actions to its end; (final match state, games played)."""
    match, games = MatchState(match_length=length), 0
    while not match.is_over:
        game: object = new_long_game(match, rules)
        games += 1
        for _ in range(1000):
            assert isinstance(game, LongGame)
            if game.phase is Phase.OPENING:
                game = game.roll_opening(*rng.integers(1, 7, size=2).tolist())
            elif game.phase is Phase.BEFORE_ROLL:
                game = (
                    game.double()
                    if game.may_double and rng.random() < 0.05
                    else game.roll(tuple(rng.integers(1, 7, size=2).tolist()))
                )
            elif game.phase is Phase.DOUBLED:
                game = game.take() if rng.random() < 0.7 else game.drop()
            else:
                options = legal_plays(game.board, game.dice, rules)
                game = game.move(options[rng.integers(len(options))])
            if not isinstance(game, LongGame):
                break
        else:
            pytest.fail("a game did not end in 1000 actions")
        match = game.next_match  # type: ignore[attr-defined]
    return match, games


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(opening="sport", cube="doubling", block_check="turn"),
        Rules(cube="linear", head_doubles="46", last_roll_draw=True),
    ],
    ids=["defaults", "sport-doubling-turn", "linear-46-lastroll"],
)
def test_random_matches_end(rules):
    match, games = _random_match(np.random.default_rng(7), rules, 3)
    assert match.is_over and max(match.score) >= 3 and games >= 1


def test_command_line_lists_moves_and_draws_the_board(capsys):
    from engine.__main__ import main

    assert main(["long-nardy", "moves", "AAAB//wAAAP/+", "33"]) == 0
    assert capsys.readouterr().out == "24/18(2)\tAABgf/wAAAP/+\n24/15 24/21\tAAIEf/wAAAP/+\n"
    assert main(["long-nardy", "moves", "AAAB//wAAAP/+", "33", "--head-doubles", "46", "--json"]) == 0
    assert capsys.readouterr().out == '{"moves": [{"move": "24/15", "position_id": "AAIA//wAAAP/+"}]}\n'
    assert main(["long-nardy", "show", "AAAB//wAAAP/+"]) == 0
    assert "pips 360, off 0" in capsys.readouterr().out
    assert main(["long-nardy", "moves", "4HPwATDgc/ABMA", "31"]) == 2
    assert capsys.readouterr().err.startswith("error: long nardy Position ID '4HPwATDgc/ABMA'")
