"""BEI, the Backgammon Engine Interface of bgammon.org: ``nardy bei --port P``, an engine over TCP.

BEI (Go package ``codeberg.org/tslocum/bei``; tabula is its reference engine) is one command a
line from the client and one JSON event a line back, an object whose ``Type`` names it, its
other fields in Go's spelling:

- ``bei`` -> ``{"Type":"okbei","Version":1,"ID":{"name":"nardy",...}}``; it must come first;
- ``move <state>`` -> ``{"Type":"okmove","Moves":[{"Play":[{"From":24,"To":18},...]},...]}``,
  every legal play of the roll, best first (``"Moves":[]`` when the roll cannot be played);
- ``double <state>`` -> ``{"Type":"okdouble","Double":true|false,"Take":true|false}``: whether
  the player on turn should double (before rolling), and whether its opponent should take;
- bad input -> ``failmove`` / ``faildouble`` / ``failset`` / ``failchoose`` with a ``Reason``;
  ``list`` -> ``oklist`` (no settings); ``set`` -> ``failset`` (depth and level are fixed when
  the server starts); ``choose`` (acey-deucey's choice of doubles) -> ``failchoose``. Any other
  command ends the connection, as tabula does.

A state is 45 comma-separated integers (bei's ``State`` constants): 0 player 1's home (checkers
borne off, >= 0), 1..24 the points (player 1's checkers positive, player 2's negative, in player
1's numbering: player 1 moves 24 -> 1, player 2 1 -> 24), 25 player 2's home (<= 0), 26 player 1's
bar (>= 0), 27 player 2's bar (<= 0), 28-30 the dice (0 = not rolled; 30 for tabula only), 31 and 32
whether it is player 1's / player 2's turn (neither: player 1, as tabula assumes), 33 the cube
value, 34 its owner (0 centred, 1, 2), 35 and 36 the players' scores, 37 the match length (0:
money), 38 Crawford (bgammon's: 0 not yet, 1 this game, 2 after it), 39 Jacoby, 40 Murphy
(automatic doubles; no bearing on a decision), 41 beavers, 42 the variant (0 backgammon; 1
acey-deucey and 2 tabula are refused), 43 and 44 acey-deucey's entered flags. Plays come back in
the state's numbering: player 1 enters from 26 and bears off to 0, player 2 from 27 to 25.

``BeiSession`` is the protocol for one connection, without sockets; ``BeiServer`` serves it with
the external-player server's machinery (``bot.doors.external``): several clients, bounded lines,
idle and line deadlines.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Optional

import numpy as np

from bot.equity.cube import CubeState, cube_state_for
from bot.doors.external import MAX_LINE, ExternalServer, _Connection
from bot.doors.ubgi import nardy_version
from bot.facade import check_game_on
from bot.play.match_play import BotPlayer
from engine.board import CHECKERS, MOVER_BAR, flip, validate_dice
from engine.errors import BackgammonError, InvalidPositionError, quote
from engine.match import MatchState, is_cube_value
from engine.plays import OFF, Play

DEFAULT_PORT = 8009
PROTOCOL_VERSION = 1
STATE_LENGTH = 45
# bei's State constants: where each field sits in a state.
HOME1, HOME2, BAR1, BAR2 = 0, 25, 26, 27
ROLL1, ROLL2, ROLL3 = 28, 29, 30
TURN1, TURN2 = 31, 32
CUBE_VALUE, CUBE_PLAYER = 33, 34
POINTS1, POINTS2, TOTAL_POINTS = 35, 36, 37
CRAWFORD, JACOBY, MURPHY, BEAVERS, VARIANT, ENTERED1, ENTERED2 = range(38, 45)
FLAGS = (TURN1, TURN2, JACOBY, MURPHY, BEAVERS, ENTERED1, ENTERED2)
VARIANTS = {0: "backgammon", 1: "acey-deucey", 2: "tabula"}
CRAWFORD_THIS_GAME = 1
MAX_VALUE = 1 << 15  # no field needs more (a match length, a cube of 2^12)
FAILS = {"move": "failmove", "double": "faildouble", "set": "failset", "choose": "failchoose"}

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BeiState:
    """A BEI state read for the player on turn (``player``: 1 or 2, the state's seats).

    ``board`` is in that player's view (docs/DESIGN.md), ``state`` the cube and score as it
    sees them, ``dice`` None when not rolled.
    """

    board: np.ndarray
    player: int
    dice: Optional[tuple[int, int]]
    state: CubeState

    def space(self, point: int) -> int:
        """A point of the mover's numbering (25 = bar, 0 = off) as the state numbers it."""
        if self.player == 1:
            return BAR1 if point == MOVER_BAR else point
        return BAR2 if point == MOVER_BAR else HOME2 if point == OFF else 25 - point


def parse_state(text: str) -> BeiState:
    """The state in ``text`` (45 comma-separated integers); raise InvalidPositionError naming what is wrong
    (InvalidMatchError for a score or cube that do not fit together)."""
    fields = text.strip().split(",")
    if len(fields) != STATE_LENGTH:
        raise InvalidPositionError(f"state: expected {STATE_LENGTH} comma-separated integers, got {len(fields)}")
    values = []
    for i, field in enumerate(fields):
        digits = field.strip()
        if not digits.lstrip("-").isascii() or not digits.lstrip("-").isdigit() or len(digits) > 6:
            raise InvalidPositionError(f"state field {i}: {quote(field, 20)} is not an integer")
        value = int(digits)
        if abs(value) > MAX_VALUE:
            raise InvalidPositionError(f"state field {i}: {value} is out of range")
        values.append(value)
    s = values
    if s[VARIANT] != 0:
        raise InvalidPositionError(
            f"state: variant {s[VARIANT]} ({VARIANTS.get(s[VARIANT], 'unknown')}): only backgammon (0) is played"
        )
    for i in FLAGS:
        if s[i] not in (0, 1):
            raise InvalidPositionError(f"state field {i}: expected 0 or 1, got {s[i]}")
    if s[TURN1] and s[TURN2]:
        raise InvalidPositionError("state: fields 31 and 32 both say it is their player's turn")
    player = 2 if s[TURN2] else 1
    board = _player1_board(s)
    if player == 2:
        board = flip(board)
    board = check_game_on(board)
    return BeiState(board, player, _dice(s), _cube_state(s, player))


def _player1_board(s: list[int]) -> np.ndarray:
    """The checkers in player 1's view (our board convention), the homes checked against them."""
    if s[HOME1] < 0 or s[BAR1] < 0 or s[HOME2] > 0 or s[BAR2] > 0:
        raise InvalidPositionError("state: player 1's home and bar (fields 0, 26) are >= 0, player 2's (25, 27) <= 0")
    board = np.zeros(26, dtype=np.int64)
    board[1:25] = s[1:25]
    board[MOVER_BAR], board[0] = s[BAR1], s[BAR2]
    if np.abs(board).max() > CHECKERS:
        raise InvalidPositionError(f"state: a point holds more than {CHECKERS} checkers")
    ones = int(board[board > 0].sum()) + s[HOME1]
    twos = -int(board[board < 0].sum()) - s[HOME2]
    if (ones, twos) != (CHECKERS, CHECKERS):
        raise InvalidPositionError(
            f"state: players have {ones} and {twos} checkers (homes included), expected {CHECKERS} each"
        )
    return board.astype(np.int8)


def _dice(s: list[int]) -> Optional[tuple[int, int]]:
    if s[ROLL3]:
        raise InvalidPositionError("state: a third die (field 30) is for tabula only")
    if s[ROLL1] == s[ROLL2] == 0:
        return None
    if not (s[ROLL1] and s[ROLL2]):
        raise InvalidPositionError("state: fields 28 and 29 hold two dice (1..6), or both 0 before the roll")
    return validate_dice((s[ROLL1], s[ROLL2]))


def _cube_state(s: list[int], player: int) -> CubeState:
    """The cube and score seen by ``player`` (1 or 2)."""
    if not is_cube_value(s[CUBE_VALUE]):
        raise InvalidPositionError(f"state: cube value {s[CUBE_VALUE]} is not a power of two")
    if s[CUBE_PLAYER] not in (0, 1, 2):
        raise InvalidPositionError(f"state: cube owner {s[CUBE_PLAYER]}: expected 0 (centred), 1 or 2")
    if s[CRAWFORD] not in (0, 1, 2):
        raise InvalidPositionError(f"state: Crawford {s[CRAWFORD]}: expected 0, 1 (this game) or 2 (after it)")
    length = s[TOTAL_POINTS]
    if length < 0:
        raise InvalidPositionError(f"state: match length {length} is negative")
    match = MatchState(
        match_length=length,
        score=(s[POINTS1], s[POINTS2]) if length else (0, 0),
        cube_value=s[CUBE_VALUE],
        cube_owner=None if s[CUBE_PLAYER] == 0 else s[CUBE_PLAYER] - 1,
        crawford=bool(length) and s[CRAWFORD] == CRAWFORD_THIS_GAME,
        jacoby=bool(s[JACOBY]) and not length,
    )
    state = cube_state_for(match, player - 1)
    return CubeState(
        state.cube,
        state.owner,
        state.match_length,
        state.score,
        state.crawford,
        state.jacoby,
        beavers=bool(s[BEAVERS]) and not length,
    )


def event(kind: str, **fields: object) -> str:
    """One event line as bei's ``EncodeEvent`` writes it: compact JSON, ``Type`` first."""
    return json.dumps({"Type": kind, **fields}, separators=(",", ":"))


class BeiSession:
    """One client's dialogue: ``answer`` gives the event line for a command line, or None to hang up."""

    def __init__(self, player: BotPlayer) -> None:
        self.player = player
        self.greeted = False

    def answer(self, line: str) -> Optional[str]:
        """The event for one command (stripped, no newline); None for a command BEI does not have."""
        word, _, rest = line.partition(" ")
        if word == "bei":
            self.greeted = True
            return event("okbei", Version=PROTOCOL_VERSION, ID={"name": "nardy", "version": nardy_version()})
        if word == "list" and not rest:
            return event("oklist") if self.greeted else None
        if word not in FAILS:
            return None
        fail = FAILS[word]
        if not self.greeted:
            return event(fail, Reason="send bei first")
        if word == "set":
            return event(fail, Reason="no settings: start nardy bei with --plies or --level")
        if word == "choose":
            return event(fail, Reason="choose is for acey-deucey; only backgammon is played")
        try:
            state = parse_state(rest)
            return self._move(state) if word == "move" else self._double(state)
        except BackgammonError as error:
            return event(fail, Reason=str(error))
        except Exception as error:  # a bug: this client still gets an answer, the server carries on
            log.exception("bei: internal error answering %.80r", line)
            return event(fail, Reason=f"internal error: {type(error).__name__}")

    def too_long(self, head: bytes) -> Optional[str]:
        """The answer to a line over ``MAX_LINE`` bytes, by its command word."""
        word = head.split(b" ", 1)[0].decode("ascii", errors="replace")
        if word not in FAILS:
            return None
        return event(FAILS[word], Reason=f"line longer than {MAX_LINE} bytes")

    def _move(self, s: BeiState) -> str:
        if s.dice is None:
            return event("failmove", Reason="state: no dice rolled (fields 28 and 29)")
        level = self.player.level
        plies = level.plies if level is not None else self.player.plies
        ranked = [r.play for r in self.player.bot.rank_plays(s.board, s.dice, plies=plies, state=s.state)]
        if level is not None and level.noise:  # the level's choice first, the rest as ranked
            chosen = self.player.choose_play(s.board, s.dice, s.state)
            ranked = [chosen] + [p for p in ranked if p != chosen]
        moves = [{"Play": _play(s, play)} for play in ranked if play.steps]
        return event("okmove", Moves=moves)

    def _double(self, s: BeiState) -> str:
        double, take = self.player.should_double(s.board, s.state), self.player.should_take(s.board, s.state)
        return event("okdouble", Double=bool(double), Take=bool(take))


def _play(s: BeiState, play: Play) -> list[dict[str, int]]:
    """A play's checker steps in the state's numbering, in an order they can be made."""
    steps = sorted(play.steps, key=lambda step: (step.src, step.dst), reverse=True)
    return [{"From": s.space(step.src), "To": s.space(step.dst)} for step in steps]


class _BeiConnection(_Connection):
    """A BEI client on the external-player server's connection: its lines, bounds and deadlines."""

    server: "BeiServer"

    def setup(self) -> None:
        super().setup()
        self.session = BeiSession(self.server.player)

    def answer(self, line: str) -> Optional[str]:
        return self.session.answer(line)

    def too_long(self, head: bytes) -> Optional[str]:
        return self.session.too_long(head)


class BeiServer(ExternalServer):
    """Serves BEI to up to ``max_clients`` clients at once (``bot.doors.external.ExternalServer``'s rules)."""

    connection = _BeiConnection
    busy_reply = event("failmove", Reason="server busy, too many connections")
