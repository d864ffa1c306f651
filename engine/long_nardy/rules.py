"""The rule flags of long nardy: where the rule sets disagree, a flag with a default (``Rules``).

Every function that depends on a disputed rule takes a ``Rules``; nothing hard-codes
one reading. The defaults are those of docs/long_nardy_rules.md (see docs/long_nardy.md).

>>> Rules()
Rules(opening='classic', head_doubles=frozenset({3, 4, 6}), block_check='step', cube='none', last_roll_draw=False)
>>> Rules(head_doubles="46").head_doubles == {4, 6}
True
>>> Rules(cube="triple")
Traceback (most recent call last):
...
engine.errors.InvalidOptionError: long nardy rules: cube 'triple' is not one of none, doubling, linear
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Iterable, Union

import numpy as np

from engine.errors import InvalidOptionError, quote

OPENINGS = ("classic", "sport")
BLOCK_CHECKS = ("step", "turn")
CUBES = ("none", "doubling", "linear")
DEFAULT_HEAD_DOUBLES = frozenset({3, 4, 6})

# Head doubles as callers give them: a set of die numbers, or text of digits like "346".
HeadDoubles = Union[str, Iterable[int]]


@dataclass(frozen=True)
class Rules:
    """The disputed rules of one game or match (R3, R7, R10, R12, R13 of docs/long_nardy_rules.md).

    ``opening``: ``classic`` (the starter rolls two dice afresh) or ``sport`` (the
    starter plays the two opening dice). ``head_doubles``: the doubles that let two
    checkers leave the head on a side's first turn. ``block_check``: ``step`` (no
    forbidden six-block after any step) or ``turn`` (only after the whole play).
    ``cube``: ``none``, ``doubling`` or ``linear`` (each raise adds one initial stake).
    ``last_roll_draw``: the second mover gets one more turn after the first mover
    finishes, and the game is drawn if it finishes too.
    """

    opening: str = "classic"
    head_doubles: frozenset[int] = DEFAULT_HEAD_DOUBLES
    block_check: str = "step"
    cube: str = "none"
    last_roll_draw: bool = False

    def __post_init__(self) -> None:
        what = "long nardy rules"
        for name, value, allowed in (
            ("opening", self.opening, OPENINGS),
            ("block_check", self.block_check, BLOCK_CHECKS),
            ("cube", self.cube, CUBES),
        ):
            if value not in allowed:
                raise InvalidOptionError(f"{what}: {name} {quote(value)} is not one of {', '.join(allowed)}")
        if not isinstance(self.last_roll_draw, bool):
            raise InvalidOptionError(f"{what}: last_roll_draw must be True or False, got {quote(self.last_roll_draw)}")
        object.__setattr__(self, "head_doubles", _head_doubles(self.head_doubles, what))


def _head_doubles(value: HeadDoubles, what: str) -> frozenset[int]:
    """The head doubles as a frozenset of numbers 1..6, from a set of numbers or digit text like '346'."""
    numbers: set[int] = set()
    try:
        for item in list(value) if isinstance(value, str) else value:
            if isinstance(item, (bool, np.bool_)):
                raise TypeError("a die number is not a bool")
            if isinstance(item, str):
                numbers.add(int(item) if len(item) == 1 and item in "123456" else 0)
            else:
                numbers.add(operator.index(item))
    except (TypeError, ValueError):
        raise InvalidOptionError(
            f"{what}: head_doubles {quote(value)} must be die numbers like {{3, 4, 6}} or '346'"
        ) from None
    if not numbers <= set(range(1, 7)):
        raise InvalidOptionError(f"{what}: head_doubles {quote(value)}: each must be a die number 1..6")
    return frozenset(numbers)


DEFAULT_RULES = Rules()
