"""eXtreme Gammon's XGID:
``XGID=<position>:<cube>:<cube pos>:<turn>:<dice>:<score bottom>:<score top>:<rules>:<length>:<max cube>``.

The 26 position characters: char 0 the top player's bar, chars 1..24 points
1..24 of the bottom player (who moves 24 -> 1), char 25 the bottom player's
bar; ``A``..``O`` = 1..15 bottom checkers, ``a``..``o`` top checkers, ``-`` none.
Cube position 1 bottom owns, 0 centred, -1 top owns; turn 1 bottom, -1 top;
dice ``00`` = about to roll, ``D`` = a double is offered, else two digits.

The board is kept in our convention, in the view of the player whose turn it is.

>>> x = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
>>> int(x.board[24]), x.turn, x.max_cube
(2, 1, 1024)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from engine.board import flip, read_int, validate_board
from engine.errors import InvalidPositionError, quote
from engine.position import BoardFields

# GNU Backgammon's largest cube is 2^12 (MAX_CUBE); match lengths fit the Match ID's 15 bits.
MAX_CUBE_LOG2 = 12
MAX_LENGTH = (1 << 15) - 1

BOTTOM = 1
TOP = -1


@dataclass(frozen=True)
class Xgid(BoardFields):
    """The fields of an XGID.

    ``board``: our 26-vector in the view of the player whose turn it is (``turn``:
    1 bottom, -1 top). ``cube_owner``: 1 bottom, 0 centred, -1 top. ``dice``: None
    when the player is about to roll or answer a double (``double_offered``).
    Match play (``match_length`` > 0) uses ``crawford``; money uses ``jacoby``
    and ``beavers``. ``max_cube``: the largest cube value allowed.
    """

    turn: int = BOTTOM
    cube_value: int = 1
    cube_owner: int = 0
    dice: tuple[int, int] | None = None
    double_offered: bool = False
    score_bottom: int = 0
    score_top: int = 0
    match_length: int = 0
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    max_cube: int = 1024


# (name, lowest, highest) of each numeric field; checked as text before int() sees it.
_NUMBERS = (
    ("cube", 0, MAX_CUBE_LOG2),
    ("cube position", -1, 1),
    ("turn", -1, 1),
    ("score bottom", 0, MAX_LENGTH),
    ("score top", 0, MAX_LENGTH),
    ("rules", 0, 3),
    ("match length", 0, MAX_LENGTH),
    ("max cube", 0, 15),
)


def parse_xgid(text: str) -> Xgid:
    """Read an XGID (with or without ``XGID=``); raise InvalidPositionError naming it when malformed."""
    what = f"XGID {quote(text)}"
    if not isinstance(text, str):
        raise InvalidPositionError(f"{what}: expected text")
    body = text.strip()
    if body.upper().startswith("XGID="):
        body = body[5:]
    fields = body.split(":")
    if len(fields) != 10:
        raise InvalidPositionError(f"{what}: expected 10 fields separated by ':', got {len(fields)}")
    position, cube, cube_pos, turn, dice, bottom, top, rules, length, max_cube = fields
    if not re.fullmatch(r"[-A-Oa-o]{26}", position):
        raise InvalidPositionError(f"{what}: the position must be 26 characters of '-', A-O, a-o")
    bottom_view = np.zeros(26, dtype=np.int64)
    for i, ch in enumerate(position):
        if ch != "-":
            bottom_view[i] = ord(ch) - ord("A") + 1 if ch.isupper() else -(ord(ch) - ord("a") + 1)
    if bottom_view[0] > 0 or bottom_view[25] < 0:
        raise InvalidPositionError(f"{what}: char 0 is the top player's bar (a-o), char 25 the bottom's (A-O)")
    texts = (cube, cube_pos, turn, bottom, top, rules, length, max_cube)
    values = {name: read_int(t, name, what, low, high) for (name, low, high), t in zip(_NUMBERS, texts)}
    if values["turn"] not in (BOTTOM, TOP):
        raise InvalidPositionError(f"{what}: turn must be 1 (bottom) or -1 (top), got {turn}")
    if values["cube"] > min(values["max cube"], MAX_CUBE_LOG2):
        raise InvalidPositionError(f"{what}: cube 2^{values['cube']} is above the maximum 2^{values['max cube']}")
    if values["cube position"] == 0 and values["cube"]:
        raise InvalidPositionError(f"{what}: a centred cube (position 0) is on 1, not 2^{values['cube']}")
    if dice == "00":
        parsed_dice, offered = None, False
    elif dice == "D":
        parsed_dice, offered = None, True
    elif re.fullmatch(r"[1-6]{2}", dice):
        parsed_dice, offered = (int(dice[0]), int(dice[1])), False
    else:
        raise InvalidPositionError(f"{what}: dice {quote(dice, 20)} must be '00', 'D' or two digits 1-6")
    match_length, rules_value = values["match length"], values["rules"]
    if match_length < 0 or values["score bottom"] < 0 or values["score top"] < 0:
        raise InvalidPositionError(f"{what}: match length and scores cannot be negative")
    if match_length and max(values["score bottom"], values["score top"]) >= match_length:
        raise InvalidPositionError(f"{what}: a score reaches the match length {match_length}")
    if not 0 <= rules_value <= (1 if match_length else 3):
        raise InvalidPositionError(f"{what}: rules {rules_value} out of range")
    if match_length and rules_value & 1 and match_length - 1 not in (values["score bottom"], values["score top"]):
        raise InvalidPositionError(f"{what}: the Crawford game needs a side at {match_length - 1} points")
    board = bottom_view if values["turn"] == BOTTOM else flip(bottom_view)
    return Xgid(
        board=validate_board(board, what),
        turn=values["turn"],
        cube_value=1 << values["cube"],
        cube_owner=values["cube position"],
        dice=parsed_dice,
        double_offered=offered,
        score_bottom=values["score bottom"],
        score_top=values["score top"],
        match_length=match_length,
        crawford=bool(match_length and rules_value & 1),
        jacoby=bool(not match_length and rules_value & 1),
        beavers=bool(not match_length and rules_value & 2),
        max_cube=1 << values["max cube"],
    )


def format_xgid(x: Xgid) -> str:
    """The XGID text (with ``XGID=``) of ``x``."""
    board = validate_board(x.board, "XGID board")
    bottom_view = board if x.turn == BOTTOM else flip(board)
    chars = []
    for n in bottom_view.tolist():
        chars.append("-" if n == 0 else chr(ord("A") + n - 1) if n > 0 else chr(ord("a") - n - 1))
    if x.dice is not None and x.double_offered:
        raise InvalidPositionError("XGID: dice and a double offered at once")
    dice = "D" if x.double_offered else "00" if x.dice is None else f"{x.dice[0]}{x.dice[1]}"
    rules = int(x.crawford) if x.match_length else int(x.jacoby) | int(x.beavers) << 1
    fields = [
        "".join(chars),
        x.cube_value.bit_length() - 1,
        x.cube_owner,
        x.turn,
        dice,
        x.score_bottom,
        x.score_top,
        rules,
        x.match_length,
        x.max_cube.bit_length() - 1,
    ]
    return "XGID=" + ":".join(str(f) for f in fields)
