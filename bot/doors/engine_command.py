"""The ``ubgi`` and ``bei`` subcommands: the bot as an engine that other programs drive.

``nardy ubgi [--checkpoint PATH]``: UBGI on stdin/stdout (``bot.doors.ubgi``); the depth,
level and checkpoint are the protocol's keys, set by the controller. ``nardy bei [--host H]
[--port P] [--plies N | --level L] [--checkpoint PATH]``: BEI over TCP (``bot.doors.bei``), as
many clients as the external-player server takes.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import IO, TextIO, Union

from bot.facade import Bot


def _run_ubgi(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from bot.doors.ubgi import run_stdio

    bot = Bot.load(args.checkpoint)
    return run_stdio(bot, _raw(stdin), stdout)


def _raw(stdin: TextIO) -> Union[IO[bytes], IO[str]]:
    """The process's stdin as unbuffered bytes (a stray non-UTF-8 byte is then replaced, not fatal).

    Unbuffered, because the reader thread may still be blocked in a read when ``quit`` ends the
    process, and one blocked inside a buffered reader aborts the interpreter's exit.
    """
    if stdin is not sys.stdin:
        return stdin
    try:
        return io.FileIO(stdin.fileno(), "rb", closefd=False)
    except (OSError, ValueError, io.UnsupportedOperation):  # no file descriptor (an embedding host)
        return stdin


def _run_bei(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from bot.doors.bei import BeiServer

    with BeiServer(Bot.load(args.checkpoint), args.host, args.port, args.plies, level=args.level) as server:
        stdout.write(f"BEI engine listening on {args.host}:{server.server_address[1]}\n")
        stdout.flush()
        server.serve_forever()
    return 0


def add_ubgi(subparsers) -> None:
    """The ``ubgi`` subcommand."""
    from bot.doors.cli import _add_common

    p = subparsers.add_parser(
        "ubgi",
        help="be a UBGI engine on stdin/stdout (bgci's Universal Backgammon Interface, v0.2)",
        description="Speak UBGI on stdin/stdout: send 'ubgi', then 'position gnubgid ID', 'dice 3 1', "
        "'go'. Depth, playing level and checkpoint are keys ('keys' lists them, 'set' changes them).",
    )
    _add_common(p)
    p.set_defaults(run=_run_ubgi)


def add_bei(subparsers) -> None:
    """The ``bei`` subcommand."""
    from bot.doors.bei import DEFAULT_PORT
    from bot.doors.cli import _add_address, _add_common, _add_level, _add_plies

    p = subparsers.add_parser(
        "bei",
        help="serve BEI (bgammon.org's Backgammon Engine Interface) over TCP",
        description="A BEI engine server: clients send 'bei', then 'move STATE' or 'double STATE' "
        "(45 comma-separated integers) and get JSON events back.",
    )
    _add_address(p, DEFAULT_PORT)
    _add_level(p)
    _add_plies(p)
    _add_common(p)
    p.set_defaults(run=_run_bei)
