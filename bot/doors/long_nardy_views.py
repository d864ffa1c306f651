"""The HTTP API's long nardy answers: ``GET /v1/moves``, ``/v1/evaluate`` and ``/v1/cube`` with ``variant=long``.

Plain functions from a parsed query to the same answer models as backgammon's
(``bot.doors.http_views``), read from a long nardy Position ID (13 characters, the side
on roll's view, docs/long_nardy.md) and answered by the long nardy network
(``bot.play.long_nardy``). Long nardy has no backgammons and no Match ID: ``winG`` and
``loseG`` are mars, ``winBg`` and ``loseBg`` 0, play is for money with a centred cube.
"""

from __future__ import annotations

import functools

import numpy as np

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
from bot.equity.outcomes import equity
from bot.evaluation.evaluator import NetworkEvaluator
from bot.play.long_nardy import (
    RankedPlay,
    load_long_nardy_player,
    money_cube_decision,
    position_probabilities,
    rank_plays,
)
from engine.board import validate_dice
from engine.errors import InvalidDiceError, quote
from engine.long_nardy import LongPosition, check_game_on


@functools.cache
def long_nardy_player() -> NetworkEvaluator:
    """The shipped long nardy network, loaded once per process on first use (the server answers both games)."""
    return load_long_nardy_player()


def read_long_position(text: str) -> LongPosition:
    """The position of a long nardy Position ID as a query gives it (a '+' may arrive as a space), refused
    when no game is on in it (a side has borne off all its checkers, or one no game reaches)."""
    position = LongPosition.from_id(text.replace(" ", "+"))
    check_game_on(position.board, f"long nardy position {quote(text)}")
    return position


def five_of(three: tuple[float, float, float]) -> np.ndarray:
    """The five probabilities of docs/DESIGN.md from long nardy's three (win, win mars, lose mars)."""
    win, win_mars, lose_mars = three
    return np.array([win, win_mars, 0.0, lose_mars, 0.0])


def _ranked_move(ranked: RankedPlay) -> RankedMove:
    return RankedMove(
        move=ranked.move,
        play=[MoveDetail.model_validate({"from": s.src, "to": s.dst}) for s in ranked.play.steps],
        position_id=ranked.position_id,
        probabilities=probabilities_view(five_of(ranked.probabilities)),
        equity=ranked.equity,
        mwc=None,
        plies=ranked.plies,
    )


def moves(query: MovesQuery) -> MovesResponse:
    """The legal plays of the dice, best first, with the mover's probabilities and equity after each."""
    position = read_long_position(query.position)
    if not query.dice:
        raise InvalidDiceError(
            f"position {quote(query.position)}: long nardy has no Match ID to hold dice, give dice=XY"
        )
    dice = validate_dice(query.dice)
    check_top(query)
    ranked = rank_plays(long_nardy_player(), position.board, dice, query.plies)
    return MovesResponse(
        variant="long",
        position_id=position.id,
        dice=dice,
        moves=[_ranked_move(r) for r in ranked[: query.top]],
    )


def evaluate(query: EvaluateQuery) -> EvaluateResponse:
    """The probabilities, cubeless and cubeful money equity (centred cube) of the side on roll, before its roll."""
    position = read_long_position(query.position)
    five = position_probabilities(long_nardy_player(), position.board, query.plies)
    return EvaluateResponse(
        variant="long",
        position_id=position.id,
        probabilities=probabilities_view(five),
        cubeless_equity=float(equity(five)),
        cubeful_equity=money_cube_decision(position.board, five).no_double,
        mwc=None,
        plies=query.plies,
    )


def cube(query: EvaluateQuery) -> CubeResponse:
    """Double / no double for the side on roll (money, centred cube) and take / pass for its opponent: the
    cube module's model on the long nardy network's probabilities before the roll, mars as the gammon."""
    position = read_long_position(query.position)
    five = position_probabilities(long_nardy_player(), position.board, query.plies)
    return cube_response(money_cube_decision(position.board, five), five, position.id, variant="long")
