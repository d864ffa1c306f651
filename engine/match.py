"""Game and match state as plain data, and the pure rules between games.

Players are 0 and 1 (absolute seats, not "mover"). A ``MatchState`` is the
state between games or during one: the score, the cube, and where the match
stands with the Crawford rule (the one game right after a side first reaches
``match_length - 1`` is played without the cube; the games after it are
post-Crawford). A money game is ``match_length == 0``; there the score just
adds up and the Jacoby option (gammons count single while the cube is not
turned) may apply.

>>> s = after_game(MatchState(match_length=5, score=(3, 1)), winner=0, points=1)
>>> s.score, s.crawford, may_double(s, 1)
((4, 1), True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum

import numpy as np

from engine.board import CHECKERS, flip, validate_board
from engine.errors import InvalidMatchError, InvalidPositionError


# GNU Backgammon's largest cube (MAX_CUBE in backgammon.h: 1 << 12): a cube there cannot be doubled.
MAX_CUBE = 1 << 12


def is_cube_value(value: int) -> bool:
    """Whether ``value`` can be on the cube: a power of 2 (1 = not turned yet)."""
    return value >= 1 and value & (value - 1) == 0


class Outcome(IntEnum):
    """How a game was won; the value is the points it is worth at cube 1."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True)
class MatchState:
    """Score, cube and Crawford status of a match or money session.

    ``score``: (player 0, player 1). ``cube_owner``: 0, 1 or None (centred).
    ``crawford``: the current game is the Crawford game. ``post_crawford``: the
    Crawford game has been played. ``jacoby``: money only, gammons count single
    while the cube is at 1.
    """

    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    cube_value: int = 1
    cube_owner: int | None = None
    crawford: bool = False
    post_crawford: bool = False
    jacoby: bool = False

    def __post_init__(self) -> None:
        what = f"match state {self!r}"
        if self.match_length < 0 or min(self.score) < 0:
            raise InvalidMatchError(f"{what}: match length and scores cannot be negative")
        if not is_cube_value(self.cube_value):
            raise InvalidMatchError(f"{what}: cube value {self.cube_value} is not a power of 2")
        if self.cube_owner not in (0, 1, None):
            raise InvalidMatchError(f"{what}: cube owner must be 0, 1 or None, got {self.cube_owner!r}")
        if not self.match_length and (self.crawford or self.post_crawford):
            raise InvalidMatchError(f"{what}: a money game has no Crawford rule")
        if self.crawford and self.post_crawford:
            raise InvalidMatchError(f"{what}: cannot be the Crawford game and after it")
        if self.crawford and self.cube_value != 1:
            raise InvalidMatchError(f"{what}: the cube is not used in the Crawford game")

    @property
    def is_over(self) -> bool:
        """Whether a side has reached the match length (never, in a money game)."""
        return bool(self.match_length) and max(self.score) >= self.match_length

    @property
    def winner(self) -> int | None:
        """The player who won the match, or None while it goes on."""
        if not self.is_over:
            return None
        return 0 if self.score[0] >= self.match_length else 1

    def away(self, player: int) -> int:
        """Points ``player`` still needs (match play only)."""
        if not self.match_length:
            raise InvalidMatchError("a money game has no 'away' score")
        return self.match_length - self.score[player]


def _check_player(player: int, what: str) -> None:
    if player not in (0, 1):
        raise InvalidMatchError(f"{what}: player must be 0 or 1, got {player!r}")


def winning_points(boards: np.ndarray) -> np.ndarray:
    """(N,) points at cube 1 (1, 2 or 3: ``Outcome``) of boards (N, 26) seen by a winner with no checker left.

    A gammon: the loser has borne off none; a backgammon: also a loser's checker on
    the bar or in the winner's home board (points 1..6).
    """
    loser_on_board = -np.minimum(boards, 0).sum(axis=-1, dtype=np.int64)
    gammon = loser_on_board == CHECKERS
    backgammon = gammon & np.any(boards[..., 0:7] < 0, axis=-1)
    return 1 + gammon.astype(np.int64) + backgammon.astype(np.int64)


def game_outcome(final_board: np.ndarray) -> Outcome:
    """How the game on ``final_board`` was won: whichever side has no checkers left won.

    The board may be in either side's view; the rule is ``winning_points``.
    """
    board = validate_board(final_board, "final board")
    if np.any(board > 0):
        board = flip(board)  # now the winner, if there is one, is the "mover" with no checkers
        if np.any(board > 0):
            raise InvalidPositionError("final board: both sides still have checkers, the game is not over")
    return Outcome(int(winning_points(board[None])[0]))


def game_result_points(final_board_or_outcome: np.ndarray | Outcome | int, cube: int = 1, jacoby: bool = False) -> int:
    """Points the winner scores: 1, 2 or 3 by outcome, times the cube.

    ``final_board_or_outcome`` is a final board (see ``game_outcome``) or an
    Outcome (e.g. of an accepted resignation). With ``jacoby`` (money only) a
    gammon or backgammon counts single while the cube is at 1.
    """
    if isinstance(final_board_or_outcome, (int, Outcome)) and not isinstance(final_board_or_outcome, bool):
        if final_board_or_outcome not in (1, 2, 3):
            raise InvalidMatchError(f"outcome {final_board_or_outcome!r}: expected 1, 2 or 3")
        outcome = Outcome(final_board_or_outcome)
    else:
        outcome = game_outcome(np.asarray(final_board_or_outcome))
    if not is_cube_value(cube):
        raise InvalidMatchError(f"cube {cube}: not a power of 2")
    if jacoby and cube == 1:
        outcome = Outcome.SINGLE
    return int(outcome) * cube


def after_game(state: MatchState, winner: int, points: int) -> MatchState:
    """The state before the next game, after ``winner`` scored ``points``.

    The cube goes back to 1 in the centre. The game after a side first reaches
    ``match_length - 1`` is the Crawford game; the games after that are post-Crawford.
    """
    what = f"after_game({state!r}, winner={winner!r}, points={points!r})"
    _check_player(winner, what)
    if points < 1:
        raise InvalidMatchError(f"{what}: points must be positive")
    if state.is_over:
        raise InvalidMatchError(f"{what}: the match is already over")
    score = list(state.score)
    score[winner] += points
    crawford, post_crawford = False, state.post_crawford or state.crawford
    if state.match_length and not post_crawford and max(score) < state.match_length:
        crawford = score[winner] == state.match_length - 1
    return replace(
        state, score=(score[0], score[1]), cube_value=1, cube_owner=None, crawford=crawford, post_crawford=post_crawford
    )


def may_double(state: MatchState, player: int) -> bool:
    """Whether ``player`` has access to the cube: not in the Crawford game, not when the opponent owns it,
    not when the cube is on ``MAX_CUBE``."""
    _check_player(player, "may_double")
    if state.is_over or state.crawford or state.cube_value >= MAX_CUBE:
        return False
    return state.cube_owner is None or state.cube_owner == player


def roll_dice(rng: np.random.Generator) -> tuple[int, int]:
    """Two dice from ``rng``, in the order drawn."""
    die0, die1 = (int(d) for d in rng.integers(1, 7, size=2))
    return die0, die1


def opening_order(die0: int, die1: int) -> tuple[int, tuple[int, int]] | None:
    """Who moves first after the opening roll: player 0 rolled ``die0``, player 1 ``die1``.

    Returns (the player with the higher die, (that die, the other die)), or None on a tie (roll again).
    """
    if die0 == die1:
        return None
    return (0, (die0, die1)) if die0 > die1 else (1, (die1, die0))
