"""Exact cubeful match-winning chances of small bear-offs, for match-play cube decisions.

The two-sided database (``bot.evaluation.bearoff``) holds money equities only: in a match the value
of a game depends on the score. Here, for one position of up to ``TWO_SIDED_CHECKERS``
checkers a side and one match score, every pair of home boards the two sides can still
reach is solved backwards: the side on roll plays each roll to its best, and before
each roll a side with access to a live cube doubles when that gains, the other side
taking or passing, whichever is better for it; results come from the match equity
table. No gammons are possible (each side has borne off at least 9 checkers), so a game
is worth the cube.

Everything is the MWC of the side on roll at the root ("A"); its opponent is "B".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

import numpy as np

from bot.evaluation import bearoff as bo
from bot.equity.cube import CubeState, MatchCubeMWCs, MatchScore, Owner
from bot.equity.met import MatchEquityTable
from engine import ROLL_WEIGHTS, ROLLS

# Above this many pairs of reachable home boards the solve would take seconds; callers use the cube model.
MAX_PAIRS = 60_000


@functools.cache
def _moves() -> bo.MoveTable:
    """Every two-sided database position's results, by roll."""
    return bo.MoveTable.of(bo.TWO_SIDED_CHECKERS)


@functools.cache
def reachable(index: int) -> np.ndarray:
    """Sorted home-board indices one side can reach from ``index`` (itself and 0, all off, included); read-only."""
    moves = _moves()
    seen = np.zeros(index + 1, dtype=bool)
    seen[index] = True
    for i in range(index, 0, -1):  # every result has a smaller index than its position
        if seen[i]:
            seen[moves.child[moves.start[i] : moves.start[i] + moves.size[i]]] = True
    found = np.flatnonzero(seen)
    found.setflags(write=False)  # cached: shared by every caller
    return found


@dataclass(frozen=True)
class _CubeLevel:
    """A cube value and owner, the values a game ends with there, and where each side's double leads."""

    value: int
    owner: Owner  # seen by A
    a_wins: float
    b_wins: float
    a_doubles: Optional[int]  # index of the level after A doubles (B owns), None if A cannot
    b_doubles: Optional[int]


def _levels(state: CubeState, score: MatchScore) -> list[_CubeLevel]:
    """Every cube level the game can reach from ``state``: first ``state``'s own, then A's double
    (reached only when A may double, but its value is the double-take answer either way)."""
    away = {Owner.ME: score.away_me, Owner.OPP: score.away_opp}
    keys: list[tuple[int, Owner]] = [(state.cube, state.owner), (2 * state.cube, Owner.OPP)]
    doubles: list[dict[Owner, Optional[int]]] = []
    for value, owner in keys:  # grows while it is walked
        after: dict[Owner, Optional[int]] = {}
        for side, other in ((Owner.ME, Owner.OPP), (Owner.OPP, Owner.ME)):
            if state.crawford or owner not in (Owner.CENTERED, side) or away[side] <= value:
                after[side] = None
                continue
            if (2 * value, other) not in keys:
                keys.append((2 * value, other))
            after[side] = keys.index((2 * value, other))
        doubles.append(after)
    return [
        _CubeLevel(value, owner, score.after(value), score.after(-value), d[Owner.ME], d[Owner.OPP])
        for (value, owner), d in zip(keys, doubles)
    ]


def solve(mine: int, theirs: int, state: CubeState, met: Optional[MatchEquityTable] = None) -> Optional[MatchCubeMWCs]:
    """Exact MWCs of the side on roll with home-board indices ``mine`` and ``theirs`` (both > 0) at ``state``.

    ``double_take`` is given even where the side may not double now (the answer to "should the
    opponent take?"). None where the two sides can reach more than ``MAX_PAIRS`` pairs of
    boards (use the cube model there). Raises ValueError for a money game or a position
    outside the database.
    """
    limit = bo.positions_count(bo.TWO_SIDED_CHECKERS)
    if state.is_money or not (0 < mine < limit and 0 < theirs < limit):
        raise ValueError(f"solve: a match-play position of the two-sided database (got {mine}, {theirs}, {state})")
    if len(reachable(mine)) * len(reachable(theirs)) > MAX_PAIRS:
        return None
    return _solve_default(mine, theirs, state) if met is None else _solve(mine, theirs, state, met)


def solve_many(
    pairs: list[tuple[int, int]], state: CubeState, met: Optional[MatchEquityTable] = None
) -> list[Optional[MatchCubeMWCs]]:
    """``solve`` for many pairs of home-board indices at one state (a search's leaves): one backward
    pass over every pair of boards they can reach, where that stays within ``MAX_PAIRS``."""
    if not pairs:
        return []
    ra = functools.reduce(np.union1d, (reachable(i) for i, _ in pairs))
    rb = functools.reduce(np.union1d, (reachable(j) for _, j in pairs))
    if len(ra) * len(rb) > MAX_PAIRS or state.is_money or min(min(pair) for pair in pairs) <= 0:
        return [solve(i, j, state, met) for i, j in pairs]
    no_double = _solve_boards(ra, rb, state, met)
    local_a, local_b = np.searchsorted(ra, [i for i, _ in pairs]), np.searchsorted(rb, [j for _, j in pairs])
    return [
        MatchCubeMWCs(no_double=float(no_double[0, a, b - 1]), double_take=float(no_double[1, a, b - 1]))
        for a, b in zip(local_a, local_b)
    ]


@functools.lru_cache(maxsize=256)
def _solve_default(mine: int, theirs: int, state: CubeState) -> MatchCubeMWCs:
    return _solve(mine, theirs, state, None)


def _solve(mine: int, theirs: int, state: CubeState, met: Optional[MatchEquityTable]) -> MatchCubeMWCs:
    no_double = _solve_boards(reachable(mine), reachable(theirs), state, met)
    # The last row and column are the root's boards; level 1 is A's double, taken.
    return MatchCubeMWCs(no_double=float(no_double[0, -1, -1]), double_take=float(no_double[1, -1, -1]))


def _solve_boards(ra: np.ndarray, rb: np.ndarray, state: CubeState, met: Optional[MatchEquityTable]) -> np.ndarray:
    """(levels, len(ra), len(rb) - 1) A's MWC on roll before its cube decision, with A's boards ``ra`` and B's
    ``rb`` (sorted home-board indices, 0 first, closed under moves), B not yet off; level 0 ``state``'s own,
    level 1 A's double, taken."""
    score = MatchScore.of(state, met)
    levels = _levels(state, score)
    moves = _moves()
    local_a = np.zeros(int(ra[-1]) + 1, dtype=np.int64)
    local_a[ra] = np.arange(len(ra))
    local_b = np.zeros(int(rb[-1]) + 1, dtype=np.int64)
    local_b[rb] = np.arange(len(rb))
    _, b_child, b_runs = moves.results(rb[1:])
    b_child = local_b[b_child]
    shape = (len(levels), len(ra), len(rb))
    a_on_roll = np.empty(shape)  # A's MWC with A on roll, before A's cube decision
    b_on_roll = np.empty(shape)  # A's MWC with B on roll, before B's cube decision
    for k, level in enumerate(levels):  # a side with every checker off has won
        a_on_roll[k, 0, :] = b_on_roll[k, 0, :] = level.a_wins
        a_on_roll[k, :, 0] = b_on_roll[k, :, 0] = level.b_wins
    no_double = np.empty((len(levels), len(ra), len(rb) - 1))
    no_double[:, 0] = np.array([level.a_wins for level in levels])[:, None]  # A has borne off
    for a in range(1, len(ra)):  # results have smaller indices: every value needed is there
        _, a_child, a_runs = moves.results(ra[a : a + 1])
        a_child = local_a[a_child]
        # A plays each roll to its best; then B is on roll.
        best = np.maximum.reduceat(b_on_roll[:, a_child, 1:], a_runs, axis=1)
        a_no_double = no_double[:, a]
        a_no_double[:] = np.einsum("r,krj->kj", ROLL_WEIGHTS, best)
        for k, level in enumerate(levels):
            a_on_roll[k, a, 1:] = a_no_double[k]
            if level.a_doubles is not None:  # B takes or passes, whichever is better for it
                doubled = np.minimum(a_no_double[level.a_doubles], level.a_wins)
                a_on_roll[k, a, 1:] = np.maximum(a_no_double[k], doubled)
        # B, on roll at each of its boards against A's board a, plays to A's worst.
        worst = np.minimum.reduceat(a_on_roll[:, a, b_child], b_runs, axis=1)
        b_no_double = worst.reshape(len(levels), len(rb) - 1, len(ROLLS)) @ ROLL_WEIGHTS
        for k, level in enumerate(levels):
            b_on_roll[k, a, 1:] = b_no_double[k]
            if level.b_doubles is not None:
                doubled = np.maximum(b_no_double[level.b_doubles], level.b_wins)
                b_on_roll[k, a, 1:] = np.minimum(b_no_double[k], doubled)
    return no_double
