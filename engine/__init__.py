"""Backgammon rules with numpy only: boards, batched legal moves, formats, match state."""

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
from engine.positions import PositionSetup, read_position
from engine.render import render_board
from engine.xgid import Xgid, format_xgid, parse_xgid

__all__ = [
    "after_game",
    "afterstates",
    "BackgammonError",
    "decode_match_id",
    "decode_position_id",
    "encode_match_id",
    "encode_position_id",
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
    "Xgid",
]
