"""Playing levels, as GNU Backgammon's: a search depth plus noise on the equities the bot decides by.

``LEVELS`` names them from ``beginner`` to ``world-class``, with GNU Backgammon 1.07's
settings (0-ply with Gaussian noise of standard deviation 0.060, 0.050, 0.040, 0.015,
0 on each equity; world class 2-ply without noise). ``LevelPlayer`` plays at a level:

- GNU Backgammon adds noise of standard deviation ``noise`` to each of the five output
  probabilities; the cubeless equity 2 P(win) - 1 + P(wg) + P(wbg) - P(lg) - P(lbg) then
  moves by noise of deviation sqrt(8) x ``noise`` (``EQUITY_NOISE``), which is what
  decides the play;
- checker play: every legal play ranked (``Bot.rank_plays``), that equity noise added to
  each play's value (the mover's equity; in a match its MWC, the noise scaled from equity
  to MWC at the score), the best noisy value played;
- cube: P(win) of the side on roll moves by noise of deviation ``noise`` before
  ``bot.equity.cube`` decides double, take or pass.

A deterministic level (all of GNU Backgammon's are) draws its noise from the position
itself (a hash of the board, with a salt), so the same position always gets the same
play, as GNU Backgammon does; otherwise from ``rng``. Boards and states are in the view
of the side on roll (for a take: the doubler's), as everywhere in ``bot``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from bot.equity.cube import CubeDecision, CubeState, MatchScore, cube_decision
from bot.facade import Bot
from engine.board import Dice
from engine.errors import BackgammonError
from engine.plays import Play


# Equity noise per unit of noise on each output (coefficients 2, 1, 1, -1, -1 of the equity).
EQUITY_NOISE = math.sqrt(8.0)


class InvalidLevelError(BackgammonError):
    """A playing level that is not one of ``LEVELS``."""


@dataclass(frozen=True)
class Level:
    """A playing level: search depth, noise (standard deviation, in equity), and whether the noise is a
    function of the position."""

    name: str
    plies: int
    noise: float
    deterministic: bool = True


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", 0, 0.060),
        Level("casual", 0, 0.050),
        Level("intermediate", 0, 0.040),
        Level("advanced", 0, 0.015),
        Level("expert", 0, 0.0),
        Level("world-class", 2, 0.0),
    )
}
LEVEL_NAMES = tuple(LEVELS)


def level_named(name: str) -> Level:
    """The level called ``name`` (``world_class`` and ``World Class`` read too); raise InvalidLevelError."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    if key not in LEVELS:
        raise InvalidLevelError(f"level {name!r}: expected one of {', '.join(LEVEL_NAMES)}")
    return LEVELS[key]


def board_noise(boards: np.ndarray, salt: str, sigma: float) -> np.ndarray:
    """(N,) standard normal draws times ``sigma``, one per board (N, 26), each a fixed function of
    (board, salt): the same board and salt always get the same noise."""
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    out = np.empty(len(boards))
    for i, board in enumerate(boards):
        digest = hashlib.blake2b(board.tobytes() + salt.encode(), digest_size=8).digest()
        out[i] = np.random.default_rng(int.from_bytes(digest, "little")).standard_normal()
    return sigma * out


def level_noise(level: Level, boards: np.ndarray, salt: str, rng: np.random.Generator) -> np.ndarray:
    """(N,) the level's noise on boards (N, 26): a fixed function of (board, salt) for a deterministic level,
    fresh draws from ``rng`` otherwise, zeros without noise."""
    boards = np.asarray(boards).reshape(-1, 26)
    if level.noise == 0.0:
        return np.zeros(len(boards))
    if level.deterministic:
        return board_noise(boards, f"{level.name}:{salt}", level.noise)
    return level.noise * rng.standard_normal(len(boards))


class LevelPlayer:
    """The bot at a playing ``level``: a ``bot.play.match_play.Player``."""

    def __init__(
        self, bot: Bot, level: Level, rng: Optional[np.random.Generator] = None, name: Optional[str] = None
    ) -> None:
        self.bot, self.level = bot, level
        self.rng = rng if rng is not None else np.random.default_rng()
        self.name = name or f"{bot.name}-{level.name}"

    def _noise(self, boards: np.ndarray, salt: str) -> np.ndarray:
        return level_noise(self.level, boards, salt, self.rng)

    def choose_play(self, board: np.ndarray, dice: Dice, state: CubeState) -> Play:
        """The play of ``dice`` with the best noisy value (the mover's view)."""
        ranked = self.bot.rank_plays(board, dice, plies=self.level.plies, state=state)
        if self.level.noise == 0.0 or len(ranked) == 1:
            return ranked[0].play
        scale = 1.0
        if state.match_length:
            score = MatchScore.of(state)
            scale = (score.after(state.cube) - score.after(-state.cube)) / 2.0  # equity -> MWC at this cube
        values = np.array([r.mwc if r.mwc is not None else r.equity for r in ranked], dtype=np.float64)
        deepest = np.array([r.plies for r in ranked]) == ranked[0].plies
        noise = EQUITY_NOISE * scale * self._noise(np.stack([r.afterstate for r in ranked]), "play")
        noisy = np.where(deepest, values + noise, -np.inf)
        return ranked[int(np.argmax(noisy))].play

    def cube_decision(self, board: np.ndarray, state: CubeState, salt: str = "double") -> CubeDecision:
        """The side on roll's cube decision from noisy probabilities (P(win) moved by the level's noise).

        ``salt`` tells the doubler's noise (``"double"``) from the taker's (``"take"``). Without
        noise, the bot's decision at the level's depth (exact in the bear-off database, a cubeful
        lookahead deeper than 0-ply).
        """
        shift = float(self._noise(board, salt)[0])
        if not shift:
            return self.bot.cube_decision(board, state, self.level.plies)
        five = self.bot.probabilities(board, self.level.plies).astype(np.float64)
        five[0] = np.clip(five[0] + shift, five[1], 1.0 - five[3])
        efficiency = float(self.bot.cube_efficiencies(np.asarray(board)[None])[0])  # the game's own cube model
        return cube_decision(board, five, state, self.bot.match_table(state), efficiency=efficiency)

    def should_double(self, board: np.ndarray, state: CubeState) -> bool:
        return self.cube_decision(board, state).should_double

    def should_take(self, board: np.ndarray, state: CubeState) -> bool:
        return self.cube_decision(board, state, "take").should_take
