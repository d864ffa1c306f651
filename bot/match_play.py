"""Matches and money sessions between two computer players, recorded as .mat data.

``play_match`` plays a whole match (or a money session of a given number of games):
rolls from a seeded numpy Generator, each move chosen by the player on roll, a cube
decision before each roll while that player has access to a cube it can use, the
opponent's take or pass, the scoring through ``engine.match`` (cube, gammons,
Crawford and post-Crawford games). Every action is recorded as ``engine.matfile``
data, so a match can be written as a Jellyfish .mat file for GNU Backgammon.
Games are played to the end (no resignations).

A player sees every board from its own side (it is on roll, or it is being doubled
by the side on roll) and the cube as ``bot.cube.CubeState`` from the side on roll.
``BotPlayer`` is the network bot (``bot.facade.Bot``); ``PubevalPlayer`` moves by
Tesauro's pubeval and handles the cube by a fixed rule (``pubeval_probabilities``).

The ``match`` subcommand (``add_match``) plays matches this way and writes them.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Protocol, Sequence, TextIO

import numpy as np

from bot.cube import CubeState, cube_decision
from bot.facade import Bot
from bot.positions import cube_state_for
from bot.pubeval import Pubeval
from engine.board import CHECKERS, START, borne_off, flip, pip_counts
from engine.errors import IllegalMoveError, InvalidMatchError
from engine.match import MatchState, Outcome, after_game, game_outcome, game_result_points, may_double, opening_roll
from engine.matfile import ActionKind, MatAction, MatGame, MatMatch, write_mat
from engine.notation import format_play
from engine.plays import Play, legal_plays

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
    """The network bot as a player, at 0 or 1 ply."""

    def __init__(self, bot: Bot, plies: int = 0, name: Optional[str] = None) -> None:
        self.bot, self.plies = bot, plies
        self.name = name or bot.name

    def choose_play(self, board: np.ndarray, dice: tuple[int, int], state: CubeState) -> Play:
        return self.bot.best_play(board, dice, plies=self.plies, state=state).play

    def should_double(self, board: np.ndarray, state: CubeState) -> bool:
        return self.bot.should_double(board, state, self.plies)

    def should_take(self, board: np.ndarray, state: CubeState) -> bool:
        return self.bot.should_take(board, state, self.plies)


def pubeval_probabilities(board: np.ndarray) -> np.ndarray:
    """pubeval's crude five probabilities for the side on roll of ``board`` (its view).

    P(win) from the pip counts alone, as if the game were a race: the normal
    approximation Phi((opponent's pips - own pips + 4) / (1.55 sqrt(total pips)));
    no gammons. ``bot.cube`` turns these into pubeval's cube decisions.
    """
    mine, theirs = pip_counts(board)
    lead = theirs - mine + ON_ROLL_PIPS
    win = 0.5 * (1.0 + math.erf(lead / (RACE_SPREAD * math.sqrt(mine + theirs)) / math.sqrt(2.0)))
    return np.array([win, 0.0, 0.0, 0.0, 0.0])


class PubevalPlayer:
    """Tesauro's pubeval: its best-scored play; cube decisions from ``pubeval_probabilities``."""

    def __init__(self, name: str = "pubeval") -> None:
        self.name = name
        self.evaluator = Pubeval()

    def choose_play(self, board: np.ndarray, dice: tuple[int, int], state: CubeState) -> Play:
        plays = legal_plays(board, dice)
        children = np.stack([p.afterstate for p in plays])
        scores = self.evaluator.afterstate_scores(board[None], children, np.zeros(len(plays), dtype=np.int64))
        return plays[int(np.argmax(scores))]

    def should_double(self, board: np.ndarray, state: CubeState) -> bool:
        return cube_decision(board, pubeval_probabilities(board), state).should_double

    def should_take(self, board: np.ndarray, state: CubeState) -> bool:
        return cube_decision(board, pubeval_probabilities(board), state).should_take


# ---------------------------------------------------------------- playing


@dataclass(frozen=True)
class PlayedGame:
    """One game as played: its record, whether it was the Crawford game, the final cube,
    and how it was won (None: the loser passed a double)."""

    record: MatGame
    crawford: bool
    cube: int
    outcome: Optional[Outcome]


@dataclass(frozen=True)
class PlayedMatch:
    """A match (``length`` > 0) or money session (``length`` 0) as played, and the state after it."""

    names: tuple[str, str]
    length: int
    games: tuple[PlayedGame, ...]
    state: MatchState

    def record(self) -> MatMatch:
        """The match as .mat data."""
        return MatMatch(self.length, self.names, tuple(g.record for g in self.games))


def _roll(rng: np.random.Generator) -> tuple[int, int]:
    """Two dice, the higher first (as .mat files write them)."""
    d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
    return max(d1, d2), min(d1, d2)


def play_game(players: Sequence[Player], state: MatchState, rng: np.random.Generator) -> PlayedGame:
    """One game between ``players`` (seats 0 and 1) from the match ``state`` before it.

    Raise IllegalMoveError if a player chooses a play that is not legal.
    """
    turn, dice = opening_roll(rng)
    board = START.copy()  # seen by ``turn``
    actions: list[MatAction] = []
    while True:
        if dice is None:
            cube = cube_state_for(state, turn)
            if may_double(state, turn) and cube.can_double and players[turn].should_double(board, cube):
                doubled = 2 * state.cube_value
                actions.append(MatAction.of_double(turn, doubled))
                if not players[1 - turn].should_take(board, cube):
                    actions.append(MatAction.of_drop(1 - turn))
                    record = MatGame(state.score, tuple(actions), turn, state.cube_value)
                    return PlayedGame(record, state.crawford, state.cube_value, None)
                actions.append(MatAction.of_take(1 - turn))
                state = replace(state, cube_value=doubled, cube_owner=1 - turn)
            dice = _roll(rng)
        play = players[turn].choose_play(board, dice, cube_state_for(state, turn))
        if play not in legal_plays(board, dice):
            raise IllegalMoveError(f"{players[turn].name} chose {format_play(play)!r}, not a legal play of {dice}")
        actions.append(MatAction.of_play(turn, dice, play))
        if borne_off(play.afterstate)[0] == CHECKERS:
            outcome = game_outcome(play.afterstate)
            points = game_result_points(outcome, state.cube_value, state.jacoby)
            record = MatGame(state.score, tuple(actions), turn, points)
            return PlayedGame(record, state.crawford, state.cube_value, outcome)
        board, turn, dice = flip(play.afterstate), 1 - turn, None


def play_match(
    players: Sequence[Player],
    length: int,
    rng: np.random.Generator,
    games: int = 1,
    jacoby: bool = False,
) -> PlayedMatch:
    """A ``length``-point match between ``players``, or with ``length`` 0 a money session of ``games`` games.

    ``jacoby`` (money only): gammons count single while the cube is centred.
    """
    if length < 0:
        raise InvalidMatchError(f"match length {length}: expected 0 (money) or more")
    if not length and games < 1:
        raise InvalidMatchError(f"money session of {games} games: expected at least one")
    if length and jacoby:
        raise InvalidMatchError("the Jacoby rule is for money sessions only")
    state = MatchState(match_length=length, jacoby=jacoby)
    played: list[PlayedGame] = []
    while not state.is_over and (length or len(played) < games):
        game = play_game(players, state, rng)
        played.append(game)
        state = after_game(state, game.record.winner, game.record.points)
    return PlayedMatch((players[0].name, players[1].name), length, tuple(played), state)


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


def format_summary(summary: Summary, names: tuple[str, str], money: bool) -> list[str]:
    """A table of ``summary``: one row per count, one column per player."""
    width = max(8, *(len(n) for n in names))
    rows = [("Points", summary.points)] + ([] if money else [("Matches won", summary.matches_won)])
    rows += [
        ("Games won", summary.games_won),
        ("Gammons won", summary.gammons),
        ("Backgammons won", summary.backgammons),
        ("Doubles", summary.doubles),
        ("Takes", summary.takes),
        ("Drops", summary.drops),
    ]
    games = _count(summary.games, "game")
    if money:
        lines = [f"Money session: {games}"]
    else:
        lines = [f"{_count(summary.matches, 'match', 'matches')}: {games} ({summary.crawford_games} Crawford)"]
    lines.append(f"{'':<16}" + "".join(f"{n:>{width + 2}}" for n in names))
    lines += [f"{label:<16}" + "".join(f"{v:>{width + 2}}" for v in values) for label, values in rows]
    return lines


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def result_line(match: PlayedMatch) -> str:
    """The final score of one match or session."""
    (a, b), (x, y) = match.names, match.state.score
    if not match.length:
        return f"Money session, {_count(len(match.games), 'game')}: {a} {x}, {b} {y}"
    return f"{match.length}-point match: {a} {x}, {b} {y}; {match.names[match.state.winner]} wins"


# ---------------------------------------------------------------- the `match` subcommand


def _mat_name(name: str) -> str:
    """A player name as a .mat file can hold it: no spaces or colons."""
    return "".join("_" if c.isspace() or c == ":" else c for c in name) or "player"


def _numbered(path: Path, index: int, count: int) -> Path:
    """``path`` itself for a single match, else ``stem-<index>.suffix``."""
    return path if count == 1 else path.with_name(f"{path.stem}-{index}{path.suffix}")


def _bot_player(checkpoint: Optional[str], plies: int) -> BotPlayer:
    """The bot of ``checkpoint`` (default: the shipped one), named after the file when one is given."""
    bot = Bot.load(checkpoint)
    return BotPlayer(bot, plies, name=Path(checkpoint).stem if checkpoint else bot.name)


def _players(args: argparse.Namespace) -> tuple[Player, Player]:
    first = _bot_player(args.checkpoint, args.plies)
    if args.opponent == "self":
        second: Player = BotPlayer(first.bot, args.plies, name=first.name)
    elif args.opponent == "pubeval":
        second = PubevalPlayer()
    else:
        second = _bot_player(args.opponent, args.plies)
    first.name = _mat_name(first.name)
    second.name = _mat_name(second.name)
    if second.name == first.name:
        second.name += "-2"
    return first, second


def _run_match(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    if args.length < 0:
        raise ValueError(f"--length {args.length}: expected 0 (money) or a match length")
    if args.games < 1:
        raise ValueError(f"--games {args.games}: expected at least 1")
    if args.jacoby and args.length:
        raise ValueError("--jacoby: only for money sessions (--length 0)")
    players = _players(args)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**32)
    rng = np.random.default_rng(seed)
    stdout.write(f"{players[0].name} vs {players[1].name}, seed {seed}\n")
    count = 1 if args.length == 0 else args.games
    matches = []
    for k in range(1, count + 1):
        match = play_match(players, args.length, rng, games=args.games, jacoby=args.jacoby)
        matches.append(match)
        line = result_line(match)
        if args.mat:
            path = _numbered(Path(args.mat), k, count)
            write_mat(match.record(), path)
            line += f" (written to {path})"
        stdout.write(line + "\n")
        stdout.flush()
    names = (players[0].name, players[1].name)
    stdout.write("\n".join(format_summary(summarize(matches), names, money=not args.length)) + "\n")
    return 0


def add_match(subparsers) -> None:
    """The ``match`` subcommand: the bot plays matches or money sessions and writes .mat files."""
    p = subparsers.add_parser("match", help="bot against bot (or pubeval): matches or money sessions, .mat files")
    p.add_argument("--length", type=int, default=7, help="match length; 0 = a money session (default 7)")
    p.add_argument("--opponent", default="self", metavar="self|pubeval|CHECKPOINT",
                   help="the other player: the same bot, pubeval, or another checkpoint (default self)")
    p.add_argument("--games", type=int, default=1,
                   help="number of matches, or of games in a money session (default 1)")
    p.add_argument("--seed", type=int, help="random seed of the dice (default: a fresh one, printed)")
    p.add_argument("--mat", metavar="FILE", help="write each match as a .mat file (FILE-1.mat, ... for several)")
    p.add_argument("--jacoby", action="store_true", help="money sessions: the Jacoby rule")
    p.add_argument("--plies", type=int, choices=(0, 1), default=0, help="the bot's search depth (default 0)")
    p.add_argument("--checkpoint", metavar="PATH", help="network checkpoint (default: the shipped bot)")
    p.set_defaults(run=_run_match)
