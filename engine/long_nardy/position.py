"""One long nardy position as a value, and its Position ID: 13 characters that round-trip.

The Position ID follows GNU Backgammon's Position ID, fitted to long nardy: a bit
string lists the side NOT on roll first, then the side on roll; for each side, its
own points 1..24 in its own numbering (``engine.long_nardy.board``), one ``1`` per
checker and a ``0`` after each point. There is no bar, so the string is always
30 + 48 = 78 bits; it is written as 13 characters of the Base64 alphabet
(``A-Z a-z 0-9 + /``), six bits each, the first bit the most significant. A backgammon
Position ID has 14 characters, so the two are never confused. Swapping the two halves
of the bit string gives the other side's ID (the same position, the other side on roll).

>>> p = LongPosition.from_id('AAAB//wAAAP/+')
>>> p == LongPosition(START), p.pip_counts()
(True, (360, 360))
>>> p
LongPosition.from_id('AAAB//wAAAP/+')
>>> eval(repr(p)) == p and p.flipped() == p
True
>>> LongPosition.from_id('24x15/24x15') == p, p.text
(True, '24x15/24x15')
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import ClassVar

import numpy as np

from engine.errors import InvalidPositionError, quote
from engine.long_nardy.board import (
    CHECKERS,
    START,
    board_from_side_counts,
    flip,
    illegal_block,
    pip_counts,
    side_counts,
    validate_board,
)
from engine.long_nardy.text import format_long_text, parse_long_text

__all__ = ["LongPosition", "START_POSITION", "decode_long_position_id", "encode_long_position_id", "is_long_text"]

ID_LENGTH = 13
_BITS = 78
_ALPHABET = re.compile(r"[A-Za-z0-9+/]{13}", re.ASCII)
# Every character position text may hold. No valid Position ID is made of these alone:
# each such Base64 character carries at least three 1 bits, and 13 of them exceed 30 checkers.
_TEXT_CHARACTERS = re.compile(r"[0-9xX,/\s]*", re.ASCII)
_ITEM_START = re.compile(r"\d\s*[xX]", re.ASCII)


def is_long_text(text: object) -> bool:
    """Whether ``text`` is to be read as position text rather than as a Position ID.

    Text with a ``point x`` in it or made only of position text's characters, unless it
    has an ID's shape: then both (no valid ID is made of those characters alone), so
    that a malformed text is explained as text and a malformed ID as an ID.
    """
    if not isinstance(text, str):
        return False
    has_item = _ITEM_START.search(text) is not None
    text_only = _TEXT_CHARACTERS.fullmatch(text) is not None
    if _ALPHABET.fullmatch(text.strip()):
        return has_item and text_only
    return has_item or text_only


def encode_long_position_id(board: np.ndarray) -> str:
    """The Position ID of ``board`` (mover's view, the mover on roll)."""
    board = validate_board(board)
    mover, opponent = side_counts(board)
    bits = "".join("1" * n + "0" for counts in (opponent, mover) for n in counts)
    bits = bits.ljust(_BITS + 2, "0")  # 80 bits: ten bytes
    data = int(bits, 2).to_bytes(10, "big")
    return base64.b64encode(data).decode("ascii")[:ID_LENGTH]


def decode_long_position_id(position_id: str) -> np.ndarray:
    """The board (mover's view) of a long nardy Position ID; InvalidPositionError naming what is wrong.

    Only the canonical text is read: 13 characters of the Base64 alphabet, exactly 24
    points a side, at most 15 checkers a side.
    """
    what = f"long nardy Position ID {quote(position_id)}"
    text = position_id.strip() if isinstance(position_id, str) else position_id
    if not isinstance(text, str) or not _ALPHABET.fullmatch(text):
        raise InvalidPositionError(f"{what}: expected {ID_LENGTH} characters of A-Z, a-z, 0-9, '+' and '/'")
    try:
        data = base64.b64decode(text + "A==", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidPositionError(f"{what}: not valid Base64") from None
    bits = format(int.from_bytes(data, "big"), "080b")[:_BITS]
    runs = [len(run) for run in bits.split("0")]
    # 48 zeros close the 48 points; after the last one only zeros may follow (one empty run each).
    if bits.count("0") < 48 or any(runs[48:]):
        raise InvalidPositionError(f"{what}: more than {2 * CHECKERS} checkers, or not 24 points a side")
    return board_from_side_counts(runs[24:48], runs[:24], what)


class LongPosition:
    """One long nardy board seen by the side to move, immutable; equal when the boards are equal."""

    __slots__ = ("_board", "_key")
    # The game it belongs to (``engine.variant``): a backgammon function refuses it by this name.
    variant: ClassVar[str] = "long_nardy"
    _board: np.ndarray
    _key: bytes

    def __init__(self, board: np.ndarray | LongPosition) -> None:
        """Check ``board`` (the side to move's view, or a ``LongPosition``) and keep a read-only int8 copy of it.

        A backgammon ``Position`` is refused by name (InvalidPositionError).
        """
        if isinstance(board, LongPosition):
            board = board.board
        array = validate_board(board, "long nardy position").copy()
        array.setflags(write=False)
        object.__setattr__(self, "_board", array)
        object.__setattr__(self, "_key", array.tobytes())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"LongPosition is immutable: cannot set {name!r}")

    @classmethod
    def from_id(cls, position: str) -> LongPosition:
        """The position of a long nardy Position ID or position text (``24x15/24x15``), the side on roll's view.

        Both forms are read wherever a long nardy position comes in from outside.
        InvalidPositionError when the text is neither form, or when a side holds a
        six-point block R9 forbids (the rules never reach one; a board handed to
        ``legal_plays`` directly may still hold one).
        """
        board = parse_long_text(position) if is_long_text(position) else decode_long_position_id(position)
        for name, view in (("side on roll", board), ("opponent", flip(board))):
            if illegal_block(view):
                raise InvalidPositionError(
                    f"long nardy position {quote(position)}: the {name} holds a six-point block "
                    "with none of the other side's checkers past it, which the rules forbid (R9)"
                )
        return cls(board)

    @property
    def board(self) -> np.ndarray:
        """The (26,) int8 board, read-only, seen by the side to move."""
        return self._board

    @property
    def text(self) -> str:
        """The position text (``24x15/24x15``): the side to move first, each side in its own numbering."""
        return format_long_text(self._board)

    @property
    def id(self) -> str:
        """The long nardy Position ID (13 characters), the side to move on roll."""
        return encode_long_position_id(self._board)

    def flipped(self) -> LongPosition:
        """The same position seen by the other side."""
        return LongPosition(flip(self._board))

    def pip_counts(self) -> tuple[int, int]:
        """(the side to move's pips, the opponent's pips), each counting its own points."""
        return pip_counts(self._board)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LongPosition):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"LongPosition.from_id({self.id!r})"


START_POSITION = LongPosition(START)
