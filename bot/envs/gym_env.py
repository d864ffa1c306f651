"""``nardy/Backgammon-v0`` and ``nardy/LongNardy-v0``: one agent plays cube-less money games against a fixed opponent
(Gymnasium).

Both games are one environment, ``BackgammonEnv(variant=...)`` (``engine.variant``; ``LongNardyEnv``
is the same for long nardy), and differ only in their rules: the board has no bar in long
nardy, and a game scores oin or mars (1 or 2) where backgammon's scores 1, 2 or 3.

The agent sits in seat 0; the opening roll decides who moves first (when the opponent
does, its first play is made inside ``reset``). Every observation the agent gets is
its own view, on roll (``bot.envs.games``: board, dice larger first, the cube at 1 in
the centre). An action indexes the afterstates of the roll in the batched generator's
order; ``info["action_mask"]`` (int8, ``MAX_ACTIONS`` long) marks the legal ones and
``info["afterstates"]`` holds them ((n, 26), the agent's view right after its play).
A roll that cannot be played still takes one step, action 0 (the board unchanged).
``step`` plays the agent's move, then the opponent's reply; the reward is 0 until the
game ends, then the points won (+1, +2, +3) or lost (-1, -2, -3): single, gammon, backgammon
(long nardy: 1 oin, 2 mars).

An action of the action space outside the mask ends the game as a single game (oin) lost (reward -1,
``info["illegal_action"]`` True) with an ``IllegalActionWarning``, as PettingZoo's classic games
do, so that Gymnasium's ``check_env`` and learners that sample the whole action space play on;
``illegal_action="raise"`` raises ValueError instead. Anything that is not an action of the
space (an integer 0..MAX_ACTIONS-1) raises ValueError either way.

``reset(seed=...)`` seeds the one generator every die (and a random opponent) is drawn
from, so the same seed and actions replay the same game. ``reset(options={"position": ...,
"dice": ...})`` starts from a position instead (a Position ID of the game), the agent on roll.

>>> env = BackgammonEnv("pubeval")
>>> observation, info = env.reset(seed=0, options={"position": "4HPwATDgc/ABMA", "dice": "31"})
>>> int(info["action_mask"].sum()), observation[26:].tolist()
(16, [3, 1, 1, 0])
>>> env.move_for_action(env.action_for_move("8/5 6/5"))
'8/5 6/5'
>>> long = LongNardyEnv("random")
>>> _ = long.reset(seed=0, options={"position": "AAAB//wAAAP/+", "dice": "64"})
>>> long.opponent.name, long.move_for_action(0)
('random', '24/14')
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from bot.envs.draw import draw_board
from bot.envs.games import (
    MAX_ACTIONS,
    OBSERVATION_SIZE,
    Games,
    Legal,
    check_actions,
    game_of,
    legal,
    observation_bounds,
    observe,
)
from bot.envs.opponents import OpponentSpec, action_of, default_opponent, opponent as make_opponent
from bot.facade import check_game_on
from engine.board import validate_dice
from engine.errors import quote
from engine.variant import BACKGAMMON, Variant


class IllegalActionWarning(UserWarning):
    """An action outside the mask lost the game (``illegal_action="lose"``); filter it by this class."""


def observation_space() -> spaces.Box:
    """The Box of one observation (30 int8 values, ``bot.envs.games``)."""
    low, high = observation_bounds()
    return spaces.Box(low=low, high=high, shape=(OBSERVATION_SIZE,), dtype=np.int8)


class BackgammonEnv(gym.Env[np.ndarray, np.int64]):
    """Money games, cube-less, of ``variant`` (backgammon unless named; ``engine.variant.find_variant``'s names) of an
    agent (seat 0) against ``opponent`` (``bot.envs.opponents.opponent``; default the game's hand-made player)."""

    # Annotated as gym.Env's is: without it, where gymnasium's types are missing, the values' join is object.
    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        opponent: OpponentSpec | None = None,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        variant: str | Variant = BACKGAMMON,
    ) -> None:
        self.variant = game_of(variant)
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action {illegal_action!r}: expected 'raise' or 'lose'")
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected None, 'ansi' or 'rgb_array'")
        self.render_mode = render_mode
        self.opponent = make_opponent(default_opponent(self.variant) if opponent is None else opponent, self.variant)
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(MAX_ACTIONS)
        self.games = Games(1, self.variant)
        self.moves: Legal | None = None  # the agent's legal plays; None before reset and after the game

    # ------------------------------------------------------------ the agent's view

    @property
    def board(self) -> np.ndarray:
        """The board (26,) in the agent's view (on roll, or, once the game is over, as it ended)."""
        board = self.games.boards[0]
        return board if self.games.turn[0] == 0 else self.variant.flip(board)

    @property
    def dice(self) -> tuple[int, int] | None:
        """The agent's roll, None once the game is over."""
        return None if self.moves is None else (int(self.games.dice[0, 0]), int(self.games.dice[0, 1]))

    def _observation(self) -> tuple[np.ndarray, dict[str, Any]]:
        if self.moves is None:
            mask = np.zeros(MAX_ACTIONS, dtype=np.int8)
            return observe(self.board[None], None)[0], {"action_mask": mask, "afterstates": np.zeros((0, 26), np.int8)}
        info = {"action_mask": self.moves.masks()[0], "afterstates": self.moves.of(0).copy()}
        return observe(self.games.boards, self.games.dice)[0], info

    def _require_game(self) -> Legal:
        if self.moves is None:
            raise RuntimeError("no game on: call reset() first (the last game is over)")
        return self.moves

    # ------------------------------------------------------------ Gymnasium's API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game; ``options={"position": ..., "dice": ...}`` starts it from a position instead, the agent on roll.

        ``position``: a Position ID of the game (GNU Backgammon's, or long nardy's) or a board (26,) in the agent's
        view; ``dice``:
        ``"31"`` or ``(3, 1)``, rolled from the seeded generator when absent. Bad ones raise
        ``engine.errors.InvalidPositionError`` / ``InvalidDiceError``.
        """
        super().reset(seed=seed)
        position, dice = start_options(options)
        if position is not None:
            rolls = None if dice is None else np.array([validate_dice(dice)])
            board = start_board(position, self.variant)
            self.games.place(np.zeros(1, np.int64), board[None], rolls, self.np_random)
        else:
            self.games.start(np.zeros(1, dtype=np.int64), self.np_random)
            if self.games.turn[0] == 1:
                self._opponent_moves()
        self.moves = legal(self.games.boards, self.games.dice, self.variant)
        return self._observation()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        moves = self._require_game()
        index = _space_index(action)
        if self.illegal_action == "lose" and index >= moves.sizes[0]:
            warnings.warn(
                "illegal action: the game ends as a single game lost (reward -1); info['action_mask'] marks the "
                "legal actions, illegal_action='raise' raises instead",
                IllegalActionWarning,
                stacklevel=2,
            )
            self.moves = None
            observation, info = self._observation()
            return observation, -1.0, True, False, {**info, "illegal_action": True}
        choice = check_actions(np.array([index]), moves)[0]
        rng = self.np_random
        over, points = self.games.advance(np.zeros(1, np.int64), moves.of(0)[choice][None], rng)
        ended, reward = bool(over[0]), float(points[0])
        if not ended:
            lost = self._opponent_moves()
            ended, reward = lost > 0, -float(lost)
        self.moves = None if ended else legal(self.games.boards, self.games.dice, self.variant)
        observation, info = self._observation()
        return observation, reward, ended, False, info

    def _opponent_moves(self) -> int:
        """The opponent (on roll) plays; the points it won (0 if the game goes on)."""
        moves = legal(self.games.boards, self.games.dice, self.variant)
        choice = self.opponent.choose(self.games.boards, self.games.dice, moves, self.np_random)
        chosen = moves.children[moves.starts + choice]
        _, points = self.games.advance(np.zeros(1, np.int64), chosen, self.np_random)
        return int(points[0])

    def render(self) -> Any:
        """'ansi': the board as text (the game's ``Variant.render``); 'rgb_array': an image (``bot.envs.draw``). The
        agent's view."""
        if self.render_mode == "ansi":
            return self.variant.render(self.board, dice=self.dice, names=("agent", self.opponent.name))
        if self.render_mode == "rgb_array":
            return draw_board(self.board, self.dice, self.variant)
        return None

    # ------------------------------------------------------------ notation

    def action_for_move(self, move: str) -> int:
        """The action of a play in GNU Backgammon's notation (``"8/5 6/5"``, ``"bar/22*"``; ``""`` for no move).

        Raise ``engine.errors.InvalidMoveError`` / ``IllegalMoveError`` as the game's ``Variant.parse_play`` does.
        """
        moves = self._require_game()
        dice = self.dice
        assert dice is not None
        play = self.variant.parse_play(move, self.board, dice)
        return action_of(moves.of(0), play.afterstate)

    def move_for_action(self, action: int) -> str:
        """The play of ``action`` in GNU Backgammon's notation (``""`` when the roll cannot be played)."""
        moves = self._require_game()
        choice = check_actions(np.array([_space_index(action)]), moves)[0]
        dice = self.dice
        assert dice is not None
        return notation_of(self.board, dice, moves.of(0)[choice], self.variant)


class LongNardyEnv(BackgammonEnv):
    """``nardy/LongNardy-v0``: ``BackgammonEnv`` playing long nardy, against its heuristic player unless named."""

    def __init__(
        self,
        opponent: OpponentSpec | None = None,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        variant: str | Variant = "long_nardy",
    ) -> None:
        super().__init__(opponent, render_mode, illegal_action, variant)


def notation_of(board: np.ndarray, dice: tuple[int, int], afterstate: np.ndarray, variant: Variant = BACKGAMMON) -> str:
    """The play of ``dice`` on ``board`` (mover's view) that leads to ``afterstate``, in GNU Backgammon's notation."""
    for play in variant.legal_plays(board, dice):
        if np.array_equal(play.afterstate, afterstate):
            return variant.format_play(play)
    raise ValueError(f"afterstate {np.asarray(afterstate).tolist()}: not a legal play of {dice[0]}{dice[1]}")


def start_options(options: dict[str, Any] | None) -> tuple[Any, Any]:
    """The ``position`` and ``dice`` of ``reset(options=...)``, None where absent; ValueError naming any other key,
    or dice without a position."""
    rest = dict(options or {})
    position, dice = rest.pop("position", None), rest.pop("dice", None)
    if rest or (dice is not None and position is None):
        raise ValueError(f"reset options {sorted(rest) or ['dice']}: expected 'position' and, with it, 'dice'")
    return position, dice


def start_board(position: Any, variant: Variant = BACKGAMMON) -> np.ndarray:
    """The board (26,) of a reset option's position, a Position ID of ``variant`` or a board in the agent's view, with
    a game on; ``engine.errors.InvalidPositionError`` otherwise."""
    return check_game_on(variant.position.from_id(position).board if isinstance(position, str) else position, variant)


def _space_index(action: Any) -> int:
    """``action`` as an int if it is an integer index of the action space (0..MAX_ACTIONS-1); ValueError naming it
    otherwise."""
    value = np.asarray(action)
    if value.shape in ((), (1,)) and value.dtype.kind in "iu" and 0 <= int(value.reshape(-1)[0]) < MAX_ACTIONS:
        return int(value.reshape(-1)[0])
    raise ValueError(f"action {quote(action)}: expected an integer 0..{MAX_ACTIONS - 1}, an action of the space")
