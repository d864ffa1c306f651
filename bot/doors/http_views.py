"""The HTTP API's views: plain functions from a parsed query to an answer model (no web framework).

``bot.doors.http_app`` routes requests to them. wildbg-compatible ``/move`` and
``/eval``, and richer ``/v1`` endpoints:

- ``GET /move`` and ``GET /eval`` take the board as wildbg does: ``p0..p25`` in the
  view of the side to move (positive = its checkers, ``p25`` its bar, ``p0`` the
  opponent's bar, negative), omitted points empty; ``die1``, ``die2``; optionally
  ``x_away`` and ``o_away`` for a match score (points the side to move, and its
  opponent, still need).
- ``GET /v1/moves``, ``/v1/cube``, ``/v1/evaluate``, ``/v1/resign`` take
  ``position``: a Position ID, ``PositionID:MatchID`` or an XGID; with ``variant=long`` a long
  nardy Position ID instead (money play, a centred cube), read by the game's codec
  (``bot.doors.codecs``).

Each view only reads the query with the codec of its bot's game, calls the ``bot.facade.Bot`` and
formats the answer; bad input raises an engine error naming it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, create_model

from bot.doors.codecs import ApiName, codec_for
from bot.doors.situation import Situation
from bot.equity.cube import CubeDecision, CubeState
from bot.equity.met import default_met
from bot.equity.resign import InvalidResignationError, ResignationAnswer
from bot.facade import Bot, RankedPlay
from engine.board import validate_dice
from engine.errors import InvalidDiceError, InvalidMatchError, InvalidOptionError, quote
from engine.variant import Variant as Game

# ---------------------------------------------------------------- answer shapes


class Probabilities(BaseModel):
    """Five cumulative probabilities as wildbg and GNU Backgammon report them (wins include gammons)."""

    win: float = Field(description="P(win): single, gammon or backgammon")
    winG: float = Field(description="P(win a gammon or backgammon)")
    winBg: float = Field(description="P(win a backgammon)")
    loseG: float = Field(description="P(lose a gammon or backgammon)")
    loseBg: float = Field(description="P(lose a backgammon)")


class MoveDetail(BaseModel):
    """One checker moved by one die: 25 = the bar, 0 = off."""

    model_config = ConfigDict(populate_by_name=True)
    from_: int = Field(alias="from", ge=0, le=25)
    to: int = Field(ge=0, le=24)


class MoveInfo(BaseModel):
    """One complete legal play (0 to 4 checker steps) and the mover's probabilities after it."""

    play: list[MoveDetail]
    probabilities: Probabilities


class MoveResponse(BaseModel):
    """Every legal play, best first; a roll that cannot be played gives one empty play."""

    moves: list[MoveInfo]


class CubeInfo(BaseModel):
    """Whether the side to move should double, and whether its opponent should accept."""

    double: bool
    accept: bool


class EvalResponse(BaseModel):
    """Cube decision and probabilities of the side to move, before it rolls."""

    cube: CubeInfo
    probabilities: Probabilities


class ErrorMessage(BaseModel):
    """The body of every 4xx and 5xx answer."""

    message: str


class RankedMove(BaseModel):
    """A legal play in GNU Backgammon's notation with the mover's evaluation after it."""

    move: str = Field(description="the play in GNU Backgammon's notation, '' when no move is possible")
    play: list[MoveDetail]
    position_id: str = Field(description="Position ID after the play, opponent on roll")
    probabilities: Probabilities
    equity: float = Field(description="the mover's cubeless money equity after the play")
    mwc: Optional[float] = Field(description="the mover's cubeful match-winning chance (match play)")
    plies: int = Field(description="search depth of this evaluation")


Variant = ApiName


def _variant_field() -> Any:
    return Field(
        "backgammon",
        description="backgammon, or long (long nardy: a long nardy Position ID, money play; "
        "winG and loseG are mars, winBg and loseBg are 0)",
    )


class MovesResponse(BaseModel):
    variant: Variant = _variant_field()
    position_id: str
    dice: tuple[int, int]
    moves: list[RankedMove]


class CubeEquities(BaseModel):
    """Cubeful equities of the side on roll, normalised so that a pass is +1."""

    no_double: float
    double_take: float
    double_pass: float


class CubeResponse(BaseModel):
    variant: Variant = _variant_field()
    position_id: str
    decision: str = Field(description="GNU Backgammon's verdict, e.g. NODOUBLE_TAKE, DOUBLE_PASS")
    should_double: bool
    should_take: bool
    equities: CubeEquities
    mwc: Optional[CubeEquities] = Field(description="the same three as match-winning chances (match play)")
    probabilities: Probabilities


class EvaluateResponse(BaseModel):
    variant: Variant = _variant_field()
    position_id: str
    probabilities: Probabilities
    cubeless_equity: float
    cubeful_equity: float = Field(description="normalised: -1/+1 = losing/winning the current cube")
    mwc: Optional[float] = Field(description="cubeful match-winning chance (match play)")
    plies: int


class ResignOfferView(BaseModel):
    """Whether the side on roll should resign, at the cheapest level its opponent should accept."""

    level: Optional[str] = Field(description="single, gammon or backgammon (long nardy: oin or mars); null: play on")
    equity_play: float = Field(description="cubeful equity of playing on (side on roll)")
    equity_resign: dict[str, float] = Field(description="equity after resigning at each level (side on roll)")
    mwc_play: Optional[float]
    mwc_resign: Optional[dict[str, float]]


class ResignAnswerView(BaseModel):
    """Whether to accept a resignation, in the view of the side that answers."""

    level: str
    accept: bool
    equity_play: float
    equity_accept: float
    mwc_play: Optional[float]
    mwc_accept: Optional[float]


class ResignResponse(BaseModel):
    variant: Variant = _variant_field()
    position_id: str
    offer: ResignOfferView
    opponent_accepts: ResignAnswerView = Field(description="the opponent's answer if the side on roll resigns")
    side_on_roll_accepts: ResignAnswerView = Field(description="the side on roll's answer if the opponent resigns")


# ---------------------------------------------------------------- queries

# Bounds of the query parameters, stated in the OpenAPI description.
MAX_AWAY = default_met().size  # the match equity table's reach
MAX_POSITION_TEXT = 80  # an XGID is 51-60 characters, PositionID:MatchID 27
MAX_TOP = 100
# At 1-ply every play kept by ``top`` is searched one roll deeper: bound that cost per request.
MAX_TOP_ONE_PLY = 16


def _pip_fields() -> dict[str, Any]:
    """wildbg's board parameters p0..p25 (omitted = empty) and the optional away scores."""

    def checkers(description: str):
        return (int, Field(0, ge=-15, le=15, description=description))

    fields = {"p0": checkers("the opponent's checkers on the bar (zero or negative)")}
    for i in range(1, 25):
        fields[f"p{i}"] = checkers(f"point {i}: positive = side to move, negative = opponent")
    fields["p25"] = checkers("the side to move's checkers on the bar (zero or positive)")
    for name, who in (("x_away", "the side to move"), ("o_away", "the opponent")):
        fields[name] = (
            Optional[int],
            Field(None, ge=1, le=MAX_AWAY, description=f"points {who} still needs (match play)"),
        )
    return fields


if TYPE_CHECKING:
    # A type checker cannot see the fields of create_model's classes: these declare the ones
    # the views read by name (MoveQuery has every field of EvalQuery, and the dice).
    class EvalQuery(BaseModel):
        x_away: Optional[int]
        o_away: Optional[int]

    class MoveQuery(EvalQuery):
        die1: int
        die2: int

else:
    EvalQuery = create_model("EvalQuery", **_pip_fields())
    MoveQuery = create_model(
        "MoveQuery",
        die1=(int, Field(ge=1, le=6, description="first die, 1..6")),
        die2=(int, Field(ge=1, le=6, description="second die, 1..6")),
        **_pip_fields(),
    )


class PositionQuery(BaseModel):
    position: str = Field(
        min_length=1,
        max_length=MAX_POSITION_TEXT,
        description="Position ID, PositionID:MatchID or XGID; with variant=long a long nardy Position ID "
        "(13 characters); a '+' may arrive as a space, both are read",
    )
    plies: int = Field(0, ge=0, le=2, description="search depth: 0, 1 or 2 rolls deeper")


class EvaluateQuery(PositionQuery):
    variant: Variant = _variant_field()


class MovesQuery(EvaluateQuery):
    dice: Optional[str] = Field(
        None, pattern="^[1-6]{2}$", description="the roll, e.g. 31; needed unless the Match ID or XGID has dice"
    )
    top: Optional[int] = Field(
        None,
        ge=1,
        le=MAX_TOP,
        description=f"return only the best N plays (at most {MAX_TOP_ONE_PLY} with plies 1 or 2)",
    )


class ResignQuery(EvaluateQuery):
    value: Optional[Literal["single", "gammon", "backgammon", "oin", "mars"]] = Field(
        None,
        description="single, gammon or backgammon; long nardy oin (or single) or mars (default: the Match ID's "
        "offer, else single)",
    )


# ---------------------------------------------------------------- formatting


def probabilities_view(five: np.ndarray) -> Probabilities:
    """The five probabilities as wildbg names them."""
    win, wg, wbg, lg, lbg = (float(x) for x in five)
    return Probabilities(win=win, winG=wg, winBg=wbg, loseG=lg, loseBg=lbg)


def _play_view(ranked: RankedPlay) -> list[MoveDetail]:
    return [MoveDetail.model_validate({"from": step.src, "to": step.dst}) for step in ranked.play.steps]


def _resign_level(value: Optional[str], situation: Situation, game: Game) -> int:
    """The level a query's ``value`` names in ``game`` (``single`` is level 1 in either game)."""
    if value is None:
        return situation.resign_offered or 1
    names = ("single", *game.outcome_names[1:])
    words = {name: level for level, name in enumerate(names, start=1)} | {game.outcome_names[0]: 1}
    if value not in words:
        raise InvalidResignationError(
            f"value {value!r}: expected {', '.join(names[:-1])} or {names[-1]} ({game.title})"
        )
    return words[value]


def _answer_view(answer: ResignationAnswer, game: Game) -> ResignAnswerView:
    return ResignAnswerView(
        level=game.outcome_name(answer.level),
        accept=answer.accept,
        equity_play=answer.equity_play,
        equity_accept=answer.equity_accept,
        mwc_play=answer.mwc_play,
        mwc_accept=answer.mwc_accept,
    )


def _board_of(query: EvalQuery) -> np.ndarray:
    return np.array([getattr(query, f"p{i}") for i in range(26)])


def _state_of(query: EvalQuery) -> CubeState:
    """Money, or the match score the away counts give (a side at 1-away: post-Crawford)."""
    x_away, o_away = query.x_away, query.o_away
    if x_away is None and o_away is None:
        return CubeState()
    if x_away is None or o_away is None:
        raise InvalidMatchError("x_away and o_away: give both (match play) or neither (money)")
    if not (1 <= x_away <= MAX_AWAY and 1 <= o_away <= MAX_AWAY):
        raise InvalidMatchError(f"x_away {x_away}, o_away {o_away}: each must be 1..{MAX_AWAY}")
    length = max(x_away, o_away)
    return CubeState(match_length=length, score=(length - x_away, length - o_away))


def check_top(query: MovesQuery) -> None:
    """Refuse a search above 0-ply of more plays than ``MAX_TOP_ONE_PLY``."""
    if query.plies >= 1 and query.top is not None and query.top > MAX_TOP_ONE_PLY:
        raise InvalidOptionError(f"top {query.top}: at most {MAX_TOP_ONE_PLY} with plies={query.plies}")


# ---------------------------------------------------------------- views


def wildbg_move(bot: Bot, query: MoveQuery) -> MoveResponse:
    """Every legal play of the dice, best first, with the mover's probabilities after it."""
    ranked = bot.rank_plays(_board_of(query), (query.die1, query.die2), state=_state_of(query))
    return MoveResponse(
        moves=[MoveInfo(play=_play_view(r), probabilities=probabilities_view(r.probabilities)) for r in ranked]
    )


def wildbg_eval(bot: Bot, query: EvalQuery) -> EvalResponse:
    """Probabilities and cube decision of the side to move, before it rolls."""
    result = bot.evaluate(_board_of(query), _state_of(query))
    return EvalResponse(
        cube=CubeInfo(double=result.cube.should_double, accept=result.cube.should_take),
        probabilities=probabilities_view(result.probabilities),
    )


def moves(bot: Bot, query: MovesQuery) -> MovesResponse:
    """Legal plays ranked with probabilities and equities (dice from the query or the IDs), in ``bot``'s game."""
    codec = codec_for(bot.variant)
    situation = codec.read_position(query.position)
    dice = validate_dice(query.dice) if query.dice else situation.dice
    if dice is None:
        raise InvalidDiceError(f"position {quote(query.position)}: no dice rolled, give dice=XY")
    check_top(query)
    ranked = bot.rank_plays(situation.board, dice, plies=query.plies, top=query.top, state=situation.state)
    return MovesResponse(
        variant=codec.api_name,
        position_id=situation.position_id,
        dice=dice,
        moves=[
            RankedMove(
                move=r.notation,
                play=_play_view(r),
                position_id=codec.position_id(bot.variant.flip(r.afterstate)),
                probabilities=probabilities_view(r.probabilities),
                equity=r.equity,
                mwc=r.mwc,
                plies=r.plies,
            )
            for r in ranked
        ],
    )


def cube(bot: Bot, query: EvaluateQuery) -> CubeResponse:
    """Double / no double for the side on roll and take / pass for its opponent, with equities."""
    codec = codec_for(bot.variant)
    situation = codec.read_position(query.position)
    result = bot.evaluate(situation.board, situation.state, query.plies)
    return cube_response(result.cube, result.probabilities, situation.position_id, codec.api_name)


def cube_response(
    decision: CubeDecision, probabilities: np.ndarray, position_id: str, variant: Variant = "backgammon"
) -> CubeResponse:
    """The answer of ``/v1/cube``: ``decision`` of the side on roll, with the probabilities it was made on."""
    mwc = None
    no_double, double_take, double_pass = decision.mwc_no_double, decision.mwc_double_take, decision.mwc_double_pass
    if no_double is not None and double_take is not None and double_pass is not None:
        mwc = CubeEquities(no_double=no_double, double_take=double_take, double_pass=double_pass)
    return CubeResponse(
        variant=variant,
        position_id=position_id,
        decision=decision.verdict.value,
        should_double=decision.should_double,
        should_take=decision.should_take,
        equities=CubeEquities(
            no_double=decision.no_double, double_take=decision.double_take, double_pass=decision.double_pass
        ),
        mwc=mwc,
        probabilities=probabilities_view(probabilities),
    )


def evaluate(bot: Bot, query: PositionQuery) -> EvaluateResponse:
    """Probabilities, cubeless and cubeful equity (and MWC in a match) of the side on roll."""
    codec = codec_for(bot.variant)
    situation = codec.read_position(query.position)
    result = bot.evaluate(situation.board, situation.state, query.plies)
    return EvaluateResponse(
        variant=codec.api_name,
        position_id=situation.position_id,
        probabilities=probabilities_view(result.probabilities),
        cubeless_equity=result.cubeless_equity,
        cubeful_equity=result.cubeful_equity,
        mwc=result.mwc,
        plies=result.plies,
    )


def resign(bot: Bot, query: ResignQuery) -> ResignResponse:
    """Should the side on roll resign, and should a resignation at ``value`` be accepted (either side)? Long nardy's
    levels are oin (single) and mars."""
    codec = codec_for(bot.variant)
    game = bot.variant
    situation = codec.read_position(query.position)
    level = _resign_level(query.value, situation, game)
    result = bot.resign_decision(situation.board, situation.state, level, query.plies)
    offer = result.offer
    names = game.outcome_names
    return ResignResponse(
        variant=codec.api_name,
        position_id=situation.position_id,
        offer=ResignOfferView(
            level=game.outcome_name(offer.level) if offer.level else None,
            equity_play=offer.equity_play,
            equity_resign=dict(zip(names, offer.equity_resign)),
            mwc_play=offer.mwc_play,
            mwc_resign=dict(zip(names, offer.mwc_resign)) if offer.mwc_resign else None,
        ),
        opponent_accepts=_answer_view(result.opponent_accepts, game),
        side_on_roll_accepts=_answer_view(result.side_on_roll_accepts, game),
    )
