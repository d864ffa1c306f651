"""Monte-Carlo rollouts, cubeless, with every trial advancing together.

A rollout plays many games (trials) from one position to the end (or for
``truncate`` plies, then asks the evaluator) and averages the results. All
trials of all rolled-out positions move in lockstep: each ply is one
``engine.afterstates`` call and one evaluator call for the whole batch.

- Dice: the first roll of trial j is one of the 36 rolls, each equally often
  (a random permutation, rotated); optionally the second roll too, per first
  roll (GNU Backgammon's quasi-random dice); later rolls from the generator.
  Every rolled-out position sees the same dice (common random numbers).
- Variance reduction (GNU Backgammon's lookahead): at each ply the luck of the
  roll is the evaluator's probabilities after the best 0-ply play of the rolled
  dice minus their mean over all 21 rolls; the trial's result minus its summed
  luck has the same mean and a far smaller spread. The 21 rolls of every live
  trial are one batch, and the rolled dice's best play comes out of it.
- Move pruning (``bot.evaluation.prune``), where the evaluator has a pruner: in contact, a small
  network ranks the plays and only its best few go to the evaluator, a slightly weaker
  player for a fraction of the work (``RolloutSettings.prune``; docs/analysis.md).

Results are in the view of the side on roll (``rollout_position``) or of the
mover of each afterstate (``rollout_afterstates``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Sequence

import numpy as np

from bot.search.cancel import check_cancelled
from bot.evaluation.classes import cube_decisions
from bot.equity.cube import (
    CubeDecision,
    CubeState,
    MatchScore,
    Owner,
    cube_efficiency,
    decision_from_equities,
    swap_state,
)
from bot.evaluation.evaluator import ProbabilityEvaluator, best_children
from bot.equity.outcomes import equity, invert, is_finished
from bot.evaluation.prune import in_contact
from bot.search.nply import DEFAULT_FILTERS, InvalidSearchError, MoveFilter, afterstate_probabilities, rank_afterstates
from engine import ROLL_WEIGHTS, ROLLS
from engine.variant import BACKGAMMON
from engine.movegen import HASH

# The 36 ordered rolls, and the index in ROLLS (21 distinct rolls) of each (d1, d2).
ROLLS36 = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int64)
ROLL_INDEX = np.zeros((7, 7), dtype=np.int64)
for _i, (_a, _b) in enumerate(ROLLS):
    ROLL_INDEX[_a, _b] = ROLL_INDEX[_b, _a] = _i
# Called after each ply with (finished trials, all trials) of the rollout.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RolloutSettings:
    """How a rollout is played."""

    # Games per rolled-out position (GNU Backgammon's default, 36 x 36).
    trials: int = 1296
    # Stop after this many plies and take the evaluator's probabilities; None: play to the end.
    truncate: Optional[int] = None
    # Lookahead variance reduction.
    variance_reduction: bool = True
    # Each of the 36 first rolls equally often; and, per first roll, each second roll (quasi-random).
    rotate_first: bool = True
    rotate_second: bool = True
    # Checker play inside trials: 0-ply, or filtered n-ply through bot.search.nply (slow).
    plies: int = 0
    filters: Sequence[MoveFilter] = DEFAULT_FILTERS
    # 0-ply play inside trials lets the evaluator's pruner (bot.evaluation.prune), where it has one, pick the plays
    # the full networks score; False scores every play with them.
    prune: bool = True

    def __post_init__(self) -> None:
        if self.trials < 2:
            raise InvalidSearchError(f"rollout trials {self.trials!r}: expected 2 or more (for a standard error)")
        if self.truncate is not None and self.truncate < 0:
            raise InvalidSearchError(f"rollout truncate {self.truncate!r}: expected None or plies >= 0")


@dataclass(frozen=True)
class RolloutResult:
    """A rollout's means and standard errors, in the view of the side on roll at ``position_id``'s root.

    ``probabilities`` are the five of docs/DESIGN.md, ``equity`` the cubeless money equity.
    """

    position_id: str
    trials: int
    probabilities: np.ndarray
    std_errors: np.ndarray
    equity: float
    equity_std_error: float
    # Per-trial results (trials, 5), kept for checks and further statistics; not in to_json.
    samples: np.ndarray = field(repr=False, compare=False)

    def to_json(self) -> dict:
        """The JSON shape of the API: position_id, trials, probabilities, std_errors, equity, equity_std_error."""
        return {
            "position_id": self.position_id,
            "trials": self.trials,
            "probabilities": [round(float(p), 6) for p in self.probabilities],
            "std_errors": [round(float(s), 6) for s in self.std_errors],
            "equity": round(self.equity, 6),
            "equity_std_error": round(self.equity_std_error, 6),
        }


def _summary(position_id: str, samples: np.ndarray) -> RolloutResult:
    """Means and standard errors of per-trial five probabilities (trials, 5)."""
    n = len(samples)
    values = equity(samples.astype(np.float64))
    return RolloutResult(
        position_id=position_id,
        trials=n,
        probabilities=samples.mean(axis=0),
        std_errors=samples.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(5),
        equity=float(values.mean()),
        equity_std_error=float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
        samples=samples,
    )


class RolloutDice:
    """The dice of ``trials`` games, ply by ply: rotated first (and second) rolls, then random ones."""

    def __init__(
        self, trials: int, rng: np.random.Generator, rotate_first: bool = True, rotate_second: bool = True
    ) -> None:
        self.trials = trials
        self.rng = rng
        j = np.arange(trials)
        self._first = ROLLS36[rng.permutation(36)[j % 36]] if rotate_first else None
        self._second = None
        if rotate_first and rotate_second:
            per_first = np.argsort(rng.random((36, 36)), axis=1)  # a permutation of the 36 per first roll
            self._second = ROLLS36[per_first[j % 36, (j // 36) % 36]]

    def roll(self, ply: int) -> np.ndarray:
        """(trials, 2) the dice of every trial at ``ply`` (0 = the first roll); call once per ply, in order."""
        if ply == 0 and self._first is not None:
            return self._first
        if ply == 1 and self._second is not None:
            return self._second
        return self.rng.integers(1, 7, size=(self.trials, 2))


def _to_root(five: np.ndarray, ply: int) -> np.ndarray:
    """Probabilities of the side on roll at ``ply`` in the view of the side on roll at ply 0."""
    return invert(five) if ply % 2 else five


def _unique(rows: np.ndarray, salt: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray]:
    """(first index of each distinct row, inverse) of boards (N, 26), by the movegen's 64-bit linear hash.

    ``salt`` (N,) small ints (a roll index) are mixed into the key. Trials share many
    positions (all start alike; 21 rolls of one board share many plays): each is worked once.
    The distinct rows keep their order, so a position's afterstates stay together (the
    network's compiled first layer sums a run's unchanged side once).
    """
    keys = rows.astype(np.int64) @ HASH
    if salt is not None:
        keys = keys * np.int64(37) + salt
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.reshape(-1)]


def _scored(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    children: np.ndarray,
    parent: np.ndarray,
    settings: RolloutSettings,
) -> tuple[np.ndarray, np.ndarray]:
    """(scores (N,), probabilities (N, 5)): the mover's 0-ply equity and probabilities of the afterstates
    (N, 26) of ``boards`` (grouped by ``parent``), each distinct one evaluated once.

    With the evaluator's pruner (``bot.evaluation.prune``), the plays of positions in contact are evaluated only
    where it keeps them; the others score -inf with NaN probabilities, so a position's best is always
    one the evaluator scored. Races keep every play: their plays are few and often exact.
    """
    first, inverse = _unique(children)
    distinct = children[first]
    pruner = getattr(evaluator, "pruner", None) if settings.prune else None
    if pruner is None:
        five = afterstate_probabilities(evaluator, distinct)[inverse]
        return equity(five), five
    contact = in_contact(boards)[parent]
    chosen = np.zeros(len(first), dtype=bool)
    chosen[inverse[~contact]] = True
    ranked = np.zeros(len(first), dtype=bool)  # the pruner ranks the plays of positions in contact only
    ranked[inverse[contact]] = True
    if ranked.any():
        equities = np.zeros(len(first))
        equities[ranked] = pruner.equities(distinct[ranked])
        chosen[inverse[pruner.kept(equities[inverse], parent, len(boards))]] = True
    five_distinct = np.full((len(first), 5), np.nan)
    five_distinct[chosen] = afterstate_probabilities(evaluator, distinct[chosen])
    five = five_distinct[inverse]
    scores = np.where(chosen[inverse], equity(np.nan_to_num(five)), -np.inf)
    return scores, five


def _play(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    dice: np.ndarray,
    settings: RolloutSettings,
    luck: Optional[np.ndarray],
    ply: int,
) -> np.ndarray:
    """(L, 26) the chosen afterstate (mover's view) of each live board (side on roll's view) and roll.

    With ``luck`` (L, 5), adds each trial's luck of this roll (ply-0 side's view) into it.
    """
    rolled = ROLL_INDEX[dice[:, 0], dice[:, 1]]
    if luck is None or settings.plies > 0:
        first, inverse = _unique(boards, rolled)
        children, parent = evaluator.game.afterstates(boards[first], dice[first])
        if settings.plies == 0:
            scores, _ = _scored(evaluator, boards[first], children, parent, settings)
        else:
            scores = rank_afterstates(evaluator, children, settings.plies, parent, settings.filters).scores()
        chosen = children[best_children(scores, parent, len(first))][inverse]
        if luck is None:
            return chosen
    first, inverse = _unique(boards)
    count, rolls = len(first), len(ROLLS)
    replies = np.repeat(boards[first], rolls, axis=0)
    children, parent = evaluator.game.afterstates(replies, np.tile(ROLLS, (count, 1)))
    scores, five = _scored(evaluator, replies, children, parent, settings)
    best = best_children(scores, parent, count * rolls).reshape(count, rolls)
    best_five = _to_root(five[best].astype(np.float64), ply)  # (distinct boards, 21, 5)
    mean = np.einsum("urk,r->uk", best_five, ROLL_WEIGHTS)
    luck += best_five[inverse, rolled] - mean[inverse]
    if settings.plies == 0:
        chosen = children[best[inverse, rolled]]
    return chosen


def rollout_boards(
    evaluator: ProbabilityEvaluator,
    boards: np.ndarray,
    rng: np.random.Generator,
    settings: RolloutSettings = RolloutSettings(),
    progress: Optional[Progress] = None,
) -> np.ndarray:
    """(K, trials, 5) per-trial results of rolling out boards (K, 26), each in its side on roll's view.

    Boards are before the roll; no game may be over. Every board sees the same dice.
    """
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    count, trials = len(boards), settings.trials
    total = count * trials
    results = np.zeros((total, 5), dtype=np.float64)
    luck = np.zeros((total, 5), dtype=np.float64) if settings.variance_reduction else None
    live = np.arange(total)
    current = np.repeat(boards, trials, axis=0)
    dice = RolloutDice(trials, rng, settings.rotate_first, settings.rotate_second)
    game = evaluator.game
    ply = 0
    while len(live):
        check_cancelled()
        if settings.truncate is not None and ply >= settings.truncate:
            # The last mover's afterstate, evaluated, is the side on roll's position inverted.
            results[live] = _to_root(
                afterstate_probabilities(evaluator, game.flip(current)).astype(np.float64), ply + 1
            )
            if progress is not None:
                progress(total, total)
            break
        rolled = dice.roll(ply)[live % trials]
        live_luck = None if luck is None else np.zeros((len(live), 5))
        chosen = _play(evaluator, current, rolled, settings, live_luck, ply)
        if luck is not None and live_luck is not None:
            luck[live] += live_luck
        done = is_finished(chosen)
        if done.any():
            results[live[done]] = _to_root(game.finished_probabilities(chosen[done]).astype(np.float64), ply)
        live, current = live[~done], game.flip(chosen[~done])
        ply += 1
        if progress is not None:
            progress(total - len(live), total)
    if luck is not None:
        results -= luck
    return results.reshape(count, trials, 5)


def rollout_position(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    rng: np.random.Generator,
    settings: RolloutSettings = RolloutSettings(),
    progress: Optional[Progress] = None,
) -> RolloutResult:
    """Roll out a position before the roll (board (26,) in the side on roll's view), for the side on roll."""
    board = np.asarray(board, dtype=np.int8)
    samples = rollout_boards(evaluator, board[None], rng, settings, progress)[0]
    return _summary(str(evaluator.game.position(board).id), samples)


def rollout_afterstates(
    evaluator: ProbabilityEvaluator,
    positions: np.ndarray,
    rng: np.random.Generator,
    settings: RolloutSettings = RolloutSettings(),
    progress: Optional[Progress] = None,
) -> list[RolloutResult]:
    """Roll out the candidate plays of a roll: afterstates (M, 26) in the mover's view, results the mover's.

    All candidates' trials advance together with the same dice. A finished
    afterstate gets its exact result. ``position_id`` is the afterstate as GNU
    Backgammon shows it (the opponent on roll).
    """
    game = evaluator.game
    positions = np.asarray(positions, dtype=np.int8).reshape(-1, 26)
    done = is_finished(positions)
    live = np.flatnonzero(~done)
    samples = np.empty((len(positions), settings.trials, 5), dtype=np.float64)
    if done.any():
        samples[done] = game.finished_probabilities(positions[done])[:, None, :]
    if len(live):
        samples[live] = invert(rollout_boards(evaluator, game.flip(positions[live]), rng, settings, progress))
    return [_summary(str(game.position(game.flip(p)).id), s) for p, s in zip(positions, samples)]


# ---------------------------------------------------------------- cubeful rollouts

# Who owns the cube in a cubeful trial: nobody, the side on roll at the root, its opponent.
CENTRED, ROOT_OWNS, OTHER_OWNS = 0, 1, 2
# The cubeless equity's weights on the five probabilities (bot.equity.outcomes.equity without its -1).
_EQUITY_WEIGHTS = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


@dataclass(frozen=True)
class RolloutCube:
    """A cube decision of the side on roll from cubeful trials, with standard errors.

    Two sets of trials with the same dice, as GNU Backgammon rolls out a cube decision:
    "no double" (the cube as it is) and "double, take" (twice the cube, owned by the
    opponent); a pass is +1. Inside every trial both sides double, take and pass at
    0-ply (``bot.equity.cube.cube_decision`` on the evaluator's probabilities; exact equities in
    money bear-offs within the database), and a game ends when a double is passed.
    Equities are normalised (money: points per unit of the root's cube; match: MWC
    mapped so that losing or winning the root's cube is -1 or +1). Variance reduction, when
    on, subtracts each roll's cube-weighted cubeless luck (``rollout_cube``).
    """

    decision: CubeDecision
    std_errors: tuple[float, float, float]  # no double, double take, double pass
    trials: int

    def to_json(self) -> dict:
        """``{"no_double", "double_take", "double_pass", "std_errors": [3], "verdict", "should_double",
        "should_take", "trials", "method"}``, with ``"mwc": [3]`` in a match."""
        d = self.decision
        data = {
            "no_double": round(d.no_double, 6),
            "double_take": round(d.double_take, 6),
            "double_pass": round(d.double_pass, 6),
            "std_errors": [round(s, 6) for s in self.std_errors],
            "verdict": d.verdict.value,
            "should_double": d.should_double,
            "should_take": d.should_take,
            "trials": self.trials,
            "method": "cubeful trials: no double and double/take rolled out with the same dice, "
            "both sides taking 0-ply cube decisions inside every trial",
        }
        mwc = (d.mwc_no_double, d.mwc_double_take, d.mwc_double_pass)
        if all(value is not None for value in mwc):
            data["mwc"] = [round(float(value), 6) for value in mwc if value is not None]
        return data


class _TrialCubes:
    """The cube of every cubeful trial: its value and owner, and the 0-ply cube actions at each ply.

    ``root`` is the cube state of the side on roll at the root; trial t starts with
    ``values[t]`` and ``owners[t]``. Scores are fixed for the game, so each side on
    roll's ``CubeState`` depends only on the cube and its owner (and is kept).
    """

    def __init__(
        self, evaluator: ProbabilityEvaluator, root: CubeState, values: np.ndarray, owners: np.ndarray
    ) -> None:
        self.evaluator, self.root = evaluator, root
        self.values, self.owners = values.astype(np.int64), owners.astype(np.int8)
        self.score = None if root.is_money else MatchScore.of(root)
        self._states: dict[tuple[int, int, int], CubeState] = {}

    def state(self, value: int, owner: int, ply: int) -> CubeState:
        """The cube state seen by the side on roll at ``ply`` (the root's side on even plies)."""
        key = (value, owner, ply % 2)
        if key not in self._states:
            mine = ROOT_OWNS if ply % 2 == 0 else OTHER_OWNS
            seen = Owner.CENTERED if owner == CENTRED else Owner.ME if owner == mine else Owner.OPP
            root = self.root if ply % 2 == 0 else swap_state(self.root)
            self._states[key] = replace(root, cube=value, owner=seen, beavers=False)
        return self._states[key]

    def act(self, trials: np.ndarray, boards: np.ndarray, ply: int) -> tuple[np.ndarray, np.ndarray]:
        """Cube actions of the sides on roll of ``boards`` (trials ``trials``): (passed mask, points won).

        A taken double doubles the trial's cube and gives it to the taker; a passed one
        ends the trial, the doubler winning the cube it offered (points in the root's view).
        """
        passed = np.zeros(len(trials), dtype=bool)
        points = np.zeros(len(trials), dtype=np.int64)
        states = [self.state(int(v), int(o), ply) for v, o in zip(self.values[trials], self.owners[trials])]
        asking = np.flatnonzero([s.can_double for s in states])
        if not asking.size:
            return passed, points
        decisions = self._decisions(boards[asking], [states[row] for row in asking])
        sign = 1 if ply % 2 == 0 else -1
        for row, decision in zip(asking, decisions):
            if not decision.should_double:
                continue
            trial = trials[row]
            if decision.should_take:
                self.values[trial] *= 2
                self.owners[trial] = OTHER_OWNS if ply % 2 == 0 else ROOT_OWNS
            else:
                passed[row], points[row] = True, sign * states[row].cube
        return passed, points

    def _decisions(self, boards: np.ndarray, states: Sequence[CubeState]) -> list[CubeDecision]:
        """The 0-ply cube decision of the side on roll of each of ``boards`` at its state: one batch per
        state, exact in money bear-offs within the database (a match's exact values would cost a solve)."""
        five = np.clip(np.asarray(self.evaluator.probabilities(boards), dtype=np.float64), 0.0, 1.0)
        rows_of: dict[CubeState, list[int]] = {}
        for row, state in enumerate(states):
            rows_of.setdefault(state, []).append(row)
        decisions: dict[int, CubeDecision] = {}
        for state, rows in rows_of.items():
            decisions.update(
                zip(rows, cube_decisions(self.evaluator, boards[rows], five[rows], state, exact_in_match=False))
            )
        return [decisions[row] for row in range(len(states))]

    def finished(self, trials: np.ndarray, chosen: np.ndarray, ply: int) -> np.ndarray:
        """Points won (root's view) of trials whose mover at ``ply`` has just borne off its last checker."""
        five = self.evaluator.game.finished_probabilities(chosen)
        multiple = 1 + np.rint(five[:, 1] + five[:, 2]).astype(np.int64)  # single 1, gammon 2, backgammon 3
        if self.root.jacoby:
            multiple = np.where(self.owners[trials] == CENTRED, 1, multiple)
        return (1 if ply % 2 == 0 else -1) * multiple * self.values[trials]

    def truncated(self, trials: np.ndarray, boards: np.ndarray, ply: int) -> np.ndarray:
        """Normalised values (root's view) of unfinished trials: the 0-ply cubeful value after the right cube action."""
        states = [self.state(int(self.values[trial]), int(self.owners[trial]), ply) for trial in trials]
        values = np.empty(len(trials))
        for i, (state, decision) in enumerate(zip(states, self._decisions(boards, states))):
            if self.score is None:
                mine = decision.equity * state.cube / self.root.cube
                values[i] = mine if ply % 2 == 0 else -mine
            else:
                mwc = decision.mwc
                assert mwc is not None  # a match's decision has its MWCs
                values[i] = self.score.normalise(mwc if ply % 2 == 0 else 1.0 - mwc, self.root.cube)
        return values

    def normalised(self, points: np.ndarray) -> np.ndarray:
        """Points won in the root's view as normalised equities of the root's cube."""
        if self.score is None:
            return points / self.root.cube
        mwc = np.array([self.score.after(int(k)) for k in points])
        return np.array([self.score.normalise(m, self.root.cube) for m in mwc])


def check_cubeful(evaluator: ProbabilityEvaluator) -> None:
    """Refuse cubeful trials in a game whose cube they cannot price: their cube actions take backgammon's cube
    model (position classes, cube efficiencies, the default match equity table)."""
    if evaluator.game is not BACKGAMMON:
        raise InvalidSearchError(
            f"cubeful rollouts are backgammon's only: the trials' cube actions price {evaluator.game.title} "
            "by backgammon's cube model (the 0-ply cube decision: nardy cube, or hint without dice)"
        )


def rollout_cube(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    state: CubeState,
    rng: np.random.Generator,
    settings: RolloutSettings = RolloutSettings(),
    progress: Optional[Progress] = None,
) -> RolloutCube:
    """The cube decision of the side on roll of ``board`` (its view, before the roll) from cubeful trials.

    ``settings`` as for cubeless rollouts (trials, truncation, checker play, variance reduction).
    Variance reduction subtracts each roll's cubeless luck (the lookahead of ``_play``), weighted
    by the trial's cube at that roll: given the position before the roll its mean is zero, so the
    trials' mean keeps its expectation and loses most of the dice's noise.
    """
    check_cubeful(evaluator)
    board = np.asarray(board, dtype=np.int8)
    if is_finished(board[None])[0]:
        raise InvalidSearchError("the game is over: there is no cube decision to roll out")
    trials = settings.trials
    total = 2 * trials  # the no-double trials, then the double/take ones
    doubled = np.arange(total) >= trials
    root_owner = {Owner.CENTERED: CENTRED, Owner.ME: ROOT_OWNS, Owner.OPP: OTHER_OWNS}[state.owner]
    cubes = _TrialCubes(
        evaluator, state, np.where(doubled, 2 * state.cube, state.cube), np.where(doubled, OTHER_OWNS, root_owner)
    )
    results = np.zeros(total)
    luck = np.zeros(total)  # summed cube-weighted luck of each trial, root's view, normalised
    live, current = np.arange(total), np.repeat(board[None], total, axis=0)
    dice = RolloutDice(trials, rng, settings.rotate_first, settings.rotate_second)
    ply = 0
    while len(live):
        check_cancelled()
        if settings.truncate is not None and ply >= settings.truncate:
            results[live] = cubes.truncated(live, current, ply)
            break
        if ply > 0:  # at the root, "no double" is the decision rolled out, and after a double the cube is the taker's
            passed, points = cubes.act(live, current, ply)
            results[live[passed]] = cubes.normalised(points[passed])
            live, current = live[~passed], current[~passed]
            if not len(live):
                break
        live_luck = np.zeros((len(live), 5)) if settings.variance_reduction else None
        chosen = _play(evaluator, current, dice.roll(ply)[live % trials], settings, live_luck, ply)
        if live_luck is not None:
            luck[live] += cubes.values[live] / state.cube * (live_luck @ _EQUITY_WEIGHTS)
        done = is_finished(chosen)
        results[live[done]] = cubes.normalised(cubes.finished(live[done], chosen[done], ply))
        live, current = live[~done], evaluator.game.flip(chosen[~done])
        ply += 1
        if progress is not None:
            progress(total - len(live), total)
    if progress is not None:
        progress(total, total)
    results -= luck
    no_double, double_take = results[:trials], results[trials:]
    mwcs: tuple[Optional[float], Optional[float], Optional[float]] = (None, None, None)
    if cubes.score is not None:
        win, lose = cubes.score.after(state.cube), cubes.score.after(-state.cube)
        mwcs = tuple(float((e * (win - lose) + win + lose) / 2.0) for e in (no_double.mean(), double_take.mean(), 1.0))  # type: ignore[assignment]
    p = np.clip(np.asarray(evaluator.probabilities(board[None]), dtype=np.float64)[0], 0.0, 1.0)
    decision = decision_from_equities(
        float(no_double.mean()), float(double_take.mean()), 1.0, state, bool(p[1] > 0.0), cube_efficiency(board), mwcs
    )
    errors = (float(no_double.std(ddof=1) / np.sqrt(trials)), float(double_take.std(ddof=1) / np.sqrt(trials)), 0.0)
    return RolloutCube(decision, errors, trials)
