"""The POSITION argument of the front doors: Position ID, ``PositionID:MatchID`` or XGID.

``parse_position`` turns any of them into a ``Situation``: the board seen by the
side on roll, the dice if they are rolled, and the cube and score as
``bot.cube.CubeState`` seen by that side. A Position ID alone is a money game with
a centred cube and no dice.

>>> s = parse_position("4HPwATDgc/ABMA:cAkAAAAAAAAA")
>>> s.dice, s.state.match_length
(None, 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from bot.cube import CubeState, Owner
from engine.errors import InvalidPositionError
from engine.match import MatchState
from engine.match_id import MatchId, decode_match_id
from engine.position_id import decode_position_id, encode_position_id
from engine.xgid import BOTTOM, TOP, parse_xgid

POSITION_ID_LENGTH = 14


@dataclass(frozen=True)
class Situation:
    """A position as the doors receive it, seen by the side on roll.

    ``double_offered``: the side on roll has doubled and the opponent must answer
    (``state`` is the cube before the double). ``resign_offered``: 0, or 1/2/3 for a
    single/gammon/backgammon resignation the player to decide must answer.
    """

    board: np.ndarray = field(repr=False)
    dice: Optional[tuple[int, int]]
    state: CubeState
    double_offered: bool = False
    resign_offered: int = 0

    def __post_init__(self) -> None:
        self.board.setflags(write=False)

    @property
    def position_id(self) -> str:
        """The Position ID of the board (side on roll)."""
        return encode_position_id(self.board)


def cube_state_for(state: MatchState, player: int) -> CubeState:
    """The cube and score of a match (players 0 and 1) seen by ``player``.

    A money session's score does not matter to a decision and is left out.
    """
    owner = Owner.CENTERED if state.cube_owner is None else Owner.ME if state.cube_owner == player else Owner.OPP
    score = (state.score[player], state.score[1 - player]) if state.match_length else (0, 0)
    return CubeState(
        cube=state.cube_value,
        owner=owner,
        match_length=state.match_length,
        score=score,
        crawford=state.crawford,
        jacoby=state.jacoby and not state.match_length,
    )


def cube_state_of(match: MatchId) -> CubeState:
    """The cube and score of a Match ID, seen by its player on roll."""
    state = MatchState(
        match_length=match.match_length,
        score=match.score,
        cube_value=match.cube_value,
        cube_owner=match.cube_owner,
        crawford=match.crawford and bool(match.match_length),
        jacoby=match.jacoby,
    )
    return cube_state_for(state, match.player_on_roll)


def _from_ids(position_id: str, match_id: Optional[str]) -> Situation:
    board = decode_position_id(position_id)
    if match_id is None:
        return Situation(board, None, CubeState())
    match = decode_match_id(match_id)
    return Situation(
        board,
        match.dice,
        cube_state_of(match),
        double_offered=match.double_offered,
        resign_offered=match.resign_offered,
    )


def _from_xgid(text: str) -> Situation:
    """An XGID's situation; its ``D`` (a double offered) is read as offered by the player on turn."""
    x = parse_xgid(text)
    seat = {BOTTOM: 0, TOP: 1}
    match = MatchState(
        match_length=x.match_length,
        score=(x.score_bottom, x.score_top),
        cube_value=x.cube_value,
        cube_owner=seat.get(x.cube_owner),
        crawford=x.crawford,
        jacoby=x.jacoby,
    )
    state = replace(cube_state_for(match, seat[x.turn]), beavers=x.beavers)
    return Situation(x.board, x.dice, state, double_offered=x.double_offered)


def parse_position(text: str) -> Situation:
    """The situation a Position ID, ``PositionID:MatchID`` or XGID describes.

    Raise InvalidPositionError (or InvalidMatchError for a bad Match ID or score)
    naming the text when it is none of them.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"position {text!r}: expected text")
    text = text.strip()
    if text.upper().startswith("XGID="):
        return _from_xgid(text)
    position_id, _, match_id = text.partition(":")
    if len(position_id) != POSITION_ID_LENGTH:
        raise InvalidPositionError(
            f"position {text!r}: expected a 14-character Position ID, PositionID:MatchID, or an XGID"
        )
    return _from_ids(position_id, match_id or None)
