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

A subcommand is a function ``add(subparsers)`` named in ``SUBCOMMANDS``: it adds its
parser and sets ``run=handler`` (``handler(args, stdin, stdout) -> int``). Its module is
imported only when the command line names it, so a cold ``hint`` loads no server.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional, TextIO

import numpy as np

from bot.evaluation.checkpoint import CheckpointError
from bot.facade import PLIES, Bot
from bot.doors.bounds import MAX_MATCH_LENGTH, MAX_PORT, MAX_SEED, MAX_TOP, Bounded
from bot.doors.situation import Situation
from bot.doors.text import describe_state, format_cube, format_evaluation, format_ranked_plays
from engine.board import validate_dice
from engine.errors import BackgammonError, InvalidOptionError

EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 1
# BLAS threads for the doors' small batches (tens to a few thousand boards): one, because with
# more the threads wait on each other, and on a busy machine a move choice slows many times over.
INFERENCE_THREADS = 1
DEFAULT_TOP = 10
# Subcommands whose code logs nothing: they skip importing and configuring ``logging`` (a cold hint's cost).
UNLOGGED = frozenset({"hint", "eval", "cube"})
HTTP_PORT = 8080  # the HTTP API's default port (wildbg's server uses 8080 too)
DESCRIPTION = (
    "nardy: a neural-network bot for backgammon and long nardy. Play it in the terminal (play) or on a web board "
    "in the browser (serve); ask it for hints, cube decisions, rollouts and the analysis of a match."
)
EPILOG = (
    f"Start with 'nardy play' (add --variant long for long nardy), or 'nardy serve' and open "
    f"http://127.0.0.1:{HTTP_PORT}/ for the web board. 'nardy COMMAND --help' tells more of each command."
)


@contextmanager
def inference_threads() -> Iterator[None]:
    """Run numpy's BLAS on ``INFERENCE_THREADS`` threads inside the block, then restore the count.

    The count is process-wide (the servers' worker threads share it). ``bot.__main__.main``
    runs every subcommand inside it, unless numpy's BLAS started on that count.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=INFERENCE_THREADS, user_api="blas"):
        yield


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--checkpoint", metavar="PATH", help="network checkpoint (default: the shipped bot)")


def _add_position(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("position", metavar="POSITION", help="Position ID, PositionID:MatchID or XGID")


def variant_name(name: str) -> str:
    """A game's canonical name from any of its variant's names (``engine.variant.find_variant``); argparse's
    error naming the names otherwise."""
    from engine.variant import find_variant

    try:
        return find_variant(name).name
    except BackgammonError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_game(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variant",
        "--game",
        dest="game",
        type=variant_name,
        default="backgammon",
        metavar="{backgammon,long}",
        help="backgammon (default) or long (long nardy: its Position IDs, its own network); also long-nardy",
    )


def _add_plies(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plies", type=int, choices=PLIES, default=0, help="search depth (default 0)")


def _add_level(parser: argparse.ArgumentParser) -> None:
    from bot.play.levels import LEVEL_NAMES, level_named

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


def _situation_header(situation: Situation, bot: Bot) -> list[str]:
    mover, opponent = bot.variant.pip_counts(situation.board)
    return [
        f"Position ID: {situation.position_id}  ({describe_state(situation.state)})",
        f"Pips: side on roll {mover}, opponent {opponent}",
    ]


# ---------------------------------------------------------------- subcommands


def _load(args: argparse.Namespace) -> Bot:
    """The bot of ``--checkpoint`` (default: the shipped one) for the game ``--variant`` names, if the command has
    one."""
    return Bot.load(args.checkpoint, variant=getattr(args, "game", "backgammon"))


def _read_position(args: argparse.Namespace, bot: Bot) -> Situation:
    """POSITION as the bot's game writes it (backgammon: Position ID, PositionID:MatchID or XGID)."""
    from bot.doors.codecs import codec_for

    return codec_for(bot.variant).read_position(args.position)


def _run_hint(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    bot = _load(args)
    situation = _read_position(args, bot)
    dice = validate_dice(args.dice) if args.dice else situation.dice
    lines = _situation_header(situation, bot)
    if dice is None:
        result = bot.evaluate(situation.board, situation.state, args.plies)
        lines += [f"Cube decision ({args.plies}-ply), no dice rolled:"] + format_evaluation(result, bot.variant)
        lines += format_cube(result)
    else:
        ranked = bot.rank_plays(situation.board, dice, plies=args.plies, top=args.top, state=situation.state)
        lines.append(f"Dice {dice[0]}{dice[1]}: best plays ({args.plies}-ply), equities for the mover after the play")
        lines += format_ranked_plays(ranked)
    stdout.write("\n".join(lines) + "\n")
    return 0


def _run_eval(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    bot = _load(args)
    situation = _read_position(args, bot)
    result = bot.evaluate(situation.board, situation.state, args.plies)
    lines = _situation_header(situation, bot) + [f"Evaluation ({args.plies}-ply):"]
    stdout.write("\n".join(lines + format_evaluation(result, bot.variant)) + "\n")
    return 0


def _run_play(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from bot.doors.terminal import TerminalSession

    if args.mat is not None:
        _check_writable(args.mat, "--mat")
    rng = np.random.default_rng(args.seed)
    session = TerminalSession(
        _load(args), args.length, rng, stdin, stdout, args.plies, level=args.level, cube=args.cube, mat=args.mat
    )
    return session.run()


def _check_writable(path: str, option: str) -> None:
    """Refuse, before a game is played, a file the session could not write: a folder, or in a missing or
    read-only folder."""
    target = Path(path)
    folder = target.parent
    if target.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
        why = "is a folder" if target.is_dir() else f"its folder {str(folder)!r} is missing or not writable"
        raise InvalidOptionError(f"{option} {path!r}: cannot write the record there ({why})")


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
    from bot.doors.http_limits import Limits

    limits = Limits(
        max_work=args.max_work,
        heavy_slots=args.heavy_slots,
        heavy_queue=args.heavy_queue,
        heavy_wait=float(args.heavy_wait),
        work_seconds=float(args.work_seconds),
    )
    serve(_load(args), args.host, args.port, limits)
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
    p.add_argument(
        "--cube", action="store_true", help="long nardy: play with the doubling cube (backgammon games always have it)"
    )
    p.add_argument(
        "--mat", metavar="FILE", help="record the games in FILE, a .mat file (long nardy's names it), for nardy analyze"
    )
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
    _add_game(p)
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
    from bot.doors.http_limits import Limits

    p = subparsers.add_parser(
        "serve", help="serve the web board (backgammon and long nardy, at /) and the HTTP JSON API (at /docs)"
    )
    _add_address(p, HTTP_PORT)
    _add_common(p)
    limits = Limits()  # the defaults, docs/http_limits.md
    for option, low, high, default, what in (
        ("--max-work", 1, 10**9, limits.max_work, "rollouts and analyses estimated over this many trial-plies get 400"),
        ("--heavy-slots", 1, 64, limits.heavy_slots, "requests above 0-ply computed at once"),
        ("--heavy-queue", 0, 10_000, limits.heavy_queue, "requests above 0-ply waiting at once; one more gets 503"),
        ("--heavy-wait", 0, 3600, int(limits.heavy_wait), "seconds a request waits for its slot before 503"),
        ("--work-seconds", 1, 86_400, int(limits.work_seconds), "seconds of work before a request is cancelled (503)"),
    ):
        p.add_argument(option, action=Bounded, low=low, high=high, default=default, help=f"{what} (default {default})")
    p.set_defaults(run=_run_serve)


# Every subcommand, in the order `--help` lists them, with its `add(subparsers)` as "module:function";
# a new one adds its line here.
SUBCOMMANDS: dict[str, str] = {
    "play": "bot.doors.cli:add_play",
    "match": "bot.doors.match_command:add_match",
    "hint": "bot.doors.cli:add_hint",
    "cube": "bot.doors.cube_command:add_cube",
    "eval": "bot.doors.cli:add_eval",
    "external": "bot.doors.cli:add_external",
    "serve": "bot.doors.cli:add_serve",
    "rollout": "bot.doors.rollout_command:add_rollout",
    "analyze": "bot.doors.analyze_command:add_analyze",
    "ubgi": "bot.doors.engine_command:add_ubgi",
    "bei": "bot.doors.engine_command:add_bei",
}


class _Version(argparse.Action):
    """``--version``, its version read only when asked: reading package metadata costs a cold hint 50 ms."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: Any = None):
        print(f"nardy {package_version()}")
        parser.exit()


def package_version() -> str:
    """The installed package's version; in a source checkout that is not installed, pyproject.toml's."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nardy")
    except PackageNotFoundError:
        pass
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]) + " (source checkout)"
    except (OSError, ValueError, KeyError, TypeError):
        return "unknown (not installed)"


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand of ``SUBCOMMANDS``, or with ``command`` alone: only its
    module is then imported (none for ``--version``)."""
    parser = argparse.ArgumentParser(prog="nardy", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the servers do")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the program's version and exit")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, home in SUBCOMMANDS.items():
        if command in (None, name):
            module, function = home.split(":")
            getattr(importlib.import_module(module), function)(subparsers)
    return parser


def _named_command(words: list[str]) -> Optional[str]:
    """The subcommand ``words`` run, when its parser alone can parse them: None for an unknown one (argparse
    lists the choices) or when the help of them all is asked for first; ``--version`` when that is."""
    for word in words:
        if word in ("-h", "--help"):
            return None
        if word == "--version":
            return word
        if not word.startswith("-"):  # the options before the subcommand take no value
            return word if word in SUBCOMMANDS else None
    return None


def run(
    argv: Optional[list[str]] = None,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    stderr: TextIO = sys.stderr,
) -> int:
    """Run one command line; return its exit status (2 with ``error: ...`` on bad input, 1 on a bug)."""
    parser = build_parser(_named_command(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse has printed its usage and message
        return int(exit_.code or 0)
    except BackgammonError as error:  # a number out of its bounds (bot.doors.bounds.Bounded)
        stderr.write(f"error: {error}\n")
        return EXIT_BAD_INPUT
    if args.verbose or args.command not in UNLOGGED:
        import logging

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
            import traceback

            traceback.print_exc(file=stderr)
        hint = "" if args.verbose else " (run with -v for the traceback)"
        stderr.write(f"internal error: {type(error).__name__}: {error}{hint}\n")
        return EXIT_INTERNAL_ERROR
