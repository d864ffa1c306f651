"""The row, mask and hash helpers that both batched move generators share (``engine.movegen``,
``engine.long_nardy.movegen``).

A generator keeps each board (26 int8 values, the mover's view) in a 32-byte row, so a gather
moves four 64-bit words (``take_rows``); reads the mover's points as one int64 bit mask per
row (``bits``); and keys every board by a linear hash (``hash_keys``) that a step updates from
three table entries, so duplicates are found before their rows are built (``first_per_key``).
Afterstates come out as pieces of (rows, board index), each grouped by board, and are merged
into one grouping by board (``merge_by_board``). docs/DESIGN.md says why each is fast.

>>> rows = to_rows(np.array([[0, 2, -1] + [0] * 23], dtype=np.int8))
>>> rows.shape, int(bits(rows > 0)[0]), int(bits(rows < 0)[0])
((1, 32), 2, 4)
"""

from __future__ import annotations

from typing import Callable

import numpy as np

WIDTH = 32  # bytes per board row: 26 points padded to four 64-bit words
CHUNK = 1024  # boards per pass: bigger batches are split so the working arrays stay in cache

_rng = np.random.default_rng(0x6A5D)
# Linear hash: key(board) = sum(board[p] * HASH[p]) modulo 2**64 (int64 arithmetic wraps).
HASH = _rng.integers(-(2**63), 2**63 - 1, size=26, dtype=np.int64)
HASH.setflags(write=False)

# Highest set bit (a point 1..6) of a home-board mask, -1 for an empty mask.
_HIGHEST_HOME = np.array([int(m).bit_length() - 1 for m in range(128)], dtype=np.int64)
_ABOVE_HOME = np.int64(sum(1 << p for p in range(7, 26)))  # points 7..24 and backgammon's bar

# One piece of afterstates: rows (M, WIDTH) int8 and the board index (M,) of each, grouped by board.
Piece = tuple[np.ndarray, np.ndarray]
Generator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def to_rows(boards: np.ndarray) -> np.ndarray:
    """Boards (B, 26) as rows (B, WIDTH) int8, the padding zero."""
    rows = np.zeros((len(boards), WIDTH), dtype=np.int8)
    rows[:, :26] = boards
    return rows


def hash_keys(boards: np.ndarray) -> np.ndarray:
    """(B,) int64 linear hash keys of boards (B, 26); a step changes a key by a few ``HASH`` entries."""
    return boards.astype(np.int64) @ HASH


def take_rows(rows: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``rows[index]``, gathered as four 64-bit words per row (np.take is far faster than fancy indexing)."""
    return np.take(rows.view(np.uint64), index, axis=0).view(np.int8)


def bits(flags: np.ndarray) -> np.ndarray:
    """One int64 bit mask per row of a (M, 32) bool array, bit p = column p."""
    return np.packbits(flags, axis=1, bitorder="little").view(np.uint32)[:, 0].astype(np.int64)


def bear_off_sources(own: np.ndarray, die: np.ndarray) -> np.ndarray:
    """Per row, the mask of points a checker may bear off from with ``die``, given the mover's points ``own``.

    None unless every checker is home (points 1..6): then the point ``die`` itself, or the highest
    point held when it is below ``die``. The rule of both games.

    >>> bear_off_sources(np.array([0b1010, 0b1010, 1 << 9]), np.array([3, 6, 1])).tolist()
    [8, 8, 0]
    """
    all_home = (own & _ABOVE_HOME) == 0
    highest = _HIGHEST_HOME[own & 127]
    from_highest = (highest >= 1) & (highest < die)
    exact = own & (np.int64(1) << die)
    return np.where(all_home, exact | np.where(from_highest, np.int64(1) << np.maximum(highest, 0), 0), 0)


def set_bits(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, bit) of every set bit of (M,) masks below bit 32, rows in order and bits rising within a row.

    >>> set_bits(np.array([0b101, 0, 0b10]))
    (array([0, 0, 2]), array([0, 2, 1]))
    """
    flags = np.unpackbits(masks.astype(np.uint32).view(np.uint8), bitorder="little").view(bool)
    flat = np.nonzero(flags)[0]  # nonzero on a bool view: much faster than on uint8
    return flat >> 5, flat & 31


def first_per_key(board: np.ndarray, keys: np.ndarray, count: int) -> np.ndarray:
    """Indices of one entry per distinct (board index, hash key), grouped by board in order.

    ``count`` is the number of boards (board indices lie in 0..count-1); which of several equal
    entries is kept is not specified: equal keys are equal boards.
    """
    shift = max(int(count).bit_length(), 1)
    sort_key = (board.astype(np.uint64) << np.uint64(64 - shift)) | (keys.view(np.uint64) >> np.uint64(shift))
    order = np.argsort(sort_key)
    sorted_key = sort_key[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = sorted_key[1:] != sorted_key[:-1]
    return order[first]


def merge_by_board(pieces: list[Piece], count: int) -> Piece:
    """Interleave pieces of (rows, board index), each grouped by board, into one grouping by board.

    Rows of one board keep their order, earlier pieces first. A scatter to computed
    places, no sort.
    """
    if len(pieces) == 1:
        return pieces[0]
    sizes = [np.bincount(board, minlength=count) for _, board in pieces]
    place = np.cumsum(sum(sizes)) - sum(sizes)  # where each board's rows start
    total = sum(len(board) for _, board in pieces)
    out = np.empty((total, WIDTH // 8), dtype=np.uint64)
    parent = np.empty(total, dtype=np.int64)
    for (found, board), size in zip(pieces, sizes):
        first = np.cumsum(size) - size  # where each board's rows start inside this piece
        target = place[board] + np.arange(len(board)) - first[board]
        out[target] = found.view(np.uint64)
        parent[target] = board
        place += size
    return out.view(np.int8), parent


def in_chunks(generate: Generator, boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``generate(boards, dice)`` -> (children, parent), run CHUNK boards at a time and joined, parents renumbered."""
    if len(boards) <= CHUNK:
        return generate(boards, dice)
    parts = [generate(boards[i : i + CHUNK], dice[i : i + CHUNK]) for i in range(0, len(boards), CHUNK)]
    children = np.concatenate([c for c, _ in parts])
    parent = np.concatenate([p + i for (_, p), i in zip(parts, range(0, len(boards), CHUNK))])
    return children, parent
