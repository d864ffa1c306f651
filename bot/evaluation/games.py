"""The games the bot plays on the one engine: backgammon and long nardy, as records of their rules' functions.

Evaluators, move choice, search, self-play and evaluation games differ between the
two games only in these: the start, the batched afterstate generator, turning a board
to the other side's view, the points of a finished game and whether the first roll
may be a double. A ``Game`` holds them, so that those parts take a game instead of
importing backgammon's functions. Boards are (B, 26) int8 in the view of the side
that moves (docs/DESIGN.md) in both games.

Both games score a finished game 1 or 2 points (a gammon; long nardy's mars), and
backgammon also 3 (a backgammon, which long nardy lacks): the five probabilities of
docs/DESIGN.md describe both, with the two backgammon entries always 0 in long nardy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

import engine.board
import engine.movegen
from engine.match import winning_points as backgammon_points

if TYPE_CHECKING:
    from engine.long_nardy.rules import Rules

    # Built on first use (module ``__getattr__``): a backgammon program never loads long nardy's rules.
    LONG_NARDY: Game
    GAMES: dict[str, Game]

Generator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def long_nardy_points(boards: np.ndarray) -> np.ndarray:
    """(N,) points at cube 1 of finished long nardy boards (N, 26) seen by the winner (no checker left).

    Mars (2) when the loser has borne off none, else oin (1): rule R12, no koks.
    """
    from engine.long_nardy.board import CHECKERS

    loser_on_board = -np.minimum(boards, 0).sum(axis=-1, dtype=np.int64)
    return 1 + (loser_on_board == CHECKERS).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Game:
    """One game's rules as the bot and training use them; boards in the mover's view. Equal only to itself."""

    # "backgammon" or "long_nardy": the name configs and network encodings use.
    name: str
    # The position before the first move, seen by the side that moves first.
    start: np.ndarray = field(repr=False)
    # ``afterstates(boards (B, 26), dice (B, 2))`` -> (children (N, 26), parent (N,)), mover's view.
    afterstates: Generator = field(repr=False)
    # The same boards seen by the other side.
    flip: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    # (N,) points 1, 2 or 3 of finished boards (N, 26) seen by the winner.
    winning_points: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    # Whether the first roll of a game may be a double (backgammon's opening and long nardy's
    # "sport" opening play the two single dice thrown to decide who starts: never a double).
    opening_doubles: bool = False
    # The long nardy rule flags of this game (None for backgammon).
    rules: Rules | None = None

    def finished_probabilities(self, afterstates: np.ndarray) -> np.ndarray:
        """(N, 5) exact probabilities, for the winner, of afterstates where the mover has borne off all 15."""
        points = self.winning_points(afterstates)
        five = np.zeros((len(afterstates), 5), dtype=np.float32)
        five[:, 0] = 1.0
        five[:, 1] = points >= 2
        five[:, 2] = points >= 3
        return five


BACKGAMMON = Game("backgammon", engine.board.START, engine.movegen.afterstates, engine.board.flip, backgammon_points)


def long_nardy_game(rules: Rules | None = None) -> Game:
    """Long nardy under the rule flags ``rules`` (default: ``DEFAULT_RULES``, docs/long_nardy.md)."""
    import engine.long_nardy as long_nardy
    from engine.long_nardy.rules import DEFAULT_RULES

    rules = DEFAULT_RULES if rules is None else rules
    return Game(
        "long_nardy",
        long_nardy.START,
        partial(long_nardy.afterstates, rules=rules),
        long_nardy.flip,
        long_nardy_points,
        opening_doubles=rules.opening == "classic",
        rules=rules,
    )


def __getattr__(name: str) -> Any:
    """``LONG_NARDY`` (long nardy under the default rules) and ``GAMES`` (every game by name), built on first use
    and kept: one ``Game`` each, since a ``Game`` is equal only to itself."""
    if name == "LONG_NARDY":
        value: Any = long_nardy_game()
    elif name == "GAMES":
        value = {game.name: game for game in (BACKGAMMON, _built("LONG_NARDY"))}
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return globals().setdefault(name, value)  # a thread that lost a race takes the winner's


def _built(name: str) -> Any:
    """The module's lazily built ``name``, built now if it is not yet (inside the module, ``__getattr__`` is not
    consulted)."""
    return globals()[name] if name in globals() else __getattr__(name)


def get_game(name: str) -> Game:
    """The game called ``name`` (default rules); raise ValueError listing the known ones otherwise."""
    games: dict[str, Game] = _built("GAMES")
    try:
        return games[name]
    except KeyError:
        raise ValueError(f"game {name!r}: unknown, expected one of {sorted(games)}") from None
