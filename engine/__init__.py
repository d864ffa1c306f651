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
