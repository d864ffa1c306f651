"""Property-based tests of every parser and round trip (hypothesis), bounded to a few seconds in all.

Any text a parser is given either reads or raises a BackgammonError (never another
exception); what a formatter writes reads back to the same value.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import validate_board
from engine.errors import BackgammonError
from engine.fibs import FibsBoard, format_fibs_board, parse_fibs_board
from engine.match_id import GameState, MatchId, decode_match_id, encode_match_id
from engine.matfile import parse_mat
from engine.notation import format_play, parse_move
from engine.plays import legal_plays
from engine.position_id import decode_position_id, encode_position_id
from engine.xgid import Xgid, format_xgid, parse_xgid

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
NUMBERS = st.one_of(
    st.integers(-20, 40).map(str),
    st.integers(2**62, 2**70).map(str),
    st.sampled_from(["", "-", "\u00b2", "\u0663", "9" * 5000, "1e3", " 1", "-0"]),
)


@st.composite
def boards(draw) -> np.ndarray:
    """A legal board (mover's view): each side's 15 checkers spread over its points, bar and off."""
    board = np.zeros(26, dtype=np.int64)
    for sign in (1, -1):
        for _ in range(draw(st.integers(1, 15))):
            free = [p for p in range(1, 26) if board[p if sign == 1 else 25 - p] * sign >= 0]
            p = draw(st.sampled_from(free))
            index = p if sign == 1 else 25 - p
            board[index] += sign
    try:
        return validate_board(board)
    except BackgammonError:  # both on the bar against closed boards: draw another
        draw(st.nothing())
        raise


def _reads_or_refuses(parse, text) -> None:
    try:
        parse(text)
    except BackgammonError:
        pass


@FAST
@given(boards())
def test_position_id_round_trip(board):
    assert np.array_equal(decode_position_id(encode_position_id(board)), board)


@FAST
@given(st.text(BASE64, min_size=10, max_size=16) | st.text(max_size=20))
def test_position_id_any_text(text):
    _reads_or_refuses(decode_position_id, text)
    try:
        board = decode_position_id(text)
    except BackgammonError:
        return
    assert encode_position_id(board) == text.strip()  # only canonical IDs read


@st.composite
def match_ids(draw) -> MatchId:
    length = draw(st.integers(0, 25))
    score = (draw(st.integers(0, max(length - 1, 0))), draw(st.integers(0, max(length - 1, 0))))
    owner = draw(st.sampled_from([0, 1, None]))
    crawford = bool(length) and length - 1 in score and draw(st.booleans())
    return MatchId(
        cube_value=1 if owner is None else 2 ** draw(st.integers(1, 12)),
        cube_owner=owner,
        player_on_roll=draw(st.integers(0, 1)),
        crawford=crawford,
        game_state=draw(st.sampled_from(list(GameState))),
        turn=draw(st.integers(0, 1)),
        double_offered=draw(st.booleans()),
        resign_offered=draw(st.integers(0, 3)),
        dice=draw(st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6))),
        match_length=length,
        score=score if length else (0, 0),
        jacoby=draw(st.booleans()),
    )


@FAST
@given(match_ids())
def test_match_id_round_trip(m):
    assert decode_match_id(encode_match_id(m)) == m


@FAST
@given(
    st.text(BASE64, min_size=8, max_size=14)
    | st.binary(min_size=9, max_size=9).map(lambda b: __import__("base64").b64encode(b).decode())
)
def test_match_id_any_text(text):
    try:
        m = decode_match_id(text)
    except BackgammonError:
        return
    assert encode_match_id(m) == text.strip()


@st.composite
def xgids(draw) -> Xgid:
    length = draw(st.integers(0, 15))
    bottom = draw(st.integers(0, max(length - 1, 0))) if length else 0
    top = draw(st.integers(0, max(length - 1, 0))) if length else 0
    owner = draw(st.sampled_from([-1, 0, 1]))
    max_log2 = draw(st.integers(1, 12))
    offered = draw(st.booleans())
    return Xgid(
        board=draw(boards()),
        turn=draw(st.sampled_from([1, -1])),
        cube_value=1 if owner == 0 else 2 ** draw(st.integers(1, max_log2)),
        cube_owner=owner,
        dice=None if offered else draw(st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6))),
        double_offered=offered,
        score_bottom=bottom,
        score_top=top,
        match_length=length,
        crawford=bool(length) and length - 1 in (bottom, top) and draw(st.booleans()),
        jacoby=not length and draw(st.booleans()),
        beavers=not length and draw(st.booleans()),
        max_cube=2**max_log2,
    )


@FAST
@given(xgids())
@pytest.mark.slow
def test_xgid_round_trip(x):
    assert parse_xgid(format_xgid(x)) == x


@FAST
@given(xgids(), st.integers(1, 9), NUMBERS)
@pytest.mark.slow
def test_xgid_with_a_field_replaced(x, index, value):
    fields = format_xgid(x).split(":")
    fields[index] = value
    _reads_or_refuses(parse_xgid, ":".join(fields))


@st.composite
def fibs_boards(draw) -> FibsBoard:
    length = draw(st.sampled_from([0, 1, 3, 7, 25]))
    me = draw(st.integers(0, max(length - 1, 0))) if length else 0
    opp = draw(st.integers(0, max(length - 1, 0))) if length else 0
    crawford = bool(length) and length - 1 in (me, opp) and draw(st.booleans())
    doubled = draw(st.booleans())
    return FibsBoard(
        board=draw(boards()),
        player_name=draw(st.text("abcxyz", min_size=1, max_size=8)),
        opponent_name=draw(st.text("ABCXYZ", min_size=1, max_size=8)),
        match_length=length,
        player_score=me,
        opponent_score=opp,
        turn=-1 if doubled else 1,
        dice=None if doubled else draw(st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6))),
        cube=1 if crawford else 2 ** draw(st.integers(0, 12)),
        may_double=draw(st.booleans()),
        opponent_may_double=draw(st.booleans()),
        was_doubled=doubled,
        crawford=crawford,
        post_crawford=bool(length) and not crawford and draw(st.booleans()),
    )


@FAST
@given(fibs_boards())
@pytest.mark.slow
def test_fibs_round_trip(fb):
    assert parse_fibs_board(format_fibs_board(fb)) == fb


@FAST
@given(fibs_boards(), st.integers(3, 52), NUMBERS)
@pytest.mark.slow
def test_fibs_with_a_field_replaced(fb, index, value):
    fields = format_fibs_board(fb).split(":")
    fields[index] = value
    _reads_or_refuses(parse_fibs_board, ":".join(fields))


@FAST
@given(boards(), st.tuples(st.integers(1, 6), st.integers(1, 6)), st.data())
@pytest.mark.slow
def test_move_notation_round_trip(board, dice, data):
    plays = legal_plays(board, dice)
    play = data.draw(st.sampled_from(plays))
    text = format_play(play) if play.steps else ""
    assert np.array_equal(parse_move(text, board, dice).afterstate, play.afterstate)


@FAST
@given(boards(), st.text("0123456789/*() barof-\u00b2\u0663", max_size=30))
def test_move_any_text(board, text):
    _reads_or_refuses(lambda t: parse_move(t, board, (3, 1)), text)


@FAST
@given(
    st.lists(
        st.sampled_from(
            [
                " 3 point match",
                " 7 point match",
                " Game 1",
                " Game 2",
                " a : 0   b : 0",
                " a : 1   b : 0",
                "  1) 31: 8/5 6/5                 42: 8/4 6/4",
                "  2)  Doubles => 2",
                "  3)  Takes",
                " Wins 1 point",
                "  1) 65: 24/13",
                " Game " + "9" * 5000,
                " a : \u00b2   b : 0",
                "",
                "  2)  Drops",
            ]
        ),
        max_size=12,
    )
)
def test_mat_any_lines(lines):
    _reads_or_refuses(parse_mat, "\n".join(lines))
