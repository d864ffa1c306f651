"""The POSITION text of the command lines and APIs: a Position ID, ``PositionID:MatchID`` or an XGID.

``read_position`` turns any of them into a ``PositionSetup``: the board in the view
of the side on roll, the dice if they are rolled, and the match around it as an
``engine.match.MatchState`` with the seat (0 or 1) of the side on roll. Seats are
GNU Backgammon's players 0 and 1 for a Match ID, bottom (0) and top (1) for an
XGID. A Position ID alone is a money game before the roll, side on roll in seat 0.

>>> s = read_position("4HPwATDgc/ABMA:QYkqASAAIAAA")
>>> s.dice, s.match.match_length, s.match.score, s.player
((5, 2), 9, (2, 4), 1)
>>> s.position, s == read_position("4HPwATDgc/ABMA:QYkqASAAIAAA")
(Position.from_id('4HPwATDgc/ABMA'), True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import InvalidMatchError, InvalidPositionError
from engine.match import MatchState
from engine.match_id import decode_match_id
from engine.position import BoardFields
from engine.position_id import decode_position_id
from engine.xgid import BOTTOM, TOP, parse_xgid

POSITION_ID_LENGTH = 14


@dataclass(frozen=True)
class PositionSetup(BoardFields):
    """A position as a POSITION text gives it.

    ``board``: the side on roll's view (read-only; ``position`` is it as a Position). ``match``: score and cube by
    seat; ``player``: the seat on roll; ``names``: what the text calls seats 0 and 1.
    ``double_offered``: the side on roll has doubled and its opponent must answer
    (``match`` holds the cube before the double). ``resign_offered``: 0, or 1/2/3 for a
    single/gammon/backgammon resignation waiting for an answer (Match ID only).
    ``beavers``: the money-game beaver rule (XGID only).
    """

    dice: tuple[int, int] | None = None
    match: MatchState = field(default_factory=MatchState)
    player: int = 0
    names: tuple[str, str] = ("on roll", "opponent")
    double_offered: bool = False
    resign_offered: int = 0
    beavers: bool = False


def _match_state(what: str, **fields) -> MatchState:
    """A MatchState of ``fields``; an inconsistent one raises InvalidMatchError naming ``what``."""
    try:
        return MatchState(**fields)
    except InvalidMatchError as error:
        raise InvalidMatchError(f"{what}: {error}") from None


def _from_xgid(text: str) -> PositionSetup:
    """An XGID's setup; its ``D`` (a double offered) is read as offered by the player on turn."""
    x = parse_xgid(text)
    seat = {BOTTOM: 0, TOP: 1}
    match = _match_state(
        f"XGID {text!r}",
        match_length=x.match_length,
        score=(x.score_bottom, x.score_top),
        cube_value=x.cube_value,
        cube_owner=seat.get(x.cube_owner),
        crawford=x.crawford,
        jacoby=x.jacoby,
    )
    return PositionSetup(x.board, x.dice, match, seat[x.turn], ("bottom", "top"), x.double_offered, beavers=x.beavers)


def _from_ids(position_id: str, match_id: str) -> PositionSetup:
    board = decode_position_id(position_id)
    if not match_id:
        return PositionSetup(board)
    m = decode_match_id(match_id)
    match = _match_state(
        f"Match ID {match_id!r}",
        match_length=m.match_length,
        score=m.score,
        cube_value=m.cube_value,
        cube_owner=m.cube_owner,
        crawford=m.crawford,
        jacoby=m.jacoby and not m.match_length,  # the Jacoby rule is for money play only
    )
    return PositionSetup(
        board, m.dice, match, m.player_on_roll, ("player 0", "player 1"), m.double_offered, m.resign_offered
    )


def read_position(text: str) -> PositionSetup:
    """The setup a Position ID, ``PositionID:MatchID`` or XGID (``XGID=...``) describes.

    Raise InvalidPositionError (InvalidMatchError for a bad Match ID or match state)
    naming the text or the part of it that is wrong.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"position {text!r}: expected text")
    text = text.strip()
    if text.upper().startswith("XGID="):
        return _from_xgid(text)
    position_id, colon, match_id = text.partition(":")
    if len(position_id) != POSITION_ID_LENGTH:
        raise InvalidPositionError(
            f"Position ID {position_id!r}: expected 14 characters (a position is a Position ID, "
            "PositionID:MatchID or an XGID=...)"
        )
    if colon and not match_id:
        raise InvalidPositionError(f"position {text!r}: nothing after ':' (expected PositionID:MatchID)")
    return _from_ids(position_id, match_id)
