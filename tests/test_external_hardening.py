"""The external-player server under hostile clients, over real sockets on 127.0.0.1 (issue 13, item 4)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

import pytest

from conftest import tiny_bot
from bot.doors.external import BUSY_REPLY, MAX_LINE, ExternalServer, reply
from bot.facade import Bot
from bot.match_play import BotPlayer
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


def test_an_idle_client_is_disconnected(bot):
    with serving(bot, idle_timeout=0.3) as address, socket.create_connection(address, timeout=10) as sock:
        time.sleep(0.6)
        assert sock.recv(100) == b""  # closed by the server


def test_clients_beyond_the_limit_are_told_the_server_is_busy(bot):
    with serving(bot, max_clients=2) as address:
        first = socket.create_connection(address, timeout=10)
        second = socket.create_connection(address, timeout=10)
        try:
            assert _ask(first, ROLLED) == _ask(second, ROLLED)  # both are being served
            with socket.create_connection(address, timeout=10) as third:
                assert read_line(third) == BUSY_REPLY
                assert third.recv(100) == b""
        finally:
            first.close()
            second.close()
        time.sleep(0.2)  # the slots are given back
        with socket.create_connection(address, timeout=10) as fourth:
            assert _ask(fourth, ROLLED) == reply(BotPlayer(bot), ROLLED)


def test_an_internal_error_is_a_reply_too(bot, monkeypatch):
    import bot.doors.external as external

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(external, "decide", broken)
    answer = reply(BotPlayer(bot), ROLLED)
    assert answer == "Error: internal error"
