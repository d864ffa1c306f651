"""Cube decisions (double / take / pass) from cubeless probabilities, money and match play.

Everything here is seen by the side ON ROLL, before it rolls: the board is in its
view, ``probs`` are its five cubeless probabilities [win, win gammon, win backgammon,
lose gammon, lose backgammon], and every equity is its own.

Method (as GNU Backgammon does at 0-ply): the cubeful value is Janowski's
interpolation ``(1 - x) * dead + x * live`` between the dead-cube value (cubeless)
and a live-cube value that is piecewise linear in P(win) between the points where
a side cashes, with the cube efficiency ``x`` taken from the position kind. Money
play works in points per unit of the current cube, match play in match-winning
chances (MWC) from the match equity table, with live-cube cash points found
recursively over the cube levels that are still alive (Thyssen's generalisation).

A bear-off inside the two-sided database has exact cube values (``bot.evaluation.classes.exact_cube``):
money equities (``MoneyCubeEquities``) from the database, or in a match MWCs solved for
the score (``MatchCubeMWCs``, ``bot.evaluation.bearoff_match``); given them, ``cube_decision`` takes
them instead of the cube-life model.

Equities are reported normalised as GNU Backgammon prints them: +1.0 is what the
side on roll gets if it doubles and the opponent passes (one cube's worth), -1.0
what it gets for losing a single game at the current cube.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from enum import Enum
from typing import Optional, overload

import numpy as np

from bot.equity.met import MatchEquityTable, default_met
from engine.board import validate_board
from engine.errors import BackgammonError, InvalidMatchError
from engine.match import MAX_CUBE, MatchState, is_cube_value

# Cube efficiency (GNU Backgammon's defaults in eval.c).
CONTACT_EFFICIENCY = 0.68
BEAROFF_EFFICIENCY = 0.6
RACE_EFFICIENCY_BASE = 0.55
RACE_EFFICIENCY_PER_PIP = 0.00125
RACE_EFFICIENCY_MIN = 0.6
RACE_EFFICIENCY_MAX = 0.7

# Long nardy's cube efficiency (``long_nardy_efficiencies``): LONG_NARDY_END_EFFICIENCY with no pips left,
# rising in a straight line to LONG_NARDY_EFFICIENCY at LONG_NARDY_RAMP_PIPS of the side on roll's pips and
# flat above. Fitted (``python -m benchmarks.long_nardy_cube --fit``) to the fit part of
# benchmarks/data/long_nardy_cube.jsonl: positions of the self-play of the network distilled in issue 57
# (256 hidden units, digest 92c185f94964), money and match cube states, each decided by the bot's own 2-ply
# cubeful lookahead; the grid point giving away the least equity there against that lookahead.
LONG_NARDY_END_EFFICIENCY = 0.7
LONG_NARDY_EFFICIENCY = 0.85
LONG_NARDY_RAMP_PIPS = 360

# Two cube equities closer than this are equal (an optional double).
OPTIONAL_EPSILON = 1e-5
# Below this P(win) (or above 1 minus it) the cube is treated as dead in money play.
CERTAIN_EPSILON = 1e-7


class InvalidEvaluationError(BackgammonError):
    """Cubeless probabilities that are not five numbers in [0, 1], or a cube efficiency outside [0, 1]."""


class Owner(str, Enum):
    """Who owns the cube, seen by the side on roll."""

    CENTERED = "centered"
    ME = "me"
    OPP = "opp"


class Verdict(str, Enum):
    """GNU Backgammon's names for cube verdicts."""

    NODOUBLE_TAKE = "NODOUBLE_TAKE"
    NODOUBLE_BEAVER = "NODOUBLE_BEAVER"
    DOUBLE_TAKE = "DOUBLE_TAKE"
    DOUBLE_PASS = "DOUBLE_PASS"
    DOUBLE_BEAVER = "DOUBLE_BEAVER"
    TOOGOOD_TAKE = "TOOGOOD_TAKE"
    TOOGOOD_PASS = "TOOGOOD_PASS"
    NO_REDOUBLE_TAKE = "NO_REDOUBLE_TAKE"
    NO_REDOUBLE_BEAVER = "NO_REDOUBLE_BEAVER"
    REDOUBLE_TAKE = "REDOUBLE_TAKE"
    REDOUBLE_PASS = "REDOUBLE_PASS"
    TOOGOODRE_TAKE = "TOOGOODRE_TAKE"
    TOOGOODRE_PASS = "TOOGOODRE_PASS"
    OPTIONAL_DOUBLE_TAKE = "OPTIONAL_DOUBLE_TAKE"
    OPTIONAL_DOUBLE_PASS = "OPTIONAL_DOUBLE_PASS"
    OPTIONAL_DOUBLE_BEAVER = "OPTIONAL_DOUBLE_BEAVER"
    OPTIONAL_REDOUBLE_TAKE = "OPTIONAL_REDOUBLE_TAKE"
    OPTIONAL_REDOUBLE_PASS = "OPTIONAL_REDOUBLE_PASS"
    NODOUBLE_DEADCUBE = "NODOUBLE_DEADCUBE"
    NO_REDOUBLE_DEADCUBE = "NO_REDOUBLE_DEADCUBE"
    NOT_AVAILABLE = "NOT_AVAILABLE"


# GNU Backgammon's words for each verdict (eval.c, GetCubeRecommendation; "Cube not available" as its
# Python module's cfevaluate writes it): what a person reads where the enum names stay for programs.
VERDICT_WORDS = {
    Verdict.NODOUBLE_TAKE: "No double, take",
    Verdict.NODOUBLE_BEAVER: "No double, beaver",
    Verdict.DOUBLE_TAKE: "Double, take",
    Verdict.DOUBLE_PASS: "Double, pass",
    Verdict.DOUBLE_BEAVER: "Double, beaver",
    Verdict.TOOGOOD_TAKE: "Too good to double, take",
    Verdict.TOOGOOD_PASS: "Too good to double, pass",
    Verdict.NO_REDOUBLE_TAKE: "No redouble, take",
    Verdict.NO_REDOUBLE_BEAVER: "No redouble, beaver",
    Verdict.REDOUBLE_TAKE: "Redouble, take",
    Verdict.REDOUBLE_PASS: "Redouble, pass",
    Verdict.TOOGOODRE_TAKE: "Too good to redouble, take",
    Verdict.TOOGOODRE_PASS: "Too good to redouble, pass",
    Verdict.OPTIONAL_DOUBLE_TAKE: "Optional double, take",
    Verdict.OPTIONAL_DOUBLE_PASS: "Optional double, pass",
    Verdict.OPTIONAL_DOUBLE_BEAVER: "Optional double, beaver",
    Verdict.OPTIONAL_REDOUBLE_TAKE: "Optional redouble, take",
    Verdict.OPTIONAL_REDOUBLE_PASS: "Optional redouble, pass",
    Verdict.NODOUBLE_DEADCUBE: "Never double, take (dead cube)",
    Verdict.NO_REDOUBLE_DEADCUBE: "Never redouble, take (dead cube)",
    Verdict.NOT_AVAILABLE: "Cube not available",
}


def verdict_words(verdict: Verdict | str) -> str:
    """A verdict (or its enum name) as GNU Backgammon prints it for people: ``"No double, take"``."""
    return VERDICT_WORDS[Verdict(verdict)]


DOUBLING_VERDICTS = frozenset(
    {Verdict.DOUBLE_TAKE, Verdict.DOUBLE_PASS, Verdict.DOUBLE_BEAVER, Verdict.REDOUBLE_TAKE, Verdict.REDOUBLE_PASS}
)


@dataclass(frozen=True)
class CubeState:
    """The cube and the score, seen by the side on roll.

    ``match_length`` 0 is a money game. ``score`` is (side on roll, opponent).
    ``crawford``: this game is the Crawford game; a match score with one side at
    ``match_length - 1`` and ``crawford`` false is post-Crawford. ``jacoby`` and
    ``beavers`` are money-game rules.
    """

    cube: int = 1
    owner: Owner = Owner.CENTERED
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "owner", Owner(self.owner))
        except ValueError:
            raise InvalidMatchError(f"cube owner {self.owner!r}: expected 'centered', 'me' or 'opp'") from None
        try:
            mine, theirs = (int(s) for s in self.score)
        except (TypeError, ValueError):
            raise InvalidMatchError(f"score {self.score!r}: expected two whole numbers") from None
        object.__setattr__(self, "score", (mine, theirs))
        cube, length = self.cube, self.match_length
        if not isinstance(cube, (int, np.integer)) or not is_cube_value(int(cube)):
            raise InvalidMatchError(f"cube value {cube}: expected a power of two")
        if self.owner is Owner.CENTERED and cube != 1:
            raise InvalidMatchError(f"cube value {cube}: a centred cube is on 1")
        if length < 0:
            raise InvalidMatchError(f"match length {length}: cannot be negative")
        if length == 0:
            if self.score != (0, 0) or self.crawford:
                raise InvalidMatchError(
                    f"money game: score {self.score} and Crawford flag {self.crawford} must be unset"
                )
            return
        if self.jacoby or self.beavers:
            raise InvalidMatchError("the Jacoby rule and beavers are for money games only")
        if not (0 <= mine < length and 0 <= theirs < length):
            raise InvalidMatchError(
                f"score {self.score}: each side needs 0 to {length - 1} points in a {length}-point match"
            )
        if self.crawford and (mine == length - 1) == (theirs == length - 1):
            raise InvalidMatchError(f"score {self.score}: the Crawford game needs exactly one side at {length - 1}")

    @property
    def is_money(self) -> bool:
        """A money game (no match length)."""
        return self.match_length == 0

    @property
    def away(self) -> tuple[int, int]:
        """Points still needed by (side on roll, opponent); match play only."""
        return self.match_length - self.score[0], self.match_length - self.score[1]

    @property
    def can_double(self) -> bool:
        """Whether the side on roll may (usefully) double now; never from ``MAX_CUBE``, the largest cube."""
        if self.owner is Owner.OPP or self.cube >= MAX_CUBE:
            return False
        if self.is_money:
            return True
        # No doubling in the Crawford game; a side that wins the match by winning
        # the current cube gains nothing by doubling (so the post-Crawford leader never does).
        return not self.crawford and self.away[0] > self.cube


@dataclass(frozen=True)
class CubeDecision:
    """A cube decision for the side on roll, with its numbers.

    ``no_double``, ``double_take``, ``double_pass``: cubeful equities of the side on
    roll, normalised so that a pass is +1.0. In match play the ``mwc_*`` fields give
    the same three as match-winning chances. ``should_take`` (and ``should_beaver``)
    answer for the opponent if it were doubled now.
    """

    verdict: Verdict
    no_double: float
    double_take: float
    double_pass: float
    should_double: bool
    should_take: bool
    should_beaver: bool
    cube_efficiency: float
    mwc_no_double: Optional[float] = None
    mwc_double_take: Optional[float] = None
    mwc_double_pass: Optional[float] = None

    @property
    def equity(self) -> float:
        """Normalised equity of the side on roll after both sides' right cube actions."""
        return min(self.double_take, self.double_pass) if self.should_double else self.no_double

    @property
    def mwc(self) -> Optional[float]:
        """The same as a match-winning chance (match play; None for money)."""
        no_double, double_take, double_pass = self.mwc_no_double, self.mwc_double_take, self.mwc_double_pass
        if no_double is None or double_take is None or double_pass is None:
            return None
        return min(double_take, double_pass) if self.should_double else no_double


@dataclass(frozen=True)
class MoneyCubeEquities:
    """Exact cubeful money equities per unit cube of the side on roll, if it does not double now.

    One per cube position: ``centred``, ``owned`` (by the side on roll), ``unavailable``
    (owned by the opponent); both sides play and handle the cube perfectly afterwards.
    """

    centred: float
    owned: float
    unavailable: float

    def no_double(self, owner: Owner) -> float:
        """The no-double equity with the cube where ``owner`` says."""
        return {Owner.CENTERED: self.centred, Owner.ME: self.owned, Owner.OPP: self.unavailable}[owner]


@dataclass(frozen=True)
class MatchCubeMWCs:
    """Exact match-winning chances of the side on roll before its cube decision (``bot.evaluation.bearoff_match``).

    ``no_double``: it does not double now; ``double_take``: it doubles and the opponent takes.
    Both sides play and handle the cube perfectly afterwards.
    """

    no_double: float
    double_take: float


def check_probabilities(probs) -> np.ndarray:
    """Five cubeless probabilities as float64, or raise InvalidEvaluationError."""
    arr = np.asarray(probs, dtype=np.float64)
    if arr.shape != (5,):
        raise InvalidEvaluationError(f"probabilities {probs!r}: expected 5 values, got shape {arr.shape}")
    if not all(0.0 <= value <= 1.0 for value in arr.tolist()):  # NaN fails too
        raise InvalidEvaluationError(f"probabilities {arr.tolist()}: each must be a number in [0, 1]")
    return arr


def cube_efficiency(board: np.ndarray) -> float:
    """GNU Backgammon's cube efficiency for the position (board in the on-roll side's view).

    0.68 with contact; in a race 0.55 + 0.00125 x (pips of the side on roll), kept
    in 0.6..0.7; 0.6 once both sides are bearing off; 0 when the game is over.
    """
    return float(cube_efficiencies(validate_board(board)[None])[0])


def cube_efficiencies(boards: np.ndarray) -> np.ndarray:
    """(N,) ``cube_efficiency`` of each of boards (N, 26), valid ones in the on-roll side's view."""
    b = np.asarray(boards).reshape(-1, 26)
    points = np.arange(26)
    mine_last = np.where(b > 0, points, -1).max(axis=1)  # -1: no checker left
    theirs_first = np.where(b < 0, points, 26).min(axis=1)  # 26: none left
    race = race_efficiencies((np.maximum(b, 0) * points).sum(axis=1))
    x = np.where(
        mine_last > theirs_first,
        CONTACT_EFFICIENCY,
        np.where((mine_last <= 6) & (theirs_first >= 19), BEAROFF_EFFICIENCY, race),
    )
    return np.where((mine_last >= 0) & (theirs_first <= 25), x, 0.0)


def race_efficiencies(pips: np.ndarray) -> np.ndarray:
    """(N,) the cube efficiency of races whose side on roll has ``pips`` (N,) to go: 0.55 + 0.00125 x pips,
    kept in 0.6..0.7 (GNU Backgammon's)."""
    return np.clip(
        RACE_EFFICIENCY_BASE + RACE_EFFICIENCY_PER_PIP * np.asarray(pips, dtype=np.float64),
        RACE_EFFICIENCY_MIN,
        RACE_EFFICIENCY_MAX,
    )


def mover_pips(boards: np.ndarray) -> np.ndarray:
    """(N,) the side on roll's pips of boards (N, 26) in its view, either game (a checker on point p needs p)."""
    b = np.asarray(boards).reshape(-1, 26)
    return (np.maximum(b, 0).astype(np.int64) * np.arange(26)).sum(axis=1)


def long_nardy_race_efficiencies(boards: np.ndarray) -> np.ndarray:
    """(N,) backgammon's race efficiency of long nardy boards (N, 26) at the side on roll's pips: what long nardy,
    which has no hitting, borrowed before it had a cube of its own (the 2-ply reference's leaves keep it)."""
    return race_efficiencies(mover_pips(boards))


def long_nardy_efficiencies(
    boards: np.ndarray,
    end: float = LONG_NARDY_END_EFFICIENCY,
    full: float = LONG_NARDY_EFFICIENCY,
    ramp_pips: float = LONG_NARDY_RAMP_PIPS,
) -> np.ndarray:
    """(N,) long nardy's cube efficiency of boards (N, 26), each in its side on roll's view: ``end`` with no pips
    left, rising in a line to ``full`` at ``ramp_pips`` of the side on roll's pips, ``full`` above (the defaults are
    the fitted ``LONG_NARDY_*`` values; other values are what the fit tries)."""
    share = np.minimum(mover_pips(boards) / float(ramp_pips), 1.0)
    return end + (full - end) * share


# The cube arithmetic below is batched: probabilities (N, 5), an efficiency and a value per
# position (N,); branches the scalar arithmetic would take are np.where over the batch.


def _line(p: np.ndarray, start: tuple, end: tuple) -> np.ndarray:
    """The straight line through ``start`` and ``end`` (x, y) at ``p``."""
    (x0, y0), (x1, y1) = start, end
    return y0 + (y1 - y0) * (p - x0) / (x1 - x0)


def _live(
    p: np.ndarray,
    lose: np.ndarray | float,
    win: np.ndarray | float,
    opp_cash: Optional[tuple],
    my_cash: Optional[tuple],
) -> np.ndarray:
    """Live-cube value at P(win) ``p``: piecewise linear from (0, lose) to (1, win).

    ``opp_cash`` = (point, value): the opponent cashes (doubles me out) when my P(win)
    is at most ``point``; ``my_cash``: I cash from ``point`` up. None where that side
    has no access to the cube.
    """
    with np.errstate(divide="ignore", invalid="ignore"):  # lines of the branches not taken
        value = _line(
            p, opp_cash if opp_cash is not None else (0.0, lose), my_cash if my_cash is not None else (1.0, win)
        )
        if my_cash is not None:
            value = np.where(p >= my_cash[0], np.where(my_cash[0] < 1.0, _line(p, my_cash, (1.0, win)), win), value)
        if opp_cash is not None:  # the opponent's cash point first, as it is checked first
            value = np.where(
                p <= opp_cash[0], np.where(opp_cash[0] > 0.0, _line(p, (0.0, lose), opp_cash), lose), value
            )
    return value


def _gammon_rates(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(my gammons, my backgammons, opponent's gammons, opponent's backgammons) as shares of wins.

    Gammons here exclude backgammons.
    """
    win, wg, wbg, lg, lbg = p.T
    wins, losses = np.where(win > 0.0, win, 1.0), np.where(win < 1.0, 1.0 - win, 1.0)
    return (
        np.where(win > 0.0, (wg - wbg) / wins, 0.0),
        np.where(win > 0.0, wbg / wins, 0.0),
        np.where(win < 1.0, (lg - lbg) / losses, 0.0),
        np.where(win < 1.0, lbg / losses, 0.0),
    )


# ---------------------------------------------------------------- money play


def _money_cubeful(p: np.ndarray, x: np.ndarray, owner: Owner, jacoby: bool) -> np.ndarray:
    """Money cubeful equity per unit of cube for the side on roll (Janowski)."""
    win, wg, wbg, lg, lbg = p.T
    gammons_count = not (jacoby and owner is Owner.CENTERED)
    dead = 2.0 * win - 1.0 + ((wg - lg + wbg - lbg) if gammons_count else 0.0)
    certain = (win <= CERTAIN_EPSILON) | (win >= 1.0 - CERTAIN_EPSILON)  # the cube is dead
    some = np.where(certain, 0.5, win)
    avg_win = 1.0 + (wg + wbg) / some  # W: average value of a game won
    avg_loss = 1.0 + (lg + lbg) / (1.0 - some)  # L: average value of a game lost
    take_point = (avg_loss - 0.5) / (avg_win + avg_loss + 0.5)  # the opponent's, as my P(win)
    cash_point = (avg_loss + 1.0) / (avg_win + avg_loss + 0.5)
    lose_value, win_value = (-avg_loss, avg_win) if gammons_count else (-1.0, 1.0)
    live = _live(
        win,
        lose_value,
        win_value,
        opp_cash=(take_point, -1.0) if owner is not Owner.ME else None,
        my_cash=(cash_point, 1.0) if owner is not Owner.OPP else None,
    )
    return np.where(certain, dead, (1.0 - x) * dead + x * live)


# ---------------------------------------------------------------- match play


@dataclass(frozen=True)
class MatchScore:
    """Away counts of (side on roll, opponent) and the table that prices this game's results."""

    away_me: int
    away_opp: int
    post: bool  # results are read from the post-Crawford table when a side reaches 1-away
    met: MatchEquityTable
    # after()'s answers so far: a search prices thousands of leaves at the same few scores.
    _after: dict[int, float] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def of(cls, state: CubeState, met: Optional[MatchEquityTable] = None) -> "MatchScore":
        """The score of a match ``state`` (``met`` defaults to Kazaross-XG2)."""
        return _default_score(state) if met is None else cls._of(state, met)

    @classmethod
    def _of(cls, state: CubeState, met: MatchEquityTable) -> "MatchScore":
        # After the Crawford game, or during it, any game that follows is post-Crawford.
        post = state.crawford or 1 in state.away
        return cls(*state.away, post, met)

    def after(self, points: int) -> float:
        """My MWC after this game if I win ``points`` (negative: the opponent wins them)."""
        known = self._after.get(points)
        if known is None:
            known = self._after[points] = self.met.mwc(
                self.away_me - max(points, 0), self.away_opp - max(-points, 0), self.post
            )
        return known

    def player_after(self, on_roll: bool, points: int) -> float:
        """MWC of one player (the side on roll, or else the opponent) if that player gains ``points``."""
        return self.after(points) if on_roll else 1.0 - self.after(-points)

    @overload
    def normalise(self, mwc: float, cube: int) -> float: ...

    @overload
    def normalise(self, mwc: np.ndarray, cube: int) -> np.ndarray: ...

    def normalise(self, mwc: float | np.ndarray, cube: int) -> float | np.ndarray:
        """MWC as equity: -1 = I lose ``cube`` points, +1 = I win them (linear between); each of an array's."""
        win, lose = self.after(cube), self.after(-cube)
        equity = (2.0 * np.asarray(mwc, dtype=np.float64) - (win + lose)) / (win - lose)
        return equity if isinstance(mwc, np.ndarray) else float(equity)

    def mwc(self, equity: float, cube: int) -> float:
        """The MWC of a normalised equity: ``normalise`` undone."""
        win, lose = self.after(cube), self.after(-cube)
        return float((equity * (win - lose) + win + lose) / 2.0)


@functools.lru_cache(maxsize=1024)
def _default_score(state: CubeState) -> MatchScore:
    """``MatchScore.of`` with the default table, one per state (its ``after`` answers kept)."""
    return MatchScore._of(state, default_met())


def _outcome_average(
    score: MatchScore, on_roll: bool, points: int, gammons: np.ndarray, backgammons: np.ndarray
) -> np.ndarray:
    """MWC of a player (the side on roll, or else the opponent) winning a game worth ``points``
    a single, twice that a gammon, three times a backgammon, averaged over those."""
    return (
        (1.0 - gammons - backgammons) * score.player_after(on_roll, points)
        + gammons * score.player_after(on_roll, 2 * points)
        + backgammons * score.player_after(on_roll, 3 * points)
    )


def _match_cubeless(p: np.ndarray, score: MatchScore, cube: int) -> np.ndarray:
    """Dead-cube MWC: every outcome of this game weighted by its probability."""
    win, wg, wbg, lg, lbg = p.T
    return (
        (win - wg) * score.after(cube)
        + (wg - wbg) * score.after(2 * cube)
        + wbg * score.after(3 * cube)
        + (1.0 - win - lg) * score.after(-cube)
        + (lg - lbg) * score.after(-2 * cube)
        + lbg * score.after(-3 * cube)
    )


def _match_cash_points(rates: tuple[np.ndarray, ...], score: MatchScore, cube: int) -> tuple[np.ndarray, np.ndarray]:
    """Live-cube cash points (each as the doubler's own P(win)) of (me, opponent) with ``cube`` on.

    Starting from the highest cube level that can still be useful to both sides, where
    the doubled cube is dead, a side's cash point is the opponent's dead-cube take
    point (counting an automatic redouble); below it, the take point accounts for the
    taker's own later redouble at the next level's cash point.
    """
    # Keys: True = the side on roll, False = the opponent.
    away = {True: score.away_me, False: score.away_opp}
    gammons = {True: rates[:2], False: rates[2:]}
    top = cube
    while score.away_me > 2 * top and score.away_opp > 2 * top:
        top *= 2
    cash: dict[bool, np.ndarray] = {}
    value = top
    while value >= cube:
        level: dict[bool, np.ndarray] = {}
        for side in (True, False):
            g_side, b_side = gammons[side]
            g_other, b_other = gammons[not side]
            double_pass = score.player_after(side, value)
            if value == top:
                # The doubled cube is dead; the taker redoubles at once if only it can use a bigger cube.
                automatic = away[side] <= 2 * value < away[not side]
                doubled = 4 * value if automatic else 2 * value
                take_win = _outcome_average(score, side, doubled, g_side, b_side)
                take_lose = 1.0 - _outcome_average(score, not side, doubled, g_other, b_other)
                level[side] = (take_lose - double_pass) / (take_lose - take_win)
            else:
                take_win = _outcome_average(score, side, 2 * value, g_side, b_side)
                redouble_pass = score.player_after(side, -2 * value)
                level[side] = 1.0 - cash[not side] * (double_pass - take_win) / (redouble_pass - take_win)
        cash = level
        value //= 2
    return cash[True], cash[False]


def _cube_alive(score: MatchScore, cube: int, crawford: bool) -> bool:
    """Whether a cube of ``cube`` can still change the match (else cubeless MWC is used)."""
    if crawford:
        return False
    if score.away_me <= cube and score.away_opp <= cube:
        return False
    # At 2-away, 2-away the cube is as good as dead (GNU Backgammon's rule).
    return not (score.away_me == 2 and score.away_opp == 2)


def _match_cubeful(
    p: np.ndarray, x: np.ndarray, score: MatchScore, cube: int, owner: Owner, crawford: bool
) -> np.ndarray:
    """Match cubeful MWC for the side on roll (Janowski on MWC)."""
    dead = _match_cubeless(p, score, cube)
    if not _cube_alive(score, cube, crawford):
        return dead
    rates = _gammon_rates(p)
    my_cash, opp_cash = _match_cash_points(rates, score, cube)
    live = _live(
        p[:, 0],
        1.0 - _outcome_average(score, False, cube, rates[2], rates[3]),
        _outcome_average(score, True, cube, rates[0], rates[1]),
        opp_cash=(1.0 - opp_cash, score.after(-cube)) if owner is not Owner.ME else None,
        my_cash=(my_cash, score.after(cube)) if owner is not Owner.OPP else None,
    )
    return (1.0 - x) * dead + x * live


# ---------------------------------------------------------------- decisions


_VERDICTS = tuple(Verdict)
_DOUBLING_CODES = np.array([v in DOUBLING_VERDICTS for v in _VERDICTS])


def _verdict_codes(
    nd: np.ndarray, dt: np.ndarray, dp: np.ndarray, can_win_gammon: np.ndarray, state: CubeState
) -> np.ndarray:
    """GNU Backgammon's verdicts (FindBestCubeDecision) from arrays of the three normalised equities, as indices
    into ``_VERDICTS``."""

    def code(initial: str, redouble: Optional[str] = None) -> int:
        return _VERDICTS.index(Verdict[initial if first or redouble is None else redouble])

    first = state.owner is Owner.CENTERED
    if not state.can_double:
        if not state.is_money and state.owner is not Owner.OPP:
            return np.full(len(nd), code("NODOUBLE_DEADCUBE", "NO_REDOUBLE_DEADCUBE"))
        return np.full(len(nd), code("NOT_AVAILABLE"))
    beaver_zone = (state.is_money and state.beavers) & (-2.0 <= dt) & (dt <= 0.0)
    doubled = (dt >= nd) & (dp >= nd)
    take = doubled & (dp > dt)
    optional_take = np.abs(dt - nd) <= OPTIONAL_EPSILON
    optional_pass = (
        (np.abs(nd - dp) <= OPTIONAL_EPSILON) & can_win_gammon & (not state.is_money or not first or not state.jacoby)
    )
    # No double: too good (playing on beats a pass) or not good enough. "Too good" needs gammon chances; without
    # them the verdict falls back to the plain one.
    held = ~doubled & (nd > dt) & (dp >= dt)
    rules = [
        (take & beaver_zone & (2.0 * dt < nd), code("NODOUBLE_BEAVER")),
        (take & beaver_zone & optional_take, code("OPTIONAL_DOUBLE_BEAVER")),
        (take & beaver_zone, code("DOUBLE_BEAVER")),
        (take & optional_take, code("OPTIONAL_DOUBLE_TAKE", "OPTIONAL_REDOUBLE_TAKE")),
        (take, code("DOUBLE_TAKE", "REDOUBLE_TAKE")),
        (doubled & optional_pass, code("OPTIONAL_DOUBLE_PASS", "OPTIONAL_REDOUBLE_PASS")),
        (doubled, code("DOUBLE_PASS", "REDOUBLE_PASS")),
        (held & (nd > dp) & can_win_gammon, code("TOOGOOD_TAKE", "TOOGOODRE_TAKE")),
        (held & (nd > dp), code("NODOUBLE_TAKE", "NO_REDOUBLE_TAKE")),
        (held & beaver_zone, code("NODOUBLE_BEAVER", "NO_REDOUBLE_BEAVER")),
        (held, code("NODOUBLE_TAKE", "NO_REDOUBLE_TAKE")),
        (can_win_gammon, code("TOOGOOD_PASS", "TOOGOODRE_PASS")),
    ]
    return np.select([rule for rule, _ in rules], [c for _, c in rules], code("DOUBLE_PASS", "REDOUBLE_PASS"))


def _verdict(nd: float, dt: float, dp: float, can_win_gammon: bool, state: CubeState) -> Verdict:
    """GNU Backgammon's verdict from the three normalised equities (FindBestCubeDecision)."""
    codes = _verdict_codes(np.array([nd]), np.array([dt]), np.array([dp]), np.array([can_win_gammon]), state)
    return _VERDICTS[int(codes[0])]


def _efficiency(board: np.ndarray, efficiency: Optional[float]) -> float:
    if efficiency is None:
        return cube_efficiency(board)
    if not 0.0 <= efficiency <= 1.0:
        raise InvalidEvaluationError(f"cube efficiency {efficiency}: expected a number in [0, 1]")
    return float(efficiency)


def cube_decision(
    board: np.ndarray,
    probs,
    state: CubeState,
    met: Optional[MatchEquityTable] = None,
    efficiency: Optional[float] = None,
    exact: Optional[MoneyCubeEquities | MatchCubeMWCs] = None,
) -> CubeDecision:
    """Double / no double / too good for the side on roll, and take / pass for its opponent.

    ``board`` and ``probs`` are in the view of the side on roll (before it rolls);
    ``met`` defaults to Kazaross-XG2; ``efficiency`` overrides the cube efficiency
    that the board implies (0 = dead cube, 1 = fully live). ``exact``: the position's
    exact cube values (money equities in a money game, MWCs by the default table in a
    match), used instead of the model; values of the other kind are ignored.
    """
    p = check_probabilities(probs)
    x = _efficiency(board, efficiency)
    if state.is_money and isinstance(exact, MoneyCubeEquities):
        return decision_from_equities(
            exact.no_double(state.owner), 2.0 * exact.unavailable, 1.0, state, bool(p[1] > 0.0), x
        )
    if not state.is_money and isinstance(exact, MatchCubeMWCs):
        score = MatchScore.of(state, met)
        nd, dt = (score.normalise(m, state.cube) for m in (exact.no_double, exact.double_take))
        return decision_from_equities(
            nd, dt, 1.0, state, bool(p[1] > 0.0), x, (exact.no_double, exact.double_take, score.after(state.cube))
        )
    return model_decisions(p[None], np.array([x]), state, met)[0]


def model_decisions(
    probs: np.ndarray, efficiencies: np.ndarray, state: CubeState, met: Optional[MatchEquityTable] = None
) -> list[CubeDecision]:
    """``cube_decision`` by the model for many positions at one cube state, the arithmetic batched.

    ``probs`` (N, 5) are valid cubeless probabilities of the side on roll of each position,
    ``efficiencies`` (N,) their cube efficiencies (``cube_efficiencies`` of the boards).
    """
    p, x = _model_inputs(probs, efficiencies)
    nd, dt, dp, mwcs = _model_equities(p, x, state, met)
    verdicts = _verdict_codes(nd, dt, dp, p[:, 1] > 0.0, state)
    none = [None] * len(p)
    match = [column.tolist() for column in mwcs] if mwcs else [none, none, none]
    return [
        _decision_with(_VERDICTS[verdict], a, b, c, state, e, (m_nd, m_dt, m_dp))
        for a, b, c, verdict, e, m_nd, m_dt, m_dp in zip(
            nd.tolist(), dt.tolist(), dp.tolist(), verdicts.tolist(), x.tolist(), *match
        )
    ]


def model_values(
    probs: np.ndarray, efficiencies: np.ndarray, state: CubeState, met: Optional[MatchEquityTable] = None
) -> np.ndarray:
    """(N,) the side on roll's value after both sides' right cube actions by the model, as ``model_decisions``
    decides them, without the decisions: points at the cube (money: ``CubeDecision.equity`` times the cube) or
    match-winning chance (``CubeDecision.mwc``). For a search's many leaves."""
    p, x = _model_inputs(probs, efficiencies)
    nd, dt, dp, mwcs = _model_equities(p, x, state, met)
    doubles = _DOUBLING_CODES[_verdict_codes(nd, dt, dp, p[:, 1] > 0.0, state)]
    if state.is_money:
        return np.where(doubles, np.minimum(dt, dp), nd) * state.cube
    mwc_no_double, mwc_double_take, mwc_double_pass = mwcs
    return np.where(doubles, np.minimum(mwc_double_take, mwc_double_pass), mwc_no_double)


def decision_value(decision: CubeDecision, state: CubeState) -> float:
    """The side on roll's value after both sides' right cube actions at ``state``: points at the cube (money) or
    its MWC (match), as ``model_values`` gives them."""
    if state.is_money:
        return decision.equity * state.cube
    assert decision.mwc is not None  # a match's cube decision has its match-winning chances
    return decision.mwc


def _model_inputs(probs: np.ndarray, efficiencies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(probs, dtype=np.float64).reshape(-1, 5), np.asarray(efficiencies, dtype=np.float64)


def _model_equities(
    p: np.ndarray, x: np.ndarray, state: CubeState, met: Optional[MatchEquityTable]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """(no double, double/take, double/pass) normalised, and in a match the same three as MWCs (else ()), of the
    side on roll of probabilities ``p`` (N, 5) at cube efficiencies ``x`` (N,), by Janowski's model."""
    if state.is_money:
        nd = _money_cubeful(p, x, state.owner, state.jacoby)
        dt = 2.0 * _money_cubeful(p, x, Owner.OPP, state.jacoby)
        return nd, dt, np.ones(len(p)), ()
    score = MatchScore.of(state, met)
    no_double = _match_cubeful(p, x, score, state.cube, state.owner, state.crawford)
    double_take = _match_cubeful(p, x, score, 2 * state.cube, Owner.OPP, state.crawford)
    double_pass = np.full(len(p), score.after(state.cube))  # winning the current cube: +1 normalised
    nd, dt = score.normalise(no_double, state.cube), score.normalise(double_take, state.cube)
    return nd, dt, np.ones(len(p)), (no_double, double_take, double_pass)


def decision_from_equities(
    nd: float,
    dt: float,
    dp: float,
    state: CubeState,
    can_win_gammon: bool,
    efficiency: float,
    mwcs: tuple[Optional[float], Optional[float], Optional[float]] = (None, None, None),
) -> CubeDecision:
    """The decision of the side on roll from its three normalised equities, however they were found
    (the cube model here, or cubeful rollouts); ``mwcs`` the same as MWCs in a match."""
    return _decision_with(_verdict(nd, dt, dp, can_win_gammon, state), nd, dt, dp, state, efficiency, mwcs)


def _decision_with(
    verdict: Verdict,
    nd: float,
    dt: float,
    dp: float,
    state: CubeState,
    efficiency: float,
    mwcs: tuple[Optional[float], Optional[float], Optional[float]],
) -> CubeDecision:
    """``decision_from_equities`` with the verdict already found (``model_decisions`` finds a batch's at once)."""
    return CubeDecision(
        verdict=verdict,
        no_double=nd,
        double_take=dt,
        double_pass=dp,
        should_double=verdict in DOUBLING_VERDICTS,
        should_take=bool(dt <= dp),
        should_beaver=bool(state.is_money and state.beavers and dt < 0.0),
        cube_efficiency=efficiency,
        mwc_no_double=mwcs[0],
        mwc_double_take=mwcs[1],
        mwc_double_pass=mwcs[2],
    )


def cubeful_equity(
    board: np.ndarray,
    probs,
    state: CubeState,
    met: Optional[MatchEquityTable] = None,
    efficiency: Optional[float] = None,
) -> float:
    """Normalised cubeful equity of the side on roll with the cube left as it is (no cube action).

    Money: points per unit of the current cube; match: MWC mapped so that losing
    (winning) the current cube is -1 (+1).
    """
    if state.is_money:
        p = check_probabilities(probs)
        return float(_money_cubeful(p[None], np.array([_efficiency(board, efficiency)]), state.owner, state.jacoby)[0])
    return MatchScore.of(state, met).normalise(cubeful_mwc(board, probs, state, met, efficiency), state.cube)


def cubeful_mwc(
    board: np.ndarray,
    probs,
    state: CubeState,
    met: Optional[MatchEquityTable] = None,
    efficiency: Optional[float] = None,
) -> float:
    """Match-winning chance of the side on roll with the cube left as it is (match play only)."""
    if state.is_money:
        raise InvalidMatchError("cubeful_mwc: a money game has no match-winning chance")
    p = check_probabilities(probs)
    score = MatchScore.of(state, met)
    return float(
        _match_cubeful(
            p[None], np.array([_efficiency(board, efficiency)]), score, state.cube, state.owner, state.crawford
        )[0]
    )


def swap_state(state: CubeState) -> CubeState:
    """The same cube state seen by the other side (score reversed, ownership turned)."""
    owner = {Owner.ME: Owner.OPP, Owner.OPP: Owner.ME}.get(state.owner, state.owner)
    return CubeState(
        cube=state.cube,
        owner=owner,
        match_length=state.match_length,
        score=(state.score[1], state.score[0]),
        crawford=state.crawford,
        jacoby=state.jacoby,
        beavers=state.beavers,
    )


def cube_state_for(state: MatchState, player: int) -> CubeState:
    """The cube and score of a match (players 0 and 1) seen by ``player``.

    A money session's score does not matter to a decision and is left out.
    """
    owner = Owner.CENTERED if state.cube_owner is None else Owner.ME if state.cube_owner == player else Owner.OPP
    score = (state.score[player], state.score[1 - player]) if state.match_length else (0, 0)
    return CubeState(
        cube=state.cube_value,
        owner=owner,
        match_length=state.match_length,
        score=score,
        crawford=state.crawford,
        jacoby=state.jacoby and not state.match_length,
    )
