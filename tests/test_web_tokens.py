"""Forged web board tokens: every field a client can edit is checked on the way in, a 400 naming it.

The token is open (docs/http_limits.md): the page sends it back with every step, so a client can
send any text. Whatever it sends, no step answers a game no real game against the bot reaches,
such as a cube past 4,096, GNU Backgammon's largest.
"""

from __future__ import annotations

import base64
import itertools
import warnings

import numpy as np
import pytest

from bot.doors.http_app import create_app
from conftest import tiny_bot
from engine.board import START
from engine.long_nardy import encode_long_position_id, flip
from engine.match import MAX_CUBE
from engine.match_id import _FIELDS as MATCH_ID_FIELDS
from engine.position_id import encode_position_id

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient

ACTIONS = ["view", "roll", "play", "bot", "double", "take", "pass", "resign"]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(tiny_bot(2)))


def refused(client: TestClient, path: str, token: str) -> str:
    """The message of the 400 that ``path`` answers ``token`` with."""
    answer = client.post(f"/v1/game/{path}", json={"game": token, "move": "", "seed": 1})
    assert answer.status_code == 400, answer.text
    return answer.json()["message"]


# ---------------------------------------------------------------- backgammon: PositionID:MatchID


def forged_match_id(**fields: int) -> str:
    """A Match ID of raw field values, bypassing the encoder's checks as a forger would."""
    values = dict(cube_owner=3, game_state=1) | fields
    bits = sum(values.get(name, 0) << start for name, start, _ in MATCH_ID_FIELDS)
    return base64.b64encode(bits.to_bytes(9, "little")).decode()


BACKGAMMON_START = encode_position_id(START)


@pytest.mark.parametrize(
    "fields, named",
    [
        (dict(cube_log2=13, cube_owner=0), "cube value 8192 is not a power of 2 up to 4096"),
        (dict(cube_log2=12, cube_owner=1, double_offered=1, player_on_roll=1), "no access to the cube"),
        (dict(cube_log2=11), "a centred cube is on 1, not 2048"),
        (dict(match_length=5, score0=5), "the match is over"),
        (dict(match_length=30), "a 30-point match"),
        (dict(score0=30000), "money score 30000-0"),
        (dict(resign_offered=2, turn=1, game_state=3), "a finished game has the winner on roll"),
    ],
)
def test_a_forged_backgammon_token_gets_400_naming_the_field(client, fields, named):
    token = f"{BACKGAMMON_START}:{forged_match_id(**fields)}"
    for path in ACTIONS:
        assert named in refused(client, path, token)


def test_a_backgammon_double_to_the_largest_cube_is_the_last(client):
    offered = f"{BACKGAMMON_START}:{forged_match_id(cube_log2=11, cube_owner=1, double_offered=1, player_on_roll=1)}"
    taken = client.post("/v1/game/take", json={"game": offered}).json()
    assert taken["cube"] == MAX_CUBE and not taken["may_double"]


# ---------------------------------------------------------------- long nardy: long:POSITIONID:...


def long_id(mover: dict[int, int], opponent: dict[int, int]) -> str:
    """The Position ID of each side's checkers on its own points."""
    board, theirs = np.zeros(26, dtype=np.int8), np.zeros(26, dtype=np.int8)
    for point, count in mover.items():
        board[point] = count
    for point, count in opponent.items():
        theirs[point] = count
    return encode_long_position_id(board + flip(theirs))


LONG_START = long_id({24: 15}, {24: 15})
MIDGAME = long_id({24: 10, 18: 5}, {24: 11, 20: 4})


def long_token(
    position: str = MIDGAME,
    phase: str = "roll",
    turn: str = "h",
    first: str = "h",
    dice: str = "-",
    cube: str = "1",
    owner: str = "-",
    score: str = "0-0",
    rule: str = "doubling",
    length: str = "0",
) -> str:
    return ":".join(["long", position, phase, turn, first, dice, cube, owner, score, rule, length])


@pytest.mark.parametrize(
    "fields, named",
    [
        (dict(phase="doubled", turn="b", cube="4096", owner="b"), "CUBE '4096': expected a power of two 1..2048"),
        (dict(cube="8192", owner="h"), "CUBE '8192': expected a power of two 1..4096"),
        (dict(cube="0"), "CUBE '0'"),
        (dict(cube="-2", owner="h"), "CUBE '-2'"),
        (dict(cube="3", owner="h"), "CUBE '3'"),
        (dict(cube="2", owner="h", rule="none"), "CUBE '2': expected a power of two 1..1"),
        (dict(cube="4"), "OWNER '-': expected '-' (centred) with the cube on 1"),
        (dict(owner="h"), "OWNER 'h'"),
        (dict(owner="x"), "OWNER 'x'"),
        (dict(phase="doubled", turn="b", cube="2", owner="h"), "the side doubling (b) needs access"),
        (dict(phase="over"), "PHASE 'over'"),
        (dict(turn="x"), "TURN 'x'"),
        (dict(turn="-"), "TURN '-'"),
        (dict(first="-"), "FIRST '-'"),
        (dict(dice="31"), "DICE '31': expected two dice 1..6 in the phase move"),
        (dict(phase="move"), "DICE '-'"),
        (dict(phase="move", dice="70"), "DICE '70'"),
        (dict(phase="move", dice="٣١"), "DICE '٣١'"),
        (dict(score="1-2-3"), "HUMAN-BOT '1-2-3'"),
        (dict(score="٣-1"), "HUMAN-BOT '٣-1'"),
        (dict(score="+1-2"), "HUMAN-BOT '+1-2'"),
        (dict(score="30000-0"), "money score 30000-0; at most 20479 points each"),
        (dict(rule="linear"), "CUBERULE 'linear'"),
        (dict(position=long_id({1: 3}, {})), "POSITIONID: the opponent has borne off all 15 checkers"),
        (dict(position=long_id({1: 3, 9: 1}, {24: 15})), "POSITIONID: the side on roll has borne off 11"),
        (dict(position="AAAAAAAAAAP/+"), "long nardy Position ID 'AAAAAAAAAAP/+'"),
        (dict(phase="opening", turn="-", first="-"), f"POSITIONID '{MIDGAME}': expected the start"),
        (dict(position=LONG_START, phase="opening", turn="-", first="-", cube="2", owner="h"), "CUBE '2'"),
    ],
)
def test_a_forged_long_token_gets_400_naming_the_field(client, fields, named):
    token = long_token(**fields)
    for path in ACTIONS:
        assert named in refused(client, path, token)


def test_a_long_double_to_the_largest_cube_is_the_last(client):
    offered = long_token(phase="doubled", turn="b", cube=str(MAX_CUBE // 2), owner="b")
    taken = client.post("/v1/game/take", json={"game": offered}).json()
    assert taken["cube"] == MAX_CUBE and taken["cube_owner"] == "human"
    assert "largest value" in refused(client, "double", long_token(cube=str(MAX_CUBE), owner="h"))


@pytest.mark.slow
def test_no_long_token_reaches_a_cube_past_the_largest(client):
    """Every mix of the fields that hold the cube, through every cube action: a 400, or a cube within bounds."""
    choices = {
        "phase": ["roll", "move", "doubled"],
        "turn": ["h", "b"],
        "dice": ["-", "31"],
        "cube": ["1", str(MAX_CUBE // 2), str(MAX_CUBE), str(2 * MAX_CUBE)],
        "owner": ["-", "h", "b"],
        "rule": ["doubling", "none"],
    }
    answered = 0
    for values in itertools.product(*choices.values()):
        token = long_token(**dict(zip(choices, values)))
        for path in ["view", "take", "pass", "double", "roll"]:
            answer = client.post(f"/v1/game/{path}", json={"game": token, "seed": 1})
            assert answer.status_code in (200, 400), (path, token, answer.text)
            if answer.status_code == 200:
                answered += 1
                assert 0 <= answer.json()["cube"] <= MAX_CUBE, (path, token)
    assert answered > 0
