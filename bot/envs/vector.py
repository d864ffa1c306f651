"""N games of ``nardy/Backgammon-v0`` or ``nardy/LongNardy-v0`` stepped in lockstep on the batched engine (a Gymnasium
``VectorEnv``).

Each game is the single environment's (``bot.envs.gym_env``): the agent in seat 0, cube-less
money games of one variant (``LongNardyVectorEnv`` plays long nardy) against one opponent, the
same observations, actions and rewards. A step
plays the N agents' moves, the opponents' replies in one batch, restarts the games that
ended (autoreset in the same step: ``metadata["autoreset_mode"]`` is ``SAME_STEP``; the
ended game's last observation is ``infos["final_obs"]``, where ``infos["_final_obs"]``),
and lists the legal plays of all N rolls in one generator call.
``infos["action_mask"]`` is (N, MAX_ACTIONS) int8, the caller's to keep (``bot.envs.games.PrefixMasks``
keeps them up to date in place). ``infos["legal_count"]`` (N,)
counts each game's legal actions, which are ``0 .. legal_count[i] - 1``: enough for agents
that sample or index them without reading the masks. ``moves`` (``bot.envs.games.Legal``)
holds every game's afterstates, in the agent's view, for learners that score afterstates.

``reset(seed=...)`` seeds the one generator all dice (and a random opponent) come from.
``reset(options={"position": ..., "dice": ...})`` starts every game from a position, the agent
on roll, as the single environment's does: one position (and roll) for all games, or one for
each; the games that end afterwards restart from the opening. Any other option is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from bot.envs.games import MAX_ACTIONS, Games, Legal, PrefixMasks, check_actions, game_of, legal, observe
from bot.envs.gym_env import observation_space, start_board, start_options
from bot.envs.opponents import OpponentSpec, default_opponent, opponent as make_opponent
from engine.board import validate_dice
from engine.variant import BACKGAMMON, Variant


class BackgammonVectorEnv(VectorEnv):
    """``num_envs`` money games, cube-less, of ``variant`` (backgammon unless named) of agents (seat 0) against
    ``opponent`` (``bot.envs.opponents.opponent``; default the game's hand-made player)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 64,
        opponent: OpponentSpec | None = None,
        render_mode: str | None = None,
        variant: str | Variant = BACKGAMMON,
    ) -> None:
        self.variant = game_of(variant)
        if render_mode is not None:
            raise ValueError(
                f"render_mode {render_mode!r}: the vector environment does not render (the single environment does)"
            )
        self.games = Games(num_envs, self.variant)
        self.num_envs = self.games.count
        self.opponent = make_opponent(default_opponent(self.variant) if opponent is None else opponent, self.variant)
        self.single_observation_space = observation_space()
        self.single_action_space = spaces.Discrete(MAX_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.moves: Legal | None = None  # the agents' legal plays, None before reset
        self._masks = PrefixMasks(self.num_envs)

    def _agent_boards(self) -> np.ndarray:
        """Every game's board in the agent's view: only boards the opponent sees (seat 1's) are turned, few after a
        step (the games it won)."""
        boards = self.games.boards.copy()
        theirs = np.flatnonzero(self.games.turn)
        boards[theirs] = self.variant.flip(boards[theirs])
        return boards

    def _opponents_move(self, index: np.ndarray) -> np.ndarray:
        """The opponents of games ``index`` (all on roll) play, in one batch; the points each won (0: game on)."""
        if len(index) == 0:
            return np.zeros(0, dtype=np.int64)
        boards, dice = np.take(self.games.boards, index, axis=0), np.take(self.games.dice, index, axis=0)
        moves = legal(boards, dice, self.variant)
        choice = self.opponent.choose(boards, dice, moves, self.np_random)
        _, points = self.games.advance(index, np.take(moves.children, moves.starts + choice, axis=0), self.np_random)
        return points

    def _start(self, index: np.ndarray) -> None:
        """New games at ``index``; where the opponent won the opening roll it makes its first play."""
        self.games.start(index, self.np_random)
        self._opponents_move(index[self.games.turn[index] == 1])

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        self.moves = legal(self.games.boards, self.games.dice, self.variant)
        sizes = self.moves.sizes
        infos = {"action_mask": self._masks.update(sizes), "legal_count": sizes.copy()}
        return observe(self.games.boards, self.games.dice), infos

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New games; ``options={"position": ..., "dice": ...}`` starts them from a position, the agents on roll.

        ``position``: a Position ID or a board (26,) in the agent's view for every game, or a sequence of
        ``num_envs`` of them; ``dice``: ``"31"`` or ``(3, 1)`` for every game, or ``num_envs`` of them, each
        game's rolled from the seeded generator when absent. Bad ones raise ``engine.errors`` errors, other
        options ValueError.
        """
        super().reset(seed=seed)
        position, dice = start_options(options)
        everyone = np.arange(self.num_envs)
        if position is None:
            self._start(everyone)
        else:
            boards = np.array([start_board(p, self.variant) for p in self._each_game(position, "position")])
            rolls = None if dice is None else np.array([validate_dice(d) for d in self._each_game(dice, "dice")])
            self.games.place(everyone, boards, rolls, self.np_random)
        return self._observe()

    def _each_game(self, value: Any, name: str) -> list[Any]:
        """A reset option's value for each game: its items, one a game, when it is a list or tuple of strings or
        sequences, a 2-D array or an array of strings; else ``value`` itself for all."""
        if isinstance(value, np.ndarray):
            many = value.ndim == 2 or (value.ndim == 1 and value.dtype.kind == "U")
        else:
            many = isinstance(value, (list, tuple)) and any(
                isinstance(v, (str, list, tuple, np.ndarray)) for v in value
            )
        if not many:
            return [value] * self.num_envs
        if len(value) != self.num_envs:
            raise ValueError(
                f"reset option {name!r}: {len(value)} of them for {self.num_envs} games; "
                "expected one for all or one a game"
            )
        return list(value)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self.moves is None:
            raise RuntimeError("no games on: call reset() first")
        moves = self.moves
        choice = check_actions(actions, moves)
        everyone = np.arange(self.num_envs)
        chosen = np.take(moves.children, moves.starts + choice, axis=0)
        over, points = self.games.advance(everyone, chosen, self.np_random)
        rewards = points.astype(np.float64)
        on = everyone[~over]
        lost = self._opponents_move(on)
        rewards[on] -= lost
        over[on] = lost > 0
        ended = everyone[over]
        final = observe(self._agent_boards(), None) if len(ended) else None
        self._start(ended)
        observations, infos = self._observe()
        if final is not None:
            infos["final_obs"], infos["_final_obs"] = final, over.copy()
        return observations, rewards, over, np.zeros(self.num_envs, dtype=bool), infos


class LongNardyVectorEnv(BackgammonVectorEnv):
    """``nardy/LongNardy-v0``'s vector form: ``BackgammonVectorEnv`` playing long nardy, against its heuristic player
    unless named."""

    def __init__(
        self,
        num_envs: int = 64,
        opponent: OpponentSpec | None = None,
        render_mode: str | None = None,
        variant: str | Variant = "long_nardy",
    ) -> None:
        super().__init__(num_envs, opponent, render_mode, variant)
