"""Recorded matches and position lists, whatever their format: one place that tells them apart by content.

``read_records(text)`` reads a Jellyfish .mat match (``engine.matfile``), a GNU Backgammon .sgf
(``engine.sgf``) or a list of positions, one Position ID, ``PositionID:MatchID`` or XGID a line
(``engine.position_formats``), and says which it was; ``read_records_bytes`` also reads an eXtreme
Gammon .xg match (``engine.xgfile``), a binary file. The format comes from the content, never from a
file name: an .xg starts with the bytes ``RGMH``; a .sgf starts with ``(``; a position list's first
line that is neither blank nor a comment (``#`` or ``;``) is a position; anything else is read as
.mat, whose errors say what was expected.
A single game or a money session is a match like any other (a .mat of one game; ``save game``,
a money session in .sgf). Every reader stops at its ``engine.matfile.ReadBounds`` (games, actions, nodes,
nested variations; a file over ``MAX_FILE_BYTES`` is not read at all) with ``FileBoundError`` naming the bound.

>>> kind_of("(;FF[4]GM[6]") , kind_of("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"), kind_of(" 7 point match")
(<FileKind.SGF: 'sgf'>, <FileKind.POSITIONS: 'positions'>, <FileKind.MAT: 'mat'>)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from enum import Enum

from engine.errors import BackgammonError, quote
from engine.matfile import DEFAULT_BOUNDS, FileBoundError, InvalidMatFileError, MatMatch, ReadBounds, Tally, parse_mat
from engine.position_formats import PositionSetup, read_position
from engine.sgf import parse_sgf
from engine.xgfile import is_xg, parse_xg

# The largest file ``read_records_file`` reads: a 25-point match of gnubg's with its analysis is about 2 MB.
MAX_FILE_BYTES = 16 * 1024 * 1024
_POSITION_LINE = re.compile(r"(?:XGID=\S+|[A-Za-z0-9+/]{14}(?::[A-Za-z0-9+/]{12})?)", re.IGNORECASE)


class FileKind(str, Enum):
    MAT = "mat"
    SGF = "sgf"
    POSITIONS = "positions"
    XG = "xg"


@dataclass(frozen=True)
class PositionLine:
    """One position of a list: its line number (from 1), its text, and what it describes."""

    line: int
    text: str
    setup: PositionSetup


def _meaningful_lines(text: str):
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.lstrip("\ufeff").strip()
        if line and line[0] not in "#;":
            yield number, line


def kind_of(text: str) -> FileKind:
    """Which format ``text`` is in, from its content."""
    if text.lstrip("\ufeff \t\r\n").startswith("("):
        return FileKind.SGF
    first = next(_meaningful_lines(text), None)
    if first is not None and _POSITION_LINE.fullmatch(first[1]):
        return FileKind.POSITIONS
    return FileKind.MAT


def read_position_list(
    text: str, source: str = "position list", bounds: ReadBounds = DEFAULT_BOUNDS
) -> list[PositionLine]:
    """Every position of a list, one a line (blank lines and ``#``/``;`` comments skipped).

    A line that is not a position raises InvalidMatFileError naming ``source`` and the line; more than
    ``bounds.nodes`` positions, FileBoundError.
    """
    found = []
    tally = Tally(bounds, source)
    for number, line in _meaningful_lines(text):
        tally.node("positions")
        try:
            found.append(PositionLine(number, line, read_position(line)))
        except BackgammonError as error:
            raise InvalidMatFileError(f"{source} line {number}: {error}") from None
    if not found:
        raise InvalidMatFileError(f"{source}: no positions")
    return found


def read_records(
    text: str, source: str = "match file", bounds: ReadBounds = DEFAULT_BOUNDS
) -> MatMatch | list[PositionLine]:
    """The match of a .mat or .sgf text, or the positions of a position list; errors name ``source`` and the line."""
    kind = kind_of(text)
    if kind is FileKind.SGF:
        return parse_sgf(text, source, bounds)
    if kind is FileKind.POSITIONS:
        return read_position_list(text, source, bounds)
    return parse_mat(text, source, bounds)


def read_match(text: str, source: str = "match file", bounds: ReadBounds = DEFAULT_BOUNDS) -> MatMatch:
    """The match of a .mat or .sgf text (a position list is refused with InvalidMatFileError)."""
    records = read_records(text, source, bounds)
    if not isinstance(records, MatMatch):
        raise InvalidMatFileError(
            f"{source}: a list of positions, not a match ({quote(records[0].text)} on line {records[0].line})"
        )
    return records


def kind_of_bytes(data: bytes, source: str = "match file") -> tuple[FileKind, str]:
    """Which format a file's bytes are in, and its text ("" for an .xg, which is binary).

    Bytes that are neither an .xg nor UTF-8 raise InvalidMatFileError naming ``source``.
    """
    if is_xg(data):
        return FileKind.XG, ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidMatFileError(f"{source}: neither an .xg file nor UTF-8 text ({error})") from None
    return kind_of(text), text


def read_records_bytes(
    data: bytes, source: str = "match file", bounds: ReadBounds = DEFAULT_BOUNDS
) -> MatMatch | list[PositionLine]:
    """The match of an .xg file's bytes, else ``read_records`` of their text (``kind_of_bytes``' errors)."""
    kind, text = kind_of_bytes(data, source)
    return parse_xg(data, source, bounds) if kind is FileKind.XG else read_records(text, source, bounds)


def read_records_file(path: str | os.PathLike, bounds: ReadBounds = DEFAULT_BOUNDS) -> MatMatch | list[PositionLine]:
    """``read_records_bytes`` of the file at ``path``; one over ``MAX_FILE_BYTES`` is refused unread."""
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise FileBoundError(f"{path}: over {MAX_FILE_BYTES} bytes: at most {MAX_FILE_BYTES} are {bounds.purpose}")
    return read_records_bytes(data, str(path), bounds)
