"""The analysis endpoints' views: plain functions from a parsed request to JSON data (no web framework).

- ``check_upload(body, plies)``: an uploaded .mat, .sgf or .xg file's checks before it is queued (depth,
  format, size); ``analyze(bot, upload, limits)``, run in the heavy queue: the file read within
  ``upload_bounds`` (games, actions, nodes, nesting; cancelled with the request) and analysed
  (``bot.play.analysis``), as ``MatchAnalysis.to_json()`` with the match's chart (SVG); a damaged file
  raises an engine error naming the line, one past a bound ``engine.matfile.FileBoundError`` naming it.
- ``rollout(bot, query)``: ``bot.doors.rollout_command.rollout_json`` with bounds on the
  trials, the truncation and the number of plays, so one request stays short.
- ``check_rollout(query, limits)``: the checks made before a rollout is queued, the server's cost limit
  among them (``bot.doors.http_limits``).
- ``setup(query)``: a situation set up on the web board (checkers, side on roll, dice, cube,
  score, match length, Crawford) as GNU Backgammon's Position ID and Match ID, read back
  by ``engine.game.from_ids`` so that an impossible one is refused naming what is wrong.

Perspective as in the command line: the rollout's figures are the side on roll's (with
dice: the mover's after each play); the analysis gives each decision in its player's view.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from bot.play.analysis import AnalysisError, analyze_match
from bot.doors.bounds import MAX_MATCH_LENGTH, MAX_SEED
from bot.doors.http_limits import Limits, analysis_work, check_work, rollout_work
from bot.search.cancel import check_cancelled
from bot.doors.match_chart import match_chart_svg
from bot.doors.situation import Situation
from bot.doors.codecs import ApiName, codec_for
from bot.doors.rollout_command import rollout_json
from bot.facade import Bot
from bot.search.rollout import RolloutSettings
from engine.board import flip, validate_dice
from engine.errors import InvalidMatchError
from engine.game import Game, Phase, from_ids
from engine.match import MAX_CUBE, MatchState
from engine.matchfiles import FileKind, kind_of_bytes, read_match
from engine.xgfile import parse_xg
from engine.matfile import MatMatch, ReadBounds
from engine.position import Position
from engine.position_id import decode_position_id

# Bounds that keep one request to seconds: analysis time grows with the match file's size, and
# 1-ply costs more per decision than 0-ply, so 1-ply gets the smaller bound (docs/analysis.md).
MAX_MAT_BYTES = 32 * 1024
MAX_ONE_PLY_BYTES = 8 * 1024
# A GNU Backgammon .sgf or eXtreme Gammon .xg is bulkier than the .mat of the same match (each stores its
# program's evaluations: a 3-point match gnubg played runs to 100-200 KB of .sgf, a 7-point match of XG's
# to about 110 KB of .xg), so it is bounded by its actions instead, as many as the .mat bounds allow (a
# .mat line of two actions takes about 26 bytes an action).
MAX_SGF_BYTES = 512 * 1024
MAT_BYTES_PER_ACTION = 26
MAX_UPLOAD_BYTES = max(MAX_MAT_BYTES, MAX_SGF_BYTES)
# Games of one uploaded file: a 25-point match has about 60, a long money session at the action bound
# (1,260 at 0-ply) a few more; each game costs its own replay and its own part of the answer.
MAX_UPLOAD_GAMES = 200
MAX_TRIALS = 1296
MAX_TRUNCATE = 20
DEFAULT_HTTP_TRUNCATE = 10
MAX_CANDIDATES = 5
ANALYSIS_PLIES = (0, 1)


class RolloutQuery(BaseModel):
    position: str = Field(
        description="Position ID, PositionID:MatchID or XGID; with variant=long a long nardy Position ID"
    )
    variant: ApiName = Field("backgammon", description="backgammon, or long (long nardy; cubeful is backgammon's only)")
    dice: Optional[str] = Field(None, description="a roll, e.g. 31: roll out its best plays instead")
    trials: int = Field(324, ge=2, le=MAX_TRIALS, description=f"games per position (2..{MAX_TRIALS})")
    truncate: int = Field(
        DEFAULT_HTTP_TRUNCATE,
        ge=0,
        le=MAX_TRUNCATE,
        description=f"plies per trial before the network's estimate (0..{MAX_TRUNCATE})",
    )
    vr: bool = Field(True, description="variance reduction")
    cubeful: bool = Field(False, description="also the cube decision, from cubeful trials (no double and double/take)")
    seed: Optional[int] = Field(
        None, ge=0, le=MAX_SEED, description=f"random seed, for repeatable answers (0..{MAX_SEED})"
    )
    candidates: int = Field(3, ge=1, le=MAX_CANDIDATES, description="with dice: how many plays to roll out")


def _dice(text: Optional[str]) -> Optional[tuple[int, int]]:
    return None if text is None else validate_dice(text)


def _rollout_of(query: RolloutQuery) -> tuple[Situation, Optional[tuple[int, int]]]:
    """The position and dice of a rollout query, read by its game's codec (engine errors name what is wrong)."""
    situation = codec_for(query.variant).read_position(query.position)
    return situation, (_dice(query.dice) if query.dice else situation.dice)


def check_rollout(query: RolloutQuery, limits: Limits) -> None:
    """Refuse, before any work, a rollout query with a bad position or dice, or over ``limits.max_work``."""
    _, dice = _rollout_of(query)
    work = rollout_work(
        query.trials, query.truncate, query.vr, query.cubeful, query.candidates if dice is not None else None
    )
    check_work("rollout", work, limits, "ask for fewer trials, a shorter truncation or fewer candidates")


def rollout(bot: Bot, query: RolloutQuery) -> dict:
    """The rollout JSON of ``nardy rollout --json`` for the query (0-ply checker play in the trials)."""
    situation, dice = _rollout_of(query)
    settings = RolloutSettings(trials=query.trials, truncate=query.truncate, variance_reduction=query.vr)
    return rollout_json(bot, situation, dice, settings, query.seed, query.cubeful, query.candidates)


@dataclass(frozen=True)
class Upload:
    """An uploaded match file, checked before it is queued: its bytes, format (".mat", ".sgf", ".xg"), text
    (empty for an .xg) and the analysis depth asked for."""

    body: bytes
    kind: str
    text: str
    plies: int


def check_upload(body: bytes, plies: int) -> Upload:
    """Refuse (an engine error), before any parsing or queueing, a bad depth, bytes that are neither an .xg nor
    UTF-8, a list of positions, and a file over its format's size bound at ``plies``."""
    if plies not in ANALYSIS_PLIES:
        raise AnalysisError(f"plies {plies}: expected one of {ANALYSIS_PLIES}")
    file_kind, text = kind_of_bytes(body, "uploaded file")
    if file_kind is FileKind.POSITIONS:
        raise AnalysisError("uploaded file: a list of positions, not a match (`nardy analyze` reads lists)")
    if file_kind in (FileKind.XG, FileKind.SGF):
        kind, limit = f".{file_kind.value}", MAX_SGF_BYTES
    else:
        kind, limit = ".mat", MAX_MAT_BYTES if not plies else MAX_ONE_PLY_BYTES
    if len(body) > limit:
        raise AnalysisError(f"{kind} file of {len(body)} bytes: at {plies}-ply at most {limit} are analysed")
    return Upload(body, kind, text, plies)


def upload_bounds(upload: Upload, limits: Limits) -> ReadBounds:
    """What the reader of ``upload`` reads before refusing it: ``MAX_UPLOAD_GAMES`` games; the actions whose
    analysis is within ``limits.max_work`` (a .sgf or .xg: no more than its .mat's size bound allows); two nodes
    an action and four a game. The reading stops when the request is cancelled (``bot.search.cancel``)."""
    actions = limits.max_work // analysis_work(1, upload.plies)
    if upload.kind != ".mat":
        actions = min(actions, (MAX_ONE_PLY_BYTES if upload.plies else MAX_MAT_BYTES) // MAT_BYTES_PER_ACTION)
    return ReadBounds(
        games=MAX_UPLOAD_GAMES,
        actions=actions,
        nodes=2 * actions + 4 * MAX_UPLOAD_GAMES,
        purpose=f"analysed at {upload.plies}-ply within this server's limits",
        check=check_cancelled,
    )


def read_upload(upload: Upload, limits: Limits) -> MatMatch:
    """The match of a checked upload, read within ``upload_bounds``: run where the work runs (the heavy queue),
    so that reading is bounded, queued and cancelled as the analysis is."""
    source, bounds = f"uploaded {upload.kind}", upload_bounds(upload, limits)
    return parse_xg(upload.body, source, bounds) if upload.kind == ".xg" else read_match(upload.text, source, bounds)


def analyze(bots: Bot | Mapping[str, Bot], upload: Upload, limits: Limits = Limits()) -> dict:
    """The analysis JSON of ``nardy analyze --json`` for a checked upload (read by ``read_upload``), with
    ``chart``: the match drawn as SVG (``bot.doors.match_chart``). ``bots``: the bot of each game
    (``bot.facade.Bots``), the match's own analysing it; a single ``Bot`` analyses its game only."""
    match = read_upload(upload, limits)
    return analyze_parsed(bots if isinstance(bots, Bot) else bots[match.variant], match, upload.plies)


def analyze_parsed(bot: Bot, match: MatMatch, plies: int) -> dict:
    """The analysis JSON of a match read within its bounds."""
    analysis = analyze_match(bot, match, plies)
    return {**analysis.to_json(), "chart": match_chart_svg(analysis)}


# ---------------------------------------------------------------- setting up a situation

SetupSide = Literal["bottom", "top"]
MAX_SETUP_LENGTH = MAX_MATCH_LENGTH  # the game token of a longer match is refused


class SetupQuery(BaseModel):
    """A situation as the web board sets it up: the bottom player is seat 0 (the human of "Play from here")."""

    model_config = ConfigDict(extra="forbid")
    checkers: str = Field(description="the checkers as the Position ID of the board seen by the bottom player")
    on_roll: SetupSide = Field("bottom", description="the side on roll")
    dice: Optional[str] = Field(None, description="the roll to play, e.g. 31; none: before the roll (a cube decision)")
    cube: int = Field(1, ge=1, le=MAX_CUBE, description="the cube's value, a power of 2")
    cube_owner: Optional[SetupSide] = Field(None, description="who owns the cube; none: centred (on 1)")
    length: int = Field(0, ge=0, le=MAX_SETUP_LENGTH, description="match length in points; 0: a money game")
    score_bottom: int = Field(0, ge=0, le=MAX_SETUP_LENGTH, description="the bottom player's score")
    score_top: int = Field(0, ge=0, le=MAX_SETUP_LENGTH, description="the top player's score")
    crawford: bool = Field(False, description="this game is the Crawford game")


class SetupView(BaseModel):
    """The set-up situation as GNU Backgammon writes it, and as the web board's game token."""

    position_id: str = Field(description="the Position ID, seen by the side on roll")
    match_id: str
    game: str = Field(description="PositionID:MatchID, the token of a game from here (the bottom player is the human)")


def setup(query: SetupQuery) -> SetupView:
    """The Position ID and Match ID of a set-up situation; raise an engine error naming what makes it impossible."""
    bottom_view = decode_position_id(query.checkers)
    seat = 0 if query.on_roll == "bottom" else 1
    board = bottom_view if seat == 0 else flip(bottom_view)
    dice = _dice(query.dice) if query.dice else None
    score = (query.score_bottom, query.score_top)
    if query.cube & (query.cube - 1):
        raise InvalidMatchError(f"cube {query.cube}: a cube's value is a power of 2 (1, 2, 4, ...)")
    if (query.cube_owner is None) != (query.cube == 1):
        raise InvalidMatchError(
            f"cube {query.cube} {'centred' if query.cube_owner is None else 'owned'}: "
            "a centred cube is on 1, an owned one on 2 or more"
        )
    if query.crawford and query.cube != 1:
        raise InvalidMatchError(f"cube {query.cube}: the cube is not used in the Crawford game")
    if not query.length and score != (0, 0):
        raise InvalidMatchError(f"score {score[0]}-{score[1]}: a money game has no score (set a match length)")
    if query.length and max(score) >= query.length:
        raise InvalidMatchError(f"score {score[0]}-{score[1]}: a {query.length}-point match would be over")
    if query.crawford and max(score) != query.length - 1:
        raise InvalidMatchError(
            f"Crawford: the Crawford game needs a side at {max(query.length - 1, 0)} points "
            f"(score {score[0]}-{score[1]})"
        )
    post_crawford = query.length > 1 and not query.crawford and max(score) == query.length - 1
    owner = None if query.cube_owner is None else 0 if query.cube_owner == "bottom" else 1
    match = MatchState(query.length, score, query.cube, owner, query.crawford, post_crawford)
    phase = Phase.BEFORE_ROLL if dice is None else Phase.ROLLED
    position_id, match_id = Game(match, phase, seat, Position(board), dice).ids()
    from_ids(position_id, match_id)  # what the Match ID cannot hold, or a finished game, is refused here
    return SetupView(position_id=position_id, match_id=match_id, game=f"{position_id}:{match_id}")
