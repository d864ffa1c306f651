"""What one HTTP request may cost: the cost model, the queue for heavy work, cancellation, slow clients, game tokens.

Servers here listen on 127.0.0.1 only, on a free port; every wait is a bounded loop.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from bot.search.cancel import Cancelled, cancel_on, check_cancelled
from bot.doors.http_app import create_app, make_server
from bot.doors.http_limits import Limits, analysis_work, rollout_work
from bot.doors.web_views import MAX_MATCH_LENGTH, MAX_MONEY_SCORE
from bot.facade import Bot
from bot.search.rollout import RolloutSettings, rollout_position
from conftest import tiny_bot
from engine.game import Game, Phase
from engine.match import MAX_CUBE, MatchState
from engine.position import START_POSITION
from fakes import PipEvaluator

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    import httpx
    from fastapi.testclient import TestClient

START = "4HPwATDgc/ABMA"
ROOT = Path(__file__).resolve().parents[1]


class SlowEvaluator(PipEvaluator):
    """The pip-count evaluator, taking ``delay`` seconds a call (asleep, as a network releases the GIL); counts
    calls."""

    def __init__(self, delay: float) -> None:
        self.delay, self.calls = delay, 0

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        self.calls += 1
        time.sleep(self.delay)
        return super().probabilities(boards)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(tiny_bot(3)), raise_server_exceptions=False)


@contextmanager
def running(bot: Bot, limits: Limits) -> Iterator[tuple[str, object]]:
    """``make_server``'s server on 127.0.0.1, in a thread: (base URL, the server)."""
    server = make_server(bot, "127.0.0.1", 0, limits, log_level="warning")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started, "the server did not start"
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", server
    finally:
        server.should_exit = True
        thread.join(15)


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (at most 64 reads)."""
    answer = b""
    for _ in range(64):
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    return answer


# ---------------------------------------------------------------- the cost model


@pytest.mark.parametrize("extra", [{}, {"cubeful": "true"}, {"dice": "11", "candidates": 5}])
def test_a_rollout_at_the_documented_maximum_is_refused_at_once(client, extra):
    started = time.monotonic()
    answer = client.get(
        "/v1/rollout", params={"position": "4PPgASTg28EBMA", "trials": 1296, "truncate": 20, "seed": 1, **extra}
    )
    assert time.monotonic() - started < 5
    assert answer.status_code == 400
    message = answer.json()["message"]
    assert str(Limits().max_work) in message and "limit" in message


def test_the_default_rollouts_are_within_the_limit():
    limit = Limits().max_work
    assert rollout_work(324, 10, True, False, None) <= limit
    assert rollout_work(324, 10, True, True, None) <= limit
    assert rollout_work(324, 10, True, False, 3) <= limit
    assert rollout_work(1296, 20, True, False, 5) > limit


def test_a_rollout_within_a_small_limit_answers_and_one_past_it_is_refused():
    small = TestClient(create_app(tiny_bot(3), Limits(max_work=36 * 2)), raise_server_exceptions=False)
    params = {"position": START, "trials": 36, "truncate": 2, "seed": 1}
    assert small.get("/v1/rollout", params=params).status_code == 200
    answer = small.get("/v1/rollout", params={**params, "truncate": 3})
    assert answer.status_code == 400 and "72" in answer.json()["message"]


def test_an_analysis_over_the_limit_is_refused_before_it_starts():
    from engine.matfile import format_mat
    from test_analysis import session

    text = format_mat(session()).encode()
    actions = sum(len(g.actions) for g in session().games)
    small = TestClient(
        create_app(tiny_bot(3), Limits(max_work=analysis_work(actions, 0))), raise_server_exceptions=False
    )
    assert small.post("/v1/analyze", content=text).status_code == 200
    answer = small.post("/v1/analyze", params={"plies": 1}, content=text)
    assert answer.status_code == 400 and "limit" in answer.json()["message"]


def test_the_openapi_description_states_the_limits(client):
    description = client.get("/openapi.json").json()["info"]["description"]
    assert str(Limits().max_work) in description and "503" in description and "Retry-After" in description


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "params",
    [
        {"seed": -1},
        {"seed": 2**63},
        {"seed": "x"},
        {"dice": "\u00b2\u00b9"},
        {"dice": "71"},
        {"dice": "3"},
        {"dice": "\u0661\u0662"},
    ],
)
def test_bad_rollout_seeds_and_dice_are_400(client, params):
    answer = client.get("/v1/rollout", params={"position": START, "trials": 36, "truncate": 1, **params})
    assert answer.status_code == 400, answer.text
    assert answer.json()["message"]


def test_a_match_past_the_match_equity_table_is_refused(client):
    answer = client.post("/v1/game/new", json={"length": MAX_MATCH_LENGTH + 1})
    assert answer.status_code == 400 and str(MAX_MATCH_LENGTH) in answer.json()["message"]
    assert client.post("/v1/game/new", json={"length": MAX_MATCH_LENGTH}).status_code == 200


def _token(match: MatchState, turn: int = 1) -> str:
    return ":".join(Game(match, Phase.BEFORE_ROLL, turn, START_POSITION, None).ids())


@pytest.mark.parametrize(
    "match, words",
    [
        (MatchState(0, (2**15 - 1, 0)), "money score"),
        (MatchState(0, (0, MAX_MONEY_SCORE + 1)), "money score"),
        (MatchState(40, (3, 0)), "40-point match"),
    ],
)
def test_forged_game_tokens_are_refused(client, match, words):
    for path in ("/v1/game/view", "/v1/game/bot"):
        answer = client.post(path, json={"game": _token(match), "seed": 1})
        assert answer.status_code == 400 and words in answer.json()["message"], answer.text


def test_the_largest_cube_cannot_be_doubled(client):
    human_owns = _token(MatchState(0, (0, 0), MAX_CUBE, 0), turn=0)
    answer = client.post("/v1/game/double", json={"game": human_owns})
    assert answer.status_code == 400 and str(MAX_CUBE) in answer.json()["message"]
    bot_owns = client.post("/v1/game/view", json={"game": _token(MatchState(0, (0, 0), MAX_CUBE, 1))}).json()
    assert not bot_owns["may_double"]
    played = client.post("/v1/game/bot", json={"game": bot_owns["game"], "seed": 1})
    assert played.status_code == 200 and played.json()["cube"] == MAX_CUBE


def test_a_money_score_at_the_bound_still_wins_a_backgammon_on_the_largest_cube():
    from engine.match import after_game
    from engine.match_id import MatchId, encode_match_id

    after = after_game(MatchState(0, (MAX_MONEY_SCORE, 0), MAX_CUBE, 1), 0, 3 * MAX_CUBE)
    encode_match_id(MatchId(match_length=0, score=after.score))  # fits the Match ID


# ---------------------------------------------------------------- cancellation


def test_a_cancelled_rollout_stops_at_its_next_ply():
    event = threading.Event()
    evaluator = SlowEvaluator(0.0)
    plies: list[int] = []

    def progress(done: int, total: int) -> None:
        plies.append(done)
        if len(plies) == 2:
            event.set()

    with cancel_on(event), pytest.raises(Cancelled):
        rollout_position(
            evaluator, START_POSITION.board, np.random.default_rng(1), RolloutSettings(trials=36, truncate=50), progress
        )
    assert len(plies) == 2
    check_cancelled()  # outside cancel_on: never raises


@pytest.mark.slow
def test_a_client_that_disconnects_stops_its_work():
    evaluator = SlowEvaluator(0.02)
    with running(Bot(evaluator), Limits()) as (url, server):
        queue = server.config.app.state.heavy_queue
        with socket.create_connection(("127.0.0.1", _port(url)), timeout=5) as sock:
            sock.sendall(
                f"GET /v1/rollout?position={START}&trials=1296&truncate=12&seed=1 HTTP/1.1\r\n"
                "Host: 127.0.0.1\r\n\r\n".encode()
            )
            for _ in range(100):
                if evaluator.calls:
                    break
                time.sleep(0.05)
            assert evaluator.calls and queue.running == 1
        for _ in range(100):  # the socket is closed: the job must end
            if queue.running == 0:
                break
            time.sleep(0.05)
        assert queue.running == 0
        calls = evaluator.calls
        time.sleep(0.3)
        assert evaluator.calls == calls


@pytest.mark.slow
def test_cheap_requests_are_answered_while_heavy_ones_run():
    evaluator = SlowEvaluator(0.01)
    with running(Bot(evaluator), Limits(heavy_wait=30)) as (url, server):
        queue = server.config.app.state.heavy_queue
        stop = threading.Event()

        def heavy() -> int:
            with httpx.Client(base_url=url, timeout=60) as session:
                answers = 0
                for _ in range(20):  # bounded
                    if stop.is_set():
                        break
                    session.get("/v1/evaluate", params={"position": START, "plies": 2})
                    answers += 1
                return answers

        with ThreadPoolExecutor(30) as pool:
            futures = [pool.submit(heavy) for _ in range(30)]
            try:
                for _ in range(100):
                    if queue.running and queue.waiting >= 10:
                        break
                    time.sleep(0.05)
                assert queue.running and queue.waiting >= 10
                with httpx.Client(base_url=url, timeout=30) as session:
                    for _ in range(5):
                        started = time.monotonic()
                        answer = session.get("/v1/evaluate", params={"position": START})
                        assert answer.status_code == 200 and time.monotonic() - started < 2
                assert queue.running  # the heavy ones were still running
            finally:
                stop.set()
                for future in futures:
                    future.result(timeout=120)


def test_a_full_queue_answers_503_with_retry_after():
    evaluator = SlowEvaluator(0.05)
    with running(Bot(evaluator), Limits(heavy_queue=1, heavy_wait=0.2)) as (url, _):

        def ask(_: int) -> httpx.Response:
            return httpx.get(f"{url}/v1/evaluate", params={"position": START, "plies": 2}, timeout=60)

        with ThreadPoolExecutor(6) as pool:
            answers = list(pool.map(ask, range(6)))
    busy = [a for a in answers if a.status_code == 503]
    assert busy and all(a.headers.get("retry-after") for a in busy)
    assert {a.status_code for a in answers} <= {200, 503}


# ---------------------------------------------------------------- slow clients


@pytest.mark.slow
def test_silent_and_half_sent_requests_are_closed():
    with running(tiny_bot(3), Limits(header_timeout=0.5, body_timeout=0.5)) as (url, _):
        for sent in (b"", b"GET /v1/evaluate?position=4HPwATDgc/ABMA HTTP/1.1\r\nHost: x\r\n"):
            with socket.create_connection(("127.0.0.1", _port(url)), timeout=10) as sock:
                sock.sendall(sent)
                started = time.monotonic()
                assert sock.recv(1024) == b""  # closed by the server, not by the timeout of 10 s
                assert time.monotonic() - started < 5
        with socket.create_connection(("127.0.0.1", _port(url)), timeout=10) as sock:
            sock.sendall(b"POST /v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n; part")
            answer = _read_until_closed(sock)
            assert answer.startswith(b"HTTP/1.1 408") and b"body" in answer
        with socket.create_connection(("127.0.0.1", _port(url)), timeout=10) as sock:
            sock.sendall(
                b"POST /v1/game/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b'Content-Length: 50\r\n\r\n{"length"'
            )
            answer = _read_until_closed(sock)
            assert answer.startswith(b"HTTP/1.1 408") and b"body" in answer


def test_a_client_leaving_mid_upload_logs_one_line(caplog):
    with running(tiny_bot(3), Limits()) as (url, _):
        with caplog.at_level(logging.INFO):
            with socket.create_connection(("127.0.0.1", _port(url)), timeout=10) as sock:
                sock.sendall(b"POST /v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n; part")
                time.sleep(0.3)
            for _ in range(100):
                if any("client left" in r.getMessage() for r in caplog.records):
                    break
                time.sleep(0.05)
    assert [r for r in caplog.records if "client left" in r.getMessage()]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


# ---------------------------------------------------------------- stopping


SERVE = """
import sys
sys.path[:0] = [{tests!r}]
from fakes import PipEvaluator
import time
from bot.doors.http_app import make_server
from bot.doors.http_limits import Limits
from bot.facade import Bot

class Slow(PipEvaluator):
    def probabilities(self, boards):
        time.sleep(0.02)
        return super().probabilities(boards)

server = make_server(Bot(Slow()), "127.0.0.1", 0, Limits(), log_level="warning")
import threading
def announce():
    while not server.started:
        time.sleep(0.05)
    print(server.servers[0].sockets[0].getsockname()[1], flush=True)
threading.Thread(target=announce, daemon=True).start()
server.run()
"""


@pytest.mark.slow
def test_sigterm_stops_the_server_within_seconds_of_heavy_work():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE.format(tests=str(ROOT / "tests"))],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        url = f"http://127.0.0.1:{port}"

        def rollout() -> None:
            try:
                httpx.get(f"{url}/v1/rollout", params={"position": START, "trials": 1296, "truncate": 12}, timeout=60)
            except httpx.HTTPError:
                pass

        clients = [threading.Thread(target=rollout, daemon=True) for _ in range(3)]
        for thread in clients:
            thread.start()
        time.sleep(1.0)
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
        assert time.monotonic() - started < 8
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
