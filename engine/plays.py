"""Legal plays of one position, with the checker steps: the slow, checked path.

The batched generator (``engine.afterstates``) returns boards only; this module
works on one board at a time and also says how the checkers moved, which move
notation, move parsing and the front doors need. It is written to be read, and
is the plain baseline the movegen benchmark compares against.

Boards are in the mover's view (docs/DESIGN.md); steps and afterstates too: a
``Step`` is (from point, to point, hit) with 25 = the mover's bar and 0 = off.

>>> from engine.board import START
>>> plays = legal_plays(START, "31")
>>> len(plays), plays[0].steps[0]
(16, Step(src=24, dst=21, hit=False))
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from engine.board import MOVER_BAR as BAR, validate_board, validate_dice

OFF = 0  # a step's destination when the checker is borne off


class Step(NamedTuple):
    """One checker moved by one die, in the mover's numbering (25 = bar, 0 = off)."""

    src: int
    dst: int
    hit: bool


@dataclass(frozen=True)
class Play:
    """A way to play a roll: its checker steps and the board after them (mover's view, not flipped).

    ``steps`` is empty when the roll cannot be played; ``afterstate`` is then the board itself.
    Two plays compare equal when their steps are equal.
    """

    steps: tuple[Step, ...]
    afterstate: np.ndarray = field(compare=False, repr=False)

    def __post_init__(self) -> None:
        self.afterstate.setflags(write=False)

    @property
    def dice_used(self) -> int:
        """How many dice the play uses (0..4)."""
        return len(self.steps)


class SearchNode(NamedTuple):
    """A point in a step-by-step search of plays: steps so far, dice they used, the board (a list) after them.

    Both games' single-position searches build these; ``lawful_plays`` chooses among them.
    """

    steps: tuple[Step, ...]
    dice: tuple[int, ...]
    board: list[int]


def _single_steps(board: list[int], die: int, highest_source: int = BAR) -> list[Step]:
    """Every legal step of one checker by ``die`` from a point <= ``highest_source``."""
    if board[BAR] > 0:
        if highest_source < BAR:
            return []
        target = BAR - die
        return [Step(BAR, target, board[target] == -1)] if board[target] >= -1 else []
    all_home = all(board[p] <= 0 for p in range(7, 25))
    steps = []
    for src in range(min(highest_source, 24), 0, -1):
        if board[src] <= 0:
            continue
        target = src - die
        if target >= 1:
            if board[target] >= -1:
                steps.append(Step(src, target, board[target] == -1))
        elif all_home and (target == 0 or not any(board[p] > 0 for p in range(src + 1, 7))):
            steps.append(Step(src, OFF, False))
    return steps


def apply_step(board: list[int], step: Step) -> list[int]:
    """The board (a list, mover's view) after one step, a hit sent to the bar (a new list)."""
    after = board.copy()
    after[step.src] -= 1
    if step.dst != OFF:
        if step.hit:
            after[step.dst] = 0
            after[0] -= 1
        after[step.dst] += 1
    return after


def _search(board: list[int], d1: int, d2: int) -> list[SearchNode]:
    """Every node reachable by playing the dice step by step, the empty play first.

    Non-doubles try the larger die first, then the smaller. Doubles only ever move
    a checker from a point not above the previous step's source: every multiset of
    steps is still reached once, in its natural order.
    """
    nodes = [SearchNode((), (), board)]
    if d1 == d2:
        stack = [(nodes[0], BAR)]
        while stack:
            node, highest = stack.pop()
            if len(node.steps) == 4:
                continue
            children = [
                SearchNode(node.steps + (s,), node.dice + (d1,), apply_step(node.board, s))
                for s in _single_steps(node.board, d1, highest)
            ]
            nodes.extend(children)
            stack.extend((c, c.steps[-1].src) for c in reversed(children))
        return nodes
    for first, second in ((max(d1, d2), min(d1, d2)), (min(d1, d2), max(d1, d2))):
        for s1 in _single_steps(board, first):
            one = SearchNode((s1,), (first,), apply_step(board, s1))
            nodes.append(one)
            for s2 in _single_steps(one.board, second):
                nodes.append(SearchNode(one.steps + (s2,), one.dice + (second,), apply_step(one.board, s2)))
    return nodes


def _distinct(nodes: list[SearchNode]) -> list[Play]:
    """One Play per distinct afterstate, the first node found for each."""
    seen: set[tuple[int, ...]] = set()
    plays = []
    for node in nodes:
        key = tuple(node.board)
        if key not in seen:
            seen.add(key)
            plays.append(Play(node.steps, np.array(node.board, dtype=np.int8)))
    return plays


def partial_plays(board: np.ndarray, dice) -> list[Play]:
    """Every distinct afterstate reachable by playing some of the dice legally, one at a time.

    Ignores the rules that force playing as many dice as possible and the larger
    die; includes the empty play. Move parsing uses it to explain illegal moves.
    Boards in the mover's view.
    """
    d1, d2 = validate_dice(dice)
    b = validate_board(board)
    return _distinct(_search([int(x) for x in b], d1, d2))


def legal_plays(board: np.ndarray, dice) -> list[Play]:
    """Every legal play of ``dice`` on ``board`` (mover's view), one per distinct afterstate.

    The mover must play as many dice as possible; when only one of two different
    dice can be played, the larger one if it can. A roll that cannot be played
    gives one Play with no steps and the board unchanged.
    """
    d1, d2 = validate_dice(dice)
    return list(_legal_plays(validate_board(board).tobytes(), d1, d2))


@functools.lru_cache(maxsize=1024)
def _legal_plays(board: bytes, d1: int, d2: int) -> tuple[Play, ...]:
    """``legal_plays`` of a board given as its int8 bytes: kept a while, since a position's plays are soon asked
    for again (a move read from a record, played by the game, then its best play named by the analysis of the
    whole match). Plays are frozen, their boards read-only."""
    return tuple(lawful_plays(_search(np.frombuffer(board, dtype=np.int8).tolist(), d1, d2), d1, d2))


def lawful_plays(nodes: list[SearchNode], d1: int, d2: int) -> list[Play]:
    """The distinct plays of ``nodes`` that play as many dice as possible, the larger die if only one of two can."""
    most = max(len(n.steps) for n in nodes)
    nodes = [n for n in nodes if len(n.steps) == most]
    if most == 1 and d1 != d2:
        larger = [n for n in nodes if n.dice[0] == max(d1, d2)]
        nodes = larger or nodes
    return _distinct(nodes)
