"""BEI (``nardy bei``): states read and refused, a scripted session without sockets, then real TCP clients."""

from __future__ import annotations

import json
import re
import socket
import threading
from typing import Optional

import numpy as np
import pytest

from conftest import tiny_bot
from bot.equity.cube import CubeState, Owner
from bot.doors.bei import STATE_LENGTH, BeiServer, BeiSession, parse_state
from bot.doors.external import MAX_LINE
from bot.facade import Bot
from bot.play.match_play import BotPlayer
from engine.board import START, flip
from engine.errors import BackgammonError
from engine.plays import legal_plays

# The starting position in a state's fields 0..27: player 1 positive, moving 24 -> 1.
START_FIELDS = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0, 0, 0]
# Player 1 has played 8/5 6/5: the board is no longer the same seen from either side.
AFTER_31 = START_FIELDS.copy()
AFTER_31[8], AFTER_31[6], AFTER_31[5] = 2, 4, 2


def state(
    fields=START_FIELDS,
    dice=(3, 1),
    turn=1,
    cube=1,
    owner=0,
    score=(0, 0),
    length=0,
    crawford=0,
    jacoby=0,
    beavers=0,
    variant=0,
    **overrides: object,
) -> str:
    """A state's text, field by field as bei's State constants place them."""
    s: list[object] = list(fields) + [
        dice[0],
        dice[1],
        0,
        int(turn == 1),
        int(turn == 2),
        cube,
        owner,
        score[0],
        score[1],
        length,
        crawford,
        jacoby,
        0,
        beavers,
        variant,
        1,
        1,
    ]
    for index, value in overrides.items():  # a value may be any text, to write a malformed field
        s[int(index.lstrip("f"))] = value
    assert len(s) == STATE_LENGTH
    return ",".join(map(str, s))


@pytest.fixture(scope="module")
def bot() -> Bot:
    return tiny_bot(11)


@pytest.fixture
def session(bot) -> BeiSession:
    s = BeiSession(BotPlayer(bot))
    assert json.loads(s.answer("bei") or "") == {
        "Type": "okbei",
        "Version": 1,
        "ID": {"name": "nardy", "version": s_version()},
    }
    return s


def s_version() -> str:
    from bot.doors.ubgi import nardy_version

    return nardy_version()


def plays_of(answer: Optional[str]) -> list[list[tuple[int, int]]]:
    assert answer is not None
    event = json.loads(answer)
    assert event["Type"] == "okmove", event
    return [[(step["From"], step["To"]) for step in move["Play"]] for move in event["Moves"]]


# ---------------------------------------------------------------- states


def test_player_1_on_turn_reads_as_our_board_dice_and_money_cube():
    s = parse_state(state())
    assert s.player == 1 and s.dice == (3, 1) and s.state == CubeState()
    np.testing.assert_array_equal(s.board, START)


def test_player_2_on_turn_sees_the_board_turned():
    one, two = parse_state(state(AFTER_31, turn=1)), parse_state(state(AFTER_31, turn=2))
    assert two.player == 2
    np.testing.assert_array_equal(two.board, flip(one.board))
    assert two.space(25) == 27 and two.space(0) == 25 and two.space(24) == 1
    assert one.space(25) == 26 and one.space(0) == 0 and one.space(24) == 24


def test_score_cube_and_crawford_are_seen_by_the_player_on_turn():
    s = parse_state(state(turn=2, cube=2, owner=1, score=(3, 1), length=7))
    assert s.state == CubeState(cube=2, owner=Owner.OPP, match_length=7, score=(1, 3))
    crawford = parse_state(state(score=(6, 2), length=7, crawford=1))
    assert crawford.state.crawford and not parse_state(state(score=(6, 2), length=7, crawford=2)).state.crawford
    money = parse_state(state(jacoby=1, beavers=1, dice=(0, 0)))
    assert money.dice is None and money.state.jacoby and money.state.beavers


@pytest.mark.parametrize(
    "text, message",
    [
        (state()[: state().rindex(",")], "state: expected 45 comma-separated integers, got 44"),
        (state() + ",0", "state: expected 45 comma-separated integers, got 46"),
        (state().replace("-2", "x", 1), "state field 1 (point 1): 'x' is not an integer"),
        (state().replace("-2", "--2", 1), "state field 1 (point 1): '--2' is not an integer"),
        (state().replace("-2", "٣", 1), "state field 1 (point 1): '٣' is not an integer"),
        (state(f35="1e3"), "state field 35 (player 1's score): '1e3' is not an integer"),
        (state(f35=99999999), "state field 35 (player 1's score): '99999999' is out of range"),
        (state(f24=3), "state fields 0-27 (checkers): players have 16 and 15 checkers"),
        (state(f0=-1, f24=3), "state field 0 (player 1's home): -1 checkers, expected 0..15"),
        (state(f25=1), "state field 25 (player 2's home): 1 checkers, expected -15..0"),
        (state(f1=-16), "state field 1 (point 1): -16 checkers, expected -15..15"),
        (state(variant=1), "state field 42 (variant): 1 (acey-deucey)"),
        (state(variant=2), "state field 42 (variant): 2 (tabula)"),
        (state(f31=2), "state field 31 (player 1's turn): expected 0 or 1, got 2"),
        (state(cube=3, owner=1), "state field 33 (cube value): 3, expected a power of two 1..4096"),
        (state(cube=8192, owner=1), "state field 33 (cube value): 8192, expected a power of two 1..4096"),
        (state(cube=2, owner=0), "state fields 33, 34 (cube): a centred cube (owner 0) is on 1, got 2"),
        (state(owner=3), "state field 34 (cube owner): 3, expected 0 (centred), 1 or 2"),
        (state(crawford=5, length=7), "state field 38 (Crawford): 5"),
        (state(crawford=1, length=7, score=(3, 3)), "state fields 35-38 (score, Crawford): the Crawford game"),
        (state(crawford=1, length=7, score=(6, 2), cube=2, owner=1), "state fields 33, 38 (cube, Crawford)"),
        (state(f30=4), "state field 30 (die 3): 4, a third die on a non-double is for tabula only"),
        (state(dice=(3, 0)), "state fields 28, 29 (dice): 3, 0: two dice 1..6"),
        (state(dice=(7, 1)), "state field 28 (die 1): 7, expected a die 1..6"),
        (state(score=(7, 0), length=7), "state field 35 (player 1's score): 7, expected 0..6 in a 7-point match"),
        (state(length=-3), "state field 37 (match length): -3"),
        (state(length=26), "state field 37 (match length): 26, expected 0 (money) to 25"),
    ],
)
def test_bad_states_are_refused_naming_the_field(text, message):
    with pytest.raises(BackgammonError, match=re.escape(message)):
        parse_state(text)


def test_a_finished_game_is_refused():
    fields = [0] * 28
    fields[0], fields[19] = 15, -15  # player 1 has borne off everything
    with pytest.raises(BackgammonError, match=re.escape("state fields 0-27 (checkers): position: the side on roll")):
        parse_state(state(fields))


def test_a_third_die_on_a_double_is_ignored_as_tabula_ignores_it():
    assert parse_state(state(dice=(4, 4), f30=4)).dice == (4, 4)
    assert parse_state(state(dice=(0, 0), f30=6)).dice is None


@pytest.mark.parametrize("turn1, turn2, player", [(1, 0, 1), (0, 1, 2), (0, 0, 1), (1, 1, 1)])
def test_player_2_plays_only_when_field_32_alone_says_so(turn1, turn2, player):
    parsed = parse_state(state(AFTER_31, f31=turn1, f32=turn2))
    assert parsed.player == player
    expected = parse_state(state(AFTER_31, turn=player)).board
    np.testing.assert_array_equal(parsed.board, expected)


# ---------------------------------------------------------------- a scripted session


def test_move_lists_every_legal_play_best_first_in_the_states_numbering(bot, session):
    plays = plays_of(session.answer("move " + state(dice=(3, 1))))
    assert len(plays) == len(legal_plays(START, (3, 1)))
    best = bot.best_play(START, (3, 1)).play
    assert plays[0] == sorted(((s.src, s.dst) for s in best.steps), reverse=True)
    assert len({tuple(p) for p in plays}) == len(plays)


def test_player_2_plays_from_its_bar_and_to_its_home_in_player_1s_numbering(session):
    fields = [0] * 28
    fields[24], fields[27] = 15, -1  # player 2 has one checker on its bar (the rest borne off)
    fields[25] = -14
    plays = plays_of(session.answer("move " + state(fields, dice=(4, 2), turn=2)))
    assert plays and all(play[0][0] == 27 for play in plays)
    assert {play[0][1] for play in plays} <= {2, 4}  # player 2 enters on player 1's home board
    fields = [0] * 28
    fields[22], fields[0], fields[25], fields[6] = -1, 14, -14, 1  # player 2 bears off from its 3-point
    assert [(22, 25)] in plays_of(session.answer("move " + state(fields, dice=(6, 5), turn=2)))


def test_a_roll_that_cannot_be_played_gets_no_moves(session):
    fields = [0] * 28
    fields[26], fields[6], fields[0] = 1, 4, 10  # player 1 on the bar against player 2's closed board
    for point in range(19, 25):
        fields[point] = -2
    fields[25] = -3
    assert plays_of(session.answer("move " + state(fields, dice=(6, 5)))) == []


def test_double_answers_the_cube_for_the_player_on_turn(bot, session):
    event = json.loads(session.answer("double " + state(dice=(0, 0), length=7, score=(2, 3))) or "")
    cube = CubeState(match_length=7, score=(2, 3))
    assert event == {"Type": "okdouble", "Double": bot.should_double(START, cube), "Take": bot.should_take(START, cube)}
    owned = json.loads(session.answer("double " + state(cube=2, owner=2)) or "")
    assert owned["Double"] is False  # the opponent owns the cube


@pytest.mark.parametrize(
    "line, kind, reason",
    [
        ("move 1,2,3", "failmove", "expected 45"),
        ("move " + state(dice=(0, 0)), "failmove", "no dice rolled"),
        ("double " + state(variant=2), "faildouble", "state field 42 (variant): 2"),
        ("set plies 2", "failset", "only 'moves'"),
        ("set moves 0", "failset", "expected a count of 1 or more, or 'all'"),
        ("set moves -5", "failset", "expected a count of 1 or more, or 'all'"),
        ("choose " + state(), "failchoose", "acey-deucey"),
    ],
)
def test_bad_requests_fail_with_a_reason(session, line, kind, reason):
    event = json.loads(session.answer(line) or "")
    assert event["Type"] == kind and reason in event["Reason"]


def test_the_handshake_comes_first_and_unknown_commands_hang_up(bot):
    fresh = BeiSession(BotPlayer(bot))
    assert json.loads(fresh.answer("move " + state()) or "") == {"Type": "failmove", "Reason": "send bei first"}
    assert fresh.answer("list") is None and fresh.answer("hello") is None and fresh.answer("") is None
    fresh.answer("bei")
    assert json.loads(fresh.answer("list") or "") == {"Type": "oklist"}
    assert fresh.too_long(b"move 1,2,3") == '{"Type":"failmove","Reason":"line longer than 4096 bytes"}'
    assert fresh.too_long(b"\xff\xfe") is None


# ---------------------------------------------------------------- over TCP on 127.0.0.1


@pytest.fixture
def server(bot):
    srv = BeiServer(bot, "127.0.0.1", 0, max_clients=4, idle_timeout=30.0, line_timeout=10.0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


class Client:
    """A BEI client: one command, one event."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.lines = self.sock.makefile("rb")

    def ask(self, line: bytes) -> Optional[dict]:
        """The event answering ``line``; None when the server hangs up instead."""
        self.sock.sendall(line + b"\n")
        reply = self.lines.readline()
        return json.loads(reply) if reply else None

    def must(self, line: bytes) -> dict:
        event = self.ask(line)
        assert event is not None, f"no answer to {line[:40]!r}"
        return event

    def close(self) -> None:
        self.lines.close()
        self.sock.close()


def test_a_tcp_client_gets_the_handshake_moves_and_cube(bot, server):
    client = Client(server.server_address[1])
    try:
        assert client.must(b"bei")["Type"] == "okbei"
        moves = client.must(b"move " + state(dice=(6, 5)).encode())
        best = bot.best_play(START, (6, 5)).play
        assert moves["Moves"][0]["Play"] == [
            {"From": s.src, "To": s.dst} for s in sorted(best.steps, key=lambda s: (s.src, s.dst), reverse=True)
        ]
        assert client.must(b"double " + state(dice=(0, 0)).encode())["Type"] == "okdouble"
        assert client.must(b"move bad")["Type"] == "failmove"
        assert client.ask(b"goodbye") is None  # an unknown command ends the connection
    finally:
        client.close()


def test_several_clients_at_once(server):
    port, results, errors = server.server_address[1], {}, []

    def play(n: int) -> None:
        client = Client(port)
        try:
            client.ask(b"bei")
            results[n] = [client.must(b"move " + state(dice=(n % 6 + 1, 2)).encode())["Type"] for _ in range(3)]
        except Exception as error:  # reported below, on the test's thread
            errors.append(error)
        finally:
            client.close()

    threads = [threading.Thread(target=play, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors and results == {n: ["okmove"] * 3 for n in range(4)}


def test_an_oversized_line_is_refused_and_the_connection_goes_on(server):
    client = Client(server.server_address[1])
    try:
        client.ask(b"bei")
        event = client.ask(b"move " + b"1," * MAX_LINE)
        assert event == {"Type": "failmove", "Reason": f"line longer than {MAX_LINE} bytes"}
        assert client.must(b"move " + state().encode())["Type"] == "okmove"
    finally:
        client.close()
