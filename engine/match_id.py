"""GNU Backgammon Match IDs: 12 Base64 characters for the state of a match around a position.

67 bits packed least-significant first into 9 bytes (docs/PROTOCOLS.md): cube, cube
owner, player on roll, Crawford, game state, player to decide, double and
resignation offered, dice, match length, both scores, and (bit 66, as GNU
Backgammon 1.07 writes it) 1 when the Jacoby rule is NOT in use. Players are numbered
0 and 1 as in GNU Backgammon (player 1 is the one it calls ``X``, the external
player's seat); nothing here depends on whose view a board is in.

>>> decode_match_id("QYkqASAAIAAA").score
(2, 4)
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from enum import IntEnum

from engine.errors import InvalidMatchError, quote
from engine.match import MAX_CUBE, is_cube_value

# MAX_CUBE is GNU Backgammon's largest cube (1 << 12); the Match ID's field could hold 2^15.
_ALPHABET = re.compile(r"[A-Za-z0-9+/]{12}", re.ASCII)

# (name, first bit, width) in the order of the format.
_FIELDS = (
    ("cube_log2", 0, 4),
    ("cube_owner", 4, 2),
    ("player_on_roll", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("double_offered", 12, 1),
    ("resign_offered", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("match_length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("no_jacoby", 66, 1),
)
_CENTRED = 3


class GameState(IntEnum):
    """Where the current game stands."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


@dataclass(frozen=True)
class MatchId:
    """The fields of a Match ID.

    ``cube_owner`` is 0, 1 or None (centred); ``turn`` the player who must decide
    now (differs from ``player_on_roll`` while a double or resignation is
    answered); ``resign_offered`` 0 none, 1 single, 2 gammon, 3 backgammon;
    ``dice`` None before the roll (GNU Backgammon writes the larger die first);
    ``match_length`` 0 for money; ``score`` is (player 0, player 1); ``jacoby``
    whether the Jacoby rule is in use (GNU Backgammon says no in match play).
    """

    cube_value: int = 1
    cube_owner: int | None = None
    player_on_roll: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    double_offered: bool = False
    resign_offered: int = 0
    dice: tuple[int, int] | None = None
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True


def _check(m: MatchId, what: str) -> None:
    """Raise InvalidMatchError naming ``what`` when a field is out of range."""
    if not is_cube_value(m.cube_value) or m.cube_value > MAX_CUBE:
        raise InvalidMatchError(f"{what}: cube value {m.cube_value} is not a power of 2 up to {MAX_CUBE}")
    if m.cube_owner not in (0, 1, None):
        raise InvalidMatchError(f"{what}: cube owner must be 0, 1 or None (centred), got {m.cube_owner!r}")
    if m.cube_owner is None and m.cube_value > 1:
        raise InvalidMatchError(f"{what}: a centred cube is on 1, not {m.cube_value}")
    for name in ("player_on_roll", "turn"):
        if getattr(m, name) not in (0, 1):
            raise InvalidMatchError(f"{what}: {name} must be 0 or 1, got {getattr(m, name)!r}")
    if not 0 <= m.resign_offered <= 3:
        raise InvalidMatchError(f"{what}: resignation offered must be 0..3, got {m.resign_offered}")
    if m.dice is not None and not all(1 <= d <= 6 for d in m.dice):
        raise InvalidMatchError(f"{what}: dice {m.dice} must be 1..6")
    if not 0 <= m.match_length < 1 << 15:
        raise InvalidMatchError(f"{what}: match length {m.match_length} out of range")
    if any(not 0 <= s < 1 << 15 for s in m.score):
        raise InvalidMatchError(f"{what}: scores {m.score} out of range")
    if m.match_length and max(m.score) > m.match_length:
        raise InvalidMatchError(f"{what}: score {m.score} is beyond the match length {m.match_length}")
    if not m.match_length and m.crawford:
        raise InvalidMatchError(f"{what}: a money game has no Crawford game")
    if m.crawford and m.match_length - 1 not in m.score:
        raise InvalidMatchError(f"{what}: the Crawford game needs a side at {m.match_length - 1} points")


def encode_match_id(m: MatchId) -> str:
    """The 12-character Match ID of ``m``."""
    _check(m, f"match state {m!r}")
    values = {
        "cube_log2": m.cube_value.bit_length() - 1,
        "cube_owner": _CENTRED if m.cube_owner is None else m.cube_owner,
        "player_on_roll": m.player_on_roll,
        "crawford": int(m.crawford),
        "game_state": int(m.game_state),
        "turn": m.turn,
        "double_offered": int(m.double_offered),
        "resign_offered": m.resign_offered,
        "die1": m.dice[0] if m.dice else 0,
        "die2": m.dice[1] if m.dice else 0,
        "match_length": m.match_length,
        "score0": m.score[0],
        "score1": m.score[1],
        "no_jacoby": int(not m.jacoby),
    }
    bits = 0
    for name, start, _ in _FIELDS:
        bits |= values[name] << start
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match_id(match_id: str) -> MatchId:
    """The fields of a Match ID; raise InvalidMatchError naming it when it is malformed."""
    text = match_id.strip() if isinstance(match_id, str) else match_id
    what = f"Match ID {quote(match_id)}"
    if not isinstance(text, str) or not _ALPHABET.fullmatch(text):
        raise InvalidMatchError(f"{what}: expected 12 characters of A-Z, a-z, 0-9, '+' and '/'")
    try:
        bits = int.from_bytes(base64.b64decode(text, validate=True), "little")
    except (binascii.Error, ValueError):
        raise InvalidMatchError(f"{what}: not valid Base64") from None
    v = {name: bits >> start & ((1 << width) - 1) for name, start, width in _FIELDS}
    if v["cube_owner"] == 2:
        raise InvalidMatchError(f"{what}: cube owner field is 2 (must be 0, 1 or 3 = centred)")
    if v["game_state"] > GameState.DROPPED:
        raise InvalidMatchError(f"{what}: game state {v['game_state']} is not 0..4")
    dice = (v["die1"], v["die2"])
    if (0 in dice and dice != (0, 0)) or max(dice) > 6:
        raise InvalidMatchError(f"{what}: dice {dice} must both be 1..6, or both 0 before the roll")
    if bits >> 67:
        raise InvalidMatchError(f"{what}: unused bits are set")
    m = MatchId(
        cube_value=1 << v["cube_log2"],
        cube_owner=None if v["cube_owner"] == _CENTRED else v["cube_owner"],
        player_on_roll=v["player_on_roll"],
        crawford=bool(v["crawford"]),
        game_state=GameState(v["game_state"]),
        turn=v["turn"],
        double_offered=bool(v["double_offered"]),
        resign_offered=v["resign_offered"],
        dice=None if dice == (0, 0) else dice,
        match_length=v["match_length"],
        score=(v["score0"], v["score1"]),
        jacoby=not v["no_jacoby"],
    )
    _check(m, what)
    return m
