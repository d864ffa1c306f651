"""The analysis endpoints' views: plain functions from a parsed request to JSON data (no web framework).

- ``analyze(bot, text, plies)``: a .mat file's text, analysed (``bot.analysis``), as
  ``MatchAnalysis.to_json()``; a damaged file raises an engine error naming the line.
- ``rollout(bot, query)``: ``bot.doors.rollout_command.rollout_json`` with bounds on the
  trials, the truncation and the number of plays, so one request stays short.

Perspective as in the command line: the rollout's figures are the side on roll's (with
dice: the mover's after each play); the analysis gives each decision in its player's view.
"""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, Field

from bot.analysis import AnalysisError, analyze_match
from bot.doors.positions import parse_position
from bot.doors.rollout_command import rollout_json
from bot.facade import Bot
from bot.rollout import RolloutSettings
from engine.board import validate_dice
from engine.errors import InvalidDiceError
from engine.matfile import parse_mat

# Bounds that keep one request short (measured in docs/analysis.md): a long 7-point match of 7 KB
# (264 checker plays, 136 cube decisions) takes ~3 s at 0-ply and ~3.6 s at 1-ply on a quiet machine,
# about twice that under load; so at most ~14 s at 0-ply and ~4 s at 1-ply here, twice under load.
MAX_MAT_BYTES = 32 * 1024
MAX_ONE_PLY_BYTES = 8 * 1024
MAX_TRIALS = 1296
MAX_TRUNCATE = 20
DEFAULT_HTTP_TRUNCATE = 10
MAX_CANDIDATES = 5
ANALYSIS_PLIES = (0, 1)


class RolloutQuery(BaseModel):
    position: str = Field(description="Position ID, PositionID:MatchID or XGID")
    dice: Optional[str] = Field(None, description="a roll, e.g. 31: roll out its best plays instead")
    trials: int = Field(324, ge=2, le=MAX_TRIALS, description=f"games per position (2..{MAX_TRIALS})")
    truncate: int = Field(DEFAULT_HTTP_TRUNCATE, ge=0, le=MAX_TRUNCATE,
                          description=f"plies per trial before the network's estimate (0..{MAX_TRUNCATE})")
    vr: bool = Field(True, description="variance reduction")
    cubeful: bool = Field(False, description="also the cube decision, from cubeful trials (no double and double/take)")
    seed: Optional[int] = Field(None, description="random seed, for repeatable answers")
    candidates: int = Field(3, ge=1, le=MAX_CANDIDATES, description="with dice: how many plays to roll out")


def _dice(text: Optional[str]) -> Optional[tuple[int, int]]:
    if text is None:
        return None
    digits = text.strip()
    if len(digits) != 2 or not digits.isdigit():
        raise InvalidDiceError(f"dice {text!r}: expected two digits 1..6, e.g. 31")
    return validate_dice((int(digits[0]), int(digits[1])))


def rollout(bot: Bot, query: RolloutQuery) -> dict:
    """The rollout JSON of ``nardy rollout --json`` for the query (0-ply checker play in the trials)."""
    situation = parse_position(query.position.replace(" ", "+"))
    dice = _dice(query.dice) if query.dice else situation.dice
    settings = RolloutSettings(trials=query.trials, truncate=query.truncate, variance_reduction=query.vr)
    return rollout_json(bot, situation, dice, settings, query.seed, query.cubeful, query.candidates)


def analyze(bot: Bot, body: bytes, plies: int = 0) -> dict:
    """The analysis JSON of ``nardy analyze --json`` for a .mat file's bytes (UTF-8, at most ``MAX_MAT_BYTES``;
    ``MAX_ONE_PLY_BYTES`` at 1-ply)."""
    if len(body) > MAX_MAT_BYTES:
        raise AnalysisError(f".mat file of {len(body)} bytes: at most {MAX_MAT_BYTES} are analysed")
    if plies not in ANALYSIS_PLIES:
        raise AnalysisError(f"plies {plies}: expected one of {ANALYSIS_PLIES}")
    if plies and len(body) > MAX_ONE_PLY_BYTES:
        raise AnalysisError(f".mat file of {len(body)} bytes: at 1-ply at most {MAX_ONE_PLY_BYTES} are analysed")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise AnalysisError(f".mat file: not UTF-8 text ({error})") from None
    return analyze_match(bot, parse_mat(text, source="uploaded .mat"), plies).to_json()
