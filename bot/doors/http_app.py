"""The HTTP application: FastAPI routes to the plain views of ``bot.doors.http_views``.

``create_app(bot)`` builds the application (OpenAPI description at ``/docs`` and
``/openapi.json``); ``serve`` runs it with uvicorn. Bad requests get status 400 and
``{"message": ...}`` naming the problem. Endpoints are plain functions run in
FastAPI's thread pool; the bot serialises its network calls with a lock.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from bot.doors import http_views as views
from bot.doors.http_views import (
    CubeResponse,
    ErrorMessage,
    EvalQuery,
    EvalResponse,
    EvaluateResponse,
    MoveQuery,
    MoveResponse,
    MovesQuery,
    MovesResponse,
    PositionQuery,
    ResignQuery,
    ResignResponse,
)
from bot.facade import Bot

# ---------------------------------------------------------------- errors


def _message(status: int, message: str) -> JSONResponse:
    return JSONResponse(status_code=status, content={"message": message})


def _validation_message(error: RequestValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(x) for x in item.get("loc", ()) if x not in ("query", "body"))
        parts.append(f"{where}: {item.get('msg', 'invalid')}" if where else item.get("msg", "invalid"))
    return "; ".join(parts) or "invalid request"


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def bad_query(request: Request, error: RequestValidationError) -> JSONResponse:
        return _message(400, _validation_message(error))

    @app.exception_handler(ValueError)
    async def bad_value(request: Request, error: ValueError) -> JSONResponse:
        # Every engine error (BackgammonError) is a ValueError naming the input.
        return _message(400, str(error))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return _message(error.status_code, str(error.detail))

    @app.exception_handler(Exception)
    async def server_error(request: Request, error: Exception) -> JSONResponse:
        return _message(500, f"internal error: {type(error).__name__}: {error}")


# ---------------------------------------------------------------- the application

_ERRORS = {400: {"model": ErrorMessage, "description": "the request does not describe a legal position/dice"}}


def create_app(bot: Bot) -> FastAPI:
    """The FastAPI application serving ``bot``."""
    app = FastAPI(
        title="nardy",
        description="A TD-Gammon-style backgammon bot. `/move` and `/eval` speak wildbg's API; "
        "`/v1/...` take GNU Backgammon Position IDs, Match IDs and XGIDs.",
        version="0.1.0",
    )
    _install_error_handlers(app)

    @app.get("/move", response_model=MoveResponse, responses=_ERRORS, tags=["wildbg"])
    def get_move(query: Annotated[MoveQuery, Query()]) -> MoveResponse:
        """Every legal play of the dice, best first, with the mover's probabilities after it."""
        return views.wildbg_move(bot, query)

    @app.get("/eval", response_model=EvalResponse, responses=_ERRORS, tags=["wildbg"])
    def get_eval(query: Annotated[EvalQuery, Query()]) -> EvalResponse:
        """Probabilities and cube decision of the side to move, before it rolls."""
        return views.wildbg_eval(bot, query)

    @app.get("/v1/moves", response_model=MovesResponse, responses=_ERRORS, tags=["positions"])
    def moves(query: Annotated[MovesQuery, Query()]) -> MovesResponse:
        """Legal plays ranked with probabilities and equities (dice from the query or the IDs)."""
        return views.moves(bot, query)

    @app.get("/v1/cube", response_model=CubeResponse, responses=_ERRORS, tags=["positions"])
    def cube(query: Annotated[PositionQuery, Query()]) -> CubeResponse:
        """Double / no double for the side on roll and take / pass for its opponent, with equities."""
        return views.cube(bot, query)

    @app.get("/v1/evaluate", response_model=EvaluateResponse, responses=_ERRORS, tags=["positions"])
    def evaluate(query: Annotated[PositionQuery, Query()]) -> EvaluateResponse:
        """Probabilities, cubeless and cubeful equity (and MWC in a match) of the side on roll."""
        return views.evaluate(bot, query)

    @app.get("/v1/resign", response_model=ResignResponse, responses=_ERRORS, tags=["positions"])
    def resign(query: Annotated[ResignQuery, Query()]) -> ResignResponse:
        """Should the side on roll resign, and should a resignation at ``value`` be accepted (either side)?"""
        return views.resign(bot, query)

    from bot.doors.web_app import add_web_routes  # the web board at /, /v1/game/..., /docs offline

    add_web_routes(app, bot)
    from bot.doors.analysis_app import add_analysis_routes  # POST /v1/analyze, GET /v1/rollout

    add_analysis_routes(app, bot)
    return app


def serve(bot: Bot, host: str, port: int) -> None:
    """Serve ``bot`` over HTTP on ``host``:``port`` until interrupted."""
    import uvicorn

    uvicorn.run(create_app(bot), host=host, port=port, log_level="info")
