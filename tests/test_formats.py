"""Match ID, XGID and FIBS board: examples from docs/PROTOCOLS.md and GNU Backgammon, round trips, bad input."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from engine.board import START, flip
from engine.errors import InvalidMatchError, InvalidPositionError
from engine.fibs import FibsBoard, format_fibs_board, parse_fibs_board
from engine.match_id import GameState, MatchId, decode_match_id, encode_match_id
from engine.position_id import decode_position_id, encode_position_id
from engine.xgid import BOTTOM, TOP, Xgid, format_xgid, parse_xgid

# ---------------------------------------------------------------- Match ID


def test_match_id_protocol_examples():
    money = decode_match_id("cAkAAAAAAAAA")
    assert money == MatchId(cube_value=1, cube_owner=None, player_on_roll=1, turn=1, match_length=0, score=(0, 0))
    assert money.game_state == GameState.PLAYING and money.dice is None and money.jacoby
    nine = decode_match_id("QYkqASAAIAAA")
    assert (nine.match_length, nine.score, nine.cube_value, nine.cube_owner) == (9, (2, 4), 2, 0)
    assert (nine.player_on_roll, nine.turn, nine.dice, nine.crawford) == (1, 1, (5, 2), False)


@pytest.mark.parametrize(
    "match_id, fields",
    [
        # Written by GNU Backgammon 1.07 (set score 6 3, set crawford on; set cube value 8, owner 0).
        ("sIHlAGAAGAAE", dict(match_length=7, score=(6, 3), crawford=True, dice=(3, 1), jacoby=False)),
        ("A4EKAAAAAAAE", dict(cube_value=8, cube_owner=0, dice=(5, 2), match_length=0, jacoby=False)),
        ("MIEKAAAAAAAA", dict(cube_value=1, cube_owner=None, jacoby=True, player_on_roll=0)),
    ],
)
def test_match_id_from_gnubg(match_id, fields):
    m = decode_match_id(match_id)
    for name, value in fields.items():
        assert getattr(m, name) == value, name
    assert encode_match_id(m) == match_id


def test_match_id_round_trip_all_fields():
    m = MatchId(
        cube_value=16,
        cube_owner=1,
        player_on_roll=0,
        crawford=False,
        game_state=GameState.RESIGNED,
        turn=1,
        double_offered=True,
        resign_offered=2,
        dice=(6, 6),
        match_length=25,
        score=(24, 13),
        jacoby=False,
    )
    assert decode_match_id(encode_match_id(m)) == m


@pytest.mark.parametrize("bad", ["", "cAkAAAAAAAA", "cAkAAAAAAAAAA", "cAk!AAAAAAAA", 12])
def test_match_id_malformed(bad):
    with pytest.raises(InvalidMatchError, match="Match ID"):
        decode_match_id(bad)


def test_match_id_bad_fields():
    with pytest.raises(InvalidMatchError, match="cube value 3"):
        encode_match_id(MatchId(cube_value=3))
    with pytest.raises(InvalidMatchError, match="money game has no Crawford"):
        encode_match_id(MatchId(crawford=True))
    with pytest.raises(InvalidMatchError, match="beyond the match length"):
        encode_match_id(MatchId(match_length=5, score=(6, 0)))
    # Dice 7 and one die only: flip bits of a valid ID.
    bits = int.from_bytes(base64.b64decode("cAkAAAAAAAAA"), "little")
    for extra, reason in ((7 << 15 | 1 << 18, "dice"), (1 << 15, "dice"), (4 << 8, "game state")):
        raw = (bits | extra).to_bytes(9, "little")
        with pytest.raises(InvalidMatchError, match=reason):
            decode_match_id(base64.b64encode(raw).decode())


# ---------------------------------------------------------------- XGID

START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_xgid_start():
    x = parse_xgid(START_XGID)
    assert np.array_equal(x.board, START)
    assert (x.turn, x.cube_value, x.cube_owner, x.dice, x.match_length, x.max_cube) == (1, 1, 0, None, 0, 1024)
    assert format_xgid(x) == START_XGID
    assert parse_xgid(START_XGID[5:]) == x


@pytest.mark.parametrize(
    "xgid, position_id",
    [
        # Position IDs that GNU Backgammon 1.07 shows after `set xgid ...`.
        ("XGID=-CADCBB----------------bd-:1:1:-1:43:1:3:0:5:8", "17sNAABvAAAAAA"),
        ("XGID=-cIb-cE---A---a----bb--aa-:1:1:1:33:1:3:0:5:8", "xQYBnDn+w4cAAA"),
        ("XGID=--aBBBBC---Aa------cccbbBA:1:1:1:64:1:3:0:5:8", "trsDAhBs2yEAWA"),
    ],
)
def test_xgid_board_in_view_of_player_on_turn(xgid, position_id):
    x = parse_xgid(xgid)
    assert encode_position_id(x.board) == position_id
    assert x.cube_value == 2 and x.cube_owner == BOTTOM and x.match_length == 5
    assert (x.score_bottom, x.score_top, x.max_cube) == (1, 3, 256)
    assert format_xgid(x) == xgid


def test_xgid_fields_round_trip():
    board = decode_position_id("zGbiIQgxH/AAWA")
    for x in (
        Xgid(
            board=board,
            turn=TOP,
            cube_value=4,
            cube_owner=-1,
            double_offered=True,
            score_bottom=3,
            score_top=6,
            match_length=7,
            crawford=True,
            max_cube=64,
        ),
        Xgid(board=flip(board), turn=BOTTOM, dice=(6, 2), jacoby=True, beavers=True),
    ):
        assert parse_xgid(format_xgid(x)) == x
    assert ":D:" in format_xgid(Xgid(board=board, double_offered=True))


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", "10 fields"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "cube position"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10", "cube 'x'"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:5:0:0:5:10", "match length"),
        ("XGID=-b----E-C---eE---c-e----C-:0:0:1:00:0:0:0:0:10", "16 checkers"),
    ],
)
def test_xgid_bad(bad, reason):
    with pytest.raises(InvalidPositionError, match=reason) as info:
        parse_xgid(bad)
    assert "XGID" in str(info.value)


# ---------------------------------------------------------------- FIBS board

# Lines GNU Backgammon 1.07 sent to an external player 1 (`set player 1 external`), 3-point match.
OWN_TURN_ROLL = (
    "board:gnubg:root:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-4:5:0:0:0:-2:-2:-5:0:0:0:0:2:0:"
    "1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
OWN_TURN_MOVE = (
    "board:gnubg:root:3:0:0:0:-1:1:0:0:-1:4:0:2:0:0:0:-3:5:0:-1:0:-2:-2:-5:0:0:0:0:2:1:"
    "1:3:6:3:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
ANSWER_DOUBLE = (
    "board:root:gnubg:3:0:0:0:-1:2:0:0:-1:4:0:1:0:0:0:-3:5:0:-1:0:-2:-2:-5:0:0:1:0:2:0:"
    "-1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1"
)
BEAR_OFF = (
    "board:gnubg:root:3:0:0:0:8:3:0:0:0:2:0:0:0:0:0:0:0:0:0:0:0:1:0:0:-2:-2:-5:-1:1:"
    "1:2:2:2:2:2:1:0:0:1:-1:0:25:0:5:0:0:0:0:0:1"
)
# GNU Backgammon's own FIBS boards (`set output rawboard on`) in a 7-point match:
# the Crawford game at 6-3, then after it (post-Crawford).
CRAWFORD = (
    "board:root:gnubg:7:3:6:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:4:3:4:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0"
)
POST_CRAWFORD = (
    "board:root:gnubg:7:3:6:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:4:3:4:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1"
)


def test_fibs_own_turn():
    fb = parse_fibs_board(OWN_TURN_ROLL + "\n\x00")
    assert (fb.player_name, fb.opponent_name, fb.match_length) == ("root", "gnubg", 3)
    assert fb.turn == 1 and fb.dice is None and fb.cube == 1 and fb.may_double and fb.opponent_may_double
    assert fb.board[24] == 2 and fb.board[6] == 5 and fb.board[19] == -5 and not fb.answering_double
    moving = parse_fibs_board(OWN_TURN_MOVE)
    assert moving.dice == (3, 6) and moving.board[25] == 1 and moving.board[0] == 0


def test_fibs_answering_double_swaps_names_and_scores():
    fb = parse_fibs_board(ANSWER_DOUBLE)
    assert fb.answering_double and fb.turn == -1 and fb.was_doubled
    assert (fb.player_name, fb.opponent_name) == ("root", "gnubg")
    quirk = ANSWER_DOUBLE.replace(":3:0:0:", ":3:1:2:", 1)  # score fields come as (player, opponent)
    assert (parse_fibs_board(quirk).player_score, parse_fibs_board(quirk).opponent_score) == (1, 2)
    own = OWN_TURN_ROLL.replace(":3:0:0:", ":3:1:2:", 1)  # on own turns as (opponent, player)
    assert (parse_fibs_board(own).player_score, parse_fibs_board(own).opponent_score) == (2, 1)


def test_fibs_crawford_flags():
    assert parse_fibs_board(CRAWFORD).crawford and not parse_fibs_board(CRAWFORD).post_crawford
    assert parse_fibs_board(POST_CRAWFORD).post_crawford and not parse_fibs_board(POST_CRAWFORD).crawford
    assert not parse_fibs_board(OWN_TURN_ROLL).crawford


def test_fibs_money_and_bear_off():
    money = parse_fibs_board(OWN_TURN_ROLL.replace(":3:0:0:", ":9999:0:0:", 1))
    assert money.match_length == 0
    fb = parse_fibs_board(BEAR_OFF)
    assert fb.dice == (2, 2) and fb.cube == 2 and fb.may_double and not fb.opponent_may_double


@pytest.mark.parametrize("line", [OWN_TURN_ROLL, OWN_TURN_MOVE, ANSWER_DOUBLE, BEAR_OFF, CRAWFORD, POST_CRAWFORD])
def test_fibs_round_trip(line):
    assert format_fibs_board(parse_fibs_board(line)) == line


def test_fibs_written_from_fields():
    fb = FibsBoard(
        board=START.copy(),
        player_name="bot",
        opponent_name="human",
        match_length=5,
        player_score=1,
        opponent_score=3,
        dice=(6, 5),
        cube=2,
        may_double=True,
        opponent_may_double=False,
    )
    assert parse_fibs_board(format_fibs_board(fb)) == fb
    assert format_fibs_board(fb).startswith("board:human:bot:5:3:1:")


def test_fibs_direction_plus_one_is_mirrored():
    fields = OWN_TURN_MOVE.split(":")
    board = fields[6:32]
    fields[6:32] = [str(-int(v)) for v in board[::-1]]  # same position for a player of colour -1, direction 1
    fields[41], fields[42] = "-1", "1"
    assert np.array_equal(parse_fibs_board(":".join(fields)).board, parse_fibs_board(OWN_TURN_MOVE).board)


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("board:a:b:3:0:0", "53"),
        (OWN_TURN_ROLL.replace("board:", "bored:"), "53"),
        (OWN_TURN_ROLL.replace(":0:-2:0:", ":0:x:0:", 1), "'x'"),
        (OWN_TURN_ROLL.replace(":-2:0:0:", ":-9:0:0:", 1), "opponent has"),
        (OWN_TURN_ROLL.replace(":3:0:0:", ":3:3:0:", 1), "match length"),
        (OWN_TURN_MOVE.replace(":1:3:6:3:6:", ":1:3:7:3:7:"), "dice"),
        (OWN_TURN_MOVE.replace(":1:3:6:3:6:", ":0:3:6:3:6:"), "turn"),
    ],
)
def test_fibs_bad(bad, reason):
    with pytest.raises(InvalidPositionError, match=reason) as info:
        parse_fibs_board(bad)
    assert "FIBS board" in str(info.value)
