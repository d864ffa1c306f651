"""``nardy cube`` and ``nardy rollout`` with ``--variant long``, and ``GET /v1/rollout`` and ``GET /v1/cube/matrix``
with ``variant=long``: long nardy Position IDs read, its rules played, its columns and its match equity table."""

from __future__ import annotations

import io
import json

import pytest

from bot.doors.cli import run
from bot.equity.cube import CubeState, verdict_words
from bot.facade import Bot
from engine.long_nardy import LongPosition

START = "AAAB//wAAAP/+"  # long nardy's start, the side on roll to move
BACKGAMMON_START = "4HPwATDgc/ABMA"
FAST = ["--trials", "36", "--truncate", "4", "--seed", "3"]


@pytest.fixture(scope="module")
def long_bot() -> Bot:
    return Bot.load(variant="long")


def nardy(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def ok(*args: str) -> str:
    status, out, err = nardy(*args)
    assert status == 0, err
    return out


def test_cube_money_decisions_in_backgammons_words(long_bot):
    out = ok("cube", "--variant", "long", START)
    decision = long_bot.cube_decision(LongPosition.from_id(START).board, CubeState())
    assert f"Position ID: {START} (the side on roll's cube decisions of long nardy, 0-ply)" in out
    assert f"centred            {verdict_words(decision.verdict)}" in out
    assert "owned (cube 2)" in out
    assert "Jacoby" not in out  # a money rule of backgammon's only


def test_cube_json_names_the_game_and_keeps_backgammons_shape():
    long_data = json.loads(ok("cube", "--variant", "long", START, "--json"))
    backgammon = json.loads(ok("cube", BACKGAMMON_START, "--json"))
    assert long_data["variant"] == "long" and backgammon["variant"] == "backgammon"
    assert set(long_data) == set(backgammon)
    assert long_data["position_id"] == START
    assert [cell["name"] for cell in long_data["money"]] == ["centred", "owned (cube 2)"]
    assert set(long_data["money"][0]) == set(backgammon["money"][0])


def test_matrix_priced_by_long_nardys_own_table(long_bot):
    data = json.loads(ok("cube", "--variant", "long", START, "--matrix", "3", "--json"))
    rows = data["matrix"]["rows"]
    assert data["matrix"]["length"] == 3 and [len(row) for row in rows] == [3, 3, 3]
    board = LongPosition.from_id(START).board
    for a, b in ((2, 2), (3, 2), (2, 3), (3, 3)):
        expected = long_bot.cube_decision(board, CubeState(match_length=3, score=(3 - a, 3 - b)))
        cell = rows[a - 1][b - 1]
        assert cell["verdict"] == expected.verdict.value
        assert cell["mwc"]["no_double"] == pytest.approx(expected.mwc_no_double, abs=1e-4)
    assert rows[1][0]["should_double"]  # 2-away against 1-away after the Crawford game: nothing to lose
    assert rows[0][0]["label"] == "dead"
    assert [cell["label"] for cell in data["matrix"]["crawford"]] == ["no cube"] * 4


def test_matrix_text_table():
    out = ok("cube", "--variant", "long", START, "--matrix", "3")
    assert "at every score of a 3-point match" in out
    lines = out.splitlines()
    top = lines.index(next(line for line in lines if line.split() == ["1-away", "2-away", "3-away"]))
    assert [line.split()[0] for line in lines[top + 1 : top + 4]] == ["1-away", "2-away", "3-away"]
    assert lines[top + 2].split()[1] in ("D/T", "D/P")  # 2-away against 1-away, post-Crawford: a double
    assert "Money:" in out


def test_rollout_of_the_position_in_long_nardys_columns():
    out = ok("rollout", "--variant", "long", START, *FAST)
    header = next(line for line in out.splitlines() if "Equity" in line)
    assert header.split()[-5:] == ["Win", "W", "mars", "L", "mars"]
    assert "bg" not in out and "W g" not in out
    assert f"Rollout of {START}: 36 trials" in out


def test_rollout_json_repeatable_with_no_backgammons():
    first = json.loads(ok("rollout", "--variant", "long", START, *FAST, "--json"))
    assert first["variant"] == "long" and first["position_id"] == START and first["trials"] == 36
    win, win_mars, win_bg, lose_mars, lose_bg = first["probabilities"]
    assert 0.0 < win < 1.0 and 0.0 <= win_mars <= win and win_bg == 0.0 and lose_bg == 0.0
    assert json.loads(ok("rollout", "--variant", "long", START, *FAST, "--json")) == first


def test_rollout_of_a_roll_plays_long_nardys_moves(long_bot):
    data = json.loads(ok("rollout", "--variant", "long", START, "63", *FAST, "--candidates", "3", "--json"))
    assert data["variant"] == "long" and data["dice"] == [6, 3]
    board = LongPosition.from_id(START).board
    legal = {long_bot.variant.format_play(play) for play in long_bot.variant.legal_plays(board, (6, 3))}
    moves = [play["move"] for play in data["plays"]]
    assert 1 <= len(moves) <= 3 and set(moves) <= legal
    equities = [play["equity"] for play in data["plays"]]
    assert equities == sorted(equities, reverse=True)
    # The afterstates are long nardy positions: their IDs read back as long nardy boards.
    for play in data["plays"]:
        LongPosition.from_id(play["position_id"])


def test_cubeful_rollout_refused_by_name():
    status, out, err = nardy("rollout", "--variant", "long", START, *FAST, "--cubeful")
    assert status == 2 and out == ""
    assert err.startswith("error: cubeful rollouts are backgammon's only") and err.count("\n") == 1


@pytest.mark.parametrize("command", [["cube"], ["cube", "--matrix", "3"], ["rollout", *FAST]])
def test_a_backgammon_id_refused_naming_the_game(command):
    status, out, err = nardy(command[0], "--variant", "long", BACKGAMMON_START, *command[1:])
    assert status == 2 and out == ""
    assert err.startswith(f"error: long nardy Position ID '{BACKGAMMON_START}'") and err.count("\n") == 1


def test_unknown_variant_refused(capsys):
    status, _, _ = nardy("cube", "--variant", "chess", START)
    assert status == 2 and "variant 'chess': unknown" in capsys.readouterr().err  # argparse's own message


@pytest.fixture(scope="module")
def client():
    from fastapi.testclient import TestClient

    from bot.doors.http_app import create_app

    return TestClient(create_app(Bot.load()))


def test_http_rollout_takes_variant_long(client):
    params = {"variant": "long", "position": START, "trials": 36, "truncate": 4, "seed": 3}
    response = client.get("/v1/rollout", params=params)
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["variant"] == "long" and data["position_id"] == START and data["probabilities"][2] == 0.0
    refused = client.get("/v1/rollout", params={**params, "position": BACKGAMMON_START})
    assert refused.status_code == 400 and "long nardy Position ID" in refused.json()["message"]
    cubeful = client.get("/v1/rollout", params={**params, "cubeful": "true"})
    assert cubeful.status_code == 400 and "backgammon's only" in cubeful.json()["message"]


def test_http_cube_matrix_takes_variant_long(client):
    response = client.get("/v1/cube/matrix", params={"variant": "long", "position": START, "length": 3})
    assert response.status_code == 200, response.text
    assert response.json() == json.loads(ok("cube", "--variant", "long", START, "--matrix", "3", "--json"))
    refused = client.get("/v1/cube/matrix", params={"variant": "long", "position": BACKGAMMON_START})
    assert refused.status_code == 400 and "long nardy Position ID" in refused.json()["message"]
