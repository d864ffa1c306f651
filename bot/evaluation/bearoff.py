"""Exact bear-off databases, built by this project with numpy, and their batched evaluation.

Two databases, as GNU Backgammon has them (see docs/bearoff.md):

- one-sided, every distribution of up to 15 checkers on a side's six home points
  (54,264 positions): the probability distribution of the number of rolls that side
  needs to bear all its checkers off, playing each roll to minimise the expected number
  of rolls; and the distribution of the rolls it needs to bear off one checker (the
  gammon-saving distribution for a side with all 15 checkers on the board);
- two-sided, up to 6 checkers a side (924 x 924 positions): the exact cubeless
  probability that the side on roll wins, both sides playing to maximise it; and the
  cubeful money equities for the three cube positions.

A side's home board is six counts ``c[0..5]`` for its points 1..6, in its own view.
Its index is a rank in the combinatorial number system: with ``s_k`` the checkers on
points 6, 5, ..., 7-k (counted from the back), ``p_k = s_k + k - 1`` for k = 1..6 is
a strictly increasing sequence, and ``index = sum_k C(p_k, k)``. Every move lowers
some ``p_k`` and raises none, so a position's successors have smaller indices; the
positions with at most n checkers are exactly the indices below ``C(n + 6, 6)``, so
the 6-checker database is a prefix of the 15-checker one.

Databases are stored as 16-bit values (probabilities scaled to 65535) in
``$XDG_CACHE_HOME/nardy`` (default ``~/.cache/nardy``), built on first use, written
atomically and checked with a SHA-256 of the payload: a corrupt or truncated file is
rebuilt, with a warning on stderr. Where the cache cannot be written, a database is
built in memory for the process alone, with a warning on stderr.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import struct
import threading
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from bot.evaluation.storage import atomic_write, cache_dir, warn
from engine import ROLL_WEIGHTS, ROLLS, afterstates

POINTS = 6
CHECKERS = 15
MAX_ROLLS = 32  # distributions hold P(0 rolls) .. P(31 rolls)
TWO_SIDED_CHECKERS = 6
FORMAT_VERSION = 1

# C(n, k) for n < 32, k <= 6, zero where k > n.
BINOMIAL = np.array([[comb(n, k) for k in range(POINTS + 1)] for n in range(32)], dtype=np.int64)
# _PLACE[k][s] = C(s + k - 1, k): the term of p_k = s + k - 1 in a home board's index.
_PLACE = [BINOMIAL[np.arange(32 - POINTS) + k - 1, k] for k in range(POINTS + 1)]
_SCALE = 65535


def _progress(items: Any, **options: Any) -> Any:
    """tqdm's progress bar over ``items``, imported when a database is built (its import costs a cold start)."""
    from tqdm import tqdm as bar

    return bar(items, **options)


# --- indexing -------------------------------------------------------------------------


def positions_count(checkers: int) -> int:
    """Number of home-board distributions of 0..``checkers`` checkers on six points.

    >>> positions_count(15), positions_count(6)
    (54264, 924)
    """
    return comb(checkers + POINTS, POINTS)


def home_index(counts: np.ndarray) -> np.ndarray:
    """Perfect index of home boards ``counts`` (..., 6): checkers on points 1..6, one side's view.

    >>> int(home_index(np.array([0, 0, 0, 0, 0, 0]))), int(home_index(np.array([1, 0, 0, 0, 0, 0])))
    (0, 1)
    >>> int(home_index(np.array([0, 0, 0, 0, 0, 15])))
    54263
    """
    counts = np.asarray(counts)
    from_back = np.zeros(counts.shape[:-1], dtype=np.int64)
    index = np.zeros(counts.shape[:-1], dtype=np.int64)
    for k in range(1, POINTS + 1):  # one small-table gather per point: fast on millions of boards
        from_back += counts[..., POINTS - k]
        index += _PLACE[k][from_back]
    return index


def home_counts(index: np.ndarray) -> np.ndarray:
    """The home boards (..., 6) (checkers on points 1..6) of perfect indices ``index``; inverse of ``home_index``.

    >>> home_counts(np.array([1, 54263])).tolist()
    [[1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 15]]
    """
    index = np.asarray(index, dtype=np.int64)
    rest = index.copy()
    p = np.empty(index.shape + (POINTS,), dtype=np.int64)
    for k in range(POINTS, 0, -1):  # greedy: the largest p_k with C(p_k, k) <= rest
        p_k = np.searchsorted(BINOMIAL[:, k], rest, side="right") - 1
        p[..., k - 1] = p_k
        rest = rest - BINOMIAL[p_k, k]
    from_back = p - np.arange(POINTS)
    counts_from_back = np.diff(from_back, axis=-1, prepend=0)
    return counts_from_back[..., ::-1]


def _all_counts(checkers: int) -> np.ndarray:
    """(positions_count(checkers), 6) home boards in index order."""
    combos = np.array(list(itertools.combinations(range(checkers + POINTS), POINTS)), dtype=np.int64)
    counts = np.diff(combos - np.arange(POINTS), axis=1, prepend=0)[:, ::-1]
    out = np.empty_like(counts)
    out[home_index(counts)] = counts
    return out


# --- moves of one side alone ------------------------------------------------------------

_CHUNK = 4096  # positions per afterstates call: 21 boards each


def turn_children(
    checkers: int = CHECKERS, counts: np.ndarray | None = None, progress: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(segment, child): every distinct result of each roll for one side alone, from ``engine.afterstates``.

    Positions of up to ``checkers`` checkers (``counts`` in index order, if already at
    hand); ``segment = root * 21 + roll`` (the roll ``ROLLS[roll]``) is sorted, and
    ``child`` is the home-board index of a result.
    """
    counts = _all_counts(checkers) if counts is None else counts
    checkers = int(counts.sum(axis=1).max())
    segments, children = [], []
    chunks = range(0, len(counts), _CHUNK)
    for lo in _progress(chunks, desc=f"bear-off moves ({checkers})", disable=not progress, leave=False):
        block = counts[lo : lo + _CHUNK]
        boards = np.zeros((len(block) * len(ROLLS), 26), dtype=np.int8)
        boards[:, 1 : POINTS + 1] = np.repeat(block, len(ROLLS), axis=0)
        result, parent = afterstates(boards, np.tile(ROLLS, (len(block), 1)))
        segments.append(parent + lo * len(ROLLS))
        children.append(home_index(result[:, 1 : POINTS + 1]))
    return np.concatenate(segments), np.concatenate(children)


@dataclass(frozen=True)
class MoveTable:
    """``turn_children`` by position: the results of position p are ``child[start[p] : start[p] + size[p]]``,
    ``roll`` the index in ``ROLLS`` of each, the rolls in order (every roll has at least one result)."""

    start: np.ndarray
    size: np.ndarray
    roll: np.ndarray
    child: np.ndarray

    @classmethod
    def of(cls, checkers: int, counts: np.ndarray | None = None, progress: bool = False) -> "MoveTable":
        """The table for positions of up to ``checkers`` checkers (``counts`` in index order, if at hand)."""
        segment, child = turn_children(checkers, counts, progress)
        root, roll = np.divmod(segment, len(ROLLS))
        n = positions_count(checkers)
        return cls(np.searchsorted(root, np.arange(n)), np.bincount(root, minlength=n), roll, child)

    def results(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, child, run starts): every result of ``positions``, its row in ``positions``,
        and where each (row, roll) run of results starts (21 runs a row, in roll order)."""
        sizes = self.size[positions]
        row = np.repeat(np.arange(len(positions)), sizes)
        entry = self.start[positions][row] + np.arange(len(row)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        return row, self.child[entry], segment_starts(row * len(ROLLS) + self.roll[entry])


def segment_starts(keys: np.ndarray) -> np.ndarray:
    """Start of each run of equal values in sorted ``keys``."""
    return np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])


def _segment_argmin(values: np.ndarray, starts: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Index of the first smallest value in each segment."""
    smallest = np.minimum.reduceat(values, starts)
    at_min = np.flatnonzero(values == smallest[segment])
    return at_min[segment_starts(segment[at_min])]


# --- one-sided database -----------------------------------------------------------------


@dataclass(frozen=True)
class OneSided:
    """One-sided bear-off distributions of one side alone, indexed by ``home_index``.

    ``rolls[i, k]``: P(the side needs exactly k rolls to bear off all its checkers);
    ``first_off[i, k]``: P(it needs k rolls to bear off one checker) (0 rolls for the
    empty board), the gammon-saving distribution when all 15 are on the board.
    """

    checkers: int
    rolls: np.ndarray
    first_off: np.ndarray

    def mean_rolls(self) -> np.ndarray:
        """Expected number of rolls to bear off, per position."""
        return self.rolls @ np.arange(MAX_ROLLS)

    def mean_first_off(self) -> np.ndarray:
        """Expected number of rolls to bear off one checker, per position."""
        return self.first_off @ np.arange(self.first_off.shape[-1])

    @functools.cached_property
    def rolls_at_least(self) -> np.ndarray:
        """P(the side needs k rolls or more), float32 (the stored values are 16-bit): summed once, 7 MB."""
        return _at_least(self.rolls).astype(np.float32)

    @functools.cached_property
    def first_off_at_least(self) -> np.ndarray:
        """P(the side needs k rolls or more to bear off one checker), float32, summed once."""
        return _at_least(self.first_off).astype(np.float32)


def build_one_sided(checkers: int = CHECKERS, progress: bool = True) -> OneSided:
    """Build the one-sided database for up to ``checkers`` checkers (float64, exact up to rounding).

    Each roll is played to minimise the expected number of rolls (for ``first_off``:
    the expected rolls to bear off one checker), as GNU Backgammon's database does.
    """
    counts = _all_counts(checkers)
    n = len(counts)
    total = counts.sum(axis=1)
    pips = counts @ np.arange(1, POINTS + 1)
    segment_of, child = turn_children(counts=counts, progress=progress)
    root, roll = np.divmod(segment_of, len(ROLLS))
    weight = ROLL_WEIGHTS
    # Order the entries by the root's pip count: a level of equal pips needs only lower levels.
    level_of = pips[root]
    order = np.argsort(level_of, kind="stable")
    root, roll, child, level_of = root[order], roll[order], child[order], level_of[order]
    bear_one = total[child] < total[root]

    rolls = np.zeros((n, MAX_ROLLS))
    first_off = np.zeros((n, MAX_ROLLS))
    rolls[0, 0] = first_off[0, 0] = 1.0
    mean = np.zeros(n)
    mean_first = np.zeros(n)
    level_starts = segment_starts(level_of)
    bounds = np.r_[level_starts, len(root)]
    for lo, hi in _progress(
        list(zip(bounds[:-1], bounds[1:])), desc=f"one-sided bear-off ({checkers})", disable=not progress, leave=False
    ):
        if level_of[lo] == 0:
            continue
        r, c, off = root[lo:hi], child[lo:hi], bear_one[lo:hi]
        key = r * len(ROLLS) + roll[lo:hi]
        starts = segment_starts(key)
        segment = np.cumsum(np.r_[False, key[1:] != key[:-1]])
        parents = r[starts].reshape(-1, len(ROLLS))[:, 0]
        w = weight[roll[lo:hi][starts]].reshape(-1, len(ROLLS))

        best = c[_segment_argmin(mean[c], starts, segment)].reshape(-1, len(ROLLS))
        rolls[parents, 1:] = np.einsum("pr,prk->pk", w, rolls[best, :-1])
        mean[parents] = 1.0 + (w * mean[best]).sum(axis=1)

        value = np.where(off, 0.0, mean_first[c])
        pick = _segment_argmin(value, starts, segment)
        best_first = c[pick].reshape(-1, len(ROLLS))
        done = off[pick].reshape(-1, len(ROLLS))
        following = np.where(done[..., None], np.eye(MAX_ROLLS)[0], first_off[best_first])
        first_off[parents, 1:] = np.einsum("pr,prk->pk", w, following[..., :-1])
        mean_first[parents] = 1.0 + (w * np.where(done, 0.0, mean_first[best_first])).sum(axis=1)
    return OneSided(checkers, rolls, first_off)


# --- two-sided database -----------------------------------------------------------------


@dataclass(frozen=True)
class TwoSided:
    """Two-sided bear-off values, ``[mine, theirs]`` indexed by ``home_index``, side on roll's view.

    ``win``: the cubeless probability that the side on roll wins. ``centred``, ``owned``,
    ``unavailable``: its cubeful money equity per unit cube with the cube centred, owned by
    it, owned by the opponent, before its own cube decision (optimal play and cube action).
    """

    checkers: int
    win: np.ndarray
    centred: np.ndarray
    owned: np.ndarray
    unavailable: np.ndarray


def build_two_sided(checkers: int = TWO_SIDED_CHECKERS, progress: bool = True) -> TwoSided:
    """Build the two-sided database for up to ``checkers`` checkers a side (float64).

    The side on roll plays each roll to maximise its value (win probability, or each
    cubeful equity); the opponent doubles, takes and passes optimally.
    """
    counts = _all_counts(checkers)
    n = len(counts)
    pips = counts @ np.arange(1, POINTS + 1)
    moves = MoveTable.of(checkers, counts, progress)
    n_rolls = len(ROLLS)

    win = np.zeros((n, n))
    centred = np.zeros((n, n))
    owned = np.zeros((n, n))
    unavailable = np.zeros((n, n))
    win[0, :] = 1.0  # the side "on roll" has already borne off: it has won
    for table in (centred, owned, unavailable):
        table[0, :] = 1.0
        table[1:, 0] = -1.0

    mine, theirs = (grid.ravel() for grid in np.meshgrid(np.arange(1, n), np.arange(1, n), indexing="ij"))
    level_of = pips[mine] + pips[theirs]
    order = np.argsort(level_of, kind="stable")
    mine, theirs, level_of = mine[order], theirs[order], level_of[order]
    bounds = np.r_[segment_starts(level_of), len(mine)]
    for lo, hi in _progress(
        list(zip(bounds[:-1], bounds[1:])), desc=f"two-sided bear-off ({checkers})", disable=not progress, leave=False
    ):
        i, j = mine[lo:hi], theirs[lo:hi]
        pair, c, starts = moves.results(i)
        jj = j[pair]

        def average(values: np.ndarray) -> np.ndarray:
            best = np.maximum.reduceat(values, starts).reshape(-1, n_rolls)
            return best @ ROLL_WEIGHTS

        # After my play the opponent is on roll at (j, c): values are theirs, negated for me.
        win[i, j] = average(1.0 - win[jj, c])
        owned[i, j] = average(-unavailable[jj, c])  # I own the cube: they cannot double
        their_double = np.minimum(2.0 * unavailable[jj, c], 1.0)  # I take (2x, I own) or pass (+1 them)
        centred[i, j] = average(-np.maximum(centred[jj, c], their_double))
        unavailable[i, j] = average(-np.maximum(owned[jj, c], their_double))
    return TwoSided(checkers, win, centred, owned, unavailable)


# --- storage ----------------------------------------------------------------------------

_MAGIC = b"NARDYBO\0"
_HEADER = struct.Struct("<8sII4sIII32s")  # magic, version, header size, kind, checkers, rows, cols, sha256


def quantize(probabilities: np.ndarray) -> np.ndarray:
    """Distributions (..., K) summing to 1 as uint16 summing to exactly 65535 (the mode takes the rounding)."""
    scaled = np.rint(np.clip(probabilities, 0.0, 1.0) * _SCALE).astype(np.int64)
    excess = scaled.sum(axis=-1) - _SCALE
    mode = np.argmax(scaled, axis=-1)
    np.subtract.at(scaled.reshape(-1, scaled.shape[-1]), (np.arange(excess.size), mode.ravel()), excess.ravel())
    return scaled.astype(np.uint16)


def _encode(values: np.ndarray) -> np.ndarray:
    """Values in [0, 1] as uint16 (x 65535)."""
    return np.rint(np.clip(values, 0.0, 1.0) * _SCALE).astype(np.uint16)


def _decode(stored: np.ndarray) -> np.ndarray:
    return stored.astype(np.float64) / _SCALE


def write_table(path: Path, kind: bytes, checkers: int, table: np.ndarray) -> None:
    """Write a (rows, cols) uint16 table with its header atomically (``bot.evaluation.storage.atomic_write``)."""
    table = np.ascontiguousarray(table, dtype="<u2")
    payload = table.tobytes()
    header = _HEADER.pack(
        _MAGIC,
        FORMAT_VERSION,
        _HEADER.size,
        kind,
        checkers,
        table.shape[0],
        table.shape[1],
        hashlib.sha256(payload).digest(),
    )
    with atomic_write(path) as f:
        f.write(header)
        f.write(payload)


def read_table(path: Path, kind: bytes, checkers: int) -> np.ndarray | None:
    """The uint16 table stored at ``path``, or None if it is missing, of another kind or version, or corrupt."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < _HEADER.size:
        return None
    magic, version, size, stored_kind, stored_checkers, rows, cols, digest = _HEADER.unpack_from(data)
    payload = data[size:]
    if (magic, version, size, stored_kind, stored_checkers) != (_MAGIC, FORMAT_VERSION, _HEADER.size, kind, checkers):
        return None
    if len(payload) != 2 * rows * cols or hashlib.sha256(payload).digest() != digest:
        return None
    return np.frombuffer(payload, dtype="<u2").reshape(rows, cols)


def _store(path: Path, kind: bytes, checkers: int, table: np.ndarray) -> None:
    """Cache a freshly built table, saying so where it replaces a damaged file; where the cache cannot be written,
    say so and keep it in memory only."""
    damaged = path.exists()  # a file read_table refused: damaged, truncated, or of another version
    try:
        write_table(path, kind, checkers, table)
    except OSError as error:
        warn(
            f"cannot store the bear-off database in {path.parent} ({error.strerror or error}); "
            "it stays in memory for this process (set XDG_CACHE_HOME to a writable directory)"
        )
        return
    if damaged:
        warn(f"the bear-off database {path} was damaged or of another version; rebuilt")


_loaded: dict[tuple[str, Path], OneSided | TwoSided] = {}
_lock = threading.Lock()


def one_sided(checkers: int = CHECKERS, directory: Path | None = None, progress: bool = True) -> OneSided:
    """The one-sided database from the cache (built and stored there first if missing or corrupt)."""
    path = (directory or cache_dir()) / f"bearoff-one-sided-{checkers}.bin"
    with _lock:
        if ("one", path) not in _loaded:
            table = read_table(path, b"ONE1", checkers)
            if table is None or table.shape != (positions_count(checkers), 2 * MAX_ROLLS):
                built = build_one_sided(checkers, progress)
                table = np.concatenate([quantize(built.rolls), quantize(built.first_off)], axis=1)
                _store(path, b"ONE1", checkers, table)
            values = _decode(table)
            _loaded["one", path] = OneSided(checkers, values[:, :MAX_ROLLS], values[:, MAX_ROLLS:])
        database = _loaded["one", path]
    assert isinstance(database, OneSided), "the 'one' entries are one-sided databases"
    return database


def two_sided(checkers: int = TWO_SIDED_CHECKERS, directory: Path | None = None, progress: bool = True) -> TwoSided:
    """The two-sided database from the cache (built and stored there first if missing or corrupt)."""
    path = (directory or cache_dir()) / f"bearoff-two-sided-{checkers}.bin"
    n = positions_count(checkers)
    with _lock:
        if ("two", path) not in _loaded:
            table = read_table(path, b"TWO1", checkers)
            if table is None or table.shape != (n * n, 4):
                built = build_two_sided(checkers, progress)
                table = np.stack(
                    [_encode(built.win)]
                    + [_encode((e + 1.0) / 2.0) for e in (built.centred, built.owned, built.unavailable)],
                    axis=-1,
                )
                table = table.reshape(n * n, 4)
                _store(path, b"TWO1", checkers, table)
            values = _decode(table).reshape(n, n, 4)
            equities = 2.0 * values[..., 1:] - 1.0
            _loaded["two", path] = TwoSided(checkers, values[..., 0], *np.moveaxis(equities, -1, 0))
        database = _loaded["two", path]
    assert isinstance(database, TwoSided), "the 'two' entries are two-sided databases"
    return database


# --- evaluation -------------------------------------------------------------------------


def is_bearoff(boards: np.ndarray) -> np.ndarray:
    """(N,) bool: both sides have every checker on their own home points or off, none on the bar.

    Boards (N, 26) in the view of the side on roll (docs/DESIGN.md); contact is then impossible.
    """
    boards = np.asarray(boards).reshape(-1, 26)
    mover_outside = np.any(boards[:, 7:26] > 0, axis=1)
    opponent_outside = np.any(boards[:, 0:19] < 0, axis=1)
    return ~mover_outside & ~opponent_outside


def home_boards(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mover's, opponent's) home boards (N, 6), each on its own points 1..6, of bear-off boards (N, 26)."""
    boards = np.asarray(boards, dtype=np.int64).reshape(-1, 26)
    return np.maximum(boards[:, 1:7], 0), np.maximum(-boards[:, 24:18:-1], 0)


def _at_least(distribution: np.ndarray) -> np.ndarray:
    """P(X >= k) for k = 0..K-1 from P(X = k)."""
    return np.cumsum(distribution[..., ::-1], axis=-1)[..., ::-1]


def bearoff_probabilities(boards: np.ndarray, one: OneSided | None = None, two: TwoSided | None = None) -> np.ndarray:
    """(N, 5) float32 [win, wg, wbg, lg, lbg] for the side on roll of bear-off boards (N, 26).

    Exact from the two-sided database when both sides have at most its checkers;
    otherwise from the one-sided distributions, taken as independent (as GNU
    Backgammon does): the side on roll wins if it needs no more rolls than the
    opponent. Backgammons are impossible. The boards must pass ``is_bearoff``.
    """
    one = one if one is not None else one_sided()
    two = two if two is not None else two_sided()
    mine, theirs = home_boards(boards)
    my_index, their_index = home_index(mine), home_index(theirs)
    my_count, their_count = mine.sum(axis=1), theirs.sum(axis=1)

    me, them = one.rolls[my_index], one.rolls[their_index]
    # I roll first: after my k-th roll the opponent has rolled k - 1 times.
    win = np.einsum("nk,nk->n", me, one.rolls_at_least[their_index])
    # I win a gammon if I finish before the opponent bears off its first checker, and conversely.
    win_gammon = np.einsum("nk,nk->n", me, one.first_off_at_least[their_index])
    lose_gammon = np.einsum("nk,nk->n", them[:, :-1], one.first_off_at_least[my_index][:, 1:])
    win_gammon = np.where(their_count == CHECKERS, win_gammon, 0.0)
    lose_gammon = np.where(my_count == CHECKERS, lose_gammon, 0.0)

    exact = (my_count <= two.checkers) & (their_count <= two.checkers)
    win = np.where(exact, two.win[np.where(exact, my_index, 0), np.where(exact, their_index, 0)], win)
    five = np.zeros((len(mine), 5), dtype=np.float32)
    five[:, 0] = win
    five[:, 1] = win_gammon
    five[:, 3] = lose_gammon
    return five
