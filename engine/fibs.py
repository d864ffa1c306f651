"""FIBS board strings as GNU Backgammon's external-player protocol sends them.

``board:NAME1:NAME2:MATCHLEN:SCORE1:SCORE2:`` then 26 board fields, then
``turn:d1:d2:od1:od2:cube:maydouble:oppmaydouble:wasdoubled:colour:direction:
home:bar:off:oppoff:onbar:opponbar:canmove:forced:postcrawford:noncrawford``
(53 fields). "Player" is the side the board is sent to (GNU Backgammon's
player 1, the external player), "opponent" the other. Board fields are seen
from the player: positive = the player's checkers. GNU Backgammon's quirk:
the names and scores come as (opponent, player) on the player's own turns and
as (player, opponent) when the player must answer a double; ``parse_fibs_board``
undoes it, ``format_fibs_board`` reproduces it.

The board is kept in our convention, in the player's view (whether or not the
player is on roll: see ``turn``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.board import CHECKERS, borne_off, read_int, validate_board
from engine.errors import InvalidPositionError, quote
from engine.match import is_cube_value
from engine.position import BoardFields

MONEY = 9999
_FIELDS = 53
# GNU Backgammon's largest cube (MAX_CUBE); match lengths and scores fit the Match ID's 15 bits.
MAX_CUBE = 1 << 12
MAX_LENGTH = (1 << 15) - 1
_FLAG = (0, 1)
# (name, lowest, highest) of fields 3..52, checked as text before int() sees them.
_NUMBERS = (
    [("match length", 0, MAX_LENGTH), ("score", 0, MAX_LENGTH), ("score", 0, MAX_LENGTH)]
    + [("board field", -CHECKERS, CHECKERS)] * 26
    + [("turn", -1, 1), ("dice", 0, 6), ("dice", 0, 6), ("dice", 0, 6), ("dice", 0, 6), ("cube", 0, MAX_CUBE)]
    + [("may double", *_FLAG), ("opponent may double", *_FLAG), ("was doubled", *_FLAG)]
    + [("colour", -1, 1), ("direction", -1, 1), ("home", 0, 25), ("bar", 0, 25)]
    + [("off", 0, CHECKERS), ("opponent off", 0, CHECKERS), ("on bar", 0, CHECKERS), ("opponent on bar", 0, CHECKERS)]
    + [("can move", 0, 4), ("forced", 0, 1), ("post-Crawford", *_FLAG), ("non-Crawford", *_FLAG)]
)


@dataclass(frozen=True)
class FibsBoard(BoardFields):
    """The fields of a FIBS board that matter to a player.

    ``board``: the player's view (our convention). ``turn``: 1 when the player is
    on roll, -1 when the opponent is (e.g. the player must answer the opponent's
    double). ``dice``: None before the roll. ``match_length``: 0 for money.
    ``crawford``: this is the Crawford game; ``post_crawford``: it has been played.
    """

    player_name: str = "player"
    opponent_name: str = "opponent"
    match_length: int = 0
    player_score: int = 0
    opponent_score: int = 0
    turn: int = 1
    dice: tuple[int, int] | None = None
    cube: int = 1
    may_double: bool = True
    opponent_may_double: bool = True
    was_doubled: bool = False
    crawford: bool = False
    post_crawford: bool = False

    @property
    def answering_double(self) -> bool:
        """Whether the player must take or drop (the opponent is on roll and has doubled)."""
        return self.was_doubled and self.turn == -1


def parse_fibs_board(text: str) -> FibsBoard:
    """Read a FIBS board string; raise InvalidPositionError naming it when it is malformed."""
    what = f"FIBS board {quote(text)}"
    if not isinstance(text, str):
        raise InvalidPositionError(f"{what}: expected text")
    fields = text.strip().rstrip("\x00").strip().split(":")
    if len(fields) != _FIELDS or fields[0] != "board":
        raise InvalidPositionError(f"{what}: expected 'board:' and 53 ':'-separated fields, got {len(fields)}")
    name1, name2 = fields[1], fields[2]
    numbers = [read_int(f, name, what, low, high) for f, (name, low, high) in zip(fields[3:], _NUMBERS)]
    length, score1, score2 = numbers[:3]
    raw = numbers[3:29]
    (
        turn,
        d1,
        d2,
        od1,
        od2,
        cube,
        may_double,
        opp_may_double,
        was_doubled,
        colour,
        direction,
        _home,
        _bar,
        _off,
        _opp_off,
        _on_bar,
        _opp_on_bar,
        _can_move,
        _forced,
        post_crawford,
        non_crawford,
    ) = numbers[29:]
    if colour not in (1, -1) or direction not in (1, -1):
        raise InvalidPositionError(f"{what}: colour and direction must be 1 or -1")
    if turn not in (1, -1):
        raise InvalidPositionError(f"{what}: turn must be 1 or -1 (0 means the game is over)")
    board = np.zeros(26, dtype=np.int64)
    for p in range(1, 25):
        board[p] = colour * raw[p if direction == -1 else 25 - p]
    own_bar, opp_bar = (raw[25], raw[0]) if direction == -1 else (raw[0], raw[25])
    board[25], board[0] = abs(own_bar), -abs(opp_bar)
    board = validate_board(board, what)
    dice = (d1, d2) if d1 else (od1, od2) if od1 else None
    if dice is not None and not all(1 <= d <= 6 for d in dice):
        raise InvalidPositionError(f"{what}: dice {dice} must be 1..6")
    if not is_cube_value(cube):
        raise InvalidPositionError(f"{what}: cube {cube} is not a power of 2")
    match_length = 0 if length in (0, MONEY) else length
    crawford_game = bool(match_length) and not non_crawford
    if crawford_game and post_crawford:
        raise InvalidPositionError(f"{what}: the Crawford game and post-Crawford at once")
    if match_length < 0 or min(score1, score2) < 0:
        raise InvalidPositionError(f"{what}: match length and scores cannot be negative")
    answering = bool(was_doubled) and turn == -1
    player_name, opponent_name = (name1, name2) if answering else (name2, name1)
    player_score, opponent_score = (score1, score2) if answering else (score2, score1)
    if match_length and max(player_score, opponent_score) >= match_length:
        raise InvalidPositionError(f"{what}: a score reaches the match length {match_length}")
    if crawford_game and match_length - 1 not in (player_score, opponent_score):
        raise InvalidPositionError(f"{what}: the Crawford game needs a side at {match_length - 1} points")
    return FibsBoard(
        board=board,
        player_name=player_name,
        opponent_name=opponent_name,
        match_length=match_length,
        player_score=player_score,
        opponent_score=opponent_score,
        turn=turn,
        dice=dice,
        cube=cube,
        may_double=bool(may_double),
        opponent_may_double=bool(opp_may_double),
        was_doubled=bool(was_doubled),
        crawford=crawford_game,
        post_crawford=bool(post_crawford),
    )


def format_fibs_board(fb: FibsBoard) -> str:
    """The FIBS board string GNU Backgammon would send the player (no trailing newline)."""
    board = validate_board(fb.board, "FIBS board")
    for name in (fb.player_name, fb.opponent_name):
        if ":" in name or not name:
            raise InvalidPositionError(f"FIBS board: name {name!r} must be non-empty and without ':'")
    names = [fb.player_name, fb.opponent_name]
    scores = [fb.player_score, fb.opponent_score]
    if not fb.answering_double:
        names.reverse()
        scores.reverse()
    d1, d2 = fb.dice or (0, 0)
    own_off, opp_off = borne_off(board)
    fields = (
        ["board", *names, fb.match_length, *scores]
        + board.tolist()
        + [fb.turn, d1, d2, d1, d2, fb.cube, int(fb.may_double), int(fb.opponent_may_double), int(fb.was_doubled)]
        + [1, -1, 0, 25, own_off, opp_off, 0, 0, 0, 0, int(fb.post_crawford), int(not fb.crawford)]
    )
    return ":".join(str(f) for f in fields)
