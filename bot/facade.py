"""The bot as the front doors see it: one ``Bot`` answering moves, evaluations, cube and resignation, in either game.

The command line, the GNU Backgammon external-player server and the HTTP API only
parse their input, call a ``Bot`` method and format the answer; every decision is
made here, on top of ``bot.evaluation.evaluator`` (probabilities, 1-ply search), ``bot.equity.cube``
(cube decisions and cubeful equities) and ``bot.equity.resign``.

A ``Bot`` plays the game of its evaluator (``evaluator.game``, an ``engine.variant.Variant``):
backgammon, or long nardy (``Bot.load(variant="long")`` loads the shipped long nardy network).
The methods are the same for both. Long nardy's probabilities are the five of docs/DESIGN.md
with the two backgammon columns 0 (``game_probabilities`` keeps a game's own: win, win mars,
lose mars); its cube is Janowski's model with long nardy's own cube efficiency
(``bot.equity.cube.long_nardy_efficiencies``, fitted to the bot's own 2-ply cubeful lookahead), searched
deeper by that lookahead as backgammon's is, at a match score with long nardy's match equity
table (``bot.equity.met.met_for``). ``Bots`` holds one bot per game.

Perspective: every board passed in is seen by the side on roll (docs/DESIGN.md), and
every ``CubeState`` too (score = (side on roll, opponent)). Ranked plays carry the
mover's probabilities and equities after the play; evaluations and decisions are
for the side on roll. The evaluators hold no state, so one ``Bot`` can serve many
threads at once.

Boards may be given as position values (``engine.Position``, ``engine.long_nardy.LongPosition``)
or as (26,) arrays; a position of the other game is refused by name. A ranked play gives its
afterstate back as either.

>>> from engine.position import Position
>>> bot = Bot.load()
>>> best = bot.rank_plays(Position.from_id("4HPwATDgc/ABMA"), (3, 1), top=1)[0]
>>> best.notation, best.position
('8/5 6/5', Position.from_id('4HPwATCwZ/ABMA'))
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from bot.evaluation.checkpoint import CheckpointError, load_evaluator, load_network
from bot.equity.cube import (
    CubeDecision,
    CubeState,
    cube_efficiencies,
    long_nardy_efficiencies,
    model_decisions,
    swap_state,
)
from bot.equity.met import MatchEquityTable, met_for
from bot.evaluation.evaluator import NetworkEvaluator, ProbabilityEvaluator
from bot.equity.outcomes import equity, invert
from bot.search.nply import InvalidSearchError, MoveFilter, probabilities_at, rank_afterstates
from engine.board import CHECKERS, Dice, borne_off, validate_dice
from engine.errors import InvalidPositionError
from engine.plays import Play
from engine.position import Position
from engine.variant import BACKGAMMON, NAMES, GamePosition, Variant, find_variant

if TYPE_CHECKING:  # loaded where a cube or resignation is decided: a hint of a roll uses neither
    from bot.equity.resign import ResignationAnswer, ResignationOffer

# Where the shipped network lives (its numpy export, read without torch): in the repository
# (a source checkout, an editable install), and, relative to an installation's data
# directory, where `pip install .` puts it (pyproject.toml's data-files).
REPO_CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "default.npz"
INSTALLED_CHECKPOINT = Path("share") / "nardy" / "default.npz"
# The shipped long nardy network's file, beside the backgammon one wherever that is looked for.
LONG_NARDY_CHECKPOINT = "long_nardy.npz"
# Environment variable naming a checkpoint to use instead of the shipped one.
CHECKPOINT_ENV = "NARDY_CHECKPOINT"
# At 1-ply, this many plays (the best by 0-ply, or ``top`` if more) are looked at again: in backgammon each of
# them; in long nardy those within 0.16 of the best by 0-ply (its network, fitted to its own 1-ply values, leaves
# the plays further behind to the 1-ply search no better than it finds them; docs/long_nardy.md).
ONE_PLY_CANDIDATES = 8
ONE_PLY_WINDOW = {"backgammon": math.inf, "long_nardy": 0.16}
PLIES = (0, 1, 2)
MONEY = CubeState()
# What a method takes as a board: a position of the bot's game, or its (26,) array (mover's view).
BoardLike = np.ndarray | GamePosition


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


def default_long_nardy_checkpoint() -> Path:
    """The long nardy network to load when none is named: ``long_nardy.npz`` beside the shipped
    backgammon network, the first of ``shipped_checkpoints()``' places that has it (else the repository's)."""
    places = [path.with_name(LONG_NARDY_CHECKPOINT) for path in shipped_checkpoints()]
    return next((path for path in places if path.is_file()), places[0])


def outcome_columns(variant: Variant) -> list[int]:
    """The columns of the five probabilities that ``variant`` has: win, then its wins and its losses above a
    single (backgammon all five; long nardy win, win mars, lose mars)."""
    levels = len(variant.outcome_names)
    return [0, *range(1, levels), *range(3, 2 + levels)]


def game_probabilities(five: np.ndarray, variant: Variant) -> np.ndarray:
    """(..., k) the probabilities of ``variant``'s own outcomes (``outcome_columns``) of five (same side's view)."""
    return np.asarray(five)[..., outcome_columns(variant)]


@dataclass(frozen=True)
class RankedPlay:
    """One legal play with its evaluation, for the mover (the side that rolled).

    ``probabilities`` are the mover's five after the play (long nardy: the backgammon columns
    0), ``equity`` the mover's cubeless money equity; ``mwc`` the mover's cubeful match-winning
    chance (match play only, and then the ranking key). ``plies`` says how deep it was evaluated;
    ``variant`` is the game played.
    """

    play: Play
    notation: str
    probabilities: np.ndarray
    equity: float
    mwc: Optional[float]
    plies: int
    variant: Variant = field(default=BACKGAMMON, repr=False)

    @property
    def afterstate(self) -> np.ndarray:
        """The board right after the play, still in the mover's view."""
        return self.play.afterstate

    @property
    def position(self) -> Any:
        """The afterstate as its game's position (``Position``, ``LongPosition``), still in the mover's view."""
        return self.variant.position(self.play.afterstate)

    @property
    def game_probabilities(self) -> np.ndarray:
        """The mover's probabilities of its game's own outcomes (``game_probabilities``): long nardy's three."""
        return game_probabilities(self.probabilities, self.variant)


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


def check_game_on(board: BoardLike, variant: Variant = BACKGAMMON) -> np.ndarray:
    """The board (mover's view) as int8 if it is a legal position of ``variant`` with a game still on.

    Raise InvalidPositionError when it breaks the game's board convention, is a position of
    the other game, or a side has no checker left (the game is over: nothing to decide).
    """
    board = (
        board.board
        if isinstance(board, Position) and variant is BACKGAMMON
        else variant.validate_board(board, "position")
    )
    mover, opponent = borne_off(board)
    for side, off in (("side on roll", mover), ("opponent", opponent)):
        if off == CHECKERS:
            raise InvalidPositionError(f"position: the {side} has borne off all 15 checkers, the game is over")
    return board


def _check_plies(plies: int) -> int:
    if plies not in PLIES:
        raise InvalidSearchError(f"plies {plies!r}: expected one of {', '.join(map(str, PLIES))}")
    return plies


def search_filters(top: Optional[int] = None, game: Variant = BACKGAMMON) -> tuple[MoveFilter, MoveFilter]:
    """Which plays of ``game`` go deeper: the best ``max(top, 8)`` by 0-ply (within ``ONE_PLY_WINDOW``) to 1-ply,
    then two within 0.04 to 2-ply."""
    return MoveFilter(max(top or 0, ONE_PLY_CANDIDATES), ONE_PLY_WINDOW[game.name]), MoveFilter(2, 0.04)


@dataclass(frozen=True)
class _CubeModel:
    """How a game's cube is priced: Janowski's model at ``efficiencies`` (the cube efficiency of boards (N, 26) in
    their side on roll's view: backgammon's by position kind, long nardy's fitted to its own lookahead), searched
    deeper by the cubeful lookahead (``bot.search.cube_decision``); ``table`` the game's match equity table (None:
    the default, backgammon's, whose prices the cube arithmetic keeps)."""

    efficiencies: Callable[[np.ndarray], np.ndarray]
    table: Callable[[], Optional[MatchEquityTable]]


_CUBE_MODELS = {
    "backgammon": _CubeModel(efficiencies=cube_efficiencies, table=lambda: None),
    "long_nardy": _CubeModel(efficiencies=long_nardy_efficiencies, table=lambda: met_for("long_nardy")),
}


class Bot:
    """Move choice, evaluation, cube and resignation decisions from one evaluator, in the evaluator's game."""

    def __init__(self, evaluator: ProbabilityEvaluator, name: str = "nardy") -> None:
        self.evaluator = evaluator
        self.name = name

    @property
    def variant(self) -> Variant:
        """The game this bot plays: its evaluator's (``engine.variant``)."""
        return self.evaluator.game

    @classmethod
    def load(cls, checkpoint: str | os.PathLike | None = None, variant: Variant | str = BACKGAMMON) -> "Bot":
        """The bot of a checkpoint file for ``variant`` (a ``Variant`` or any of its names); raise CheckpointError.

        Default file: backgammon's ``default_checkpoint()``, long nardy's ``default_long_nardy_checkpoint()``.
        A ``.npz`` export loads with numpy alone; a training checkpoint (``.pt``) is read with torch.
        A backgammon file may hold a network per position class (``bot.evaluation.checkpoint.load_evaluator``);
        an old single-network file plays contact and races with its network, bear-offs exactly. A network
        of the other game's encoding is a CheckpointError naming the file.
        """
        game = variant if isinstance(variant, Variant) else find_variant(variant)
        if game is not BACKGAMMON:
            return cls(_load_network_of(game, default_long_nardy_checkpoint() if checkpoint is None else checkpoint))
        path = Path(checkpoint) if checkpoint is not None else default_checkpoint()
        if checkpoint is None and not os.environ.get(CHECKPOINT_ENV) and not path.is_file():
            looked = ", ".join(str(p) for p in shipped_checkpoints())
            raise CheckpointError(
                f"no shipped network (looked for {looked}): name a checkpoint file, or set ${CHECKPOINT_ENV}"
            )
        return cls(load_evaluator(path))

    def _game_on(self, board: BoardLike) -> np.ndarray:
        return check_game_on(board, self.variant)

    def _own(self, five: np.ndarray) -> np.ndarray:
        """Five probabilities with the columns of outcomes the game lacks set to 0 (long nardy's backgammons)."""
        absent = [column for column in range(5) if column not in outcome_columns(self.variant)]
        if not absent:
            return five
        five = np.array(five)
        five[..., absent] = 0.0
        return five

    @property
    def _cube(self) -> _CubeModel:
        return _CUBE_MODELS[self.variant.name]

    def match_table(self, state: CubeState) -> Optional[MatchEquityTable]:
        """The match equity table of a match ``state`` in this game (None: the default); money needs none."""
        return None if state.is_money else self._cube.table()

    def cube_efficiencies(self, boards: np.ndarray) -> np.ndarray:
        """(N,) cube efficiencies of boards (N, 26), each in its side on roll's view, by this game's cube model."""
        return self._cube.efficiencies(np.asarray(boards).reshape(-1, 26))

    # ------------------------------------------------------------ probabilities

    def probabilities(self, board: BoardLike, plies: int = 0) -> np.ndarray:
        """(5,) cubeless probabilities of the side on roll of ``board``, before it rolls, ``plies`` deep."""
        board = self._game_on(board)
        # The position before the roll is the opponent's afterstate: evaluate that, invert.
        flipped = self.variant.flip(board)[None]
        return self._own(invert(probabilities_at(self.evaluator, flipped, _check_plies(plies))[0]))

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
        board = self._game_on(board)
        checked_dice = validate_dice(dice)
        _check_plies(plies)
        if top is not None and top < 1:
            raise InvalidSearchError(f"top {top!r}: expected a positive number of plays")
        met = self.match_table(state)
        game = self.variant
        plays = game.legal_plays(board, checked_dice)
        children = np.stack([p.afterstate for p in plays])
        ranking = rank_afterstates(
            self.evaluator,
            children,
            plies,
            filters=search_filters(top, self.variant),
            key=lambda five, positions: self._ranking_keys(self._own(five), positions, state, met),
        )
        fives = self._own(ranking.probabilities)
        return [
            RankedPlay(
                play=plays[i],
                notation=game.format_play(plays[i]),
                probabilities=fives[i],
                equity=float(equity(fives[i])),
                mwc=float(ranking.keys[i]) if state.match_length else None,
                plies=int(ranking.depth[i]),
                variant=game,
            )
            for i in ranking.order[:top]
        ]

    def _ranking_keys(
        self, five: np.ndarray, children: np.ndarray, state: CubeState, met: Optional[MatchEquityTable]
    ) -> np.ndarray:
        """(N,) what plays are ranked by: the mover's cubeless equity (money) or cubeful MWC (match).

        The MWC after a play is one minus the opponent's, on roll next with the cube
        as it is, after its right cube action.
        """
        if not state.match_length:
            return equity(five).astype(np.float64)
        boards = self.variant.flip(children)
        theirs = [d.mwc for d in model_decisions(invert(five), self.cube_efficiencies(boards), swap_state(state), met)]
        assert all(mwc is not None for mwc in theirs)  # a match's cube decisions have their match-winning chances
        return 1.0 - np.array(theirs, dtype=np.float64)

    def best_play(self, board: BoardLike, dice: Dice, plies: int = 0, state: CubeState = MONEY) -> RankedPlay:
        """The best legal play of ``dice`` on ``board`` (mover's view)."""
        return self.rank_plays(board, dice, plies=plies, top=1, state=state)[0]

    # ------------------------------------------------------------ positions and the cube

    def evaluate(self, board: BoardLike, state: CubeState = MONEY, plies: int = 0) -> Evaluation:
        """Probabilities, equities and cube decision of the side on roll of ``board``.

        The probabilities are cubeless, ``plies`` deep; the cube decision is Janowski's model at the game's
        cube efficiency (``cube_efficiencies``) on them at 0-ply (with the bot's learned correction,
        ``bot.evaluation.cube_correction``, if it has one), and deeper a cubeful lookahead
        (``bot.search.cube_decision``) whose leaves that model prices.
        """
        from bot.search.cube_decision import lookahead_cube_decision

        board = self._game_on(board)
        met = self.match_table(state)
        five = self.probabilities(board, plies)
        decision = lookahead_cube_decision(
            self.evaluator,
            board,
            state,
            plies,
            met,
            five=five if plies == 0 else None,
            efficiencies=self._cube.efficiencies,  # the model's own function: the search calls no higher layer
        )
        return Evaluation(
            probabilities=five,
            cubeless_equity=float(equity(five)),
            cubeful_equity=decision.equity,
            mwc=decision.mwc,
            cube=decision,
            plies=plies,
        )

    def _efficiency(self, board: np.ndarray) -> float:
        return float(self.cube_efficiencies(board[None])[0])

    def cube_decision(self, board: BoardLike, state: CubeState = MONEY, plies: int = 0) -> CubeDecision:
        """Double / no double for the side on roll of ``board``, take / pass for its opponent."""
        return self.evaluate(board, state, plies).cube

    def cube_decisions(
        self, boards: Sequence[BoardLike], states: Sequence[CubeState], plies: int = 0, prune: bool = False
    ) -> list[CubeDecision]:
        """``cube_decision`` of each of ``boards`` at ``states[i]``, their searches batched (an analysis's cube
        actions); ``prune``: every roll's best play found as ``bot.search.nply.best_plays`` says."""
        from bot.search.cube_decision import lookahead_cube_decisions

        positions = np.array([self._game_on(board) for board in boards], dtype=np.int8).reshape(-1, 26)
        fives = None
        if _check_plies(plies) == 0:  # as ``probabilities``: the opponent's afterstate, inverted
            fives = self._own(invert(probabilities_at(self.evaluator, self.variant.flip(positions), 0)))
        mets = [self.match_table(state) for state in states]
        return lookahead_cube_decisions(
            self.evaluator, positions, states, plies, mets, fives, self._cube.efficiencies, prune
        )

    def resign_decision(
        self, board: BoardLike, state: CubeState = MONEY, level: int = 1, plies: int = 0
    ) -> Resignations:
        """Whether the side on roll of ``board`` should resign, and the answers to a resignation at ``level``.

        ``level``: 1 single, 2 gammon, 3 backgammon; long nardy 1 oin, 2 mars (InvalidResignationError otherwise).
        """
        from bot.equity.resign import InvalidResignationError, accept_resignation, offer_resignation

        names = self.variant.outcome_names
        if level not in range(1, len(names) + 1):
            levels = [f"{i} ({name})" for i, name in enumerate(names, start=1)]
            raise InvalidResignationError(
                f"resignation level {level!r}: expected {', '.join(levels[:-1])} or {levels[-1]}"
            )
        board = self._game_on(board)
        met = self.match_table(state)
        five = self.probabilities(board, plies)
        x = self._efficiency(board)
        return Resignations(
            offer=offer_resignation(board, five, state, met=met, efficiency=x),
            opponent_accepts=accept_resignation(
                board, five, state, level, resigner_on_roll=True, met=met, efficiency=x
            ),
            side_on_roll_accepts=accept_resignation(
                board, five, state, level, resigner_on_roll=False, met=met, efficiency=x
            ),
        )

    def should_double(self, board: BoardLike, state: CubeState = MONEY, plies: int = 0) -> bool:
        """Whether the side on roll of ``board`` should double now."""
        return self.cube_decision(board, state, plies).should_double

    def should_take(self, board: BoardLike, state: CubeState, plies: int = 0) -> bool:
        """Whether to take a double offered by the side on roll of ``board``.

        ``state`` is the cube before the double, seen by the doubler (on roll).
        """
        return self.cube_decision(board, state, plies).should_take


def _load_network_of(game: Variant, path: str | os.PathLike) -> NetworkEvaluator:
    """The one network stored at ``path`` as an evaluator of ``game``; CheckpointError when it reads another game."""
    network = load_network(path)
    if network.encoding.game != game.name:
        raise CheckpointError(
            f"checkpoint {str(path)!r}: a {network.encoding.game.replace('_', ' ')} network "
            f"(encoding {network.encoding.name!r}), not a {game.title} one"
        )
    return NetworkEvaluator(network, game)


class Bots(Mapping[str, Bot]):
    """One bot per game, found by any name of its variant (``engine.variant.find_variant``) or the ``Variant``.

    The bots given are kept; a game's bot not given is its shipped network (``Bot.load(variant=...)``),
    loaded on first use and kept, once however many threads ask at once.
    """

    def __init__(self, *bots: Bot) -> None:
        self._bots = {bot.variant.name: bot for bot in bots}
        self._loading = threading.Lock()

    def __getitem__(self, name: str | Variant) -> Bot:
        game = name if isinstance(name, Variant) else find_variant(name)
        bot = self._bots.get(game.name)
        if bot is None:
            with self._loading:
                bot = self._bots.get(game.name)
                if bot is None:
                    bot = self._bots[game.name] = Bot.load(variant=game)
        return bot

    def __iter__(self) -> Iterator[str]:
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)
