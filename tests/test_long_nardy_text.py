"""Long nardy position text (``24x15/24x15``) and ``python -m engine moves --variant long``.

Each case of docs/long_nardy_rules.md that has a position and a roll is run through the
command line, written as position text (the side to move first, each side in its own
numbering), and the plays and afterstates it prints are compared with the case. The
rules themselves are tested on boards in tests/test_long_nardy_rules.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.__main__ import main
from engine.errors import InvalidPositionError
from engine.long_nardy import (
    START,
    LongPosition,
    decode_long_position_id,
    encode_long_position_id,
    flip,
    format_long_text,
    legal_plays,
    parse_long_text,
)
from engine.long_nardy.position import is_long_text

REPO = Path(__file__).resolve().parents[1]
START_TEXT = "24x15/24x15"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``python -m engine ARGV``, in-process."""
    try:
        status = main(list(argv))
    except SystemExit as exit_:  # argparse's usage errors
        status = exit_.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    return status, out, err


def long_moves(capsys, position: str, dice: str, *options: str) -> dict[str, str]:
    """{play: position text after it} printed by ``moves --variant long --json``."""
    status, out, err = run(capsys, "moves", "--variant", "long", position, dice, "--json", *options)
    assert status == 0 and err == "", err
    rows = [json.loads(line) for line in out.splitlines()]
    assert all(set(row) == {"play", "after"} for row in rows)
    found = {row["play"]: row["after"] for row in rows}
    assert len(found) == len(rows) == len(set(found.values())), "each distinct play once"
    return found


def holds(after: str, points: list[int]) -> bool:
    """Whether the mover (written first) holds every point of ``points`` in the position text ``after``."""
    b = parse_long_text(after)
    return all(b[p] > 0 for p in points)


# ------------------------------------------------------------ the cases of docs/long_nardy_rules.md on the command line

CASES = [
    ("E1", START_TEXT, "66", {"24/18(2)": "24x13,18x2/24x15"}),
    ("E2", START_TEXT, "44", {"24/16(2)": "24x13,16x2/24x15"}),
    ("E3", START_TEXT, "33", {"24/18(2)": "24x13,18x2/24x15", "24/15 24/21": "24x13,21x1,15x1/24x15"}),
    ("E4-11", START_TEXT, "11", {"24/20": "24x14,20x1/24x15"}),
    ("E4-22", START_TEXT, "22", {"24/16": "24x14,16x1/24x15"}),
    ("E4-55", START_TEXT, "55", {"24/4": "24x14,4x1/24x15"}),
    ("E5", "24x14,18x1/24x15", "66", {"24/18": "24x13,18x2/24x15"}),
    ("E6", START_TEXT, "31", {"24/20": "24x14,20x1/24x15"}),
    ("E12", "13x1/18x15", "61", {"13/7": "7x1/18x15"}),  # the opponent holds the mover's 6 (its own 18)
    ("E13", "9x1/16x7,13x8", "53", {"9/6": "6x1/16x7,13x8"}),  # ... the mover's 1 and 4
    ("E14", "6x15/1x15", "65", {"6/1 6/off": "6x13,1x1/1x15"}),
    ("E16", "6x2/1x15", "33", {"6/off(2)": "/1x15"}),  # 6/3(2) 3/off(2)
    ("E17", "8x1,6x14/1x15", "62", {"8/2 6/4": "6x13,4x1,2x1/1x15", "8/off": "6x14/1x15"}),  # 8/6 6/off is 8/off
    ("E19", "6x1/1x15", "21", {"6/3": "3x1/1x15"}),
]


@pytest.mark.parametrize("position, dice, expected", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_case_plays_and_afterstates(capsys, position, dice, expected):
    assert long_moves(capsys, position, dice) == expected
    # The afterstates are the rules engine's, in the mover's view.
    board = LongPosition.from_id(position).board
    assert sorted(expected.values()) == sorted(format_long_text(p.afterstate) for p in legal_plays(board, dice))


def test_e8_block_11_to_6_cli():
    wall = "24x9,11x1,10x1,9x1,8x1,7x1,6x1"
    with pytest.raises(InvalidPositionError, match="side on roll holds a six-point block"):
        LongPosition.from_id(f"{wall}/24x15")
    LongPosition.from_id(f"{wall}/24x14,17x1")  # one opponent checker on the mover's 5 (its own 17)


def test_e8_the_move_completing_the_block_is_refused_until_a_checker_is_past(capsys):
    before = "24x9,13x1,10x1,9x1,8x1,7x1,6x1"
    trapped = long_moves(capsys, f"{before}/24x15", "21")
    assert trapped and not any(holds(after, list(range(6, 12))) for after in trapped.values())
    free = long_moves(capsys, f"{before}/24x14,17x1", "21")
    assert any(holds(after, list(range(6, 12))) for after in free.values())


def test_e10_block_across_the_seam(capsys):
    status, _, err = run(capsys, "moves", "--variant", "long", "24x10,23x1,22x1,3x1,2x1,1x1/24x15", "25")
    assert status == 2 and "side on roll holds a six-point block" in err
    found = long_moves(capsys, "24x10,23x1,20x1,3x1,2x1,1x1/24x15", "25")
    assert found and not any(holds(after, [3, 2, 1, 24, 23, 22]) for after in found.values())


def test_an_opponent_block_is_refused_too():
    with pytest.raises(InvalidPositionError, match="opponent holds a six-point block"):
        LongPosition.from_id("24x15/24x10,23x1,22x1,3x1,2x1,1x1")


def test_the_second_side_sees_the_first_sides_55_from_its_side(capsys):
    (after,) = long_moves(capsys, START_TEXT, "55").values()
    assert after == "24x14,4x1/24x15"  # the mover's view: the side that played first
    assert LongPosition.from_id(after).flipped().text == "24x15/24x14,4x1"


def test_readable_list_and_id_input(capsys):
    status, out, _ = run(capsys, "moves", "--variant", "long", START_TEXT, "33")
    assert status == 0 and out == "24/18(2)     24x13,18x2/24x15\n24/15 24/21  24x13,21x1,15x1/24x15\n"
    assert run(capsys, "moves", "--variant", "long", "AAAB//wAAAP/+", "33") == (0, out, "")
    assert long_moves(capsys, START_TEXT, "33", "--head-doubles", "46") == {"24/15": "24x14,15x1/24x15"}


def test_a_roll_that_cannot_be_played_prints_nothing(capsys):
    assert run(capsys, "moves", "--variant", "long", "13x1/24x1,23x7,19x7", "61") == (0, "", "")  # 13/7, 13/12 closed
    assert run(capsys, "moves", "--variant", "long", "13x1/24x1,23x7,19x7", "61", "--json") == (0, "", "")


def test_long_nardy_moves_reads_position_text(capsys):
    from_id = run(capsys, "long-nardy", "moves", "AAAB//wAAAP/+", "33")
    assert run(capsys, "long-nardy", "moves", START_TEXT, "33") == from_id
    status, out, _ = run(capsys, "long-nardy", "show", "24x14,4x1/24x15")
    assert status == 0 and "pips 340, off 0" in out


# ------------------------------------------------------------------ round trips


CANONICAL = [
    START_TEXT,
    "24x14,4x1/24x15",
    "24x15/24x14,4x1",
    "24x9,13x1,10x1,9x1,8x1,7x1,6x1/24x14,17x1",
    "6x13,1x1/1x15",
    "/1x15",
    "3x1/",
    "20x3,12x2,11x1,5x4,1x5/22x1,19x2,10x3,2x1",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_text_board_text_and_text_id_text(text):
    board = parse_long_text(text)
    assert format_long_text(board) == text
    position = LongPosition.from_id(text)
    assert np.array_equal(position.board, board) and position.text == text
    assert LongPosition.from_id(position.id) == position
    assert format_long_text(decode_long_position_id(position.id)) == text
    assert position.flipped().text == "/".join(reversed(text.split("/")))


def test_reading_is_lenient_writing_is_canonical():
    assert format_long_text(parse_long_text(" 4x1 , 24X14 /24x15 ")) == "24x14,4x1/24x15"
    assert format_long_text(START) == START_TEXT
    assert encode_long_position_id(parse_long_text(START_TEXT)) == "AAAB//wAAAP/+"


def test_text_and_ids_are_told_apart():
    for text in ("24x15/24x15", "/", "24x15/24-15", "024x015/24x15"):
        assert is_long_text(text), text
    for position_id in ("AAAB//wAAAP/+", "AAAB//wgAAH/+", "/////////////", "4HPwATDgc/ABMA", "bad"):
        assert not is_long_text(position_id), position_id
    assert LongPosition.from_id("024x015/24x15").text == START_TEXT


def test_round_trips_over_random_games():
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(2):
        board = START.copy()
        for _ in range(120):
            text = format_long_text(board)
            assert np.array_equal(parse_long_text(text), board)
            assert LongPosition.from_id(encode_long_position_id(board)).text == text == LongPosition.from_id(text).text
            seen += 1
            plays = legal_plays(board, rng.integers(1, 7, size=2).tolist())
            board = flip(plays[rng.integers(len(plays))].afterstate)
            if not np.any(board < 0) or not np.any(board > 0):  # a side has borne off all fifteen
                break
    assert seen > 100


# ------------------------------------------------------------------ bad input: one error line, status 2

BAD = [
    ("24x10,1x6/24x15", "the side on roll has 16 checkers, at most 15"),
    ("24x15/24x16", "16 checkers on the opponent's point 24"),
    ("24x15/12x1,24x14", "both sides have checkers on the side on roll's point 24 (the opponent's 12)"),
    ("24x9,11x1,10x1,9x1,8x1,7x1,6x1/24x15", "six-point block"),
    ("24x15", "expected the side to move, '/', then the other side"),
    ("24x15/24x15/1x1", "expected the side to move"),
    ("24x15,/24x15", "'' is not 'point x count'"),
    ("24x15/24-15", "'24-15' is not 'point x count'"),
    ("25x1/24x15", "point 25 of the side on roll is not 1..24"),
    ("24x0/24x15", "0 checkers on the side on roll's point 24"),
    ("24x1,24x14/24x15", "the side on roll's point 24 is listed twice"),
    ("4HPwATDgc/ABMA", "long nardy Position ID"),
]


@pytest.mark.parametrize("position, message", BAD, ids=[bad[0] for bad in BAD])
def test_bad_positions_are_one_error_line(capsys, position, message):
    status, out, err = run(capsys, "moves", "--variant", "long", position, "31")
    assert status == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err
    with pytest.raises(InvalidPositionError):
        LongPosition.from_id(position)


def test_a_number_of_thousands_of_digits_is_one_error_line(capsys):
    status, out, err = run(capsys, "moves", "--variant", "long", "9" * 5000 + "x1/24x15", "31")
    assert status == 2 and out == "" and err.startswith("error: ") and "is not 'point x count'" in err


def test_bad_dice_and_options_are_one_error_line(capsys):
    for argv in (
        ["moves", "--variant", "long", START_TEXT, "71"],
        ["moves", "--variant", "long", START_TEXT, "31", "--head-doubles", "7"],
        ["moves", "--variant", "chess", START_TEXT, "31"],
        ["moves", "4HPwATDgc/ABMA", "31", "--block-check", "turn"],
    ):
        status, out, err = run(capsys, *argv)
        assert status == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, argv


def test_subprocess():
    done = subprocess.run(
        [sys.executable, "-m", "engine", "moves", "--variant", "long", START_TEXT, "64", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and json.loads(done.stdout) == {"play": "24/14", "after": "24x14,14x1/24x15"}
    done = subprocess.run(
        [sys.executable, "-m", "engine", "moves", "--variant", "long", "24x16/24x15", "64"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stderr.startswith("error: long nardy position text '24x16/24x15'")
