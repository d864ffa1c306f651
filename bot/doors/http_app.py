"""The HTTP application: FastAPI routes to the plain views of ``bot.doors.http_views``.

``create_app(bot)`` builds the application (OpenAPI description at ``/docs`` and
``/openapi.json``); ``serve`` runs it with uvicorn. Bad requests (a query outside
the schema's bounds, any ``BackgammonError``) get status 400 and ``{"message": ...}``
naming the problem, quoting at most a little of the input; anything else is a bug:
500 with a generic message, the traceback in the log. Requests over
``MAX_REQUEST_BYTES`` get 413 (query strings over ``MAX_QUERY_BYTES`` 400). Endpoints are plain
functions run in FastAPI's thread pool; the bot serialises its network calls with a
lock, and 1-ply work (about 20 times a 0-ply request) goes through a semaphore
of ``ONE_PLY_SLOTS`` so that it cannot queue up ahead of everyone else: a
request that waits longer than ``ONE_PLY_WAIT`` seconds gets 503.
"""

from __future__ import annotations

import logging
import re
import threading
from contextlib import contextmanager
from typing import Annotated, Any, Iterator

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
from engine.errors import BackgammonError, quote

log = logging.getLogger(__name__)

# The longest query string read, and the largest body (the API takes none).
MAX_QUERY_BYTES = 2048
MAX_REQUEST_BYTES = 4096
# The longest error message sent back.
MAX_MESSAGE = 300
# 1-ply requests computed at once, and how long one waits for its turn.
ONE_PLY_SLOTS = 1
ONE_PLY_WAIT = 10.0

# ---------------------------------------------------------------- errors


def _message(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    return JSONResponse(status_code=status, content={"message": message}, headers=headers)


def _shown(value: object) -> str:
    """A query value as a message shows it: plain when short and simple, else quoted and cut."""
    if isinstance(value, str) and _SIMPLE.fullmatch(value):
        return value
    return quote(value, 30)


_SIMPLE = re.compile(r"[\w+/=:.-]{1,30}", re.ASCII)


def _validation_message(error: RequestValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(x) for x in item.get("loc", ()) if x not in ("query", "body"))
        given = "" if item.get("type") == "missing" or "input" not in item else f" {_shown(item['input'])}"
        msg = item.get("msg", "invalid")
        parts.append(f"{where}{given}: {msg}" if where else msg)
    return "; ".join(parts) or "invalid request"


class BusyError(Exception):
    """The server has too much 1-ply work queued: try again later (503)."""


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def bad_query(request: Request, error: RequestValidationError) -> JSONResponse:
        return _message(400, _validation_message(error))

    @app.exception_handler(BackgammonError)
    async def bad_input(request: Request, error: BackgammonError) -> JSONResponse:
        return _message(400, str(error))

    @app.exception_handler(BusyError)
    async def busy(request: Request, error: BusyError) -> JSONResponse:
        return _message(503, "busy with other 1-ply requests, try again shortly", {"Retry-After": "1"})

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        # Keep the headers Starlette sets (``Allow`` on 405).
        return _message(error.status_code, str(error.detail), getattr(error, "headers", None))

    @app.exception_handler(Exception)
    async def server_error(request: Request, error: Exception) -> JSONResponse:
        log.error("internal error answering %s %.200s", request.method, request.url.path, exc_info=error)
        return _message(500, "internal error")


def _install_size_limit(app: FastAPI) -> None:
    """Refuse long query strings and big bodies before any work; ``app.state.body_limits`` raises the limit by path."""
    app.state.body_limits = {}

    @app.middleware("http")
    async def size_limit(request: Request, call_next):
        if len(request.scope.get("query_string", b"")) > MAX_QUERY_BYTES:
            return _message(400, f"query string longer than {MAX_QUERY_BYTES} bytes")
        limit = app.state.body_limits.get(request.url.path, MAX_REQUEST_BYTES)
        length = request.headers.get("content-length", "0")
        if not length.isascii() or not length.isdigit() or len(length) > 12 or int(length) > limit:
            return _message(413, f"request body larger than {limit} bytes")
        if request.headers.get("transfer-encoding"):
            return _message(413, "chunked request bodies are not accepted")
        return await call_next(request)


_one_ply = threading.BoundedSemaphore(ONE_PLY_SLOTS)


@contextmanager
def _cost_bound(plies: int) -> Iterator[None]:
    """Let at most ``ONE_PLY_SLOTS`` searches deeper than 0-ply run at once; a request waits ``ONE_PLY_WAIT`` s at most."""
    if plies == 0:
        yield
        return
    if not _one_ply.acquire(timeout=ONE_PLY_WAIT):
        raise BusyError()
    try:
        yield
    finally:
        _one_ply.release()


# ---------------------------------------------------------------- the application

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorMessage, "description": "the request does not describe a legal position/dice"},
    413: {"model": ErrorMessage, "description": f"a request body over {MAX_REQUEST_BYTES} bytes"},
    503: {"model": ErrorMessage, "description": "too much 1-ply work queued; try again (Retry-After)"},
}


def create_app(bot: Bot) -> FastAPI:
    """The FastAPI application serving ``bot``."""
    app = FastAPI(
        title="nardy",
        description="A TD-Gammon-style backgammon bot. `/move` and `/eval` speak wildbg's API; "
        "`/v1/...` take GNU Backgammon Position IDs, Match IDs and XGIDs.",
        version="0.1.0",
    )
    _install_error_handlers(app)
    _install_size_limit(app)

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
        with _cost_bound(query.plies):
            return views.moves(bot, query)

    @app.get("/v1/cube", response_model=CubeResponse, responses=_ERRORS, tags=["positions"])
    def cube(query: Annotated[PositionQuery, Query()]) -> CubeResponse:
        """Double / no double for the side on roll and take / pass for its opponent, with equities."""
        with _cost_bound(query.plies):
            return views.cube(bot, query)

    @app.get("/v1/evaluate", response_model=EvaluateResponse, responses=_ERRORS, tags=["positions"])
    def evaluate(query: Annotated[PositionQuery, Query()]) -> EvaluateResponse:
        """Probabilities, cubeless and cubeful equity (and MWC in a match) of the side on roll."""
        with _cost_bound(query.plies):
            return views.evaluate(bot, query)

    @app.get("/v1/resign", response_model=ResignResponse, responses=_ERRORS, tags=["positions"])
    def resign(query: Annotated[ResignQuery, Query()]) -> ResignResponse:
        """Should the side on roll resign, and should a resignation at ``value`` be accepted (either side)?"""
        with _cost_bound(query.plies):
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
