"""Long nardy games and matches as a state machine: a ``LongGame`` and the actions on it.

Built like ``engine.game`` (same phases, same ``IllegalActionError``, the match
between games an ``engine.match.MatchState``), with the rules of long nardy and its
flags (``Rules``). Players are seats 0 and 1; the board is seen by the side on roll
(``turn``) and turns with it. Each action returns the next ``LongGame``, or a
``LongGameResult`` when the game ends. The caller owns the randomness: it rolls the
dice and hands them in.

Phases and actions (``actor`` is the seat that must act):

- OPENING: ``roll_opening(die0, die1)``: one die each, a tie rolls again, the higher
  starts; ``classic`` opening: the starter then rolls (BEFORE_ROLL), ``sport``: it
  plays the two opening dice (ROLLED);
- BEFORE_ROLL: ``roll(dice)``, ``double()`` (with a cube), ``resign(player)``;
- DOUBLED: ``take()``, ``drop()`` (the game is over), ``resign(player)``;
- ROLLED: ``move(play)``, ``resign(player)``.

Results (R12, R13, R15): the first side to bear off all fifteen wins oin (1 point) or
mars (2, the loser has borne off none), times the cube. With the last-roll rule, when
the first mover finishes and the second mover could still finish in one roll (all its
checkers home, at most four left), the second mover plays one more turn
(``last_roll``): finishing draws the game (no points), else the first mover wins.
A resignation ends the game at once: oin when the resigning side has borne off a
checker (mars is impossible), else mars. The cube's value is kept by the game
(``cube``, ``cube_owner``): ``doubling`` doubles it at each take, ``linear`` adds one
stake; ``match.cube_value`` stays 1.

>>> from engine.long_nardy.notation import parse_long_move
>>> game = new_long_game(MatchState(match_length=3), Rules(cube="linear")).roll_opening(5, 2)
>>> game.phase, game.turn
(<Phase.BEFORE_ROLL: 'before the roll'>, 0)
>>> def play(game, text): return game.move(parse_long_move(text, game.board, game.dice, game.rules))
>>> game = play(game.roll((6, 6)), "24/18(2)")
>>> game = game.double().take()
>>> game.cube, game.cube_owner, game.turn
(2, 0, 1)
>>> game = play(game.roll((6, 6)), "24/18(2)").double().take()
>>> game.cube, game.cube_owner, game.turn
(3, 1, 0)
>>> result = game.resign(1)
>>> result
LongGameResult(winner=0, points=6, outcome=<Outcome.GAMMON: 2>)
>>> result.next_match.score
(6, 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from engine.board import CHECKERS, validate_dice
from engine.errors import IllegalMoveError, InvalidMatchError, InvalidPositionError
from engine.game import IllegalActionError, Phase
from engine.long_nardy.board import borne_off, validate_board
from engine.long_nardy.plays import legal_plays
from engine.long_nardy.position import START_POSITION, LongPosition
from engine.long_nardy.rules import DEFAULT_RULES, Rules
from engine.match import MatchState, Outcome, after_game, opening_order, roll_dice
from engine.notation import format_play
from engine.plays import Play

__all__ = [
    "IllegalActionError",
    "LongGame",
    "LongGameResult",
    "Phase",
    "game_outcome",
    "new_long_game",
    "start_long_game",
]

_PHASES = (Phase.OPENING, Phase.BEFORE_ROLL, Phase.DOUBLED, Phase.ROLLED)


def game_outcome(final_board: np.ndarray) -> Outcome:
    """Oin or mars for a board (either side's view) where one side has borne off all fifteen (R12, E20).

    Mars (``Outcome.GAMMON``) when the loser has borne off none; there is no koks.
    """
    mover_off, opponent_off = borne_off(validate_board(final_board, "final board"))
    if CHECKERS not in (mover_off, opponent_off) or mover_off == opponent_off:
        raise InvalidPositionError("final board: exactly one side must have borne off all 15 checkers")
    loser_off = opponent_off if mover_off == CHECKERS else mover_off
    return Outcome.GAMMON if loser_off == 0 else Outcome.SINGLE


@dataclass(frozen=True)
class LongGameResult:
    """A finished game: ``winner`` scores ``points`` (``winner`` None: drawn by the last-roll rule, no points).

    ``outcome``: oin (``Outcome.SINGLE``) or mars (``Outcome.GAMMON``), by bearing off
    or resignation; None for a dropped cube or a draw. ``match``: the match state as
    the game started (the score before it). ``position``: the final board, seen by the
    winner (after a draw, by the side that moved last). ``cube``: the stake the game
    ended with (before a dropped raise).
    """

    winner: int | None
    points: int
    outcome: Outcome | None
    match: MatchState = field(repr=False)
    position: LongPosition = field(repr=False)
    rules: Rules = field(default=DEFAULT_RULES, repr=False)
    cube: int = field(default=1, repr=False)
    resigned: bool = field(default=False, repr=False)

    @property
    def draw(self) -> bool:
        """Whether the game was drawn (the last-roll rule)."""
        return self.winner is None

    @property
    def next_match(self) -> MatchState:
        """The match state before the next game: the points added, Crawford as in backgammon; a draw changes
        nothing (a drawn Crawford game is played again)."""
        if self.winner is None:
            return self.match
        return after_game(self.match, self.winner, self.points)


@dataclass(frozen=True)
class LongGame:
    """A long nardy game in progress: rules, match, phase, the seat on roll and its view of the board.

    ``turn``: the seat on roll (None only in the opening). ``position``: the board
    seen by ``turn``. ``dice``: the roll to play (phase ROLLED only). ``cube`` and
    ``cube_owner``: the stake (1 = not raised) and who may raise it next (None: either);
    while a raise is offered they hold the stake before it. ``first_mover``: the seat
    that started. ``last_roll``: this is the second mover's extra turn (last-roll rule).
    """

    rules: Rules
    match: MatchState
    phase: Phase
    turn: int | None
    position: LongPosition
    dice: tuple[int, int] | None = None
    cube: int = 1
    cube_owner: int | None = None
    first_mover: int | None = None
    last_roll: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.position, LongPosition):
            problem = f"its position {self.position!r} is not a long nardy LongPosition"
        elif self.phase not in _PHASES:
            problem = f"phase '{self.phase.value}' is not one of long nardy's"
        elif (self.turn is None) != (self.phase is Phase.OPENING) or self.turn not in (0, 1, None):
            problem = "the seat on roll is 0 or 1, and None only in the opening"
        elif (self.first_mover is None) != (self.turn is None):
            problem = "the first mover is known once the opening is decided"
        elif (self.dice is None) == (self.phase is Phase.ROLLED):
            problem = "dice belong to the phase 'rolled' only"
        elif self.cube < 1 or self.cube_owner not in (0, 1, None) or (self.rules.cube == "none" and self.cube != 1):
            problem = "the cube is 1 or more (1 with no cube), owned by 0, 1 or None"
        elif self.last_roll and (self.turn == self.first_mover or not self.rules.last_roll_draw):
            problem = "only the second mover plays a last roll, under the last-roll rule"
        elif self.match.is_over:
            problem = "the match is already over"
        else:
            return
        raise InvalidMatchError(f"long nardy game {self!r}: {problem}")

    @property
    def board(self) -> np.ndarray:
        """The board (read-only) seen by the side on roll."""
        return self.position.board

    @property
    def actor(self) -> int | None:
        """The seat that must act now (None in the opening, where the dice decide)."""
        if self.turn is None:
            return None
        return 1 - self.turn if self.phase is Phase.DOUBLED else self.turn

    @property
    def may_double(self) -> bool:
        """Whether the side on roll may raise the stake now: before its roll, with a cube it has access to.

        Never in the Crawford game of a match, nor in a last roll (the game is decided but for a draw).
        """
        return (
            self.phase is Phase.BEFORE_ROLL
            and self.rules.cube != "none"
            and not self.last_roll
            and not self.match.crawford
            and self.cube_owner in (None, self.turn)
        )

    @property
    def raised_cube(self) -> int:
        """The stake after one more accepted raise: twice it (``doubling``) or one initial stake more (``linear``)."""
        return 2 * self.cube if self.rules.cube == "doubling" else self.cube + 1

    def _require(self, action: str, *phases: Phase) -> int:
        """The seat on roll, if the phase allows ``action``; else raise IllegalActionError."""
        if self.phase not in phases:
            raise IllegalActionError(f"{action}: not allowed in phase '{self.phase.value}'")
        assert self.turn is not None
        return self.turn

    def roll_opening(self, die0: int, die1: int) -> LongGame:
        """Player 0 threw ``die0``, player 1 ``die1``: the higher starts; a tie throws again (the same state)."""
        if self.phase is not Phase.OPENING:
            raise IllegalActionError(f"opening roll: not allowed in phase '{self.phase.value}'")
        validate_dice((die0, die1))
        order = opening_order(die0, die1)
        if order is None:
            return self
        first, dice = order
        if self.rules.opening == "sport":
            return replace(self, phase=Phase.ROLLED, turn=first, first_mover=first, dice=dice)
        return replace(self, phase=Phase.BEFORE_ROLL, turn=first, first_mover=first)

    def roll(self, dice: tuple[int, int]) -> LongGame:
        """The side on roll rolls ``dice`` and must move."""
        self._require("roll", Phase.BEFORE_ROLL)
        return replace(self, phase=Phase.ROLLED, dice=validate_dice(dice))

    def double(self) -> LongGame:
        """The side on roll offers to raise the stake (``raised_cube``)."""
        turn = self._require("double", Phase.BEFORE_ROLL)
        if not self.may_double:
            if self.rules.cube == "none":
                why = "these rules have no cube"
            elif self.last_roll:
                why = "the last roll"
            elif self.match.crawford:
                why = "the Crawford game"
            else:
                why = f"cube {self.cube} owned by player {self.cube_owner}"
            raise IllegalActionError(f"double by player {turn}: no access to the cube ({why})")
        return replace(self, phase=Phase.DOUBLED)

    def take(self) -> LongGame:
        """The offered side takes: the stake is raised and the taker owns the cube; the raiser rolls."""
        turn = self._require("take", Phase.DOUBLED)
        return replace(self, cube=self.raised_cube, cube_owner=1 - turn, phase=Phase.BEFORE_ROLL)

    def drop(self) -> LongGameResult:
        """The offered side passes: the raiser wins the stake before the raise."""
        turn = self._require("drop", Phase.DOUBLED)
        return self._result(turn, self.cube, None, self.position)

    def move(self, play: Play) -> LongGame | LongGameResult:
        """The side on roll plays ``play``: a legal play of the dice (the afterstate decides); IllegalMoveError
        otherwise."""
        turn = self._require("move", Phase.ROLLED)
        assert self.dice is not None
        plays = legal_plays(self.board, self.dice, self.rules)
        wanted = np.asarray(play.afterstate, dtype=np.int8).tobytes()
        chosen = next((p for p in plays if p.afterstate.tobytes() == wanted), None)
        if chosen is None:
            raise IllegalMoveError(
                f"move {format_play(play)!r}: not a legal play of {self.dice[0]}{self.dice[1]} in {self.position!r}"
            )
        after = LongPosition(chosen.afterstate)  # seen by the mover
        mover_off, other_off = borne_off(after.board)
        outside_home = np.any(after.board[1:13] < 0) or np.any(after.board[19:25] < 0)  # its home: the mover's 13..18
        other_can_finish = other_off >= CHECKERS - 4 and not outside_home
        if self.last_roll:
            if mover_off == CHECKERS:
                return self._result(None, 0, None, after)
            return self._result(1 - turn, self.cube, Outcome.SINGLE, after.flipped())
        if mover_off == CHECKERS:
            if self.rules.last_roll_draw and turn == self.first_mover and other_can_finish:
                return replace(
                    self, phase=Phase.BEFORE_ROLL, turn=1 - turn, position=after.flipped(), dice=None, last_roll=True
                )
            outcome = game_outcome(after.board)
            return self._result(turn, int(outcome) * self.cube, outcome, after)
        return replace(self, phase=Phase.BEFORE_ROLL, turn=1 - turn, position=after.flipped(), dice=None)

    def resign(self, player: int) -> LongGameResult:
        """``player`` resigns: oin if it has borne off a checker (mars impossible), else mars (R15), times the cube."""
        self._require(f"resign by player {player}", Phase.BEFORE_ROLL, Phase.DOUBLED, Phase.ROLLED)
        if player not in (0, 1):
            raise IllegalActionError(f"resign by player {player!r}: expected player 0 or 1")
        if self.last_roll:
            raise IllegalActionError(
                f"resign by player {player}: not in the last roll (the game is decided but for a draw)"
            )
        position = self.position if player == self.turn else self.position.flipped()  # seen by the resigning side
        outcome = Outcome.SINGLE if borne_off(position.board)[0] else Outcome.GAMMON
        return self._result(1 - player, int(outcome) * self.cube, outcome, position.flipped(), resigned=True)

    def _result(
        self, winner: int | None, points: int, outcome: Outcome | None, position: LongPosition, resigned: bool = False
    ) -> LongGameResult:
        return LongGameResult(winner, points, outcome, self.match, position, self.rules, self.cube, resigned)


def new_long_game(match: MatchState | None = None, rules: Rules = DEFAULT_RULES) -> LongGame:
    """A game before its opening throw, every checker on its head; ``match`` is the state between games (money by
    default)."""
    match = MatchState() if match is None else match
    if match.cube_value != 1 or match.cube_owner is not None:
        raise InvalidMatchError(
            f"match state {match!r}: a long nardy game keeps its own cube; start from cube 1, centred"
        )
    return LongGame(rules, match, Phase.OPENING, None, START_POSITION)


def start_long_game(match: MatchState | None, rules: Rules, rng: np.random.Generator) -> LongGame:
    """A new game after its opening throw, each die drawn from ``rng`` until they differ."""
    game = new_long_game(match, rules)
    while game.phase is Phase.OPENING:
        game = game.roll_opening(*roll_dice(rng))
    return game
