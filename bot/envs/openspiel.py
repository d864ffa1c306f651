"""The bot in OpenSpiel: a ``pyspiel.Bot`` that plays OpenSpiel's own ``backgammon``, and a rules cross-check.

OpenSpiel's state is mapped to the engine's board (``engine_board``): its player 0 ("x")
moves from position 0 towards 23, so its point p is position 24 - p; player 1 ("o") moves
from 23 towards 0, its point p is position p - 1; ``board(player, 100)`` is a bar.

OpenSpiel plays a roll as one action of two checker moves, and a double as two such
actions by the same player (the second an "extra turn"). So a whole turn's afterstate is
reached by one action, or by two for a double; ``turn_afterstates`` lists every afterstate
a decision can lead to by the end of the turn, with the action that starts the way there.
``NardyBot`` asks the bot (at a playing level, ``bot.play.levels``) for its play of the whole
roll from the board at the start of the turn and takes the action that leads to it.

``compare_rules`` is the cross-check: at the start of a turn, the afterstates OpenSpiel
allows against ``engine.afterstates``. docs/envs.md says where they differ and why.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pyspiel

from bot.equity.cube import CubeState
from bot.envs.opponents import shipped_bot
from bot.facade import Bot
from bot.play.levels import LevelPlayer, level_named
from engine import afterstates

BAR_POSITION = 100
POINTS = np.arange(1, 25)
MONEY = CubeState()


def _positions(player: int) -> np.ndarray:
    """OpenSpiel's position of each of ``player``'s points 1..24."""
    return 24 - POINTS if player == 0 else POINTS - 1


def engine_board(state: pyspiel.State, player: int) -> np.ndarray:
    """(26,) int8: ``state``'s checkers in ``player``'s view (it moves 24 -> 1), docs/DESIGN.md's convention."""
    return _boards([state.observation_tensor(player)], player)[0]


def _boards(tensors: list[list[float]], player: int) -> np.ndarray:
    """(M, 26) int8 boards in ``player``'s view from OpenSpiel observation tensors taken for ``player``."""
    tensor = np.asarray(tensors, dtype=np.float32).reshape(len(tensors), -1)
    # Per position: [one, two, three, more than three (count - 3)], the observer's 24 then the other's 24.
    units = tensor[:, :192].reshape(-1, 2, 24, 4)
    counts = units[..., 0] + 2 * units[..., 1] + 3 * units[..., 2] + np.where(units[..., 3] > 0, units[..., 3] + 3, 0)
    where = _positions(player)
    boards = np.zeros((len(tensor), 26), dtype=np.int8)
    boards[:, 1:25] = counts[:, 0, where] - counts[:, 1, where]
    boards[:, 25] = tensor[:, 192]
    boards[:, 0] = -tensor[:, 195]
    return boards


def state_dice(state: pyspiel.State) -> tuple[int, int]:
    """The dice of the roll being played (as OpenSpiel's observation tensor holds them)."""
    tensor = state.observation_tensor(state.current_player())
    return int(tensor[-2]), int(tensor[-1])


def turn_start(state: pyspiel.State) -> pyspiel.State:
    """The state where the current player's turn began: ``state`` itself, or before the first half of a double."""
    history = state.full_history()
    if history and history[-1].player == state.current_player():
        start = state.clone()
        start.undo_action(history[-1].player, history[-1].action)
        return start
    return state


def turn_afterstates(state: pyspiel.State) -> dict[bytes, int]:
    """Every afterstate (bytes of the mover's 26 int8 values) the current decision can reach by the end of the
    turn, with the legal action to take now on the way there (the first found)."""
    player = state.current_player()
    tensors, actions = [], []
    halfway: set[bytes] = set()  # boards after a double's first half whose second halves are listed
    for action in state.legal_actions():
        child = state.child(action)
        if child.current_player() != player:
            tensors.append(child.observation_tensor(player))
            actions.append(action)
            continue
        board = engine_board(child, player).tobytes()  # the first half of a double: the second half follows
        if board not in halfway:
            halfway.add(board)
            for second in child.legal_actions():
                tensors.append(child.child(second).observation_tensor(player))
                actions.append(action)
    reached: dict[bytes, int] = {}
    for board_bytes, action in zip(map(bytes, _boards(tensors, player)), actions):
        reached.setdefault(board_bytes, action)
    return reached


def compare_rules(state: pyspiel.State) -> tuple[set[bytes], set[bytes]]:
    """At the start of a turn: (afterstates OpenSpiel allows that the engine does not, the engine's that OpenSpiel
    lacks)."""
    player = state.current_player()
    board = engine_board(state, player)
    children, _ = afterstates(board[None], np.array([state_dice(state)]))
    theirs = set(turn_afterstates(state))
    ours = {child.tobytes() for child in children}
    return theirs - ours, ours - theirs


class NardyBot(pyspiel.Bot):
    """The bot at a playing ``level`` (default ``"expert"``: 0-ply, no noise) in OpenSpiel's ``backgammon``.

    ``fallbacks`` counts the decisions where the bot's play was not among OpenSpiel's (its
    rules differ, docs/envs.md): the bot then takes the best of OpenSpiel's by its 0-ply equity.
    """

    def __init__(
        self,
        player_id: int,
        level: str = "expert",
        bot: Optional[Bot] = None,
        rng: Optional[np.random.Generator] = None,
    ) -> None:
        pyspiel.Bot.__init__(self)
        if player_id not in (0, 1):
            raise ValueError(f"player_id {player_id!r}: expected 0 or 1")
        self.player_id = player_id
        self.bot = bot if bot is not None else shipped_bot()
        self.player = LevelPlayer(self.bot, level_named(level), rng)
        self.fallbacks = 0
        self._plan: tuple[bytes, bytes] | None = None  # (board at the turn's start, chosen afterstate)

    def restart_at(self, state: pyspiel.State) -> None:
        self._plan = None

    def step(self, state: pyspiel.State) -> int:
        """The action of the bot's play of the whole roll (or of its second half, in a double's extra turn)."""
        if state.current_player() != self.player_id:
            raise ValueError(f"NardyBot for player {self.player_id} asked to move for player {state.current_player()}")
        start = turn_start(state)
        board = engine_board(start, self.player_id)
        if self._plan is None or self._plan[0] != board.tobytes():
            play = self.player.choose_play(board, state_dice(start), MONEY)
            self._plan = (board.tobytes(), play.afterstate.tobytes())
        reached = turn_afterstates(state)
        if self._plan[1] in reached:
            return reached[self._plan[1]]
        self.fallbacks += 1
        options = list(reached)
        children = np.frombuffer(b"".join(options), dtype=np.int8).reshape(-1, 26)
        scores = self.bot.evaluator.afterstate_scores(board[None], children, np.zeros(len(children), dtype=np.int64))
        return reached[options[int(np.argmax(scores))]]
