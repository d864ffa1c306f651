"""Long nardy position text: a position written for people, tests and other programs.

The side to move first, then the other side, a ``/`` between them; each side a
comma-separated list of ``point x count`` in that side's own numbering (24 its head,
1..6 its home), highest point first; checkers not listed are borne off. The start is
``24x15/24x15``; after the first side plays 5-5, the second side, now to move, sees
``24x15/24x14,4x1``. Reading also takes spaces around the separators, ``X`` for ``x``
and the points in any order; writing gives the form above. The board read or
written is in the view of the side written first.

>>> from engine.long_nardy.board import START
>>> format_long_text(START)
'24x15/24x15'
>>> b = parse_long_text(" 4x1, 24X14 / 24x15")
>>> int(b[24]), int(b[4]), int(b[12]), format_long_text(b)
(14, 1, -15, '24x14,4x1/24x15')
"""

from __future__ import annotations

import re

import numpy as np

from engine.errors import InvalidPositionError, quote
from engine.long_nardy.board import CHECKERS, board_from_side_counts, side_counts, validate_board

__all__ = ["format_long_text", "parse_long_text"]

_ITEM = re.compile(r"\s*(\d{1,3})\s*[xX]\s*(\d{1,3})\s*", re.ASCII)  # bounded: int() never sees 5,000 digits


def _side(text: str, name: str, what: str) -> list[int]:
    """One side's checkers on its own points 1..24 (index 0 is point 1) from its ``point x count`` list."""
    counts = [0] * 24
    if not text.strip():
        return counts
    for item in text.split(","):
        match = _ITEM.fullmatch(item)
        if match is None:
            raise InvalidPositionError(f"{what}: {quote(item.strip())} is not 'point x count', e.g. 24x15")
        point, count = int(match[1]), int(match[2])
        if not 1 <= point <= 24:
            raise InvalidPositionError(f"{what}: point {point} of the {name} is not 1..24")
        if not 1 <= count <= CHECKERS:
            raise InvalidPositionError(f"{what}: {count} checkers on the {name}'s point {point}, not 1..{CHECKERS}")
        if counts[point - 1]:
            raise InvalidPositionError(f"{what}: the {name}'s point {point} is listed twice")
        counts[point - 1] = count
    return counts


def parse_long_text(text: str) -> np.ndarray:
    """The board (the first-written side's view) of position text; InvalidPositionError naming what is wrong."""
    what = f"long nardy position text {quote(text)}"
    if not isinstance(text, str):
        raise InvalidPositionError(f"{what}: expected text")
    sides = text.split("/")
    if len(sides) != 2:
        raise InvalidPositionError(f"{what}: expected the side to move, '/', then the other side, e.g. 24x15/24x15")
    return board_from_side_counts(_side(sides[0], "side on roll", what), _side(sides[1], "opponent", what), what)


def format_long_text(board: np.ndarray) -> str:
    """The position text of ``board``, the side whose view it is written first."""
    return "/".join(
        ",".join(f"{p}x{counts[p - 1]}" for p in range(24, 0, -1) if counts[p - 1])
        for counts in side_counts(validate_board(board))
    )
