"""The external-player server under hostile clients, over real sockets on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

import pytest

from conftest import tiny_bot
from bot.doors.external import BUSY_REPLY, MAX_CLIENTS, MAX_LINE, ExternalServer, reply
from bot.facade import Bot
from bot.play.match_play import BotPlayer
from tests.test_external import BEFORE_THE_ROLL, ROLLED, read_line


@pytest.fixture(scope="module")
def bot() -> Bot:
    return tiny_bot(3)


@contextmanager
def serving(bot: Bot, **options):
    server = ExternalServer(bot, "127.0.0.1", 0, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _ask(sock: socket.socket, line: str | bytes) -> str:
    sock.sendall((line.encode() if isinstance(line, str) else line) + b"\n\x00")
    return read_line(sock)


def test_an_idle_client_does_not_block_another(bot):
    with serving(bot) as address:
        with socket.create_connection(address, timeout=10) as idle:
            idle.sendall(b"board:half a li")  # and then nothing
            with socket.create_connection(address, timeout=10) as other:
                assert _ask(other, ROLLED) == reply(BotPlayer(bot), ROLLED)


def test_an_over_long_line_gets_an_error_reply_and_the_connection_goes_on(bot):
    with serving(bot) as address, socket.create_connection(address, timeout=10) as sock:
        answer = _ask(sock, b"board:" + b"9" * (MAX_LINE * 20))
        assert answer.startswith("Error: ") and str(MAX_LINE) in answer
        assert _ask(sock, BEFORE_THE_ROLL) in ("roll", "double")


@pytest.mark.parametrize("value", [str(2**63), str(2**62), "9" * 5000, "\u00b2"])
@pytest.mark.slow
def test_a_huge_field_gets_an_error_reply_not_a_dropped_connection(bot, value):
    fields = ROLLED.split(":")
    fields[10] = value
    with serving(bot) as address, socket.create_connection(address, timeout=10) as sock:
        assert _ask(sock, ":".join(fields)).startswith("Error: ")
        assert _ask(sock, ROLLED) == reply(BotPlayer(bot), ROLLED)


def test_every_line_gets_a_reply_even_an_empty_one(bot):
    with serving(bot) as address, socket.create_connection(address, timeout=10) as sock:
        sock.sendall(b"\n" + ROLLED.encode() + b"\n\x00garbage\n")
        assert read_line(sock).startswith("Error: ")
        assert read_line(sock) == reply(BotPlayer(bot), ROLLED)
        assert read_line(sock).startswith("Error: ")


@pytest.mark.slow
def test_an_idle_client_is_disconnected(bot):
    with serving(bot, idle_timeout=0.3) as address, socket.create_connection(address, timeout=10) as sock:
        time.sleep(0.6)
        assert sock.recv(100) == b""  # closed by the server


def _closed_by_server(sock: socket.socket) -> bool:
    """True once the server has closed ``sock`` (an end of stream, or a reset where data was unread)."""
    try:
        while sock.recv(100):
            pass
    except ConnectionResetError:
        pass
    return True


def test_silent_clients_filling_every_slot_do_not_lock_out_a_new_one(bot):
    with serving(bot) as address:
        silent = [socket.create_connection(address, timeout=10) for _ in range(MAX_CLIENTS)]
        try:
            with socket.create_connection(address, timeout=10) as newcomer:
                assert _ask(newcomer, ROLLED) == reply(BotPlayer(bot), ROLLED)
            assert _closed_by_server(silent[0])  # the longest idle made room
        finally:
            for sock in silent:
                sock.close()


def test_a_full_server_drops_a_client_that_never_sent_a_line_before_one_that_did(bot):
    with serving(bot, max_clients=2) as address:
        player = socket.create_connection(address, timeout=10)
        silent = socket.create_connection(address, timeout=10)
        try:
            assert _ask(player, ROLLED) == reply(BotPlayer(bot), ROLLED)  # connected first, then idle
            time.sleep(0.1)
            with socket.create_connection(address, timeout=10) as newcomer:
                assert _closed_by_server(silent)
                assert _ask(newcomer, ROLLED) == _ask(player, ROLLED)  # both served
        finally:
            player.close()
            silent.close()


def test_a_new_client_is_told_the_server_is_busy_only_while_every_client_waits_for_an_answer(bot, monkeypatch):
    import bot.doors.external as external

    release, waiting = threading.Event(), threading.Semaphore(0)

    def slow(*args, **kwargs):
        waiting.release()
        release.wait(10)
        return "roll"

    monkeypatch.setattr(external, "decide", slow)
    with serving(bot, max_clients=2) as address:
        first = socket.create_connection(address, timeout=10)
        second = socket.create_connection(address, timeout=10)
        try:
            for sock in (first, second):
                sock.sendall(BEFORE_THE_ROLL.encode() + b"\n\x00")
            assert waiting.acquire(timeout=10) and waiting.acquire(timeout=10)  # both answers computing
            with socket.create_connection(address, timeout=10) as third:
                assert read_line(third) == BUSY_REPLY
                assert _closed_by_server(third)
            release.set()
            assert read_line(first) == read_line(second) == "roll"
        finally:
            release.set()
            first.close()
            second.close()


@pytest.mark.parametrize("deadline", ["line", "idle"])
@pytest.mark.slow
def test_a_client_trickling_bytes_is_dropped_at_its_deadline(bot, deadline):
    """One byte at a time never completes a line: the deadline holds, single bytes do not move it."""
    options = (
        {"line_timeout": 0.5, "idle_timeout": 30} if deadline == "line" else {"line_timeout": 30, "idle_timeout": 0.5}
    )
    with serving(bot, **options) as address, socket.create_connection(address, timeout=10) as sock:
        began = time.monotonic()
        with pytest.raises(OSError):  # a broken pipe or a reset once the server has closed
            for byte in ROLLED.encode() * 100:
                sock.sendall(bytes([byte]))
                time.sleep(0.05)
                assert time.monotonic() - began < 5, "still connected long after the deadline"
        assert time.monotonic() - began < 5


@pytest.mark.slow
def test_the_nul_after_a_line_does_not_start_the_next_lines_clock(bot):
    with (
        serving(bot, line_timeout=0.3, idle_timeout=30) as address,
        socket.create_connection(address, timeout=10) as sock,
    ):
        assert _ask(sock, ROLLED) == reply(BotPlayer(bot), ROLLED)  # "board...\n\x00", as GNU Backgammon sends
        time.sleep(0.6)  # a person thinking, longer than a line may take
        assert _ask(sock, ROLLED) == reply(BotPlayer(bot), ROLLED)


def test_an_internal_error_is_a_reply_too(bot, monkeypatch):
    import bot.doors.external as external

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(external, "decide", broken)
    answer = reply(BotPlayer(bot), ROLLED)
    assert answer == "Error: internal error"
