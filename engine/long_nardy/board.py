"""Long nardy boards: the 26-value vector of docs/DESIGN.md, with no bar, seen by the side to move.

The mover counts its own points 24 (its head) down to 1 (home 1..6) and bears off
below 1; ``b[1..24]`` holds its checkers as positive counts and the opponent's as
negative counts, both on the mover's numbering. ``b[0]`` and ``b[25]`` (the bars of
backgammon) are always 0: long nardy has no hitting. Borne-off checkers are 15 minus
those on the board, as in backgammon.

Both sides move the same way round the board, so the heads are diagonally opposite:
the mover's point ``p`` is the opponent's point ``other_point(p)`` (a turn by half the
board, 12 points), the opponent's head is the mover's 12 and its home the mover's 13..18.

>>> int(other_point(12)), int(other_point(24)), int(other_point(1))
(24, 12, 13)
>>> bool(np.array_equal(flip(flip(START)), START)), pip_counts(START)
(True, (360, 360))
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from engine.board import CHECKERS, board_of, borne_off
from engine.board import validate_board as validate_backgammon_board
from engine.errors import InvalidPositionError

__all__ = [
    "CHECKERS",
    "HEAD",
    "OPPONENT_HEAD",
    "START",
    "board_from_side_counts",
    "borne_off",
    "check_game_on",
    "flip",
    "illegal_block",
    "other_point",
    "pip_counts",
    "side_counts",
    "validate_board",
    "winning_points",
]

HEAD = 24  # the mover's head, where its fifteen checkers start
OPPONENT_HEAD = 12  # the opponent's head, on the mover's numbering
BLOCK = 6  # this many consecutive points held trap the opponent (R9)
HOME = 6  # the mover's home board is its points 1..6


def other_point(point: int | np.ndarray) -> int | np.ndarray:
    """The other side's number of the mover's point ``point`` (1..24); the map is its own inverse."""
    return (point + 11) % 24 + 1


# flip(b)[p] = -b[other_point(p)]; the unused bar slots 0 and 25 stay where they are.
_FLIP = np.array([0] + [int(other_point(p)) for p in range(1, 25)] + [25], dtype=np.int64)
_FLIP.setflags(write=False)

START = np.zeros(26, dtype=np.int8)
START[HEAD] = CHECKERS
START[OPPONENT_HEAD] = -CHECKERS
START.setflags(write=False)

# The opponent's path on the mover's numbering: its head (the mover's 12) first, its 1 (the mover's 13) last.
OPPONENT_PATH = np.array([int(other_point(q)) for q in range(24, 0, -1)], dtype=np.int64)
OPPONENT_PATH.setflags(write=False)
_OPPONENT_PATH_POINTS = tuple(int(p) for p in OPPONENT_PATH)


def flip(boards: np.ndarray) -> np.ndarray:
    """The same position(s) seen by the other side (last axis of length 26): half a turn of the board, signs swapped."""
    return -np.asarray(boards)[..., _FLIP]


def validate_board(board: np.ndarray, what: str = "long nardy board") -> np.ndarray:
    """Check one board (mover's view) and return it as int8, or raise InvalidPositionError.

    The backgammon checks (shape, whole counts, at most 15 a side) and: nothing on the
    bars (index 0 and 25), which long nardy does not have.
    """
    arr = validate_backgammon_board(np.asarray(board_of(board, "long_nardy", what)), what)
    if arr[0] or arr[25]:
        raise InvalidPositionError(f"{what}: long nardy has no bar, but index {0 if arr[0] else 25} holds checkers")
    return arr


def side_counts(board: np.ndarray) -> tuple[list[int], list[int]]:
    """(mover, opponent): each side's checkers on its own points 1..24 (index 0 is point 1), of a mover's-view board.

    The form in which the Position ID and the position text write a board.
    """
    b = np.asarray(board)
    mover = [max(int(b[p]), 0) for p in range(1, 25)]
    opponent = [max(-int(b[other_point(q)]), 0) for q in range(1, 25)]
    return mover, opponent


def board_from_side_counts(mover: Sequence[int], opponent: Sequence[int], what: str) -> np.ndarray:
    """The board (mover's view) of each side's checkers on its own points 1..24, as ``side_counts`` gives them.

    InvalidPositionError naming ``what`` when a side has more than 15 checkers or both
    sides have checkers on one point.
    """
    for name, counts in (("side on roll", mover), ("opponent", opponent)):
        if sum(counts) > CHECKERS:
            raise InvalidPositionError(f"{what}: the {name} has {sum(counts)} checkers, at most {CHECKERS}")
    board = np.zeros(26, dtype=np.int8)
    for p in range(1, 25):
        q = int(other_point(p))
        if mover[p - 1] and opponent[q - 1]:
            raise InvalidPositionError(
                f"{what}: both sides have checkers on the side on roll's point {p} (the opponent's {q})"
            )
        board[p] = mover[p - 1] - opponent[q - 1]
    return board


def pip_counts(board: np.ndarray) -> tuple[int, int]:
    """(mover's pips, opponent's pips) of one board (mover's view) or ``LongPosition``, each side counting its own
    points; a backgammon ``Position`` is refused by name."""
    b = np.asarray(board_of(board, "long_nardy", "long nardy pip counts"), dtype=np.int64)
    points = np.arange(1, 25)
    mover = int(np.sum(np.maximum(b[1:25], 0) * points))
    opponent = int(np.sum(np.maximum(-b[1:25], 0) * other_point(points)))
    return mover, opponent


def winning_points(boards: np.ndarray) -> np.ndarray:
    """(N,) points at cube 1 of finished boards (N, 26) seen by the winner (no checker left).

    Mars (2) when the loser has borne off none, else oin (1): rule R12, no koks.
    """
    loser_on_board = -np.minimum(boards, 0).sum(axis=-1, dtype=np.int64)
    return 1 + (loser_on_board == CHECKERS).astype(np.int64)


def illegal_block(board: np.ndarray | Sequence[int]) -> bool:
    """Whether the mover (``board`` in its view: an array or a list of 26 counts) holds a forbidden block (R9).

    A block is six or more consecutive points held by the mover along the opponent's
    path (the mover's 12 down to 1, then 24 down to 13); it is forbidden while no
    opponent checker stands further along that path than the block's front. With no
    opponent checker on the board nothing is forbidden (the game is over). Plain Python
    on a list: the single-position move search asks it after every step.
    """
    counts = board.tolist() if isinstance(board, np.ndarray) else board
    path = [counts[p] for p in _OPPONENT_PATH_POINTS]
    lead = -1  # the opponent's most advanced checker, as an index along its path
    for index, count in enumerate(path):
        if count < 0:
            lead = index
    if lead < 0:
        return False
    run = 0
    for index, count in enumerate(path):
        run = run + 1 if count > 0 else 0
        if run >= BLOCK and index > lead:
            return True
    return False


def check_game_on(board: np.ndarray, what: str = "long nardy position") -> np.ndarray:
    """The board (mover's view) as int8 if a game can be on in it; InvalidPositionError naming why not.

    A side with no checker left has won, so the game is over. A side that has borne off has all
    its other checkers home (points 1..6): bearing off needs all fifteen there, and with no hitting
    none ever leaves, so a checker outside is a position no game reaches.
    """
    board = validate_board(board, what)
    for name, view in (("side on roll", board), ("opponent", flip(board))):
        on_board = int(np.maximum(view[1:25], 0).sum())
        if on_board == 0:
            raise InvalidPositionError(f"{what}: the {name} has borne off all {CHECKERS} checkers, the game is over")
        if on_board < CHECKERS and (view[HOME + 1 : 25] > 0).any():
            raise InvalidPositionError(
                f"{what}: the {name} has borne off {CHECKERS - on_board} checkers with others outside its home "
                f"(points 1..{HOME}), which no game reaches: bearing off needs all {CHECKERS} home"
            )
    return board
