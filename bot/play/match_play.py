"""Matches and money sessions between two computer players, recorded as .mat data.

``play_match`` plays a whole match (or a money session of a given number of games):
rolls from a seeded numpy Generator, each move chosen by the player on roll, a cube
decision before each roll while that player has access to a cube it can use, the
opponent's take or pass, the scoring through ``engine.match`` (cube, gammons,
Crawford and post-Crawford games). Every action is recorded as ``engine.matfile``
data, so a match can be written as a Jellyfish .mat file for GNU Backgammon.
Games are played to the end (no resignations).

Either game is played (``variant``, an ``engine.variant.Variant``): long nardy's game
(``engine.long_nardy.LongGame``) keeps its own cube, which the players see as a
``CubeState`` the same way; a long nardy match is played with the doubling cube
(``Rules(cube="doubling")``).

A player sees every board from its own side (it is on roll, or it is being doubled
by the side on roll) and the cube as ``bot.equity.cube.CubeState`` from the side on roll.
``BotPlayer`` is the network bot (``bot.facade.Bot``); ``PubevalPlayer`` moves by
Tesauro's pubeval and handles the cube by a fixed rule (``race_probabilities``);
``HeuristicPlayer`` is long nardy's yardstick as pubeval is backgammon's: its moves by
``bot.evaluation.long_nardy_heuristic``, its cube by the same race rule.

"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Protocol, Sequence

import numpy as np

from bot.equity.cube import CubeState, cube_decision, cube_state_for, race_efficiencies
from bot.equity.met import met_for
from bot.facade import Bot
from bot.play.levels import Level, LevelPlayer
from bot.evaluation.pubeval import Pubeval
from engine.errors import IllegalMoveError, InvalidMatchError
from engine.game import Phase
from engine.match import MatchState, Outcome, roll_dice
from engine.matfile import ActionKind, MatAction, MatGame, MatMatch, cube_match
from engine.plays import Play, legal_plays
from engine.variant import BACKGAMMON, Finished, GameOn, Variant, long_nardy_variant

# pubeval's cube rule: its P(win) is a normal approximation of a race from the pip
# counts, being on roll worth ON_ROLL_PIPS, the spread RACE_SPREAD x sqrt(total pips).
# (At 100-100 pips: 57% on roll; 8 pips ahead: 69%, a first double; 12 ahead: 77%.)
ON_ROLL_PIPS = 4.0
RACE_SPREAD = 1.55


class Player(Protocol):
    """A computer player. Boards are seen by the side on roll; ``state`` is that side's cube state."""

    name: str

    def choose_play(self, board: np.ndarray, dice: tuple[int, int], state: CubeState) -> Play:
        """The play of ``dice`` on ``board`` (its own view), one of ``legal_plays(board, dice)``."""

    def should_double(self, board: np.ndarray, state: CubeState) -> bool:
        """Whether to double now, before rolling on ``board``."""

    def should_take(self, board: np.ndarray, state: CubeState) -> bool:
        """Whether to take a double; ``board`` and ``state`` are seen by the doubler (the side on roll)."""


class BotPlayer:
    """The network bot as a player, searching ``plies`` deep, or at a playing ``level`` (``bot.play.levels``:
    its depth and noise; ``plies`` is then ignored)."""

    def __init__(
        self,
        bot: Bot,
        plies: int = 0,
        name: Optional[str] = None,
        level: Optional[Level] = None,
        rng: Optional[np.random.Generator] = None,
    ) -> None:
        self.bot, self.plies, self.level = bot, plies, level
        self.name = name or bot.name
        self._leveled = LevelPlayer(bot, level, rng) if level is not None else None

    def choose_play(self, board: np.ndarray, dice: tuple[int, int], state: CubeState) -> Play:
        if self._leveled is not None:
            return self._leveled.choose_play(board, dice, state)
        return self.bot.best_play(board, dice, plies=self.plies, state=state).play

    def should_double(self, board: np.ndarray, state: CubeState) -> bool:
        if self._leveled is not None:
            return self._leveled.should_double(board, state)
        return self.bot.should_double(board, state, self.plies)

    def should_take(self, board: np.ndarray, state: CubeState) -> bool:
        if self._leveled is not None:
            return self._leveled.should_take(board, state)
        return self.bot.should_take(board, state, self.plies)


def race_probabilities(board: np.ndarray, variant: Variant = BACKGAMMON) -> np.ndarray:
    """A fixed rule's crude five probabilities for the side on roll of ``board`` (its view) in ``variant``.

    P(win) from the pip counts alone, as if the game were a race: the normal
    approximation Phi((opponent's pips - own pips + 4) / (1.55 sqrt(total pips)));
    no gammons. ``bot.equity.cube`` turns these into pubeval's (and the long nardy heuristic's) cube decisions.
    """
    mine, theirs = variant.pip_counts(board)
    lead = theirs - mine + ON_ROLL_PIPS
    win = 0.5 * (1.0 + math.erf(lead / (RACE_SPREAD * math.sqrt(mine + theirs)) / math.sqrt(2.0)))
    return np.array([win, 0.0, 0.0, 0.0, 0.0])


# pubeval's name for the race rule (backgammon's pip counts).
pubeval_probabilities = race_probabilities


class PubevalPlayer:
    """Tesauro's pubeval: its best-scored play; cube decisions from ``race_probabilities``."""

    def __init__(self, name: str = "pubeval") -> None:
        self.name = name
        self.evaluator = Pubeval()

    def choose_play(self, board: np.ndarray, dice: tuple[int, int], state: CubeState) -> Play:
        plays = legal_plays(board, dice)
        children = np.stack([p.afterstate for p in plays])
        scores = self.evaluator.afterstate_scores(board[None], children, np.zeros(len(plays), dtype=np.int64))
        return plays[int(np.argmax(scores))]

    def should_double(self, board: np.ndarray, state: CubeState) -> bool:
        return cube_decision(board, race_probabilities(board), state).should_double

    def should_take(self, board: np.ndarray, state: CubeState) -> bool:
        return cube_decision(board, race_probabilities(board), state).should_take


class HeuristicPlayer:
    """Long nardy's hand-set player (``bot.evaluation.long_nardy_heuristic``): its best-scored play; cube decisions
    from ``race_probabilities``, priced as a race with long nardy's match equity table."""

    def __init__(self, variant: Optional[Variant] = None, name: str = "heuristic") -> None:
        from bot.evaluation.long_nardy_heuristic import heuristic_scores

        self.variant = variant or long_nardy_variant()
        if self.variant.rules is None:
            raise InvalidMatchError(f"the heuristic player plays long nardy, not {self.variant.title}")
        self.name = name
        self._scores = heuristic_scores

    def choose_play(self, board: np.ndarray, dice: tuple[int, int], state: CubeState) -> Play:
        plays = self.variant.legal_plays(board, dice)
        return plays[int(np.argmax(self._scores(np.stack([p.afterstate for p in plays]))))]

    def _decision(self, board: np.ndarray, state: CubeState):
        efficiency = float(race_efficiencies(np.array([self.variant.pip_counts(board)[0]]))[0])
        met = None if state.is_money else met_for(self.variant)
        return cube_decision(board, race_probabilities(board, self.variant), state, met, efficiency=efficiency)

    def should_double(self, board: np.ndarray, state: CubeState) -> bool:
        return self._decision(board, state).should_double

    def should_take(self, board: np.ndarray, state: CubeState) -> bool:
        return self._decision(board, state).should_take


# ---------------------------------------------------------------- playing


@dataclass(frozen=True)
class PlayedGame:
    """One game as played: its record, whether it was the Crawford game, the final cube,
    how it was won (None: the loser passed a double, or a draw), and the match state after it."""

    record: MatGame
    crawford: bool
    cube: int
    outcome: Optional[Outcome]
    next_match: MatchState


@dataclass(frozen=True)
class PlayedMatch:
    """A match (``length`` > 0) or money session (``length`` 0) as played, and the state after it."""

    names: tuple[str, str]
    length: int
    games: tuple[PlayedGame, ...]
    state: MatchState
    variant: Variant = BACKGAMMON

    def record(self) -> MatMatch:
        """The match as .mat data."""
        return MatMatch(
            self.length,
            self.names,
            tuple(g.record for g in self.games),
            variant=self.variant.name,
            rules=self.variant.rules,
        )


def _roll(rng: np.random.Generator) -> tuple[int, int]:
    """Two dice, the higher first (as .mat files write them)."""
    d1, d2 = roll_dice(rng)
    return max(d1, d2), min(d1, d2)


def _before_roll(players: Sequence[Player], game: GameOn, actions: list[MatAction]) -> GameOn | Finished:
    """The side on roll's cube decision and the opponent's answer, recorded in ``actions``."""
    turn = game.turn
    assert turn is not None
    cube = cube_state_for(cube_match(game), turn)
    if not (game.may_double and cube.can_double and players[turn].should_double(game.board, cube)):
        return game
    actions.append(MatAction.of_double(turn, 2 * cube.cube))
    if players[1 - turn].should_take(game.board, cube):
        actions.append(MatAction.of_take(1 - turn))
        return game.double().take()
    actions.append(MatAction.of_drop(1 - turn))
    return game.double().drop()


def _move(players: Sequence[Player], game: GameOn, actions: list[MatAction], variant: Variant) -> GameOn | Finished:
    """The side on roll plays its dice, recorded in ``actions`` (backgammon one checker step at a time as gnubg
    writes it, long nardy in its own notation); raise IllegalMoveError for an illegal choice."""
    turn, dice = game.turn, game.dice
    assert turn is not None and dice is not None
    play = players[turn].choose_play(game.board, dice, cube_state_for(cube_match(game), turn))
    try:
        after = game.move(play)
    except IllegalMoveError as error:
        raise IllegalMoveError(f"{players[turn].name} chose {error}") from None
    actions.append(mat_move(turn, dice, play, variant))
    return after


def mat_move(player: int, dice: tuple[int, int], play: Play, variant: Variant = BACKGAMMON) -> MatAction:
    """``player``'s roll and play as a .mat record writes them: the higher die first, backgammon one checker step
    at a time as gnubg writes it, long nardy in its own notation."""
    high = (max(dice), min(dice))
    if variant.rules is None:
        return MatAction.of_play(player, high, play)
    return MatAction.of_move(player, high, variant.format_play(play))


def play_game(
    players: Sequence[Player], state: MatchState, rng: np.random.Generator, variant: Variant = BACKGAMMON
) -> PlayedGame:
    """One game of ``variant`` between ``players`` (seats 0 and 1) from the match ``state`` before it.

    Raise IllegalMoveError if a player chooses a play that is not legal. A game drawn by long nardy's
    last-roll rule is recorded without a winner.
    """
    game: Any = variant.new_game(state)  # a GameOn until it is Finished
    while game.phase is Phase.OPENING:
        game = game.roll_opening(*roll_dice(rng))
    actions: list[MatAction] = []
    while not isinstance(game, Finished):
        if game.phase is Phase.BEFORE_ROLL:
            game = _before_roll(players, game, actions)
            if not isinstance(game, Finished):
                game = game.roll(_roll(rng))
        else:
            game = _move(players, game, actions, variant)
    record = MatGame(state.score, tuple(actions), game.winner, game.points, crawford=True if state.crawford else None)
    return PlayedGame(record, state.crawford, game.cube, game.outcome, game.next_match)


def play_match(
    players: Sequence[Player],
    length: int,
    rng: np.random.Generator,
    games: int = 1,
    jacoby: bool = False,
    variant: Variant = BACKGAMMON,
) -> PlayedMatch:
    """A ``length``-point match of ``variant`` between ``players``, or with ``length`` 0 a money session of
    ``games`` games.

    ``jacoby`` (backgammon money only): gammons count single while the cube is centred. Long nardy is played
    under ``variant.rules``, whose cube must be ``doubling`` (a .mat file records doubles).
    """
    if length < 0:
        raise InvalidMatchError(f"match length {length}: expected 0 (money) or more")
    if not length and games < 1:
        raise InvalidMatchError(f"money session of {games} games: expected at least one")
    if length and jacoby:
        raise InvalidMatchError("the Jacoby rule is for money sessions only")
    if variant.rules is not None and jacoby:
        raise InvalidMatchError("the Jacoby rule is backgammon's, not long nardy's")
    if variant.rules is not None and variant.rules.cube != "doubling":
        raise InvalidMatchError(
            f"long nardy rules with cube {variant.rules.cube!r}: a match is played with the doubling cube"
        )
    state = MatchState(match_length=length, jacoby=jacoby)
    played: list[PlayedGame] = []
    while not state.is_over and (length or len(played) < games):
        game = play_game(players, state, rng, variant)
        played.append(game)
        state = game.next_match
    return PlayedMatch((players[0].name, players[1].name), length, tuple(played), state, variant)


# ---------------------------------------------------------------- summary


@dataclass(frozen=True)
class Summary:
    """Counts over some matches, per seat (player 0, player 1)."""

    matches: int
    games: int
    crawford_games: int
    points: tuple[int, int]
    matches_won: tuple[int, int]
    games_won: tuple[int, int]
    gammons: tuple[int, int]  # gammons won, backgammons not included
    backgammons: tuple[int, int]
    doubles: tuple[int, int]
    takes: tuple[int, int]
    drops: tuple[int, int]


def summarize(matches: Sequence[PlayedMatch]) -> Summary:
    """Games, results and cube actions of ``matches``, counted per seat."""

    def pair(count) -> tuple[int, int]:
        return count(0), count(1)

    games = [g for m in matches for g in m.games]
    actions = [a for g in games for a in g.record.actions]

    def acts(kind: ActionKind):
        return pair(lambda p: sum(a.kind is kind and a.player == p for a in actions))

    def won(outcome: Outcome):
        return pair(lambda p: sum(g.record.winner == p and g.outcome is outcome for g in games))

    return Summary(
        matches=len(matches),
        games=len(games),
        crawford_games=sum(g.crawford for g in games),
        points=pair(lambda p: sum(m.state.score[p] for m in matches)),
        matches_won=pair(lambda p: sum(m.state.winner == p for m in matches)),
        games_won=pair(lambda p: sum(g.record.winner == p for g in games)),
        gammons=won(Outcome.GAMMON),
        backgammons=won(Outcome.BACKGAMMON),
        doubles=acts(ActionKind.DOUBLE),
        takes=acts(ActionKind.TAKE),
        drops=acts(ActionKind.DROP),
    )
