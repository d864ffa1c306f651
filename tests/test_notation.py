"""Move notation: GNU Backgammon's format, and typed moves read back to legal plays."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import load_fixture
from engine.board import START
from engine.errors import IllegalMoveError, InvalidMoveError
from engine.notation import format_play, parse_move
from engine.plays import Play, Step, legal_plays
from engine.position_id import decode_position_id


def board(points: dict[int, int]) -> np.ndarray:
    b = np.zeros(26, dtype=np.int8)
    for p, n in points.items():
        b[p] = n
    return b


# Mover: one on the bar, 24, 13, 8, 6; opponent blots on 22 and 20, blocks on 19, 17, 12.
BAR_BOARD = board({25: 1, 24: 1, 13: 5, 8: 3, 6: 5, 19: -5, 12: -5, 17: -3, 20: -1, 22: -1})
HOME_BOARD = board({8: 1, 6: 4, 5: 5, 4: 5, 20: -2, 22: -13})


def notations(b, dice) -> set[str]:
    return {format_play(p) for p in legal_plays(b, dice)}


def test_opening_rolls_as_gnubg_prints_them():
    # Checked by hand against GNU Backgammon 1.07's hint list.
    assert notations(START, "31") >= {"8/5 6/5", "24/23 24/21", "13/10 6/5", "24/20", "13/9"}
    assert notations(START, "66") >= {"24/18(2) 13/7(2)", "13/7(4)", "24/18 13/7 8/2(2)", "13/7(2) 8/2(2)"}
    assert notations(START, "11") >= {"8/7(2) 6/5(2)", "24/23 6/5(3)", "6/5(4)", "8/6 8/7(2)"}
    assert "13/5" in notations(START, "62") and "24/16" in notations(START, "62")


def test_format_hits_bar_and_off():
    assert format_play(Play((Step(25, 22, True),), BAR_BOARD.copy())) == "bar/22*"
    assert format_play(Play((Step(13, 7, True), Step(7, 5, False)), START.copy())) == "13/7*/5"
    assert format_play(Play((Step(13, 11, False), Step(11, 5, False)), START.copy())) == "13/5"
    assert format_play(Play((Step(6, 0, False), Step(6, 0, False)), START.copy())) == "6/off(2)"
    # A blot hit once: the star is written once even when two checkers land there.
    two = (Step(8, 5, True), Step(6, 5, False))
    assert format_play(Play(two, START.copy())) == "8/5* 6/5"
    assert format_play(Play((), START.copy())) == ""


@pytest.mark.parametrize(
    "text, b, dice, expected",
    [
        # From the start: any order, chained or split steps, dashes, commas and (n) come out one way.
        ("8/5 6/5", START, "31", "8/5 6/5"),
        ("6/5 8/5", START, "31", "8/5 6/5"),
        ("13/7/5", START, "62", "13/5"),
        ("13/7 7/5", START, "62", "13/5"),
        ("13/11 11/5", START, "62", "13/5"),
        ("13/5", START, "62", "13/5"),
        ("24-18 13-11", START, "62", "24/18 13/11"),
        ("24/18, 13/11", START, "62", "24/18 13/11"),
        ("13/7(2) 8/2(2)", START, "66", "13/7(2) 8/2(2)"),
        ("13/7 13/7 8/2 8/2", START, "66", "13/7(2) 8/2(2)"),
        ("8/2(2) 13/7(2)", START, "66", "13/7(2) 8/2(2)"),
        ("24/21 24/23", START, "31", "24/23 24/21"),
        # From the bar, with hits marked or not.
        ("bar/22 24/23", BAR_BOARD, "31", "bar/22* 24/23"),
        ("25/22* 24/23", BAR_BOARD, "31", "bar/22* 24/23"),
        ("BAR/22 24/23", BAR_BOARD, "31", "bar/22* 24/23"),
        ("bar/21/20", BAR_BOARD, "41", "bar/20*"),
        ("bar/24 24/20*", BAR_BOARD, "41", "bar/20*"),
        ("bar/21 21/20", BAR_BOARD, "41", "bar/20*"),
    ],
)
def test_parse_reads_back_to_gnubg_notation(text, b, dice, expected):
    assert format_play(parse_move(text, b, dice)) == expected


def test_intermediate_hit_chooses_the_path():
    b = board({13: 1, 7: -1, 1: -14})
    assert format_play(parse_move("13/7/5", b, "62")) == "13/7*/5"
    assert format_play(parse_move("13/7*/5", b, "62")) == "13/7*/5"
    assert format_play(parse_move("13/11/5", b, "62")) == "13/5"
    assert format_play(parse_move("13/5", b, "62")) == "13/5"
    b[11] = -1
    b[1] += 1
    with pytest.raises(IllegalMoveError, match="ambiguous"):
        parse_move("13/5", b, "62")


def test_bear_off():
    assert format_play(parse_move("6/off 6/off", board({6: 2, 20: -2}), "66")) == "6/off(2)"
    assert format_play(parse_move("6/0(2)", board({6: 2, 20: -2}), "66")) == "6/off(2)"
    assert format_play(parse_move("4/off 2/off", board({4: 1, 2: 1, 20: -2}), "65")) == "4/off 2/off"


@pytest.mark.parametrize(
    "text, b, dice, reason",
    [
        ("24/21 13/12", BAR_BOARD, "31", "must enter from the bar first"),
        ("bar/22*", BAR_BOARD, "31", "both dice must be played"),
        ("25/22 13/12", BAR_BOARD, "31", "point 12 is blocked"),
        ("bar/19", BAR_BOARD, "61", "point 19 is blocked"),
        ("13/11", START, "62", "both dice must be played"),
        ("8/2 8/2", START, "66", "4 dice must be played"),
        ("7/1", START, "61", "no checker on 7"),
        ("11/5", START, "61", "no checker on 11"),
        ("13/7/1", START, "66", "point 1 is blocked"),
        ("6/off 5/off", HOME_BOARD, "66", "cannot bear off: checkers outside the home board"),
        ("13/9", START, "62", "does not make these moves"),
        ("", START, "21", "no move given"),
    ],
)
def test_illegal_moves_say_why(text, b, dice, reason):
    with pytest.raises(IllegalMoveError, match=reason) as info:
        parse_move(text, b, dice)
    assert repr(text) in str(info.value)


def test_larger_die_must_be_played():
    b = board({20: 1, 9: -2, 10: -2, 1: -11})
    with pytest.raises(IllegalMoveError, match="larger die"):
        parse_move("20/15", b, "65")
    assert format_play(parse_move("20/14", b, "65")) == "20/14"


@pytest.mark.parametrize("text", ["foo", "13/30", "off/5", "13/15", "13/11(7)", "13//11", "/13", "13/", "6/bar"])
def test_unreadable_moves(text):
    with pytest.raises(InvalidMoveError) as info:
        parse_move(text, START, "21")
    assert repr(text) in str(info.value)


def test_no_legal_play_is_the_empty_move():
    b = board({25: 1, 24: 2, 19: -2, 20: -2, 21: -2, 22: -2, 23: -2, 18: -5})
    assert parse_move("", b, "65").steps == ()
    with pytest.raises(IllegalMoveError, match="cannot be played"):
        parse_move("bar/19", b, "65")


@pytest.mark.slow
def test_round_trip_on_fixtures():
    """Every play's notation, and every play written step by step, reads back to that play."""
    for record in load_fixture("movegen.jsonl")[:250]:
        b = decode_position_id(record["position_id"])
        for play in legal_plays(b, record["dice"]):
            if not play.steps:
                continue
            steps = " ".join(f"{s.src}/{s.dst}{'*' if s.hit else ''}" for s in play.steps)
            for text in (format_play(play), steps):
                back = parse_move(text, b, record["dice"])
                assert np.array_equal(back.afterstate, play.afterstate), (
                    f"{record['position_id']} {record['dice']} {text!r}"
                )
