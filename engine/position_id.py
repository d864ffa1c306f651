"""GNU Backgammon Position IDs: 80 bits, Base64, for a board with the mover on roll.

The bits list the side NOT on roll first, then the side on roll; for each, points
1..24 in its own numbering and then its bar, one ``1`` per checker and a ``0``
after each point. Bits are packed least-significant first into 10 bytes.
"""

from __future__ import annotations

import base64
import binascii
import re

import numpy as np

from engine.board import validate_board
from engine.errors import InvalidPositionError, quote

_ALPHABET = re.compile(r"[A-Za-z0-9+/]{14}", re.ASCII)
_LAST_CHARACTER = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _side_counts(board: np.ndarray) -> tuple[list[int], list[int]]:
    """Per-side counts in each side's own numbering: points 1..24 then the bar."""
    opponent = [int(-board[25 - p]) if board[25 - p] < 0 else 0 for p in range(1, 25)] + [int(-board[0])]
    mover = [int(board[p]) if board[p] > 0 else 0 for p in range(1, 25)] + [int(board[25])]
    return opponent, mover


def encode_position_id(board: np.ndarray) -> str:
    """Position ID of ``board`` (mover's view, the mover on roll)."""
    board = validate_board(board)
    key = at = 0  # the 80 bits as one integer, bit i the i-th of the list
    for counts in _side_counts(board):
        for n in counts:
            key |= ((1 << n) - 1) << at
            at += n + 1
    return base64.b64encode(key.to_bytes(10, "little")).decode("ascii")[:14]


def decode_position_id(position_id: str) -> np.ndarray:
    """Board (mover's view) of a Position ID; raise InvalidPositionError naming the problem.

    Only the canonical text is read: 14 characters of the Base64 alphabet (no
    ``=``), the four bits past the 80th zero, at most 15 checkers a side, and a
    position GNU Backgammon would accept (``validate_board``).
    """
    text = position_id.strip() if isinstance(position_id, str) else position_id
    what = f"Position ID {quote(position_id)}"
    if not isinstance(text, str) or not _ALPHABET.fullmatch(text):
        raise InvalidPositionError(f"{what}: expected 14 characters of A-Z, a-z, 0-9, '+' and '/'")
    try:
        key = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidPositionError(f"{what}: not valid Base64") from None
    if len(key) != 10 or _LAST_CHARACTER.index(text[-1]) % 16:
        raise InvalidPositionError(f"{what}: not canonical (the bits after the 80th must be 0)")
    bits = [(key[i // 8] >> (i % 8)) & 1 for i in range(80)]
    sides: list[list[int]] = [[], []]
    side, run = 0, 0
    for bit in bits:
        if side == 2:
            if bit:
                raise InvalidPositionError(f"{what}: more than 30 checkers")
            continue
        if bit:
            run += 1
        else:
            sides[side].append(run)
            run = 0
            if len(sides[side]) == 25:
                side += 1
    if side < 2:
        raise InvalidPositionError(f"{what}: too many checkers for 80 bits")
    opponent, mover = sides
    for name, counts in (("opponent", opponent), ("player on roll", mover)):
        if sum(counts) > 15:
            raise InvalidPositionError(f"{what}: the {name} has {sum(counts)} checkers")
    board = np.zeros(26, dtype=np.int8)
    for p in range(1, 25):
        if mover[p - 1] and opponent[24 - p]:
            raise InvalidPositionError(f"{what}: both sides have checkers on point {p}")
        board[p] = mover[p - 1] - opponent[24 - p]
    board[25] = mover[24]
    board[0] = -opponent[24]
    return validate_board(board, what)
