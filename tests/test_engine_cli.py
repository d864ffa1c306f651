"""``python -m engine``: moves and show, called in-process and once through a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load_fixture
from engine.__main__ import main
from engine.board import START
from engine.render import render_board

REPO = Path(__file__).resolve().parents[1]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_opening_31(capsys):
    status, out, err = run(capsys, "moves", "4HPwATDgc/ABMA", "31")
    assert status == 0 and err == ""
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) == 16
    assert ["8/5 6/5", "sGfwATDgc/ABMA"] in rows
    assert rows[0][0] == "24/23 24/21" and rows[-1][0] == "6/2"  # highest steps first


def test_moves_match_fixture_afterstates(capsys):
    for record in load_fixture("movegen.jsonl")[:40]:
        dice = "".join(map(str, record["dice"]))
        status, out, _ = run(capsys, "moves", record["position_id"], dice, "--json")
        assert status == 0
        found = sorted(m["position_id"] for m in json.loads(out)["moves"])
        assert found == record["afterstates"], record["position_id"]


def test_moves_no_legal_play(capsys):
    assert run(capsys, "moves", "trsDAhBs2yEAWA", "64") == (0, "", "")
    status, out, _ = run(capsys, "moves", "trsDAhBs2yEAWA", "64", "--json")
    assert json.loads(out) == {"moves": []}


def test_moves_output_is_stable(capsys):
    first = run(capsys, "moves", "4HPwATDgc/ABMA", "66")
    assert first == run(capsys, "moves", "4HPwATDgc/ABMA", "66")


def test_show_forms(capsys):
    status, out, _ = run(capsys, "show", "4HPwATDgc/ABMA")
    assert status == 0 and "pips 167" in out and "money game" in out and "BAR" in out
    status, out, _ = run(capsys, "show", "4HPwATDgc/ABMA:QYkqASAAIAAA")
    assert status == 0 and "9 point match" in out and "Rolled 52" in out and "(Cube: 2)" in out
    assert "4 points" in out and "2 points" in out
    status, out, _ = run(capsys, "show", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert status == 0 and "money game (Cube: 1)" in out


def test_bad_input_is_one_line_on_stderr(capsys):
    for argv in (
        ["moves", "bad", "31"],
        ["moves", "4HPwATDgc/ABMA", "71"],
        ["show", "4HPwATDgc/ABMA:zzz"],
        ["show", "XGID=nonsense"],
    ):
        status, out, err = run(capsys, *argv)
        assert status == 2 and out == ""
        assert err.startswith("error: ") and err.count("\n") == 1, err


def test_usage_errors_exit_2(capsys):
    try:
        main(["frob"])
    except SystemExit as exit_:
        assert exit_.code == 2
    _, err = capsys.readouterr()
    assert err.startswith("error: ") and err.count("\n") == 1


def test_subprocess():
    done = subprocess.run(
        [sys.executable, "-m", "engine", "moves", "4HPwATDgc/ABMA", "62"], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0 and "13/5\t" in done.stdout
    done = subprocess.run([sys.executable, "-m", "engine", "show", "nope"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("error: Position ID 'nope'")


def test_render_board_details():
    b = START.copy()
    b[6], b[8], b[13], b[24] = 9, 0, 3, 1  # 9 on the 6 point, 1 on the bar, 1 borne off
    b[25] = 1
    b[1], b[0] = -1, -1
    text = render_board(b, dice=(6, 5), cube_value=4, cube_owner=1, score=(3, 1), match_length=5, names=("me", "you"))
    lines = text.splitlines()
    assert (
        lines[0].startswith(" +13-14-15")
        and lines[-1].startswith(" +12-11-10")
        and lines[-1].endswith("X: me (Cube: 4)")
    )
    assert "Rolled 65" in text and "5 point match" in text and "3 points" in text
    assert " 9 " in lines[7]  # count row of the 6 point, next to the middle
    assert "| X |" in lines[-2]  # the mover's bar checker, bottom row
    assert "| O |" in lines[1]  # the opponent's bar checker, top row
    pips = [line for line in lines if "pips" in line]
    assert "off 0" in pips[0] and "off 1" in pips[1]


def test_variant_takes_every_spelling_of_a_game_and_refuses_others_by_name(capsys):
    outputs = {
        spelling: run(capsys, "moves", "--variant", spelling, "24x15/24x15", "33")
        for spelling in ("long", "Long-Nardy", "longnardy")
    }
    assert len(set(outputs.values())) == 1 and outputs["long"][1].startswith("24/18(2)")
    assert run(capsys, "moves", "--variant", "bg", "4HPwATDgc/ABMA", "31") == run(
        capsys, "moves", "4HPwATDgc/ABMA", "31"
    )
    with pytest.raises(SystemExit) as done:
        main(["moves", "--variant", "chess", "4HPwATDgc/ABMA", "31"])
    assert done.value.code == 2
    _, err = capsys.readouterr()
    assert err == (
        "error: argument --variant: variant 'chess': unknown, "
        "expected backgammon (or bg, short-nardy) or long_nardy (or long, long-nardy, longnardy)\n"
    )
