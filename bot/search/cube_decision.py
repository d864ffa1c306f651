"""Cube decisions searched n plies deep: cubeful lookahead, as GNU Backgammon decides at n-ply.

At 0-ply ``bot.equity.cube`` prices a position's cube life with Janowski's model. Deeper, the
side on roll's no-double and double/take values are the roll-weighted means over its 21
rolls of what it holds after its best play (by 0-ply cubeless equity) and the opponent's
right cube action there, that action itself found one ply less deep; the model prices
the leaves. A mean of probabilities hides market losers (rolls after which a take has
become a pass); this does not.

Either game: the evaluator's (``evaluator.game``) flip, afterstates and points won, and the
model's cube efficiencies given as a function of boards (backgammon's by position kind unless
told; long nardy's ``bot.equity.cube.long_nardy_efficiencies``, as ``bot.facade.Bot`` passes them).

Boards are in the view of the side on roll, before it rolls; values are its own, as
points of the game (money) or match-winning chances (match) until they are normalised
as ``bot.equity.cube`` reports them (a pass is +1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional, Sequence, TypeVar

import numpy as np

from bot.evaluation.classes import ClassEvaluator, cube_values, exact_cube
from bot.equity.cube import (
    CubeDecision,
    CubeState,
    MatchCubeMWCs,
    MatchScore,
    MoneyCubeEquities,
    Owner,
    cube_decision,
    cube_efficiencies,
    decision_from_equities,
    decision_value,
    model_values,
    swap_state,
)
from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.equity.met import MatchEquityTable
from bot.equity.outcomes import invert, is_finished
from bot.search.nply import InvalidSearchError, best_replies
from engine import ROLL_WEIGHTS, ROLLS
from engine.variant import BACKGAMMON, Variant

# The cube efficiencies of boards (N, 26), each in its side on roll's view: the cube model's one free input.
Efficiencies = Callable[[np.ndarray], np.ndarray]
# A value of one position, or of each of many.
Value = TypeVar("Value", float, np.ndarray)


def lookahead_cube_decision(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    state: CubeState,
    plies: int,
    met: Optional[MatchEquityTable] = None,
    five: Optional[np.ndarray] = None,
    efficiencies: Efficiencies = cube_efficiencies,
) -> CubeDecision:
    """The cube decision of the side on roll of ``board`` (its view, game not over) searched ``plies`` deep.

    0-ply, and any depth inside the two-sided bear-off database (exact cube values), is
    ``bot.equity.cube.cube_decision`` on the evaluator's 0-ply probabilities (``five``, if the
    caller has them), at 0-ply with the evaluator's learned correction if it has one
    (``bot.evaluation.cube_correction``; a search's leaves keep the plain model it was fitted against).
    Deeper, a double is priced even where the side may not double, for
    the take / pass answer. ``efficiencies``: the model's cube efficiencies of boards, at the root
    (0-ply) and the leaves.
    """
    if plies < 0:
        raise InvalidSearchError(f"plies {plies!r}: expected 0 or more")
    board = np.asarray(board, dtype=np.int8)
    exact = exact_cube(evaluator, board, state)
    if plies == 0 or exact is not None:
        return _shallow_decision(evaluator, board, state, met, five, efficiencies, exact)
    searched = _search(evaluator, board, {state}, plies, met, efficiencies, every_double=True)
    return _decision(searched.raw[state], state, searched, met)


def _shallow_decision(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    state: CubeState,
    met: Optional[MatchEquityTable],
    five: Optional[np.ndarray],
    efficiencies: Efficiencies,
    exact: MoneyCubeEquities | MatchCubeMWCs | None,
) -> CubeDecision:
    """``lookahead_cube_decision`` at 0-ply, or anywhere with the ``exact`` cube values of ``board`` at ``state``."""
    fives = None if five is None else np.asarray(five)[None]
    return _shallow_decisions(evaluator, board[None], [state], [met], fives, efficiencies, [exact])[0]


def _shallow_decisions(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    states: Sequence[CubeState],
    mets: Sequence[Optional[MatchEquityTable]],
    fives: Optional[np.ndarray],
    efficiencies: Efficiencies,
    exacts: Sequence[MoneyCubeEquities | MatchCubeMWCs | None],
) -> list[CubeDecision]:
    """``_shallow_decision`` of each of ``boards`` (N, 26): their probabilities in one batch, the learned
    correction's decisions in one batch per cube state and table."""
    if fives is None:
        fives = evaluator.probabilities(boards)
    fives = np.clip(np.asarray(fives, dtype=np.float64).reshape(-1, 5), 0.0, 1.0)
    correction = evaluator.cube_correction if isinstance(evaluator, ClassEvaluator) else None
    decisions: dict[int, CubeDecision] = {}  # by row
    if correction is not None:
        corrected: dict[tuple[CubeState, int], list[int]] = {}  # rows by cube state and table
        for i, exact in enumerate(exacts):
            if exact is None:
                corrected.setdefault((states[i], id(mets[i])), []).append(i)
        for (state, _), rows in corrected.items():
            decisions.update(zip(rows, correction.decisions(boards[rows], fives[rows], state, mets[rows[0]])))
    plain = [i for i in range(len(boards)) if i not in decisions]
    if plain:
        for i, efficiency in zip(plain, efficiencies(boards[plain]).tolist()):
            decisions[i] = cube_decision(
                boards[i], fives[i], states[i], mets[i], efficiency=float(efficiency), exact=exacts[i]
            )
    return [decisions[i] for i in range(len(boards))]


def lookahead_cube_decisions(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    states: Sequence[CubeState],
    plies: int,
    mets: Sequence[Optional[MatchEquityTable]],
    fives: Optional[np.ndarray] = None,
    efficiencies: Efficiencies = cube_efficiencies,
    prune: bool = False,
) -> list[CubeDecision]:
    """``lookahead_cube_decision`` of each of ``boards`` (N, 26) at ``states[i]`` with table ``mets[i]`` (and 0-ply
    probabilities ``fives[i]``, if known): the first roll of every search that goes deeper expanded in one batch.
    ``prune``: every roll's best play found as ``bot.search.nply.best_plays`` says."""
    if plies < 0:
        raise InvalidSearchError(f"plies {plies!r}: expected 0 or more")
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    decisions: dict[int, CubeDecision] = {}  # by row
    exacts = [exact_cube(evaluator, board, state) for board, state in zip(boards, states)]
    deep = [i for i, exact in enumerate(exacts) if plies and exact is None]
    if deep:
        replies, reply_fives = best_replies(evaluator, evaluator.game.flip(boards[deep]), prune)
        for k, i in enumerate(deep):
            rolls = slice(k * len(ROLLS), (k + 1) * len(ROLLS))
            expanded = replies[rolls], reply_fives[rolls]
            searched = _search(evaluator, boards[i], {states[i]}, plies, mets[i], efficiencies, True, expanded, prune)
            decisions[i] = _decision(searched.raw[states[i]], states[i], searched, mets[i])
    shallow = [i for i in range(len(boards)) if i not in decisions]
    if shallow:
        found = _shallow_decisions(
            evaluator,
            boards[shallow],
            [states[i] for i in shallow],
            [mets[i] for i in shallow],
            None if fives is None else np.asarray(fives)[shallow],
            efficiencies,
            [exacts[i] for i in shallow],
        )
        decisions.update(zip(shallow, found))
    return [decisions[i] for i in range(len(boards))]


def value_after_play(
    child: np.ndarray, mover_five: np.ndarray, state: CubeState, met: Optional[MatchEquityTable] = None
) -> float:
    """The mover's normalised value after a play at 0-ply: the opponent's right cube action there, turned round.

    ``child`` is the afterstate and ``mover_five`` its probabilities, both the mover's;
    ``state`` the mover's cube state. A finished game is worth what the mover won.
    """
    return float(values_after_plays(np.asarray(child)[None], np.asarray(mover_five)[None], state, met)[0])


def values_after_plays(
    children: np.ndarray,
    mover_fives: np.ndarray,
    state: CubeState,
    met: Optional[MatchEquityTable] = None,
    game: Variant = BACKGAMMON,
    efficiencies: Efficiencies = cube_efficiencies,
) -> np.ndarray:
    """(N,) ``value_after_play`` of each of ``children`` (N, 26) at one cube state, the model's arithmetic batched.

    ``game``: the variant (its turned boards and points won); ``efficiencies``: the cube efficiencies of boards
    (N, 26) in the view of their side on roll (``bot.facade.Bot.cube_efficiencies``: the bot's game's model).
    """
    children = np.asarray(children, dtype=np.int8).reshape(-1, 26)
    values = np.empty(len(children))
    finished = is_finished(children)
    for i in np.flatnonzero(finished):
        values[i] = _normalised(_won(game, children[i], state, met), state, met)
    live = np.flatnonzero(~finished)
    if live.size:
        theirs = swap_state(state)
        boards = game.flip(children[live])
        fives = _before_roll(np.asarray(mover_fives)[live])
        values[live] = _normalised(_turned(model_values(fives, efficiencies(boards), theirs, met), state), state, met)
    return values


@dataclass(frozen=True)
class _Searched:
    """One node's raw (no double, double taken) values per cube state; None where a double was not priced."""

    raw: dict[CubeState, tuple[float, Optional[float]]]
    can_win_gammon: bool
    efficiency: float


def _search(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    states: set[CubeState],
    plies: int,
    met: Optional[MatchEquityTable],
    efficiencies: Efficiencies,
    every_double: bool = False,
    expanded: Optional[tuple[np.ndarray, np.ndarray]] = None,
    prune: bool = False,
) -> _Searched:
    """The side on roll's raw values at ``states`` one roll ahead, its replies searched ``plies - 1`` deep.

    A double is priced where the side may double (or everywhere, ``every_double``).
    ``expanded``: the side's best plays of the 21 rolls and their probabilities, if known; ``prune``: the best plays
    found as ``bot.search.nply.best_plays`` says.
    """
    game = evaluator.game
    replies, mover_five = expanded if expanded is not None else best_replies(evaluator, game.flip(board)[None], prune)
    finished = is_finished(replies)
    # The next level's plays, for all the replies in one batch.
    below: list[Optional[tuple[np.ndarray, np.ndarray]]] = [None] * len(replies)
    live = np.flatnonzero(~finished)
    if plies > 1 and live.size:
        plays, five = best_replies(evaluator, replies[live], prune)
        for k, i in enumerate(live):
            below[i] = plays[k * len(ROLLS) : (k + 1) * len(ROLLS)], five[k * len(ROLLS) : (k + 1) * len(ROLLS)]
    # The opponent's cube state after the side on roll's choice: no double, or a double taken.
    branches = {
        s: (
            swap_state(s),
            replace(swap_state(s), cube=2 * s.cube, owner=Owner.ME) if every_double or s.can_double else None,
        )
        for s in states
    }
    their_states = {t for pair in branches.values() for t in pair if t is not None}
    if plies == 1:
        after_roll = _leaf_values(evaluator, replies, mover_five, finished, their_states, met, efficiencies)
    else:
        after_roll = [
            None
            if done
            else _values(
                evaluator,
                game.flip(child),
                _before_roll(p),
                their_states,
                plies - 1,
                met,
                efficiencies,
                next_plays,
                prune,
            )
            for child, p, done, next_plays in zip(replies, mover_five, finished, below)
        ]

    def mean_after(theirs: CubeState) -> float:
        mine = swap_state(theirs)
        values = [
            _won(game, child, mine, met) if values is None else _turned(values[theirs], mine)
            for child, values in zip(replies, after_roll)
        ]
        return float(np.dot(ROLL_WEIGHTS, values))

    raw = {
        s: (mean_after(undoubled), None if taken is None else mean_after(taken))
        for s, (undoubled, taken) in branches.items()
    }
    efficiency = float(efficiencies(board[None])[0])
    return _Searched(raw, bool(np.dot(ROLL_WEIGHTS, mover_five[:, 1]) > 0.0), efficiency)


def _leaf_values(
    evaluator: ProbabilityEvaluator,
    replies: np.ndarray,
    mover_five: np.ndarray,
    finished: np.ndarray,
    states: set[CubeState],
    met: Optional[MatchEquityTable],
    efficiencies: Efficiencies,
) -> list[Optional[dict[CubeState, float]]]:
    """The opponent's raw values at ``states`` after each of the mover's plays ``replies`` (mover's view, 0-ply
    probabilities ``mover_five``), by the model in one batch per state, exact inside the bear-off database;
    None for a finished game."""
    live = np.flatnonzero(~finished)
    boards = evaluator.game.flip(replies[live])  # the opponent on roll
    fives = _before_roll(mover_five[live])
    x = efficiencies(boards)
    raw = {s: cube_values(evaluator, boards, fives, s, met, efficiencies=x).tolist() for s in states}
    values: list[Optional[dict[CubeState, float]]] = [None] * len(replies)
    for k, i in enumerate(live):
        values[i] = {s: raw[s][k] for s in states}
    return values


def _values(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    five: np.ndarray,
    states: set[CubeState],
    plies: int,
    met: Optional[MatchEquityTable],
    efficiencies: Efficiencies,
    expanded: Optional[tuple[np.ndarray, np.ndarray]] = None,
    prune: bool = False,
) -> dict[CubeState, float]:
    """The side on roll's raw value after its right cube action at each of ``states`` (``plies`` > 0); ``five``
    its 0-ply probabilities, ``expanded`` and ``prune`` as for ``_search``."""
    searched = _search(evaluator, board, states, plies, met, efficiencies, expanded=expanded, prune=prune)
    return {
        s: no_double
        if double_take is None
        else decision_value(_decision((no_double, double_take), s, searched, met), s)
        for s, (no_double, double_take) in searched.raw.items()
    }


def _decision(
    raw: tuple[float, Optional[float]], state: CubeState, searched: _Searched, met: Optional[MatchEquityTable]
) -> CubeDecision:
    """The decision from raw no-double and double/take values (the latter priced)."""
    no_double, double_take = raw
    assert double_take is not None  # only a priced double makes a decision
    mwcs: tuple[Optional[float], Optional[float], Optional[float]] = (None, None, None)
    if not state.is_money:
        mwcs = (no_double, double_take, MatchScore.of(state, met).after(state.cube))
    nd, dt = _normalised(no_double, state, met), _normalised(double_take, state, met)
    return decision_from_equities(nd, dt, 1.0, state, searched.can_win_gammon, searched.efficiency, mwcs)


def _before_roll(mover_five: np.ndarray) -> np.ndarray:
    """The opponent's probabilities before it rolls, from the mover's of the afterstate."""
    return np.clip(invert(mover_five.astype(np.float64)), 0.0, 1.0)


def _turned(raw: Value, state: CubeState) -> Value:
    """The opponent's ``raw`` value as the other side's (``state`` that side's)."""
    return -raw if state.is_money else 1.0 - raw


def _won(game: Variant, child: np.ndarray, state: CubeState, met: Optional[MatchEquityTable]) -> float:
    """The raw value of a finished game of ``game`` to the mover, who has borne off (``state`` the mover's)."""
    return _points_won(int(game.winning_points(child[None])[0]), state, met)


def _points_won(points: int, state: CubeState, met: Optional[MatchEquityTable]) -> float:
    """The raw value to the mover of winning ``points`` times the cube (``state`` the mover's)."""
    if state.is_money:
        if state.jacoby and state.owner is Owner.CENTERED:
            points = 1
        return float(points * state.cube)
    return MatchScore.of(state, met).after(points * state.cube)


def _normalised(raw: Value, state: CubeState, met: Optional[MatchEquityTable]) -> Value:
    """A raw value as ``bot.equity.cube`` reports it: per unit of cube (money), or MWC mapped so a pass is +1."""
    if state.is_money:
        return raw / state.cube
    return MatchScore.of(state, met).normalise(raw, state.cube)
