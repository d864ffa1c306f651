"""The bot as the front doors see it: one ``Bot`` answering moves, evaluations, cube and resignation.

The command line, the GNU Backgammon external-player server and the HTTP API only
parse their input, call a ``Bot`` method and format the answer; every decision is
made here, on top of ``bot.evaluation.evaluator`` (probabilities, 1-ply search), ``bot.equity.cube``
(cube decisions and cubeful equities) and ``bot.equity.resign``.

Perspective: every board passed in is seen by the side on roll (docs/DESIGN.md), and
every ``CubeState`` too (score = (side on roll, opponent)). Ranked plays carry the
mover's probabilities and equities after the play; evaluations and decisions are
for the side on roll. The evaluators hold no state, so one ``Bot`` can serve many
threads at once.

Boards may be given as ``engine.Position`` values or as (26,) arrays; a ranked play
gives its afterstate back as either.

>>> from engine.position import Position
>>> bot = Bot.load()
>>> best = bot.rank_plays(Position.from_id("4HPwATDgc/ABMA"), (3, 1), top=1)[0]
>>> best.notation, best.position
('8/5 6/5', Position.from_id('4HPwATCwZ/ABMA'))
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import numpy as np

from bot.evaluation.checkpoint import CheckpointError, load_evaluator
from bot.equity.cube import CubeDecision, CubeState, cube_efficiencies, model_decisions, swap_state
from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.equity.outcomes import equity, invert
from bot.search.nply import InvalidSearchError, MoveFilter, probabilities_at, rank_afterstates
from engine.board import CHECKERS, Dice, borne_off, flip, validate_board, validate_dice
from engine.errors import InvalidPositionError
from engine.notation import format_play
from engine.plays import Play, legal_plays
from engine.position import Position

if TYPE_CHECKING:  # loaded where a cube or resignation is decided: a hint of a roll uses neither
    from bot.equity.resign import ResignationAnswer, ResignationOffer

# Where the shipped network lives (its numpy export, read without torch): in the repository
# (a source checkout, an editable install), and, relative to an installation's data
# directory, where `pip install .` puts it (pyproject.toml's data-files).
REPO_CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "default.npz"
INSTALLED_CHECKPOINT = Path("share") / "nardy" / "default.npz"
# Environment variable naming a checkpoint to use instead of the shipped one.
CHECKPOINT_ENV = "NARDY_CHECKPOINT"
# At 1-ply, this many plays (the best by 0-ply, or ``top`` if more) are looked at again.
ONE_PLY_CANDIDATES = 8
PLIES = (0, 1, 2)
MONEY = CubeState()
# What a method takes as a board: a Position, or its (26,) array (mover's view).
BoardLike = np.ndarray | Position


def _data_directories() -> list[Path]:
    """Where installers put data files: this environment's (``sys.prefix`` in a virtual
    environment), then the user's (``pip install --user``)."""
    import sysconfig

    user = sysconfig.get_preferred_scheme("user")
    return [Path(sysconfig.get_path("data")), Path(sysconfig.get_path("data", user))]


def shipped_checkpoints() -> list[Path]:
    """Where the shipped network is looked for, in order: the repository's
    ``checkpoints/default.npz`` (beside the package), then ``share/nardy/default.npz`` under
    the installation's data directory, then under the user's."""
    return [REPO_CHECKPOINT] + [data / INSTALLED_CHECKPOINT for data in _data_directories()]


def default_checkpoint() -> Path:
    """The checkpoint to load when none is named: $NARDY_CHECKPOINT, else the first of
    ``shipped_checkpoints()`` that exists (the repository's path when none does)."""
    if os.environ.get(CHECKPOINT_ENV):
        return Path(os.environ[CHECKPOINT_ENV])
    if REPO_CHECKPOINT.is_file():  # the first place looked: no need to ask sysconfig for the others
        return REPO_CHECKPOINT
    return next((path for path in shipped_checkpoints() if path.is_file()), REPO_CHECKPOINT)


@dataclass(frozen=True)
class RankedPlay:
    """One legal play with its evaluation, for the mover (the side that rolled).

    ``probabilities`` are the mover's five after the play, ``equity`` the mover's
    cubeless money equity; ``mwc`` the mover's cubeful match-winning chance (match
    play only, and then the ranking key). ``plies`` says how deep it was evaluated.
    """

    play: Play
    notation: str
    probabilities: np.ndarray
    equity: float
    mwc: Optional[float]
    plies: int

    @property
    def afterstate(self) -> np.ndarray:
        """The board right after the play, still in the mover's view."""
        return self.play.afterstate

    @property
    def position(self) -> Position:
        """The afterstate as a ``Position``, still in the mover's view."""
        return Position(self.play.afterstate)


@dataclass(frozen=True)
class Resignations:
    """Resignation decisions in one position (side on roll before it rolls), at one ``level``.

    ``offer``: whether the side on roll should resign, and at which level (its view).
    ``opponent_accepts``: the opponent's answer if the side on roll resigns ``level``;
    ``side_on_roll_accepts``: the side on roll's answer if the opponent resigns ``level``.
    """

    offer: ResignationOffer
    opponent_accepts: ResignationAnswer
    side_on_roll_accepts: ResignationAnswer


@dataclass(frozen=True)
class Evaluation:
    """A position evaluated for the side on roll, before it rolls.

    ``cubeful_equity`` is normalised as GNU Backgammon prints it (money: per unit of
    the current cube; match: -1/+1 = losing/winning the current cube) and ``mwc`` is
    the cubeful match-winning chance (match play only), both after the right cube
    actions of ``cube``, the cube decision.
    """

    probabilities: np.ndarray
    cubeless_equity: float
    cubeful_equity: float
    mwc: Optional[float]
    cube: CubeDecision
    plies: int


def check_game_on(board: BoardLike) -> np.ndarray:
    """The board (mover's view) as int8 if it is a legal position with a game still on.

    Raise InvalidPositionError when it breaks the board convention or a side has
    no checker left (the game is over: nothing to decide).
    """
    board = board.board if isinstance(board, Position) else validate_board(board, "position")
    mover, opponent = borne_off(board)
    for side, off in (("side on roll", mover), ("opponent", opponent)):
        if off == CHECKERS:
            raise InvalidPositionError(f"position: the {side} has borne off all 15 checkers, the game is over")
    return board


def _check_plies(plies: int) -> int:
    if plies not in PLIES:
        raise InvalidSearchError(f"plies {plies!r}: expected one of {', '.join(map(str, PLIES))}")
    return plies


def search_filters(top: Optional[int] = None) -> tuple[MoveFilter, MoveFilter]:
    """Which plays go deeper: the best ``max(top, 8)`` by 0-ply to 1-ply, then two within 0.04 to 2-ply."""
    return MoveFilter(max(top or 0, ONE_PLY_CANDIDATES), math.inf), MoveFilter(2, 0.04)


class Bot:
    """Move choice, evaluation, cube and resignation decisions from one evaluator."""

    def __init__(self, evaluator: ProbabilityEvaluator, name: str = "nardy") -> None:
        self.evaluator = evaluator
        self.name = name

    @classmethod
    def load(cls, checkpoint: str | os.PathLike | None = None) -> "Bot":
        """The bot of a checkpoint file (default: ``default_checkpoint()``); raise CheckpointError.

        A ``.npz`` export loads with numpy alone; a training checkpoint (``.pt``) is read with torch.
        The file may hold a network per position class (``bot.evaluation.checkpoint.load_evaluator``); an
        old single-network file plays contact and races with its network, bear-offs exactly.
        """
        path = Path(checkpoint) if checkpoint is not None else default_checkpoint()
        if checkpoint is None and not os.environ.get(CHECKPOINT_ENV) and not path.is_file():
            looked = ", ".join(str(p) for p in shipped_checkpoints())
            raise CheckpointError(
                f"no shipped network (looked for {looked}): name a checkpoint file, or set ${CHECKPOINT_ENV}"
            )
        return cls(load_evaluator(path))

    # ------------------------------------------------------------ probabilities

    def probabilities(self, board: BoardLike, plies: int = 0) -> np.ndarray:
        """(5,) cubeless probabilities of the side on roll of ``board``, before it rolls, ``plies`` deep."""
        board = check_game_on(board)
        # The position before the roll is the opponent's afterstate: evaluate that, invert.
        return invert(probabilities_at(self.evaluator, flip(board)[None], _check_plies(plies))[0])

    # ------------------------------------------------------------ moves

    def rank_plays(
        self,
        board: BoardLike,
        dice: Dice,
        plies: int = 0,
        top: Optional[int] = None,
        state: CubeState = MONEY,
    ) -> list[RankedPlay]:
        """The legal plays of ``dice`` on ``board`` (mover's view), best first.

        Money play ranks by the mover's cubeless equity, match play by its cubeful
        MWC. Every play is evaluated at 0-ply; at 1-ply and deeper the best
        ``max(top, 8)`` by 0-ply go one roll deeper, and at 2-ply the best two of those
        within 0.04 of the best another (``search_filters``); deeper plays rank ahead of
        shallower ones. A roll that cannot be played gives one play with no steps.
        ``top`` keeps only the best N.
        """
        board = check_game_on(board)
        checked_dice = validate_dice(dice)
        _check_plies(plies)
        if top is not None and top < 1:
            raise InvalidSearchError(f"top {top!r}: expected a positive number of plays")
        plays = legal_plays(board, checked_dice)
        children = np.stack([p.afterstate for p in plays])
        ranking = rank_afterstates(
            self.evaluator,
            children,
            plies,
            filters=search_filters(top),
            key=lambda five, positions: self._ranking_keys(five, positions, state),
        )
        return [
            RankedPlay(
                play=plays[i],
                notation=format_play(plays[i]),
                probabilities=ranking.probabilities[i],
                equity=float(equity(ranking.probabilities[i])),
                mwc=float(ranking.keys[i]) if state.match_length else None,
                plies=int(ranking.depth[i]),
            )
            for i in ranking.order[:top]
        ]

    @staticmethod
    def _ranking_keys(five: np.ndarray, children: np.ndarray, state: CubeState) -> np.ndarray:
        """(N,) what plays are ranked by: the mover's cubeless equity (money) or cubeful MWC (match).

        The MWC after a play is one minus the opponent's, on roll next with the cube
        as it is, after its right cube action.
        """
        if not state.match_length:
            return equity(five).astype(np.float64)
        theirs = [d.mwc for d in model_decisions(invert(five), cube_efficiencies(flip(children)), swap_state(state))]
        assert all(mwc is not None for mwc in theirs)  # a match's cube decisions have their match-winning chances
        return 1.0 - np.array(theirs, dtype=np.float64)

    def best_play(self, board: BoardLike, dice: Dice, plies: int = 0, state: CubeState = MONEY) -> RankedPlay:
        """The best legal play of ``dice`` on ``board`` (mover's view)."""
        return self.rank_plays(board, dice, plies=plies, top=1, state=state)[0]

    # ------------------------------------------------------------ positions and the cube

    def evaluate(self, board: BoardLike, state: CubeState = MONEY, plies: int = 0) -> Evaluation:
        """Probabilities, equities and cube decision of the side on roll of ``board``.

        The probabilities are cubeless, ``plies`` deep; the cube decision is Janowski's model
        on them at 0-ply (with the bot's learned correction, ``bot.evaluation.cube_correction``, if it has
        one), and deeper a cubeful lookahead (``bot.search.cube_decision``).
        """
        from bot.search.cube_decision import lookahead_cube_decision

        board = check_game_on(board)
        five = self.probabilities(board, plies)
        decision = lookahead_cube_decision(self.evaluator, board, state, plies, five=five if plies == 0 else None)
        return Evaluation(
            probabilities=five,
            cubeless_equity=float(equity(five)),
            cubeful_equity=decision.equity,
            mwc=decision.mwc,
            cube=decision,
            plies=plies,
        )

    def cube_decision(self, board: BoardLike, state: CubeState = MONEY, plies: int = 0) -> CubeDecision:
        """Double / no double for the side on roll of ``board``, take / pass for its opponent."""
        return self.evaluate(board, state, plies).cube

    def resign_decision(
        self, board: BoardLike, state: CubeState = MONEY, level: int = 1, plies: int = 0
    ) -> Resignations:
        """Whether the side on roll of ``board`` should resign, and the answers to a resignation at ``level``.

        ``level``: 1 single, 2 gammon, 3 backgammon (InvalidResignationError otherwise).
        """
        from bot.equity.resign import accept_resignation, offer_resignation

        board = check_game_on(board)
        five = self.probabilities(board, plies)
        return Resignations(
            offer=offer_resignation(board, five, state),
            opponent_accepts=accept_resignation(board, five, state, level, resigner_on_roll=True),
            side_on_roll_accepts=accept_resignation(board, five, state, level, resigner_on_roll=False),
        )

    def should_double(self, board: BoardLike, state: CubeState = MONEY, plies: int = 0) -> bool:
        """Whether the side on roll of ``board`` should double now."""
        return self.cube_decision(board, state, plies).should_double

    def should_take(self, board: BoardLike, state: CubeState, plies: int = 0) -> bool:
        """Whether to take a double offered by the side on roll of ``board``.

        ``state`` is the cube before the double, seen by the doubler (on roll).
        """
        return self.cube_decision(board, state, plies).should_take
