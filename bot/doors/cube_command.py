"""The ``cube`` subcommand: a position's cube decision for money and, with ``--matrix N``, at every score of an
N-point match.

``nardy cube POSITION [--matrix N] [--plies P] [--json]``: the side on roll of POSITION (a
Position ID, ``PositionID:MatchID`` or XGID; its own cube and score are set aside) with the cube
centred, centred under the Jacoby rule and owned, for money; with ``--matrix`` the score matrix of
``bot.play.score_matrix`` as a table read at a glance, rows the side on roll's points to go, columns the
opponent's. ``--json`` prints ``{"position_id", "plies", "money": [cell...], "matrix": {...}}``.
"""

from __future__ import annotations

import argparse
import json
from typing import Optional, TextIO

from bot.doors.bounds import MAX_MATCH_LENGTH, Bounded
from bot.doors.situation import parse_position
from bot.facade import PLIES, Bot, check_game_on
from bot.play.score_matrix import ScoreMatrix, format_matrix, format_money, money_cube, score_matrix


def cube_json(bot: Bot, position: str, length: Optional[int], plies: int) -> dict:
    """The money decisions and, with ``length``, the score matrix of ``position``'s side on roll, as JSON data."""
    situation = parse_position(position)
    board = check_game_on(situation.board)
    data: dict = {
        "position_id": situation.position_id,
        "plies": plies,
        "money": [c.to_json() for c in money_cube(bot, board, plies)],
    }
    if length is not None:
        data["matrix"] = score_matrix(bot, board, length, plies).to_json()
    return data


def _run_cube(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    bot = Bot.load(args.checkpoint)
    if args.json:
        stdout.write(json.dumps(cube_json(bot, args.position, args.matrix, args.plies)) + "\n")
        return 0
    situation = parse_position(args.position)
    board = check_game_on(situation.board)
    lines = [f"Position ID: {situation.position_id} (the side on roll's cube decisions, {args.plies}-ply)"]
    matrix: Optional[ScoreMatrix] = None
    if args.matrix is not None:
        matrix = score_matrix(bot, board, args.matrix, args.plies)
    money = money_cube(bot, board, args.plies)
    if matrix is not None:
        lines += format_matrix(matrix, money)
    else:
        lines += ["Money:"] + format_money(money)
    stdout.write("\n".join(lines) + "\n")
    return 0


def add_cube(subparsers) -> None:
    """The ``cube`` subcommand."""
    p = subparsers.add_parser("cube", help="a position's cube decision for money and at every score of a match")
    p.add_argument(
        "position",
        metavar="POSITION",
        help="Position ID, PositionID:MatchID or XGID (its cube and score are set aside)",
    )
    p.add_argument(
        "--matrix",
        metavar="N",
        action=Bounded,
        low=1,
        high=MAX_MATCH_LENGTH,
        help="also the decision at every score of an N-point match",
    )
    p.add_argument("--plies", type=int, choices=PLIES, default=0, help="search depth (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--checkpoint", metavar="PATH", help="network checkpoint (default: the shipped bot)")
    p.set_defaults(run=_run_cube)
