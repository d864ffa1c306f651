"""Command line for the rules engine.

``python -m engine moves POSITION_ID DICE [--json]``: every legal play, one per
line as ``notation<TAB>Position ID after the play`` (opponent on roll).
``python -m engine show POSITION``: the board as text; POSITION is a Position
ID, ``PositionID:MatchID`` or an XGID.

Bad input prints one ``error: ...`` line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn, Sequence

from engine.board import flip
from engine.errors import BackgammonError
from engine.notation import format_play
from engine.plays import Play, legal_plays
from engine.position_id import decode_position_id, encode_position_id
from engine.positions import read_position
from engine.render import render_board


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
    return render_board(setup.board, dice=setup.dice, cube_value=m.cube_value, cube_owner=owner,
                        score=(m.score[me], m.score[1 - me]), match_length=m.match_length,
                        names=(setup.names[me], setup.names[1 - me]))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = _Parser(prog="python -m engine", description="Backgammon rules engine: legal moves and boards.")
    commands = parser.add_subparsers(dest="command", required=True)
    moves = commands.add_parser("moves", help="list every legal play of a roll")
    moves.add_argument("position_id", help="GNU Backgammon Position ID, the player to move on roll")
    moves.add_argument("dice", help="the roll, e.g. 31")
    moves.add_argument("--json", action="store_true", help='print {"moves": [{"move", "position_id"}]}')
    show = commands.add_parser("show", help="draw a position")
    show.add_argument("position", help="Position ID, PositionID:MatchID or XGID=...")
    args = parser.parse_args(argv)
    try:
        if args.command == "moves":
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
