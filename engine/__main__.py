"""Command line for the rules engine.

``python -m engine moves POSITION_ID DICE [--json]``: every legal play, one per
line as ``notation<TAB>Position ID after the play`` (opponent on roll).
``python -m engine moves --variant long POSITION DICE [--json]``: every legal long
nardy play and the position text after it, still in the mover's view; with
``--json`` one ``{"play": ..., "after": ...}`` object per line. ``--variant`` takes
every spelling ``engine.variant.find_variant`` reads (``long``, ``long-nardy``, ``bg`` ...).
``python -m engine show POSITION``: the board as text; POSITION is a Position
ID, ``PositionID:MatchID`` or an XGID.
``python -m engine long-nardy moves|show ...``: long nardy with the Position ID
after each play (opponent on roll). Long nardy positions are Position IDs or
position text such as ``24x15/24x15`` (docs/long_nardy.md).

Bad input prints one ``error: ...`` line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn, Sequence

from engine.board import flip
from engine.errors import BackgammonError
from engine.long_nardy import LongPosition, Rules, format_long_text, render_long_board
from engine.long_nardy import legal_plays as long_legal_plays
from engine.notation import format_play
from engine.plays import Play, legal_plays
from engine.position_id import decode_position_id, encode_position_id
from engine.position_formats import read_position
from engine.render import render_board
from engine.variant import find_variant


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one ``error: ...`` line, like the engine's."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message}\n")


def _play_order(play: Play) -> list[tuple[int, int]]:
    """Sort key: the steps, highest source point first (plays then come highest first)."""
    return sorted(((s.src, s.dst) for s in play.steps), reverse=True)


def moves_command(position_id: str, dice: str, as_json: bool) -> str:
    """The text ``moves`` prints: each legal play and the Position ID after it."""
    board = decode_position_id(position_id)
    plays = [p for p in legal_plays(board, dice) if p.steps]
    plays.sort(key=_play_order, reverse=True)
    rows = [(format_play(p), encode_position_id(flip(p.afterstate))) for p in plays]
    if as_json:
        return json.dumps({"moves": [{"move": m, "position_id": pid} for m, pid in rows]}) + "\n"
    return "".join(f"{m}\t{pid}\n" for m, pid in rows)


def show_command(position: str) -> str:
    """The text ``show`` prints: the board of a Position ID, ``PositionID:MatchID`` or XGID."""
    setup = read_position(position)
    m, me = setup.match, setup.player
    owner = 0 if m.cube_owner is None else 1 if m.cube_owner == me else -1
    return render_board(
        setup.board,
        dice=setup.dice,
        cube_value=m.cube_value,
        cube_owner=owner,
        score=(m.score[me], m.score[1 - me]),
        match_length=m.match_length,
        names=(setup.names[me], setup.names[1 - me]),
    )


def _long_plays(position: str, dice: str, rules: Rules) -> list[Play]:
    """The legal plays of a long nardy Position ID or position text, highest steps first (none when it cannot move)."""
    board = LongPosition.from_id(position).board
    plays = [p for p in long_legal_plays(board, dice, rules) if p.steps]
    plays.sort(key=_play_order, reverse=True)
    return plays


def long_moves_command(position: str, dice: str, as_json: bool, rules: Rules) -> str:
    """The text ``long-nardy moves`` prints: each legal play and the long nardy Position ID after it."""
    rows = [(format_play(p), LongPosition(p.afterstate).flipped().id) for p in _long_plays(position, dice, rules)]
    if as_json:
        return json.dumps({"moves": [{"move": m, "position_id": pid} for m, pid in rows]}) + "\n"
    return "".join(f"{m}\t{pid}\n" for m, pid in rows)


def long_text_moves_command(position: str, dice: str, as_json: bool, rules: Rules) -> str:
    """The text ``moves --variant long`` prints: each legal play and the position text after it, mover's view."""
    rows = [(format_play(p), format_long_text(p.afterstate)) for p in _long_plays(position, dice, rules)]
    if as_json:
        return "".join(json.dumps({"play": m, "after": after}) + "\n" for m, after in rows)
    width = max((len(m) for m, _ in rows), default=0)
    return "".join(f"{m:<{width}}  {after}\n" for m, after in rows)


def _add_rule_options(parser: argparse.ArgumentParser) -> None:
    """The long nardy rule flags a moves command takes (absent: the default rules)."""
    parser.add_argument(
        "--head-doubles",
        help="long nardy: doubles letting two checkers leave the head on the first turn (default 346)",
    )
    parser.add_argument(
        "--block-check",
        choices=("step", "turn"),
        help="long nardy: check the six-point block after every step (default) or at the end of the turn",
    )


def _variant_name(spelling: str) -> str:
    """The canonical name of ``--variant``'s game; a usage error listing the known names otherwise."""
    try:
        return find_variant(spelling).name
    except BackgammonError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _rules(args: argparse.Namespace) -> Rules:
    """The long nardy rules the command line asked for."""
    given = {"head_doubles": args.head_doubles, "block_check": args.block_check}
    return Rules(**{name: value for name, value in given.items() if value is not None})


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = _Parser(prog="python -m engine", description="Backgammon rules engine: legal moves and boards.")
    commands = parser.add_subparsers(dest="command", required=True)
    moves = commands.add_parser("moves", help="list every legal play of a roll")
    moves.add_argument(
        "position_id",
        help="GNU Backgammon Position ID, or with --variant long a long nardy Position ID or position text "
        "(24x15/24x15), the player to move on roll",
    )
    moves.add_argument("dice", help="the roll, e.g. 31")
    moves.add_argument(
        "--json",
        action="store_true",
        help='print {"moves": [{"move", "position_id"}]}; with --variant long one {"play", "after"} per line',
    )
    moves.add_argument(
        "--variant", type=_variant_name, default="backgammon", help="the game: backgammon (default) or long"
    )
    _add_rule_options(moves)
    show = commands.add_parser("show", help="draw a position")
    show.add_argument("position", help="Position ID, PositionID:MatchID or XGID=...")
    long = commands.add_parser("long-nardy", help="long nardy: legal moves and boards")
    long_commands = long.add_subparsers(dest="long_command", required=True)
    long_moves = long_commands.add_parser("moves", help="list every legal long nardy play of a roll")
    long_moves.add_argument("position_id", help="long nardy Position ID or position text, the player to move on roll")
    long_moves.add_argument("dice", help="the roll, e.g. 31")
    long_moves.add_argument("--json", action="store_true", help='print {"moves": [{"move", "position_id"}]}')
    _add_rule_options(long_moves)
    long_show = long_commands.add_parser("show", help="draw a long nardy position")
    long_show.add_argument("position_id", help="long nardy Position ID or position text (24x15/24x15)")
    args = parser.parse_args(argv)
    if args.command == "moves" and args.variant == "backgammon" and {args.head_doubles, args.block_check} != {None}:
        parser.error("--head-doubles and --block-check need --variant long")
    try:
        if args.command == "long-nardy" and args.long_command == "moves":
            output = long_moves_command(args.position_id, args.dice, args.json, _rules(args))
        elif args.command == "long-nardy":
            output = render_long_board(LongPosition.from_id(args.position_id).board)
        elif args.command == "moves" and args.variant == "long_nardy":
            output = long_text_moves_command(args.position_id, args.dice, args.json, _rules(args))
        elif args.command == "moves":
            output = moves_command(args.position_id, args.dice, args.json)
        else:
            output = show_command(args.position)
    except BackgammonError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
