"""The HTTP API's long nardy answers: ``GET /v1/moves``, ``/v1/evaluate`` and ``/v1/cube`` with ``variant=long``.

Plain functions from a parsed query to the same answer models as backgammon's
(``bot.doors.http_views``), read from a long nardy Position ID (13 characters, the side
on roll's view, docs/long_nardy.md) and answered by the long nardy network
(the ``Bot`` of long nardy, ``bot.facade``). Long nardy has no backgammons and no Match ID: ``winG`` and
``loseG`` are mars, ``winBg`` and ``loseBg`` 0, play is for money with a centred cube.
"""

from __future__ import annotations

from bot.doors.http_views import (
    CubeResponse,
    EvaluateQuery,
    EvaluateResponse,
    MoveDetail,
    MovesQuery,
    MovesResponse,
    RankedMove,
    check_top,
    cube_response,
    probabilities_view,
)
from bot.facade import Bot, RankedPlay
from engine.board import validate_dice
from engine.errors import InvalidDiceError, quote
from engine.long_nardy import LongPosition, check_game_on, flip


def read_long_position(text: str) -> LongPosition:
    """The position of a long nardy Position ID as a query gives it (a '+' may arrive as a space), refused
    when no game is on in it (a side has borne off all its checkers, or one no game reaches)."""
    position = LongPosition.from_id(text.replace(" ", "+"))
    check_game_on(position.board, f"long nardy position {quote(text)}")
    return position


def _ranked_move(ranked: RankedPlay) -> RankedMove:
    return RankedMove(
        move=ranked.notation,
        play=[MoveDetail.model_validate({"from": s.src, "to": s.dst}) for s in ranked.play.steps],
        position_id=LongPosition(flip(ranked.afterstate)).id,
        probabilities=probabilities_view(ranked.probabilities),
        equity=ranked.equity,
        mwc=None,
        plies=ranked.plies,
    )


def moves(bot: Bot, query: MovesQuery) -> MovesResponse:
    """The legal plays of the dice, best first, with the mover's probabilities and equity after each."""
    position = read_long_position(query.position)
    if not query.dice:
        raise InvalidDiceError(
            f"position {quote(query.position)}: long nardy has no Match ID to hold dice, give dice=XY"
        )
    dice = validate_dice(query.dice)
    check_top(query)
    ranked = bot.rank_plays(position, dice, query.plies, top=query.top)
    return MovesResponse(
        variant="long",
        position_id=position.id,
        dice=dice,
        moves=[_ranked_move(r) for r in ranked],
    )


def evaluate(bot: Bot, query: EvaluateQuery) -> EvaluateResponse:
    """The probabilities, cubeless and cubeful money equity (centred cube) of the side on roll, before its roll."""
    position = read_long_position(query.position)
    result = bot.evaluate(position, plies=query.plies)
    return EvaluateResponse(
        variant="long",
        position_id=position.id,
        probabilities=probabilities_view(result.probabilities),
        cubeless_equity=result.cubeless_equity,
        cubeful_equity=result.cube.no_double,
        mwc=None,
        plies=query.plies,
    )


def cube(bot: Bot, query: EvaluateQuery) -> CubeResponse:
    """Double / no double for the side on roll (money, centred cube) and take / pass for its opponent: the
    cube module's model on the long nardy network's probabilities before the roll, mars as the gammon."""
    position = read_long_position(query.position)
    result = bot.evaluate(position, plies=query.plies)
    return cube_response(result.cube, result.probabilities, position.id, variant="long")
