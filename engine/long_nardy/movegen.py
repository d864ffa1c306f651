"""Batched long nardy move generation: every distinct afterstate of a roll, for many boards at once.

The same shape as ``engine.movegen.afterstates`` (boards in the mover's view in,
afterstates still in the mover's view out, grouped by parent) and the same
techniques (docs/DESIGN.md): 32-byte rows, bit masks for legality, a linear hash
key per board updated by each step so duplicates are found before rows are built.
The only Python loops run over the (at most four) die steps of a turn.

What long nardy changes (rules R5-R11 of docs/long_nardy_rules.md):

- a point holding any opponent checker is closed, and the opponent never moves during
  the turn, so its closed points and its most advanced checker are fixed per board;
- the head rule needs no extra state: the checkers that left the head this turn are
  the head's count at the start minus its count now (no checker ever returns there);
- a six-block is found from the mover's points turned to the opponent's numbering
  (``_six_blocks``), after every step or only at the end (``Rules.block_check``);
- the order of a double's steps matters (a block can form in one order and not in
  another), so doubles expand every order and de-duplicate each level by hash key,
  instead of backgammon's non-increasing sources.
"""

from __future__ import annotations

import numpy as np

from engine.afterstate_rows import (
    HASH,
    WIDTH,
    Piece,
    bear_off_sources,
    bits,
    first_per_key,
    hash_keys,
    in_chunks,
    merge_by_board,
    set_bits,
    take_rows,
    to_rows,
)
from engine.long_nardy.board import CHECKERS, HEAD
from engine.long_nardy.rules import DEFAULT_RULES, Rules

_POINTS = np.int64((1 << 25) - 2)  # bits 1..24
_LOW_HALF = np.int64(sum(1 << p for p in range(1, 13)))  # points 1..12
# Sources a die can move from without bearing off: points d+1..24.
_NORMAL_SOURCES = np.array([int(_POINTS) & ~((1 << (d + 1)) - 1) for d in range(7)], dtype=np.int64)
_HEAD_BIT = np.int64(1 << HEAD)


def afterstates(boards: np.ndarray, dice: np.ndarray, rules: Rules = DEFAULT_RULES) -> tuple[np.ndarray, np.ndarray]:
    """All distinct afterstates of each board's roll under ``rules``.

    ``boards`` is (B, 26) int8 in the mover's view, ``dice`` (B, 2). Returns
    ``children`` (N, 26) int8, still in the mover's view, and ``parent`` (N,) int64,
    the index of each child's board; children are grouped by parent in order. A board
    with no legal play yields one child equal to itself. The same afterstates as
    ``engine.long_nardy.plays.legal_plays``. Inputs are trusted: validate them at the
    front door (``engine.long_nardy.board.validate_board``).
    """
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    dice = np.asarray(dice, dtype=np.int64).reshape(-1, 2)
    return in_chunks(lambda b, d: _afterstates(b, d, rules), boards, dice)


def illegal_blocks(boards: np.ndarray) -> np.ndarray:
    """(B,) bool: whether each board (mover's view) has a forbidden six-block of the mover's (R9).

    The batched twin of ``engine.long_nardy.board.illegal_block``.
    """
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    rows = to_rows(boards)
    return _forbidden(bits(rows > 0), _behind_lead(bits(rows < 0)))


class _Turn:
    """What stays fixed for each board through its turn: closed points, the opponent's lead, the head rule."""

    def __init__(self, rows: np.ndarray, high: np.ndarray, low: np.ndarray, rules: Rules):
        self.closed = bits(rows < 0)
        self.behind_lead = _behind_lead(self.closed)
        self.head_start = rows[:, HEAD].astype(np.int64)
        first_turn = self.head_start == CHECKERS
        head_double = np.isin(high, list(rules.head_doubles)) & (high == low)
        # The head count below which no more checkers may leave this turn.
        self.head_floor = self.head_start - np.where(first_turn & head_double, 2, 1)
        self.step_check = rules.block_check == "step"


def _to_opponent_numbering(mask: np.ndarray) -> np.ndarray:
    """A mask of the mover's points (bit p = point p) renumbered as the opponent counts them."""
    return ((mask >> 12) & _LOW_HALF) | ((mask & _LOW_HALF) << 12)


def _behind_lead(closed: np.ndarray) -> np.ndarray:
    """Per board, the opponent-numbered points before its most advanced checker (0 with none on the board).

    A six-block whose front lies in this mask has every opponent checker behind it.
    """
    opponent = _to_opponent_numbering(closed)
    return np.where(opponent != 0, (opponent & -opponent) - 1, 0)


def _six_blocks(own: np.ndarray) -> np.ndarray:
    """Bit f set where the mover holds the opponent's points f..f+5 (f the block's front)."""
    held = _to_opponent_numbering(own)
    run = held
    for shift in range(1, 6):
        run = run & (held >> shift)
    return run


def _forbidden(own: np.ndarray, behind_lead: np.ndarray) -> np.ndarray:
    """Whether the mover's points ``own`` make a six-block with every opponent checker behind it."""
    return (_six_blocks(own) & behind_lead) != 0


def _afterstates(boards: np.ndarray, dice: np.ndarray, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``afterstates`` for one chunk of boards."""
    count = len(boards)
    rows = to_rows(boards)
    keys = hash_keys(boards)
    high = dice.max(axis=1)
    low = dice.min(axis=1)
    turn = _Turn(rows, high, low, rules)
    own = bits(rows > 0)
    pieces = []
    is_double = high == low
    for double, expand in ((True, _doubles), (False, _non_doubles)):
        chosen = np.flatnonzero(is_double == double)
        if len(chosen):
            level = _Level(take_rows(rows, chosen), chosen, own[chosen], keys[chosen])
            pieces += expand(level, turn, high, low)
    children, parent = merge_by_board(pieces, count)
    return np.ascontiguousarray(children[:, :26]), parent


class _Level:
    """Rows reached after some steps: the rows, their board, the mover's points, the hash keys."""

    def __init__(self, rows: np.ndarray, board: np.ndarray, own: np.ndarray, keys: np.ndarray):
        self.rows, self.board, self.own, self.keys = rows, board, own, keys

    def take(self, index: np.ndarray) -> _Level:
        return _Level(take_rows(self.rows, index), self.board[index], self.own[index], self.keys[index])

    def legal_end(self, turn: _Turn) -> np.ndarray:
        """Rows whose board may end the turn: always, when every step was checked; else no forbidden block."""
        if turn.step_check:
            return np.ones(len(self.board), dtype=bool)
        return ~_forbidden(self.own, turn.behind_lead[self.board])


def _step(level: _Level, turn: _Turn, die: np.ndarray, dedup: bool = True) -> tuple[_Level, np.ndarray]:
    """Every legal step of ``die`` (one per row) from each row, de-duplicated per board by hash key.

    Returns the new level and, per new row, the row of ``level`` it came from. The
    steps of one row give distinct boards, so a level of one row per board needs no
    de-duplication (``dedup=False``); that also keeps a board's two orders of the dice apart.
    """
    board = level.board
    own = level.own
    normal = own & ~(turn.closed[board] << die) & _NORMAL_SOURCES[die]
    may_leave_head = level.rows[:, HEAD] > turn.head_floor[board]
    normal = np.where(may_leave_head, normal, normal & ~_HEAD_BIT)
    sources = normal | bear_off_sources(own, die)
    row, src = set_bits(sources)
    dst = np.maximum(src - die[row], 0)  # 0: borne off
    on_board = dst > 0
    emptied = level.rows.reshape(-1)[row * WIDTH + src] == 1
    child_own = (own[row] & ~(emptied.astype(np.int64) << src)) | np.where(on_board, np.int64(1) << dst, 0)
    child_board = board[row]
    if turn.step_check:
        ok = np.flatnonzero(~_forbidden(child_own, turn.behind_lead[child_board]))
        row, src, dst, child_own, child_board = row[ok], src[ok], dst[ok], child_own[ok], child_board[ok]
    keys = level.keys[row] - HASH[src] + np.where(dst > 0, HASH[dst], 0)
    if dedup:
        unique = first_per_key(child_board, keys, len(turn.head_start))
        row, src, dst, child_own, child_board, keys = (
            row[unique],
            src[unique],
            dst[unique],
            child_own[unique],
            child_board[unique],
            keys[unique],
        )
    return _Level(_apply(level.rows, row, src, dst), child_board, child_own, keys), row


def _apply(rows: np.ndarray, row: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """New rows: ``rows[row]`` with one step each applied (no hits in long nardy)."""
    out = take_rows(rows, row)
    flat = out.reshape(-1)
    base = np.arange(0, len(row) * WIDTH, WIDTH, dtype=np.int64)
    flat[base + src] -= 1
    landed = np.flatnonzero(dst > 0)
    flat[base[landed] + dst[landed]] += 1
    return out


def _doubles(start: _Level, turn: _Turn, high: np.ndarray, low: np.ndarray) -> list[Piece]:
    """Afterstates of doubles, as pieces of (rows, board index) each grouped by board.

    Up to four steps in every order, each level de-duplicated; each board keeps the
    legal ends of the deepest level that has any (play as many steps as possible).
    """
    levels = [start]
    level = start
    for steps in range(1, 5):
        level, _ = _step(level, turn, high[level.board], dedup=steps > 1)
        if len(level.board) == 0:
            break
        levels.append(level)
    depth = np.zeros(len(turn.head_start), dtype=np.int64)
    ends = [lv.legal_end(turn) for lv in levels]
    for steps, (lv, end) in enumerate(zip(levels, ends)):
        depth[lv.board[end]] = steps
    kept = []
    for steps, (lv, end) in enumerate(zip(levels, ends)):
        # Nothing legal to play: the board itself, even if it came with a forbidden block.
        keep = np.flatnonzero((end | (steps == 0)) & (depth[lv.board] == steps))
        kept.append((take_rows(lv.rows, keep), lv.board[keep]))
    return kept


def _non_doubles(start: _Level, turn: _Turn, high: np.ndarray, low: np.ndarray) -> list[Piece]:
    """Afterstates of non-doubles, as pieces of (rows, board index) each grouped by board.

    Each board appears twice in the first step, larger die first and smaller die first,
    so every later array stays grouped by board; plays of both dice are de-duplicated
    by hash key.
    """
    count = len(turn.head_start)
    twice = np.repeat(np.arange(len(start.board)), 2)
    both = start.take(twice)
    first_die = np.stack([high[start.board], low[start.board]], axis=1).reshape(-1)
    second_die = np.stack([low[start.board], high[start.board]], axis=1).reshape(-1)
    one, from_row = _step(both, turn, first_die, dedup=False)
    one_die = first_die[from_row]
    two, _ = _step(one, turn, second_die[from_row])

    two_end = two.legal_end(turn)
    played_two = np.zeros(count, dtype=bool)
    played_two[two.board[two_end]] = True
    rows_two = take_rows(two.rows, np.flatnonzero(two_end))
    board_two = two.board[two_end]

    # One die only: the larger one if it can be played, else the smaller.
    one_end = one.legal_end(turn) & ~played_two[one.board]
    is_high = one_die == high[one.board]
    played_high = np.zeros(count, dtype=bool)
    played_high[one.board[one_end & is_high]] = True
    keep_one = np.flatnonzero(one_end & (is_high | ~played_high[one.board]))

    played = played_two.copy()
    played[one.board[keep_one]] = True
    none = np.flatnonzero(~played[start.board])
    return [
        (rows_two, board_two),
        (take_rows(one.rows, keep_one), one.board[keep_one]),
        (take_rows(start.rows, none), start.board[none]),
    ]
