"""What people read at the command line: cube verdicts in GNU Backgammon's words, the hint and rollout tables'
headers, ``--help`` and ``--version``."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import bot.doors.cli
from bot.doors.cli import package_version, run
from bot.equity.cube import VERDICT_WORDS, CubeState, Owner, Verdict, cube_decision, verdict_words

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def test_every_verdict_has_gnu_backgammons_words():
    assert {v: verdict_words(v) for v in (Verdict.NODOUBLE_TAKE, Verdict.TOOGOOD_PASS, Verdict.REDOUBLE_PASS)} == {
        Verdict.NODOUBLE_TAKE: "No double, take",
        Verdict.TOOGOOD_PASS: "Too good to double, pass",
        Verdict.REDOUBLE_PASS: "Redouble, pass",
    }
    words = [verdict_words(v) for v in Verdict]
    assert len(set(words)) == len(Verdict) and not any("_" in w for w in words)
    assert verdict_words("DOUBLE_TAKE") == "Double, take"  # the enum name as JSON carries it


@pytest.mark.parametrize(
    "probs, owner, expected",
    [
        ((0.50, 0.10, 0.0, 0.10, 0.0), Owner.CENTERED, "No double, take"),
        ((0.95, 0.60, 0.05, 0.0, 0.0), Owner.CENTERED, "Too good to double, pass"),
        ((0.85, 0.0, 0.0, 0.0, 0.0), Owner.ME, "Redouble, pass"),
    ],
)
def test_a_decision_reads_as_gnu_backgammon_writes_it(probs, owner, expected):
    board = np.zeros(26, dtype=np.int8)
    board[[6, 8, 13, 24]], board[[1, 17, 12, 19]] = [5, 3, 5, 2], [-2, -3, -5, -5]
    decision = cube_decision(board, np.array(probs), CubeState(cube=1 if owner is Owner.CENTERED else 2, owner=owner))
    assert verdict_words(decision.verdict) == expected


def cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert run(list(argv), io.StringIO(), out, err) == 0, err.getvalue()
    return out.getvalue()


def test_hint_without_dice_names_the_cube_action_in_words():
    out = cli("hint", "4HPwATDgc/ABMA:cAkAAAAAAAAA")
    action = next(line for line in out.splitlines() if line.startswith("Proper cube action: "))
    assert action.removeprefix("Proper cube action: ") in set(VERDICT_WORDS.values())
    assert "_" not in out


def test_hint_rows_say_their_depth_and_rank_by_value_within_it():
    out = cli("hint", "4HPwATDgc/ABMA", "31", "--plies", "2", "--top", "6")
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if "Equity" in line)
    assert header + 1 < len(lines) and lines[header].split()[-1] == "Ply"
    groups: list[list[float]] = [[]]
    depths = []
    for line in lines[header + 1 :]:
        if line.strip().startswith("(below: "):  # the 2-ply filter keeps at most two of the six
            assert "1-ply only" in line and "2-ply search" in line
            groups.append([])
            continue
        words = line.split()
        groups[-1].append(float(words[-7]))  # the equity: the last seven columns are diff, five probabilities, ply
        depths.append(int(words[-1]))
    assert len(groups) == 2 and depths == sorted(depths, reverse=True) and depths[0] == 2 and depths[-1] == 1
    assert all(group == sorted(group, reverse=True) for group in groups)


def test_rollout_table_has_a_header_over_the_probabilities():
    fast = ["--trials", "36", "--truncate", "2", "--seed", "3"]
    lines = cli("rollout", "4HPwATDgc/ABMA", "31", "--candidates", "2", *fast).splitlines()
    header = next(line for line in lines if "Equity" in line)
    assert header.split() == ["Play", "Equity", "+-", "Diff", *"Win W g W bg L g L bg".split()]
    first = lines[lines.index(header) + 1]
    assert first.split()[0] == "1." and all(re.fullmatch(r"[+-]?\d\.\d{3}", w) for w in first.split()[-8:])
    assert lines[lines.index(header) + 2].split()[0] == "+-"  # the standard errors under the probabilities
    cube = cli("rollout", "4HPwATDgc/ABMA", "--cubeful", *fast)
    action = next(line for line in cube.splitlines() if line.startswith("Proper cube action: "))
    assert action.removeprefix("Proper cube action: ") in set(VERDICT_WORDS.values())
    assert "Win    W g" in cube


def test_cube_prints_words_and_keeps_enum_names_in_json():
    text = cli("cube", "4HPwATDgc/ABMA", "--matrix", "2")
    money = text.split("Money:\n", 1)[1].splitlines()
    assert [line.split("  ")[1].strip() for line in money] == ["centred", "centred, Jacoby", "owned (cube 2)"]
    assert any("No redouble" in line or "redouble," in line for line in money)
    assert "D/T: double, take" in text or "D/P: double, pass" in text  # the matrix's labels explained
    data = json.loads(cli("cube", "4HPwATDgc/ABMA", "--json"))
    assert {(c["verdict"], c["action"]) for c in data["money"]} <= {(v.value, w) for v, w in VERDICT_WORDS.items()}


def test_help_names_the_web_board_and_long_nardy_and_version_prints_the_package_version(capsys):
    assert run(["--help"]) == 0  # argparse prints to the process's stdout
    text = " ".join(capsys.readouterr().out.split())
    assert "long nardy" in text and "web board" in text and "TD-Gammon" not in text
    assert "serve the web board" in text
    assert run(["--version"]) == 0
    assert capsys.readouterr().out == f"nardy {package_version()}\n"
    assert re.fullmatch(r"\d+\.\d+(\.\d+)?\S*( \(source checkout\))?", package_version())


def test_version_in_a_source_checkout_comes_from_pyproject(monkeypatch):
    import importlib.metadata

    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    pyproject = Path(bot.doors.cli.__file__).resolve().parents[2] / "pyproject.toml"
    expected = tomllib.loads(pyproject.read_text())["project"]["version"]
    assert package_version() == f"{expected} (source checkout)"


def test_long_nardy_hint_rows_say_their_depth_too():
    lines = cli("hint", "--variant", "long", "AKBAX/wCACi/+", "41", "--plies", "2", "--top", "14").splitlines()
    header = next(i for i, line in enumerate(lines) if "Equity" in line)
    assert lines[header].split()[-6:] == ["Win", "W", "mars", "L", "mars", "Ply"]  # no backgammons
    notes = [line for line in lines[header + 1 :] if line.strip().startswith("(below: ")]
    depths = [int(line.split()[-1]) for line in lines[header + 1 :] if line not in notes]
    assert depths[0] == 2 and depths == sorted(depths, reverse=True) and len(depths) == 14
    # of the 14 plays those within 0.16 of the best go to 1-ply (long nardy's window), and fewer to 2-ply
    assert notes == [
        "     (below: 1-ply only, kept out of the 2-ply search by its move filter)",
        "     (below: 0-ply only, kept out of the 1-ply search by its move filter)",
    ]
