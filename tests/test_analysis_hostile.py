"""Hostile match files against `POST /v1/analyze` and `nardy analyze`: floods of empty games, deep nesting,
names outside the Basic Multilingual Plane, an output file that cannot be written whole.

Each is a clear 4xx (one `error:` line and exit 2 on the command line) naming the bound it passed, read in the
heavy-work queue so that it never starves a normal request. Servers listen on 127.0.0.1 only.
"""

from __future__ import annotations

import errno
import io
import json
import struct
import threading
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.doors import analysis_views
from bot.doors.analysis_views import MAX_SGF_BYTES, MAX_UPLOAD_GAMES, check_upload, read_upload
from bot.doors.cli import run
from bot.doors.http_app import create_app
from bot.doors.http_limits import Limits
from bot.search.cancel import Cancelled, cancel_on
from conftest import tiny_bot
from engine.matchfiles import MAX_FILE_BYTES, read_records_bytes
from engine.matfile import MAX_DEPTH, MAX_GAMES, FileBoundError, clean_name, format_mat
from engine.sgf import parse_sgf
from engine.xgfile import parse_xg
from test_analysis import session
from test_http_limits import running

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    import httpx
    from fastapi.testclient import TestClient

XG = Path(__file__).parent / "data" / "xg"
# The flood of the report: 170,000 empty games, 510 KB.
FLOOD = b"(;)" * 170_000
FOX = "Fox \U0001f98a"  # an emoji: a surrogate pair in XG's UTF-16


def _nested(depth: int) -> str:
    """A game whose main line runs through ``depth`` variations, each in the one before."""
    return "(;FF[4]GM[6]MI[length:0]" + "(;" * depth + "W[52mhmk]" + ")" * depth + ")"


def _xg_named(player1: str) -> bytes:
    """The money session of tests/data/xg with its first player's name (XG's UTF-16 field) replaced."""
    data = (XG / "B4_SrGcsKAQmoTyHlgJCbM.xg").read_bytes()
    start = 8232 + struct.unpack_from("<I", data, 20)[0]
    records = bytearray(zlib.decompress(data[start:]))
    assert records[8] == 0, "the first record is the match header"
    name = player1.encode("utf-16-le", "surrogatepass") + b"\0\0"
    records[880 : 880 + len(name)] = name
    return data[:start] + zlib.compress(bytes(records))


def _xg_games(games: int) -> bytes:
    """An .xg holding a match header and ``games`` empty games (one header record each)."""
    game = bytearray(2560)
    game[8] = 1
    header = bytearray(8232)
    header[:4] = b"RGMH"
    return bytes(header) + zlib.compress(bytes(2560) + bytes(game) * games)


def _mat_games(games: int) -> bytes:
    """A .mat of ``games`` games without a move."""
    lines = [" 0 point match", ""]
    for k in range(1, games + 1):
        lines += [f" Game {k}", " Alice : 0                      Bob : 0", ""]
    return "\n".join(lines).encode()


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(tiny_bot(3)), raise_server_exceptions=False)


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(["analyze", *args], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------- floods of games


def test_the_flood_of_empty_games_is_refused_naming_the_bound(client):
    answer = client.post("/v1/analyze", content=FLOOD, headers={"content-type": "text/plain"})
    assert answer.status_code == 400
    assert answer.json()["message"] == (
        f"uploaded .sgf: more than {MAX_UPLOAD_GAMES} games: at most {MAX_UPLOAD_GAMES} are analysed "
        "at 0-ply within this server's limits"
    )


@pytest.mark.parametrize("body", [_mat_games(MAX_UPLOAD_GAMES + 1), _xg_games(MAX_UPLOAD_GAMES + 1)])
def test_every_format_is_bounded_by_its_games(client, body):
    answer = client.post("/v1/analyze", content=body, headers={"content-type": "application/octet-stream"})
    assert answer.status_code == 400 and f"more than {MAX_UPLOAD_GAMES} games" in answer.json()["message"]
    assert client.post("/v1/analyze", content=_mat_games(MAX_UPLOAD_GAMES)).status_code == 200


def test_reading_stops_at_the_bound_not_at_the_end():
    """Whatever follows the game past the bound is never read: here, a syntax error."""
    with pytest.raises(FileBoundError, match=f"more than {MAX_GAMES} games"):
        parse_sgf("(;)" * (MAX_GAMES + 1) + "nonsense")
    flood = check_upload(b"(;)" * (MAX_UPLOAD_GAMES + 1) + b"nonsense", 1)
    with pytest.raises(FileBoundError, match=f"more than {MAX_UPLOAD_GAMES} games: at most {MAX_UPLOAD_GAMES} are"):
        read_upload(flood, Limits())
    with pytest.raises(FileBoundError, match=r"more than \d+ SGF nodes"):
        read_upload(check_upload(b"(;" + b";" * (MAX_SGF_BYTES - 4) + b")", 0), Limits())


@pytest.mark.parametrize(
    "body, message",
    [
        (b"(;" + b"PW[]" * 130_000 + b")", "line 1: more than 100 properties in a node: at most 100 are read"),
        (b"(;FF[4]GM[6]PW" + b"[]" * 255_000 + b")", "line 1: property PW has 255000 values: at most 25 are read"),
        (b"(;GM[6]\n;AE" + b"[a:y]" * 100_000 + b")", "line 2: property AE has 100000 values: at most 25 are read"),
    ],
)
def test_one_node_cannot_hold_the_whole_upload(client, body, message):
    answer = client.post("/v1/analyze", content=body, headers={"content-type": "text/plain"})
    assert answer.status_code == 400 and answer.json()["message"] == f"uploaded .sgf {message}"


def test_actions_past_the_work_limit_are_refused_as_they_are_read(client):
    small = TestClient(create_app(tiny_bot(3), Limits(max_work=8 * 3)), raise_server_exceptions=False)
    answer = small.post("/v1/analyze", content=format_mat(session()).encode())
    assert answer.status_code == 400
    assert "more than 3 actions (plays, doubles, takes and passes)" in answer.json()["message"]


def test_an_upload_is_read_inside_the_heavy_queue():
    """With no room in the queue, even a damaged file is answered 503: it was not parsed before queueing."""
    full = TestClient(create_app(tiny_bot(3), Limits(heavy_queue=0)), raise_server_exceptions=False)
    answer = full.post("/v1/analyze", content=b"(;FF[4]GM[7])", headers={"content-type": "text/plain"})
    assert answer.status_code == 503 and "Retry-After" in answer.headers


def test_reading_stops_when_the_request_is_cancelled():
    event = threading.Event()
    event.set()
    upload = check_upload((XG / "eXBNG5wZHS5Alu3P.xg").read_bytes(), 0)
    with cancel_on(event), pytest.raises(Cancelled):
        read_upload(upload, Limits())
    assert read_upload(upload, Limits()).length == 5  # the same file, not cancelled


@pytest.mark.slow
def test_floods_at_once_do_not_starve_a_normal_request():
    with running(tiny_bot(3), Limits()) as (url, _):

        def post(body: bytes) -> httpx.Response:
            return httpx.post(f"{url}/v1/analyze", content=body, timeout=120)

        normal = format_mat(session()).encode()
        with ThreadPoolExecutor(9) as pool:
            floods = [pool.submit(post, FLOOD) for _ in range(8)]
            answer = pool.submit(post, normal).result(timeout=120)
            refused = [future.result(timeout=120) for future in floods]
        assert answer.status_code == 200, answer.text
        assert [p["name"] for p in answer.json()["players"]] == ["Alice", "Bob"]
        assert {r.status_code for r in refused} == {400}
        assert all("games" in r.json()["message"] for r in refused)


def test_the_command_line_refuses_the_flood_in_one_line(tmp_path):
    path = tmp_path / "flood.sgf"
    path.write_bytes(FLOOD)
    status, out, err = _cli(str(path), "--plies", "0")
    assert (status, out) == (2, "")
    assert err == f"error: {path}: more than {MAX_GAMES} games: at most {MAX_GAMES} are read from one file\n"


def test_the_command_line_refuses_a_file_too_big_to_read(tmp_path):
    path = tmp_path / "huge.mat"
    with path.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    status, _, err = _cli(str(path))
    assert status == 2 and err.count("\n") == 1 and f"over {MAX_FILE_BYTES} bytes" in err


# ---------------------------------------------------------------- nesting


def test_deep_nesting_is_refused_naming_the_bound(client):
    answer = client.post("/v1/analyze", content=_nested(1000).encode(), headers={"content-type": "text/plain"})
    assert answer.status_code == 400
    assert f"variations nested more than {MAX_DEPTH} deep" in answer.json()["message"]


def test_nesting_costs_no_recursion():
    with pytest.raises(FileBoundError, match=f"nested more than {MAX_DEPTH} deep"):
        parse_sgf(_nested(200_000))
    match = parse_sgf(_nested(MAX_DEPTH - 1))  # within the bound: the main line runs through every variation
    assert [a.move for a in match.games[0].actions] == ["13/8 13/11"]


def test_the_command_line_refuses_deep_nesting_in_one_line(tmp_path):
    path = tmp_path / "deep.sgf"
    path.write_text(_nested(1000))
    status, out, err = _cli(str(path), "--plies", "0")
    assert (status, out) == (2, "") and err.startswith("error: ") and err.count("\n") == 1
    assert f"nested more than {MAX_DEPTH} deep" in err


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(
    "raw, clean",
    [
        (FOX, FOX),
        ("Fox \ud83e\udd8a", FOX),  # the surrogate pair of UTF-16 code units, as gammonview gives it
        ("Fox \ud83e", "Fox \ufffd"),  # a lone surrogate
        ("Ev\x1b[31mil\x00 \u202eeno", "Ev [31mil eno"),  # a terminal escape, a NUL, a right-to-left override
        ("Game 1: x" + "y" * 100, "Game_1 x" + "y" * 56),
    ],
)
def test_names_are_cleaned_for_every_output(raw, clean):
    assert clean_name(raw) == clean
    clean.encode("utf-8")


def test_an_xg_name_outside_the_basic_plane_is_analysed(client):
    body = _xg_named("Fox \U0001f98a")
    assert parse_xg(body).players[0] == FOX
    answer = client.post("/v1/analyze", content=body, headers={"content-type": "application/octet-stream"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["players"][0]["name"] == FOX
    answer = client.post("/v1/analyze", content=_xg_named("Fox \ud83e"))
    assert answer.status_code == 200 and answer.json()["players"][0]["name"] == "Fox \ufffd"


@pytest.mark.parametrize(
    "body",
    [
        f"(;FF[4]GM[6]CA[UTF-8]MI[length:0]PW[{FOX}]PB[Bob];W[52mhmk])".encode(),
        format_mat(session()).replace("Alice", FOX).encode(),
    ],
)
def test_text_formats_keep_names_outside_the_basic_plane(client, body):
    assert read_records_bytes(body).players[0] == FOX  # type: ignore[union-attr]
    answer = client.post("/v1/analyze", content=body, headers={"content-type": "text/plain"})
    assert answer.status_code == 200 and answer.json()["players"][0]["name"] == FOX


@pytest.mark.slow
def test_the_command_line_writes_an_emoji_name_everywhere(tmp_path):
    path, page, sgf = tmp_path / "fox.xg", tmp_path / "fox.html", tmp_path / "fox.sgf"
    path.write_bytes(_xg_named("Fox \U0001f98a"))
    status, out, err = _cli(str(path), "--plies", "0", "--json", "--html", str(page), "--sgf", str(sgf))
    assert status == 0, err
    assert json.loads(out)["players"][0]["name"] == FOX
    assert f"<h1>{FOX} vs Bluepoint02</h1>" in page.read_text(encoding="utf-8")
    assert f"PW[{FOX}]" in sgf.read_text(encoding="utf-8")
    latin1 = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    assert run(["analyze", str(path), "--plies", "0"], stdout=latin1, stderr=io.StringIO()) == 0
    latin1.flush()
    assert "Fox ?" in latin1.buffer.getvalue().decode("latin-1")  # type: ignore[attr-defined]


# ---------------------------------------------------------------- whole output files


@pytest.mark.slow
def test_html_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    from bot.evaluation import storage

    match, page = tmp_path / "m.mat", tmp_path / "m.html"
    match.write_text(format_mat(session()))
    page.write_text("the earlier report")

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(storage.os, "fsync", disk_full)
    status, _, err = _cli(str(match), "--plies", "0", "--html", str(page))
    assert status == 2 and err.startswith("error: ") and "No space left" in err and err.count("\n") == 1
    assert page.read_text() == "the earlier report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.html", "m.mat"]  # no temporary left
    monkeypatch.undo()
    assert _cli(str(match), "--plies", "0", "--html", str(page))[0] == 0
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_views_and_bounds_agree():
    """The documented bounds are the ones the reader applies at each depth."""
    bounds = [analysis_views.upload_bounds(check_upload(b"(;)", plies), Limits()) for plies in (0, 1)]
    assert [(b.games, b.actions) for b in bounds] == [(MAX_UPLOAD_GAMES, 1260), (MAX_UPLOAD_GAMES, 315)]
