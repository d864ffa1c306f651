"""An ASCII board like GNU Backgammon's text board, for a board in the view of the side on roll.

The side on roll is ``X`` and moves 24 -> 1 along the bottom (points 12..1,
home board on the right); the opponent is ``O``. Points 13-24 are on top. A
column shows up to 5 checkers; the fifth row shows the count when there are
more. The bar is the middle column (``O`` on top, ``X`` below), borne-off
checkers are on the right, and the side notes give names, scores, pip counts,
cube and dice.
"""

from __future__ import annotations

import numpy as np

from engine.board import borne_off, pip_counts, validate_board

_COUNT = "     X6789ABCDEF"


def checker_cell(n: int, row: int) -> str:
    """The character of a column holding ``n`` checkers (positive X, negative O) on ``row`` 0..4.

    Rows 0..3 show a checker each; row 4 the count when the column holds five or more (both games' boards).

    >>> [checker_cell(-2, row) for row in range(5)], checker_cell(12, 4)
    (['O', 'O', ' ', ' ', ' '], 'C')
    """
    mark = "X" if n > 0 else "O"
    n = abs(n)
    if row < 4:
        return mark if n > row else " "
    return (_COUNT[n] if n < len(_COUNT) else "+").replace("X", mark) if n >= 5 else " "


def _half(board: np.ndarray, left: range, right: range, bar: int, off: int, off_mark: str, top: bool) -> list[str]:
    rows = []
    for row in range(5):
        line = " |"
        line += "".join(f" {checker_cell(int(board[p]), row)} " for p in left)
        line += f"| {checker_cell(bar, row)} |"
        line += "".join(f" {checker_cell(int(board[p]), row)} " for p in right)
        line += "| " + "".join(off_mark if off > 5 * col + row else " " for col in range(3))
        rows.append(line)
    return rows if top else rows[::-1]


def render_board(
    board: np.ndarray,
    *,
    dice: tuple[int, int] | None = None,
    cube_value: int = 1,
    cube_owner: int = 0,
    score: tuple[int, int] = (0, 0),
    match_length: int = 0,
    names: tuple[str, str] = ("on roll", "opponent"),
) -> str:
    """The board as text; ``board`` in the view of the side on roll (``X``, at the bottom).

    ``cube_owner``: 1 the side on roll, -1 the opponent, 0 centred. ``score`` and
    ``names``: (side on roll, opponent). ``match_length`` 0 is a money game.
    """
    board = validate_board(board)
    x_pips, o_pips = pip_counts(board)
    x_off, o_off = borne_off(board)
    top = _half(board, range(13, 19), range(19, 25), int(board[0]), o_off, "O", top=True)
    bottom = _half(board, range(12, 6, -1), range(6, 0, -1), int(board[25]), x_off, "X", top=False)
    points = "{} points" if match_length else ""
    top_notes = [f"pips {o_pips}, off {o_off}", points.format(score[1]), "", "", ""]
    bottom_notes = [
        "",
        "",
        f"pips {x_pips}, off {x_off}",
        f"Rolled {dice[0]}{dice[1]}" if dice else "On roll",
        points.format(score[0]),
    ]
    cube = f" (Cube: {cube_value})"
    middle = (f"{match_length} point match" if match_length else "money game") + (cube if cube_owner == 0 else "")
    lines = [" +13-14-15-16-17-18------19-20-21-22-23-24-+     O: " + names[1] + (cube if cube_owner == -1 else "")]
    lines += [f"{row}  {note}" for row, note in zip(top, top_notes)]
    lines.append("v|                  |BAR|                  |     " + middle)
    lines += [f"{row}  {note}" for row, note in zip(bottom, bottom_notes)]
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+     X: " + names[0] + (cube if cube_owner == 1 else ""))
    return "\n".join(line.rstrip() for line in lines) + "\n"
