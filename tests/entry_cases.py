"""Random positions and random ways of entering their legal plays, for the entry tests.

``situations`` plays random games and keeps a mix of what a board must handle: contact
and hits, checkers on the bar, bear-offs, doubles, rolls of which only one die can be
played, and rolls that cannot be played. ``entry_order`` and ``combined`` turn one legal
play into what a player might enter: its checker steps in another physically possible
order (a checker must be on a point before it leaves it), and whole-checker moves made of
a checker's consecutive steps. Boards are in the mover's view (docs/DESIGN.md).
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

import numpy as np

from engine.board import START
from engine.match import roll_dice
from engine.plays import OFF, Play, Step, legal_plays


class Situation(NamedTuple):
    board: np.ndarray
    dice: tuple[int, int]
    kind: str


def _kind(board: np.ndarray, dice: tuple[int, int], plays: list[Play]) -> str:
    """The one thing about this roll a test most wants covered."""
    most = plays[0].dice_used
    if most == 0:
        return "none"
    if most < (4 if dice[0] == dice[1] else 2):
        return "partial"
    if board[25] > 0:
        return "bar"
    if any(s.dst == OFF for p in plays for s in p.steps):
        return "bearoff"
    if dice[0] == dice[1]:
        return "doubles"
    if any(s.hit for p in plays for s in p.steps):
        return "hits"
    return "contact"


def situations(rng: np.random.Generator, count: int) -> list[Situation]:
    """``count`` positions with a roll, from random games, spread over the kinds above."""
    pools: dict[str, list[Situation]] = defaultdict(list)
    wanted = count * 4
    while sum(len(p) for p in pools.values()) < wanted:
        board = START.copy()
        for _ in range(400):
            dice = roll_dice(rng)
            plays = legal_plays(board, dice)
            kind = _kind(board, dice, plays)
            if len(pools[kind]) < wanted // 3:
                pools[kind].append(Situation(board.copy(), dice, kind))
            after = plays[rng.integers(len(plays))].afterstate
            if not np.any(after[1:26] > 0):
                break
            board = -after[::-1].copy()
    kinds = sorted(pools)
    chosen: list[Situation] = []
    while len(chosen) < count:
        for kind in kinds:
            if pools[kind] and len(chosen) < count:
                chosen.append(pools[kind].pop(rng.integers(len(pools[kind]))))
    return chosen


def entry_order(board: np.ndarray, play: Play, rng: np.random.Generator) -> list[Step]:
    """The play's steps in a random order in which each step's checker is on its point when it moves."""
    counts = board.astype(int).copy()
    left = list(play.steps)
    order: list[Step] = []
    while left:
        ready = [i for i, s in enumerate(left) if counts[s.src] > 0]
        step = left.pop(ready[rng.integers(len(ready))])
        counts[step.src] -= 1
        if step.dst != OFF:
            counts[step.dst] = max(counts[step.dst], 0) + 1
        order.append(step)
    return order


def combined(order: list[Step], rng: np.random.Generator) -> list[tuple[int, int]]:
    """The steps as (from, to) moves, some of a checker's consecutive steps joined into one move.

    Steps join only through points where nothing is hit and not into a bear-off (where
    one die may take the checker off alone), so that the moves reach the same position.
    """
    moves: list[tuple[int, int]] = []
    for step in order:
        if (
            moves
            and moves[-1][1] == step.src
            and step.dst != OFF
            and not joined_hit(order, step.src)
            and rng.random() < 0.6
        ):
            moves[-1] = (moves[-1][0], step.dst)
        else:
            moves.append((step.src, step.dst))
    return moves


def joined_hit(order: list[Step], point: int) -> bool:
    return any(s.hit and s.dst == point for s in order)


def notation(moves: list[tuple[int, int]], hits: set[int]) -> str:
    """Moves written as a person types them, a hit marked where a move lands on it."""
    name = {25: "bar", 0: "off"}
    return " ".join(f"{name.get(a, a)}/{name.get(b, b)}{'*' if b in hits else ''}" for a, b in moves)
