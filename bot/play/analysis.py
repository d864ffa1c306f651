"""Whole-match analysis: every checker play and cube decision of a recorded match, as GNU Backgammon's.

``analyze_match(bot, match, plies)`` replays an ``engine.matfile.MatMatch`` of either game (its
``variant``: backgammon through ``engine.game``, long nardy through ``engine.long_nardy.game``; the
bot must play that game) and evaluates, for both players:

- every checker play: all legal plays of the roll ranked (``bot.search.nply``, all the
  match's decisions in one batch per depth), the played one evaluated as deep as
  the best; the error is the best play's value minus the played one's;
- every cube decision: each turn on which the side on roll had access to the cube
  (no double / double), and each answer to a double (take / pass): at 0-ply
  ``bot.equity.cube``'s model, deeper ``bot.search.cube_decision``'s lookahead;
- the luck of each roll: the value after the best 0-ply play of the rolled dice
  minus its mean over all rolls (over the 15 non-doubles for a game's first roll where
  it cannot be a double).

Long nardy is priced as the bot prices it (``bot.facade.Bot``: its cube as a race, its
match equity table); its mars counts as backgammon's gammon.

Units (GNU Backgammon's EMG, "equivalent to money game"): a play's value is the
mover's cubeful equity after it, per unit of the current cube (``bot.search.cube_decision.value_after_play``;
money: the opponent's ``bot.equity.cube`` equity on roll next, negated; match: the mover's cubeful MWC mapped by
``bot.equity.cube.MatchScore.normalise``, -1/+1 = losing/winning the current cube). Cube
equities are ``bot.equity.cube``'s normalised ones, in the view of the side on roll
(take decisions: the taker's). Marks use GNU Backgammon's default thresholds.

This module makes decisions only: no printing, no files (``bot.doors.analyze_command`` reads and writes).
Under ``bot.search.cancel.cancel_on`` (a server's request) it stops between games, cube decisions and the
searches' chunks once cancelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Callable, Optional

import numpy as np

from bot.equity.cube import CubeDecision, CubeState, MatchScore, cube_state_for
from bot.search.cancel import check_cancelled
from bot.search.cube_decision import values_after_plays
from bot.evaluation.evaluator import best_children
from bot.facade import Bot
from bot.search.nply import DEFAULT_FILTERS, InvalidSearchError, best_plays, probabilities_at, rank_afterstates
from engine import compiled
from engine.board import ROLL_WEIGHTS, ROLLS
from engine.errors import BackgammonError, InvalidOptionError
from engine.game import Phase
from engine.match import MatchState, after_game
from engine.matfile import (
    ActionKind,
    MatAction,
    MatMatch,
    cube_match,
    game_at_start,
    game_match_state,
    match_id_of,
)
from engine.variant import Finished, Variant

# GNU Backgammon 1.07's default skill thresholds, in EMG (`show analysis`: -0.030 doubtful,
# -0.060 bad, -0.120 very bad).
DOUBTFUL, BAD, VERY_BAD = 0.03, 0.06, 0.12
MARKS = (("very bad", VERY_BAD), ("bad", BAD), ("doubtful", DOUBTFUL))
# A cube decision is close when doubling is worth less than this beyond not doubling, or the
# other way round (GNU Backgammon's isCloseCubedecision); actual doubles, takes and passes count too.
CLOSE_CUBE = 0.16
# XG's performance rating: the mean error per decision (unforced plays, close cube decisions) x 500.
PR_SCALE = 500.0
# Errors below this are rounding, not mistakes.
EPSILON = 1e-7
OPENING_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 0.0, 2.0 / 30.0)
# Checker plays ranked per batch: big enough that the network's batches stay full, small enough that a
# progress bar moves during a deep analysis.
MOVES_PER_BATCH = 64
CUBES_PER_BATCH = 64  # cube actions whose searches are batched (a progress report and a cancellation check each)
# Boards the network evaluates per checker play, about, by depth (the luck's 21 rolls included; measured on
# GNU Backgammon's matches), and the work from which loading the compiled kernels up front pays
# (numba's load, about a second, against about 25 us a board saved).
BOARDS_PER_MOVE = {0: 400, 1: 1600, 2: 12000}
COMPILED_FROM_BOARDS = 100_000
# progress(done, total): decisions analysed so far, out of the match's.
Progress = Callable[[int, int], None]


class AnalysisError(BackgammonError):
    """Analysis settings out of range."""


def mark_of(error: float) -> Optional[str]:
    """GNU Backgammon's mark for an error in EMG: 'very bad', 'bad', 'doubtful', or None."""
    return next((name for name, threshold in MARKS if error >= threshold - EPSILON), None)


@dataclass
class Decision:
    """One analysed decision of ``player`` (0 left column, 1 right).

    ``kind``: 'move', 'double' (the side on roll's no double / double) or 'take' (the
    doubled side's take / pass). ``position_id`` and ``match_id`` as GNU Backgammon shows
    the position (the side on roll; a take decision: the doubler on roll). ``error`` and
    ``luck`` in EMG, the deciding player's view.
    """

    game: int
    player: int
    kind: str
    position_id: str
    match_id: str
    dice: Optional[tuple[int, int]]
    played: str
    best: str
    error: float = 0.0
    forced: bool = False
    close: bool = True
    luck: Optional[float] = None
    values: dict = field(default_factory=dict)
    error_mwc: Optional[float] = None  # the error in match-winning chance (a match; None in money play)

    @property
    def mark(self) -> Optional[str]:
        return None if self.forced else mark_of(self.error)

    def to_json(self) -> dict:
        data = {
            "player": self.player,
            "kind": self.kind,
            "position_id": self.position_id,
            "match_id": self.match_id,
            "dice": list(self.dice) if self.dice else None,
            "played": self.played,
            "best": self.best,
            "error": round(self.error, 6),
            "mark": self.mark,
        }
        if self.error_mwc is not None:
            data["error_mwc"] = round(self.error_mwc, 6)
        if self.kind == "move":
            data["forced"] = self.forced
            data["luck"] = None if self.luck is None else round(self.luck, 6)
        else:
            data["close"] = self.close
        if self.values:
            data["equities"] = {k: round(v, 6) for k, v in self.values.items()}
        return data


@dataclass
class GameAnalysis:
    """One game: its number (from 1), the score before it, the result, its decisions; ``stopped`` says why a
    game was cut short (an illegal recorded action), the decisions before it kept."""

    number: int
    score: tuple[int, int]
    winner: Optional[int]
    points: int
    decisions: list[Decision] = field(default_factory=list)
    stopped: Optional[str] = None

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "score": list(self.score),
            "winner": self.winner,
            "points": self.points,
            "stopped": self.stopped,
            "decisions": [d.to_json() for d in self.decisions],
        }


@dataclass(frozen=True)
class PlayerStats:
    """GNU Backgammon's match statistics for one player (errors in EMG, rates in mEMG per decision)."""

    name: str
    moves: int
    unforced: int
    checker_error: float
    marked: dict
    cube_decisions: int
    close_cube: int
    cube_error: float
    missed_doubles: int
    wrong_doubles: int
    wrong_takes: int
    wrong_passes: int
    luck: float
    doubles: int
    takes: int
    passes: int
    checker_error_mwc: Optional[float] = None  # in a match: the errors in match-winning chance; None in money play
    cube_error_mwc: Optional[float] = None
    matches: int = 1

    @staticmethod
    def _rate(total: float, count: int) -> float:
        return 1000.0 * total / count if count else 0.0

    @property
    def checker_rate(self) -> float:
        return self._rate(self.checker_error, self.unforced)

    @property
    def cube_rate(self) -> float:
        return self._rate(self.cube_error, self.close_cube)

    @property
    def overall_rate(self) -> float:
        return self._rate(self.checker_error + self.cube_error, self.unforced + self.close_cube)

    @property
    def pr(self) -> float:
        decisions = self.unforced + self.close_cube
        return PR_SCALE * (self.checker_error + self.cube_error) / decisions if decisions else 0.0

    @property
    def luck_rate(self) -> float:
        return self._rate(self.luck, self.moves)

    @property
    def checker_rate_mwc(self) -> Optional[float]:
        """Mean MWC lost per unforced move (a fraction: 0.001 is 0.1%), None in money play."""
        return None if self.checker_error_mwc is None else self._rate(self.checker_error_mwc, self.unforced) / 1000

    @property
    def cube_rate_mwc(self) -> Optional[float]:
        return None if self.cube_error_mwc is None else self._rate(self.cube_error_mwc, self.close_cube) / 1000

    @property
    def overall_rate_mwc(self) -> Optional[float]:
        if self.checker_error_mwc is None or self.cube_error_mwc is None:
            return None
        return self._rate(self.checker_error_mwc + self.cube_error_mwc, self.unforced + self.close_cube) / 1000

    def __add__(self, other: PlayerStats) -> PlayerStats:
        """The statistics of both together (one player's over several matches): counts and totals summed, the MWC
        totals only while every part has them."""

        def both(a: Optional[float], b: Optional[float]) -> Optional[float]:
            return None if a is None or b is None else a + b

        summed = {
            f.name: getattr(self, f.name) + getattr(other, f.name)
            for f in fields(self)
            if f.name not in ("name", "marked", "checker_error_mwc", "cube_error_mwc")
        }
        return PlayerStats(
            name=self.name,
            marked={k: self.marked[k] + other.marked[k] for k in self.marked},
            checker_error_mwc=both(self.checker_error_mwc, other.checker_error_mwc),
            cube_error_mwc=both(self.cube_error_mwc, other.cube_error_mwc),
            **summed,
        )

    def to_json(self) -> dict:
        def r(x: float) -> float:
            return round(x, 4)

        data: dict = {
            "name": self.name,
            "checker": {
                "unforced": self.unforced,
                "error_total_emg": r(self.checker_error),
                "error_rate_memg": r(self.checker_rate),
                "marked": dict(self.marked),
            },
            "cube": {
                "decisions": self.cube_decisions,
                "close": self.close_cube,
                "error_total_emg": r(self.cube_error),
                "error_rate_memg": r(self.cube_rate),
                "missed_doubles": self.missed_doubles,
                "wrong_doubles": self.wrong_doubles,
                "wrong_takes": self.wrong_takes,
                "wrong_passes": self.wrong_passes,
            },
            "overall": {"error_rate_memg": r(self.overall_rate)},
            "pr": r(self.pr),
            "luck_rate_memg": r(self.luck_rate),
        }
        if self.checker_error_mwc is not None and self.cube_error_mwc is not None:  # a match: MWC beside EMG
            data["checker"]["error_total_mwc"] = round(self.checker_error_mwc, 6)
            data["checker"]["error_rate_mwc"] = round(self.checker_rate_mwc or 0.0, 6)
            data["cube"]["error_total_mwc"] = round(self.cube_error_mwc, 6)
            data["cube"]["error_rate_mwc"] = round(self.cube_rate_mwc or 0.0, 6)
            data["overall"]["error_rate_mwc"] = round(self.overall_rate_mwc or 0.0, 6)
        return data


@dataclass
class MatchAnalysis:
    """The analysis of a match or money session (``length`` 0): per game decisions, per player statistics."""

    length: int
    names: tuple[str, str]
    plies: int
    games: list[GameAnalysis]
    variant: str = "backgammon"

    def decisions(self) -> list[Decision]:
        return [d for g in self.games for d in g.decisions]

    def stats(self, player: int) -> PlayerStats:
        mine = [d for d in self.decisions() if d.player == player]
        moves = [d for d in mine if d.kind == "move"]
        cube = [d for d in mine if d.kind != "move"]
        unforced = [d for d in moves if not d.forced]
        marked = {"doubtful": 0, "bad": 0, "very_bad": 0}
        for d in unforced:
            if d.mark:
                marked[d.mark.replace(" ", "_")] += 1

        def wrong(kind: str, played: str) -> int:
            return sum(d.kind == kind and d.played == played and d.error > EPSILON for d in cube)

        return PlayerStats(
            name=self.names[player],
            moves=len(moves),
            unforced=len(unforced),
            checker_error=float(sum(d.error for d in moves)),
            marked=marked,
            cube_decisions=len(cube),
            close_cube=sum(d.close for d in cube),
            cube_error=float(sum(d.error for d in cube)),
            missed_doubles=wrong("double", "no double"),
            wrong_doubles=wrong("double", "double"),
            wrong_takes=wrong("take", "take"),
            wrong_passes=wrong("take", "pass"),
            luck=float(sum(d.luck or 0.0 for d in moves)),
            doubles=sum(d.kind == "double" and d.played == "double" for d in cube),
            takes=sum(d.kind == "take" and d.played == "take" for d in cube),
            passes=sum(d.kind == "take" and d.played == "pass" for d in cube),
            checker_error_mwc=_mwc_total(moves) if self.length else None,
            cube_error_mwc=_mwc_total(cube) if self.length else None,
        )

    def to_json(self) -> dict:
        """``{"players": [stats of the left player, the right], "games": [...]}`` plus the game (``variant``:
        ``backgammon`` or ``long_nardy``), length and plies."""
        return {
            "variant": self.variant,
            "length": self.length,
            "plies": self.plies,
            "players": [self.stats(p).to_json() for p in (0, 1)],
            "games": [g.to_json() for g in self.games],
        }


def _mwc_total(decisions: list[Decision]) -> float:
    return float(sum(d.error_mwc or 0.0 for d in decisions))


def summary(analyses: list[MatchAnalysis]) -> list[PlayerStats]:
    """Each player's statistics over all ``analyses`` (a player is a name), in the order they first appear."""
    players: dict[str, PlayerStats] = {}
    for analysis in analyses:
        for seat in (0, 1):
            stats = analysis.stats(seat)
            players[stats.name] = players[stats.name] + stats if stats.name in players else stats
    return list(players.values())


# ---------------------------------------------------------------- replaying


@dataclass
class _MovePoint:
    decision: Decision
    board: np.ndarray  # the mover's view, before the move
    dice: tuple[int, int]
    played: np.ndarray  # the played afterstate, the mover's view
    state: CubeState
    opening: bool


@dataclass
class _CubePoint:
    decision: Decision
    board: np.ndarray  # the side on roll's (doubler's) view
    state: CubeState  # the side on roll's, the cube before the double


def _describe(number: int, index: int, action: MatAction, names: tuple[str, str]) -> str:
    dice = "".join(str(d) for d in action.dice or ())
    what = f"{dice}: {action.move or '(no move)'}" if action.kind is ActionKind.MOVE else action.kind.value
    return f"game {number}, action {index} ({names[action.player]}: {what})"


def _replay(
    match: MatMatch, number: int, state: MatchState, moves: list, cubes: list, variant: Variant
) -> GameAnalysis:
    """Walk one game's actions, collecting decision points into ``moves`` and ``cubes``; stop at an illegal one."""
    record = match.games[number - 1]
    result = GameAnalysis(number, record.score, record.winner, record.points)
    if not record.actions:
        return result
    try:
        game: Any = game_at_start(record, state, variant)  # a GameOn until it is Finished
    except BackgammonError as error:
        result.stopped = f"game {number}, its setup: {error}"
        return result
    set_up = record.setup is not None
    for index, action in enumerate(record.actions, 1):
        try:
            if isinstance(game, Finished):
                raise BackgammonError("the game is already over")
            if action.player != game.actor:
                raise BackgammonError("not this player's turn")
            turn = game.turn
            assert turn is not None
            board = np.array(game.board, dtype=np.int8)
            position_id = variant.position(board).id
            cube = cube_state_for(cube_match(game), turn)
            if action.kind is ActionKind.MOVE:
                dice = action.dice
                if dice is None:  # engine.matfile records dice with every move
                    raise BackgammonError("a move without dice")
                if game.phase is Phase.BEFORE_ROLL:
                    if (index > 1 or set_up or variant.opening_doubles) and game.may_double and cube.can_double:
                        d = Decision(number, turn, "double", position_id, match_id_of(game), None, "no double", "")
                        cubes.append(_CubePoint(d, board, cube))
                        result.decisions.append(d)
                    game = game.roll(dice)
                play = variant.parse_play(action.move, game.board, dice)
                d = Decision(number, turn, "move", position_id, match_id_of(game), dice, variant.format_play(play), "")
                opening = index == 1 and not set_up and not variant.opening_doubles
                moves.append(_MovePoint(d, board, dice, np.array(play.afterstate, dtype=np.int8), cube, opening))
                result.decisions.append(d)
                game = game.move(play)
            elif action.kind is ActionKind.DOUBLE:
                if action.cube != 2 * cube.cube:
                    raise BackgammonError(f"a double to {action.cube} with the cube on {cube.cube}")
                d = Decision(number, turn, "double", position_id, match_id_of(game), None, "double", "")
                game = game.double()
                cubes.append(_CubePoint(d, board, cube))
                result.decisions.append(d)
            else:
                taken = action.kind is ActionKind.TAKE
                d = Decision(
                    number, 1 - turn, "take", position_id, match_id_of(game), None, "take" if taken else "pass", ""
                )
                cubes.append(_CubePoint(d, board, cube))
                result.decisions.append(d)
                game = game.take() if taken else game.drop()
        except BackgammonError as error:
            result.stopped = f"{_describe(number, index, action, match.players)}: {error}"
            break
    return result


# ---------------------------------------------------------------- evaluating


def _values(bot: Bot, children: np.ndarray, five: np.ndarray, states: list[CubeState], owner: np.ndarray) -> np.ndarray:
    """(N,) each mover's EMG value after a play (``bot.search.cube_decision.values_after_plays``, priced as ``bot``
    prices its game), one batch per cube state.

    ``children`` (N, 26) and ``five`` (N, 5) in the mover's view; ``states[owner[i]]`` the cube state of row
    ``i``'s mover.
    """
    kinds: dict[CubeState, int] = {}
    kind = np.array([kinds.setdefault(state, len(kinds)) for state in states], dtype=np.int64)[owner]
    values = np.empty(len(children))
    for state, k in kinds.items():
        indices = np.flatnonzero(kind == k)
        if len(indices):
            values[indices] = values_after_plays(
                children[indices], five[indices], state, bot.match_table(state), bot.variant, bot.cube_efficiencies
            )
    return values


def _analyse_moves(bot: Bot, points: list[_MovePoint], plies: int, prune: bool) -> None:
    if not points:
        return
    evaluator, game = bot.evaluator, bot.variant
    boards = np.stack([p.board for p in points])
    dice = np.array([p.dice for p in points], dtype=np.int64)
    children, parent = game.afterstates(boards, dice)
    counts = np.bincount(parent, minlength=len(points))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    ranking = rank_afterstates(evaluator, children, plies, parent, filters=DEFAULT_FILTERS, prune=prune)
    five, depth = ranking.probabilities.copy(), ranking.depth.copy()
    # The played child of each decision, evaluated as deep as its parent's deepest.
    played = np.empty(len(points), dtype=np.int64)
    for k, p in enumerate(points):
        rows = children[starts[k] : starts[k] + counts[k]]
        match = np.flatnonzero((rows == p.played).all(axis=1))
        played[k] = starts[k] + (match[0] if len(match) else 0)
    deepest = np.zeros(len(points), dtype=np.int64)
    np.maximum.at(deepest, parent, depth)
    for level in range(1, plies + 1):
        shallow = played[(depth[played] < level) & (deepest >= level)]
        if len(shallow):
            five[shallow] = probabilities_at(evaluator, children[shallow], level, prune)
            depth[shallow] = level
    # Values (EMG) of the deepest-evaluated plays of each decision.
    top = np.flatnonzero(depth == deepest[parent])
    values = np.full(len(children), -np.inf)
    values[top] = _values(bot, children[top], five[top], [p.state for p in points], parent[top])
    best = best_children(values, parent, len(points))
    luck = _luck(bot, points, prune)
    for k, p in enumerate(points):
        d = p.decision
        d.forced = bool(counts[k] == 1)
        d.error = max(0.0, float(values[best[k]] - values[played[k]]))
        d.luck = float(luck[k])
        if best[k] == played[k]:
            d.best = d.played
        else:
            plays = game.legal_plays(p.board, p.dice)
            chosen = next((q for q in plays if np.array_equal(q.afterstate, children[best[k]])), None)
            d.best = game.format_play(chosen) if chosen is not None else "?"
        d.values = {"played": float(values[played[k]]), "best": float(values[best[k]])}
        d.error_mwc = _in_mwc(bot, d.error, p.state)


def _luck(bot: Bot, points: list[_MovePoint], prune: bool) -> np.ndarray:
    """(M,) the luck of each decision's roll in EMG: the value after the best 0-ply play of it (``prune``: found
    as ``bot.search.nply.best_plays`` says) minus the mean over the rolls (the 15 non-doubles for a game's first
    roll that cannot be a double)."""
    count, rolls = len(points), len(ROLLS)
    boards = np.repeat(np.stack([p.board for p in points]), rolls, axis=0)
    children, parent = bot.variant.afterstates(boards, np.tile(ROLLS, (count, 1)))
    best, five = best_plays(bot.evaluator, boards, children, parent, prune)
    owner = np.arange(count * rolls) // rolls
    values = _values(bot, children[best], five, [p.state for p in points], owner).reshape(count, rolls)
    weights = np.stack([OPENING_WEIGHTS if p.opening else ROLL_WEIGHTS for p in points])
    rolled = np.array([np.flatnonzero((ROLLS == sorted(p.dice)).all(axis=1))[0] for p in points])
    return values[np.arange(count), rolled] - (values * weights).sum(axis=1)


def _in_mwc(bot: Bot, error: float, state: CubeState) -> Optional[float]:
    """An error in EMG (normalised to the cube of ``state``) as match-winning chance by the bot's table; None in
    money play."""
    if state.is_money:
        return None
    score = MatchScore.of(state, bot.match_table(state))
    return error * (score.after(state.cube) - score.after(-state.cube)) / 2.0


def _analyse_cube(
    bot: Bot,
    points: list[_CubePoint],
    plies: int,
    prune: bool,
    progress: Optional[Progress] = None,
    done: int = 0,
    total: int = 0,
) -> None:
    """Each cube decision's right action (the bot's, ``Bot.cube_decisions``) and error; ``progress`` told after
    each batch, counting on from ``done``."""
    for start in range(0, len(points), CUBES_PER_BATCH):
        check_cancelled()  # a server's request may have gone (bot.search.cancel)
        batch = points[start : start + CUBES_PER_BATCH]
        decisions = bot.cube_decisions([p.board for p in batch], [p.state for p in batch], plies, prune)
        for p, c in zip(batch, decisions):
            _judge_cube(bot, p, c)
        if progress is not None:
            done += len(batch)
            progress(done, total)


def _judge_cube(bot: Bot, p: _CubePoint, c: CubeDecision) -> None:
    """The right action at a cube point by the bot's decision ``c`` there, and the error of the one played."""
    d = p.decision
    doubling = min(c.double_take, c.double_pass)
    d.values = {"no_double": c.no_double, "double_take": c.double_take, "double_pass": c.double_pass}
    if d.kind == "double":
        d.best = "double" if c.should_double else "no double"
        chosen = doubling if d.played == "double" else c.no_double
        d.error = max(0.0, max(c.no_double, doubling) - chosen) if d.best != d.played else 0.0
        d.close = bool(d.played == "double" or abs(c.no_double - doubling) < CLOSE_CUBE)
    else:  # the taker's view: a take leaves it -double_take, a pass -double_pass
        d.best = "take" if c.should_take else "pass"
        d.error = abs(c.double_take - c.double_pass) if d.best != d.played else 0.0
        d.close = True
    d.error_mwc = _in_mwc(bot, d.error, p.state)


def load_compiled_for(moves: int, plies: int) -> None:
    """Run compiled from the first batch when analysing ``moves`` checker plays at ``plies`` will pay for the
    kernels' load (``engine.compiled``: otherwise a process first runs a quarter of a million boards in numpy)."""
    if moves * BOARDS_PER_MOVE[plies] >= COMPILED_FROM_BOARDS:
        compiled.expect_long_work()


def analyze_match(
    bot: Bot, match: MatMatch, plies: int = 0, progress: Optional[Progress] = None, prune: bool = True
) -> MatchAnalysis:
    """Every decision of ``match`` analysed ``plies`` deep (0-2); games with an illegal action stop there.

    ``progress(done, total)``, when given, is told the decisions analysed as batches of them finish. ``prune``:
    every roll's best play (the luck's, and the replies searched at 1-ply and deeper) found as rollouts find it,
    the bot's pruner ranking a position's plays and its networks scoring the best few
    (``bot.search.nply.best_plays``); without, the networks score every play.
    """
    if plies not in (0, 1, 2):
        raise InvalidSearchError(f"plies {plies!r}: expected 0, 1 or 2")
    if bot.variant.name != match.variant:
        raise InvalidOptionError(
            f"a {match.variant.replace('_', ' ')} match cannot be analysed by a {bot.variant.title} bot"
        )
    variant = match.game
    moves: list[_MovePoint] = []
    cubes: list[_CubePoint] = []
    games = []
    state = MatchState(match_length=match.length, jacoby=match.jacoby and not match.length)
    for number, record in enumerate(match.games, 1):
        check_cancelled()
        state = game_match_state(record, state)
        games.append(_replay(match, number, state, moves, cubes, variant))
        if record.winner is not None:
            state = after_game(state, record.winner, record.points)
            if state.is_over:
                break
    load_compiled_for(len(moves), plies)
    total = len(moves) + len(cubes)
    for start in range(0, len(moves), MOVES_PER_BATCH):
        _analyse_moves(bot, moves[start : start + MOVES_PER_BATCH], plies, prune)
        if progress is not None:
            progress(min(start + MOVES_PER_BATCH, len(moves)), total)
    _analyse_cube(bot, cubes, plies, prune, progress, len(moves), total)
    return MatchAnalysis(match.length, match.players, plies, games, match.variant)
