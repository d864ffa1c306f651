"""Regression tests: every hostile input to a parser is one clean BackgammonError.

Each case was found by probing the public parsers; the comments group them by what they attack.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import START, read_int, validate_board, validate_dice
from engine.errors import BackgammonError, InvalidDiceError, InvalidMatchError, InvalidPositionError, quote
from engine.fibs import parse_fibs_board
from engine.match_id import MatchId, decode_match_id, encode_match_id
from engine.matfile import InvalidMatFileError, parse_mat
from engine.notation import parse_move
from engine.position_id import decode_position_id, encode_position_id
from engine.xgid import parse_xgid

XGID_START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
OWN_TURN_ROLL = (
    "board:gnubg:root:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-4:5:0:0:0:-2:-2:-5:0:0:0:0:2:0:"
    "1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)


def _fibs_with(index: int, value: str, line: str = OWN_TURN_ROLL) -> str:
    fields = line.split(":")
    fields[index] = value
    return ":".join(fields)


# ---------------------------------------------------------------- Position IDs


@pytest.mark.parametrize("text", ["AAAAAAAAAAAA==", "4HPwATDgc/AB==", "4HPwATDgc/ABM="])
def test_position_id_with_padding_is_an_error(text):
    with pytest.raises(InvalidPositionError, match="Position ID"):
        decode_position_id(text)


def test_position_id_must_be_canonical():
    # 'B' sets one of the four bits past the 80th: GNU Backgammon never writes it.
    with pytest.raises(InvalidPositionError, match="canonical"):
        decode_position_id("4HPwATDgc/ABMB")
    assert encode_position_id(decode_position_id("4HPwATDgc/ABMA")) == "4HPwATDgc/ABMA"


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize("value", [str(2**63), str(2**62), "-" + str(2**63), "9" * 5000, "\u00b2", "\u0663"])
def test_fibs_huge_or_foreign_numbers_are_errors(value):
    for index in (3, 10, 36, 52):  # match length, a board field, the cube, the last flag
        with pytest.raises(InvalidPositionError, match="not a whole number|not in"):
            parse_fibs_board(_fibs_with(index, value))


def test_fibs_checker_count_is_bounded_before_summing():
    line = _fibs_with(10, str(4_611_686_018_427_387_904))  # 2^62 checkers on a point
    with pytest.raises(InvalidPositionError, match="board field"):
        parse_fibs_board(line)


@pytest.mark.parametrize(
    "board",
    [
        np.array([2**63] + [0] * 25, dtype=object),
        np.full(26, 2**62, dtype=np.int64),
        np.array([float("inf")] * 26),
        np.array(["1"] * 26),
        np.array([True] * 26, dtype=object),
    ],
)
def test_validate_board_rejects_huge_or_odd_values(board):
    with pytest.raises(InvalidPositionError):
        validate_board(board)


@pytest.mark.parametrize(
    "dice", ["\u00b2\u00b9", "\u0663\u0661", "3", "316", (3.5, 1), (True, 1), "x1", None, (1, 2, 3)]
)
def test_bad_dice_are_our_error(dice):
    with pytest.raises(InvalidDiceError, match="dice"):
        validate_dice(dice)


def test_dice_still_read():
    assert validate_dice("31") == (3, 1) == validate_dice((np.int64(3), 1)) == validate_dice(" 31 ")


@pytest.mark.parametrize("field", [1, 5, 7, 9])  # cube, score bottom, match length, max cube
def test_xgid_huge_or_foreign_numbers_are_errors(field):
    for value in ("9" * 5000, "\u00b2", "\u0663", str(2**63)):
        parts = XGID_START.split(":")
        parts[field] = value
        with pytest.raises(InvalidPositionError, match="not a whole number|not in"):
            parse_xgid(":".join(parts))


@pytest.mark.parametrize(
    "text",
    [
        " " + "9" * 5000 + " point match\n",
        " \u0663 point match\n",
        " 3 point match\n\n Game 1\n a : " + "1" * 5000 + "   b : 0\n",
        " 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n Wins " + "1" * 5000 + " points\n",
        " 3 point match\n\n Game 1\n a : 0   b : 0\n  1)  Doubles => " + "2" * 50 + "\n",
    ],
)
def test_mat_huge_or_foreign_numbers_are_errors(text):
    with pytest.raises(InvalidMatFileError):
        parse_mat(text)


@pytest.mark.parametrize("move", ["\u00b2/\u00b9", "\u0663/\u0661", "13/7(\u0662)", "13/7(\u00b2)"])
def test_move_with_foreign_digits_is_an_error(move):
    with pytest.raises(BackgammonError, match="move"):
        parse_move(move, START, (6, 1))


def test_read_int_checks_text_first():
    assert read_int("-1", "turn", "x", -1, 1) == -1
    for text in ("+1", " 1", "1.0", "", "0x1", "1" * 10):
        with pytest.raises(InvalidPositionError):
            read_int(text, "n", "x", 0, 99)


# ---------------------------------------------------------------- impossible states


def test_both_on_the_bar_against_closed_boards():
    with pytest.raises(InvalidPositionError, match="closed boards"):
        decode_position_id("27YBAHDbtgEAcA")
    board = np.zeros(26, dtype=np.int64)
    board[1:7], board[19:25], board[25], board[0] = 2, -2, 1, -1
    with pytest.raises(InvalidPositionError, match="closed boards"):
        validate_board(board)
    board[6] = 1  # one point open: legal
    validate_board(board)


@pytest.mark.parametrize("text", ["cAkAAAAAAA==", "cAkAAAAAAA", "cAkAAAAAAAAA=", "cAkA-AAAAAAA"])
def test_short_or_non_canonical_match_id(text):
    with pytest.raises(InvalidMatchError, match="Match ID"):
        decode_match_id(text)


def test_match_id_centred_cube_above_one():
    text = encode_match_id(MatchId(cube_value=2, cube_owner=0))
    centred = format(int.from_bytes(__import__("base64").b64decode(text), "little") | 3 << 4, "b")
    bits = int(centred, 2).to_bytes(9, "little")
    with pytest.raises(InvalidMatchError, match="centred"):
        decode_match_id(__import__("base64").b64encode(bits).decode())
    with pytest.raises(InvalidMatchError, match="centred"):
        encode_match_id(MatchId(cube_value=4, cube_owner=None))


def test_match_id_cube_above_the_maximum():
    with pytest.raises(InvalidMatchError, match="4096"):
        encode_match_id(MatchId(cube_value=8192, cube_owner=0))
    bits = 13 | 0 << 4 | 1 << 8  # cube 2^13 owned by player 0, playing
    import base64

    with pytest.raises(InvalidMatchError, match="4096"):
        decode_match_id(base64.b64encode(bits.to_bytes(9, "little")).decode())


def test_match_id_crawford_without_a_side_at_length_minus_one():
    with pytest.raises(InvalidMatchError, match="Crawford"):
        encode_match_id(MatchId(match_length=7, score=(3, 4), crawford=True))
    encode_match_id(MatchId(match_length=7, score=(6, 4), crawford=True))


def test_xgid_impossible_cubes_and_crawford():
    parts = XGID_START.split(":")
    for change, reason in (
        ({1: "1"}, "centred"),
        ({1: "13", 2: "1"}, "maximum|not in"),
        ({1: "3", 2: "1", 9: "2"}, "maximum"),
        ({7: "1", 8: "7", 5: "3", 6: "4"}, "Crawford"),
    ):
        bad = list(parts)
        for index, value in change.items():
            bad[index] = value
        with pytest.raises(InvalidPositionError, match=reason):
            parse_xgid(":".join(bad))


def test_fibs_crawford_flags():
    crawford_at_0_0 = _fibs_with(52, "0")  # a 3-point match at 0-0 said to be the Crawford game
    with pytest.raises(InvalidPositionError, match="Crawford"):
        parse_fibs_board(crawford_at_0_0)
    both = _fibs_with(51, "1", _fibs_with(4, "2", crawford_at_0_0))
    with pytest.raises(InvalidPositionError, match="post-Crawford"):
        parse_fibs_board(both)
    with pytest.raises(InvalidPositionError, match="cube"):
        parse_fibs_board(_fibs_with(37, "8192"))


# ---------------------------------------------------------------- short messages


@pytest.mark.parametrize("parse", [decode_position_id, decode_match_id, parse_xgid, parse_fibs_board, validate_dice])
def test_messages_quote_at_most_a_little_of_the_input(parse):
    with pytest.raises(BackgammonError) as info:
        parse("x" * 100_000)
    assert len(str(info.value)) < 300


def test_quote():
    assert quote("abc") == "'abc'"
    assert len(quote("a" * 1000)) == 60
