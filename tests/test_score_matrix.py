"""The score matrix (bot.play.score_matrix, `nardy cube --matrix N`, GET /v1/cube/matrix): the facade's cube decision at
every score, the Crawford cells, money, bounds."""

from __future__ import annotations

import io
import json
import warnings

import pytest

from bot.equity.cube import CubeState, Owner
from bot.doors.cli import run
from bot.facade import Bot
from bot.play.score_matrix import LABELS, NO_CUBE, ScoreMatrixError, format_matrix, max_length, money_cube, score_matrix
from engine.position_id import decode_position_id
from engine.position_formats import read_position

START = "4HPwATDgc/ABMA"
# A strong middle-game position for the side on roll (a doubling position for money: a double and a pass).
STRONG = "XGID=-a-BaBC-A---eC---c-e----B-:0:0:1:00:0:0:0:0:10"


@pytest.fixture(scope="module")
def bot() -> Bot:
    return Bot.load()


@pytest.fixture(scope="module")
def matrix(bot):
    return score_matrix(bot, decode_position_id(START), 5)


def test_every_cell_is_the_facades_decision_at_its_score(bot, matrix):
    board = decode_position_id(START)
    assert len(matrix.cells) == 5 and all(len(row) == 5 for row in matrix.cells)
    for a in range(1, 6):
        for b in range(1, 6):
            cell = matrix.cells[a - 1][b - 1]
            if (a, b) == (1, 1):
                assert (cell.label, cell.decision) == ("dead", None)
                continue
            expected = bot.cube_decision(board, CubeState(match_length=5, score=(5 - a, 5 - b)))
            assert cell.decision == expected and cell.label == LABELS[expected.verdict]
            assert cell.double_margin == pytest.approx(
                min(expected.double_take, expected.double_pass) - expected.no_double
            )


def test_crawford_cells_have_no_cube_and_the_leader_none_post_crawford(matrix):
    assert set(matrix.crawford) == {(1, b) for b in range(2, 6)} | {(a, 1) for a in range(2, 6)}
    assert all(c.label == NO_CUBE and c.decision is None for c in matrix.crawford.values())
    assert all(c.label == "dead" for c in matrix.cells[0])  # the 1-away side on roll gains nothing by doubling
    # Post-Crawford the trailer at 2-away doubles at once (its opponent needs one point anyway).
    assert matrix.cells[1][0].decision is not None and matrix.cells[1][0].decision.should_double


def test_money_is_centred_jacoby_and_owned(bot):
    board = read_position(STRONG).board
    cells = money_cube(bot, board)
    assert [c.name for c in cells] == ["centred", "centred, Jacoby", "owned (cube 2)"]
    assert cells[0].decision == bot.cube_decision(board, CubeState())
    assert cells[1].decision == bot.cube_decision(board, CubeState(jacoby=True))
    assert cells[2].decision == bot.cube_decision(board, CubeState(cube=2, owner=Owner.ME))
    assert cells[0].label in ("D/P", "D/T", "TG/P", "TG/T") and cells[2].label.startswith(("RD", "TGR", "NRD"))


def test_the_length_is_bounded_by_the_match_equity_table(bot):
    board = decode_position_id(START)
    for bad in (0, max_length() + 1):
        with pytest.raises(ScoreMatrixError, match=f"1 to {max_length()}"):
            score_matrix(bot, board, bad)


def test_the_table_reads_at_a_glance(matrix):
    lines = format_matrix(matrix)
    header = lines[3].split()
    assert header == [f"{b}-away" for b in range(1, 6)]
    row = lines[5]  # 2-away
    assert row.split()[0] == "2-away" and row.split()[1] == matrix.cells[1][0].label


def test_nardy_cube_prints_the_matrix_and_json():
    out, err = io.StringIO(), io.StringIO()
    assert run(["cube", START, "--matrix", "3"], stdout=out, stderr=err) == 0, err.getvalue()
    text = out.getvalue()
    assert "3-point match" in text and "Money:" in text and "3-away" in text
    out = io.StringIO()
    assert run(["cube", START, "--matrix", "3", "--json"], stdout=out, stderr=io.StringIO()) == 0
    data = json.loads(out.getvalue())
    assert data["position_id"] == START and len(data["money"]) == 3
    assert len(data["matrix"]["rows"]) == 3 and data["matrix"]["rows"][1][0]["label"] in ("D/T", "D/P", "TG/T", "TG/P")
    assert [c["label"] for c in data["matrix"]["crawford"]] == [NO_CUBE] * 4
    err = io.StringIO()
    assert run(["cube", START, "--matrix", str(max_length() + 1)], stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue().startswith("error: --matrix")


def test_the_http_endpoint(bot):
    from bot.doors.http_app import create_app

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*httpx2")
        from fastapi.testclient import TestClient
    client = TestClient(create_app(bot))
    answer = client.get("/v1/cube/matrix", params={"position": START, "length": 4})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert len(data["matrix"]["rows"]) == 4 and data["money"][0]["name"] == "centred"
    assert client.get("/v1/cube/matrix", params={"position": START}).json().get("matrix") is None
    for bad in ({"length": 26}, {"length": 8, "plies": 1}, {"position": "nonsense"}, {"plies": 2}):
        answer = client.get("/v1/cube/matrix", params={"position": START, "length": 3, **bad})
        assert answer.status_code == 400 and answer.json()["message"], bad
    assert "/v1/cube/matrix" in client.get("/openapi.json").json()["paths"]
