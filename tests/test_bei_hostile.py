"""BEI (``nardy bei``) against real and hostile clients: huge move lists, malformed states, too many clients."""

from __future__ import annotations

import json
import logging
import random
import socket
import threading
import time
from contextlib import contextmanager
from typing import Iterator, Optional

import pytest

from conftest import tiny_bot
from bot.doors.bei import GO_LINE_LIMIT, MAX_MOVES, STATE_LENGTH, BeiServer, BeiSession
from bot.facade import Bot
from bot.play.match_play import BotPlayer
from engine.board import START
from engine.plays import legal_plays
from tests.test_bei import AFTER_31, state

# Positions (mover's view, our board convention) with the most plays found for their double.
SPREAD_22 = [0, 0, -2, 1, -1, 1, -1, 1, 2, 1, -1, -1, 1, 1, -1, 1, 1, 1, -1, 1, 1, 1, 1, -4, -3, 0]
SPREAD_55 = [0, -3, 0, -1, -1, -1, -2, 1, 0, 1, 1, -2, 1, 1, 1, 1, -3, 1, 1, 1, 1, -2, 1, 1, 2, 0]
SPREAD_11 = [0, 0, -1, -1, 2, 1, -1, 1, 1, 1, -1, -1, -1, 2, -1, 1, 1, -1, -1, 2, 1, 1, 1, -2, -4, 0]
WORST = [(SPREAD_22, 2, 1598), (SPREAD_55, 5, 1280), (SPREAD_11, 1, 1088)]


def state_fields(board: list[int]) -> list[int]:
    """Fields 0..27 of a state for player 1 on turn, from a board in the mover's view (no checker off)."""
    fields = [0] * 28
    fields[1:25] = board[1:25]
    fields[26], fields[27] = board[25], board[0]
    return fields


@pytest.fixture(scope="module")
def bot() -> Bot:
    return tiny_bot(5)


def greeted(bot: Bot) -> BeiSession:
    session = BeiSession(BotPlayer(bot))
    session.answer("bei")
    return session


# ---------------------------------------------------------------- every line within Go's 64 KiB


def test_no_okmove_can_pass_go_s_line_limit():
    longest_step = {"From": 27, "To": 25}  # two-digit spaces, the longest a step writes
    longest_move = json.dumps({"Play": [longest_step] * 4}, separators=(",", ":"))
    envelope = len('{"Type":"okmove","Moves":[]}')
    assert envelope + MAX_MOVES * (len(longest_move) + 1) < GO_LINE_LIMIT


@pytest.mark.parametrize("board, die, plays", WORST)
def test_the_worst_doubles_answer_the_best_plays_within_64_kib(bot, board, die, plays):
    line = "move " + state(state_fields(board), dice=(die, die))
    assert len(legal_plays(board, (die, die))) == plays
    session = greeted(bot)
    cut = session.answer(line) or ""
    assert len(cut.encode()) + 1 <= 64 * 1024  # what bufio.Scanner holds, the newline included
    assert session.answer("set moves all") == '{"Type":"okset"}'
    full = session.answer(line) or ""
    cut_moves, full_moves = json.loads(cut)["Moves"], json.loads(full)["Moves"]
    assert len(cut_moves) == MAX_MOVES and len(full_moves) == plays
    assert cut_moves == full_moves[:MAX_MOVES]  # the best first, the rest cut
    assert len(full.encode()) > 64 * 1024  # the full list is for clients that read long lines


def test_set_moves_lists_as_many_plays_as_asked(bot):
    session = greeted(bot)
    line = "move " + state(dice=(3, 1))
    every = json.loads(session.answer(line) or "")["Moves"]
    assert len(every) == len(legal_plays(START, (3, 1))) < MAX_MOVES
    assert session.answer("set moves 2") == '{"Type":"okset"}'
    assert json.loads(session.answer(line) or "")["Moves"] == every[:2]


def test_the_worst_double_over_tcp_is_one_line_a_go_client_reads(bot):
    with serving(bot, max_clients=2) as port, connect(port) as (sock, lines):
        assert ask(sock, lines, b"bei")["Type"] == "okbei"
        sock.sendall(b"move " + state(state_fields(SPREAD_22), dice=(2, 2)).encode() + b"\n")
        raw = lines.readline()
        assert raw.endswith(b"\n") and len(raw) <= 64 * 1024
        assert len(json.loads(raw)["Moves"]) == MAX_MOVES


# ---------------------------------------------------------------- malformed states


TOKENS = ["--5", "", " ", "+3", "-0", "1e3", "0x10", "٣", "99999999", "-99999", "nan", "3.0", "\x00", "1,2", "- 1"]
BASES = [
    state(),
    state(AFTER_31, turn=2, dice=(6, 6)),
    state(dice=(0, 0), length=7, score=(6, 2), crawford=1),
    state(dice=(0, 0), cube=4, owner=2, length=9, score=(3, 5)),
    state(dice=(5, 5), f30=5, jacoby=1, beavers=1),
]


def mutate(rng: random.Random, text: str) -> str:
    """A state with one to three random faults: a field replaced, a comma gained or lost, fields swapped."""
    fields = text.split(",")
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        i = rng.randrange(len(fields))
        if kind < 0.5:
            fields[i] = str(rng.randint(-40, 40))
        elif kind < 0.75:
            fields[i] = rng.choice(TOKENS)
        elif kind < 0.85:
            j = rng.randrange(len(fields))
            fields[i], fields[j] = fields[j], fields[i]
        elif kind < 0.93:
            fields.insert(i, str(rng.randint(-3, 3)))
        else:
            del fields[i]
    return ",".join(fields)


def test_random_mutations_of_states_get_an_answer_or_a_fail_naming_the_field(bot, caplog):
    session, rng = greeted(bot), random.Random(56)
    fails = 0
    with caplog.at_level(logging.ERROR, logger="bot.doors.bei"):
        for n in range(1500):
            command = "move" if n % 2 else "double"
            text = mutate(rng, rng.choice(BASES))
            event = json.loads(session.answer(f"{command} {text}") or "")
            if event["Type"].startswith("ok"):
                assert event["Type"] == "ok" + command
                continue
            fails += 1
            reason = event["Reason"]
            assert event["Type"] == "fail" + command, (text, event)
            if len(text.split(",")) == STATE_LENGTH:
                assert reason.startswith(("state field ", "state fields ")), (text, reason)
            else:
                assert reason.startswith("state: expected 45 comma-separated integers"), (text, reason)
    assert not caplog.records  # no internal error was logged
    assert 300 < fails < 1500  # both answers and refusals were met


# ---------------------------------------------------------------- more clients than slots


@contextmanager
def serving(bot: Bot, **options) -> Iterator[int]:
    server = BeiServer(bot, "127.0.0.1", 0, idle_timeout=60.0, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def connect(port: int) -> Iterator[tuple[socket.socket, object]]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    lines = sock.makefile("rb")
    try:
        yield sock, lines
    finally:
        lines.close()
        sock.close()


def ask(sock: socket.socket, lines, line: bytes) -> Optional[dict]:
    """The event answering ``line``; None when the server has closed the connection instead."""
    try:
        sock.sendall(line + b"\n")
    except OSError:
        return None
    reply = lines.readline()
    return json.loads(reply) if reply else None


BUSY = {"Type": "failmove", "Reason": "server busy: every client slot is taken, try again later"}


def test_twenty_clients_on_eight_slots_are_served_or_told_busy_never_dropped(bot):
    clients, requests = 20, 4
    greetings: dict[int, dict] = {}
    served: dict[int, list[str]] = {}
    closed_after_busy: dict[int, bool] = {}
    errors: list[BaseException] = []
    everyone_greeted = threading.Barrier(clients, timeout=120)

    def client(n: int, port: int) -> None:
        try:
            with connect(port) as (sock, lines):
                greeting = ask(sock, lines, b"bei")
                assert greeting is not None, "no answer to bei"
                greetings[n] = greeting
                everyone_greeted.wait()  # the served keep their slots until every client has been answered
                if greeting["Type"] != "okbei":
                    closed_after_busy[n] = lines.readline() == b""
                    return
                line = b"move " + state(dice=(n % 6 + 1, (n + 2) % 6 + 1)).encode()
                served[n] = [(ask(sock, lines, line) or {"Type": "dropped"})["Type"] for _ in range(requests)]
        except BaseException as error:  # reported on the test's thread
            errors.append(error)

    with serving(bot, max_clients=8) as port:
        threads = [threading.Thread(target=client, args=(n, port)) for n in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=180)
    assert not errors, errors
    assert len(greetings) == clients
    busy = [n for n, g in greetings.items() if g["Type"] != "okbei"]
    assert all(greetings[n] == BUSY for n in busy)
    assert len(busy) == clients - 8 and all(closed_after_busy[n] for n in busy)
    assert served == {n: ["okmove"] * requests for n in greetings if n not in busy}


def test_a_squatter_makes_room_but_a_client_that_has_spoken_keeps_its_slot(bot):
    with serving(bot, max_clients=2, line_timeout=0.2) as port:
        with connect(port) as (talker, talker_lines), connect(port) as (squatter, squatter_lines):
            assert ask(talker, talker_lines, b"bei")["Type"] == "okbei"
            deadline, newcomer = time.monotonic() + 60, None
            while newcomer is None and time.monotonic() < deadline:  # until the squatter has squatted long enough
                sock = socket.create_connection(("127.0.0.1", port), timeout=60)
                lines = sock.makefile("rb")
                greeting = ask(sock, lines, b"bei")
                if greeting == BUSY:
                    lines.close()
                    sock.close()
                    time.sleep(0.1)
                else:
                    newcomer = (sock, lines, greeting)
            assert newcomer is not None and newcomer[2]["Type"] == "okbei"
            try:
                assert squatter_lines.readline() == b""  # the squatter was let go
                with connect(port) as (late, late_lines):
                    assert ask(late, late_lines, b"bei") == BUSY  # the talker and newcomer stay
                for sock, lines in ((talker, talker_lines), newcomer[:2]):
                    assert ask(sock, lines, b"move " + state().encode())["Type"] == "okmove"
            finally:
                newcomer[1].close()
                newcomer[0].close()
