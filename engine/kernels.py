"""Compiled loops (numba) of the engine: the batched move generator, one position at a time.

The only engine module that imports numba. ``engine.compiled`` loads it for a batch big
enough to pay for numba's import, so ``import engine`` and small batches stay numpy-only,
and without numba every batch runs the numpy generator (``engine.movegen``), the
reference this one is tested against: the same afterstates, in the same order.

numba's own cache trusts its files: a truncated index or a flipped byte in a data file
raised from inside every compiled call (``UnpicklingError``, ``EOFError``,
``UnicodeDecodeError``) until someone deleted the folder, and a flipped byte in the
machine code could load as wrong code. Here every file is written behind a SHA-256 of
its content (``_SealedCacheFile``); a file that fails the check or fails to load
(damaged, or written by something else) is deleted, reported, and the kernel is
compiled afresh and cached again. ``bot.evaluation.kernels`` caches its kernels the same way.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import warnings
from pathlib import Path
from typing import Any, Callable

import numba
import numpy as np
from numba.core import cgutils, event, types
from numba.core.runtime import rtsys
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.extending import intrinsic

from engine.movegen import HASH

Report = Callable[[str], None]

COMPILE_SECONDS = 15  # what compiling every kernel costs a cold cache, on one core of a small machine
_SEAL = b"nardy-numba-cache-1\n"  # first bytes of every cache file this module writes
_DIGEST = hashlib.sha256().digest_size
_warned: set[str] = set()  # cache folders already reported in this process


class DamagedCacheError(Exception):
    """A cache file whose seal or digest does not match its content: damaged, or not written by this module."""


def _sealed(payload: bytes) -> bytes:
    return _SEAL + hashlib.sha256(payload).digest() + payload


def _unsealed(path: str) -> Any:
    """The object pickled in the sealed file at ``path``; ``DamagedCacheError`` unless seal and digest match."""
    data = Path(path).read_bytes()
    digest, payload = data[len(_SEAL) : len(_SEAL) + _DIGEST], data[len(_SEAL) + _DIGEST :]
    if not data.startswith(_SEAL) or hashlib.sha256(payload).digest() != digest:
        raise DamagedCacheError(f"{Path(path).name} fails its checksum")
    return pickle.loads(payload)


class _SealedCacheFile(IndexDataCacheFile):
    """numba's index (``.nbi``) and data (``.nbc``) files of one function, each sealed with a digest."""

    def __init__(self, cache_path: str, filename_base: str, source_stamp: Any) -> None:
        super().__init__(cache_path, filename_base, source_stamp)
        self.filename_base = filename_base

    def _load_index(self) -> dict:
        try:
            version, stamp, overloads = _unsealed(self._index_path)
        except FileNotFoundError:
            return {}
        # Another numba or an edited source: stale, not damaged; numba overwrites it.
        return overloads if (version, stamp) == (self._version, self._source_stamp) else {}

    def _save_index(self, overloads: dict) -> None:
        with self._open_for_write(self._index_path) as f:
            f.write(_sealed(self._dump((self._version, self._source_stamp, overloads))))

    def _load_data(self, name: str) -> Any:
        return _unsealed(self._data_path(name))

    def _save_data(self, name: str, data: Any) -> None:
        with self._open_for_write(self._data_path(name)) as f:
            f.write(_sealed(self._dump(data)))

    def discard(self) -> None:
        """Delete this function's index and data files (others' files stay)."""
        folder = Path(self._cache_path)
        for path in [folder / self._index_name, *folder.glob(f"{self.filename_base}.*.nbc")]:
            path.unlink(missing_ok=True)


class _SealedCache(FunctionCache):
    """numba's per-function cache on sealed files: a cache entry that cannot be read back is discarded, never raised."""

    def __init__(self, py_func: Callable, report: Report) -> None:
        super().__init__(py_func)  # RuntimeError where numba finds no folder it may write
        self._cache_file = _SealedCacheFile(
            self._cache_path, self._impl.filename_base, self._impl.locator.get_source_stamp()
        )
        self._report = report

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The cached code, or None. Only numba's runtime, which the code links against, is set up first: numba's
        own ``load_overload`` refreshes the whole target context, importing every implementation it has (0.3 s a
        process), which only compiling needs (numba's compiler refreshes it then)."""
        try:
            rtsys.initialize(target_context)
            return self._load_overload(sig, target_context)
        except Exception as error:  # whatever fails reading a cache entry back, compiling afresh is the remedy
            self._heal(f"damaged or foreign ({type(error).__name__}: {error}); discarded, compiling afresh")
            try:
                self._cache_file.discard()
            except OSError:
                pass  # numba overwrites the files when it stores the fresh code
            return None

    def save_overload(self, sig: Any, data: Any) -> None:
        try:
            super().save_overload(sig, data)
        except (OSError, DamagedCacheError) as error:  # the code compiled; it just is not kept for next time
            self._heal(f"not writable or damaged ({type(error).__name__}: {error}); the compiled code is not kept")

    def _heal(self, what: str) -> None:
        """Report once per process and cache folder."""
        if self._cache_path not in _warned:
            _warned.add(self._cache_path)
            self._report(f"the compiled-kernel cache in {self._cache_path} is {what}")


def sealed_njit(report: Report, **options: Any) -> Callable[[Callable], Any]:
    """``numba.njit(**options)`` with its machine code cached on sealed files; ``report`` hears of a cache healed."""

    def decorate(function: Callable) -> Any:
        dispatcher = numba.njit(**options)(function)
        dispatcher._cache = _SealedCache(dispatcher.py_func, report)  # what cache=True does, with the sealed cache
        return dispatcher

    return decorate


def _warn(message: str) -> None:
    """The engine never prints: a healed cache is a Python warning, which the front doors may show."""
    warnings.warn(message, RuntimeWarning, stacklevel=2)


class _CompileNotice(event.Listener):
    """Says once per process, as a warning, that numba compiles this project's kernels (a cold cache), so a long
    first run is not silent; kernels loaded from the cache say nothing."""

    announced = False

    def on_start(self, compile_event: event.Event) -> None:
        function = compile_event.data["dispatcher"].py_func
        if not self.announced and function.__module__.split(".")[0] in ("engine", "bot"):
            self.announced = True
            where = os.environ.get("NUMBA_CACHE_DIR", "numba's cache")
            _warn(f"compiling the search kernels, once: about {COMPILE_SECONDS} s (cached in {where})")

    def on_end(self, compile_event: event.Event) -> None:
        pass


event.register("numba:compile", _CompileNotice())
_compiled = sealed_njit(_warn, nogil=True, boundscheck=False)
_inlined = sealed_njit(_warn, nogil=True, boundscheck=False, inline="always")  # small steps, inlined into loops

_UNSIGNED = np.int64(-(2**63))  # x ^ _UNSIGNED orders int64 keys as their unsigned values
_PLAYS = 512  # room for one position's plays of both dice: at most 2 * 15 * 15 (15 checkers, 15 points)
_SLOTS = 2 * _PLAYS  # hash-table slots: never more than half full
_FIRST_ROOM = 4096  # rows beyond a typical batch's, so one position with thousands of plays fits at once
# Bit masks over points 0..25 (bit 25: the mover's bar), as engine.movegen builds them.
_BAR_BIT = 1 << 25
_ABOVE_HOME = ((1 << 26) - 1) & ~((1 << 7) - 1)  # points 7..24 and the bar


def _cttz(typingctx: Any, mask: Any) -> Any:  # pragma: no cover - compiled
    """Trailing zero bits of a 64-bit mask: LLVM's cttz (one instruction)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return types.int64(types.int64), codegen


def _ctlz(typingctx: Any, mask: Any) -> Any:  # pragma: no cover - compiled
    """Leading zero bits of a 64-bit mask (64 for 0): LLVM's ctlz."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctlz(args[0], context.get_constant(types.boolean, False))

    return types.int64(types.int64), codegen


def _copy_row(typingctx: Any, rows: Any, row: Any, source: Any, source_row: Any) -> Any:  # pragma: no cover
    """``rows[row] = source[source_row]`` for (n, 26) int8 arrays: one 26-byte memcpy, which LLVM turns into a few
    wide loads and stores (a loop over the points moves a byte at a time; a row view would cost a reference count)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        zero = context.get_constant(types.intp, 0)
        pointers = []
        for array_type, array, index in ((signature.args[0], args[0], args[1]), (signature.args[2], args[2], args[3])):
            array_struct = context.make_array(array_type)(context, builder, array)
            pointers.append(cgutils.get_item_pointer(context, builder, array_type, array_struct, [index, zero]))
        cgutils.raw_memcpy(builder, pointers[0], pointers[1], context.get_constant(types.intp, 26), 1)
        return context.get_dummy_value()

    for array in (rows, source):  # only C-contiguous int8 rows are 26 bytes one after the other
        if not (isinstance(array, types.Array) and array.ndim == 2 and array.layout == "C"):
            return None
        if array.dtype != types.int8:
            return None
    return types.none(rows, row, source, source_row), codegen


_lowest: Any = intrinsic(_cttz)
leading_zeros: Any = intrinsic(_ctlz)
_copy: Any = intrinsic(_copy_row)


@_inlined
def _sources(own: int, blocked: int, die: int, cap: int) -> int:  # pragma: no cover - compiled
    """The legal source points of one step of ``die``, up to point ``cap``, as a bit mask.

    ``own``: the points holding the mover's checkers (bit 25 its bar); ``blocked``: the
    points the opponent holds with two or more, fixed for the turn (a play can neither
    make nor break them). The rules of ``engine.movegen._legal_steps``: the bar first;
    a step lands on any point not blocked; bearing off once every checker is home, from
    the die's point, or from the highest point when the die is larger.
    """
    if own & _BAR_BIT:
        return _BAR_BIT if cap >= 25 and (blocked >> (25 - die)) & 1 == 0 else 0
    sources = own & ~(blocked << die) & ~((2 << die) - 1)
    if own & _ABOVE_HOME == 0 and own:
        sources |= own & (1 << die)
        highest = 63 - leading_zeros(own)
        if highest < die:
            sources |= 1 << highest
    return sources & ((2 << cap) - 1)


@_inlined
def _key_change(rows: np.ndarray, row: int, source: int, die: int, hash_: np.ndarray) -> int:  # pragma: no cover
    """How one step changes the linear hash key of board ``rows[row]`` (``engine.movegen._step_keys``).

    The board is not touched: a duplicate play is recognised before it is built.
    """
    destination = source - die
    if destination <= 0:
        return -hash_[source]
    if rows[row, destination] == -1:
        return 2 * hash_[destination] - hash_[source] - hash_[0]
    return hash_[destination] - hash_[source]


@_inlined
def _apply(rows: np.ndarray, row: int, own: int, source: int, die: int) -> int:  # pragma: no cover - compiled
    """Play one step on board ``rows[row]`` in place and return the mover's new points mask; a hit sends
    the opponent's blot to its bar, point 0."""
    rows[row, source] -= 1
    if rows[row, source] == 0:
        own &= ~(1 << source)
    destination = source - die
    if destination > 0:
        if rows[row, destination] == -1:
            rows[row, destination] = 1
            rows[row, 0] -= 1
        else:
            rows[row, destination] += 1
        own |= 1 << destination
    return own


@_inlined
def _emit(
    rows: np.ndarray, row: int, position: int, children: np.ndarray, parent: np.ndarray, written: int
) -> int:  # pragma: no cover - compiled
    """Append board ``rows[row]`` as an afterstate of ``position``; the new row count, -1 when the buffer is full."""
    if written >= len(parent):
        return -1
    _copy(children, written, rows, row)
    parent[written] = position
    return written + 1


@_compiled
def _non_double(
    levels: np.ndarray,
    own: int,
    blocked: int,
    key: int,
    high: int,
    low: int,
    position: int,
    hash_: np.ndarray,
    table: np.ndarray,
    plays: np.ndarray,
    keys: np.ndarray,
    children: np.ndarray,
    parent: np.ndarray,
    written: int,
) -> int:  # pragma: no cover
    """Append the afterstates of a non-double from board ``levels[0]``, in the numpy generator's order; the
    new row count, -1 when full.

    Plays of both dice, both orders, are de-duplicated by hash key before any board is
    built and come out in ascending unsigned key order; failing those, the plays of the
    higher die alone, else of the lower, by source; failing those, the board itself.
    ``levels[1]`` holds the board after one step; the hash table ``table`` keeps in each slot
    the position that wrote it (so it is never cleared) and the key, side by side.
    """
    found = 0
    high_first = _sources(own, blocked, high, 25)
    for die1, die2 in ((high, low), (low, high)):
        first = _sources(own, blocked, die1, 25)
        while first:
            source1 = _lowest(first)
            first &= first - 1
            _copy(levels, 1, levels, 0)
            key1 = key + _key_change(levels, 1, source1, die1, hash_)
            second = _sources(_apply(levels, 1, own, source1, die1), blocked, die2, 25)
            while second:
                source2 = _lowest(second)
                second &= second - 1
                if die1 == low and (high_first >> source2) & 1:
                    # Legality depends on the mover's points alone: if the same two steps, higher
                    # die first, were legal, the first order found this board; no key needed.
                    after = own & ~(1 << source2) if levels[0, source2] == 1 else own
                    if source2 > high:
                        after |= 1 << (source2 - high)
                    if (_sources(after, blocked, low, 25) >> source1) & 1:
                        continue
                key2 = key1 + _key_change(levels, 1, source2, die2, hash_)
                slot = (key2 ^ (key2 >> 31)) & (_SLOTS - 1)
                while table[slot, 0] == position and table[slot, 1] != key2:
                    slot = (slot + 1) & (_SLOTS - 1)
                if table[slot, 0] == position:
                    continue  # a play already found
                table[slot, 0], table[slot, 1] = position, key2
                _copy(plays, found, levels, 1)
                _apply(plays, found, 0, source2, die2)
                keys[found] = key2 ^ _UNSIGNED  # signed order of these = unsigned order of the keys
                found += 1
    if found:
        # Each play goes to its rank by unsigned key, the numpy generator's order: counting
        # smaller keys has no unpredictable branch, unlike an insertion sort.
        if written + found > len(parent):
            return -1
        for i in range(found):
            rank = 0
            for j in range(found):
                rank += keys[j] < keys[i]
            _copy(children, written + rank, plays, i)
            parent[written + rank] = position
        return written + found
    for die in (high, low):
        sources = _sources(own, blocked, die, 25)
        if sources == 0:
            continue
        while sources:
            _copy(levels, 1, levels, 0)
            _apply(levels, 1, 0, _lowest(sources), die)
            sources &= sources - 1
            written = _emit(levels, 1, position, children, parent, written)
            if written < 0:
                return -1
        return written
    return _emit(levels, 0, position, children, parent, written)


@_compiled
def _double(
    levels: np.ndarray,
    own: int,
    blocked: int,
    die: int,
    position: int,
    owns: np.ndarray,
    left: np.ndarray,
    children: np.ndarray,
    parent: np.ndarray,
    written: int,
) -> int:  # pragma: no cover
    """Append the afterstates of a double from board ``levels[0]``, in the numpy generator's order; the new
    row count, -1 when full.

    A depth-first walk over up to four steps with non-increasing sources, so no play
    repeats and the plays come out in the numpy generator's order (lexicographic in the
    sources); ``levels[k]`` is the board after k steps. Only plays of the most steps any
    play reaches are kept: a deeper play found later discards the shallower ones already
    appended.
    """
    left[0] = _sources(own, blocked, die, 25)
    if left[0] == 0:
        return _emit(levels, 0, position, children, parent, written)
    start = written
    deepest = 0
    owns[0] = own
    depth = 0
    while depth >= 0:
        if left[depth] == 0:
            depth -= 1
            continue
        source = _lowest(left[depth])
        left[depth] &= left[depth] - 1
        child = depth + 1
        if child == 4:  # the last step, played straight into the output: most plays of a double end here
            if deepest < 4:
                deepest, written = 4, start
            if written >= len(parent):
                return -1
            _copy(children, written, levels, depth)
            _apply(children, written, 0, source, die)
            parent[written] = position
            written += 1
            continue
        _copy(levels, child, levels, depth)
        owns[child] = _apply(levels, child, owns[depth], source, die)
        left[child] = _sources(owns[child], blocked, die, source)
        if left[child]:
            depth = child
            continue
        if child < deepest:
            continue
        if child > deepest:
            deepest, written = child, start
        written = _emit(levels, child, position, children, parent, written)
        if written < 0:
            return -1
    return written


@_compiled
def _fill(
    boards: np.ndarray,
    dice: np.ndarray,
    first: int,
    hash_: np.ndarray,
    children: np.ndarray,
    parent: np.ndarray,
    starts: np.ndarray,
    offset: int,
) -> tuple[int, int]:  # pragma: no cover - compiled
    """Append the afterstates of boards ``first``, ``first + 1``, ... until the buffers are full; ``starts[b]``
    becomes where board b's rows begin, counted from ``offset`` (the rows of earlier buffers).

    Returns (the first board not done, rows written): a board whose afterstates do not all
    fit is left out whole, for the caller to retry with room.
    """
    table = np.full((_SLOTS, 2), -1, dtype=np.int64)
    plays = np.empty((_PLAYS, 26), dtype=np.int8)
    keys = np.empty(_PLAYS, dtype=np.int64)
    levels = np.empty((5, 26), dtype=np.int8)
    owns = np.empty(5, dtype=np.int64)
    left = np.empty(5, dtype=np.int64)
    written = 0
    for position in range(first, len(boards)):
        starts[position] = offset + written
        _copy(levels, 0, boards, position)
        high, low = max(dice[position, 0], dice[position, 1]), min(dice[position, 0], dice[position, 1])
        own = blocked = 0
        for point in range(1, 26):
            if levels[0, point] > 0:
                own |= 1 << point
            elif levels[0, point] < -1:
                blocked |= 1 << point
        if high == low:
            done = _double(levels, own, blocked, high, position, owns, left, children, parent, written)
        else:
            key = 0
            for point in range(26):
                key += levels[0, point] * hash_[point]
            done = _non_double(
                levels, own, blocked, key, high, low, position, hash_, table, plays, keys, children, parent, written
            )
        if done < 0:
            return position, written
        written = done
    return len(boards), written


def afterstates(
    boards: np.ndarray, dice: np.ndarray, starts: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``engine.movegen.afterstates`` compiled: the same (children, parent), in the same order.

    ``boards`` (B, 26) int8, ``dice`` (B, 2) int64, both C-contiguous; ``starts`` (B,) int64,
    when given, receives where each board's rows begin (found on the way, so no search of
    ``parent`` afterwards). The rows go into buffers sized for a typical batch; a batch that
    outgrows them continues in bigger ones.
    """
    starts = np.empty(len(boards), dtype=np.int64) if starts is None else starts
    room = 32 * len(boards) + _FIRST_ROOM
    pieces = []
    first = done = 0
    while True:
        children = np.empty((room, 26), dtype=np.int8)
        parent = np.empty(room, dtype=np.int64)
        first, written = _fill(boards, dice, first, HASH, children, parent, starts, done)
        pieces.append((children[:written], parent[:written]))
        done += written
        if first == len(boards):
            break
        room = 2 * room if written == 0 else room
    if len(pieces) == 1:
        return pieces[0]
    return np.concatenate([c for c, _ in pieces]), np.concatenate([p for _, p in pieces])
