"""BEI, the Backgammon Engine Interface of bgammon.org: ``nardy bei --port P``, an engine over TCP.

BEI (Go package ``codeberg.org/tslocum/bei``; tabula is its reference engine) is one command a
line from the client and one JSON event a line back, an object whose ``Type`` names it, its
other fields in Go's spelling:

- ``bei`` -> ``{"Type":"okbei","Version":1,"ID":{"name":"nardy",...}}``; it must come first;
- ``move <state>`` -> ``{"Type":"okmove","Moves":[{"Play":[{"From":24,"To":18},...]},...]}``,
  the legal plays of the roll, best first, at most ``MAX_MOVES`` of them so that the line stays
  within Go's default line reader (64 KiB; ``set moves all`` lifts the cut for one connection);
  ``"Moves":[]`` when the roll cannot be played;
- ``double <state>`` -> ``{"Type":"okdouble","Double":true|false,"Take":true|false}``: whether
  the player on turn should double (before rolling), and whether its opponent should take;
- ``set moves N`` / ``set moves all`` -> ``okset``: how many plays ``okmove`` lists;
- bad input -> ``failmove`` / ``faildouble`` / ``failset`` / ``failchoose`` with a ``Reason``
  that names the state field at fault; ``list`` -> ``oklist``; ``choose`` (acey-deucey's choice
  of doubles) -> ``failchoose``. Any other command ends the connection, as tabula does.

A state is 45 comma-separated integers (bei's ``State`` constants): 0 player 1's home (checkers
borne off, >= 0), 1..24 the points (player 1's checkers positive, player 2's negative, in player
1's numbering: player 1 moves 24 -> 1, player 2 1 -> 24), 25 player 2's home (<= 0), 26 player 1's
bar (>= 0), 27 player 2's bar (<= 0), 28-30 the dice (0 = not rolled; 30 is tabula's third die,
ignored on a double as tabula ignores it), 31 and 32 whether it is player 1's / player 2's turn
(player 2 plays only when 32 alone is set: neither or both is player 1, as tabula plays), 33 the
cube value, 34 its owner (0 centred, 1, 2), 35 and 36 the players' scores, 37 the match length
(0: money), 38 Crawford (bgammon's: 0 not yet, 1 this game, 2 after it), 39 Jacoby, 40 Murphy
(automatic doubles; no bearing on a decision), 41 beavers, 42 the variant (0 backgammon; 1
acey-deucey and 2 tabula are refused), 43 and 44 acey-deucey's entered flags. Plays come back in
the state's numbering: player 1 enters from 26 and bears off to 0, player 2 from 27 to 25.

``BeiSession`` is the protocol for one connection, without sockets; ``BeiServer`` serves it with
the external-player server's machinery (``bot.doors.external``): several clients, bounded lines,
idle and line deadlines. A connection is a conversation: a client over ``max_clients`` gets a
busy ``failmove`` and is closed, and no client that has spoken is dropped to make room.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from bot.doors.bounds import MAX_MATCH_LENGTH
from bot.equity.cube import CubeState, cube_state_for
from bot.doors.external import MAX_LINE, ExternalServer, _Client, _Connection
from bot.doors.ubgi import nardy_version
from bot.facade import check_game_on
from bot.play.match_play import BotPlayer
from engine.board import CHECKERS, MOVER_BAR, flip
from engine.errors import BackgammonError, InvalidMatchError, InvalidPositionError, quote
from engine.match import MAX_CUBE, MatchState, is_cube_value
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
FIELD_NAMES = {
    HOME1: "player 1's home",
    HOME2: "player 2's home",
    BAR1: "player 1's bar",
    BAR2: "player 2's bar",
    ROLL1: "die 1",
    ROLL2: "die 2",
    ROLL3: "die 3",
    TURN1: "player 1's turn",
    TURN2: "player 2's turn",
    CUBE_VALUE: "cube value",
    CUBE_PLAYER: "cube owner",
    POINTS1: "player 1's score",
    POINTS2: "player 2's score",
    TOTAL_POINTS: "match length",
    CRAWFORD: "Crawford",
    JACOBY: "Jacoby",
    MURPHY: "Murphy",
    BEAVERS: "beavers",
    VARIANT: "variant",
    ENTERED1: "player 1 entered",
    ENTERED2: "player 2 entered",
}
VARIANTS = {0: "backgammon", 1: "acey-deucey", 2: "tabula"}
CRAWFORD_THIS_GAME = 1
MAX_VALUE = 1 << 15  # no field needs more (a match length, a cube of 2^12)
_INTEGER = re.compile(r"[+-]?[0-9]+")  # what Go's strconv.Atoi reads: a sign, ASCII digits
FAILS = {"move": "failmove", "double": "faildouble", "set": "failset", "choose": "failchoose"}
# The longest line a Go client reads with bufio.Scanner's default buffer (64 KiB, newline included).
GO_LINE_LIMIT = 64 * 1024 - 1
# Plays an okmove lists by default, best first. A play is at most 90 bytes of JSON (four steps of
# two-digit spaces), so 500 of them stay under GO_LINE_LIMIT with room to spare (about 45 KB).
MAX_MOVES = 500
# Seconds a refused client's connection is drained after the busy event, so that closing it does
# not reset the connection (and lose the event) while the client's first command is still unread.
REFUSE_LINGER = 2.0

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
    """The state in ``text`` (45 comma-separated integers); raise InvalidPositionError (InvalidMatchError
    for the cube and score) naming the field or fields that are wrong."""
    fields = text.strip().split(",")
    if len(fields) != STATE_LENGTH:
        raise InvalidPositionError(f"state: expected {STATE_LENGTH} comma-separated integers, got {len(fields)}")
    s = [_integer(i, field) for i, field in enumerate(fields)]
    if s[VARIANT] != 0:
        name = VARIANTS.get(s[VARIANT], "unknown")
        raise InvalidPositionError(f"{_field(VARIANT)}: {s[VARIANT]} ({name}): only backgammon (0) is played")
    for i in FLAGS:
        if s[i] not in (0, 1):
            raise InvalidPositionError(f"{_field(i)}: expected 0 or 1, got {s[i]}")
    player = 2 if s[TURN2] and not s[TURN1] else 1  # neither or both: player 1, as tabula plays
    board = _player1_board(s)
    try:
        board = check_game_on(flip(board) if player == 2 else board)
    except BackgammonError as error:
        raise InvalidPositionError(f"state fields 0-27 (checkers): {error}") from None
    return BeiState(board, player, _dice(s), _cube_state(s, player))


def _field(i: int) -> str:
    """How a message names field ``i``: its number and what it holds."""
    return f"state field {i} ({FIELD_NAMES.get(i) or f'point {i}'})"


def _integer(i: int, field: str) -> int:
    """Field ``i`` as Go's ``strconv.Atoi`` reads it (a sign, ASCII digits), within ``MAX_VALUE``."""
    digits = field.strip()
    if not _INTEGER.fullmatch(digits):
        raise InvalidPositionError(f"{_field(i)}: {quote(field, 20)} is not an integer")
    if len(digits.lstrip("+-0")) > len(str(MAX_VALUE)) or abs(int(digits)) > MAX_VALUE:
        raise InvalidPositionError(f"{_field(i)}: {quote(digits, 20)} is out of range (at most {MAX_VALUE})")
    return int(digits)


def _player1_board(s: list[int]) -> np.ndarray:
    """The checkers in player 1's view (our board convention), the homes checked against them."""
    for i in range(HOME1, BAR2 + 1):
        low = 0 if i in (HOME1, BAR1) else -CHECKERS
        high = 0 if i in (HOME2, BAR2) else CHECKERS
        if not low <= s[i] <= high:
            raise InvalidPositionError(f"{_field(i)}: {s[i]} checkers, expected {low}..{high}")
    board = np.zeros(26, dtype=np.int64)
    board[1:25] = s[1:25]
    board[MOVER_BAR], board[0] = s[BAR1], s[BAR2]
    ones = int(board[board > 0].sum()) + s[HOME1]
    twos = -int(board[board < 0].sum()) - s[HOME2]
    if (ones, twos) != (CHECKERS, CHECKERS):
        raise InvalidPositionError(
            f"state fields 0-27 (checkers): players have {ones} and {twos} checkers (homes and bars included), "
            f"expected {CHECKERS} each"
        )
    return board.astype(np.int8)


def _dice(s: list[int]) -> Optional[tuple[int, int]]:
    """The roll, None before it; field 30 (tabula's third die) is ignored on a double, as tabula does."""
    for i in (ROLL1, ROLL2):
        if not 0 <= s[i] <= 6:
            raise InvalidPositionError(f"{_field(i)}: {s[i]}, expected a die 1..6 (0 before the roll)")
    if s[ROLL1] != s[ROLL2] and s[ROLL3]:
        raise InvalidPositionError(f"{_field(ROLL3)}: {s[ROLL3]}, a third die on a non-double is for tabula only")
    if s[ROLL1] == s[ROLL2] == 0:
        return None
    if not (s[ROLL1] and s[ROLL2]):
        raise InvalidPositionError(
            f"state fields 28, 29 (dice): {s[ROLL1]}, {s[ROLL2]}: two dice 1..6, or both 0 before the roll"
        )
    return s[ROLL1], s[ROLL2]


def _cube_state(s: list[int], player: int) -> CubeState:
    """The cube and score seen by ``player`` (1 or 2)."""
    cube, owner, length = s[CUBE_VALUE], s[CUBE_PLAYER], s[TOTAL_POINTS]
    if not (is_cube_value(cube) and cube <= MAX_CUBE):
        raise InvalidMatchError(f"{_field(CUBE_VALUE)}: {cube}, expected a power of two 1..{MAX_CUBE}")
    if owner not in (0, 1, 2):
        raise InvalidMatchError(f"{_field(CUBE_PLAYER)}: {owner}, expected 0 (centred), 1 or 2")
    if owner == 0 and cube != 1:
        raise InvalidMatchError(f"state fields 33, 34 (cube): a centred cube (owner 0) is on 1, got {cube}")
    if s[CRAWFORD] not in (0, 1, 2):
        raise InvalidMatchError(f"{_field(CRAWFORD)}: {s[CRAWFORD]}, expected 0, 1 (this game) or 2 (after it)")
    if not 0 <= length <= MAX_MATCH_LENGTH:
        raise InvalidMatchError(
            f"{_field(TOTAL_POINTS)}: {length}, expected 0 (money) to {MAX_MATCH_LENGTH}, the equity table's reach"
        )
    if length:
        for i in (POINTS1, POINTS2):
            if not 0 <= s[i] < length:
                raise InvalidMatchError(f"{_field(i)}: {s[i]}, expected 0..{length - 1} in a {length}-point match")
    crawford = bool(length) and s[CRAWFORD] == CRAWFORD_THIS_GAME
    if crawford and cube != 1:
        raise InvalidMatchError(f"state fields 33, 38 (cube, Crawford): no cube in the Crawford game, got {cube}")
    if crawford and (s[POINTS1] == length - 1) == (s[POINTS2] == length - 1):
        raise InvalidMatchError(
            f"state fields 35-38 (score, Crawford): the Crawford game needs exactly one side at {length - 1}, "
            f"got {s[POINTS1]}-{s[POINTS2]}"
        )
    try:
        match = MatchState(
            match_length=length,
            score=(s[POINTS1], s[POINTS2]) if length else (0, 0),
            cube_value=cube,
            cube_owner=None if owner == 0 else owner - 1,
            crawford=crawford,
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
    except BackgammonError as error:  # a rule of the score and cube that the checks above do not name
        raise InvalidMatchError(f"state fields 33-41 (cube and score): {error}") from None


def event(kind: str, **fields: object) -> str:
    """One event line as bei's ``EncodeEvent`` writes it: compact JSON, ``Type`` first."""
    return json.dumps({"Type": kind, **fields}, separators=(",", ":"))


class BeiSession:
    """One client's dialogue: ``answer`` gives the event line for a command line, or None to hang up."""

    def __init__(self, player: BotPlayer) -> None:
        self.player = player
        self.greeted = False
        self.moves: Optional[int] = MAX_MOVES  # plays an okmove lists; None: all of them

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
            return self._set(rest)
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

    def _set(self, rest: str) -> str:
        """``set moves N`` (1 or more) or ``set moves all``; depth and level are fixed when the server starts."""
        name, _, value = rest.strip().partition(" ")
        value = value.strip()
        if name != "moves":
            return event("failset", Reason=f"setting {quote(name, 20)}: only 'moves' (--plies and --level are fixed)")
        if value == "all":
            self.moves = None
        elif value.isascii() and value.isdigit() and 1 <= len(value) <= 6 and int(value) >= 1:
            self.moves = int(value)
        else:
            return event("failset", Reason=f"moves {quote(value, 20)}: expected a count of 1 or more, or 'all'")
        return event("okset")

    def _move(self, s: BeiState) -> str:
        if s.dice is None:
            return event("failmove", Reason="state fields 28, 29 (dice): no dice rolled")
        level = self.player.level
        plies = level.plies if level is not None else self.player.plies
        ranked = [r.play for r in self.player.bot.rank_plays(s.board, s.dice, plies=plies, state=s.state)]
        if level is not None and level.noise:  # the level's choice first, the rest as ranked
            chosen = self.player.choose_play(s.board, s.dice, s.state)
            ranked = [chosen] + [p for p in ranked if p != chosen]
        moves = [{"Play": _play(s, play)} for play in ranked[: self.moves] if play.steps]
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
    """Serves BEI to up to ``max_clients`` clients at once (``bot.doors.external.ExternalServer``'s rules),
    except that a client over the limit is told the server is busy rather than let in by dropping another."""

    connection = _BeiConnection
    busy_reply = event("failmove", Reason="server busy: every client slot is taken, try again later")
    # At most 16 refused connections are drained at a time (in this process); others are closed at once.
    _refusals = threading.BoundedSemaphore(16)

    def droppable(self, served: list[_Client]) -> list[_Client]:
        """Only squatters: clients that have sent no complete line within ``line_timeout`` of connecting."""
        squatting = time.monotonic() - self.line_timeout
        return [c for c in served if c.lines == 0 and c.last_line < squatting]

    def refuse(self, request: socket.socket) -> None:
        """Send the busy event, then drain the client's first command on a thread before closing."""
        if not self._refusals.acquire(blocking=False):
            super().refuse(request)
            return
        threading.Thread(target=self._linger, args=(request,), daemon=True).start()

    def _linger(self, request: socket.socket) -> None:
        deadline = time.monotonic() + REFUSE_LINGER
        try:
            request.settimeout(REFUSE_LINGER)
            request.sendall(self.busy_reply.encode("utf-8") + b"\n")
            request.shutdown(socket.SHUT_WR)
            while (left := deadline - time.monotonic()) > 0:
                request.settimeout(left)
                if not request.recv(MAX_LINE):
                    break
        except OSError:
            pass
        finally:
            request.close()
            self._refusals.release()
