"""``GET /v1/cube/matrix``: a position's cube decision for money and at every score of a match
(``bot.play.score_matrix``).

``add_cube_matrix_route(app)`` adds it to ``bot.doors.http_app.create_app``'s application; the answer is
``nardy cube POSITION --matrix N --json``'s object. A matrix is up to 625 cube decisions, so it goes through
the heavy-work queue, and at 1-ply the match is bounded shorter (``MAX_ONE_PLY_LENGTH``).
Bad input is the application's 400 ``{"message"}``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from pydantic import BaseModel, Field

from bot.doors.bounds import MAX_MATCH_LENGTH
from bot.doors.cube_command import cube_json
from bot.doors.http_limits import BUSY_RESPONSES, compute
from bot.doors.http_views import ErrorMessage
from bot.doors.codecs import ApiName, codec_for
from bot.facade import Bot, check_game_on
from bot.play.score_matrix import ScoreMatrixError

# 1-ply looks one roll ahead for each of a matrix's decisions (about 0.07 s each here): 7x7 keeps it to seconds.
MAX_ONE_PLY_LENGTH = 7


class CubeMatrixQuery(BaseModel):
    position: str = Field(
        description="Position ID, PositionID:MatchID or XGID; with variant=long a long nardy Position ID "
        "(its cube and score are set aside)"
    )
    variant: ApiName = Field("backgammon", description="backgammon, or long (long nardy, its match equity table)")
    length: int = Field(
        0,
        ge=0,
        le=MAX_MATCH_LENGTH,
        description=f"the match length of the matrix (1..{MAX_MATCH_LENGTH}); 0: money only",
    )
    plies: int = Field(0, ge=0, le=1, description=f"search depth; at 1-ply the length is at most {MAX_ONE_PLY_LENGTH}")


def check_matrix(query: CubeMatrixQuery) -> None:
    """Refuse, before any work, a bad position or a matrix too long for its depth."""
    if query.plies and query.length > MAX_ONE_PLY_LENGTH:
        raise ScoreMatrixError(
            f"length {query.length}: at 1-ply the score matrix covers at most {MAX_ONE_PLY_LENGTH} points"
        )
    codec = codec_for(query.variant)
    check_game_on(codec.read_position(query.position).board, codec.variant)


def cube_matrix(bot: Bot, query: CubeMatrixQuery) -> dict:
    """The money decisions and (with a length) the score matrix of the query's position, in ``bot``'s game."""
    check_matrix(query)
    return cube_json(bot, query.position, query.length or None, query.plies)


def add_cube_matrix_route(app: FastAPI) -> None:
    """Serve ``GET /v1/cube/matrix`` for the bot of each game (``app.state.bots``)."""
    errors: dict[int | str, dict[str, Any]] = {
        400: {"model": ErrorMessage, "description": "a bad position or bound"},
        **BUSY_RESPONSES,
    }

    @app.get("/v1/cube/matrix", responses=errors, tags=["positions"])
    async def matrix(request: Request, query: Annotated[CubeMatrixQuery, Query()]) -> dict:
        """The side on roll's cube decision (cube centred) at every score of a ``length``-point match, rows its
        points to go and columns the opponent's (post-Crawford where one side is 1-away; the Crawford game has
        no cube), each cell labelled D/T, D/P, ND/T, TG/T, TG/P with the doubling and take margins; and the
        money decisions with the cube centred, centred under the Jacoby rule, and owned."""
        check_matrix(query)  # refused before queueing
        return await compute(request, True, lambda: cube_matrix(app.state.bots[query.variant], query))
