"""GET /v1/game/board with variant=long, and long nardy's ``PositionID:MatchID`` as its codec reads it: what the
web board's Analyse mode and match analysis draw a long nardy position from."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bot.doors.codecs import codec_for
from bot.doors.http_app import create_app
from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.facade import Bot
from engine.errors import InvalidMatchError

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient

START = "AAAB//wAAAP/+"
# A decision of a 3-point match at 0-0, as `nardy analyze` names it: the side on roll to play 54.
MIDDLE, MIDDLE_MATCH = "AEJEH/wARAS/+", "MIFyAAAAAAAE"


class Even(ProbabilityEvaluator):
    """Even chances: no position here is evaluated, the board endpoint needs no network."""

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        return np.tile(np.array([0.5, 0.0, 0.0, 0.0, 0.0]), (len(boards), 1))


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(Bot(Even())))


def test_the_board_of_a_long_nardy_position_id(client):
    answer = client.get("/v1/game/board", params={"variant": "long", "position": START})
    assert answer.status_code == 200
    b = answer.json()
    assert b["position_id"] == START
    assert b["board"][24] == 15 and b["board"][12] == -15 and b["board"][0] == b["board"][25] == 0
    assert b["pips"] == [360, 360]  # long nardy's pip count, each side from its own 24
    assert (b["match_length"], b["cube"], b["dice"]) == (0, 1, None)


def test_a_long_nardy_position_with_its_match_id(client):
    b = client.get("/v1/game/board", params={"variant": "long", "position": f"{MIDDLE}:{MIDDLE_MATCH}"}).json()
    assert (b["match_length"], b["score"], b["dice"], b["cube_owner"]) == (3, [0, 0], [5, 4], None)
    situation = codec_for("long").read_position(f"{MIDDLE}:{MIDDLE_MATCH}")
    assert situation.state.match_length == 3 and situation.dice == (5, 4)
    assert situation.position_id == MIDDLE


@pytest.mark.parametrize(
    "position, named",
    [
        ("4HPwATDgc/ABMA", "expected 13 characters"),  # backgammon's ID asked as long nardy's
        (f"{START}:xx", "Match ID 'xx'"),
        ("AAAAAAAAAAAAA", "borne off all 15"),
    ],
)
def test_a_bad_long_nardy_position_is_named(client, position, named):
    answer = client.get("/v1/game/board", params={"variant": "long", "position": position})
    assert answer.status_code == 400
    assert named in answer.json()["message"]


def test_backgammon_stays_the_default(client):
    b = client.get("/v1/game/board", params={"position": "4HPwATDgc/ABMA"}).json()
    assert b["pips"] == [167, 167]
    assert client.get("/v1/game/board", params={"position": START}).status_code == 400
    with pytest.raises(InvalidMatchError):
        codec_for("long").read_position(f"{START}:AAAAAAAAAAA!")
