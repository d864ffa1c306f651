"""GNU Backgammon's external player: a TCP server that plays for ``set player 1 external HOST:PORT``.

GNU Backgammon sends one FIBS board string per decision (docs/PROTOCOLS.md), ended by
``\\n`` and a NUL byte, and reads one reply line. ``reply`` answers one board
without any socket: ``roll``/``double`` before the roll, the play in GNU
Backgammon's notation after it (an empty line when no move is possible),
``take``/``drop`` to a double, ``Error: ...`` to anything it cannot read.
``ExternalServer`` serves up to ``max_clients`` connections at once (a thread
each), any number of games each; it answers every line (over-long ones with an
error) and outlives clients that disconnect or misbehave. Deadlines that single
bytes do not move: a client must complete a line within ``idle_timeout`` seconds
of its last one (or of connecting), and a line it has started within
``line_timeout`` seconds, else it is dropped. When every slot is taken, a new
client gets in by dropping the longest-idle one, those that never sent a whole
line first; only when every client is waiting for an answer is the new one told
the server is busy.

>>> reply(BotPlayer(bot), "board:gnubg:nardy:1:0:0:0:-2:0:0:0:0:5:0:3:...")  # doctest: +SKIP
'13/10 24/23'
"""

from __future__ import annotations

import logging
import socket
import socketserver
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional

from bot.equity.cube import CubeState, cube_state_for
from bot.facade import Bot
from bot.play.levels import Level
from bot.play.match_play import BotPlayer, Player
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
# Seconds a client may go without sending a complete line before it is disconnected. GNU
# Backgammon is quiet while its other player (a person, perhaps) thinks, so this is generous.
IDLE_TIMEOUT = 600.0
# Seconds from a line's first byte to its newline. GNU Backgammon sends a board in one write, so
# only a client trickling bytes to hold its slot comes near this.
LINE_TIMEOUT = 10.0
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


@dataclass
class _Client:
    """What the server knows of one connection, to choose whom to drop when every slot is taken."""

    sock: socket.socket
    address: Any
    last_line: float  # time.monotonic() of its last complete line, or of connecting
    lines: int = 0  # complete lines received
    busy: bool = False  # its answer is being computed
    dropped: bool = False  # shut down to make room for a new client

    def idleness(self) -> tuple[bool, float]:
        """Sort key, most droppable first: never sent a whole line, then the longest idle."""
        return self.lines > 0, self.last_line


class _Lines:
    """Lines read from a socket against deadlines that single bytes do not move."""

    def __init__(self, sock: socket.socket, idle_timeout: float, line_timeout: float) -> None:
        self.sock, self.idle_timeout, self.line_timeout = sock, idle_timeout, line_timeout
        self.buffer = bytearray()
        self.last_line = time.monotonic()

    def next(self) -> Optional[bytes]:
        """The next line without its newline (a last one may lack it), ``b"..."`` cut at ``MAX_LINE + 1``
        bytes for an over-long line (its rest is read and dropped); None when the client has closed.

        Raises ``TimeoutError`` when the line is not complete by its deadline.
        """
        idle_deadline = self.last_line + self.idle_timeout
        started: Optional[float] = None
        while True:
            del self.buffer[: len(self.buffer) - len(self.buffer.lstrip(b"\x00"))]  # the NUL after each line
            if self.buffer and started is None:
                started = time.monotonic()
            deadline = idle_deadline if started is None else min(idle_deadline, started + self.line_timeout)
            end = self.buffer.find(b"\n")
            if end >= 0 or len(self.buffer) > MAX_LINE:
                return self._take(end, deadline)
            chunk = self._receive(deadline)
            if not chunk:
                rest, self.buffer = bytes(self.buffer), bytearray()
                return rest if rest.strip(b"\x00 \t\r") else None

    def _take(self, end: int, deadline: float) -> bytes:
        if end < 0:  # over-long: keep the head, drop up to the newline
            line, self.buffer = bytes(self.buffer[: MAX_LINE + 1]), bytearray()
            while (end := self.buffer.find(b"\n")) < 0:
                self.buffer.clear()
                if not self._receive(deadline):
                    break
            del self.buffer[: end + 1]
        else:
            line = bytes(self.buffer[:end])
            del self.buffer[: end + 1]
        self.last_line = time.monotonic()
        return line

    def _receive(self, deadline: float) -> bytes:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no complete line in time")
        self.sock.settimeout(remaining)
        chunk = self.sock.recv(MAX_LINE)
        self.buffer += chunk
        return chunk


class _Connection(socketserver.BaseRequestHandler):
    """One client: read board lines until it disconnects, misses a deadline or is dropped; answer each."""

    server: "ExternalServer"

    def handle(self) -> None:
        log.info("external player: %s connected", self.client_address)
        try:
            self._serve_lines()
        except (socket.timeout, TimeoutError):
            log.info("external player: %s sent no complete line in time, disconnected", self.client_address)
        except (ConnectionError, OSError) as error:
            log.info("external player: %s connection lost (%s)", self.client_address, error)
        else:
            log.info("external player: %s disconnected", self.client_address)

    def _serve_lines(self) -> None:
        client = self.server.client(self.request)
        lines = _Lines(self.request, self.server.idle_timeout, self.server.line_timeout)
        while (raw := lines.next()) is not None:
            client.last_line, client.lines = lines.last_line, client.lines + 1
            if len(raw) > MAX_LINE:
                answer = self.too_long(raw)
            else:
                line = raw.replace(b"\x00", b"").decode("utf-8", errors="replace").strip()
                client.busy = True
                try:
                    answer = self.answer(line)
                finally:
                    client.busy = False
                log.debug("external player: %.80r -> %r", line, answer)
            if answer is None:
                return
            self._send(answer)

    def answer(self, line: str) -> Optional[str]:
        """The reply to one line (NULs dropped, stripped); None ends the connection. Another line
        protocol served with this machinery (``bot.doors.bei``) overrides it and ``too_long``."""
        return reply(self.server.player, line) if line else "Error: empty line"

    def too_long(self, head: bytes) -> Optional[str]:
        """The reply to a line over ``MAX_LINE`` bytes (``head``: its first bytes)."""
        return f"Error: line longer than {MAX_LINE} bytes"

    def _send(self, answer: str) -> None:
        self.request.settimeout(self.server.line_timeout)  # a client that does not read is dropped too
        self.request.sendall(answer.encode("utf-8") + b"\n")


class ExternalServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    """Serves GNU Backgammon's external-player protocol, up to ``max_clients`` connections at once."""

    allow_reuse_address = True
    daemon_threads = True
    block_on_close = False
    request_queue_size = 16
    connection: type[_Connection] = _Connection  # what serves each client's lines
    busy_reply = BUSY_REPLY  # the line a client gets when every slot is busy

    def __init__(
        self,
        bot: Bot,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        plies: int = 0,
        max_clients: int = MAX_CLIENTS,
        idle_timeout: float = IDLE_TIMEOUT,
        level: Optional[Level] = None,
        line_timeout: float = LINE_TIMEOUT,
    ) -> None:
        # Deterministic levels draw their noise from the position, so threads may share the player.
        self.player = BotPlayer(bot, plies, level=level)
        self.idle_timeout, self.line_timeout, self.max_clients = idle_timeout, line_timeout, max_clients
        self._clients: dict[socket.socket, _Client] = {}
        self._lock = threading.Lock()
        super().__init__((host, port), self.connection)

    def client(self, request: socket.socket) -> _Client:
        """The record of a connection being served."""
        with self._lock:
            return self._clients[request]

    def process_request(self, request, client_address) -> None:
        """Serve the connection on its own thread, making room if every slot is taken; if every client
        is waiting for an answer, tell the new one the server is busy and close it."""
        with self._lock:
            served = [c for c in self._clients.values() if not c.dropped]
            if len(served) >= self.max_clients:
                idle = self.droppable(served)
                if not idle:
                    log.warning("external player: %s refused, %s", client_address, self.busy_reply)
                    self.refuse(request)
                    return
                victim = min(idle, key=_Client.idleness)
                victim.dropped = True
                log.warning("external player: %s dropped to make room for %s", victim.address, client_address)
                try:
                    victim.sock.shutdown(socket.SHUT_RDWR)  # its thread's read ends; it closes and leaves
                except OSError:
                    pass
            self._clients[request] = _Client(request, client_address, time.monotonic())
        super().process_request(request, client_address)

    def droppable(self, served: list[_Client]) -> list[_Client]:
        """The clients a new one may displace when every slot is taken: any not waiting for an answer."""
        return [c for c in served if not c.busy]

    def refuse(self, request: socket.socket) -> None:
        """Tell a client over the limit that the server is busy, and close it."""
        try:
            request.sendall(self.busy_reply.encode("utf-8") + b"\n")
        except OSError:
            pass
        self.shutdown_request(request)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._clients.pop(request, None)

    def handle_error(self, request, client_address) -> None:
        """A broken connection ends that client only; the server keeps listening."""
        log.warning("external player: connection %s ended with an error", client_address, exc_info=True)
