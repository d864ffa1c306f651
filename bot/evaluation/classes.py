"""Position classes, and an evaluator that gives each class its own evaluation, batched.

Every board is seen by the side on roll (DESIGN.md). Its class is the first that fits:

- ``OVER``: a side has borne off all 15 checkers; exact (``bot.equity.outcomes``);
- ``BEAROFF``: both sides have every checker on their own home points or off, none on the
  bar (``bot.evaluation.bearoff.is_bearoff``: no contact is possible), and the bear-off databases
  cover both sides' checkers (all 15 for the full databases); exact from the databases;
- ``RACE``: no contact left (every checker of the side on roll is past every checker of
  the opponent), not a bear-off; a race network, or the contact network when the bot
  has none;
- ``CRASHED``: contact where a side's game has collapsed (GNU Backgammon's crashed class,
  ``crashed``): a crashed network, or the contact network when the bot has none;
- ``LATE_CONTACT``: other contact where neither side has more than one checker back (in the
  other's home board or on the bar; ``LATE_CONTACT_BACK``): a late-contact network, or the
  contact network when the bot has none;
- ``CONTACT``: everything else; the contact network.

``ClassEvaluator.probabilities`` classifies a batch, takes each class's boards with one
``np.flatnonzero`` mask, evaluates each class in one call and writes the results back in
the batch's order: a loop over the six classes, never over positions.
"""

from __future__ import annotations

import sys

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING
from enum import IntEnum

import numpy as np

from bot.evaluation import bearoff as bo
from bot.equity.cube import (
    CubeDecision,
    CubeState,
    MatchCubeMWCs,
    MoneyCubeEquities,
    cube_decision,
    cube_efficiencies,
    decision_value,
    model_decisions,
    model_values,
)
from bot.evaluation.cube_correction import CubeCorrection
from bot.equity.met import MatchEquityTable
from bot.evaluation.encoding import rearmost
from bot.evaluation.evaluator import ProbabilityEvaluator, ProbabilityModel
from bot.equity.outcomes import finished_probabilities, invert, is_finished
from engine.board import CHECKERS

if TYPE_CHECKING:  # bot.evaluation.prune imports this module
    from bot.evaluation.prune import Pruner


class PositionClass(IntEnum):
    """The class of a position (side on roll's view); the values are what ``classify`` returns."""

    OVER = 0
    BEAROFF = 1
    RACE = 2
    CONTACT = 3
    CRASHED = 4
    LATE_CONTACT = 5

    @property
    def label(self) -> str:
        """The lower-case name used in checkpoints and benchmark tables: over, bearoff, race, contact..."""
        return self.name.lower()


# The classes a network can serve, as checkpoints name them. Over and bear-off are exact.
NETWORK_CLASSES = ("contact", "race", "crashed", "late_contact")
LATE_CONTACT_BACK = 1  # the most checkers a side may have back (other's home board, bar) in late contact


def checkers_on_board(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(side on roll's, opponent's) checkers not yet borne off, of boards (B, 26) seen by the side on roll."""
    boards = np.asarray(boards)
    return (np.maximum(boards, 0).sum(axis=1, dtype=np.int32), -np.minimum(boards, 0).sum(axis=1, dtype=np.int32))


def classify(boards: np.ndarray, bearoff_checkers: int = bo.CHECKERS) -> np.ndarray:
    """(B,) int8 ``PositionClass`` of each board (B, 26) seen by the side on roll.

    ``bearoff_checkers``: the most checkers a side may have on the board for the bear-off
    class (the databases' size; 15, every bear-off, for the full ones).
    """
    boards = np.asarray(boards).reshape(-1, 26)
    mover, opponent = rearmost(boards)  # each in its own numbering: 25 the bar, 0 none left
    classes = np.where(mover + opponent <= 25, np.int8(PositionClass.RACE), np.int8(PositionClass.CONTACT))
    contact = np.flatnonzero(classes == PositionClass.CONTACT)
    if contact.size:  # either side crashed; the opponent's ace and deuce are the side on roll's 24 and 23
        rows = boards[contact]
        mine, theirs = checkers_on_board(rows)
        collapsed = _collapsed(mine, rows[:, 1], rows[:, 2]) | _collapsed(theirs, -rows[:, 24], -rows[:, 23])
        classes[contact[collapsed]] = PositionClass.CRASHED
        # Back: the side on roll's checkers on its 19-24 and bar, the opponent's on the side on roll's 1-6 and its bar.
        late = (
            ~collapsed
            & (np.maximum(rows[:, 19:], 0).sum(axis=1) <= LATE_CONTACT_BACK)
            & (-np.minimum(rows[:, :7], 0).sum(axis=1) <= LATE_CONTACT_BACK)
        )
        classes[contact[late]] = PositionClass.LATE_CONTACT
    bearoff = (mover <= 6) & (opponent <= 6)  # bo.is_bearoff: every checker home or off, none on the bar
    if bearoff_checkers < bo.CHECKERS:
        mine, theirs = checkers_on_board(boards)
        bearoff &= (mine <= bearoff_checkers) & (theirs <= bearoff_checkers)
    classes[bearoff] = PositionClass.BEAROFF
    classes[(mover == 0) | (opponent == 0)] = PositionClass.OVER
    return classes.astype(np.int8, copy=False)


def _crash_discounts() -> np.ndarray:
    """(16, 16) int32: the checkers a side's ace and deuce counts (a, d) take off its count in the crashed test.

    GNU Backgammon's test (eval.c, ClassifyPosition) for n checkers on the board (bar included):
    crashed when n <= 6; or, with two or more on the ace point, n - a <= 6, or (two or more on the
    deuce too) n - a - d + 1 <= 6; or, with at most one on the ace, n - d + 1 <= 6. That is
    n - discount[a, d] <= 6, the largest discount that applies.
    """
    a, d = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    return np.where(a > 1, a + np.where(d > 1, d - 1, 0), np.maximum(d - 1, 0)).astype(np.int32)


CRASH_DISCOUNTS = _crash_discounts()
CRASHED_CHECKERS = 6  # a side with at most this many checkers left beyond its discount has crashed


def crashed(boards: np.ndarray) -> np.ndarray:
    """(B,) whether the side on roll's game has collapsed (``CRASH_DISCOUNTS``), boards (B, 26) in its view.

    The class applies to contact positions only (``classify``, which asks it of both sides).
    """
    boards = np.asarray(boards).reshape(-1, 26)
    return _collapsed(checkers_on_board(boards)[0], boards[:, 1], boards[:, 2])


def _collapsed(left: np.ndarray, ace: np.ndarray, deuce: np.ndarray) -> np.ndarray:
    """(B,) the crashed test of one side from its checkers on the board and its signed ace and deuce counts
    (negative: the other side's checkers, none of its own)."""
    return left - CRASH_DISCOUNTS[np.maximum(ace, 0), np.maximum(deuce, 0)] <= CRASHED_CHECKERS


def over_probabilities(boards: np.ndarray) -> np.ndarray:
    """(B, 5) exact probabilities for the side on roll of finished boards (B, 26), side on roll's view."""
    boards = np.asarray(boards)
    five = invert(finished_probabilities(-boards[:, ::-1]))  # the opponent has won (usual case)
    won = is_finished(boards)  # the side on roll has no checker left: it has won
    if won.any():
        five[won] = finished_probabilities(boards[won])
    return five


class BearoffDatabases:
    """The exact bear-off class: ``bot.evaluation.bearoff``'s databases, read from the cache on first use.

    Pass ``one`` and ``two`` to use tables built in memory (small ones in tests);
    ``checkers`` is then the one-sided table's size.
    """

    def __init__(self, one: bo.OneSided | None = None, two: bo.TwoSided | None = None) -> None:
        self._one, self._two = one, two
        self.checkers = one.checkers if one is not None else bo.CHECKERS

    # The first bear-off on a machine builds the databases (seconds): a bar says so on a terminal.
    def _one_sided(self) -> bo.OneSided:
        return self._one if self._one is not None else bo.one_sided(progress=sys.stderr.isatty())

    def _two_sided(self) -> bo.TwoSided:
        return self._two if self._two is not None else bo.two_sided(progress=sys.stderr.isatty())

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(B, 5) exact probabilities for the side on roll of bear-off boards (B, 26), side on roll's view."""
        return bo.bearoff_probabilities(boards, self._one_sided(), self._two_sided())

    def cube(self, board: np.ndarray, state: CubeState) -> MoneyCubeEquities | MatchCubeMWCs | None:
        """Exact cube values of a board (26,) (side on roll's view) in the two-sided database, else None.

        Money equities from the database; in a match, MWCs solved for the score
        (``bot.evaluation.bearoff_match``; None where that would take seconds). Other boards return
        before the database is read (or built).
        """
        return self.cubes(np.asarray(board).reshape(1, 26), state)[0]

    def cubes(self, boards: np.ndarray, state: CubeState) -> list[MoneyCubeEquities | MatchCubeMWCs | None]:
        """``cube`` of each of boards (N, 26) at one state; a match's are solved together
        (``bearoff_match.solve_many``: the boards a search's leaves reach overlap)."""
        boards = np.asarray(boards).reshape(-1, 26)
        mine, theirs = bo.home_boards(boards)
        size = self._two.checkers if self._two is not None else bo.TWO_SIDED_CHECKERS
        inside = bo.is_bearoff(boards) & (mine.sum(axis=1) <= size) & (theirs.sum(axis=1) <= size)
        cubes: list[MoneyCubeEquities | MatchCubeMWCs | None] = [None] * len(boards)
        rows = np.flatnonzero(inside)
        if not rows.size:
            return cubes
        pairs = list(zip(bo.home_index(mine[rows]).tolist(), bo.home_index(theirs[rows]).tolist()))
        if not state.is_money:
            from bot.evaluation import bearoff_match  # match bear-offs' cube: loaded only where one is solved

            playing = [k for k, (i, j) in enumerate(pairs) if i and j]  # with a side off the game is over
            for k, solved in zip(playing, bearoff_match.solve_many([pairs[k] for k in playing], state)):
                cubes[rows[k]] = solved
            return cubes
        two = self._two_sided()
        for row, (i, j) in zip(rows, pairs):
            cubes[row] = MoneyCubeEquities(
                float(two.centred[i, j]), float(two.owned[i, j]), float(two.unavailable[i, j])
            )
        return cubes


class ClassEvaluator(ProbabilityEvaluator):
    """Probabilities by position class: exact for game over and bear-offs, a network per class otherwise.

    ``networks`` maps class labels (``NETWORK_CLASSES``) to models; ``contact`` is required,
    a missing ``race``, ``crashed`` or ``late_contact`` falls back to the contact network. ``bearoff`` None plays
    bear-offs with the race network too (the bot as it was before the classes). ``cube_correction``: the bot's
    learned correction to its 0-ply cube decisions (``bot.evaluation.cube_correction``), or None for the plain model.
    """

    def __init__(
        self,
        networks: Mapping[str, ProbabilityModel],
        bearoff: BearoffDatabases | None = None,
        cube_correction: CubeCorrection | None = None,
    ) -> None:
        unknown = set(networks) - set(NETWORK_CLASSES)
        if unknown:
            raise ValueError(f"networks for unknown classes {sorted(unknown)}: expected some of {NETWORK_CLASSES}")
        if "contact" not in networks:
            raise ValueError("a class evaluator needs a contact network")
        self.networks = dict(networks)
        self.bearoff = bearoff
        self.cube_correction = cube_correction
        # Rollouts' move pruner (bot.evaluation.prune), fitted to these networks;
        # bot.evaluation.checkpoint.load_evaluator sets it.
        self.pruner: Pruner | None = None
        race = self.networks.get("race", self.networks["contact"])
        self._models: dict[int, ProbabilityModel] = {
            PositionClass.OVER: _Over(),
            PositionClass.BEAROFF: bearoff if bearoff is not None else race,
            PositionClass.RACE: race,
            PositionClass.CONTACT: self.networks["contact"],
            PositionClass.CRASHED: self.networks.get("crashed", self.networks["contact"]),
            PositionClass.LATE_CONTACT: self.networks.get("late_contact", self.networks["contact"]),
        }

    def classify(self, boards: np.ndarray) -> np.ndarray:
        """(B,) ``PositionClass`` of boards (B, 26) seen by the side on roll, as this evaluator splits them."""
        return classify(boards, self.bearoff.checkers if self.bearoff is not None else bo.CHECKERS)

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(B, 5) [win, wg, wbg, lg, lbg] of the side on roll of each board (B, 26): one call per class present."""
        boards = np.asarray(boards)
        classes = self.classify(boards)
        first = classes[0] if len(classes) else PositionClass.CONTACT
        if np.all(classes == first):  # one class (the usual case): no gather, no scatter
            five = np.asarray(self._models[int(first)].probabilities(boards), dtype=np.float32)
        else:
            five = np.empty((len(boards), 5), dtype=np.float32)
            for kind, model in self._models.items():
                rows = np.flatnonzero(classes == kind)
                if rows.size:
                    five[rows] = model.probabilities(boards[rows])
        return without_impossible_gammons(boards, classes, five)


def without_impossible_gammons(boards: np.ndarray, classes: np.ndarray, five: np.ndarray) -> np.ndarray:
    """``five`` (B, 5) of boards (B, 26) of ``classes``, side on roll's view, with the gammons and
    backgammons the rules rule out set to 0 (a new array where any is; ``five`` is left as it is).

    A network's softmax never gives an outcome exactly 0, but a side that has borne off a checker
    cannot lose a gammon, and with no contact left (no checker can be sent back) a side cannot lose
    a backgammon without a checker in the winner's home board now. Where a race is all but won,
    GNU Backgammon's verdict between "double, pass" and "too good" turns on those zeros (it applies
    the same rules, eval.c's SanityCheck). Exact probabilities obey them already.
    """
    mine, theirs = checkers_on_board(boards)
    no_win_gammon, no_lose_gammon = theirs < CHECKERS, mine < CHECKERS
    no_contact = (classes == PositionClass.RACE) | (classes == PositionClass.BEAROFF)
    if not (no_win_gammon.any() or no_lose_gammon.any() or no_contact.any()):
        return five  # most of a game: every outcome is possible
    five = five.copy()  # never write into the array a model returned
    # The side on roll's home board is its points 1-6, the opponent's its 19-24; no checker is on the bar in a race.
    five[no_win_gammon, 1] = 0.0
    five[no_win_gammon | (no_contact & ~np.any(boards[:, 1:7] < 0, axis=1)), 2] = 0.0
    five[no_lose_gammon, 3] = 0.0
    five[no_lose_gammon | (no_contact & ~np.any(boards[:, 19:25] > 0, axis=1)), 4] = 0.0
    return five


class _Over:
    """The game-over class as a model."""

    @staticmethod
    def probabilities(boards: np.ndarray) -> np.ndarray:
        return over_probabilities(boards)


def exact_cubes(
    evaluator: ProbabilityEvaluator, boards: np.ndarray, state: CubeState
) -> list[MoneyCubeEquities | MatchCubeMWCs | None]:
    """``exact_cube`` of each of boards (N, 26) at one state, a match's solved together."""
    if isinstance(evaluator, ClassEvaluator) and evaluator.bearoff is not None:
        return evaluator.bearoff.cubes(boards, state)
    return [None] * len(boards)


def cube_decisions(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    fives: np.ndarray,
    state: CubeState,
    met: MatchEquityTable | None = None,
    exact_in_match: bool = True,
    efficiencies: np.ndarray | None = None,
) -> list[CubeDecision]:
    """``bot.equity.cube.cube_decision`` for each of boards (N, 26) at one state, their probabilities ``fives`` (N, 5),
    all in the side on roll's view: the model in one batch, exact values where the evaluator's databases have
    them (a match's solved together; ``exact_in_match`` False keeps the model in a match, whose exact values
    cost a solve). ``efficiencies`` (N,): the model's cube efficiencies, if not backgammon's by position kind."""
    efficiencies = cube_efficiencies(boards) if efficiencies is None else efficiencies
    decisions = model_decisions(fives, efficiencies, state, met)
    if state.is_money or exact_in_match:
        for row, decision in _exact_decisions(evaluator, boards, fives, state, met, efficiencies):
            decisions[row] = decision
    return decisions


def cube_values(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    fives: np.ndarray,
    state: CubeState,
    met: MatchEquityTable | None = None,
    efficiencies: np.ndarray | None = None,
) -> np.ndarray:
    """(N,) ``bot.equity.cube.decision_value`` of ``cube_decisions`` (exact values in a match too), in one batch
    without the decisions: for a search's many leaves."""
    efficiencies = cube_efficiencies(boards) if efficiencies is None else efficiencies
    values = model_values(fives, efficiencies, state, met)
    for row, decision in _exact_decisions(evaluator, boards, fives, state, met, efficiencies):
        values[row] = decision_value(decision, state)
    return values


def _exact_decisions(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    fives: np.ndarray,
    state: CubeState,
    met: MatchEquityTable | None,
    efficiencies: np.ndarray,
) -> Iterator[tuple[int, CubeDecision]]:
    """(row, ``cube_decision`` on its exact values) of each of boards (N, 26) the evaluator's databases hold."""
    for row, exact in enumerate(exact_cubes(evaluator, boards, state)):  # None outside the databases
        if exact is not None:
            yield row, cube_decision(boards[row], fives[row], state, met, float(efficiencies[row]), exact)


def exact_cube(
    evaluator: ProbabilityEvaluator, board: np.ndarray, state: CubeState
) -> MoneyCubeEquities | MatchCubeMWCs | None:
    """The exact cube values of ``board`` (side on roll's view) at ``state`` where ``evaluator`` reads the databases.

    None outside the two-sided database, or for an evaluator without the bear-off class;
    ``bot.equity.cube.cube_decision`` then uses its model.
    """
    if isinstance(evaluator, ClassEvaluator) and evaluator.bearoff is not None:
        return evaluator.bearoff.cube(board, state)
    return None
