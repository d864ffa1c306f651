"""Long nardy (длинные нарды) on the same engine: boards, batched legal moves, games and matches, formats.

The rules are those of docs/long_nardy_rules.md (R1-R15), the disputed ones as flags
(``Rules``); docs/long_nardy.md says what is implemented and what was chosen where
the rules are silent. Boards are 26-value vectors in the mover's view, as in
backgammon, with no bar (``engine.long_nardy.board``).

>>> import numpy as np
>>> children, parent = afterstates(np.stack([START, START]), np.array([[6, 6], [3, 3]]))
>>> parent.tolist()
[0, 1, 1]
"""

from engine.long_nardy.board import (
    HEAD,
    OPPONENT_HEAD,
    START,
    check_game_on,
    flip,
    illegal_block,
    other_point,
    pip_counts,
    validate_board,
    winning_points,
)
from engine.long_nardy.game import LongGame, LongGameResult, game_outcome, new_long_game, start_long_game
from engine.long_nardy.movegen import afterstates, illegal_blocks
from engine.long_nardy.notation import format_play, parse_long_move
from engine.long_nardy.plays import legal_plays
from engine.long_nardy.position import LongPosition, decode_long_position_id, encode_long_position_id
from engine.long_nardy.render import render_long_board
from engine.long_nardy.rules import DEFAULT_RULES, Rules
from engine.long_nardy.text import format_long_text, parse_long_text

__all__ = [
    "DEFAULT_RULES",
    "HEAD",
    "LongGame",
    "LongGameResult",
    "LongPosition",
    "OPPONENT_HEAD",
    "Rules",
    "START",
    "afterstates",
    "check_game_on",
    "decode_long_position_id",
    "encode_long_position_id",
    "flip",
    "format_long_text",
    "format_play",
    "game_outcome",
    "illegal_block",
    "illegal_blocks",
    "legal_plays",
    "new_long_game",
    "other_point",
    "parse_long_move",
    "parse_long_text",
    "pip_counts",
    "render_long_board",
    "start_long_game",
    "validate_board",
    "winning_points",
]
