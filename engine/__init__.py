"""Backgammon and long nardy rules with numpy only: boards, batched legal moves, formats, match state.

Each game is an ``engine.variant.Variant`` (``find_variant("long")``); long nardy's own modules
are ``engine.long_nardy``.

The public names load on first use, so that a program importing one module (``engine.movegen``)
or one name does not pay for the formats and the game machinery it does not touch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.board import ROLL_WEIGHTS, ROLLS, START, flip, pip_counts, validate_board, validate_dice
    from engine.errors import (
        BackgammonError,
        IllegalMoveError,
        InvalidDiceError,
        InvalidMatchError,
        InvalidMoveError,
        InvalidPositionError,
    )
    from engine.movegen import afterstates
    from engine.position_id import decode_position_id, encode_position_id
    from engine.fibs import FibsBoard, format_fibs_board, parse_fibs_board
    from engine.match import MatchState, Outcome, after_game, game_outcome, game_result_points, may_double
    from engine.game import Game, GameResult, IllegalActionError, Phase, from_ids, new_game, start_game
    from engine.match_id import GameState, MatchId, decode_match_id, encode_match_id
    from engine.notation import format_play, parse_move
    from engine.plays import Play, Step, legal_plays
    from engine.position import Position
    from engine.position_formats import PositionSetup, read_position
    from engine.render import render_board
    from engine.xgid import Xgid, format_xgid, parse_xgid
    from engine.variant import BACKGAMMON, LONG_NARDY, VARIANTS, Variant, find_variant

# Each public name's module.
_HOMES = {
    name: module
    for module, names in {
        "engine.board": ("ROLL_WEIGHTS", "ROLLS", "START", "flip", "pip_counts", "validate_board", "validate_dice"),
        "engine.errors": (
            "BackgammonError",
            "IllegalMoveError",
            "InvalidDiceError",
            "InvalidMatchError",
            "InvalidMoveError",
            "InvalidPositionError",
        ),
        "engine.movegen": ("afterstates",),
        "engine.position_id": ("decode_position_id", "encode_position_id"),
        "engine.fibs": ("FibsBoard", "format_fibs_board", "parse_fibs_board"),
        "engine.match": ("MatchState", "Outcome", "after_game", "game_outcome", "game_result_points", "may_double"),
        "engine.game": ("Game", "GameResult", "IllegalActionError", "Phase", "from_ids", "new_game", "start_game"),
        "engine.match_id": ("GameState", "MatchId", "decode_match_id", "encode_match_id"),
        "engine.notation": ("format_play", "parse_move"),
        "engine.plays": ("Play", "Step", "legal_plays"),
        "engine.position": ("Position",),
        "engine.position_formats": ("PositionSetup", "read_position"),
        "engine.render": ("render_board",),
        "engine.xgid": ("Xgid", "format_xgid", "parse_xgid"),
        "engine.variant": ("BACKGAMMON", "LONG_NARDY", "VARIANTS", "Variant", "find_variant"),
    }.items()
    for name in names
}

__all__ = [
    "after_game",
    "afterstates",
    "BACKGAMMON",
    "BackgammonError",
    "decode_match_id",
    "decode_position_id",
    "encode_match_id",
    "encode_position_id",
    "find_variant",
    "FibsBoard",
    "flip",
    "format_fibs_board",
    "format_play",
    "format_xgid",
    "from_ids",
    "Game",
    "game_outcome",
    "game_result_points",
    "GameResult",
    "GameState",
    "IllegalActionError",
    "IllegalMoveError",
    "InvalidDiceError",
    "InvalidMatchError",
    "InvalidMoveError",
    "InvalidPositionError",
    "legal_plays",
    "LONG_NARDY",
    "MatchId",
    "MatchState",
    "may_double",
    "new_game",
    "Outcome",
    "parse_fibs_board",
    "parse_move",
    "parse_xgid",
    "Phase",
    "pip_counts",
    "Play",
    "Position",
    "PositionSetup",
    "read_position",
    "render_board",
    "ROLL_WEIGHTS",
    "ROLLS",
    "START",
    "start_game",
    "Step",
    "validate_board",
    "validate_dice",
    "Variant",
    "VARIANTS",
    "Xgid",
]


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use, and keep it here."""
    if name not in _HOMES:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(_HOMES[name]), name)
    return value
