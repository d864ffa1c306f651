"""Backgammon or long nardy for two agents as a PettingZoo AEC environment, so that self-play libraries drive both
sides.

``env(variant="long")`` (any name ``engine.variant.find_variant`` reads; backgammon unless named) plays
long nardy, named ``nardy_long_nardy_v0`` in its metadata (``nardy_backgammon_v0`` for backgammon).
Agents ``player_0`` and ``player_1`` (seats 0 and 1) play one cube-less money game; the
opening roll decides who moves first. ``observe(agent)`` is a dict, as PettingZoo's classic
games give: ``"observation"``, the 30 int8 values of ``bot.envs.games`` in that agent's
own view (the dice only when it is on roll), and ``"action_mask"`` (int8, ``MAX_ACTIONS``
long; all zero when it is not on roll). Actions, masks and rewards are those of
``nardy/Backgammon-v0`` and ``nardy/LongNardy-v0``: an index into the afterstates of the roll, and at the end the
points won and lost (1, 2, 3; long nardy's oin and mars 1, 2). A roll that cannot be played is still a turn, action 0.
``reset(seed=...)`` seeds the dice. ``env()`` ends the game on an action outside the mask, the
agent who took it losing 1 and the other 0, with PettingZoo's warning, as PettingZoo's classic
games do (its ``TerminateIllegalWrapper``); ``raw_env`` raises ValueError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from bot.envs.draw import draw_board
from bot.envs.games import MAX_ACTIONS, Games, Legal, check_actions, game_of, legal, observe
from bot.envs.gym_env import observation_space
from engine.variant import BACKGAMMON, Variant

AGENTS = ("player_0", "player_1")
RENDER_MODES = ("ansi", "rgb_array")


class raw_env(AECEnv):
    """Two agents, one game of ``variant``; boards shown to each agent in its own view (``bot.envs.games``)."""

    metadata: dict[str, Any] = {
        "render_modes": list(RENDER_MODES),
        "name": "nardy_backgammon_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, render_mode: str | None = None, variant: str | Variant = BACKGAMMON) -> None:
        super().__init__()
        self.variant = game_of(variant)
        self.metadata = {**self.metadata, "name": f"nardy_{self.variant.name}_v0"}
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: expected None, 'ansi' or 'rgb_array'")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        mask = spaces.Box(low=0, high=1, shape=(MAX_ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation_space(), "action_mask": mask}) for a in AGENTS
        }
        self.action_spaces = {a: spaces.Discrete(MAX_ACTIONS) for a in AGENTS}
        self.games = Games(1, self.variant)
        self.moves: Legal | None = None  # the legal plays of the agent on roll; None when the game is over
        self._rng, _ = seeding.np_random()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _board(self, seat: int) -> np.ndarray:
        board = self.games.boards[0]
        return board if self.games.turn[0] == seat else self.variant.flip(board)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        on_roll = self.moves is not None and self.games.turn[0] == seat
        observation = observe(self._board(seat)[None], self.games.dice if on_roll else None)[0]
        mask = self.moves.masks()[0] if on_roll and self.moves is not None else np.zeros(MAX_ACTIONS, np.int8)
        return {"observation": observation, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng, _ = seeding.np_random(seed)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.games.start(np.zeros(1, dtype=np.int64), self._rng)
        self.moves = legal(self.games.boards, self.games.dice, self.variant)
        self.agent_selection = AGENTS[int(self.games.turn[0])]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self.moves is None:
            raise RuntimeError("no game on: call reset() first")
        choice = check_actions(np.array([action]).reshape(1), self.moves)[0]
        self._cumulative_rewards[agent] = 0.0
        over, points = self.games.advance(np.zeros(1, np.int64), self.moves.of(0)[choice][None], self._rng)
        if over[0]:
            other = AGENTS[1 - AGENTS.index(agent)]
            self.rewards = {agent: float(points[0]), other: -float(points[0])}
            self.terminations = {a: True for a in AGENTS}
            self.moves = None
        else:
            self.rewards = {a: 0.0 for a in AGENTS}
            self.moves = legal(self.games.boards, self.games.dice, self.variant)
            self.agent_selection = AGENTS[int(self.games.turn[0])]
        self._accumulate_rewards()

    def render(self) -> Any:
        """'ansi': the board as text; 'rgb_array': an image; both in the view of the agent on roll
        (``agent_selection``)."""
        seat = AGENTS.index(self.agent_selection)
        dice = (int(self.games.dice[0, 0]), int(self.games.dice[0, 1])) if self.moves is not None else None
        board = self._board(seat)
        if self.render_mode == "ansi":
            return self.variant.render(board, dice=dice, names=(self.agent_selection, AGENTS[1 - seat]))
        if self.render_mode == "rgb_array":
            return draw_board(board, dice, self.variant)
        return None

    def close(self) -> None:
        pass


def env(render_mode: str | None = None, variant: str | Variant = BACKGAMMON) -> AECEnv:
    """``raw_env`` of ``variant`` inside the wrappers of PettingZoo's classic games (an illegal action loses, actions
    in bounds, reset before step)."""
    wrapped: AECEnv = raw_env(render_mode=render_mode, variant=variant)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
