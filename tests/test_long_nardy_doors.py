"""Long nardy at the doors: the HTTP API's ``variant=long``, the terminal game with the cube, the web game steps."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

from bot.doors.cli import run
from bot.doors.http_app import create_app
from bot.doors.terminal import BOT, TerminalSession
from bot.facade import Bot
from conftest import tiny_bot
from engine.game import Phase
from engine.long_nardy import START, LongGame, LongPosition, Rules, encode_long_position_id, flip
from engine.match import MatchState
from engine.match_id import decode_match_id

with warnings.catch_warnings():  # starlette asks for httpx2, which is not needed here
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient

START_ID = encode_long_position_id(START)


def long_id(mover: dict[int, int], opponent: dict[int, int]) -> str:
    """The Position ID of each side's checkers on its own points (a side may have borne some off)."""
    board = np.zeros(26, dtype=np.int8)
    for point, count in mover.items():
        board[point] = count
    theirs = np.zeros(26, dtype=np.int8)
    for point, count in opponent.items():
        theirs[point] = count
    return encode_long_position_id(board + flip(theirs))


# Positions no game is on in: a side has borne off all its checkers (the game is over), or has borne
# off some with others still outside its home (bearing off needs all fifteen home, and none leaves it).
OVER_ID = long_id({1: 3}, {})
WON_ID = long_id({}, {2: 5})
STRAY_ID = long_id({1: 3, 7: 1}, {24: 15})
FINISHED = [(OVER_ID, "the opponent has borne off all 15"), (WON_ID, "the side on roll has borne off all 15")]
IMPOSSIBLE = FINISHED + [(STRAY_ID, "the side on roll has borne off 11 checkers with others outside its home")]
# Positions (side on roll's view) the shipped network doubles and takes, and finds too good to double.
DOUBLE_TAKE_ID = "AQQSH/wBQANf+"
TOO_GOOD_ID = "vwAAAQAAAAAAA"


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(tiny_bot(2)))


@pytest.fixture(scope="module")
def long_bot() -> Bot:
    return Bot.load(variant="long")


# ---------------------------------------------------------------- HTTP API


def test_moves_of_a_long_position_are_the_long_networks_ranking(client, long_bot):
    answer = client.get("/v1/moves", params={"variant": "long", "position": START_ID, "dice": "31"})
    assert answer.status_code == 200
    body = answer.json()
    assert body["variant"] == "long" and body["position_id"] == START_ID and body["dice"] == [3, 1]
    ranked = long_bot.rank_plays(START, (3, 1))
    assert [m["move"] for m in body["moves"]] == [r.notation for r in ranked]
    first, best = body["moves"][0], ranked[0]
    assert first["play"] == [{"from": s.src, "to": s.dst} for s in best.play.steps]
    assert first["position_id"] == LongPosition(flip(best.afterstate)).id
    win, win_mars, lose_mars = best.game_probabilities
    assert first["probabilities"] == pytest.approx(
        {"win": win, "winG": win_mars, "winBg": 0.0, "loseG": lose_mars, "loseBg": 0.0}
    )
    assert first["equity"] == pytest.approx(best.equity) and first["mwc"] is None


def test_moves_at_one_ply_keep_top_and_read_a_space_as_plus(client):
    position = START_ID.replace("+", " ")
    answer = client.get(
        "/v1/moves", params={"variant": "long", "position": position, "dice": "33", "plies": 1, "top": 1}
    )
    assert answer.status_code == 200
    moves = answer.json()["moves"]
    assert len(moves) == 1 and moves[0]["plies"] == 1


def test_evaluate_a_long_position_gives_mars_probabilities_and_money_equities(client, long_bot):
    answer = client.get("/v1/evaluate", params={"variant": "long", "position": START_ID})
    assert answer.status_code == 200
    body = answer.json()
    five = long_bot.probabilities(START)
    assert body["variant"] == "long" and body["mwc"] is None and body["plies"] == 0
    assert body["probabilities"]["win"] == pytest.approx(five[0])
    assert body["probabilities"]["winBg"] == 0.0 and body["probabilities"]["loseBg"] == 0.0
    assert body["cubeless_equity"] == pytest.approx(2 * five[0] - 1 + five[1] - five[3])
    assert -3.0 < body["cubeful_equity"] < 3.0


def test_cube_of_a_long_position_is_the_money_decision_on_its_networks_probabilities(client, long_bot):
    board = LongPosition.from_id(DOUBLE_TAKE_ID).board
    answer = client.get("/v1/cube", params={"variant": "long", "position": DOUBLE_TAKE_ID})
    assert answer.status_code == 200
    body = answer.json()
    decision = long_bot.cube_decision(board)
    assert body["variant"] == "long" and body["mwc"] is None
    assert (body["decision"], body["should_double"], body["should_take"]) == ("DOUBLE_TAKE", True, True)
    assert body["decision"] == decision.verdict.value
    assert body["equities"]["no_double"] == pytest.approx(decision.no_double)
    assert body["equities"]["double_pass"] == 1.0


def test_resign_of_a_long_position_answers_oin_and_mars_as_the_bot_decides(client, long_bot):
    board = LongPosition.from_id(TOO_GOOD_ID).board
    answer = client.get("/v1/resign", params={"variant": "long", "position": TOO_GOOD_ID, "value": "mars"})
    assert answer.status_code == 200
    body = answer.json()
    decided = long_bot.resign_decision(board, level=2)
    assert body["variant"] == "long" and body["position_id"] == TOO_GOOD_ID
    assert set(body["offer"]["equity_resign"]) == {"oin", "mars"}
    assert body["offer"]["equity_play"] == pytest.approx(decided.offer.equity_play)
    assert body["opponent_accepts"]["level"] == "mars"
    assert body["opponent_accepts"]["accept"] == decided.opponent_accepts.accept
    single = client.get("/v1/resign", params={"variant": "long", "position": TOO_GOOD_ID, "value": "single"}).json()
    assert single["opponent_accepts"]["level"] == "oin"


def test_backgammon_stays_the_default_variant(client):
    answer = client.get("/v1/evaluate", params={"position": "4HPwATDgc/ABMA"})
    assert answer.status_code == 200 and answer.json()["variant"] == "backgammon"


@pytest.mark.parametrize(
    "path, params, words",
    [
        ("/v1/moves", {"variant": "long", "position": "4HPwATDgc/ABMA", "dice": "31"}, "long nardy Position ID"),
        ("/v1/moves", {"variant": "long", "position": START_ID}, "give dice"),
        ("/v1/moves", {"variant": "long", "position": START_ID, "dice": "31", "plies": 1, "top": 50}, "top 50"),
        ("/v1/evaluate", {"variant": "long", "position": "/////////////"}, "long nardy Position ID"),
        ("/v1/evaluate", {"variant": "short", "position": START_ID}, "variant"),
        ("/v1/cube", {"variant": "long", "position": "4HPwATDgc/ABMA"}, "long nardy Position ID"),
        ("/v1/resign", {"variant": "long", "position": START_ID, "value": "gammon"}, "expected single or mars"),
    ],
)
def test_bad_long_queries_get_400_naming_the_problem(client, path, params, words):
    answer = client.get(path, params=params)
    assert answer.status_code == 400
    assert words in answer.json()["message"]


@pytest.mark.parametrize("position, named", IMPOSSIBLE)
@pytest.mark.parametrize("path", ["/v1/moves", "/v1/evaluate", "/v1/cube"])
def test_a_long_position_with_no_game_on_gets_400_at_every_door(client, path, position, named):
    answer = client.get(path, params={"variant": "long", "position": position, "dice": "31"})
    assert answer.status_code == 400
    message = answer.json()["message"]
    assert message.startswith(f"long nardy position {position!r}: {named}")


def test_a_long_bear_off_with_a_game_on_is_answered(client):
    racing = long_id({1: 3, 6: 1}, {24: 2, 19: 13})  # both home, the side on roll bearing off
    answer = client.get("/v1/evaluate", params={"variant": "long", "position": racing})
    assert answer.status_code == 200 and answer.json()["probabilities"]["win"] > 0.5


# ---------------------------------------------------------------- terminal


@pytest.mark.parametrize("position, named", IMPOSSIBLE)
def test_hint_refuses_a_long_position_with_no_game_on(position, named):
    out, err = io.StringIO(), io.StringIO()
    assert run(["hint", "--variant", "long", position, "31"], stdout=out, stderr=err) == 2
    assert out.getvalue() == "" and err.getvalue().count("\n") == 1
    assert err.getvalue().startswith(f"error: long nardy position {position!r}: {named}")


def test_hint_takes_variant_long_as_the_game(long_bot):
    out = io.StringIO()
    assert run(["hint", "--variant", "long", START_ID, "65"], stdout=out) == 0
    assert "24/13" in out.getvalue()


def session(long_bot, typed: str, seed: int = 1) -> tuple[TerminalSession, io.StringIO]:
    out = io.StringIO()
    return TerminalSession(long_bot, 0, np.random.default_rng(seed), io.StringIO(typed), out, cube=True), out


def bot_on_roll(position_id: str) -> LongGame:
    """A money game with the doubling cube, the bot (seat 1) to roll in ``position_id`` (its view)."""
    return LongGame(
        Rules(cube="doubling"), MatchState(), Phase.BEFORE_ROLL, BOT, LongPosition.from_id(position_id), first_mover=0
    )


def test_play_with_the_cube_the_bot_takes_a_double_at_the_start(long_bot):
    out = io.StringIO()
    status = run(
        ["play", "--variant", "long", "--cube", "--seed", "3"],
        stdin=io.StringIO("hint\ndouble\nquit\n"),
        stdout=out,
        stderr=io.StringIO(),
    )
    text = out.getvalue()
    assert status == 0 and "cube 1, centred" in text and "No double, take" in text
    assert "nardy takes; the cube is on 2." in text and "cube 2, owned by nardy" in text
    assert "Bye. Score: you 0, nardy 0 (money)" in text


def test_the_bot_doubles_when_its_network_says_so_and_a_pass_loses_the_cube(long_bot):
    game = bot_on_roll(DOUBLE_TAKE_ID)
    play, out = session(long_bot, "hint\npass\n")
    assert play.run(game) == 0
    text = out.getvalue()
    assert "nardy doubles to 2." in text and "Advice: take." in text
    assert "nardy won 1 point. Score: you 0, nardy 1 (money)" in text


def test_a_taken_double_turns_the_cube_and_the_game_goes_on(long_bot):
    play, out = session(long_bot, "take\nquit\n")
    assert play.run(bot_on_roll(DOUBLE_TAKE_ID)) == 0
    text = out.getvalue()
    assert "nardy doubles to 2." in text and "nardy rolls" in text and "cube 2, owned by you" in text


def test_the_bot_does_not_double_a_position_too_good_to_double(long_bot):
    play, out = session(long_bot, "quit\n")
    play.run(bot_on_roll(TOO_GOOD_ID))
    assert "doubles" not in out.getvalue()
    assert "nardy won" in out.getvalue() or "nardy rolls" in out.getvalue()


def test_a_whole_money_game_with_the_cube_ends_with_a_result(long_bot, monkeypatch):
    """The person rolls, takes every double and plays the bot's own choice: the game ends with a result."""

    def answer(self, prompt, default=""):
        return "take" if prompt.startswith("take or pass") else "n" if prompt.startswith("Play another") else "roll"

    def bots_choice(self, game):
        return game.move(self.bot.best_play(game.board, game.dice).play)

    monkeypatch.setattr(TerminalSession, "ask", answer)
    monkeypatch.setattr(TerminalSession, "person_moves", bots_choice)
    play, out = session(long_bot, "", seed=5)
    assert play.run() == 0
    text = out.getvalue()
    assert "nardy doubles to 2." in text
    assert "you won" in text or "nardy won" in text


# ---------------------------------------------------------------- web game steps


def act(client, path: str, body: dict) -> dict:
    answer = client.post(path, json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.mark.slow
def test_a_whole_long_game_through_the_web_steps_with_the_cube(client):
    view = act(client, "/v1/game/new", {"variant": "long", "cube": True})
    assert view["variant"] == "long" and view["phase"] == "opening" and view["cube"] == 1
    assert view["board"][24] == 15 and view["board"][12] == -15 and view["match_id"] == ""
    seed = 0
    for _ in range(400):
        seed += 1
        if view["phase"] == "over":
            break
        token = view["game"]
        if view["turn"] == "bot":
            view = act(client, "/v1/game/bot", {"game": token, "seed": seed})
        elif view["phase"] == "doubled":
            view = act(client, "/v1/game/take", {"game": token})
        elif view["phase"] in ("opening", "roll"):
            view = act(client, "/v1/game/roll", {"game": token, "seed": seed})
        else:
            assert view["plays"] and all(not s["hit"] for p in view["plays"] for s in p["steps"])
            view = act(client, "/v1/game/play", {"game": token, "move": view["plays"][0]["move"]})
    assert view["phase"] == "over"
    result = view["result"]
    assert result["how"] in ("oin", "mars") and result["next_game"].startswith("long:")
    assert view["score"] == result["score"] and sum(result["score"].values()) == result["points"]
    assert act(client, "/v1/game/view", {"game": result["next_game"]})["phase"] == "opening"


def test_the_human_doubles_and_resigns_a_long_game(client):
    view = act(client, "/v1/game/new", {"variant": "long", "cube": True})
    seed = 0
    while not (view["turn"] == "human" and view["phase"] == "roll"):
        seed += 1
        path = "/v1/game/roll" if view["turn"] == "human" else "/v1/game/bot"
        view = act(client, path, {"game": view["game"], "seed": seed})
    assert view["may_double"]
    doubled = act(client, "/v1/game/double", {"game": view["game"]})
    assert doubled["events"][0] == "You double to 2"
    assert doubled["cube"] == 2 and doubled["cube_owner"] == "bot" or doubled["result"]["how"] == "pass"
    resigned = act(client, "/v1/game/resign", {"game": view["game"]})
    assert resigned["result"] == {**resigned["result"], "winner": "bot", "how": "resign", "points": 2}


def test_a_long_game_without_the_cube_has_no_cube(client):
    view = act(client, "/v1/game/new", {"variant": "long"})
    assert view["cube"] == 0


def to_human_roll(client, view: dict) -> dict:
    """Roll and let the bot play until the human is to roll."""
    seed = 0
    while not (view["turn"] == "human" and view["phase"] == "roll"):
        seed += 1
        path = "/v1/game/roll" if view["turn"] == "human" else "/v1/game/bot"
        view = act(client, path, {"game": view["game"], "seed": seed})
    return view


def test_a_long_match_on_the_web_board_has_its_crawford_game_and_ends(client):
    view = act(client, "/v1/game/new", {"variant": "long", "length": 3})
    assert (view["variant"], view["match_length"], view["cube"], view["crawford"]) == ("long", 3, 1, False)
    view = to_human_roll(client, view)
    first = act(client, "/v1/game/resign", {"game": view["game"]})["result"]
    assert first["points"] == 2 and first["score"] == {"human": 0, "bot": 2} and not first["match_over"]
    crawford = to_human_roll(client, act(client, "/v1/game/view", {"game": first["next_game"]}))
    assert crawford["crawford"] and not crawford["may_double"] and crawford["score"] == {"human": 0, "bot": 2}
    refused = client.post("/v1/game/double", json={"game": crawford["game"]})
    assert refused.status_code == 400 and "Crawford" in refused.json()["message"]
    last = act(client, "/v1/game/resign", {"game": crawford["game"]})["result"]
    assert last["match_over"] and last["next_game"] is None and last["score"] == {"human": 0, "bot": 4}
    too_long = client.post("/v1/game/new", json={"variant": "long", "length": 26})
    assert too_long.status_code == 400 and "25" in too_long.json()["message"]  # the match equity table's reach


def test_a_long_match_view_carries_a_match_id_the_hint_reads(client):
    view = act(client, "/v1/game/new", {"variant": "long", "length": 3})
    lost = act(client, "/v1/game/resign", {"game": to_human_roll(client, view)["game"]})["result"]
    view = to_human_roll(client, act(client, "/v1/game/view", {"game": lost["next_game"]}))
    m = decode_match_id(view["match_id"])
    assert (m.match_length, m.score, m.crawford, m.player_on_roll, m.dice) == (3, (0, 2), True, 0, None)
    cube = client.get("/v1/cube", params={"variant": "long", "position": f"{view['position_id']}:{view['match_id']}"})
    assert cube.status_code == 200, cube.text
    assert cube.json()["mwc"] is not None
    view = act(client, "/v1/game/roll", {"game": view["game"], "seed": 1})
    assert view["phase"] == "move" and view["turn"] == "human"
    assert decode_match_id(view["match_id"]).dice == tuple(view["dice"])
    # The hint's query: no dice given, they are the Match ID's; each play ranked by match-winning chance.
    answer = client.get(
        "/v1/moves", params={"variant": "long", "position": f"{view['position_id']}:{view['match_id']}"}
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert sorted(body["dice"]) == sorted(view["dice"]) and body["position_id"] == view["position_id"]
    assert body["moves"] and all(0 < move["mwc"] < 1 for move in body["moves"])
    assert sorted(move["move"] for move in body["moves"]) == sorted(p["move"] for p in view["plays"])
    # Money play keeps no Match ID.
    money = to_human_roll(client, act(client, "/v1/game/new", {"variant": "long", "cube": True}))
    assert money["match_id"] == ""


@pytest.mark.parametrize(
    "path, token, words",
    [
        ("/v1/game/roll", "long:AAAB//wAAAP/+:roll", "expected long:"),
        ("/v1/game/roll", "long:AAAB//wAAAP/+:fly:h:h:-:1:-:0-0:none:0", "PHASE 'fly'"),
        ("/v1/game/roll", "long:AAAB//wAAAP/+:roll:h:h:-:3:-:0-0:doubling:0", "CUBE '3'"),
        ("/v1/game/roll", "long:AAAB//wAAAP/+:roll:h:h:-:2:-:0-0:none:0", "cube"),
        ("/v1/game/roll", "long:AAAB//wAAAP/+:move:h:h:79:1:-:0-0:none:0", "dice"),
        ("/v1/game/bot", "long:AAAB//wAAAP/+:roll:h:h:-:1:-:0-0:none:0", "not possible now"),
        ("/v1/game/take", "long:AAAB//wAAAP/+:roll:h:h:-:1:-:0-0:none:0", "not possible now"),
        ("/v1/game/play", "long:AAAB//wAAAP/+:move:h:h:31:1:-:0-0:none:0", "24/18"),
        ("/v1/game/accept", "long:AAAB//wAAAP/+:roll:h:h:-:1:-:0-0:none:0", "accept: not possible now"),
        ("/v1/game/double", "long:AAAB//wAAAP/+:roll:h:h:-:1:-:0-0:none:0", "played without the cube"),
    ],
)
def test_bad_long_game_requests_get_400(client, path, token, words):
    answer = client.post(path, json={"game": token, "move": "24/18"})
    assert answer.status_code == 400
    assert words in answer.json()["message"]
