"""A situation set up on the web board (GET /v1/setup): every field round-trips through GNU Backgammon's
Position ID and Match ID, the token plays on in /v1/game, and an impossible set-up is refused naming why."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bot.doors.analysis_views import SetupQuery, setup
from bot.doors.http_app import create_app
from bot.doors.situation import parse_position
from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.facade import Bot
from engine.board import START, flip
from engine.errors import BackgammonError
from engine.match_id import decode_match_id
from engine.position_id import decode_position_id, encode_position_id

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient


class Even(ProbabilityEvaluator):
    """Every position an even game, no gammons: the bot never doubles or resigns."""

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        return np.tile(np.array([0.5, 0.0, 0.0, 0.0, 0.0]), (len(boards), 1))


def race() -> np.ndarray:
    """Bottom's view: bottom has a checker on the bar and 14 at home, top 15 spread over its home board."""
    board = np.zeros(26, dtype=np.int8)
    board[1:7] = (3, 3, 2, 2, 2, 2)
    board[25] = 1
    board[19:25] = (-3, -3, -3, -2, -2, -2)
    return board


SITUATIONS = [
    dict(),
    dict(on_roll="top"),
    dict(dice="31"),
    dict(on_roll="top", dice="66", cube=4, cube_owner="bottom"),
    dict(length=7, score_bottom=3, score_top=5, cube=2, cube_owner="top"),
    dict(length=5, score_bottom=4, score_top=2, crawford=True, on_roll="top", dice="52"),
    dict(length=5, score_bottom=1, score_top=4, cube=8, cube_owner="bottom"),  # post-Crawford
    dict(length=1),
]


@pytest.mark.parametrize("fields", SITUATIONS, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()) or "start")
@pytest.mark.parametrize("bottom_view", [START, race()], ids=["start", "race"])
def test_every_field_round_trips_through_the_ids(fields, bottom_view):
    query = SetupQuery(checkers=encode_position_id(bottom_view), **fields)
    answer = setup(query)
    m = decode_match_id(answer.match_id)
    seat = 0 if query.on_roll == "bottom" else 1
    on_roll_view = bottom_view if seat == 0 else flip(bottom_view)
    assert np.array_equal(decode_position_id(answer.position_id), on_roll_view)
    assert m.player_on_roll == seat and m.turn == seat
    assert m.dice == (None if query.dice is None else (int(query.dice[0]), int(query.dice[1])))
    assert m.cube_value == query.cube
    assert m.cube_owner == {None: None, "bottom": 0, "top": 1}[query.cube_owner]
    assert (m.match_length, m.score, m.crawford) == (
        query.length,
        (query.score_bottom, query.score_top),
        query.crawford,
    )
    assert not m.double_offered and not m.resign_offered
    assert answer.game == f"{answer.position_id}:{answer.match_id}"
    # And as the analysis reads it: the side on roll's cube state.
    s = parse_position(answer.game).state
    assert (s.match_length, s.cube, s.crawford) == (query.length, query.cube, query.crawford)


@pytest.mark.parametrize(
    "fields, words",
    [
        (dict(score_bottom=1), "a money game has no score"),
        (dict(length=5, score_top=5), "would be over"),
        (dict(length=5, crawford=True), "needs a side at 4"),
        (dict(length=5, score_top=4, crawford=True, cube=2, cube_owner="top"), "not used in the Crawford game"),
        (dict(cube=2), "a centred cube is on 1"),
        (dict(cube=3, cube_owner="top"), "power of 2"),
        (dict(dice="71"), "7"),
        (dict(checkers="AAAAAAAAAAAAAA"), "borne off all 15"),
        (dict(checkers="nonsense"), "nonsense"),
    ],
)
def test_an_impossible_set_up_is_refused_naming_why(fields, words):
    query = SetupQuery(**{"checkers": encode_position_id(START), **fields})
    with pytest.raises(BackgammonError, match=words):
        setup(query)


def test_the_endpoint_answers_and_the_token_plays_on():
    client = TestClient(create_app(Bot(Even())))
    answer = client.get(
        "/v1/setup",
        params={
            "checkers": encode_position_id(race()),
            "on_roll": "top",
            "length": 3,
            "score_bottom": 1,
            "cube": 2,
            "cube_owner": "bottom",
        },
    )
    assert answer.status_code == 200, answer.text
    game = answer.json()["game"]
    view = client.post("/v1/game/view", json={"game": game}).json()
    assert view["turn"] == "bot" and view["phase"] == "roll" and view["match_length"] == 3
    assert view["board"] == [int(x) for x in race()] and view["cube_owner"] == "human"
    played = client.post("/v1/game/bot", json={"game": game, "seed": 4}).json()
    assert played["bot_move"] is not None and played["turn"] == "human"
    bad = client.get("/v1/setup", params={"checkers": encode_position_id(START), "cube": 2})
    assert bad.status_code == 400 and "centred cube" in bad.json()["message"]
