"""eXtreme Gammon ``.xg`` match files, read into the same ``MatMatch`` as a .mat or .sgf.

The binary container (a rich-game header, a thumbnail, then zlib-compressed records of 2,560 bytes)
is decoded by ``gvformat.xg.read_xg`` of the ``gammonview`` package (MIT, pure Python); this module
turns its records into games. A file starts with the bytes ``RGMH``: that, not the name, says it is one.

Each turn is a cube record (a double, and the answer to it) and a move record. XG stores the board
after a move in the mover's own numbering, with the same 26 slots as ``engine.board`` (25 = the
mover's bar, 0 = the opponent's); the play recorded is the one legal play of the roll that leaves
that board, so every move read is legal by construction and a move that is not is refused with its
game and record. XG keeps a money session's length as 99999; it is read as 0. XG's Crawford and
Jacoby settings are read; a beaver is refused (the engine plays without beavers). The player names, UTF-16
code units as gammonview gives them, go through ``engine.matfile.clean_name`` (an emoji's surrogate pair joined,
a lone one replaced), so that every output can hold them.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any, Optional

import numpy as np

from engine.board import START, flip
from engine.errors import BackgammonError
from engine.matfile import (
    DEFAULT_BOUNDS,
    FileBoundError,
    InvalidMatFileError,
    MatAction,
    MatGame,
    MatMatch,
    ReadBounds,
    Tally,
    clean_name,
)
from engine.plays import legal_plays

MAGIC = b"RGMH"
# The container's layout (XG's published format): a rich-game header of 8,232 bytes whose 4 bytes at
# offset 20 give the thumbnail's size, the thumbnail, then the zlib-compressed records of 2,560 bytes.
_HEADER_BYTES, _THUMBNAIL_SIZE_AT, _RECORD_BYTES = 8232, 20, 2560
# The most records read (a turn is about two): a file that inflates past them is refused before it is
# decompressed in full, so that a small upload cannot expand to gigabytes.
MAX_RECORDS = 10_000
MONEY_LENGTH = 99999  # XG's match length of a money session
_XG_PLAYER = {1: 0, -1: 1}  # XG's side (+1 player 1, -1 player 2) -> our seat (0 left, 1 right)
_BEAVER = 2  # a cube record's answer: 0 pass, 1 take, 2 beaver


class InvalidXgFileError(InvalidMatFileError):
    """An .xg file that cannot be read, or a recorded game that breaks the rules."""


class XgBoundError(InvalidXgFileError, FileBoundError):
    """An .xg file past its reader's ``ReadBounds``."""


def is_xg(data: bytes) -> bool:
    """Whether ``data`` is an eXtreme Gammon file (it starts with the magic bytes ``RGMH``)."""
    return data[:4] == MAGIC


def _check_size(data: bytes, source: str, bounds: ReadBounds) -> None:
    """Refuse a record stream that inflates past ``MAX_RECORDS`` records, or past ``bounds.nodes``."""
    if len(data) < _HEADER_BYTES:
        raise InvalidXgFileError(f"{source}: {len(data)} bytes, shorter than an .xg file's header")
    (thumbnail,) = struct.unpack_from("<I", data, _THUMBNAIL_SIZE_AT)
    most = min(MAX_RECORDS, bounds.nodes)
    inflate = zlib.decompressobj()
    try:
        inflate.decompress(data[_HEADER_BYTES + thumbnail :], most * _RECORD_BYTES)
    except zlib.error as error:
        raise InvalidXgFileError(f"{source}: its records cannot be decompressed ({error})") from None
    if inflate.unconsumed_tail:
        raise XgBoundError(f"{source}: more than {most} records: at most {most} are {bounds.purpose}")


def _records(data: bytes, source: str, bounds: ReadBounds) -> list[tuple[str, dict[str, Any]]]:
    _check_size(data, source, bounds)
    try:
        from gvformat.xg import read_xg
    except ImportError:
        raise InvalidXgFileError(f"{source}: reading .xg files needs gammonview (pip install gammonview)") from None
    try:
        return read_xg(data)
    except (ValueError, IndexError, struct.error, zlib.error) as error:
        raise InvalidXgFileError(f"{source}: not a readable .xg file ({error})") from None


def _seat(side: int, where: str) -> int:
    if side not in _XG_PLAYER:
        raise InvalidXgFileError(f"{where}: player {side!r}, expected 1 or -1")
    return _XG_PLAYER[side]


class _GameBuilder:
    """Turns one game's cube and move records into ``MatAction``s, keeping the board seen by seat 0."""

    def __init__(self, header: dict[str, Any], match_play: bool, tally: Tally) -> None:
        self.tally = tally
        self.score = (int(header["score1"]), int(header["score2"]))
        self.crawford: Optional[bool] = bool(header["is_crawford"]) if match_play else None
        self.actions: list[MatAction] = []
        self.board = START.copy()  # seen by seat 0
        self.cube = 1

    def cube_record(self, record: dict[str, Any], where: str) -> None:
        if record["doubled"] != 1:
            return  # no double (0), or no cube decision on this turn (XG writes -2)
        doubler = _seat(record["actif"], where)
        self.cube *= 2
        self.tally.action()
        self.actions.append(MatAction.of_double(doubler, self.cube))
        answer = record["take"]
        if answer == _BEAVER:
            raise InvalidXgFileError(f"{where}: a beaver cannot be replayed (nardy plays without beavers)")
        if answer in (0, 1):
            self.tally.action()
            self.actions.append(MatAction.of_take(1 - doubler) if answer else MatAction.of_drop(1 - doubler))

    def move_record(self, record: dict[str, Any], where: str) -> None:
        mover = _seat(record["actifp"], where)
        dice = tuple(record["dice"])
        own = self.board if mover == 0 else flip(self.board)
        after = np.array(record["pos_after"], dtype=np.int8)
        try:
            play = next((p for p in legal_plays(own, dice) if np.array_equal(p.afterstate, after)), None)
        except BackgammonError as error:
            raise InvalidXgFileError(f"{where}: {error}") from None
        if play is None:
            raise InvalidXgFileError(f"{where}: the board after {dice[0]}{dice[1]} is not left by a legal play of it")
        self.tally.action()
        self.actions.append(MatAction.of_play(mover, dice, play))
        self.board = play.afterstate if mover == 0 else flip(play.afterstate)

    def game(self, footer: Optional[dict[str, Any]], where: str) -> MatGame:
        winner, points = None, 0
        if footer is not None:
            winner, points = _seat(footer["winner"], where), int(footer["points"])
        try:
            return MatGame(self.score, tuple(self.actions), winner, points, crawford=self.crawford)
        except InvalidMatFileError as error:
            raise InvalidXgFileError(f"{where}: {error}") from None


def parse_xg(data: bytes, source: str = ".xg file", bounds: ReadBounds = DEFAULT_BOUNDS) -> MatMatch:
    """The match in the bytes of an .xg file; raise InvalidXgFileError naming ``source``, the game and the record
    (XgBoundError past ``bounds``: records, games, actions).

    A game the file leaves without its closing record (unfinished) has no winner.
    """
    records = _records(data, source, bounds)
    tally = Tally(bounds, source)
    header = next((fields for kind, fields in records if kind == "header_match"), None)
    if header is None:
        raise InvalidXgFileError(f"{source}: no match header record")
    length = int(header["match_length"])
    length = 0 if length == MONEY_LENGTH else length
    games: list[MatGame] = []
    builder: Optional[_GameBuilder] = None
    for number, (kind, fields) in enumerate(records, 1):
        where = f"{source} game {len(games) + (builder is not None)} record {number}"
        tally.node(".xg records")
        if kind == "header_game":
            if builder is not None:
                games.append(builder.game(None, where))
            tally.game()
            builder = _GameBuilder(fields, length > 0, tally)
        elif kind in ("cube", "move", "footer_game"):
            if builder is None:
                raise InvalidXgFileError(f"{where}: a {kind} record before the first game's header")
            if kind == "cube":
                builder.cube_record(fields, where)
            elif kind == "move":
                builder.move_record(fields, where)
            else:
                games.append(builder.game(fields, where))
                builder = None
    if builder is not None:
        games.append(builder.game(None, f"{source} end"))
    if not games:
        raise InvalidXgFileError(f"{source}: no games")
    players = (clean_name(str(header["player1"])) or "Player 1", clean_name(str(header["player2"])) or "Player 2")
    try:
        return MatMatch(length, players, tuple(games), jacoby=not length and bool(header["jacoby"]))
    except InvalidMatFileError as error:
        raise InvalidXgFileError(f"{source}: {error}") from None
