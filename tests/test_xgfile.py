"""eXtreme Gammon .xg files (engine.xgfile): real XG files read as the same games as XG's own .mat export of
them, told apart by content, analysed by `nardy analyze` and `POST /v1/analyze`; damaged and hostile files refused
with one error. The files are described in tests/data/xg/README.md."""

from __future__ import annotations

import io
import json
import struct
import warnings
import zlib
from pathlib import Path

import pytest

from bot.doors.cli import run
from bot.facade import Bot
from engine.matchfiles import FileKind, kind_of_bytes, read_records_bytes, read_records_file
from engine.matfile import MatMatch, read_mat
from engine.xgfile import MAX_RECORDS, InvalidXgFileError, is_xg, parse_xg
from tests.test_sgf import afterstates

XG = Path(__file__).parent / "data" / "xg"
PAIRS = ["B4_SrGcsKAQmoTyHlgJCbM", "eXBNG5wZHS5Alu3P"]  # a money session, a 5-point match with a Crawford game


def _games(match: MatMatch) -> list[list[tuple]]:
    """``afterstates`` with each roll's dice in one order: XG stores the higher die first, its .mat as rolled."""
    return [[(p, k, d and tuple(sorted(d)), b) for p, k, d, b in game] for game in afterstates(match)]


@pytest.mark.parametrize("name", PAIRS)
def test_an_xg_file_reads_as_xgs_own_mat_export(name):
    ours, theirs = parse_xg((XG / f"{name}.xg").read_bytes()), read_mat(XG / f"{name}.mat")
    assert (ours.length, ours.players) == (theirs.length, theirs.players)
    assert [(g.score, g.winner, g.points) for g in ours.games] == [(g.score, g.winner, g.points) for g in theirs.games]
    assert _games(ours) == _games(theirs)


def test_the_header_and_the_crawford_game_are_read():
    money = parse_xg((XG / "B4_SrGcsKAQmoTyHlgJCbM.xg").read_bytes())
    assert money.length == 0 and money.players == ("Fox", "Bluepoint02") and not money.jacoby
    assert [g.points for g in money.games] == [1, 1, 6] and money.final_score == (7, 1)
    match = parse_xg((XG / "eXBNG5wZHS5Alu3P.xg").read_bytes())
    assert match.length == 5 and [g.crawford for g in match.games] == [False, True, False]
    assert match.final_score[1] == 5  # Jade1 wins the match


def test_the_format_comes_from_the_content(tmp_path):
    renamed = tmp_path / "match.mat"
    renamed.write_bytes((XG / "B4_SrGcsKAQmoTyHlgJCbM.xg").read_bytes())
    assert read_records_file(renamed) == parse_xg(renamed.read_bytes())
    assert not is_xg((XG / "B4_SrGcsKAQmoTyHlgJCbM.mat").read_bytes())
    assert kind_of_bytes(renamed.read_bytes()) == (FileKind.XG, "")
    mat_bytes = (XG / "B4_SrGcsKAQmoTyHlgJCbM.mat").read_bytes()
    assert kind_of_bytes(mat_bytes) == (FileKind.MAT, mat_bytes.decode("utf-8"))


def test_an_illegal_recorded_play_is_refused_naming_its_game_and_record():
    with pytest.raises(InvalidXgFileError, match=r"hQ8\.xg game 2 record 186: the board after 65 is not left by a"):
        parse_xg((XG / "hQ8sVn2LbTdF4wRm.xg").read_bytes(), "hQ8.xg")


def _container(stream: bytes) -> bytes:
    """An .xg file's layout around a record stream: the magic, an 8,232-byte header without a thumbnail."""
    header = bytearray(8232)
    header[:4] = b"RGMH"
    struct.pack_into("<I", header, 20, 0)
    return bytes(header) + stream


@pytest.mark.parametrize(
    "data, message",
    [
        (b"RGMH" + bytes(100), "shorter than an .xg file's header"),
        (_container(b"not zlib at all"), "cannot be decompressed"),
        (_container(zlib.compress(bytes(2560 * (MAX_RECORDS + 1)))), f"more than {MAX_RECORDS} records"),
        (_container(zlib.compress(bytes(2560 * 3))), "no games"),  # three empty match headers
        (_container(zlib.compress(bytes(8) + b"\x01" + bytes(2551))), "no match header record"),  # a game header
        ((XG / "B4_SrGcsKAQmoTyHlgJCbM.xg").read_bytes()[:20000], "up.xg"),  # cut short
        (b"\xff\xfe not an xg file, not UTF-8", "neither an .xg file nor UTF-8 text"),
    ],
)
def test_a_damaged_or_hostile_file_is_one_error(data, message):
    with pytest.raises(InvalidXgFileError if is_xg(data) else Exception, match=message) as caught:
        read_records_bytes(data, "up.xg")
    assert "up.xg" in str(caught.value)


@pytest.mark.slow
def test_nardy_analyze_reads_an_xg_file_as_its_mat(tmp_path):
    answers = []
    for suffix in ("xg", "mat"):
        out, err = io.StringIO(), io.StringIO()
        path = XG / f"B4_SrGcsKAQmoTyHlgJCbM.{suffix}"
        assert run(["analyze", str(path), "--plies", "0", "--json"], stdout=out, stderr=err) == 0, err.getvalue()
        answers.append(json.loads(out.getvalue()))
    from_xg, from_mat = answers

    def figures(answer: dict) -> list[tuple]:
        """Every decision but its dice's order (XG stores the higher die first, its .mat as rolled; the Match ID
        holds the dice as rolled)."""
        return [
            (
                game["number"],
                game["winner"],
                game["points"],
                d["player"],
                d["kind"],
                d["position_id"],
                d.get("played"),
                d.get("best"),
                d["mark"],
                sorted(d.get("dice") or []),
                d["error"],
                d.get("luck"),
            )
            for game in answer["games"]
            for d in game["decisions"]
        ]

    assert figures(from_xg) == figures(from_mat)
    assert from_xg["players"] == from_mat["players"] and from_xg["length"] == 0
    err = io.StringIO()
    assert run(["analyze", str(XG / "hQ8sVn2LbTdF4wRm.xg")], stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue().count("\n") == 1 and "game 2 record 186" in err.getvalue()


@pytest.mark.slow
def test_post_analyze_takes_an_xg_file():
    from bot.doors.http_app import create_app

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*httpx2")
        from fastapi.testclient import TestClient
    client = TestClient(create_app(Bot.load()))
    body = (XG / "eXBNG5wZHS5Alu3P.xg").read_bytes()
    answer = client.post("/v1/analyze", params={"plies": 0}, content=body)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["length"] == 5 and len(data["games"]) == 3 and data["chart"].startswith("<svg")
    bomb = _container(zlib.compress(bytes(2560 * (MAX_RECORDS + 1))))
    answer = client.post("/v1/analyze", content=bomb, headers={"content-type": "application/octet-stream"})
    assert answer.status_code == 400 and "uploaded .xg: more than" in answer.json()["message"]
    answer = client.post(
        "/v1/analyze", content=b"\xff\xfe neither", headers={"content-type": "application/octet-stream"}
    )
    assert answer.status_code == 400 and "uploaded file: neither an .xg file nor UTF-8 text" in answer.json()["message"]
