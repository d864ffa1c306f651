"""A long nardy board as ASCII text, for a board in the view of the side on roll.

The side on roll is ``X``: its head (24) is top right, it moves right to left along
the top (24..13), then left to right along the bottom (12..1), home (6..1) bottom
right. The opponent ``O`` moves the same way round from its head, the mover's 12
(bottom left), to its home, the mover's 13..18 (top left). The points carry the
mover's numbers; a column shows up to 5 checkers, the fifth row the count when there
are more (in digits: a head holds up to 15).

>>> from engine.long_nardy.board import START
>>> print(render_long_board(START, dice=(6, 5)), end="")
 +13-14-15-16-17-18--19-20-21-22-23-24-+  O: opponent
 |                  |                X | pips 360, off 0
 |                  |                X |
 |                  |                X |
 |                  |                X |
 |                  |               15 |
 |                  |                  |  long nardy, money
 |15                |                  |
 | O                |                  |
 | O                |                  |
 | O                |                  |
 | O                |                  | pips 360, off 0, rolled 65
 +12-11-10--9--8--7---6--5--4--3--2--1-+  X: on roll
"""

from __future__ import annotations

import numpy as np

from engine.long_nardy.board import borne_off, pip_counts, validate_board
from engine.render import checker_cell

__all__ = ["render_long_board"]


def _column(n: int, row: int) -> str:
    """A point's three characters on ``row``: a head's count of 10 to 15 in digits, not backgammon's hex letters."""
    return f"{abs(n):>2} " if row == 4 and abs(n) >= 10 else f" {checker_cell(n, row)} "


def _rows(board: np.ndarray, points: list[int], top: bool) -> list[str]:
    """Five text rows of one half of the board, ``points`` left to right."""
    rows = []
    for row in range(5):
        left = "".join(_column(int(board[p]), row) for p in points[:6])
        right = "".join(_column(int(board[p]), row) for p in points[6:])
        rows.append(f" |{left}|{right}|")
    return rows if top else rows[::-1]


def render_long_board(
    board: np.ndarray,
    *,
    dice: tuple[int, int] | None = None,
    cube: str = "",
    score: tuple[int, int] | None = None,
    match_length: int = 0,
    names: tuple[str, str] = ("on roll", "opponent"),
) -> str:
    """The board as text; ``board`` in the view of the side on roll (``X``, bottom line).

    ``cube``: a note on the stake (e.g. ``"cube 2, owned by X"``), empty for none.
    ``score`` and ``names``: (side on roll, opponent). ``match_length`` 0 is money play.
    """
    board = validate_board(board)
    x_pips, o_pips = pip_counts(board)
    x_off, o_off = borne_off(board)
    top = _rows(board, list(range(13, 25)), top=True)
    bottom = _rows(board, list(range(12, 0, -1)), top=False)
    game = f"long nardy, {match_length}-point match" if match_length else "long nardy, money"
    if score is not None:
        game += f", score {score[0]}-{score[1]}"
    if cube:
        game += f", {cube}"
    roll = f", rolled {dice[0]}{dice[1]}" if dice else ""
    lines = [" +13-14-15-16-17-18--19-20-21-22-23-24-+  O: " + names[1]]
    lines += [top[0] + f" pips {o_pips}, off {o_off}"] + top[1:]
    lines.append(" |                  |                  |  " + game)
    lines += bottom[:-1] + [bottom[-1] + f" pips {x_pips}, off {x_off}{roll}"]
    lines.append(" +12-11-10--9--8--7---6--5--4--3--2--1-+  X: " + names[0])
    return "\n".join(line.rstrip() for line in lines) + "\n"
