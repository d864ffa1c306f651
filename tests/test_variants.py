"""One contract for every game the engine plays (engine.variant.VARIANTS), as OpenSpiel's random simulation test
runs on every game: random games from the start end with a legal result, the single-position and batched move
generators agree, Position IDs and the text of the plays made round-trip, a position of one game is refused by the
other by name; and ``find_variant`` resolves every spelling in one place."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import InvalidOptionError, InvalidPositionError
from engine.match import MatchState, Outcome, roll_dice
from engine.variant import BACKGAMMON, LONG_NARDY, NAMES, VARIANTS, Finished, GameOn, Variant, find_variant

GAMES = 3  # random games per variant: each move is checked against the batched generator


@pytest.fixture(params=NAMES)
def variant(request) -> Variant:
    return find_variant(request.param)


def _random_game(variant: Variant, rng: np.random.Generator) -> tuple[Finished, int]:
    """A money game played to its end with random legal plays (and, where the rules have a cube, random doubles),
    each position checked on the way; its result and how many moves it took."""
    game: GameOn | Finished = variant.new_game(MatchState())
    moves = 0
    while isinstance(game, GameOn):
        if game.turn is None:
            game = game.roll_opening(*roll_dice(rng))
        elif game.may_double and rng.random() < 0.05:
            doubled = game.double()
            game = doubled.take() if rng.random() < 0.8 else doubled.drop()
        elif game.dice is None:
            game = game.roll(roll_dice(rng))
        else:
            plays = _checked_plays(variant, game.board, game.dice)
            play = plays[rng.integers(len(plays))]
            again = variant.parse_play(variant.format_play(play), game.board, game.dice)
            assert np.array_equal(again.afterstate, play.afterstate), variant.format_play(play)
            game = game.move(play)
            moves += 1
    return game, moves


def _checked_plays(variant: Variant, board: np.ndarray, dice: tuple[int, int]) -> list:
    """The legal plays of one position, after checking them against the batched generator and round-tripping the
    position's ID."""
    plays = variant.legal_plays(board, dice)
    children, parent = variant.afterstates(board[None], np.array([dice]))
    assert (parent == 0).all()
    batched = sorted(child.tobytes() for child in children)
    single = sorted(play.afterstate.tobytes() for play in plays)
    assert single == batched, f"{variant.position(board)!r} {dice}: single-position and batched plays differ"
    position = variant.position(board)
    assert variant.position.from_id(position.id) == position
    return plays


@pytest.mark.slow
def test_random_games_from_the_start_end_with_a_legal_result(variant):
    rng = np.random.default_rng(54)
    for _ in range(GAMES):
        result, moves = _random_game(variant, rng)
        assert moves > 0 and isinstance(result, Finished)
        if result.draw:
            assert result.winner is None and result.points == 0
            continue
        assert result.winner in (0, 1) and result.cube >= 1
        if result.outcome is None:  # a dropped double
            assert result.points == result.cube
            continue
        winner_view = result.position.board
        assert variant.pip_counts(winner_view)[0] == 0, "the winner has borne off every checker"
        assert int(variant.winning_points(winner_view[None])[0]) == int(result.outcome)
        assert result.points == int(result.outcome) * result.cube
        assert variant.outcome_name(result.outcome) in variant.outcome_names
        assert sum(result.next_match.score) == result.points


def test_the_start_is_a_position_of_its_game_with_equal_pips(variant):
    start = variant.position(variant.start)
    assert type(start).variant == variant.name
    mover, opponent = variant.pip_counts(variant.start)
    assert mover == opponent == start.pip_counts()[0] > 0 and start.flipped() == start
    drawn = variant.render(variant.start, dice=(6, 5))
    assert f"pips {mover}" in drawn and "65" in drawn


def test_a_position_of_one_game_is_refused_by_the_other_by_name():
    for mine, other in ((BACKGAMMON, LONG_NARDY), (LONG_NARDY, BACKGAMMON)):
        foreign = other.position(other.start)
        for refuse in (
            lambda: mine.position(foreign),
            lambda: mine.legal_plays(foreign, (3, 1)),
            lambda: mine.pip_counts(foreign),
            lambda: mine.render(foreign),
        ):
            with pytest.raises(InvalidPositionError, match=f"is a {other.title} position, expected a {mine.title} one"):
                refuse()


def test_a_game_holds_only_a_position_of_its_own_game():
    from engine.game import Game, Phase
    from engine.long_nardy import LongGame, Rules
    from engine.long_nardy.position import START_POSITION

    with pytest.raises(ValueError, match="not a backgammon Position"):
        Game(MatchState(), Phase.BEFORE_ROLL, 0, START_POSITION)
    with pytest.raises(ValueError, match="not a long nardy LongPosition"):
        LongGame(Rules(), MatchState(), Phase.BEFORE_ROLL, 0, BACKGAMMON.position(BACKGAMMON.start), first_mover=0)


@pytest.mark.parametrize(
    "spelling, name",
    [
        ("backgammon", "backgammon"),
        ("Backgammon", "backgammon"),
        ("bg", "backgammon"),
        ("short-nardy", "backgammon"),
        ("short nardy", "backgammon"),
        ("long_nardy", "long_nardy"),
        ("long", "long_nardy"),
        ("long-nardy", "long_nardy"),
        (" Long Nardy ", "long_nardy"),
        ("longnardy", "long_nardy"),
    ],
)
def test_find_variant_reads_every_spelling(spelling, name):
    assert find_variant(spelling).name == name
    assert find_variant(spelling) is {v.name: v for v in VARIANTS}[name]


@pytest.mark.parametrize("junk", ["", "chess", "long nardy!", "nardy", "short", 3, None])
def test_find_variant_refuses_other_names_listing_the_known_ones(junk):
    with pytest.raises(InvalidOptionError, match=r"unknown, expected backgammon \(or bg, short-nardy\) or long_nardy"):
        find_variant(junk)


def test_outcome_names_are_the_games_own_words():
    assert [BACKGAMMON.outcome_name(o) for o in Outcome] == ["single", "gammon", "backgammon"]
    assert [LONG_NARDY.outcome_name(o) for o in (1, 2)] == ["oin", "mars"]
    with pytest.raises(InvalidOptionError, match="long nardy: outcome 3 is not one of 1..2"):
        LONG_NARDY.outcome_name(Outcome.BACKGAMMON)
