"""The opponents an environment's agent can face, each choosing plays for a batch of games at once.

An opponent answers ``choose(boards, dice, moves, rng)``: for each board (M, 26, the
opponent's own view, it is on roll) and roll (M, 2), the index of its play among the
afterstates of ``moves`` (``bot.envs.games.Legal``, in action order). ``opponent(spec, variant)``
builds one for a game of ``variant`` (backgammon unless named) from:

- ``"random"``: a uniformly random legal play (drawn from the environment's generator,
  so a seeded reset reproduces it);
- the game's hand-made player, its default: ``"pubeval"``, Tesauro's pubeval
  (``bot.evaluation.pubeval``), for backgammon; ``"heuristic"``
  (``bot.evaluation.long_nardy_heuristic``) for long nardy; both batched;
- a playing level of ``bot.play.levels`` (``"beginner"`` .. ``"world-class"``): the game's shipped
  bot (``Bot.load(variant=...)``) at that level, as
  ``bot.play.levels.LevelPlayer`` plays money games (the level's search depth, its noise on
  each play's equity drawn from the afterstate), every board of the batch at once;
- a ``bot.evaluation.evaluator.Evaluator`` of the game (its best-scored play, batched), a
  ``bot.play.levels.LevelPlayer``, or a ``bot.play.match_play.Player`` (anything with
  ``choose_play(board, dice, state)``);
- any callable ``f(board, dice, afterstates) -> int``: the board (26,) in its own view, the
  dice as a tuple, the afterstates (n, 26) in action order; it returns an action index.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Protocol, Union

import numpy as np

from bot.equity.cube import CubeState
from bot.evaluation.evaluator import Evaluator, ProbabilityEvaluator, best_children
from bot.evaluation.long_nardy_heuristic import HeuristicPlayer
from bot.evaluation.pubeval import Pubeval
from bot.facade import Bot, search_filters
from bot.play.levels import EQUITY_NOISE, LEVEL_NAMES, Level, LevelPlayer, level_named, level_noise
from bot.search.nply import SearchEvaluator
from bot.envs.games import Legal
from engine.variant import BACKGAMMON, Variant

PlayFunction = Callable[[np.ndarray, tuple[int, int], np.ndarray], int]
MONEY = CubeState()


class Opponent(Protocol):
    """Chooses one play per board of a batch: the index into that board's afterstates."""

    name: str

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: Legal, rng: np.random.Generator) -> np.ndarray:
        """(M,) action indices for boards (M, 26, the chooser's view) and dice (M, 2)."""
        ...


class RandomOpponent:
    """Any legal play, each with the same chance."""

    name = "random"

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: Legal, rng: np.random.Generator) -> np.ndarray:
        return (rng.random(len(boards)) * moves.sizes).astype(np.int64)


class EvaluatorOpponent:
    """The best-scored play of an evaluator (higher = better for the mover), the whole batch in one call."""

    def __init__(self, evaluator: Evaluator, name: str) -> None:
        self.evaluator, self.name = evaluator, name

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: Legal, rng: np.random.Generator) -> np.ndarray:
        if len(boards) == 0:
            return np.zeros(0, dtype=np.int64)
        scores = self.evaluator.afterstate_scores(boards, moves.children, moves.parent)
        return best_children(scores, moves.parent, len(boards)) - moves.starts


class LevelOpponent:
    """A network at a playing level, the whole batch at once: ``LevelPlayer``'s money play (the best equity at the
    level's depth, plus its noise drawn from each afterstate) for either game."""

    def __init__(self, evaluator: ProbabilityEvaluator, level: Level, name: str) -> None:
        self.level, self.name = level, name
        self.evaluator: Evaluator = (
            evaluator
            if level.plies == 0
            else SearchEvaluator(evaluator, level.plies, search_filters(game=evaluator.game))
        )

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: Legal, rng: np.random.Generator) -> np.ndarray:
        if len(boards) == 0:
            return np.zeros(0, dtype=np.int64)
        scores = self.evaluator.afterstate_scores(boards, moves.children, moves.parent)
        if self.level.noise:
            scores = scores + EQUITY_NOISE * level_noise(self.level, moves.children, "play", rng)
        return best_children(scores, moves.parent, len(boards)) - moves.starts


class PlayerOpponent:
    """A player of ``bot.play.match_play`` (or a ``LevelPlayer``), asked board by board; its play's afterstate is looked
    up."""

    def __init__(self, player: object, name: str) -> None:
        if not callable(getattr(player, "choose_play", None)):
            raise TypeError(f"opponent {player!r}: expected an object with choose_play(board, dice, state)")
        self.player, self.name = player, name

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: Legal, rng: np.random.Generator) -> np.ndarray:
        out = np.zeros(len(boards), dtype=np.int64)
        for i, board in enumerate(boards):
            roll = (int(dice[i, 0]), int(dice[i, 1]))
            play = self.player.choose_play(board, roll, MONEY)  # type: ignore[attr-defined]
            out[i] = action_of(moves.of(i), play.afterstate)
        return out


class FunctionOpponent:
    """A callable ``f(board, dice, afterstates) -> int``, asked board by board; its answer is checked."""

    def __init__(self, function: PlayFunction, name: str) -> None:
        self.function, self.name = function, name

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: Legal, rng: np.random.Generator) -> np.ndarray:
        out = np.zeros(len(boards), dtype=np.int64)
        for i, board in enumerate(boards):
            options = moves.of(i)
            answer = self.function(board.copy(), (int(dice[i, 0]), int(dice[i, 1])), options.copy())
            if isinstance(answer, bool) or not isinstance(answer, (int, np.integer)) or not 0 <= answer < len(options):
                raise ValueError(
                    f"opponent {self.name}: answered {answer!r}, expected an action index 0..{len(options) - 1}"
                )
            out[i] = int(answer)
        return out


def action_of(options: np.ndarray, afterstate: np.ndarray) -> int:
    """The index of ``afterstate`` among ``options`` (n, 26); ValueError when it is not one of them."""
    found = np.flatnonzero(np.all(options == np.asarray(afterstate, dtype=np.int8)[None], axis=1))
    if len(found) == 0:
        raise ValueError(f"afterstate {np.asarray(afterstate).tolist()}: not a legal play of this roll")
    return int(found[0])


@lru_cache(maxsize=4)
def shipped_bot(variant: Variant = BACKGAMMON) -> Bot:
    """The shipped bot of ``variant``, loaded once per process (``bot.facade.Bot.load``)."""
    return Bot.load(variant=variant)


OpponentSpec = Union[str, Evaluator, LevelPlayer, PlayFunction, Opponent, object]

# Each game's hand-made players by name, the first its environments' default opponent.
HAND_MADE: dict[str, dict[str, Callable[[Variant], Evaluator]]] = {
    "backgammon": {"pubeval": lambda variant: Pubeval()},
    "long_nardy": {"heuristic": HeuristicPlayer},
}


def default_opponent(variant: Variant) -> str:
    """The name of the opponent an environment of ``variant`` plays when none is given: its hand-made player."""
    return next(iter(HAND_MADE[variant.name]))


def opponent(spec: OpponentSpec, variant: Variant = BACKGAMMON) -> Opponent:
    """The opponent ``spec`` names for a game of ``variant`` (see the module's docstring); ValueError or TypeError for
    anything else, and ValueError for an evaluator of the other game."""
    if isinstance(spec, str):
        key = spec.strip().lower()
        hand_made = HAND_MADE[variant.name]
        if key == "random":
            return RandomOpponent()
        if key in hand_made:
            return EvaluatorOpponent(hand_made[key](variant), key)
        try:
            level = level_named(spec)
        except ValueError:
            names = ", ".join(repr(name) for name in ("random", *hand_made))
            raise ValueError(
                f"opponent {spec!r}: expected {names}, a level ({', '.join(LEVEL_NAMES)}) for {variant.title}, "
                "an evaluator, a player or a function"
            ) from None
        bot = shipped_bot(variant)
        return LevelOpponent(bot.evaluator, level, f"{bot.name}-{level.name}")
    if callable(getattr(spec, "choose", None)):
        return spec  # type: ignore[return-value]
    if isinstance(spec, Evaluator):
        if spec.game.name != variant.name:
            raise ValueError(f"opponent {type(spec).__name__}: scores {spec.game.title} boards, not {variant.title}")
        return EvaluatorOpponent(spec, type(spec).__name__)
    if callable(getattr(spec, "choose_play", None)):
        return PlayerOpponent(spec, str(getattr(spec, "name", type(spec).__name__)))
    if callable(spec):
        return FunctionOpponent(spec, getattr(spec, "__name__", "function"))  # type: ignore[arg-type]
    raise TypeError(
        f"opponent {spec!r}: expected 'random', {', '.join(repr(n) for n in HAND_MADE[variant.name])}, a level name, "
        "an evaluator, a player or a function f(board, dice, afterstates) -> action"
    )
