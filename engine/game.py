"""One game of a match as a state machine: a ``Game`` and the actions on it.

Players are seats 0 and 1, as in ``engine.match``. The board is seen by the side on
roll (``turn``), as everywhere in the engine, and turns with it. Each action returns
the next ``Game``, or a ``GameResult`` when it ends the game (the one spelling
of "game over": who won, how many points, how). The caller owns the randomness: it
rolls the dice and hands them in. Cube access (Crawford, post-Crawford, cube
ownership) and the points of a result come from ``engine.match``.

Phases and their actions (``actor`` is the seat that must act):

- OPENING: ``roll_opening(die0, die1)`` (a tie rolls again; the higher die moves first);
- BEFORE_ROLL: ``roll(dice)``, ``double()``, ``resign(player, level)``;
- DOUBLED: ``take()``, ``drop()`` (the game is over), ``resign``;
- ROLLED: ``move(play)`` (a ``engine.plays.Play`` of the dice), ``resign``;
- RESIGNED (a resignation offered): ``accept()`` (the game is over), ``reject()``.

Any other action raises ``IllegalActionError`` naming the action and the phase.

A game and a finished game are written as GNU Backgammon writes them, a Position ID
(the side on roll's view) and a Match ID (docs/PROTOCOLS.md): ``Game.ids()`` and
``GameResult.ids()``, read back by ``from_ids`` (see there for what the Match ID
cannot hold).

>>> from engine.notation import parse_move
>>> game = new_game(MatchState(match_length=3)).roll_opening(3, 1)
>>> game.phase, game.turn, game.dice
(<Phase.ROLLED: 'rolled'>, 0, (3, 1))
>>> game = game.move(parse_move("8/5 6/5", game.board, game.dice))
>>> game = game.double().take()
>>> game.turn, game.match.cube_value, game.match.cube_owner
(1, 2, 0)
>>> game.double()
Traceback (most recent call last):
...
engine.game.IllegalActionError: double by player 1: no access to the cube (cube 2 owned by player 0)
>>> result = game.resign(1, 2).accept()
>>> result
GameResult(winner=0, points=4, outcome=<Outcome.GAMMON: 2>)
>>> result.next_match.score
(4, 0)
>>> result.ids()
('4HPwATCwZ/ABMA', 'AUNgAAAAAAAE')
>>> from_ids(*result.ids()) == result
True
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

import numpy as np

from engine.board import CHECKERS, borne_off, validate_dice
from engine.errors import BackgammonError, IllegalMoveError, InvalidMatchError, InvalidPositionError
from engine.match import (
    MatchState,
    Outcome,
    after_game,
    game_outcome,
    game_result_points,
    may_double,
    opening_order,
    roll_dice,
)
from engine.match_id import GameState, MatchId, decode_match_id, encode_match_id
from engine.notation import format_play
from engine.plays import Play, legal_plays
from engine.position import START_POSITION, Position

__all__ = ["Game", "GameResult", "IllegalActionError", "Phase", "Resignation", "from_ids", "new_game", "start_game"]


class IllegalActionError(BackgammonError):
    """An action the game's phase does not allow (a take with no double offered, a double without cube access)."""


class Phase(Enum):
    """Where a game stands; the game over is not a phase but a ``GameResult``."""

    OPENING = "opening roll"
    BEFORE_ROLL = "before the roll"
    DOUBLED = "double offered"
    ROLLED = "rolled"
    RESIGNED = "resignation offered"


@dataclass(frozen=True)
class Resignation:
    """``player`` offers to resign ``level`` (1 single, 2 gammon, 3 backgammon) during phase ``interrupted``."""

    player: int
    level: int
    interrupted: Phase


@dataclass(frozen=True)
class GameResult:
    """A finished game: ``winner`` scores ``points``.

    ``outcome``: single, gammon or backgammon (borne off, or the level of an accepted
    resignation); None when a double was dropped. ``match``: the match state as the
    game ended (score before it, its final cube). ``position``: the final board, seen
    by the winner. ``resigned``: the game ended by an accepted resignation.
    """

    winner: int
    points: int
    outcome: Outcome | None
    match: MatchState = field(repr=False)
    position: Position = field(repr=False)
    resigned: bool = field(default=False, repr=False)

    @property
    def cube(self) -> int:
        """The cube value the game ended with (before a dropped double)."""
        return self.match.cube_value

    @property
    def draw(self) -> bool:
        """Whether the game was drawn: never in backgammon (long nardy's last-roll rule draws)."""
        return False

    @property
    def next_match(self) -> MatchState:
        """The match state before the next game (``engine.match.after_game``)."""
        return after_game(self.match, self.winner, self.points)

    def ids(self) -> tuple[str, str]:
        """(Position ID, Match ID) of the finished game: the final board and the winner on roll.

        The Match ID's game state says how it ended (over: borne off, resigned with the
        level as the resignation offered, dropped), its score is the score before the game.
        """
        state = GameState.DROPPED if self.outcome is None else GameState.RESIGNED if self.resigned else GameState.OVER
        level = int(self.outcome) if self.resigned and self.outcome is not None else 0
        return self.position.id, _match_id(self.match, state, self.winner, self.winner, resign_offered=level)


@dataclass(frozen=True)
class Game:
    """A game in progress: the match around it, the phase, the seat on roll and its view of the board.

    ``turn``: the seat on roll (None only in the opening). ``position``: the board
    seen by ``turn`` (the start position in the opening). ``dice``: the roll to play
    (phase ROLLED, or a resignation offered in it). ``resignation``: the offer waiting for an answer (phase
    RESIGNED only). While a double is offered, ``match`` holds the cube before it.
    """

    match: MatchState
    phase: Phase
    turn: int | None
    position: Position
    dice: tuple[int, int] | None = None
    resignation: Resignation | None = None

    def __post_init__(self) -> None:
        playing = self.resignation.interrupted if self.resignation is not None else self.phase
        if not isinstance(self.position, Position):
            problem = f"its position {self.position!r} is not a backgammon Position"
        elif (self.turn is None) != (self.phase is Phase.OPENING) or self.turn not in (0, 1, None):
            problem = "the seat on roll is 0 or 1, and None only in the opening"
        elif (self.dice is None) == (playing is Phase.ROLLED):
            problem = "dice belong to the phase 'rolled' (or a resignation offered in it) only"
        elif (self.resignation is None) == (self.phase is Phase.RESIGNED):
            problem = "a resignation belongs to the phase 'resignation offered' only"
        elif self.match.is_over:
            problem = "the match is already over"
        else:
            return
        raise InvalidMatchError(f"game state {self!r}: {problem}")

    @property
    def board(self) -> np.ndarray:
        """The board (read-only) seen by the side on roll."""
        return self.position.board

    @property
    def actor(self) -> int | None:
        """The seat that must act now (None in the opening, where the dice decide)."""
        if self.resignation is not None:
            return 1 - self.resignation.player
        if self.turn is None:
            return None
        return 1 - self.turn if self.phase is Phase.DOUBLED else self.turn

    @property
    def may_double(self) -> bool:
        """Whether the side on roll may double now: before its roll, with access to the cube (``engine.match``)."""
        return self.phase is Phase.BEFORE_ROLL and self.turn is not None and may_double(self.match, self.turn)

    def ids(self) -> tuple[str, str]:
        """(Position ID, Match ID) of this game, as GNU Backgammon writes them; ``from_ids`` reads them back."""
        return self.position.id, self.match_id

    @property
    def match_id(self) -> str:
        """The Match ID of this game (cube, score, turn, dice) as GNU Backgammon writes it.

        In the opening the Match ID's game state is "no game" with player 0 on roll; the
        Match ID's turn is ``actor``.
        """
        if self.turn is None:
            return _match_id(self.match, GameState.NONE, 0, 0)
        playing = self.resignation.interrupted if self.resignation is not None else self.phase
        actor = self.actor
        assert actor is not None
        level = self.resignation.level if self.resignation is not None else 0
        return _match_id(self.match, GameState.PLAYING, self.turn, actor, self.dice, playing is Phase.DOUBLED, level)

    def _require(self, action: str, *phases: Phase) -> int:
        """The seat on roll, if the phase allows ``action``; else raise IllegalActionError."""
        if self.phase not in phases:
            raise IllegalActionError(f"{action}: not allowed in phase '{self.phase.value}'")
        assert self.turn is not None  # every phase but the opening has a side on roll
        return self.turn

    # ------------------------------------------------------------ the dice

    def roll_opening(self, die0: int, die1: int) -> Game:
        """Player 0 rolled ``die0``, player 1 ``die1``: the higher moves first, playing both; a tie rolls again
        (same state)."""
        if self.phase is not Phase.OPENING:
            raise IllegalActionError(f"opening roll: not allowed in phase '{self.phase.value}'")
        validate_dice((die0, die1))
        order = opening_order(die0, die1)
        if order is None:
            return self
        first, dice = order
        return replace(self, phase=Phase.ROLLED, turn=first, dice=dice)

    def roll(self, dice: tuple[int, int]) -> Game:
        """The side on roll rolls ``dice`` (as drawn) and must move."""
        self._require("roll", Phase.BEFORE_ROLL)
        return replace(self, phase=Phase.ROLLED, dice=validate_dice(dice))

    # ------------------------------------------------------------ the cube

    def double(self) -> Game:
        """The side on roll offers the cube at twice its value."""
        turn = self._require("double", Phase.BEFORE_ROLL)
        if not self.may_double:
            owner = self.match.cube_owner
            why = (
                "the Crawford game" if self.match.crawford else f"cube {self.match.cube_value} owned by player {owner}"
            )
            raise IllegalActionError(f"double by player {turn}: no access to the cube ({why})")
        return replace(self, phase=Phase.DOUBLED)

    def take(self) -> Game:
        """The doubled side takes: it owns the cube at twice the value; the doubler rolls."""
        turn = self._require("take", Phase.DOUBLED)
        match = replace(self.match, cube_value=2 * self.match.cube_value, cube_owner=1 - turn)
        return replace(self, match=match, phase=Phase.BEFORE_ROLL)

    def drop(self) -> GameResult:
        """The doubled side passes: the doubler wins the cube's value before the double."""
        turn = self._require("drop", Phase.DOUBLED)
        return GameResult(turn, self.match.cube_value, None, self.match, self.position)

    # ------------------------------------------------------------ the move

    def move(self, play: Play) -> Game | GameResult:
        """The side on roll plays ``play``, one of ``legal_plays(board, dice)``; raise IllegalMoveError otherwise.

        The game is over when the side has borne off all its checkers; else the turn passes.
        """
        turn = self._require("move", Phase.ROLLED)
        assert self.dice is not None
        plays = legal_plays(self.board, self.dice)
        if play not in plays:
            raise IllegalMoveError(
                f"move {format_play(play)!r}: not a legal play of {self.dice[0]}{self.dice[1]} in {self.position!r}"
            )
        after = Position(plays[plays.index(play)].afterstate)  # the rules' own board, seen by the mover
        if borne_off(after.board)[0] == CHECKERS:
            outcome = game_outcome(after.board)
            points = game_result_points(outcome, self.match.cube_value, self.match.jacoby)
            return GameResult(turn, points, outcome, self.match, after)
        return replace(self, phase=Phase.BEFORE_ROLL, turn=1 - turn, position=after.flipped(), dice=None)

    # ------------------------------------------------------------ resignations

    def resign(self, player: int, level: int) -> Game:
        """``player`` offers to resign ``level`` (1 single, 2 gammon, 3 backgammon); the other side answers."""
        self._require(f"resign by player {player}", Phase.BEFORE_ROLL, Phase.DOUBLED, Phase.ROLLED)
        if player not in (0, 1) or level not in (1, 2, 3):
            raise IllegalActionError(
                f"resign by player {player!r} at level {level!r}: expected player 0 or 1, level 1..3"
            )
        return replace(self, phase=Phase.RESIGNED, resignation=Resignation(player, level, self.phase))

    def accept(self) -> GameResult:
        """The resignation is accepted: the other side wins its level times the cube (Jacoby applies)."""
        self._require("accept", Phase.RESIGNED)
        assert self.resignation is not None
        offer = self.resignation
        points = game_result_points(offer.level, self.match.cube_value, self.match.jacoby)
        winner = 1 - offer.player
        position = self.position if winner == self.turn else self.position.flipped()
        return GameResult(winner, points, Outcome(offer.level), self.match, position, resigned=True)

    def reject(self) -> Game:
        """The resignation is rejected: the game goes on where it was."""
        self._require("reject", Phase.RESIGNED)
        assert self.resignation is not None
        return replace(self, phase=self.resignation.interrupted, resignation=None)


def new_game(match: MatchState) -> Game:
    """A game before its opening roll, the checkers at the start, from the match state between games."""
    return Game(match, Phase.OPENING, None, START_POSITION)


def start_game(match: MatchState, rng: np.random.Generator) -> Game:
    """A new game after its opening roll, each die drawn from ``rng`` until they differ: the first mover must move."""
    game = new_game(match)
    while game.phase is Phase.OPENING:
        game = game.roll_opening(*roll_dice(rng))
    return game


def _match_id(
    match: MatchState,
    state: GameState,
    on_roll: int,
    turn: int,
    dice: tuple[int, int] | None = None,
    double_offered: bool = False,
    resign_offered: int = 0,
) -> str:
    """The Match ID of ``match`` with the game's fields (post-Crawford is not written: it is derived)."""
    return encode_match_id(
        MatchId(
            cube_value=match.cube_value,
            cube_owner=match.cube_owner,
            player_on_roll=on_roll,
            crawford=match.crawford,
            game_state=state,
            turn=turn,
            double_offered=double_offered,
            resign_offered=resign_offered,
            dice=dice,
            match_length=match.match_length,
            score=match.score,
            jacoby=match.jacoby,
        )
    )


def from_ids(position_id: str, match_id: str) -> Game | GameResult:
    """The game (or finished game) a Position ID and a Match ID describe, as ``Game.ids``/``GameResult.ids`` write them.

    What the Match ID cannot hold is derived as GNU Backgammon derives it:
    post-Crawford (a side at match length - 1 outside the Crawford game, in a match
    longer than 1 point); the Jacoby rule in match play (never). The seats in a
    "no game" Match ID are not read. A finished game's winner is the player on roll,
    its points follow from the final board (over), the cube (dropped) or the
    resignation offered (resigned). Raise InvalidMatchError or InvalidPositionError
    naming the IDs when they are unreadable or describe an impossible state: a match
    already over, a Crawford game with both sides at match length - 1, an opening
    away from the start position, dice with a double offered, a double offered
    without cube access, a decision by the wrong player, a game on with a side
    borne off, a finished game that is not.
    """
    what = f"game {position_id}:{match_id}"
    position = Position.from_id(position_id)
    m = decode_match_id(match_id)
    length, score = m.match_length, m.score
    post_crawford = length > 1 and not m.crawford and max(score) == length - 1
    match = MatchState(length, score, m.cube_value, m.cube_owner, m.crawford, post_crawford, m.jacoby and not length)
    if match.is_over:
        raise InvalidMatchError(f"{what}: the match is over (score {score} in a {length}-point match)")
    if m.crawford and min(score) == length - 1:
        raise InvalidMatchError(f"{what}: the Crawford game needs exactly one side at {length - 1} points")
    on_roll = m.player_on_roll
    mover_off, opponent_off = borne_off(position.board)
    if m.game_state is GameState.NONE:
        if m.dice is not None or m.double_offered or m.resign_offered or position != START_POSITION:
            raise InvalidMatchError(
                f"{what}: before the opening roll the checkers are at the start, with no dice or offer"
            )
        return new_game(match)
    if m.dice is not None and (m.double_offered or m.game_state is not GameState.PLAYING):
        raise InvalidMatchError(f"{what}: dice belong to a game on, with no double offered")
    if m.double_offered and not may_double(match, on_roll):
        raise InvalidMatchError(f"{what}: a double offered by player {on_roll}, who has no access to the cube")
    if m.game_state is GameState.OVER:
        if mover_off != CHECKERS or m.double_offered or m.resign_offered or m.turn != on_roll:
            raise InvalidPositionError(f"{what}: a game over has the winner on roll with all its checkers off")
        outcome = game_outcome(position.board)
        points = game_result_points(outcome, match.cube_value, match.jacoby)
        return GameResult(on_roll, points, outcome, match, position)
    if CHECKERS in (mover_off, opponent_off):
        raise InvalidPositionError(f"{what}: a side has borne off all {CHECKERS} checkers, but the game is not over")
    if m.game_state is GameState.PLAYING:
        return _game_on(what, match, position, m)
    if m.double_offered or m.turn != on_roll or (m.resign_offered == 0) == (m.game_state is GameState.RESIGNED):
        raise InvalidMatchError(f"{what}: a finished game has the winner on roll and, when resigned, only the level")
    if m.game_state is GameState.DROPPED:
        return GameResult(on_roll, match.cube_value, None, match, position)
    level = Outcome(m.resign_offered)
    return GameResult(on_roll, game_result_points(level, match.cube_value, match.jacoby), level, match, position, True)


def _game_on(what: str, match: MatchState, position: Position, m: MatchId) -> Game:
    """The game on of a Match ID (game state "playing")."""
    on_roll = m.player_on_roll
    phase = Phase.DOUBLED if m.double_offered else Phase.ROLLED if m.dice is not None else Phase.BEFORE_ROLL
    resignation = None
    if m.resign_offered:
        resignation = Resignation(1 - m.turn, m.resign_offered, phase)
    elif m.turn != (1 - on_roll if m.double_offered else on_roll):
        raise InvalidMatchError(f"{what}: player {m.turn} cannot decide now (player {on_roll} on roll)")
    return Game(match, Phase.RESIGNED if resignation else phase, on_roll, position, m.dice, resignation)
