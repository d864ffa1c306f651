"""The ``cube`` subcommand: a position's cube decision for money and, with ``--matrix N``, at every score of an
N-point match.

``nardy cube POSITION [--matrix N] [--plies P] [--variant V] [--json]``: the side on roll of POSITION (a
Position ID, ``PositionID:MatchID`` or XGID; with ``--variant long`` a long nardy Position ID; its own cube and
score are set aside) with the cube centred, centred under the Jacoby rule (in a game that has it) and owned, for
money; with ``--matrix`` the score matrix of ``bot.play.score_matrix`` (priced by the game's own match equity
table) as a table read at a glance, rows the side on roll's points to go, columns the opponent's. ``--json``
prints ``{"variant", "position_id", "plies", "money": [cell...], "matrix": {...}}``.
"""

from __future__ import annotations

import argparse
import json
from typing import Optional, TextIO

from bot.doors.bounds import MAX_MATCH_LENGTH, Bounded
from bot.doors.cli import _add_game, _add_position, _add_plies, _add_common
from bot.doors.codecs import codec_for
from bot.doors.situation import Situation
from bot.facade import Bot, check_game_on
from bot.play.score_matrix import ScoreMatrix, format_matrix, format_money, money_cube, score_matrix


def read_cube_position(bot: Bot, position: str) -> Situation:
    """The situation of ``position`` as the bot's game writes it, refused when its game is over."""
    situation = codec_for(bot.variant).read_position(position)
    check_game_on(situation.board, bot.variant)
    return situation


def cube_json(bot: Bot, position: str, length: Optional[int], plies: int) -> dict:
    """The money decisions and, with ``length``, the score matrix of ``position``'s side on roll, as JSON data."""
    codec = codec_for(bot.variant)
    situation = read_cube_position(bot, position)
    data: dict = {
        "variant": codec.api_name,
        "position_id": situation.position_id,
        "plies": plies,
        "money": [c.to_json() for c in money_cube(bot, situation.board, plies, jacoby=codec.jacoby)],
    }
    if length is not None:
        data["matrix"] = score_matrix(bot, situation.board, length, plies).to_json()
    return data


def _run_cube(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    bot = Bot.load(args.checkpoint, variant=args.game)
    if args.json:
        stdout.write(json.dumps(cube_json(bot, args.position, args.matrix, args.plies)) + "\n")
        return 0
    codec = codec_for(bot.variant)
    situation = read_cube_position(bot, args.position)
    board = situation.board
    what = f"the side on roll's cube decisions{codec.game_words}, {args.plies}-ply"
    lines = [f"Position ID: {situation.position_id} ({what})"]
    matrix: Optional[ScoreMatrix] = None
    if args.matrix is not None:
        matrix = score_matrix(bot, board, args.matrix, args.plies)
    money = money_cube(bot, board, args.plies, jacoby=codec.jacoby)
    if matrix is not None:
        lines += format_matrix(matrix, money)
    else:
        lines += ["Money:"] + format_money(money)
    stdout.write("\n".join(lines) + "\n")
    return 0


def add_cube(subparsers) -> None:
    """The ``cube`` subcommand."""
    p = subparsers.add_parser("cube", help="a position's cube decision for money and at every score of a match")
    _add_position(p)
    p.add_argument(
        "--matrix",
        metavar="N",
        action=Bounded,
        low=1,
        high=MAX_MATCH_LENGTH,
        help="also the decision at every score of an N-point match",
    )
    _add_game(p)
    _add_plies(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_common(p)
    p.set_defaults(run=_run_cube)
