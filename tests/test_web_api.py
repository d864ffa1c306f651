"""The web board's endpoints (/v1/game/...): a whole game by tokens, the cube rules, resignation, errors as 400."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
import torch

from bot.doors.http_app import create_app
from bot.doors.web_views import BOT, HUMAN
from bot.evaluation.evaluator import NetworkEvaluator, ProbabilityEvaluator
from bot.facade import Bot
from bot.evaluation.network import NetworkConfig
from training.torch_network import ValueNetwork
from engine.board import START
from engine.game import Game, Phase
from engine.match import MatchState
from engine.position import Position

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient


class Favourite(ProbabilityEvaluator):
    """The side on roll always wins 72% of games, no gammons: it doubles, and the other side takes."""

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        return np.tile(np.array([0.72, 0.0, 0.0, 0.0, 0.0]), (len(boards), 1))


@pytest.fixture(scope="module")
def client() -> TestClient:
    torch.manual_seed(2)
    return TestClient(create_app(Bot(NetworkEvaluator(ValueNetwork(NetworkConfig(hidden=(8,))).eval()))))


@pytest.fixture(scope="module")
def favourite() -> TestClient:
    return TestClient(create_app(Bot(Favourite())))


def act(client: TestClient, path: str, **body) -> dict:
    answer = client.post(f"/v1/game/{path}", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def token(board=START, match=MatchState(), on_roll=HUMAN, dice=None) -> str:
    """The token of a game with ``on_roll`` to roll, or to play ``dice``."""
    phase = Phase.BEFORE_ROLL if dice is None else Phase.ROLLED
    return ":".join(Game(match, phase, on_roll, Position(board), dice).ids())


def play_out(client: TestClient, view: dict, seed: int, take: bool = True) -> dict:
    """Play the game of ``view`` to its end: the human plays its first legal play and takes doubles."""
    for _ in range(500):
        game = view["game"]
        seed += 1
        if view["phase"] == "over":
            return view
        if view["turn"] == "bot":
            view = act(client, "bot", game=game, seed=seed)
        elif view["phase"] in ("opening", "roll"):
            view = act(client, "roll", game=game, seed=seed)
        elif view["phase"] == "doubled":
            view = act(client, "take" if take else "pass", game=game)
        else:
            view = act(client, "play", game=game, move=view["plays"][0]["move"])
    pytest.fail("the game did not end")


def test_a_new_game_starts_before_the_opening_roll(client):
    view = act(client, "new", length=5)
    assert view["phase"] == "opening" and view["turn"] == "human"
    assert view["position_id"] == "4HPwATDgc/ABMA" and view["game"] == f"{view['position_id']}:{view['match_id']}"
    assert view["board"] == [int(x) for x in START] and view["pips"] == {"human": 167, "bot": 167}
    assert view["match_length"] == 5 and view["score"] == {"human": 0, "bot": 0} and not view["may_double"]


def test_the_opening_roll_decides_who_starts_and_is_repeatable(client):
    new = act(client, "new", length=0)
    first = act(client, "roll", game=new["game"], seed=4)
    assert first == act(client, "roll", game=new["game"], seed=4)
    assert first["phase"] == "move" and first["dice"][0] != first["dice"][1]
    assert first["on_roll"] == first["turn"]
    if first["turn"] == "human":
        assert first["plays"] and all(p["steps"] for p in first["plays"])


def test_the_human_gets_the_legal_plays_with_their_steps(client):
    view = act(client, "view", game=token(dice=(3, 1)))
    moves = {p["move"] for p in view["plays"]}
    assert len(view["plays"]) == 16 and "8/5 6/5" in moves
    play = next(p for p in view["plays"] if p["move"] == "8/5 6/5")
    assert sorted((s["from"], s["to"]) for s in play["steps"]) == [(6, 5), (8, 5)]


def test_a_play_passes_the_turn_and_the_position_id_is_the_bots_view(client):
    view = act(client, "play", game=token(dice=(3, 1)), move="8/5 6/5")
    assert view["turn"] == view["on_roll"] == "bot" and view["phase"] == "roll"
    assert view["position_id"] == "sGfwATDgc/ABMA"  # docs/PROTOCOLS.md: the opponent on roll after 31 8/5 6/5
    assert view["board"][5] == 2 and view["board"][8] == 2


@pytest.mark.slow
def test_a_whole_match_to_the_end(client):
    view = act(client, "new", length=3)
    seed, games = 100, 0
    while True:
        view = play_out(client, view, seed)
        games, seed = games + 1, seed + 1000
        result = view["result"]
        assert result["winner"] in ("human", "bot") and result["points"] >= 1
        if result["match_over"]:
            assert max(result["score"].values()) >= 3 and result["next_game"] is None
            break
        view = act(client, "view", game=result["next_game"])
        assert view["phase"] == "opening" and view["score"] == result["score"]
    assert games >= 1


def test_the_bot_doubles_and_the_human_takes_or_passes(favourite):
    view = act(favourite, "bot", game=token(on_roll=BOT), seed=1)
    assert view["phase"] == "doubled" and view["turn"] == "human" and view["on_roll"] == "bot"
    taken = act(favourite, "take", game=view["game"])
    assert taken["cube"] == 2 and taken["cube_owner"] == "human" and taken["turn"] == "bot"
    rolled = act(favourite, "bot", game=taken["game"], seed=2)  # it cannot redouble: it rolls and plays
    assert rolled["bot_move"] and rolled["turn"] == "human" and rolled["may_double"]
    passed = act(favourite, "pass", game=view["game"])
    assert passed["phase"] == "over" and passed["result"]["winner"] == "bot" and passed["result"]["points"] == 1
    assert passed["result"]["how"] == "pass"


def test_the_human_doubles_and_the_bot_takes(favourite):
    view = act(favourite, "double", game=token())
    assert view["cube"] == 2 and view["cube_owner"] == "bot" and view["phase"] == "roll" and not view["may_double"]
    again = favourite.post("/v1/game/double", json={"game": view["game"]})
    assert again.status_code == 400 and "owns the cube" in again.json()["message"]


def test_no_doubling_in_the_crawford_game(favourite):
    crawford = MatchState(match_length=5, score=(4, 2), crawford=True)
    view = act(favourite, "view", game=token(match=crawford))
    assert view["crawford"] and not view["may_double"]
    answer = favourite.post("/v1/game/double", json={"game": view["game"]})
    assert answer.status_code == 400 and "Crawford" in answer.json()["message"]
    bot = act(favourite, "bot", game=token(match=crawford, on_roll=BOT), seed=3)
    assert bot["bot_move"] is not None  # the bot rolls: no double in the Crawford game


def test_post_crawford_the_trailer_may_double(favourite):
    post = MatchState(match_length=5, score=(2, 4))
    view = act(favourite, "view", game=token(match=post))
    assert view["post_crawford"] and not view["crawford"] and view["may_double"]


def test_a_won_crawford_game_makes_the_next_games_post_crawford(client):
    board = np.zeros(26, dtype=np.int8)
    board[1] = 1
    board[24] = -1  # the bot bears off its last checker; the human has borne off 14: a single game
    crawford = MatchState(match_length=5, score=(4, 2), crawford=True)
    won = act(client, "bot", game=token(board=board, match=crawford, on_roll=BOT, dice=(6, 5)))
    assert won["result"]["winner"] == "bot" and won["result"]["how"] == "single"
    nxt = act(client, "view", game=won["result"]["next_game"])
    assert nxt["score"] == {"human": 4, "bot": 3} and nxt["post_crawford"] and not nxt["crawford"]


def test_resigning_a_backgammon_is_accepted(client):
    view = act(client, "resign", game=token(), level=3)
    assert view["result"]["winner"] == "bot" and view["result"]["points"] == 3 and view["result"]["how"] == "resign"


def test_a_gammon_at_the_end_scores_two_cubes(client):
    board = np.zeros(26, dtype=np.int8)
    board[1] = 1
    board[[19, 20]] = -7, -8  # the bot has borne off nothing: a gammon
    match = MatchState(cube_value=2, cube_owner=BOT)
    view = act(client, "play", game=token(board=board, match=match, dice=(6, 5)), move="1/off")
    assert view["phase"] == "over" and view["result"] == {
        "winner": "human",
        "points": 4,
        "how": "gammon",
        "score": {"human": 4, "bot": 0},
        "match_over": False,
        "next_game": view["result"]["next_game"],
    }


def test_the_board_endpoint_draws_positions(client):
    answer = client.get("/v1/game/board", params={"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:2:1:0:5:10"})
    assert answer.status_code == 200
    board = answer.json()
    assert board["position_id"] == "4HPwATDgc/ABMA" and board["dice"] == [3, 1] and board["match_length"] == 5


@pytest.mark.parametrize(
    "path, body, words",
    [
        ("roll", {"game": "nonsense"}, "PositionID:MatchID"),
        ("roll", {"game": "4HPwATDgc/ABMA:zzzzzzzzzzzz"}, "Match ID"),
        ("roll", {}, "game"),
        ("new", {"length": -1}, "length"),
        ("bot", {"game": "4HPwATDgc/ABMA:cAkAAAAAAAAA", "plies": 3}, "plies"),
        ("bot", {"game": "4HPwATDgc/ABMA:cAkAAAAAAAAA", "playing_level": "grandmaster"}, "grandmaster"),
        ("play", {"game": "4HPwATDgc/ABMA:cAkAAAAAAAAA", "move": "8/5 6/5"}, "not possible now"),
        ("take", {"game": "4HPwATDgc/ABMA:cAkAAAAAAAAA"}, "not possible now"),
    ],
)
def test_bad_requests_get_400_with_a_message(client, path, body, words):
    answer = client.post(f"/v1/game/{path}", json=body)
    assert answer.status_code == 400 and words in answer.json()["message"]


def test_an_illegal_move_is_refused(client):
    answer = client.post("/v1/game/play", json={"game": token(dice=(3, 1)), "move": "24/18"})
    assert answer.status_code == 400 and "24/18" in answer.json()["message"]


@pytest.mark.slow
def test_no_token_the_page_can_send_makes_a_500(client):
    """Random Position IDs and Match IDs (of real bits) through every action: 200 or 400, never 500."""
    import base64

    rng = random.Random(5)
    paths = ["view", "roll", "play", "bot", "double", "take", "pass", "resign"]
    for _ in range(75):
        position = base64.b64encode(rng.randbytes(10)).decode()[:14]
        if rng.random() < 0.5:
            position = "4HPwATDgc/ABMA"
        match = base64.b64encode(rng.randbytes(9)).decode()
        for path in paths:
            body = {"game": f"{position}:{match}", "move": "", "seed": 1}
            answer = client.post(f"/v1/game/{path}", json=body)
            assert answer.status_code in (200, 400), (path, body, answer.text)


def test_the_page_and_offline_docs_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and 'data-testid="board"' in page.text
    for name in ("main.js", "board.js", "play.js", "analyse.js", "api.js", "results.js", "style.css"):
        assert client.get(f"/web/{name}").status_code == 200, name
    docs = client.get("/docs").text
    assert "/docs-assets/swagger-ui-bundle.js" in docs and "cdn" not in docs.lower()
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    schema = client.get("/openapi.json").json()
    for path in ("new", "view", "roll", "play", "bot", "double", "take", "pass", "resign", "board"):
        assert f"/v1/game/{path}" in schema["paths"]


def test_the_bot_plays_at_a_named_level_the_same_play_each_time(client):
    """A playing level is GNU Backgammon's depth and noise, drawn from the position: repeatable."""
    game = token(on_roll=BOT, dice=(6, 2))
    moves = {
        level: act(client, "bot", game=game, playing_level=level)["bot_move"]["move"]
        for level in ("expert", "beginner", "world-class")
    }
    assert act(client, "bot", game=game, playing_level="beginner")["bot_move"]["move"] == moves["beginner"]
    assert moves["expert"] == act(client, "bot", game=game, plies=0)["bot_move"]["move"]  # expert: 0-ply, no noise
    assert all(moves.values())
