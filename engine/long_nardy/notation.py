"""Long nardy moves as text: GNU Backgammon's notation (``24/18(2)``, ``6/off``), read back to a legal play.

Writing is ``engine.notation.format_play`` (long nardy plays are ``engine.plays.Play``
values with no hits). Reading uses the same reader as backgammon and resolves the text
to the legal play with the same result; long nardy has no bar and no hits, so ``bar``,
point 25 and ``*`` are refused. Points are the mover's (24 the head, 0 or ``off``).

>>> from engine.long_nardy.board import START
>>> format_play(parse_long_move("24/21/20", START, "31"))
'24/20'
>>> parse_long_move("24/21 24/23", START, "31")
Traceback (most recent call last):
...
engine.errors.IllegalMoveError: move '24/21 24/23': only one checker may leave the head this turn
"""

from __future__ import annotations

import numpy as np

from engine.board import Dice, validate_dice
from engine.errors import IllegalMoveError, InvalidMoveError, quote
from engine.long_nardy.board import HEAD, validate_board
from engine.long_nardy.plays import head_allowance, legal_plays
from engine.long_nardy.rules import DEFAULT_RULES, Rules
from engine.notation import net_change, TypedMove, format_play
from engine.plays import BAR, Play

__all__ = ["format_play", "parse_long_move"]


def parse_long_move(text: str, board: np.ndarray, dice: Dice, rules: Rules = DEFAULT_RULES) -> Play:
    """The legal play of ``dice`` on ``board`` (mover's view) that ``text`` describes.

    InvalidMoveError when the text cannot be read (or names a bar or a hit);
    IllegalMoveError, with the reason where one is plain, when it reads but is not a
    legal play. An empty text is the play of a roll that cannot be played.
    """
    d1, d2 = validate_dice(dice)
    board = validate_board(board)
    if not isinstance(text, str):
        raise InvalidMoveError(f"move {quote(text)}: expected text")
    typed = TypedMove(text)
    if any(BAR in path for path in typed.paths):
        raise InvalidMoveError(f"move {quote(text)}: long nardy has no bar (points are 24..1, 0 or off)")
    if typed.starred:
        raise InvalidMoveError(f"move {quote(text)}: long nardy has no hitting ('*')")
    plays = legal_plays(board, (d1, d2), rules)
    if not typed.paths:
        if plays[0].steps:
            raise IllegalMoveError(f"move {quote(text)}: no move given, but {d1}{d2} can be played")
        return plays[0]
    net = typed.net()
    for play in plays:
        if play.steps and net_change(play) == net:  # no hits: the net change fixes the afterstate
            return play
    raise IllegalMoveError(f"move {quote(text)}: {_why_illegal(board, typed, d1, d2, rules, plays)}")


def _why_illegal(board: np.ndarray, typed: TypedMove, d1: int, d2: int, rules: Rules, plays: list[Play]) -> str:
    """The plainest reason found why a well-formed move is not a legal play."""
    leaving = -typed.net().get(HEAD, 0)
    allowed = head_allowance(int(board[HEAD]), d1, d2, rules)
    if leaving > allowed:
        return f"only {'one checker' if allowed == 1 else f'{allowed} checkers'} may leave the head this turn"
    closed = sorted((p for p in typed.landings() if board[p] < 0), reverse=True)
    if closed:
        return f"point {closed[0]} is held by the opponent"
    most = plays[0].dice_used
    if most == 0:
        return f"{d1}{d2} cannot be played in this position"
    return f"not a legal play of {d1}{d2} (a legal play uses {most} {'die' if most == 1 else 'dice'})"
