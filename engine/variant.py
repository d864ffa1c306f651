"""The games the engine plays, backgammon and long nardy, each one ``Variant``: a record of its rules' functions.

Evaluators, move choice, search, self-play, training and the doors differ between the two
games only in what a ``Variant`` holds: the start, the batched afterstate generator, turning a
board to the other side's view, the points of a finished game, whether the first roll may be a
double; and, for one position at a time, the position type (its Position ID codec and pip
counts), legal plays with their steps, reading and writing a play, drawing the board, checking
a board, the names of the outcomes and a new game. Boards are (26,) or (B, 26) int8 in the view
of the side that moves (docs/DESIGN.md) in both games.

Both games score a finished game 1 or 2 points (a gammon; long nardy's mars), and backgammon
also 3 (a backgammon, which long nardy lacks): the five probabilities of docs/DESIGN.md describe
both, with the two backgammon entries always 0 in long nardy.

Names are resolved in one place, ``find_variant``: ``backgammon`` (also ``bg``, ``short-nardy``)
and ``long_nardy`` (also ``long``, ``long-nardy``, ``longnardy``), any case, ``-``, ``_`` or a
space between words. ``LONG_NARDY`` and ``VARIANTS`` are built on first use, so a backgammon
program never loads long nardy's modules.

>>> long = find_variant("Long-Nardy")
>>> long.name, find_variant("bg") is BACKGAMMON
('long_nardy', True)
>>> [long.format_play(p) for p in long.legal_plays(long.start, "31")]
['24/20']
>>> long.position(long.start), BACKGAMMON.outcome_name(2), long.outcome_name(2)
(LongPosition.from_id('AAAB//wAAAP/+'), 'gammon', 'mars')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Protocol, runtime_checkable

import numpy as np

import engine.board
import engine.movegen
from engine.board import Dice
from engine.errors import InvalidOptionError, quote
from engine.match import MatchState, Outcome
from engine.match import winning_points as backgammon_points
from engine.notation import format_play, parse_move
from engine.plays import Play, legal_plays
from engine.position import Position
from engine.render import render_board

if TYPE_CHECKING:
    from engine.long_nardy.rules import Rules

    # Built on first use (module ``__getattr__``): a backgammon program never loads long nardy's modules.
    LONG_NARDY: Variant
    VARIANTS: tuple[Variant, ...]

__all__ = [
    "BACKGAMMON",
    "LONG_NARDY",
    "NAMES",
    "VARIANTS",
    "Finished",
    "GameOn",
    "GamePosition",
    "Variant",
    "find_variant",
    "long_nardy_variant",
]

Generator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]

# Each variant's spellings, its canonical name first (as training configs and network encodings write it).
_SPELLINGS = {
    "backgammon": ("backgammon", "bg", "short-nardy"),
    "long_nardy": ("long_nardy", "long", "long-nardy", "longnardy"),
}
NAMES = tuple(_SPELLINGS)


def _key(name: str) -> str:
    """A spelling as ``find_variant`` compares it: lower case, '-' and ' ' read as '_'."""
    return name.strip().lower().replace("-", "_").replace(" ", "_")


_ALIASES = {_key(spelling): canonical for canonical, spellings in _SPELLINGS.items() for spelling in spellings}


class GamePosition(Protocol):
    """One board of a game seen by the side to move, immutable (``engine.position.Position``,
    ``engine.long_nardy.LongPosition``): its game's name, its Position ID, the other side's view."""

    variant: ClassVar[str]

    @property
    def board(self) -> np.ndarray: ...

    @property
    def id(self) -> str: ...

    def flipped(self) -> GamePosition: ...

    def pip_counts(self) -> tuple[int, int]: ...


@runtime_checkable
class Finished(Protocol):
    """A finished game of either variant (``engine.game.GameResult``, ``engine.long_nardy.LongGameResult``).

    ``winner`` scores ``points`` (None: a drawn game, no points); ``outcome`` is the level won
    (None for a dropped cube or a draw); ``position`` the final board seen by the winner.
    """

    @property
    def winner(self) -> int | None: ...

    @property
    def points(self) -> int: ...

    @property
    def outcome(self) -> Outcome | None: ...

    @property
    def position(self) -> GamePosition: ...

    @property
    def resigned(self) -> bool: ...

    @property
    def cube(self) -> int: ...

    @property
    def draw(self) -> bool: ...

    @property
    def next_match(self) -> MatchState: ...


@runtime_checkable
class GameOn(Protocol):
    """A game in progress of either variant (``engine.game.Game``, ``engine.long_nardy.LongGame``): the actions both
    games share. Resignation is not here: backgammon offers a level the other side answers, long nardy resigns at once.
    """

    @property
    def turn(self) -> int | None: ...

    @property
    def actor(self) -> int | None: ...

    @property
    def dice(self) -> tuple[int, int] | None: ...

    @property
    def board(self) -> np.ndarray: ...

    @property
    def may_double(self) -> bool: ...

    def roll_opening(self, die0: int, die1: int) -> GameOn: ...

    def roll(self, dice: tuple[int, int]) -> GameOn: ...

    def double(self) -> GameOn: ...

    def take(self) -> GameOn: ...

    def drop(self) -> Finished: ...

    def move(self, play: Play) -> GameOn | Finished: ...


@dataclass(frozen=True, eq=False)
class Variant:
    """One game's rules, batched and for one position; boards in the mover's view. Equal only to itself."""

    # "backgammon" or "long_nardy": the name configs and network encodings use (``NAMES``).
    name: str
    # The game as messages name it: "backgammon", "long nardy".
    title: str
    # The position before the first move, seen by the side that moves first.
    start: np.ndarray = field(repr=False)
    # ``afterstates(boards (B, 26), dice (B, 2))`` -> (children (N, 26), parent (N,)), mover's view.
    afterstates: Generator = field(repr=False)
    # The same boards seen by the other side.
    flip: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    # (N,) points 1, 2 or 3 of finished boards (N, 26) seen by the winner.
    winning_points: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    # The position type: ``position(board)``, ``position.from_id(text)``, ``.id``, ``.pip_counts()``.
    position: type[Any] = field(repr=False)
    # ``legal_plays(board, dice)``: every legal play of one board (mover's view), one per afterstate.
    legal_plays: Callable[[np.ndarray, Dice], list[Play]] = field(repr=False)
    # ``parse_play(text, board, dice)``: the legal play a move text means (InvalidMoveError, IllegalMoveError).
    parse_play: Callable[[str, np.ndarray, Dice], Play] = field(repr=False)
    # ``render(board, *, dice=None, match_length=0, names=(on roll, opponent))``: the board as text.
    render: Callable[..., str] = field(repr=False)
    # (mover's pips, opponent's pips) of one board.
    pip_counts: Callable[[np.ndarray], tuple[int, int]] = field(repr=False)
    # ``validate_board(board, what)``: the board as int8, or InvalidPositionError naming ``what``.
    validate_board: Callable[..., np.ndarray] = field(repr=False)
    # ``new_game(match)``: a game before its opening roll, from the match state between games.
    new_game: Callable[[MatchState], GameOn] = field(repr=False)
    # The name of each outcome (``Outcome`` 1, 2, ...): the levels this game wins or resigns.
    outcome_names: tuple[str, ...] = ("single", "gammon", "backgammon")
    # Whether the first roll of a game may be a double (backgammon's opening and long nardy's
    # "sport" opening play the two single dice thrown to decide who starts: never a double).
    opening_doubles: bool = False
    # The long nardy rule flags of this game (None for backgammon).
    rules: Rules | None = None
    # ``format_play(play)``: a play in GNU Backgammon's notation (both games write it so).
    format_play: Callable[[Play], str] = field(default=format_play, repr=False)

    def finished_probabilities(self, afterstates: np.ndarray) -> np.ndarray:
        """(N, 5) exact probabilities, for the winner, of afterstates where the mover has borne off all 15."""
        points = self.winning_points(afterstates)
        five = np.zeros((len(afterstates), 5), dtype=np.float32)
        five[:, 0] = 1.0
        five[:, 1] = points >= 2
        five[:, 2] = points >= 3
        return five

    def outcome_name(self, outcome: Outcome | int) -> str:
        """The word for a game won (or resigned) at ``outcome``: single/gammon/backgammon, or oin/mars."""
        levels = len(self.outcome_names)
        if not 1 <= int(outcome) <= levels:
            raise InvalidOptionError(f"{self.title}: outcome {quote(int(outcome))} is not one of 1..{levels}")
        return self.outcome_names[int(outcome) - 1]


def _new_backgammon_game(match: MatchState) -> GameOn:
    """``engine.game.new_game``, loaded when a game is played (a command that only reads positions never loads it)."""
    from engine.game import new_game

    return new_game(match)


BACKGAMMON = Variant(
    name="backgammon",
    title="backgammon",
    start=engine.board.START,
    afterstates=engine.movegen.afterstates,
    flip=engine.board.flip,
    winning_points=backgammon_points,
    position=Position,
    legal_plays=legal_plays,
    parse_play=parse_move,
    render=render_board,
    pip_counts=engine.board.pip_counts,
    validate_board=engine.board.validate_board,
    new_game=_new_backgammon_game,
)


def long_nardy_variant(rules: Rules | None = None) -> Variant:
    """Long nardy under the rule flags ``rules`` (default: ``DEFAULT_RULES``, docs/long_nardy.md)."""
    import engine.long_nardy as long_nardy
    from engine.long_nardy.rules import DEFAULT_RULES

    rules = DEFAULT_RULES if rules is None else rules
    return Variant(
        name="long_nardy",
        title="long nardy",
        start=long_nardy.START,
        afterstates=partial(long_nardy.afterstates, rules=rules),
        flip=long_nardy.flip,
        winning_points=long_nardy.winning_points,
        position=long_nardy.LongPosition,
        legal_plays=partial(long_nardy.legal_plays, rules=rules),
        parse_play=partial(long_nardy.parse_long_move, rules=rules),
        render=long_nardy.render_long_board,
        pip_counts=long_nardy.pip_counts,
        validate_board=long_nardy.validate_board,
        new_game=partial(long_nardy.new_long_game, rules=rules),
        outcome_names=("oin", "mars"),
        opening_doubles=rules.opening == "classic",
        rules=rules,
    )


def __getattr__(name: str) -> Any:
    """``LONG_NARDY`` (long nardy under the default rules) and ``VARIANTS`` (every variant, ``NAMES``' order), built
    on first use and kept: one ``Variant`` each, since a ``Variant`` is equal only to itself."""
    if name == "LONG_NARDY":
        value: Any = long_nardy_variant()
    elif name == "VARIANTS":
        value = (BACKGAMMON, _built("LONG_NARDY"))
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return globals().setdefault(name, value)  # a thread that lost a race takes the winner's


def _built(name: str) -> Any:
    """The module's lazily built ``name``, built now if it is not yet (inside the module, ``__getattr__`` is not
    consulted)."""
    return globals()[name] if name in globals() else __getattr__(name)


def find_variant(name: str) -> Variant:
    """The variant called ``name`` or one of its aliases (default rules); InvalidOptionError listing the names."""
    canonical = _ALIASES.get(_key(name)) if isinstance(name, str) else None
    if canonical is None:
        known = " or ".join(f"{spellings[0]} (or {', '.join(spellings[1:])})" for spellings in _SPELLINGS.values())
        raise InvalidOptionError(f"variant {quote(name)}: unknown, expected {known}")
    return BACKGAMMON if canonical == "backgammon" else _built("LONG_NARDY")
