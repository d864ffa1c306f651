"""Backgammon rules with numpy only: boards, batched legal moves, formats, match state."""

from engine.board import START, flip, pip_counts, validate_board, validate_dice
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
