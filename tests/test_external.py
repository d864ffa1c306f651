"""GNU Backgammon's external player: replies to recorded board lines, then one real socket dialogue."""

from __future__ import annotations

import socket
import threading

import pytest

from conftest import tiny_bot
from bot.equity.cube import CubeState, Owner
from bot.doors.external import MAX_REPLY, ExternalServer, cube_state, reply
from bot.facade import Bot
from bot.play.levels import level_named
from bot.play.match_play import BotPlayer
from engine.board import flip
from engine.fibs import parse_fibs_board
from engine.notation import parse_move

# Lines GNU Backgammon 1.07 sent to this server (player 1 is "root", player 0 "gnubg").
# 7-point match, gnubg 4 root 0, gnubg owns the cube at 2; root rolled 44.
ROLLED = (
    "board:gnubg:root:7:4:0:0:-1:0:0:0:-1:5:0:3:0:0:0:-4:5:0:0:0:-4:0:-5:0:0:0:0:2:0:"
    "1:4:4:4:4:2:0:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# The same match, root on the bar, rolled 51 (root doubled earlier, gnubg owns the cube at 2).
ON_THE_BAR = (
    "board:gnubg:root:7:4:0:0:0:2:0:0:-2:3:0:2:1:0:0:-4:4:0:0:0:-4:0:-5:0:0:0:0:2:1:"
    "1:1:5:1:5:2:0:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# 7-point match, gnubg 4 root 0, cube centred, root to roll or double.
BEFORE_THE_ROLL = (
    "board:gnubg:root:7:4:0:0:-1:0:0:0:-1:5:0:3:0:0:0:-4:5:0:0:0:-4:0:-5:0:0:0:0:2:0:"
    "1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# gnubg (4 points, owning the cube at 2) redoubles root (0 points): names and scores come as (root, gnubg).
REDOUBLED = (
    "board:root:gnubg:7:0:4:0:0:3:0:2:2:0:1:2:1:0:0:0:2:0:0:1:-3:-2:-3:0:-2:-3:-2:1:0:"
    "-1:0:0:0:0:2:0:1:1:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# The Crawford game (last field 0), gnubg 6 root 0; root rolled 36 and cannot move.
CRAWFORD_NO_MOVE = (
    "board:gnubg:root:7:6:0:0:0:0:-1:0:2:3:-2:2:0:0:1:-1:3:0:0:0:-2:0:-2:-2:-2:-2:-1:3:1:"
    "1:3:6:3:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0"
)


@pytest.fixture(scope="module")
def bot() -> Bot:
    return tiny_bot(3)


@pytest.mark.parametrize("line", [ROLLED, ON_THE_BAR])
def test_a_rolled_board_gets_the_bots_best_play_as_a_legal_move(bot, line):
    fb = parse_fibs_board(line)
    answer = reply(BotPlayer(bot), line)
    assert answer == bot.best_play(fb.board, fb.dice, state=cube_state(fb)).notation
    assert "-" not in answer and "/" in answer
    parse_move(answer, fb.board, fb.dice)  # raises unless legal


def test_a_board_without_a_legal_move_gets_an_empty_line(bot):
    assert reply(BotPlayer(bot), CRAWFORD_NO_MOVE) == ""


def test_before_the_roll_the_bot_rolls_or_doubles_as_it_judges(bot):
    fb = parse_fibs_board(BEFORE_THE_ROLL)
    expected = "double" if bot.should_double(fb.board, cube_state(fb)) else "roll"
    assert reply(BotPlayer(bot), BEFORE_THE_ROLL) == expected


def test_a_double_is_taken_or_dropped_from_the_doublers_side(bot):
    fb = parse_fibs_board(REDOUBLED)
    doubler = cube_state(fb, doubler=True)
    assert doubler == CubeState(cube=2, owner=Owner.ME, match_length=7, score=(4, 0))
    expected = "take" if bot.should_take(flip(fb.board), doubler) else "drop"
    assert reply(BotPlayer(bot), REDOUBLED) == expected


def test_scores_and_crawford_are_read_for_the_player():
    assert cube_state(parse_fibs_board(ROLLED)) == CubeState(cube=2, owner=Owner.OPP, match_length=7, score=(0, 4))
    assert cube_state(parse_fibs_board(BEFORE_THE_ROLL)) == CubeState(match_length=7, score=(0, 4))
    assert cube_state(parse_fibs_board(CRAWFORD_NO_MOVE)) == CubeState(match_length=7, score=(0, 6), crawford=True)


@pytest.mark.parametrize(
    "line, named",
    [
        ("hello", "53"),
        ("board:a:b:7:0:0:" + ":".join(["0"] * 47), "colour"),
        (ROLLED.replace(":-4:5:", ":-4:x:", 1), "'x'"),
        (BEFORE_THE_ROLL.replace(":1:0:0:0:0:1:1:1:0:1:-1:", ":-1:0:0:0:0:1:1:1:0:1:-1:"), "nothing to decide"),
        (ROLLED.replace(":0:3:", ":0:13:", 1), "checkers"),
    ],
)
def test_a_malformed_line_gets_an_error_reply(bot, line, named):
    answer = reply(BotPlayer(bot), line)
    assert answer.startswith("Error: ") and named in answer
    assert len(answer) <= MAX_REPLY and "\n" not in answer


def read_line(sock: socket.socket) -> str:
    """One reply line; byte by byte, so a second reply that arrived with it stays for the next call."""
    data = b""
    while not data.endswith(b"\n"):
        byte = sock.recv(1)
        assert byte, "the server closed the connection without a reply"
        data += byte
    return data.decode().rstrip("\n")


def _ask(sock: socket.socket, line: str) -> str:
    sock.sendall(line.encode() + b"\n\x00")
    return read_line(sock)


def test_the_server_answers_over_tcp_and_outlives_its_clients(bot):
    server = ExternalServer(bot, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    address = server.server_address
    try:
        with socket.create_connection(address, timeout=30) as first:
            assert _ask(first, ROLLED) == reply(BotPlayer(bot), ROLLED)
            assert _ask(first, "garbage").startswith("Error: ")
            assert _ask(first, REDOUBLED) in ("take", "drop")
            first.sendall(ROLLED[:40].encode())  # and hang up in the middle of a line
        with socket.create_connection(address, timeout=30) as second:
            assert _ask(second, CRAWFORD_NO_MOVE) == ""
            assert _ask(second, BEFORE_THE_ROLL) in ("roll", "double")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


def test_at_a_playing_level_the_answer_is_legal_and_repeatable(bot):
    fb = parse_fibs_board(ROLLED)
    player = BotPlayer(bot, level=level_named("beginner"))
    answer = reply(player, ROLLED)
    parse_move(answer, fb.board, fb.dice)  # raises unless legal
    assert reply(BotPlayer(bot, level=level_named("beginner")), ROLLED) == answer
    assert reply(BotPlayer(bot, level=level_named("expert")), ROLLED) == reply(BotPlayer(bot), ROLLED)
