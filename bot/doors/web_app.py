"""The web board's routes: the page at ``/``, its files under ``/web``, ``/v1/game/...``, offline ``/docs``.

``add_web_routes(app, bots)`` adds to the application of ``bot.doors.http_app.create_app``:

- ``GET /``: the web application (``bot/doors/web/index.html``; its CSS and JavaScript
  modules under ``/web/``, package data, no build step);
- ``POST /v1/game/...``: the stateless game steps of ``bot.doors.web_views`` in either game (the
  page holds the game token and sends it back; ``variant=long`` at ``/v1/game/new`` starts long
  nardy), each played by its game's bot, and ``GET /v1/game/board`` to draw a position;
- ``GET /rules/long-nardy``: the players' rules of long nardy (``bot.doors.web_rules``);
- ``GET /docs``: Swagger UI served from the installed ``fastapi_offline`` package's
  assets under ``/docs-assets/`` instead of a CDN, so that it renders offline (the
  application's own CDN-backed ``/docs`` and ``/redoc`` routes are replaced).

Errors are the application's: engine errors become 400 ``{"message": ...}``. The bot's decisions
above 0-ply (``plies`` or a playing level that searches) go through the application's queue for
heavy work (``bot.doors.http_limits``), 0-ply ones straight to the thread pool.
"""

from __future__ import annotations

from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from bot.doors.codecs import codec_of_token
from bot.doors import web_views as views
from bot.doors.http_limits import BUSY_RESPONSES, TOO_LARGE_RESPONSES, compute
from bot.doors.http_views import ErrorMessage
from bot.doors.web_rules import add_rules_routes
from bot.doors.web_views import BoardQuery, BoardView, GameRequest, GameView, NewGameRequest, PlayRequest, ResignRequest
from bot.facade import Bot, Bots

WEB_DIR = Path(__file__).resolve().parent / "web"
DOCS_ASSETS = "/docs-assets"
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ErrorMessage,
        "description": "an unreadable game token or position, or an action the game does not allow now",
    },
    **TOO_LARGE_RESPONSES,
}
_HEAVY_ERRORS = {**_ERRORS, **BUSY_RESPONSES}  # the routes whose work may go through the heavy queue
_TAGS: list[str | Enum] = ["game"]


def swagger_assets() -> Path:
    """The directory of Swagger UI's JavaScript and CSS in the installed ``fastapi_offline`` package."""
    return Path(str(resources.files("fastapi_offline") / "static"))


def _add_offline_docs(app: FastAPI) -> None:
    """Replace ``/docs`` (and drop ``/redoc``) by a Swagger UI page whose assets this server serves."""
    docs_url = app.docs_url or "/docs"
    replaced = {docs_url, app.redoc_url}
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) not in replaced]
    app.mount(DOCS_ASSETS, StaticFiles(directory=swagger_assets()), name="docs-assets")

    @app.get(docs_url, include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        )


def add_web_routes(app: FastAPI, bots: Bots) -> None:
    """Serve the web board at ``/``, its game endpoints under ``/v1/game`` (played by ``bots``, one per game),
    and ``/docs`` offline."""
    _add_offline_docs(app)

    def bot_of(request: GameRequest) -> Bot:
        """The bot of the game a request's token belongs to."""
        return bots[codec_of_token(request.game).variant]

    @app.post("/v1/game/new", response_model=GameView, responses=_ERRORS, tags=_TAGS)
    def new_game(request: NewGameRequest) -> GameView:
        """A new match (length 0: a money game) of backgammon or long nardy (``variant=long``) before its opening
        roll; the human is to roll."""
        return views.new_game(request)

    @app.post("/v1/game/view", response_model=GameView, responses=_ERRORS, tags=_TAGS)
    def show(request: GameRequest) -> GameView:
        """The game a token describes, to draw it (e.g. the next game of a match, before its opening roll)."""
        return views.show(request)

    @app.post("/v1/game/roll", response_model=GameView, responses=_ERRORS, tags=_TAGS)
    def roll(request: GameRequest) -> GameView:
        """The human's roll, dice from the server (``seed`` makes them repeatable); the opening roll decides who
        starts."""
        return views.roll(request)

    @app.post("/v1/game/play", response_model=GameView, responses=_ERRORS, tags=_TAGS)
    def play(request: PlayRequest) -> GameView:
        """The human's play of its dice, checked against the legal plays; the bot is on roll next, or the game is
        over."""
        return views.play(request)

    @app.post("/v1/game/bot", response_model=GameView, responses=_HEAVY_ERRORS, tags=_TAGS)
    async def bot_turn(http: Request, request: GameRequest) -> GameView:
        """The bot's turn: it offers to resign or doubles (the human must answer), or rolls and plays."""
        return await compute(http, views.searches(request), lambda: views.bot_turn(bot_of(request), request))

    @app.post("/v1/game/double", response_model=GameView, responses=_HEAVY_ERRORS, tags=_TAGS)
    async def double(http: Request, request: GameRequest) -> GameView:
        """The human doubles (Crawford and cube-ownership rules checked); the bot takes or passes."""
        return await compute(http, views.searches(request), lambda: views.double(bot_of(request), request))

    @app.post("/v1/game/take", response_model=GameView, responses=_ERRORS, tags=_TAGS)
    def take(request: GameRequest) -> GameView:
        """The human takes the bot's double; the bot rolls next."""
        return views.take(request)

    @app.post("/v1/game/pass", response_model=GameView, responses=_ERRORS, tags=_TAGS)
    def pass_double(request: GameRequest) -> GameView:
        """The human passes the bot's double and loses the current cube's value."""
        return views.pass_double(request)

    @app.post("/v1/game/resign", response_model=GameView, responses=_HEAVY_ERRORS, tags=_TAGS)
    async def resign(http: Request, request: ResignRequest) -> GameView:
        """The human resigns (single, gammon or backgammon); the bot accepts or plays on. Long nardy: the game
        ends at once, oin or mars (``level`` is not read)."""
        return await compute(http, views.searches(request), lambda: views.resign(bot_of(request), request))

    @app.post("/v1/game/accept", response_model=GameView, responses=_ERRORS, tags=_TAGS)
    def accept(request: GameRequest) -> GameView:
        """The human accepts the bot's resignation (phase resigned) and wins its level times the cube."""
        return views.accept_resignation(request)

    @app.post("/v1/game/reject", response_model=GameView, responses=_HEAVY_ERRORS, tags=_TAGS)
    async def reject(http: Request, request: GameRequest) -> GameView:
        """The human rejects the bot's resignation; the bot plays on (it doubles, or rolls and plays)."""
        return await compute(http, views.searches(request), lambda: views.reject_resignation(bot_of(request), request))

    @app.get("/v1/game/board", response_model=BoardView, responses=_ERRORS, tags=_TAGS)
    def board(query: Annotated[BoardQuery, Query()]) -> BoardView:
        """The board, dice, pips and match of a Position ID, PositionID:MatchID or XGID, to draw it."""
        return views.board(query)

    app.mount("/web", StaticFiles(directory=WEB_DIR), name="web")
    add_rules_routes(app)  # /rules/long-nardy, the players' rules of long nardy

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html")
