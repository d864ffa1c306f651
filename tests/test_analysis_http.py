"""POST /v1/analyze and GET /v1/rollout: the JSON of the command line, bounds, 400 {"message"}."""

from __future__ import annotations

import warnings

import pytest

from bot.doors.analysis_views import MAX_UPLOAD_BYTES
from bot.doors.http_app import create_app
from bot.facade import Bot
from engine.matfile import format_mat
from test_analysis import session

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(Bot.load()))


def test_analyze_returns_the_analysis_json(client):
    answer = client.post("/v1/analyze", content=format_mat(session()).encode(), headers={"content-type": "text/plain"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert [p["name"] for p in data["players"]] == ["Alice", "Bob"] and len(data["games"]) == 3
    assert data["games"][1]["stopped"]


def test_analyze_refuses_damaged_and_oversized_files(client):
    answer = client.post("/v1/analyze", content=b" 3 point match\n\n Game 1\n nonsense\n")
    assert answer.status_code == 400 and "line 4" in answer.json()["message"]
    answer = client.post("/v1/analyze", content=b" " * (MAX_UPLOAD_BYTES + 1))
    assert answer.status_code == 413 and str(MAX_UPLOAD_BYTES) in answer.json()["message"]


def test_rollout_json_and_bounds(client):
    answer = client.get(
        "/v1/rollout", params={"position": "4HPwATDgc/ABMA", "trials": 36, "truncate": 2, "seed": 1, "cubeful": True}
    )
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["trials"] == 36 and len(data["probabilities"]) == 5 and "cube" in data
    again = client.get(
        "/v1/rollout", params={"position": "4HPwATDgc/ABMA", "trials": 36, "truncate": 2, "seed": 1, "cubeful": True}
    )
    assert again.json() == data
    for bad in ({"trials": 5000}, {"truncate": 99}, {"dice": "71"}, {"position": "nonsense"}):
        answer = client.get("/v1/rollout", params={"position": "4HPwATDgc/ABMA", "trials": 36, **bad})
        assert answer.status_code == 400 and answer.json()["message"]


def test_the_endpoints_are_in_the_openapi_page(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert "post" in paths["/v1/analyze"] and "get" in paths["/v1/rollout"]


def test_one_ply_analysis_has_a_smaller_bound(client):
    from bot.doors.analysis_views import MAX_ONE_PLY_BYTES

    text = format_mat(session())
    padded = text + "\n" * (MAX_ONE_PLY_BYTES + 1 - len(text))
    answer = client.post("/v1/analyze", params={"plies": 1}, content=padded.encode())
    assert answer.status_code == 400 and "1-ply" in answer.json()["message"]
    assert client.post("/v1/analyze", params={"plies": 1}, content=text.encode()).status_code == 200
