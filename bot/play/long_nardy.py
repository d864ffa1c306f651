"""The long nardy bot: a self-trained network's move choice, 0-ply or 1-ply, and what the doors show of it.

A long nardy network is a ``bot.evaluation.network.Network`` on the ``long_nardy`` encoding; its
five probabilities are those of docs/DESIGN.md, whose backgammon entries no target ever
holds (long nardy has oin and mars only) and training drives to about 0, so a position's
value is the three ``[P(win), P(win mars), P(lose mars)]`` of the side on roll, and its
cubeless money equity ``2 P(win) - 1 + P(win mars) - P(lose mars)``. Plays are ranked by the generic
search (``bot.search.nply.rank_afterstates``) with the evaluator's game set to long nardy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.equity.cube import (
    RACE_EFFICIENCY_BASE,
    RACE_EFFICIENCY_MAX,
    RACE_EFFICIENCY_MIN,
    RACE_EFFICIENCY_PER_PIP,
    CubeDecision,
    CubeState,
    Owner,
    cube_decision,
)
from bot.evaluation.checkpoint import CheckpointError, load_network
from bot.evaluation.evaluator import NetworkEvaluator, ProbabilityEvaluator
from bot.facade import shipped_checkpoints
from engine.variant import LONG_NARDY, Variant, long_nardy_variant
from bot.equity.outcomes import equity, invert
from bot.search.nply import DEFAULT_FILTERS, Ranking, probabilities_at, rank_afterstates
from engine.board import Dice
from engine.plays import Play
from engine.long_nardy import encode_long_position_id, format_play, legal_plays, pip_counts, validate_board
from engine.long_nardy.rules import DEFAULT_RULES, Rules

# The columns of the five probabilities that long nardy has: win, win mars, lose mars.
THREE = [0, 1, 3]
# The shipped long nardy network's numpy export, in the repository (where it is trained and shipped).
DEFAULT_CHECKPOINT = Path(__file__).resolve().parents[2] / "checkpoints" / "long_nardy.npz"


def default_long_nardy_checkpoint() -> Path:
    """The long nardy network to load when none is named: ``long_nardy.npz`` beside the shipped
    backgammon bot, in the repository or an installation (``bot.facade.shipped_checkpoints``)."""
    places = [path.with_name(DEFAULT_CHECKPOINT.name) for path in shipped_checkpoints()]
    return next((path for path in places if path.is_file()), DEFAULT_CHECKPOINT)


def three_probabilities(five: np.ndarray) -> np.ndarray:
    """(..., 3) [P(win), P(win mars), P(lose mars)] of five probabilities (same side's view)."""
    return np.asarray(five)[..., THREE]


def load_long_nardy_player(path: str | os.PathLike | None = None, rules: Rules = DEFAULT_RULES) -> NetworkEvaluator:
    """The long nardy network stored at ``path`` (``.npz`` export or training ``.pt``) as an evaluator.

    Default: the shipped ``long_nardy.npz`` (``default_long_nardy_checkpoint``). A network of
    another game's encoding is a CheckpointError naming the file.
    """
    path = default_long_nardy_checkpoint() if path is None else Path(path)
    network = load_network(path)
    if network.encoding.game != "long_nardy":
        raise CheckpointError(
            f"checkpoint {str(path)!r}: a {network.encoding.game} network "
            f"(encoding {network.encoding.name!r}), not a long nardy one"
        )
    return NetworkEvaluator(network, LONG_NARDY if rules == DEFAULT_RULES else long_nardy_variant(rules))


@dataclass(frozen=True)
class RankedPlay:
    """One legal play of a roll with its value for the mover (the side that rolled), best first in a list."""

    move: str  # notation, e.g. "24/18 24/21"; "" when the roll cannot be played
    play: Play  # the checker steps, in the mover's numbering
    position_id: str  # the long nardy Position ID after the play, the opponent on roll
    probabilities: tuple[float, float, float]  # the mover's [P(win), P(win mars), P(lose mars)]
    equity: float  # the mover's cubeless money equity
    plies: int  # the search depth the values come from


def rank_plays(evaluator: ProbabilityEvaluator, board: np.ndarray, dice: Dice, plies: int = 0) -> list[RankedPlay]:
    """Every legal play of ``dice`` on ``board`` (mover's view), best first, searched ``plies`` deep (0 or 1+).

    The plays are those of the evaluator's game's rules; at 1-ply and deeper the best
    plays by 0-ply are searched further (``bot.search.nply.DEFAULT_FILTERS``), and every play
    is listed with the deepest value it got.
    """
    game: Variant = evaluator.game
    plays, children, ranking = _ranking(evaluator, board, dice, plies)
    ranked = []
    for i in ranking.order:
        win, win_mars, lose_mars = (float(p) for p in three_probabilities(ranking.probabilities[i]))
        ranked.append(
            RankedPlay(
                move=format_play(plays[i]),
                play=plays[i],
                position_id=encode_long_position_id(game.flip(children[i])),
                probabilities=(win, win_mars, lose_mars),
                equity=float(equity(ranking.probabilities[i])),
                plies=int(ranking.depth[i]),
            )
        )
    return ranked


def best_play(evaluator: ProbabilityEvaluator, board: np.ndarray, dice: Dice, plies: int = 0) -> Play:
    """The evaluator's choice among the legal plays of ``dice`` on ``board`` (mover's view): the play itself."""
    plays, _, ranking = _ranking(evaluator, board, dice, plies)
    return plays[int(ranking.order[0])]


def _ranking(
    evaluator: ProbabilityEvaluator, board: np.ndarray, dice: Dice, plies: int
) -> tuple[list[Play], np.ndarray, Ranking]:
    """The legal plays of the evaluator's long nardy rules, their afterstates and their search ranking."""
    rules = evaluator.game.rules
    if rules is None:
        raise ValueError(f"the evaluator plays {evaluator.game.name}, not long nardy")
    plays = legal_plays(validate_board(board), dice, rules)
    children = np.stack([play.afterstate for play in plays])
    return plays, children, rank_afterstates(evaluator, children, plies, filters=DEFAULT_FILTERS)


def position_probabilities(evaluator: ProbabilityEvaluator, board: np.ndarray, plies: int = 0) -> np.ndarray:
    """The five probabilities of the side on roll of ``board`` (its view) before it rolls, searched ``plies`` deep.

    The position is the afterstate of the side that has just moved, so the search of
    ``bot.search.nply.probabilities_at`` on the flipped board gives the same numbers as the moves'.
    Long nardy has no backgammons: their two columns are 0.
    """
    game = evaluator.game
    five = invert(probabilities_at(evaluator, game.flip(validate_board(board)[None]), plies))[0].astype(np.float64)
    five[[2, 4]] = 0.0
    return five


def cube_efficiency(board: np.ndarray) -> float:
    """The cube's liveness for the side on roll of ``board``: long nardy has no hits, so every position is
    a race (blocks only slow it), as live as a backgammon race of the mover's pips."""
    pips = pip_counts(board)[0]
    return float(
        np.clip(RACE_EFFICIENCY_BASE + RACE_EFFICIENCY_PER_PIP * pips, RACE_EFFICIENCY_MIN, RACE_EFFICIENCY_MAX)
    )


def money_cube_decision(board: np.ndarray, five: np.ndarray, owner: Owner = Owner.CENTERED) -> CubeDecision:
    """Double / no double for the side on roll of ``board`` (its view, before its roll) and take / pass for
    its opponent, in money play with the doubling cube: the Janowski model of ``bot.equity.cube`` on
    ``five`` (``position_probabilities``), mars counted as the gammon. ``owner`` is seen by the side on roll."""
    state = CubeState(cube=1 if owner is Owner.CENTERED else 2, owner=owner)  # money: per unit of the cube
    return cube_decision(board, five, state, efficiency=cube_efficiency(board))
