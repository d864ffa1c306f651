"""Many cube-less money games stepped in lockstep on the batched engine: the state every environment here shares.

The game is a ``engine.variant.Variant``, backgammon or long nardy: its start, opening
rule, batched afterstate generator, flip and points are all that differ. Each game keeps
its board in the view of the side on roll (docs/DESIGN.md), the dice that side rolled and
its seat (0 or 1). The legal plays of every game's roll come from one call of the
variant's generator; an action is an index into a game's own list of afterstates, in the
order the generator returns them. A game ends when the mover bears off its last checker;
it scores 1, 2 or 3 points (``Variant.winning_points``: single, gammon, backgammon; long
nardy's oin and mars are 1 and 2), the cube stays at 1 in the centre.

The observation of a game, for the side it is shown to (``observe``), is 30 int8
values: the board from that side's view (26; long nardy has no bar, its entries 0 and 25
are 0), the dice, larger first (2; 0 0 when that side is not on roll or the game is over),
the cube value (1..64) and its owner (1 that side, -1 the other, 0 centred, as
``engine.render``). In these cube-less games the cube is always 1 in the centre; the two
entries hold its place in the layout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.compiled import use_compiled_generator
from engine.variant import BACKGAMMON, Variant, find_variant

# GNU Backgammon's bound on the distinct plays of one roll (its MAX_MOVES), the size of the action space, and long
# nardy's too: a play is where each of the at most 15 occupied points' checkers end, at most C(15 + 3, 4) = 3060 ways
# to share a double's four steps among 15 points (fewer points, or checkers stacked, or bearing off give fewer).
MAX_ACTIONS = 3060
OBSERVATION_SIZE = 30
CUBE_VALUE, CUBE_OWNER = 28, 29  # where the cube sits in an observation
# Row n of _PREFIXES is the mask of n legal actions: n ones, then zeros. A strided view of one
# array of MAX_ACTIONS ones and MAX_ACTIONS zeros, so masks are a row gather, not a comparison
# of every action with every size.
_PATTERN = np.concatenate([np.ones(MAX_ACTIONS, dtype=np.int8), np.zeros(MAX_ACTIONS, dtype=np.int8)])
_PREFIXES = np.lib.stride_tricks.as_strided(
    _PATTERN[MAX_ACTIONS:], shape=(MAX_ACTIONS + 1, MAX_ACTIONS), strides=(-1, 1), writeable=False
)


class TooManyPlaysError(RuntimeError):
    """A roll with more distinct plays than the action space holds (not seen in real games)."""


@dataclass(frozen=True)
class Legal:
    """The legal plays of M boards' rolls: ``children`` (K, 26) afterstates in the mover's view, ``parent`` (K,)
    the board of each, ``starts``/``sizes`` (M,) where each board's afterstates begin and how many there are."""

    children: np.ndarray
    parent: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    def masks(self) -> np.ndarray:
        """(M, MAX_ACTIONS) int8: 1 on each board's legal action indices (PettingZoo's mask convention)."""
        return _PREFIXES[self.sizes]

    def of(self, board: int) -> np.ndarray:
        """The afterstates (n, 26) of board ``board``, in action order."""
        start = self.starts[board]
        return self.children[start : start + self.sizes[board]]


def game_of(variant: str | Variant) -> Variant:
    """The ``Variant`` an environment plays: one, or its name or alias (``engine.variant.find_variant``).

    ValueError for long nardy's last-roll rule, whose drawn games these environments do not score.
    """
    game = find_variant(variant) if isinstance(variant, str) else variant
    if not isinstance(game, Variant):
        raise TypeError(f"variant {variant!r}: expected a name such as 'backgammon' or 'long', or an engine Variant")
    if game.rules is not None and game.rules.last_roll_draw:
        raise ValueError(f"variant {game.title}: the environments play without the last-roll rule (no drawn games)")
    return game


def legal(boards: np.ndarray, dice: np.ndarray, variant: Variant = BACKGAMMON) -> Legal:
    """The legal plays of each board (M, 26, mover's view) and roll (M, 2) of ``variant``, from one batched generator
    call."""
    children, parent = variant.afterstates(boards, dice)
    starts = np.searchsorted(parent, np.arange(len(boards)))
    sizes = np.empty_like(starts)  # every board has at least one afterstate: the next board's start ends its rows
    np.subtract(starts[1:], starts[:-1], out=sizes[:-1])
    sizes[-1:] = len(parent) - starts[-1:]
    if len(sizes) and sizes.max() > MAX_ACTIONS:
        worst = int(np.argmax(sizes))
        raise TooManyPlaysError(
            f"board {boards[worst].tolist()} with dice {dice[worst].tolist()}: "
            f"{int(sizes[worst])} plays, more than the {MAX_ACTIONS} actions"
        )
    return Legal(children, parent, starts, sizes)


def check_actions(actions: np.ndarray, moves: Legal) -> np.ndarray:
    """The actions (M,) as int64 if each is a legal index of its board's roll; raise ValueError naming the first
    that is not."""
    array = np.asarray(actions)
    if array.shape != moves.sizes.shape or array.dtype.kind not in "iu":
        raise ValueError(f"actions {actions!r}: expected {len(moves.sizes)} integer action indices")
    array = array.astype(np.int64)
    bad = np.flatnonzero((array < 0) | (array >= moves.sizes))
    if len(bad):
        i = int(bad[0])
        raise ValueError(
            f"action {int(array[i])}: not legal here, the roll has {int(moves.sizes[i])} plays "
            f"(actions 0..{int(moves.sizes[i]) - 1}; see info['action_mask'])"
        )
    return array


def observe(boards: np.ndarray, dice: np.ndarray | None) -> np.ndarray:
    """(M, 30) int8 observations of boards (M, 26) in the observer's view; ``dice`` (M, 2) or None (not on roll)."""
    out = np.zeros((len(boards), OBSERVATION_SIZE), dtype=np.int8)
    out[:, :26] = boards
    if dice is not None:
        out[:, 26] = np.maximum(dice[:, 0], dice[:, 1])  # a reduction over an axis of two costs far more
        out[:, 27] = np.minimum(dice[:, 0], dice[:, 1])
    out[:, CUBE_VALUE] = 1
    out[:, CUBE_OWNER] = 0
    return out


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of an observation, entry by entry."""
    low = np.full(OBSERVATION_SIZE, -15, dtype=np.int8)
    high = np.full(OBSERVATION_SIZE, 15, dtype=np.int8)
    low[25], high[0] = 0, 0  # the mover's bar is >= 0, the opponent's <= 0
    low[26:28], high[26:28] = 0, 6
    low[CUBE_VALUE], high[CUBE_VALUE] = 1, 64
    low[CUBE_OWNER], high[CUBE_OWNER] = -1, 1
    return low, high


class PrefixMasks:
    """(M, MAX_ACTIONS) int8 masks of each row's first n actions, kept in one array and rewritten in place.

    A step changes only the entries between a row's old and new count, a few dozen bytes a row,
    where building the masks afresh would write all of it; each step's caller gets a copy.
    """

    def __init__(self, count: int) -> None:
        self._array = np.zeros((count, MAX_ACTIONS), dtype=np.int8)
        self._sizes = np.zeros(count, dtype=np.int64)
        self._row_starts = np.arange(count, dtype=np.int64) * MAX_ACTIONS

    def update(self, sizes: np.ndarray) -> np.ndarray:
        """The masks of ``sizes`` (M,) legal actions, a new array the caller keeps."""
        low, high = np.minimum(self._sizes, sizes), np.maximum(self._sizes, sizes)
        lengths = high - low
        ends = np.cumsum(lengths)
        # Row r's changed entries are [low[r], high[r]): the run's first flat index, repeated, plus a running count.
        first = np.repeat(self._row_starts + low - (ends - lengths), lengths)
        fill = np.repeat((sizes > self._sizes).view(np.int8), lengths)
        self._array.reshape(-1)[first + np.arange(len(first))] = fill
        self._sizes = sizes.copy()
        return self._array.copy()


class Games:
    """``count`` money games of ``variant``: boards (seen by the side on roll), dice and seat on roll, in numpy
    arrays."""

    def __init__(self, count: int, variant: Variant = BACKGAMMON) -> None:
        if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or count < 1:
            raise ValueError(f"number of games {count!r}: expected a positive integer")
        self.count = int(count)
        self.variant = variant
        use_compiled_generator()  # even one game's turns run compiled: far below numpy's cost per call
        self.boards = np.repeat(variant.start[None], self.count, axis=0)
        self.dice = np.ones((self.count, 2), dtype=np.int64)
        self.turn = np.zeros(self.count, dtype=np.int64)

    def start(self, index: np.ndarray, rng: np.random.Generator) -> None:
        """New games at ``index``: checkers at the start, the opening roll (each seat one die, ties again),
        the higher die's seat on roll (``engine.match.opening_order``'s rule, for many games): with both dice, or,
        where the first roll may be a double (long nardy's classic opening), with a roll of its own."""
        index = np.asarray(index, dtype=np.int64)
        self.boards[index] = self.variant.start
        waiting = index
        while len(waiting):  # all games' opening rolls at once (one game draws as opening_order's callers do)
            rolled = rng.integers(1, 7, size=(len(waiting), 2))  # column s: seat s's die
            decided = rolled[:, 0] != rolled[:, 1]
            games, rolled = waiting[decided], rolled[decided]
            self.turn[games] = rolled[:, 1] > rolled[:, 0]
            self.dice[games] = np.stack([rolled.max(axis=1), rolled.min(axis=1)], axis=1)
            waiting = waiting[~decided]
        if self.variant.opening_doubles:
            self.dice[index] = rng.integers(1, 7, size=(len(index), 2))

    def place(self, index: np.ndarray, boards: np.ndarray, dice: np.ndarray | None, rng: np.random.Generator) -> None:
        """Games ``index`` start from ``boards`` (len(index), 26), seat 0 on roll with ``dice`` (len(index), 2), or
        dice rolled from ``rng`` when None."""
        self.boards[index] = boards
        self.turn[index] = 0
        self.dice[index] = rng.integers(1, 7, size=(len(index), 2)) if dice is None else dice

    def advance(self, index: np.ndarray, chosen: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The movers of games ``index`` play the afterstates ``chosen`` (len(index), 26, mover's view).

        Returns (over, points): whether each game ended, and the points its mover won (1..3, 0 if
        not over). A game that goes on passes the turn: the board is flipped, the new mover rolls.
        An ended game keeps its final board in the winner's view.
        """
        index = np.asarray(index, dtype=np.int64)
        over = ~np.any(chosen > 0, axis=1)
        points = np.zeros(len(index), dtype=np.int64)
        self.boards[index] = self.variant.flip(chosen)
        if over.any():  # scored where games ended only: few per step
            points[over] = self.variant.winning_points(chosen[over])
            self.boards[index[over]] = chosen[over]
        on = index[~over]
        self.turn[on] ^= 1
        self.dice[on] = rng.integers(1, 7, size=(len(on), 2))
        return over, points
