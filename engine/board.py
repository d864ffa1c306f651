"""The board vector of docs/DESIGN.md and the small helpers every part shares.

A board is an int8 array of length 26 seen by the side to move (the mover), who
moves from point 24 towards point 1: ``b[1..24]`` checkers on each point
(positive = mover's, negative = opponent's), ``b[25]`` the mover's bar (>= 0),
``b[0]`` the opponent's bar (<= 0). Borne-off checkers are 15 minus those on
the board. Batches are (B, 26) arrays.
"""

from __future__ import annotations

import operator
import re
from typing import Any, Sequence, Union

import numpy as np

from engine.errors import BackgammonError, InvalidDiceError, InvalidPositionError, quote

CHECKERS = 15
# Dice as callers give them: a pair of numbers, or text like "31" (``validate_dice`` reads both).
Dice = Union[str, Sequence[int]]
MOVER_BAR = 25
OPPONENT_BAR = 0

START = np.zeros(26, dtype=np.int8)
START[[24, 13, 8, 6]] = [2, 5, 3, 5]
START[[1, 12, 17, 19]] = [-2, -5, -3, -5]
START.setflags(write=False)

# The 21 distinct rolls, smaller die first, and the chance of each (a double 1/36, others 2/36).
# Float64: in float32 they add up to 1.0000001, and an average of sure wins would come out above 1.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int64)
ROLL_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0
ROLLS.setflags(write=False)
ROLL_WEIGHTS.setflags(write=False)


def flip(boards: np.ndarray) -> np.ndarray:
    """The same position(s) seen by the other side: ``-b[::-1]`` on the last axis."""
    return -boards[..., ::-1]


def pip_counts(board: np.ndarray) -> tuple[int, int]:
    """(mover's pips, opponent's pips) of one board (or ``Position``); a checker on the bar counts 25.

    A long nardy position is refused by name; a bare array is counted as backgammon's.
    """
    board = np.asarray(board_of(board, "backgammon", "pip counts"))
    points = np.arange(26)
    mover = int(np.sum(np.maximum(board, 0) * points))
    opponent = int(np.sum(np.maximum(-board, 0) * (25 - points)))
    return mover, opponent


def borne_off(board: np.ndarray) -> tuple[int, int]:
    """(mover's, opponent's) checkers already borne off."""
    return CHECKERS - int(np.maximum(board, 0).sum()), CHECKERS - int(np.maximum(-board, 0).sum())


def board_of(board: object, variant: str, what: str) -> object:
    """``board`` itself, or the board of a position object (one with a ``variant``) of the game ``variant``.

    A position of the other game is refused by name (InvalidPositionError): a bare array cannot
    say its game, a ``Position`` or ``LongPosition`` can.
    """
    game = getattr(board, "variant", None)
    if game is None:
        return board
    if game != variant:
        raise InvalidPositionError(
            f"{what}: {quote(board)} is a {game.replace('_', ' ')} position, expected a {variant.replace('_', ' ')} one"
        )
    position: Any = board
    return position.board


def validate_board(board: np.ndarray, what: str = "board") -> np.ndarray:
    """Check one board against the convention; return it as int8 or raise InvalidPositionError.

    Each value is checked to lie in -15..15 before anything is summed (no overflow
    whatever the input's dtype). Both sides on the bar against closed home boards
    is rejected, as GNU Backgammon's ``CheckPosition`` does: no game reaches it.
    """
    arr = np.asarray(board_of(board, "backgammon", what))
    if arr.shape != (26,):
        raise InvalidPositionError(f"{what}: expected 26 values, got shape {arr.shape}")
    if arr.dtype == object:
        arr = np.array([_checker_count(v, what) for v in arr.tolist()], dtype=np.int64)
    elif arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(np.equal(np.mod(arr, 1), 0)):
            raise InvalidPositionError(f"{what}: checker counts must be whole numbers")
    elif arr.dtype.kind not in "iu":
        raise InvalidPositionError(f"{what}: checker counts must be whole numbers, got {arr.dtype}")
    values = [int(v) for v in arr.tolist()]  # plain ints: a board's few checks cost less than numpy calls
    if min(values) < -CHECKERS or max(values) > CHECKERS:
        raise InvalidPositionError(f"{what}: each point holds -15..15 checkers")
    if values[MOVER_BAR] < 0:
        raise InvalidPositionError(f"{what}: the mover's bar (index 25) cannot be negative")
    if values[OPPONENT_BAR] > 0:
        raise InvalidPositionError(f"{what}: the opponent's bar (index 0) cannot be positive")
    mover = sum(v for v in values if v > 0)
    opponent = -sum(v for v in values if v < 0)
    if mover > CHECKERS:
        raise InvalidPositionError(f"{what}: the side to move has {mover} checkers, at most 15 allowed")
    if opponent > CHECKERS:
        raise InvalidPositionError(f"{what}: the opponent has {opponent} checkers, at most 15 allowed")
    closed = all(v >= 2 for v in values[1:7]) and all(v <= -2 for v in values[19:25])
    if values[MOVER_BAR] and values[OPPONENT_BAR] and closed:
        raise InvalidPositionError(f"{what}: both sides are on the bar against closed boards")
    return np.array(values, dtype=np.int8)


def _checker_count(value: object, what: str) -> int:
    """One value of an object array as an int, or raise InvalidPositionError."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidPositionError(f"{what}: checker counts must be whole numbers, got {value!r}")
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value) or value != int(value):
            raise InvalidPositionError(f"{what}: checker counts must be whole numbers, got {quote(value)}")
        value = int(value)
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidPositionError(f"{what}: checker counts must be whole numbers, got {quote(value)}") from None
    if not -CHECKERS <= count <= CHECKERS:
        raise InvalidPositionError(f"{what}: each point holds -15..15 checkers, got {quote(count)}")
    return count


def read_int(
    text: str, name: str, what: str, low: int, high: int, error: type[BackgammonError] = InvalidPositionError
) -> int:
    """The whole number ``text`` (ASCII digits, optional ``-``) in ``low..high``, or raise ``error``.

    The text is checked before ``int`` sees it: non-ASCII digits (``'²'``, ``'٣'``)
    and digit strings longer than ``high`` could need are refused with our own
    message naming ``name`` and ``what``.

    >>> read_int("12", "score", "board", 0, 99)
    12
    """
    digits = len(str(max(abs(low), abs(high))))
    if not isinstance(text, str) or not _INT.fullmatch(text) or len(text.lstrip("-")) > digits:
        raise error(f"{what}: {name} {quote(text, 30)} is not a whole number in {low}..{high}")
    value = int(text)
    if not low <= value <= high:
        raise error(f"{what}: {name} {value} is not in {low}..{high}")
    return value


_INT = re.compile(r"-?[0-9]+", re.ASCII)
_DICE_TEXT = re.compile(r"[0-9]{2}", re.ASCII)


def validate_dice(dice: Dice) -> tuple[int, int]:
    """Two dice in 1..6 from a pair or a string like '31'; raise InvalidDiceError otherwise."""
    if isinstance(dice, str):
        text = dice.strip()
        if not _DICE_TEXT.fullmatch(text):
            raise InvalidDiceError(f"dice {quote(dice)}: expected two digits like '31'")
        dice = (int(text[0]), int(text[1]))
    try:
        d1, d2 = dice  # type: ignore[misc]
        pair = tuple(_die(d) for d in (d1, d2))
    except (TypeError, ValueError):
        raise InvalidDiceError(f"dice {quote(dice)}: expected two whole numbers") from None
    for d in pair:
        if not 1 <= d <= 6:
            raise InvalidDiceError(f"dice {quote(dice)}: each die must be 1..6, got {d}")
    return pair[0], pair[1]


def _die(value: object) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("a die is not a bool")
    if isinstance(value, (float, np.floating)) and value == int(value):
        return int(value)
    return operator.index(value)  # type: ignore[arg-type]
