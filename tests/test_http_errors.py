"""The HTTP API and the command line under hostile input: bad IDs, unbounded parameters, huge requests, bugs."""

from __future__ import annotations

import io
import logging
import warnings

import pytest

import bot.doors.http_views as views
from conftest import tiny_bot
from bot.doors import cli
from bot.doors.http_app import MAX_MESSAGE, MAX_QUERY_BYTES, create_app
from bot.facade import Bot

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def bot() -> Bot:
    return tiny_bot(2)


@pytest.fixture(scope="module")
def client(bot) -> TestClient:
    return TestClient(create_app(bot), raise_server_exceptions=False)


@pytest.mark.parametrize("endpoint", ["/v1/moves", "/v1/cube", "/v1/evaluate", "/v1/resign"])
@pytest.mark.parametrize(
    "position", ["AAAAAAAAAAAA==", "4HPwATDgc/AB==", "27YBAHDbtgEAcA", "4HPwATDgc/ABMA:cAkAAAAAAA=="]
)
def test_padded_or_impossible_ids_are_400_on_every_v1_endpoint(client, endpoint, position):
    answer = client.get(endpoint, params={"position": position, "dice": "31"})
    assert answer.status_code == 400, answer.text
    assert set(answer.json()) == {"message"}


@pytest.mark.parametrize(
    "query",
    [
        "die1=0&die2=1",
        "die1=1&die2=7",
        "die1=\u00b2&die2=1",
        f"die1=1&die2=1&x_away={2**63}&o_away=1",
        "die1=1&die2=1&x_away=0&o_away=1",
        "die1=1&die2=1&x_away=1000&o_away=1",
    ],
)
def test_move_parameters_are_bounded(client, query):
    answer = client.get(f"/move?p24=2&p1=-2&{query}")
    assert answer.status_code == 400 and len(answer.text) < 400


@pytest.mark.parametrize(
    "params",
    [
        {"plies": 3},
        {"plies": -1},
        {"top": 0},
        {"top": 101},
        {"top": 100000},
        {"plies": 1, "top": 50},
        {"dice": "\u00b2\u00b9"},
        {"dice": "71"},
        {"position": "x" * 81},
    ],
)
def test_v1_parameters_are_bounded(client, params):
    answer = client.get("/v1/moves", params={"position": "4HPwATDgc/ABMA", "dice": "31", **params})
    assert answer.status_code == 400, answer.text


def test_openapi_states_the_bounds(client):
    spec = client.get("/openapi.json").json()
    params = {p["name"]: p["schema"] for p in spec["paths"]["/v1/moves"]["get"]["parameters"]}
    assert params["plies"]["maximum"] == 2 and params["plies"]["minimum"] == 0
    top = params["top"]["anyOf"][0]
    assert top["minimum"] == 1 and top["maximum"] == views.MAX_TOP
    assert params["position"]["maxLength"] == views.MAX_POSITION_TEXT
    move = {p["name"]: p["schema"] for p in spec["paths"]["/move"]["get"]["parameters"]}
    assert move["die1"]["minimum"] == 1 and move["die1"]["maximum"] == 6
    assert move["x_away"]["anyOf"][0]["maximum"] == views.MAX_AWAY


def test_error_bodies_do_not_echo_the_input(client):
    answer = client.get("/v1/evaluate", params={"position": "y" * 1500})
    assert answer.status_code == 400 and len(answer.text) <= MAX_MESSAGE + 20
    assert "y" * 40 not in answer.text


def test_a_huge_query_string_is_refused(client):
    answer = client.get("/eval?" + "p1=0&" * (MAX_QUERY_BYTES // 4))
    assert answer.status_code == 400 and set(answer.json()) == {"message"}


def test_a_large_body_is_refused(client):
    answer = client.request("GET", "/eval", content=b"x" * 100_000)
    assert answer.status_code == 413


def test_405_says_which_methods_are_allowed(client):
    answer = client.post("/eval")
    assert answer.status_code == 405 and "GET" in answer.headers["allow"]


def test_a_bug_is_500_with_a_generic_message_and_the_traceback_logged(client, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise ValueError("secret internal detail")  # a plain ValueError is a bug, not bad input

    monkeypatch.setattr(views, "evaluate", broken)
    with caplog.at_level(logging.ERROR, logger="bot.doors.http_app"):
        answer = client.get("/v1/evaluate", params={"position": "4HPwATDgc/ABMA"})
    assert answer.status_code == 500 and answer.json() == {"message": "internal error"}
    assert "secret" not in answer.text
    assert any(record.exc_info and "secret internal detail" in str(record.exc_info[1]) for record in caplog.records)


# ---------------------------------------------------------------- the command line


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    return cli.run(argv, io.StringIO(), out, err), err.getvalue()


@pytest.mark.parametrize("position", ["AAAAAAAAAAAA==", "27YBAHDbtgEAcA", "4HPwATDgc/ABMA:cAkAAAAAAA=="])
def test_cli_bad_ids_are_one_error_line(position):
    status, err = _run(["eval", position, "--checkpoint", "/nonexistent.pt"])
    assert status == cli.EXIT_BAD_INPUT and err.startswith("error: ") and err.count("\n") == 1


def test_cli_a_bug_is_an_internal_error_line_with_traceback_under_v(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr(cli, "_read_position", broken)
    status, err = _run(["eval", "4HPwATDgc/ABMA"])
    assert status == cli.EXIT_INTERNAL_ERROR and err.startswith("internal error: KeyError") and err.count("\n") == 1
    status, err = _run(["-v", "eval", "4HPwATDgc/ABMA"])
    assert status == cli.EXIT_INTERNAL_ERROR and "Traceback" in err and "internal error: KeyError" in err


def test_cli_a_bad_checkpoint_is_still_an_error_line(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    status, err = _run(["eval", "4HPwATDgc/ABMA", "--checkpoint", str(bad)])
    assert status == cli.EXIT_BAD_INPUT and err.startswith("error: ")
