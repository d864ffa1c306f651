"""Resignations: when to offer one (single, gammon, backgammon) and when to accept one.

Board, probabilities and cube state are those of the side ON ROLL (see
``bot.equity.cube``). The value of playing on is the cubeful equity after both sides'
right cube actions (``CubeDecision.equity``); a resignation at level r is worth r
times the cube (money; with the Jacoby rule and a centred cube a gammon counts
single) or the match-winning chance after losing that many points. Equities are
normalised as in ``bot.equity.cube`` (winning the current cube = +1), each in the view of
the side the answer is for; in match play the same numbers are also given as MWC.

As GNU Backgammon does, a side resigns at the cheapest level its opponent should
accept, provided that costs it at most ``max_cost``; a side accepts when the
resignation is worth at least playing on (within ``tolerance``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from bot.equity.cube import CubeState, MatchScore, Owner, cube_decision
from bot.equity.met import MatchEquityTable
from engine.errors import BackgammonError
from engine.match import Outcome, game_result_points

MAX_COST = 0.05
TOLERANCE = 1e-6


class InvalidResignationError(BackgammonError):
    """A resignation level other than 1 (single), 2 (gammon) or 3 (backgammon)."""


# How much a resignation concedes: the kind of game it gives up (SINGLE, GAMMON, BACKGAMMON = 1, 2, 3 cubes).
ResignLevel = Outcome


@dataclass(frozen=True)
class ResignationOffer:
    """Whether the side on roll should resign, and the numbers behind it (its own view).

    ``equity_resign[i]`` / ``mwc_resign[i]``: after resigning at level ``i + 1``.
    """

    level: Optional[ResignLevel]
    equity_play: float
    equity_resign: tuple[float, float, float]
    mwc_play: Optional[float] = None
    mwc_resign: Optional[tuple[float, float, float]] = None


@dataclass(frozen=True)
class ResignationAnswer:
    """Whether to accept a resignation, and the numbers behind it (the accepting side's view)."""

    accept: bool
    level: ResignLevel
    equity_play: float
    equity_accept: float
    mwc_play: Optional[float] = None
    mwc_accept: Optional[float] = None


@dataclass(frozen=True)
class _Values:
    """Values in the view of the side on roll: playing on, and winning ``points`` x cube now."""

    state: CubeState
    equity_play: float
    mwc_play: Optional[float]
    score: Optional[MatchScore]

    def points_of(self, cubes: int) -> int:
        """Points the side on roll wins (negative: loses) when a game of ``abs(cubes)`` (1-3) ends now.

        Scored by the rules (``engine.match.game_result_points``): with the Jacoby rule and a
        centred cube a gammon or backgammon counts single.
        """
        jacoby = self.state.jacoby and self.state.owner is Owner.CENTERED
        return int(np.sign(cubes)) * game_result_points(abs(cubes), self.state.cube, jacoby)

    def equity_of(self, cubes: int) -> float:
        if self.score is None:
            return self.points_of(cubes) / self.state.cube
        return self.score.normalise(self.mwc_of(cubes), self.state.cube)

    def mwc_of(self, cubes: int) -> float:
        """The side on roll's match-winning chance after that game (match play only)."""
        assert self.score is not None, "a money game has no match-winning chance"
        return self.score.after(self.points_of(cubes))


def _per_level(value: Callable[[int], float]) -> tuple[float, float, float]:
    """``value(level)`` for each resignation level: single, gammon, backgammon."""
    single, gammon, backgammon = (value(level) for level in ResignLevel)
    return single, gammon, backgammon


def _values(
    board: np.ndarray, probs, state: CubeState, met: Optional[MatchEquityTable], efficiency: Optional[float]
) -> _Values:
    decision = cube_decision(board, probs, state, met, efficiency)
    score = None if state.is_money else MatchScore.of(state, met)
    return _Values(state, decision.equity, decision.mwc, score)


def offer_resignation(
    board: np.ndarray,
    probs,
    state: CubeState,
    max_cost: float = MAX_COST,
    met: Optional[MatchEquityTable] = None,
    efficiency: Optional[float] = None,
) -> ResignationOffer:
    """The cheapest resignation the side on roll should offer (and its opponent accept), if any.

    A level is offered when resigning it is worth at least playing on for the
    opponent (so it should accept) and costs the side on roll at most ``max_cost``.
    ``met`` and ``efficiency`` as ``bot.equity.cube.cube_decision`` takes them.
    """
    values = _values(board, probs, state, met, efficiency)
    play = values.equity_play
    resign = _per_level(lambda r: values.equity_of(-r))
    level = None
    for candidate in ResignLevel:
        after = resign[candidate - 1]
        if play - after > max_cost:
            break  # this level and every higher one costs too much
        if after <= play + TOLERANCE:
            level = candidate
            break
    mwc_resign = None if values.score is None else _per_level(lambda r: values.mwc_of(-r))
    return ResignationOffer(level, play, resign, values.mwc_play, mwc_resign)


def accept_resignation(
    board: np.ndarray,
    probs,
    state: CubeState,
    level: int,
    resigner_on_roll: bool,
    tolerance: float = TOLERANCE,
    met: Optional[MatchEquityTable] = None,
    efficiency: Optional[float] = None,
) -> ResignationAnswer:
    """Whether to accept a resignation at ``level`` (1 single, 2 gammon, 3 backgammon).

    ``resigner_on_roll``: the side on roll resigns (the answer is its opponent's);
    otherwise the opponent resigns and the side on roll answers. Accept when the
    resignation is worth at least playing on, less ``tolerance``.
    """
    try:
        level = ResignLevel(level)
    except ValueError:
        raise InvalidResignationError(
            f"resignation level {level!r}: expected 1 (single), 2 (gammon) or 3 (backgammon)"
        ) from None
    values = _values(board, probs, state, met, efficiency)
    sign = -1 if resigner_on_roll else 1  # +1: the side on roll answers and would win ``level`` cubes
    play = sign * values.equity_play
    accept = sign * values.equity_of(sign * level)
    mwc_play = mwc_accept = None
    if values.score is not None:
        assert values.mwc_play is not None, "a match's cube decision has match-winning chances"
        mwc_play = values.mwc_play if sign > 0 else 1.0 - values.mwc_play
        mwc_on_roll = values.mwc_of(sign * level)
        mwc_accept = mwc_on_roll if sign > 0 else 1.0 - mwc_on_roll
    return ResignationAnswer(accept >= play - tolerance, level, play, accept, mwc_play, mwc_accept)
