"""GNU Backgammon's external player: a TCP server that plays for ``set player 1 external HOST:PORT``.

GNU Backgammon sends one FIBS board string per decision (docs/PROTOCOLS.md), ended by
``\\n`` and a NUL byte, and reads one reply line. ``reply`` answers one board
without any socket: ``roll``/``double`` before the roll, the play in GNU
Backgammon's notation after it (an empty line when no move is possible),
``take``/``drop`` to a double, ``Error: ...`` to anything it cannot read.
``ExternalServer`` serves up to ``max_clients`` connections at once (a thread
each; one more is told the server is busy and closed), any number of games
each; it answers every line (over-long ones with an error), drops a client idle
for ``idle_timeout`` seconds and outlives clients that disconnect or misbehave.

>>> reply(BotPlayer(bot), "board:gnubg:nardy:1:0:0:0:-2:0:0:0:0:5:0:3:...")  # doctest: +SKIP
'13/10 24/23'
"""

from __future__ import annotations

import logging
import socket
import socketserver
import threading
from typing import Optional

from bot.cube import CubeState, cube_state_for
from bot.facade import Bot
from bot.levels import Level
from bot.match_play import BotPlayer, Player
from engine.board import flip
from engine.errors import BackgammonError, InvalidPositionError
from engine.fibs import FibsBoard, parse_fibs_board
from engine.match import MatchState
from engine.notation import format_play

DEFAULT_PORT = 8008
# GNU Backgammon reads at most this many bytes of a reply.
MAX_REPLY = 255
# The longest line read: a FIBS board is about 150 bytes, with long names a few hundred.
MAX_LINE = 4096
# Connections served at once; the bot answers one at a time, so more only wait.
MAX_CLIENTS = 8
# Seconds a client may stay silent before it is disconnected. GNU Backgammon is quiet while its
# other player (a person, perhaps) thinks, so this is generous.
IDLE_TIMEOUT = 600.0
BUSY_REPLY = "Error: server busy, too many connections"

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


def decide(player: Player, fb: FibsBoard) -> str:
    """The external player's answer to one parsed board: a move, roll/double or take/drop."""
    if fb.answering_double:
        # The opponent is on roll and has doubled: judge the take from its side.
        return "take" if player.should_take(flip(fb.board), cube_state(fb, doubler=True)) else "drop"
    if fb.turn != 1:
        raise InvalidPositionError("FIBS board: the opponent is on roll and has not doubled, nothing to decide")
    state = cube_state(fb)
    if fb.dice is None:
        return "double" if fb.may_double and player.should_double(fb.board, state) else "roll"
    return format_play(player.choose_play(fb.board, fb.dice, state))


def reply(player: Player, line: str) -> str:
    """The reply line (without newline) to one line GNU Backgammon sent; ``Error: ...`` if unreadable.

    A bad line (any ``BackgammonError``) gets its message; anything else is a bug: it is
    logged with its traceback and answered ``Error: internal error`` (the client still gets a line).
    """
    try:
        answer = decide(player, parse_fibs_board(line))
    except BackgammonError as error:
        answer = f"Error: {error}"
    except Exception:
        log.exception("external player: internal error answering %.80r", line)
        answer = "Error: internal error"
    return " ".join(answer.split())[:MAX_REPLY]


class _Connection(socketserver.StreamRequestHandler):
    """One client: read board lines until it disconnects or stays idle too long, answer each."""

    server: "ExternalServer"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_timeout)

    def handle(self) -> None:
        log.info("external player: %s connected", self.client_address)
        try:
            self._serve_lines()
        except (socket.timeout, TimeoutError):
            log.info("external player: %s idle for %.0f s, disconnected", self.client_address, self.server.idle_timeout)
        except (ConnectionError, OSError) as error:
            log.info("external player: %s connection lost (%s)", self.client_address, error)
        else:
            log.info("external player: %s disconnected", self.client_address)

    def _serve_lines(self) -> None:
        while True:
            raw = self.rfile.readline(MAX_LINE + 1)
            if not raw:
                return
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                self._skip_rest_of_line()
                self._send(f"Error: line longer than {MAX_LINE} bytes")
                continue
            if not raw.endswith(b"\n") and not raw.strip(b"\x00 \t\r"):
                return  # the NUL after the last line, then the end of the connection
            line = raw.replace(b"\x00", b"").decode("utf-8", errors="replace").strip()
            answer = reply(self.server.player, line) if line else "Error: empty line"
            log.debug("external player: %.80r -> %r", line, answer)
            self._send(answer)

    def _skip_rest_of_line(self) -> None:
        """Read and drop the rest of an over-long line (bounded chunks, the idle timeout applies)."""
        while True:
            chunk = self.rfile.readline(MAX_LINE)
            if not chunk or chunk.endswith(b"\n"):
                return

    def _send(self, answer: str) -> None:
        self.wfile.write(answer.encode("utf-8") + b"\n")
        self.wfile.flush()


class ExternalServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    """Serves GNU Backgammon's external-player protocol, up to ``max_clients`` connections at once."""

    allow_reuse_address = True
    daemon_threads = True
    block_on_close = False
    request_queue_size = 16

    def __init__(
        self,
        bot: Bot,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        plies: int = 0,
        max_clients: int = MAX_CLIENTS,
        idle_timeout: float = IDLE_TIMEOUT,
        level: Optional[Level] = None,
    ) -> None:
        # Deterministic levels draw their noise from the position, so threads may share the player.
        self.player = BotPlayer(bot, plies, level=level)
        self.idle_timeout = idle_timeout
        self._slots = threading.BoundedSemaphore(max_clients)
        super().__init__((host, port), _Connection)

    def process_request(self, request, client_address) -> None:
        """Serve the connection on its own thread, or tell it the server is busy and close it."""
        if not self._slots.acquire(blocking=False):
            log.warning("external player: %s refused, %s", client_address, BUSY_REPLY)
            try:
                request.sendall(BUSY_REPLY.encode("utf-8") + b"\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address) -> None:
        """A broken connection ends that client only; the server keeps listening."""
        log.warning("external player: connection %s ended with an error", client_address, exc_info=True)
