"""The POSITION argument of the front doors: Position ID, ``PositionID:MatchID`` or XGID.

``parse_position`` reads any of them with ``engine.position_formats.read_position`` and
makes a ``Situation``: the board seen by the side on roll, the dice if they are
rolled, and the cube and score as ``bot.equity.cube.CubeState`` seen by that side. A
Position ID alone is a money game with a centred cube and no dice.

>>> s = parse_position("4HPwATDgc/ABMA:cAkAAAAAAAAA")
>>> s.dice, s.state.match_length
(None, 0)
>>> s == parse_position("4HPwATDgc/ABMA:cAkAAAAAAAAA"), s.position_id
(True, '4HPwATDgc/ABMA')
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from bot.equity.cube import CubeState, cube_state_for
from engine.position_id import encode_position_id
from engine.position_formats import read_position


@dataclass(frozen=True)
class Situation:
    """A position as the doors receive it, seen by the side on roll.

    ``double_offered``: the side on roll has doubled and the opponent must answer
    (``state`` is the cube before the double). ``resign_offered``: 0, or 1/2/3 for a
    single/gammon/backgammon resignation the player to decide must answer. ``position_id``: the board's ID
    (default: backgammon's; ``bot.doors.codecs`` gives long nardy's).
    """

    board: np.ndarray = field(repr=False, compare=False)
    dice: Optional[tuple[int, int]]
    state: CubeState
    double_offered: bool = False
    resign_offered: int = 0
    position_id: str = ""

    def __post_init__(self) -> None:
        self.board.setflags(write=False)
        # The board's ID stands for the board wherever a dataclass compares, hashes or prints.
        if not self.position_id:
            object.__setattr__(self, "position_id", encode_position_id(self.board))


def parse_position(text: str) -> Situation:
    """The situation a Position ID, ``PositionID:MatchID`` or XGID describes.

    Raise InvalidPositionError (or InvalidMatchError for a bad Match ID or score)
    naming the text, or the part of it that is wrong, when it is none of them.
    """
    setup = read_position(text)
    state = replace(cube_state_for(setup.match, setup.player), beavers=setup.beavers)
    return Situation(setup.board, setup.dice, state, setup.double_offered, setup.resign_offered)
