"""One position as a value: a read-only board with equality, hashing, Position IDs and a pasteable repr.

A ``Position`` wraps the 26-value board of docs/DESIGN.md, seen by the side to move
(positive = its checkers, ``board[25]`` its bar, ``board[0]`` the opponent's bar).
Single positions cross module and door boundaries as a ``Position``; batched code
keeps its (B, 26) arrays. ``BoardFields`` is the base of the frozen records that
carry one board (``Xgid``, ``FibsBoard``, ``PositionSetup``): they compare, hash
and show it through its Position.

>>> p = Position.from_id('4HPwATDgc/ABMA')
>>> p
Position.from_id('4HPwATDgc/ABMA')
>>> p == Position(START), p.pip_counts(), p.flipped() == p
(True, (167, 167), True)
>>> eval(repr(p)) == p and len({p, Position.from_id(p.id)}) == 1
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engine.board import START, flip, pip_counts, validate_board
from engine.position_id import decode_position_id, encode_position_id


class Position:
    """One board seen by the side to move, immutable; equal when the boards are equal."""

    __slots__ = ("_board", "_key")
    # The game it belongs to (``engine.variant``): a long nardy function refuses it by this name.
    variant: ClassVar[str] = "backgammon"
    _board: np.ndarray
    _key: bytes

    def __init__(self, board: np.ndarray | Position) -> None:
        """Check ``board`` (the side to move's view, or a ``Position``) and keep a read-only int8 copy of it.

        A long nardy position is refused by name (InvalidPositionError).
        """
        if isinstance(board, Position):
            board = board.board
        array = validate_board(board, "position").copy()
        array.setflags(write=False)
        object.__setattr__(self, "_board", array)
        object.__setattr__(self, "_key", array.tobytes())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Position is immutable: cannot set {name!r}")

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """The position of a GNU Backgammon Position ID (the side on roll's view); InvalidPositionError if bad."""
        return cls(decode_position_id(position_id))

    @property
    def board(self) -> np.ndarray:
        """The (26,) int8 board, read-only, seen by the side to move."""
        return self._board

    @property
    def id(self) -> str:
        """The GNU Backgammon Position ID (14 characters), the side to move on roll."""
        return encode_position_id(self._board)

    def flipped(self) -> Position:
        """The same position seen by the other side."""
        return Position(flip(self._board))

    def pip_counts(self) -> tuple[int, int]:
        """(the side to move's pips, the opponent's pips); a checker on the bar counts 25."""
        return pip_counts(self._board)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"Position.from_id({self.id!r})"


START_POSITION = Position(START)


@dataclass(frozen=True)
class BoardFields:
    """Base of frozen records that carry one ``board``: it is kept read-only and compared,
    hashed and shown through ``position``, its ``Position`` (so ``==`` works on the records)."""

    board: np.ndarray = field(compare=False, repr=False)
    position: Position = field(init=False)

    def __post_init__(self) -> None:
        position = Position(self.board)
        object.__setattr__(self, "position", position)
        object.__setattr__(self, "board", position.board)
