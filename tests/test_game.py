"""The game state machine: a whole game by actions, the cube, scoring, Crawford, and refused actions."""

import numpy as np
import pytest

from engine import Game, GameResult, IllegalActionError, MatchState, Outcome, Phase, Position, new_game, start_game
from engine.board import START, flip
from engine.errors import BackgammonError, IllegalMoveError
from engine.game import from_ids
from engine.match_id import GameState, MatchId, decode_match_id, encode_match_id
from engine.notation import parse_move
from engine.plays import legal_plays

from conftest import board


def _state(board, match=MatchState(), turn=0, phase=Phase.BEFORE_ROLL, dice=None) -> Game:
    return Game(match, phase, turn, Position(board), dice)


def test_opening_roll_ties_roll_again_and_the_higher_die_moves_first():
    game = new_game(MatchState())
    assert game.phase is Phase.OPENING and game.actor is None and game.position == Position(START)
    assert game.roll_opening(4, 4) is game
    opened = game.roll_opening(2, 5)
    assert (opened.phase, opened.turn, opened.dice, opened.actor) == (Phase.ROLLED, 1, (5, 2), 1)


def test_start_game_draws_until_the_dice_differ():
    for seed in range(20):
        game = start_game(MatchState(), np.random.default_rng(seed))
        assert game.phase is Phase.ROLLED and game.dice[0] > game.dice[1]


def test_a_whole_game_by_actions():
    game = new_game(MatchState(match_length=5)).roll_opening(3, 1)
    game = game.move(parse_move("8/5 6/5", game.board, game.dice))
    assert (game.phase, game.turn) == (Phase.BEFORE_ROLL, 1)
    np.testing.assert_array_equal(flip(game.board)[5], 2)  # player 0's five point, seen by player 1
    game = game.double()
    assert (game.phase, game.actor) == (Phase.DOUBLED, 0)
    game = game.take()
    assert (game.phase, game.turn, game.match.cube_value, game.match.cube_owner) == (Phase.BEFORE_ROLL, 1, 2, 0)
    game = game.roll((6, 6))
    game = game.move(legal_plays(game.board, game.dice)[0])
    assert game.turn == 0 and game.phase is Phase.BEFORE_ROLL
    result = game.double().drop()
    assert isinstance(result, GameResult)
    assert (result.winner, result.points, result.outcome, result.cube) == (0, 2, None, 2)
    assert result.next_match.score == (2, 0) and result.next_match.cube_value == 1


def test_a_drop_scores_the_cube_before_the_double():
    result = _state(START, MatchState(cube_value=4, cube_owner=1), turn=1).double().drop()
    assert (result.winner, result.points) == (1, 4)


@pytest.mark.parametrize(
    "opponent, outcome",
    [({24: 1}, Outcome.SINGLE), ({12: 15}, Outcome.GAMMON), ({3: 1, 12: 14}, Outcome.BACKGAMMON)],
)
def test_bearing_off_the_last_checker_scores_by_outcome_and_cube(opponent, outcome):
    final = board({1: 1}, opponent)
    match = MatchState(cube_value=2, cube_owner=1)
    result = _state(final, match, turn=1, phase=Phase.ROLLED, dice=(6, 5)).move(legal_plays(final, (6, 5))[0])
    assert (result.winner, result.outcome, result.points) == (1, outcome, 2 * int(outcome))
    assert result.position.board[1] == 0  # the final board, seen by the winner


def test_jacoby_counts_gammons_single_until_the_cube_is_turned():
    final = board({1: 1}, {12: 15})
    move = legal_plays(final, (2, 1))[0]
    centred = _state(final, MatchState(jacoby=True), phase=Phase.ROLLED, dice=(2, 1)).move(move)
    assert (centred.outcome, centred.points) == (Outcome.GAMMON, 1)
    turned = _state(final, MatchState(jacoby=True, cube_value=2, cube_owner=0), phase=Phase.ROLLED, dice=(2, 1))
    assert turned.move(move).points == 4


def test_crawford_game_forbids_doubling_and_post_crawford_brings_the_cube_back():
    crawford = MatchState(match_length=5, score=(4, 2), crawford=True)
    for turn in (0, 1):
        with pytest.raises(IllegalActionError, match="Crawford game"):
            _state(START, crawford, turn=turn).double()
    result = _state(START, crawford).resign(0, 1).accept()
    post = result.next_match
    assert post.post_crawford and not post.crawford and post.score == (4, 3)
    trailer = _state(START, post, turn=1).double().take()
    assert (trailer.match.cube_value, trailer.match.cube_owner) == (2, 0)
    with pytest.raises(IllegalActionError, match="owned by player 0"):
        trailer.double()  # the doubler, after the take


def test_resignations_are_scored_or_rejected():
    doubled = _state(START, MatchState(cube_value=2, cube_owner=0)).double()
    offered = doubled.resign(1, 2)
    assert (offered.phase, offered.actor) == (Phase.RESIGNED, 0)
    assert offered.reject() == doubled
    result = offered.accept()
    assert (result.winner, result.points, result.outcome) == (0, 4, Outcome.GAMMON)
    assert MatchState().jacoby is False
    assert _state(START, MatchState(jacoby=True)).resign(0, 3).accept().points == 1


@pytest.mark.parametrize(
    "act, message",
    [
        (lambda g: g.take(), "take: not allowed in phase 'before the roll'"),
        (lambda g: g.drop(), "drop: not allowed in phase 'before the roll'"),
        (lambda g: g.accept(), "accept: not allowed in phase 'before the roll'"),
        (lambda g: g.move(legal_plays(START, (3, 1))[0]), "move: not allowed in phase 'before the roll'"),
        (lambda g: g.roll((3, 1)).roll((3, 1)), "roll: not allowed in phase 'rolled'"),
        (lambda g: g.roll((3, 1)).double(), "double: not allowed in phase 'rolled'"),
        (lambda g: g.double().double(), "double: not allowed in phase 'double offered'"),
        (lambda g: g.roll_opening(3, 1), "opening roll: not allowed in phase 'before the roll'"),
        (lambda g: g.resign(0, 4), "level 4"),
        (lambda g: new_game(MatchState()).roll((3, 1)), "roll: not allowed in phase 'opening roll'"),
    ],
)
def test_illegal_actions_name_the_action_and_the_phase(act, message):
    with pytest.raises(IllegalActionError, match=message) as caught:
        act(_state(START))
    assert isinstance(caught.value, BackgammonError)


def test_an_illegal_play_is_refused_with_the_position():
    game = _state(START, phase=Phase.ROLLED, dice=(3, 1))
    with pytest.raises(IllegalMoveError, match=r"not a legal play of 31 in Position.from_id\('4HPwATDgc/ABMA'\)"):
        game.move(legal_plays(START, (6, 6))[0])


def test_states_are_immutable_values():
    game = new_game(MatchState()).roll_opening(3, 1)
    assert game == new_game(MatchState()).roll_opening(3, 1) and hash(game) == hash(
        new_game(MatchState()).roll_opening(3, 1)
    )
    with pytest.raises(AttributeError):
        game.turn = 1  # type: ignore[misc]


def test_a_resignation_rejected_after_the_roll_keeps_the_dice():
    rolled = _state(START, phase=Phase.ROLLED, dice=(4, 2))
    offered = rolled.resign(0, 3)
    assert offered.dice == (4, 2) and offered.reject() == rolled


def _games() -> list[Game | GameResult]:
    """A game in every phase, and a game ended every way, in matches and money play."""
    crawford = MatchState(match_length=5, score=(4, 2), crawford=True)
    post = MatchState(match_length=5, score=(2, 4), post_crawford=True, cube_value=2, cube_owner=0)
    rolled = new_game(MatchState(match_length=7, score=(1, 3))).roll_opening(2, 5)
    before = rolled.move(legal_plays(rolled.board, rolled.dice)[0])
    doubled = _state(START, post, turn=0).double()
    race = board({1: 1}, {12: 15})
    return [
        new_game(MatchState(match_length=3)),
        new_game(post),
        rolled,
        before,
        doubled,
        _state(START, crawford, turn=1),
        _state(START, MatchState(jacoby=True, cube_value=4, cube_owner=1)),
        before.resign(1, 3),
        rolled.resign(1, 1),
        doubled.resign(1, 2),
        doubled.resign(0, 1),
        doubled.drop(),
        rolled.resign(0, 2).accept(),
        before.resign(0, 1).accept(),
        _state(race, crawford, turn=1, phase=Phase.ROLLED, dice=(2, 1)).move(legal_plays(race, (2, 1))[0]),
        _state(race, MatchState(jacoby=True), phase=Phase.ROLLED, dice=(2, 1)).move(legal_plays(race, (2, 1))[0]),
    ]


@pytest.mark.parametrize("game", _games(), ids=lambda g: g.phase.name if isinstance(g, Game) else f"over-{g.outcome}")
def test_a_game_and_its_position_and_match_ids_round_trip(game):
    position_id, match_id = game.ids()
    assert len(position_id) == 14 and len(match_id) == 12
    assert from_ids(position_id, match_id) == game


def test_the_ids_derive_post_crawford_and_write_the_opening_as_no_game():
    opening = new_game(MatchState(match_length=5, score=(4, 1)))
    assert opening.ids()[0] == "4HPwATDgc/ABMA"
    read = from_ids(*opening.ids())
    assert read.match.post_crawford and not read.match.crawford
    assert decode_match_id(opening.ids()[1]).game_state is GameState.NONE
    assert not from_ids(*new_game(MatchState(match_length=1)).ids()).match.post_crawford


def _ids(board=START, **fields) -> tuple[str, str]:
    return Position(board).id, encode_match_id(MatchId(**{"jacoby": False, **fields}))


@pytest.mark.parametrize(
    "ids, words",
    [
        (_ids(match_length=3, score=(3, 1)), "the match is over"),
        (_ids(match_length=5, score=(4, 4), crawford=True), "exactly one side"),
        (_ids(board({1: 1}, {12: 15}), game_state=GameState.NONE), "start"),
        (_ids(game_state=GameState.NONE, dice=(3, 1)), "no dice"),
        (_ids(dice=(3, 1), double_offered=True, turn=1), "dice belong"),
        (_ids(cube_value=2, cube_owner=1, double_offered=True, turn=1), "no access to the cube"),
        (_ids(match_length=5, score=(4, 0), crawford=True, double_offered=True, turn=1), "no access to the cube"),
        (_ids(turn=1), "cannot decide now"),
        (_ids(double_offered=True, turn=0), "cannot decide now"),
        (_ids(board({}, {12: 15})), "borne off all 15"),
        (_ids(game_state=GameState.OVER), "all its checkers off"),
        (_ids(game_state=GameState.RESIGNED), "the level"),
        (_ids(game_state=GameState.DROPPED, player_on_roll=1, turn=0), "winner on roll"),
        (_ids(match_length=5, score=(4, 0), crawford=True, cube_value=2, cube_owner=0), "Crawford"),
    ],
)
def test_ids_of_an_impossible_state_are_refused(ids, words):
    with pytest.raises(BackgammonError, match=words):
        from_ids(*ids)
