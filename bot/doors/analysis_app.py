"""The analysis routes of the HTTP API: ``POST /v1/analyze``, ``GET /v1/rollout`` and ``GET /v1/setup``.

``add_analysis_routes(app)`` adds them to ``bot.doors.http_app.create_app``'s
application; the views are ``bot.doors.analysis_views``. ``/v1/analyze`` takes the
.mat, .sgf or .xg file as the raw request body (``curl --data-binary @match.mat``), a .mat at most
32 KB (8 KB at 1-ply), a .sgf or .xg 512 KB, and reads it in the application's queue for heavy work
(``bot.doors.http_limits``) within ``analysis_views.upload_bounds`` (games, actions, nodes); ``/v1/rollout``
bounds the trials (1,296) and the truncation (20 plies). Both are refused (400) when their estimated work
is over the server's ``Limits.max_work``, and computed through the heavy queue, cancelled when the client leaves.
Errors are the application's: engine errors become 400 ``{"message": ...}``.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from starlette.concurrency import run_in_threadpool

from bot.play.analysis import AnalysisError
from bot.doors import analysis_views as views
from bot.doors.analysis_views import MAX_MAT_BYTES, MAX_SGF_BYTES, MAX_UPLOAD_BYTES, RolloutQuery, SetupQuery, SetupView
from bot.doors.http_limits import BUSY_RESPONSES, TOO_LARGE_RESPONSES, compute
from bot.doors.http_views import ErrorMessage

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorMessage, "description": "a damaged match file, a bad position, or a bound exceeded"},
    **TOO_LARGE_RESPONSES,
}
_HEAVY_ERRORS = {**_ERRORS, **BUSY_RESPONSES}  # the routes whose work goes through the heavy queue
_TAGS: list[str | Enum] = ["analysis"]
_MAT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "text/plain": {
                "schema": {
                    "type": "string",
                    "description": f"a Jellyfish .mat (at most {MAX_MAT_BYTES} bytes) or GNU Backgammon .sgf "
                    f"(at most {MAX_SGF_BYTES} bytes) match, money session or game, UTF-8; the format is read "
                    "from the content",
                }
            },
            "application/octet-stream": {
                "schema": {
                    "type": "string",
                    "format": "binary",
                    "description": f"an eXtreme Gammon .xg match or session (at most {MAX_SGF_BYTES} bytes), "
                    "as the file holds it",
                }
            },
        },
    }
}


async def _bounded_body(request: Request) -> bytes:
    """The request body, refused (AnalysisError) as soon as it passes ``MAX_UPLOAD_BYTES``."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_UPLOAD_BYTES:
        raise AnalysisError(f"uploaded file of {declared} bytes: at most {MAX_UPLOAD_BYTES} are analysed")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_UPLOAD_BYTES:
            raise AnalysisError(f"uploaded file over {MAX_UPLOAD_BYTES} bytes: at most {MAX_UPLOAD_BYTES} are analysed")
        chunks.append(chunk)
    return b"".join(chunks)


def add_analysis_routes(app: FastAPI) -> None:
    """Serve ``POST /v1/analyze``, ``GET /v1/rollout`` and ``GET /v1/setup`` for the bot of each game
    (``app.state.bots``)."""
    app.state.body_limits["/v1/analyze"] = MAX_UPLOAD_BYTES  # a .mat, .sgf or .xg file, not a small JSON body

    @app.post("/v1/analyze", responses=_HEAVY_ERRORS, tags=_TAGS, openapi_extra=_MAT_BODY)
    async def analyze(request: Request, plies: Annotated[int, Query(ge=0, le=1)] = 0) -> dict:
        """Every checker play and cube decision of a .mat, .sgf or .xg match analysed: per-player statistics (error
        rates in mEMG, PR, luck) and every decision with its error and mark, as ``nardy analyze --json``."""
        body = await _bounded_body(request)
        upload = await run_in_threadpool(views.check_upload, body, plies)  # format and size, before queueing
        # Read and analysed in the heavy queue: bounded, one slot at a time, cancelled when the client leaves.
        return await compute(request, True, lambda: views.analyze(app.state.bots, upload, app.state.limits))

    @app.get("/v1/rollout", responses=_HEAVY_ERRORS, tags=_TAGS)
    async def rollout(request: Request, query: Annotated[RolloutQuery, Query()]) -> dict:
        """A rollout of the position before the roll (side on roll), or of the best plays of ``dice`` (the
        mover's after each), as ``nardy rollout --json``: probabilities, equity, standard errors. Refused
        (400) when its work, trials x truncation x positions, is over the server's limit (see the API's
        description)."""
        views.check_rollout(query, app.state.limits)
        return await compute(request, True, lambda: views.rollout(app.state.bots[query.variant], query))

    @app.get("/v1/setup", response_model=SetupView, responses=_ERRORS, tags=_TAGS)
    def setup(query: Annotated[SetupQuery, Query()]) -> SetupView:
        """The Position ID and Match ID of a situation set up on the web board (checkers seen by the bottom
        player, side on roll, dice, cube, score, match length, Crawford), and the game token to play on from it."""
        return views.setup(query)
