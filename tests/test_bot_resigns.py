"""The bot resigns as GNU Backgammon does, on the web board and in the terminal game: before its roll, in a
lost game, at the cheapest level the human should accept; the human accepts (the game ends) or rejects (the
bot plays on)."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

from bot.doors.http_app import create_app
from bot.doors.terminal import TerminalSession
from bot.doors.web_views import BOT, HUMAN
from bot.facade import REPO_CHECKPOINT, Bot
from engine.board import START
from engine.game import Game, GameResult, Phase
from engine.match import MatchState
from engine.position import Position

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason=f"no shipped network at {REPO_CHECKPOINT}")


def lost_for_the_bot() -> np.ndarray:
    """The bot's view: its 15 checkers deep in the human's home board, the human's last two on its 1-point."""
    board = np.zeros(26, dtype=np.int8)
    board[21] = board[22] = board[23] = 5
    board[24] = -2
    return board


@pytest.fixture(scope="module")
def bot() -> Bot:
    return Bot.load()


@pytest.fixture(scope="module")
def client(bot) -> TestClient:
    return TestClient(create_app(bot))


def token(board: np.ndarray, match: MatchState = MatchState()) -> str:
    """The bot on roll, before its roll."""
    return ":".join(Game(match, Phase.BEFORE_ROLL, BOT, Position(board)).ids())


def act(client: TestClient, path: str, **body) -> dict:
    answer = client.post(f"/v1/game/{path}", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_bot_offers_to_resign_a_lost_game_and_the_human_accepts(client):
    view = act(client, "bot", game=token(lost_for_the_bot()), seed=1)
    assert view["phase"] == "resigned" and view["turn"] == "human" and view["on_roll"] == "bot"
    assert view["resignation"] == {"level": 3, "how": "backgammon", "points": 3}
    assert view["events"] == ["nardy offers to resign a backgammon"]
    assert view["bot_move"] is None and view["dice"] is None
    over = act(client, "accept", game=view["game"])
    assert over["phase"] == "over"
    assert over["result"]["winner"] == "human" and over["result"]["points"] == 3 and over["result"]["how"] == "resign"


def test_the_offer_is_the_cheapest_level_the_human_should_accept(client):
    """Worth its level times the cube; with a cube of 2 owned by the human, 6 points."""
    match = MatchState(cube_value=2, cube_owner=HUMAN)
    view = act(client, "bot", game=token(lost_for_the_bot(), match), seed=1)
    assert view["resignation"]["points"] == 6


def test_the_human_rejects_and_the_bot_plays_on_without_offering_again(client):
    view = act(client, "bot", game=token(lost_for_the_bot()), seed=1)
    on = act(client, "reject", game=view["game"], seed=2)
    assert on["events"][0] == "You reject nardy's resignation; nardy plays on"
    assert on["bot_move"] is not None and on["resignation"] is None
    assert on["turn"] == "human" and on["phase"] in ("roll", "over")


def test_no_offer_in_a_close_game(client):
    view = act(client, "bot", game=token(START), seed=1)
    assert view["resignation"] is None and view["bot_move"] is not None
    assert not any("resign" in e for e in view["events"])


def test_accept_and_reject_need_an_offer(client):
    for path in ("accept", "reject"):
        answer = client.post(f"/v1/game/{path}", json={"game": token(START)})
        assert answer.status_code == 400 and path in answer.json()["message"]


def test_a_token_cannot_hold_the_humans_own_resignation(client):
    offered = Game(MatchState(), Phase.BEFORE_ROLL, HUMAN, Position(START)).resign(HUMAN, 1)
    answer = client.post("/v1/game/accept", json={"game": ":".join(offered.ids())})
    assert answer.status_code == 400 and "answers your resignation at once" in answer.json()["message"]


def terminal(bot: Bot, answers: str) -> tuple[TerminalSession, io.StringIO]:
    out = io.StringIO()
    return TerminalSession(bot, 0, np.random.default_rng(1), io.StringIO(answers), out), out


def test_in_the_terminal_the_bot_offers_and_the_person_accepts(bot):
    session, out = terminal(bot, "accept\n")
    result = session.bot_before_roll(Game(MatchState(), Phase.BEFORE_ROLL, BOT, Position(lost_for_the_bot())))
    assert "nardy offers to resign a backgammon." in out.getvalue()
    assert isinstance(result, GameResult) and result.winner == HUMAN and result.points == 3


def test_in_the_terminal_a_rejected_offer_and_a_close_game_play_on(bot):
    session, out = terminal(bot, "reject\n")
    rolled = session.bot_before_roll(Game(MatchState(), Phase.BEFORE_ROLL, BOT, Position(lost_for_the_bot())))
    assert isinstance(rolled, Game) and rolled.phase is Phase.ROLLED
    session, out = terminal(bot, "")
    rolled = session.bot_before_roll(Game(MatchState(), Phase.BEFORE_ROLL, BOT, Position(START)))
    assert isinstance(rolled, Game) and rolled.phase is Phase.ROLLED and "resign" not in out.getvalue()
