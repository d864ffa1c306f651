"""The command line: ``python -m bot SUBCOMMAND`` (or ``nardy SUBCOMMAND``).

Subcommands: ``play`` (a game or match against the bot in the terminal), ``match``
(computer players' matches, ``bot.play.match_play``), ``hint`` (ranked plays, or the cube
decision), ``cube`` (the cube decision for money and at every score of a match,
``bot.play.score_matrix``), ``eval`` (probabilities and equities), ``rollout`` (Monte-Carlo rollouts,
``bot.search.rollout``), ``analyze`` (a whole .mat or .sgf match analysed, ``bot.play.analysis``,
or a list of positions),
``external`` (GNU Backgammon's external-player server), ``serve`` (the web board and
the HTTP API), ``ubgi`` and ``bei`` (engine protocols, ``bot.doors.engine_command``).
Each only parses its arguments, calls ``bot.facade.Bot`` and prints. Bad input
(a ``BackgammonError``), a bad checkpoint or an operating-system error (a busy
port, a missing file) gives one ``error: ...`` line on stderr and exit status 2;
anything else is a bug: one ``internal error: ...`` line and exit status 1 (the
traceback too with ``-v``).

A subcommand is a function ``add(subparsers)`` in ``SUBCOMMANDS``: it adds its
parser and sets ``run=handler`` (``handler(args, stdin, stdout) -> int``).
"""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
from contextlib import contextmanager
from typing import Callable, Iterator, Optional, TextIO

import numpy as np
from threadpoolctl import threadpool_limits

from bot.evaluation.checkpoint import CheckpointError
from bot.facade import PLIES, Bot
from bot.doors.engine_command import add_bei, add_ubgi
from bot.doors.match_command import add_match
from bot.doors.rollout_command import add_rollout
from bot.play.levels import LEVEL_NAMES, level_named
from bot.doors.analyze_command import add_analyze
from bot.doors.cube_command import add_cube
from bot.doors import long_nardy_command
from bot.doors.bounds import MAX_MATCH_LENGTH, MAX_PORT, MAX_SEED, MAX_TOP, Bounded
from bot.doors.positions import Situation, parse_position
from bot.doors.text import describe_state, format_cube, format_evaluation, format_ranked_plays
from engine.board import pip_counts, validate_dice
from engine.errors import BackgammonError

EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 1
# BLAS threads for the doors' small batches (tens to a few thousand boards): one, because with
# more the threads wait on each other, and on a busy machine a move choice slows many times over.
INFERENCE_THREADS = 1
DEFAULT_TOP = 10
HTTP_PORT = 8080  # the HTTP API's default port (wildbg's server uses 8080 too)


@contextmanager
def inference_threads() -> Iterator[None]:
    """Run numpy's BLAS on ``INFERENCE_THREADS`` threads inside the block, then restore the count.

    The count is process-wide (the servers' worker threads share it). ``bot.__main__.main``
    runs every subcommand inside it.
    """
    with threadpool_limits(limits=INFERENCE_THREADS, user_api="blas"):
        yield


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--checkpoint", metavar="PATH", help="network checkpoint (default: the shipped bot)")


def _add_position(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("position", metavar="POSITION", help="Position ID, PositionID:MatchID or XGID")


def _add_game(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        choices=long_nardy_command.GAME_NAMES,
        default="backgammon",
        help="backgammon (default) or long-nardy (long nardy Position IDs, its own network)",
    )


def _add_plies(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plies", type=int, choices=PLIES, default=0, help="search depth (default 0)")


def _add_level(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--level",
        type=level_named,
        default=None,
        metavar="|".join(LEVEL_NAMES),
        help="the bot's playing level (its depth and noise; --plies is then ignored)",
    )


def _add_address(parser: argparse.ArgumentParser, port: int) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--port", action=Bounded, low=0, high=MAX_PORT, default=port, help=f"port to listen on (default {port})"
    )


def _situation_header(situation: Situation) -> list[str]:
    mover, opponent = pip_counts(situation.board)
    return [
        f"Position ID: {situation.position_id}  ({describe_state(situation.state)})",
        f"Pips: side on roll {mover}, opponent {opponent}",
    ]


# ---------------------------------------------------------------- subcommands


def _load(args: argparse.Namespace) -> Bot:
    return Bot.load(args.checkpoint)


def _run_hint(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    if args.game == "long-nardy":
        return long_nardy_command.run_hint(args, stdin, stdout)
    situation = parse_position(args.position)
    dice = validate_dice(args.dice) if args.dice else situation.dice
    bot = _load(args)
    lines = _situation_header(situation)
    if dice is None:
        result = bot.evaluate(situation.board, situation.state, args.plies)
        lines += [f"Cube decision ({args.plies}-ply), no dice rolled:"] + format_evaluation(result)
        lines += format_cube(result)
    else:
        ranked = bot.rank_plays(situation.board, dice, plies=args.plies, top=args.top, state=situation.state)
        lines.append(f"Dice {dice[0]}{dice[1]}: best plays ({args.plies}-ply), equities for the mover after the play")
        lines += format_ranked_plays(ranked)
    stdout.write("\n".join(lines) + "\n")
    return 0


def _run_eval(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    situation = parse_position(args.position)
    result = _load(args).evaluate(situation.board, situation.state, args.plies)
    lines = _situation_header(situation) + [f"Evaluation ({args.plies}-ply):"]
    stdout.write("\n".join(lines + format_evaluation(result)) + "\n")
    return 0


def _run_play(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from bot.doors.terminal import TerminalSession

    if args.game == "long-nardy":
        return long_nardy_command.run_play(args, stdin, stdout)
    rng = np.random.default_rng(args.seed)
    return TerminalSession(_load(args), args.length, rng, stdin, stdout, args.plies, level=args.level).run()


def _run_external(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from bot.doors.external import ExternalServer

    with ExternalServer(_load(args), args.host, args.port, args.plies, level=args.level) as server:
        host, port = args.host, server.server_address[1]
        stdout.write(f"external player listening on {host}:{port} (in gnubg: set player 1 external {host}:{port})\n")
        stdout.flush()
        server.serve_forever()
    return 0


def _run_serve(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from bot.doors.http_app import serve

    serve(_load(args), args.host, args.port)
    return 0


def add_play(subparsers) -> None:
    p = subparsers.add_parser("play", help="play a game or match against the bot in the terminal")
    p.add_argument(
        "--length",
        action=Bounded,
        low=0,
        high=MAX_MATCH_LENGTH,
        default=0,
        help="match length in points (default 0: one money game)",
    )
    p.add_argument(
        "--seed", action=Bounded, low=0, high=MAX_SEED, default=None, help="seed of the dice (default: random)"
    )
    _add_level(p)
    _add_game(p)
    _add_plies(p)
    _add_common(p)
    p.set_defaults(run=_run_play)


def add_hint(subparsers) -> None:
    p = subparsers.add_parser("hint", help="ranked plays for a roll, or the cube decision without dice")
    _add_position(p)
    p.add_argument("dice", metavar="DICE", nargs="?", help="the roll, e.g. 31 (default: from the Match ID/XGID)")
    p.add_argument(
        "--top",
        action=Bounded,
        low=1,
        high=MAX_TOP,
        default=DEFAULT_TOP,
        help=f"show the best N plays (default {DEFAULT_TOP})",
    )
    _add_game(p)
    _add_plies(p)
    _add_common(p)
    p.set_defaults(run=_run_hint)


def add_eval(subparsers) -> None:
    p = subparsers.add_parser("eval", help="probabilities, cubeless and cubeful equity or match-winning chance")
    _add_position(p)
    _add_plies(p)
    _add_common(p)
    p.set_defaults(run=_run_eval)


def add_external(subparsers) -> None:
    from bot.doors.external import DEFAULT_PORT

    p = subparsers.add_parser("external", help="serve GNU Backgammon's external-player protocol over TCP")
    _add_address(p, DEFAULT_PORT)
    _add_level(p)
    _add_plies(p)
    _add_common(p)
    p.set_defaults(run=_run_external)


def add_serve(subparsers) -> None:
    p = subparsers.add_parser("serve", help="serve the HTTP JSON API (OpenAPI at /docs)")
    _add_address(p, HTTP_PORT)
    _add_common(p)
    p.set_defaults(run=_run_serve)


# Every subcommand, in the order `--help` lists them; a new one adds its `add(subparsers)` here.
SUBCOMMANDS: list[Callable] = [
    add_play,
    add_match,
    add_hint,
    add_cube,
    add_eval,
    add_external,
    add_serve,
    add_rollout,
    add_analyze,
    add_ubgi,
    add_bei,
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand of ``SUBCOMMANDS``."""
    parser = argparse.ArgumentParser(prog="nardy", description="A TD-Gammon-style backgammon bot.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the servers do")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def run(
    argv: Optional[list[str]] = None,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    stderr: TextIO = sys.stderr,
) -> int:
    """Run one command line; return its exit status (2 with ``error: ...`` on bad input, 1 on a bug)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse has printed its usage and message
        return int(exit_.code or 0)
    except BackgammonError as error:  # a number out of its bounds (bot.doors.bounds.Bounded)
        stderr.write(f"error: {error}\n")
        return EXIT_BAD_INPUT
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=stderr)
    try:
        return args.run(args, stdin, stdout)
    except (BackgammonError, CheckpointError, OSError) as error:  # bad input, a bad checkpoint, a busy port
        stderr.write(f"error: {error}\n")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug: say so, in one line unless asked for more
        if args.verbose:
            traceback.print_exc(file=stderr)
        hint = "" if args.verbose else " (run with -v for the traceback)"
        stderr.write(f"internal error: {type(error).__name__}: {error}{hint}\n")
        return EXIT_INTERNAL_ERROR
