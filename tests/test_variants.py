"""One contract for every game the engine plays (engine.variant.VARIANTS), as OpenSpiel's random simulation test
runs on every game: random games from the start end with a legal result, the single-position and batched move
generators agree, Position IDs and the text of the plays made round-trip, a position of one game is refused by the
other by name; and ``find_variant`` resolves every spelling in one place.

The doors keep the contract too, on positions of random games of each variant: every door's move list is the
engine's (HTTP ``/v1/moves``, BEI's ``okmove``) or its best move one of them (UBGI's ``bestmove``), a door that does
not play a variant saying so itself (the OpenAPI schema's ``variant``, UBGI's ``game.variant`` key); Position IDs
and move texts round-trip through the game's codec; resignations name the variant's outcomes and cube decisions
order their equities as they decide."""

from __future__ import annotations

import json

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


# ---------------------------------------------------------------- the doors

DOOR_POSITIONS = 6  # positions with dice per variant, from random games, each asked of every door


def _positions(variant: Variant, count: int, seed: int = 54) -> list[tuple[np.ndarray, tuple[int, int]]]:
    """``count`` positions of random games of ``variant`` with the roll to play, mover's view, spread over a game."""
    rng = np.random.default_rng(seed)
    seen: list[tuple[np.ndarray, tuple[int, int]]] = []
    while len(seen) < 4 * count:
        game: GameOn | Finished = variant.new_game(MatchState())
        while isinstance(game, GameOn):
            if game.turn is None:
                game = game.roll_opening(*roll_dice(rng))
            elif game.dice is None:
                game = game.roll(roll_dice(rng))
            else:
                plays = variant.legal_plays(game.board, game.dice)
                seen.append((game.board.copy(), game.dice))
                game = game.move(plays[rng.integers(len(plays))])
    return seen[:: len(seen) // count][:count]


def _afterstates(variant: Variant, board: np.ndarray, dice: tuple[int, int]) -> set[bytes]:
    return {play.afterstate.tobytes() for play in variant.legal_plays(board, dice)}


@pytest.fixture(scope="module")
def client():
    from starlette.testclient import TestClient

    from bot.doors.http_app import create_app
    from bot.facade import Bot

    with TestClient(create_app(Bot.load())) as test_client:
        yield test_client


def test_http_moves_are_the_engines_plays_and_their_texts_and_ids_round_trip(variant, client):
    from bot.doors.codecs import codec_for

    codec = codec_for(variant)
    schema = client.get("/openapi.json").json()
    (parameter,) = [p for p in schema["paths"]["/v1/moves"]["get"]["parameters"] if p["name"] == "variant"]
    if codec.api_name not in parameter["schema"]["enum"]:
        pytest.skip(f"/v1/moves does not play {variant.title}")
    for board, dice in _positions(variant, DOOR_POSITIONS):
        position_id = codec.position_id(board)
        assert np.array_equal(codec.read_position(position_id).board, board)
        answer = client.get(
            "/v1/moves", params={"variant": codec.api_name, "position": position_id, "dice": f"{dice[0]}{dice[1]}"}
        )
        assert answer.status_code == 200, answer.text
        moves = answer.json()["moves"]
        by_text = {variant.parse_play(m["move"], board, dice).afterstate.tobytes() for m in moves}
        by_id = {variant.flip(codec.read_position(m["position_id"]).board).tobytes() for m in moves}
        engine = _afterstates(variant, board, dice)
        assert by_text == by_id == engine and len(moves) == len(engine), f"{position_id} {dice}"


def test_ubgi_plays_a_legal_move_in_every_variant_it_offers(variant):
    from bot.doors.ubgi import UbgiEngine
    from bot.facade import Bot

    lines: list[str] = []
    engine = UbgiEngine(Bot.load(), emit=lines.append)
    engine.run_now("keys")
    (key,) = [line.split() for line in lines if line.startswith("key game.variant ")]
    if variant.name not in key[3].split("|"):
        pytest.skip(f"UBGI's game.variant offers no {variant.title}")
    engine.run_now(f"set game.variant {variant.name}")
    for board, dice in _positions(variant, DOOR_POSITIONS):
        lines.clear()
        for line in (f"position gnubgid {variant.position(board).id}", f"dice {dice[0]} {dice[1]}", "go chequer"):
            engine.run_now(line)
        assert not [line for line in lines if line.startswith("error")], lines
        (best,) = [line.removeprefix("bestmove ") for line in lines if line.startswith("bestmove ")]
        if best == "pass":
            assert not variant.legal_plays(board, dice)[0].steps
        else:
            assert variant.parse_play(best, board, dice).afterstate.tobytes() in _afterstates(variant, board, dice)


def _bei_state(board: np.ndarray, dice: tuple[int, int]) -> str:
    """A BEI state of a backgammon board (mover's view), the mover player 1 on turn, money, cube centred."""
    fields = [15 - int(board[board > 0].sum())] + [int(v) for v in board[1:25]]
    fields += [-(15 - int(-board[board < 0].sum())), int(board[25]), int(board[0])]
    fields += [dice[0], dice[1], 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1]
    return ",".join(map(str, fields))


def test_bei_lists_the_engines_plays(variant):
    from bot.doors.bei import BeiSession
    from bot.facade import Bot
    from bot.play.match_play import BotPlayer

    if variant is not BACKGAMMON:
        pytest.skip("BEI's state names backgammon, acey-deucey and tabula only")
    session = BeiSession(BotPlayer(Bot.load()))
    assert json.loads(session.answer("bei") or "")["Type"] == "okbei"
    assert json.loads(session.answer("set moves all") or "")["Type"] == "okset"
    for board, dice in _positions(variant, DOOR_POSITIONS):
        event = json.loads(session.answer(f"move {_bei_state(board, dice)}") or "")
        assert event["Type"] == "okmove", event
        listed = set()
        for move in event["Moves"]:
            steps = " ".join(
                f"{'bar' if s['From'] == 26 else s['From']}/{'off' if s['To'] == 0 else s['To']}" for s in move["Play"]
            )
            listed.add(variant.parse_play(steps, board, dice).afterstate.tobytes())
        engine = _afterstates(variant, board, dice)
        assert listed == (engine if variant.legal_plays(board, dice)[0].steps else set()), dice


def test_resignations_name_the_variants_outcomes_and_cube_decisions_order_their_equities(variant, client):
    from bot.doors.codecs import codec_for
    from bot.equity.resign import MAX_COST, TOLERANCE

    codec = codec_for(variant)
    names = list(variant.outcome_names)
    for board, _ in _positions(variant, DOOR_POSITIONS):
        query = {"variant": codec.api_name, "position": codec.position_id(board)}
        resign = client.get("/v1/resign", params=query).json()
        offer = resign["offer"]
        assert list(offer["equity_resign"]) == names and offer["level"] in names + [None]
        if offer["level"] is not None:  # the opponent should accept it, and it costs little (gnubg's rule)
            cost = offer["equity_play"] - offer["equity_resign"][offer["level"]]
            assert -TOLERANCE <= cost <= MAX_COST, offer
        for answer in (resign["opponent_accepts"], resign["side_on_roll_accepts"]):
            assert answer["level"] in names
            assert answer["accept"] == (answer["equity_accept"] >= answer["equity_play"]), answer
        cube = client.get("/v1/cube", params=query).json()
        e = cube["equities"]
        assert cube["should_take"] == (e["double_take"] <= e["double_pass"]), cube
        if cube["should_double"]:
            assert min(e["double_take"], e["double_pass"]) >= e["no_double"], cube
        assert cube["decision"].startswith("NO") != cube["should_double"] or "TOOGOOD" in cube["decision"], cube
