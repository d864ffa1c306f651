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
from typing import Callable

import numpy as np

import engine
import engine.long_nardy as long_nardy
from engine.long_nardy.board import CHECKERS
from engine.long_nardy.rules import DEFAULT_RULES, Rules
from engine.match import winning_points as backgammon_points

Generator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def long_nardy_points(boards: np.ndarray) -> np.ndarray:
    """(N,) points at cube 1 of finished long nardy boards (N, 26) seen by the winner (no checker left).

    Mars (2) when the loser has borne off none, else oin (1): rule R12, no koks.
    """
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


BACKGAMMON = Game("backgammon", engine.START, engine.afterstates, engine.flip, backgammon_points)


def long_nardy_game(rules: Rules = DEFAULT_RULES) -> Game:
    """Long nardy under the rule flags ``rules`` (docs/long_nardy.md)."""
    return Game(
        "long_nardy",
        long_nardy.START,
        partial(long_nardy.afterstates, rules=rules),
        long_nardy.flip,
        long_nardy_points,
        opening_doubles=rules.opening == "classic",
        rules=rules,
    )


LONG_NARDY = long_nardy_game()

GAMES: dict[str, Game] = {game.name: game for game in (BACKGAMMON, LONG_NARDY)}


def get_game(name: str) -> Game:
    """The game called ``name`` (default rules); raise ValueError listing the known ones otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"game {name!r}: unknown, expected one of {sorted(GAMES)}") from None
