"""GNU Backgammon's external player: a TCP server that plays for ``set player 1 external HOST:PORT``.

GNU Backgammon sends one FIBS board string per decision (PROTOCOLS.md), ended by
``\\n`` and a NUL byte, and reads one reply line. ``reply`` answers one board
without any socket: ``roll``/``double`` before the roll, the play in GNU
Backgammon's notation after it (an empty line when no move is possible),
``take``/``drop`` to a double, ``Error: ...`` to anything it cannot read.
``ExternalServer`` serves connections one after another, any number of games
each, and outlives clients that disconnect.

>>> reply(bot, "board:gnubg:nardy:1:0:0:0:-2:0:0:0:0:5:0:3:...")  # doctest: +SKIP
'13/10 24/23'
"""

from __future__ import annotations

import logging
import socketserver

from bot.cube import CubeState
from bot.facade import Bot
from bot.cube import cube_state_for
from engine.board import flip
from engine.errors import InvalidPositionError
from engine.fibs import FibsBoard, parse_fibs_board
from engine.match import MatchState

DEFAULT_PORT = 8008
# GNU Backgammon reads at most this many bytes of a reply.
MAX_REPLY = 255

log = logging.getLogger(__name__)


def cube_state(fb: FibsBoard, doubler: bool = False) -> CubeState:
    """The cube and score seen by the board's player, or by its opponent with ``doubler``.

    A FIBS board says who may double, not who owns the cube: a cube above 1 belongs
    to whoever may double it (to the opponent when neither may, e.g. at the last
    cube value).
    """
    player, opponent = 0, 1  # seats of a MatchState
    owner = None if fb.cube == 1 else player if fb.may_double else opponent
    match = MatchState(
        match_length=fb.match_length,
        score=(fb.player_score, fb.opponent_score),
        cube_value=fb.cube,
        cube_owner=owner,
        crawford=fb.crawford,
    )
    return cube_state_for(match, opponent if doubler else player)


def decide(bot: Bot, fb: FibsBoard, plies: int = 0) -> str:
    """The external player's answer to one parsed board: a move, roll/double or take/drop."""
    if fb.answering_double:
        # The opponent is on roll and has doubled: judge the take from its side.
        return "take" if bot.should_take(flip(fb.board), cube_state(fb, doubler=True), plies) else "drop"
    if fb.turn != 1:
        raise InvalidPositionError("FIBS board: the opponent is on roll and has not doubled, nothing to decide")
    state = cube_state(fb)
    if fb.dice is None:
        return "double" if fb.may_double and bot.should_double(fb.board, state, plies) else "roll"
    return bot.best_play(fb.board, fb.dice, plies=plies, state=state).notation


def reply(bot: Bot, line: str, plies: int = 0) -> str:
    """The reply line (without newline) to one line GNU Backgammon sent; ``Error: ...`` if unreadable."""
    try:
        answer = decide(bot, parse_fibs_board(line), plies)
    except ValueError as error:  # every engine error is a ValueError naming the input
        answer = f"Error: {error}"
    return " ".join(answer.split())[:MAX_REPLY]


class _Connection(socketserver.StreamRequestHandler):
    """One client: read board lines until it disconnects, answer each."""

    server: "ExternalServer"

    def handle(self) -> None:
        log.info("external player: %s connected", self.client_address)
        for raw in self.rfile:
            line = raw.replace(b"\x00", b"").decode("utf-8", errors="replace").strip()
            if not line:
                continue
            answer = reply(self.server.bot, line, self.server.plies)
            log.debug("external player: %r -> %r", line, answer)
            self.wfile.write(answer.encode("utf-8") + b"\n")
            self.wfile.flush()
        log.info("external player: %s disconnected", self.client_address)


class ExternalServer(socketserver.TCPServer):
    """Serves GNU Backgammon's external-player protocol, one connection at a time."""

    allow_reuse_address = True

    def __init__(self, bot: Bot, host: str = "127.0.0.1", port: int = DEFAULT_PORT, plies: int = 0) -> None:
        self.bot = bot
        self.plies = plies
        super().__init__((host, port), _Connection)

    def handle_error(self, request, client_address) -> None:
        """A broken connection ends that client only; the server keeps listening."""
        log.warning("external player: connection %s ended with an error", client_address, exc_info=True)
