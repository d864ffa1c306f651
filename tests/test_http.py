"""The HTTP API: wildbg's /move and /eval, the /v1 endpoints, errors as 400 {"message"}, concurrency."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest
import uvicorn

from conftest import tiny_bot
from bot.equity.cube import CubeState
from bot.facade import Bot
from bot.doors.http_app import create_app
from bot.doors.situation import parse_position
from engine.board import START, flip
from engine.position_id import encode_position_id

with warnings.catch_warnings():  # starlette asks for httpx2, which is not needed here
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient

START_QUERY = "p24=2&p13=5&p8=3&p6=5&p1=-2&p12=-5&p17=-3&p19=-5"


@pytest.fixture(scope="module")
def bot() -> Bot:
    return tiny_bot(2)


@pytest.fixture(scope="module")
def client(bot) -> TestClient:
    return TestClient(create_app(bot))


def probabilities(five) -> dict:
    return dict(zip(("win", "winG", "winBg", "loseG", "loseBg"), (pytest.approx(float(x), abs=1e-6) for x in five)))


def test_move_lists_every_play_best_first_in_wildbg_shape(client, bot):
    answer = client.get(f"/move?die1=3&die2=1&{START_QUERY}")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    moves = answer.json()["moves"]
    ranked = bot.rank_plays(START, (3, 1))
    assert len(moves) == len(ranked)
    for move, r in zip(moves, ranked):
        assert set(move) == {"play", "probabilities"}
        assert move["play"] == [{"from": s.src, "to": s.dst} for s in r.play.steps]
        assert move["probabilities"] == probabilities(r.probabilities)


def test_move_when_no_play_is_possible_gives_one_empty_play(client):
    # The mover is on the bar against a closed board.
    query = "p25=1&p13=8&p6=6&p19=-2&p20=-2&p21=-2&p22=-2&p23=-2&p24=-2&p1=-3"
    moves = client.get(f"/move?die1=6&die2=5&{query}").json()["moves"]
    assert len(moves) == 1 and moves[0]["play"] == []


def test_move_bears_off_to_zero(client):
    moves = client.get("/move?die1=6&die2=5&p5=1&p2=1&p24=-1").json()["moves"]
    assert moves[0]["play"] in (
        [{"from": 5, "to": 0}, {"from": 2, "to": 0}],
        [{"from": 2, "to": 0}, {"from": 5, "to": 0}],
    )


def test_eval_gives_cube_and_probabilities(client, bot):
    body = client.get(f"/eval?{START_QUERY}").json()
    result = bot.evaluate(START)
    assert body == {
        "cube": {"double": result.cube.should_double, "accept": result.cube.should_take},
        "probabilities": probabilities(result.probabilities),
    }


def test_away_scores_make_it_a_match(client, bot):
    body = client.get(f"/eval?{START_QUERY}&x_away=1&o_away=2").json()
    decision = bot.cube_decision(START, CubeState(match_length=2, score=(1, 0)))
    assert body["cube"] == {"double": decision.should_double, "accept": decision.should_take}


@pytest.mark.parametrize(
    "url, named",
    [
        ("/move?die2=1&p24=2", "die1"),
        ("/move?die1=x&die2=1&p24=2", "die1"),
        ("/move?die1=7&die2=1&p24=2&p1=-1", "die1 7"),
        ("/move?die1=2&die2=1&p4=4&p5=-5&p25=-2", "index 25"),
        ("/eval?p0=1&p4=4&p5=-5", "index 0"),
        ("/eval?p4=9&p3=7&p5=-5", "16 checkers"),
        ("/eval?p4=16&p5=-5", "p4"),
        ("/eval?p4=100000000000000000000000000000&p5=-5", "p4"),
        ("/eval?p4=4", "game is over"),
        ("/eval?p4=4&p5=-5&x_away=3", "x_away and o_away"),
        ("/v1/moves?position=nonsense&dice=31", "nonsense"),
        ("/v1/moves?position=4HPwATDgc/ABMA", "no dice"),
        ("/v1/evaluate?position=4HPwATDgc/ABMA&plies=3", "plies 3"),
        ("/v1/cube", "position"),
    ],
)
def test_bad_requests_get_400_with_a_message_naming_the_problem(client, url, named):
    answer = client.get(url)
    assert answer.status_code == 400
    assert set(answer.json()) == {"message"} and named in answer.json()["message"]


def test_unknown_paths_answer_in_the_same_shape(client):
    answer = client.get("/nowhere")
    assert answer.status_code == 404 and answer.json() == {"message": "Not Found"}


def test_v1_moves_takes_ids_and_reports_notation_and_equities(client, bot):
    situation = parse_position("sGfwATDgc/ABMA:QYkqASAAIAAA")
    body = client.get("/v1/moves", params={"position": "sGfwATDgc/ABMA:QYkqASAAIAAA", "top": 3}).json()
    ranked = bot.rank_plays(situation.board, (5, 2), top=3, state=situation.state)
    assert body["dice"] == [5, 2] and body["position_id"] == "sGfwATDgc/ABMA"
    assert [m["move"] for m in body["moves"]] == [r.notation for r in ranked]
    first = body["moves"][0]
    assert first["position_id"] == encode_position_id(flip(ranked[0].afterstate))
    assert first["mwc"] == pytest.approx(ranked[0].mwc) and first["equity"] == pytest.approx(ranked[0].equity)
    assert first["plies"] == 0


def test_a_plus_sent_unencoded_is_read_back(client):
    # '+' in a query string means a space, and Position IDs contain '+'.
    answer = client.get("/v1/evaluate?position=4GfwAQnI1+ABMA")
    assert answer.status_code == 200 and answer.json()["position_id"] == "4GfwAQnI1+ABMA"


def test_v1_cube_and_evaluate(client, bot):
    situation = parse_position("4HPwATDgc/ABMA:QYkqAQAAIAAA")
    cube = client.get("/v1/cube", params={"position": "4HPwATDgc/ABMA:QYkqAQAAIAAA"}).json()
    result = bot.evaluate(situation.board, situation.state)
    assert cube["decision"] == result.cube.verdict.value
    assert cube["equities"]["no_double"] == pytest.approx(result.cube.no_double)
    assert cube["mwc"]["double_pass"] == pytest.approx(result.cube.mwc_double_pass)
    evaluation = client.get("/v1/evaluate", params={"position": "4HPwATDgc/ABMA:QYkqAQAAIAAA", "plies": 1}).json()
    one_ply = bot.evaluate(situation.board, situation.state, plies=1)
    assert evaluation["mwc"] == pytest.approx(one_ply.mwc) and evaluation["plies"] == 1
    assert evaluation["probabilities"] == probabilities(one_ply.probabilities)


def test_v1_resign_answers_both_ways(client, bot):
    situation = parse_position("4HPwATDgc/ABMA:QYkqAQAAIAAA")
    body = client.get("/v1/resign", params={"position": "4HPwATDgc/ABMA:QYkqAQAAIAAA", "value": "gammon"}).json()
    result = bot.resign_decision(situation.board, situation.state, level=2)
    assert body["offer"]["level"] == (result.offer.level.name.lower() if result.offer.level else None)
    assert body["offer"]["equity_resign"]["gammon"] == pytest.approx(result.offer.equity_resign[1])
    assert body["opponent_accepts"]["accept"] == result.opponent_accepts.accept
    assert body["side_on_roll_accepts"]["mwc_accept"] == pytest.approx(result.side_on_roll_accepts.mwc_accept)
    assert body["side_on_roll_accepts"]["level"] == "gammon"
    bad = client.get("/v1/resign", params={"position": "4HPwATDgc/ABMA", "value": "everything"})
    assert bad.status_code == 400 and "everything" in bad.json()["message"]


def test_openapi_description_is_served(client):
    spec = client.get("/openapi.json").json()
    assert {"/move", "/eval", "/v1/moves", "/v1/cube", "/v1/evaluate", "/v1/resign"} <= set(spec["paths"])
    assert client.get("/docs").status_code == 200


@pytest.mark.slow
def test_concurrent_requests_get_the_answers_of_single_ones(client):
    urls = [f"/move?die1={a}&die2={b}&{START_QUERY}" for a in range(1, 7) for b in range(1, 7)]
    expected = {url: client.get(url).json() for url in urls}
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda url: (url, client.get(url).json()), urls * 3))
    assert all(body == expected[url] for url, body in answers)


def test_a_real_server_answers_and_survives_bad_requests(bot):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(bot), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "server did not start"
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        with pytest.raises(urllib.error.HTTPError) as bad:
            urllib.request.urlopen(f"{base}/move?die1=9&die2=1&p24=2&p1=-1", timeout=30)
        assert bad.value.code == 400 and "message" in json.loads(bad.value.read())
        with urllib.request.urlopen(f"{base}/move?die1=3&die2=1&{START_QUERY}", timeout=30) as answer:
            assert len(json.loads(answer.read())["moves"]) == len(bot.rank_plays(START, (3, 1)))
    finally:
        server.should_exit = True
        thread.join(timeout=30)
