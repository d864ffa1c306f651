"""The HTTP application: FastAPI routes to the plain views of ``bot.doors.http_views``.

``create_app(bot)`` builds the application (OpenAPI description at ``/docs`` and
``/openapi.json``); ``serve`` runs it with uvicorn. Bad requests (a query outside
the schema's bounds, any ``BackgammonError``) get status 400 and ``{"message": ...}``
naming the problem, quoting at most a little of the input; anything else is a bug:
500 with a generic message, the traceback in the log. Requests over
``MAX_REQUEST_BYTES`` get 413 (query strings over ``MAX_QUERY_BYTES`` 400). 0-ply requests run in
FastAPI's thread pool; everything deeper (searches above 0-ply, rollouts, match analysis) goes through
the one bounded queue of ``bot.doors.http_limits`` (``Limits``: a few slots, a short wait, 503 with
Retry-After when full, 400 when a request's estimated work is over the limit, cancelled when the
client leaves or the server stops). ``serve`` bounds slow clients (headers, body, keep-alive) and
stops within a few seconds of SIGTERM (``docs/http_limits.md``).
"""

from __future__ import annotations

import logging
import re
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any, AsyncIterator, Optional, Sequence

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.doors import http_views as views
from bot.search.cancel import Cancelled
from bot.doors.http_limits import (
    BUSY_RESPONSES,
    TOO_LARGE_RESPONSES,
    BodyDeadline,
    BusyError,
    HeavyQueue,
    Limits,
    compute,
    header_timeout_protocol,
)
from bot.doors.http_views import (
    CubeResponse,
    ErrorMessage,
    EvalQuery,
    EvaluateQuery,
    EvalResponse,
    EvaluateResponse,
    MoveQuery,
    MoveResponse,
    MovesQuery,
    MovesResponse,
    ResignQuery,
    ResignResponse,
)
from bot.facade import Bot, Bots
from engine.errors import BackgammonError, quote

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger(__name__)

# The longest query string read, and the largest body (the API takes none).
MAX_QUERY_BYTES = 2048
MAX_REQUEST_BYTES = 4096
# The longest error message sent back.
MAX_MESSAGE = 300

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


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def bad_query(request: Request, error: RequestValidationError) -> JSONResponse:
        return _message(400, _validation_message(error))

    @app.exception_handler(BackgammonError)
    async def bad_input(request: Request, error: BackgammonError) -> JSONResponse:
        return _message(400, str(error))

    @app.exception_handler(BusyError)
    async def busy(request: Request, error: BusyError) -> JSONResponse:
        return _message(503, f"busy: {error}; try again shortly", {"Retry-After": "2"})

    @app.exception_handler(ClientDisconnect)
    async def client_gone(request: Request, error: ClientDisconnect) -> JSONResponse:
        # Not an error of ours: one line, no traceback; the answer goes nowhere.
        log.info("client left during %s %.200s", request.method, request.url.path)
        return _message(400, "client disconnected")

    @app.exception_handler(Cancelled)
    async def cancelled(request: Request, error: Cancelled) -> JSONResponse:
        log.info("work of %s %.200s cancelled (client gone or server stopping)", request.method, request.url.path)
        return _message(503, "cancelled: the server is stopping or the client left", {"Retry-After": "2"})

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        # Keep the headers Starlette sets (``Allow`` on 405).
        return _message(error.status_code, str(error.detail), getattr(error, "headers", None))

    @app.exception_handler(Exception)
    async def server_error(request: Request, error: Exception) -> JSONResponse:
        log.error("internal error answering %s %.200s", request.method, request.url.path, exc_info=error)
        return _message(500, "internal error")


def _size_refusal(scope: Scope, body_limits: dict[str, int]) -> Optional[JSONResponse]:
    """The answer to a request whose query string or declared body is too long, else None."""
    if len(scope.get("query_string", b"")) > MAX_QUERY_BYTES:
        return _message(400, f"query string longer than {MAX_QUERY_BYTES} bytes")
    headers = Headers(scope=scope)
    limit = body_limits.get(scope.get("path", ""), MAX_REQUEST_BYTES)
    length = headers.get("content-length", "0")
    if not length.isascii() or not length.isdigit() or len(length) > 12 or int(length) > limit:
        return _message(413, f"request body larger than {limit} bytes")
    if headers.get("transfer-encoding"):
        return _message(413, "chunked request bodies are not accepted")
    return None


class _SizeLimit:
    """ASGI middleware refusing long query strings and big bodies before any work.

    A plain ASGI middleware rather than ``@app.middleware("http")``: Starlette's HTTP middleware
    runs the app in a task group, which wraps exceptions from reading the body in an exception
    group and hides the client's disconnect from the heavy queue's watch.
    """

    def __init__(self, app: ASGIApp, state: Any) -> None:
        self.app, self.state = app, state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = _size_refusal(scope, self.state.body_limits) if scope["type"] == "http" else None
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _install_size_limit(app: FastAPI) -> None:
    """Refuse long query strings and big bodies before any work; ``app.state.body_limits`` raises the limit by path."""
    app.state.body_limits = {}
    app.add_middleware(_SizeLimit, state=app.state)


# ---------------------------------------------------------------- the application

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ErrorMessage,
        "description": "the request does not describe a legal position/dice, or asks for "
        "more work than the server's limit",
    },
    **TOO_LARGE_RESPONSES,
    **BUSY_RESPONSES,
}


def limits_description(limits: Limits) -> str:
    """The limits as the OpenAPI description states them (docs/http_limits.md says more)."""
    return (
        "**Limits.** 0-ply requests are answered at once. Everything deeper (`plies` 1 or 2, a playing level that "
        f"searches, `/v1/rollout`, `/v1/analyze`) waits for one of {limits.heavy_slots} search slot(s), at most "
        f"{limits.heavy_wait:g} s and behind at most {limits.heavy_queue} other requests, else 503 with Retry-After; "
        f"it is cancelled when the client disconnects, after {limits.work_seconds:g} s (503), "
        "or when the server stops. "
        f"A rollout or analysis whose estimated work is over {limits.max_work} trial-plies (trials x plies "
        "x positions rolled out; about 8 per .mat action at 0-ply, 16 at 1-ply) gets 400 naming the limit. "
        f"Request headers must arrive within {limits.header_timeout:g} s "
        f"and a body within {limits.body_timeout:g} s (408)."
    )


def create_app(bot: Bot, limits: Optional[Limits] = None, others: Sequence[Bot] = ()) -> FastAPI:
    """The FastAPI application serving ``bot`` and ``others`` (one bot per game, ``bot.facade.Bots``: a game's
    bot not given is its shipped one, loaded on first use) within ``limits`` (default ``Limits()``)."""
    bots = Bots(bot, *others)
    limits = limits or Limits()
    queue = HeavyQueue(limits)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        queue.start()
        yield
        queue.stop()
        queue.close()

    app = FastAPI(
        title="nardy",
        description="A neural-network bot for backgammon and long nardy: the web board at `/` (play, analyse "
        "a position, analyse a match) and this JSON API. `/move` and `/eval` speak wildbg's API; "
        "`/v1/...` take GNU Backgammon Position IDs, Match IDs and XGIDs, and "
        "with `variant=long` long nardy Position IDs.\n\n" + limits_description(limits),
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.heavy_queue = queue
    app.state.limits = limits
    app.state.bots = bots
    _install_error_handlers(app)
    _install_size_limit(app)
    app.add_middleware(BodyDeadline, seconds=limits.body_timeout)

    @app.get("/move", response_model=MoveResponse, responses=_ERRORS, tags=["wildbg"])
    def get_move(query: Annotated[MoveQuery, Query()]) -> MoveResponse:
        """Every legal play of the dice, best first, with the mover's probabilities after it."""
        return views.wildbg_move(bot, query)

    @app.get("/eval", response_model=EvalResponse, responses=_ERRORS, tags=["wildbg"])
    def get_eval(query: Annotated[EvalQuery, Query()]) -> EvalResponse:
        """Probabilities and cube decision of the side to move, before it rolls."""
        return views.wildbg_eval(bot, query)

    @app.get("/v1/moves", response_model=MovesResponse, responses=_ERRORS, tags=["positions"])
    async def moves(request: Request, query: Annotated[MovesQuery, Query()]) -> MovesResponse:
        """Legal plays ranked with probabilities and equities (dice from the query or the IDs); ``variant=long``:
        long nardy."""
        return await compute(request, query.plies > 0, lambda: views.moves(bots[query.variant], query))

    @app.get("/v1/cube", response_model=CubeResponse, responses=_ERRORS, tags=["positions"])
    async def cube(request: Request, query: Annotated[EvaluateQuery, Query()]) -> CubeResponse:
        """Double / no double for the side on roll and take / pass for its opponent, with equities; ``variant=long``:
        long nardy, money play with a centred cube."""
        return await compute(request, query.plies > 0, lambda: views.cube(bots[query.variant], query))

    @app.get("/v1/evaluate", response_model=EvaluateResponse, responses=_ERRORS, tags=["positions"])
    async def evaluate(request: Request, query: Annotated[EvaluateQuery, Query()]) -> EvaluateResponse:
        """Probabilities, cubeless and cubeful equity (and MWC in a match) of the side on roll; ``variant=long``:
        long nardy."""
        return await compute(request, query.plies > 0, lambda: views.evaluate(bots[query.variant], query))

    @app.get("/v1/resign", response_model=ResignResponse, responses=_ERRORS, tags=["positions"])
    async def resign(request: Request, query: Annotated[ResignQuery, Query()]) -> ResignResponse:
        """Should the side on roll resign, and should a resignation at ``value`` be accepted (either side)?
        ``variant=long``: long nardy, oin (single) or mars."""
        return await compute(request, query.plies > 0, lambda: views.resign(bots[query.variant], query))

    from bot.doors.cube_views import add_cube_matrix_route  # GET /v1/cube/matrix

    add_cube_matrix_route(app)
    from bot.doors.web_app import add_web_routes  # the web board at /, /v1/game/..., /docs offline

    add_web_routes(app, bots)
    from bot.doors.analysis_app import add_analysis_routes  # POST /v1/analyze, GET /v1/rollout

    add_analysis_routes(app)
    return app


def make_server(
    bot: Bot, host: str, port: int, limits: Optional[Limits] = None, log_level: str = "info"
) -> "uvicorn.Server":
    """The uvicorn server of ``create_app(bot, limits)`` on ``host``:``port`` (0: a free port), not yet running.

    Slow clients are bounded (``Limits.header_timeout``, ``body_timeout``, ``keep_alive``); on SIGTERM
    or Ctrl-C the queue's jobs are cancelled at once and open requests get ``Limits.shutdown_grace`` seconds.
    """
    import uvicorn

    limits = limits or Limits()
    app = create_app(bot, limits)
    queue: HeavyQueue = app.state.heavy_queue

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            queue.stop()  # sets flags only: safe in a signal handler
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=header_timeout_protocol(limits.header_timeout),
        timeout_keep_alive=limits.keep_alive,
        timeout_graceful_shutdown=limits.shutdown_grace,
    )
    return Server(config)


def serve(bot: Bot, host: str, port: int, limits: Optional[Limits] = None) -> None:
    """Serve ``bot`` over HTTP on ``host``:``port`` until interrupted; SIGTERM cancels the work in progress."""
    make_server(bot, host, port, limits).run()
