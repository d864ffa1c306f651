"""The analysis routes of the HTTP API: ``POST /v1/analyze`` and ``GET /v1/rollout``.

``add_analysis_routes(app, bot)`` adds them to ``bot.doors.http_app.create_app``'s
application; the views are ``bot.doors.analysis_views``. ``/v1/analyze`` takes the
.mat file as the raw request body (``curl --data-binary @match.mat``), at most
32 KB (8 KB at 1-ply); ``/v1/rollout`` bounds the trials (1,296) and the truncation (20 plies).
Errors are the application's: engine errors become 400 ``{"message": ...}``.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from starlette.concurrency import run_in_threadpool

from bot.analysis import AnalysisError
from bot.doors import analysis_views as views
from bot.doors.analysis_views import MAX_MAT_BYTES, RolloutQuery
from bot.doors.http_views import ErrorMessage
from bot.facade import Bot

_ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": ErrorMessage, "description": "a damaged .mat file, a bad position, or a bound exceeded"}}
_TAGS: list[str | Enum] = ["analysis"]
_MAT_BODY = {"requestBody": {"required": True, "content": {"text/plain": {"schema": {
    "type": "string", "description": f"a Jellyfish .mat match or money session, UTF-8, at most {MAX_MAT_BYTES} bytes"}}}}}


async def _bounded_body(request: Request) -> bytes:
    """The request body, refused (AnalysisError) as soon as it passes ``MAX_MAT_BYTES``."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_MAT_BYTES:
        raise AnalysisError(f".mat file of {declared} bytes: at most {MAX_MAT_BYTES} are analysed")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_MAT_BYTES:
            raise AnalysisError(f".mat file over {MAX_MAT_BYTES} bytes: at most {MAX_MAT_BYTES} are analysed")
        chunks.append(chunk)
    return b"".join(chunks)


def add_analysis_routes(app: FastAPI, bot: Bot) -> None:
    """Serve ``POST /v1/analyze`` and ``GET /v1/rollout`` for ``bot``."""
    app.state.body_limits["/v1/analyze"] = MAX_MAT_BYTES  # a .mat file, not a small JSON body

    @app.post("/v1/analyze", responses=_ERRORS, tags=_TAGS, openapi_extra=_MAT_BODY)
    async def analyze(request: Request, plies: Annotated[int, Query(ge=0, le=1)] = 0) -> dict:
        """Every checker play and cube decision of a .mat match analysed: per-player statistics (error rates in
        mEMG, PR, luck) and every decision with its error and mark, as ``nardy analyze --json``."""
        body = await _bounded_body(request)
        return await run_in_threadpool(views.analyze, bot, body, plies)

    @app.get("/v1/rollout", responses=_ERRORS, tags=_TAGS)
    def rollout(query: Annotated[RolloutQuery, Query()]) -> dict:
        """A rollout of the position before the roll (side on roll), or of the best plays of ``dice`` (the
        mover's after each), as ``nardy rollout --json``: probabilities, equity, standard errors."""
        return views.rollout(bot, query)
