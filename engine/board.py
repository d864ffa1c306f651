"""The board vector of DESIGN.md and the small helpers every part shares.

A board is an int8 array of length 26 seen by the side to move (the mover), who
moves from point 24 towards point 1: ``b[1..24]`` checkers on each point
(positive = mover's, negative = opponent's), ``b[25]`` the mover's bar (>= 0),
``b[0]`` the opponent's bar (<= 0). Borne-off checkers are 15 minus those on
the board. Batches are (B, 26) arrays.
"""

from __future__ import annotations

from typing import Sequence, Union

import numpy as np

from engine.errors import InvalidDiceError, InvalidPositionError

CHECKERS = 15
# Dice as callers give them: a pair of numbers, or text like "31" (``validate_dice`` reads both).
Dice = Union[str, Sequence[int]]
MOVER_BAR = 25
OPPONENT_BAR = 0

START = np.zeros(26, dtype=np.int8)
START[[24, 13, 8, 6]] = [2, 5, 3, 5]
START[[1, 12, 17, 19]] = [-2, -5, -3, -5]
START.setflags(write=False)


def flip(boards: np.ndarray) -> np.ndarray:
    """The same position(s) seen by the other side: ``-b[::-1]`` on the last axis."""
    return -boards[..., ::-1]


def pip_counts(board: np.ndarray) -> tuple[int, int]:
    """(mover's pips, opponent's pips) of one board; a checker on the bar counts 25."""
    points = np.arange(26)
    mover = int(np.sum(np.maximum(board, 0) * points))
    opponent = int(np.sum(np.maximum(-board, 0) * (25 - points)))
    return mover, opponent


def borne_off(board: np.ndarray) -> tuple[int, int]:
    """(mover's, opponent's) checkers already borne off."""
    return CHECKERS - int(np.maximum(board, 0).sum()), CHECKERS - int(np.maximum(-board, 0).sum())


def validate_board(board: np.ndarray, what: str = "board") -> np.ndarray:
    """Check one board against the convention; return it as int8 or raise InvalidPositionError."""
    arr = np.asarray(board)
    if arr.shape != (26,):
        raise InvalidPositionError(f"{what}: expected 26 values, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.equal(np.mod(arr, 1), 0)):
            raise InvalidPositionError(f"{what}: checker counts must be whole numbers")
    arr = arr.astype(np.int64)
    if arr[MOVER_BAR] < 0:
        raise InvalidPositionError(f"{what}: the mover's bar (index 25) cannot be negative")
    if arr[OPPONENT_BAR] > 0:
        raise InvalidPositionError(f"{what}: the opponent's bar (index 0) cannot be positive")
    mover = int(np.maximum(arr, 0).sum())
    opponent = int(np.maximum(-arr, 0).sum())
    if mover > CHECKERS:
        raise InvalidPositionError(f"{what}: the side to move has {mover} checkers, at most 15 allowed")
    if opponent > CHECKERS:
        raise InvalidPositionError(f"{what}: the opponent has {opponent} checkers, at most 15 allowed")
    return arr.astype(np.int8)


def validate_dice(dice: Dice) -> tuple[int, int]:
    """Two dice in 1..6 from a pair or a string like '31'; raise InvalidDiceError otherwise."""
    if isinstance(dice, str):
        text = dice.strip()
        if len(text) != 2 or not text.isdigit():
            raise InvalidDiceError(f"dice {dice!r}: expected two digits like '31'")
        dice = (int(text[0]), int(text[1]))
    try:
        d1, d2 = (int(d) for d in dice)
    except (TypeError, ValueError):
        raise InvalidDiceError(f"dice {dice!r}: expected two numbers") from None
    for d in (d1, d2):
        if not 1 <= d <= 6:
            raise InvalidDiceError(f"dice {dice!r}: each die must be 1..6, got {d}")
    return d1, d2
