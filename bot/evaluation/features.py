"""Expert inputs for contact positions, after the Berliner-style inputs GNU Backgammon's evaluator documents.

``contact_features(boards)`` turns boards (B, 26) in the mover's view (docs/DESIGN.md) into
(B, 2 * 24) float32 columns: the mover's 24 features, then the opponent's 24 (the same
function of the board turned with ``-b[::-1]``). Each "half" is computed for one side,
called *own* below, against the other side, *other*; every feature is in own's view:

- "race/timing": pips own needs to break contact, own's pips already past contact,
  own's timing (pips own can play before breaking its home board), checkers own has off;
- "structure": own's rearmost checker, rearmost and forward anchors, how well own's
  held points connect, own's back-game anchors, the one-sided spread of own's checkers;
- "hits": own's shots at other's blots over the 21 rolls (pips other loses, share of
  rolls hitting one or two checkers);
- "escape": how many rolls let other's checkers escape past own's points (own's
  containment) and let own's checkers escape past other's points (own's mobility);
- "bar": own's checkers on the bar against other's home board.

Definitions were written here from the descriptions in GNU Backgammon's eval.c
(``I_BREAK_CONTACT`` ... ``I_BACKG1``) and scaled as it scales them, to roughly [0, 1];
where its description and its code differ, or a rule is ours, the feature's entry in
``DESCRIPTIONS`` says so. The numpy version works over the batch (Python loops run only over
points, dice and the 21 rolls); big batches run a compiled kernel of the same rules.
"""

from __future__ import annotations

import numpy as np

from bot.evaluation.compiled import kernel
from engine.board import MOVER_BAR as BAR, ROLL_WEIGHTS, ROLLS, flip

# One half's features, in column order, with their group and meaning (own's view).
_HALF: tuple[tuple[str, str, str], ...] = (
    (
        "break_contact",
        "race/timing",
        "pips own needs to move every checker past other's rearmost one, / 167 (1 at the start)",
    ),
    ("free_pip", "race/timing", "own's pips on checkers already past other's rearmost checker, / 100"),
    (
        "timing",
        "race/timing",
        "pips own can play outside its home board before breaking home points (gnubg's I_TIMING), / 100",
    ),
    ("off1", "race/timing", "own's checkers off, first five / 5"),
    ("off2", "race/timing", "own's checkers off, sixth to tenth / 5"),
    ("off3", "race/timing", "own's checkers off, eleventh to fifteenth / 5"),
    ("back_checker", "structure", "own's rearmost checker: (point - 1) / 24, the bar 1"),
    ("back_anchor", "structure", "own's rearmost point of 2+ checkers: (point - 1) / 24, -1/24 when none"),
    (
        "forward_anchor",
        "structure",
        "own's most advanced anchor in other's home board as other's point / 6, else its "
        "outfield anchor (other's 7..12) nearest that board, / 6; 2 when none",
    ),
    (
        "backbone",
        "structure",
        "1 - mean connection of own's consecutive held points (11 within 6 pips, 13 - gap to 11, "
        "0 beyond) / 11, weighted by checkers on the upper point; 0 with fewer than two points. Ours: gnubg's "
        "code compares every point with the highest one only",
    ),
    ("backgame", "structure", "(own's checkers on other's home board and bar - 3) / 4 when own holds 2+ anchors there"),
    (
        "backgame1",
        "structure",
        "own's checkers on other's home board and bar / 8 when own holds exactly one anchor there",
    ),
    ("moment2", "structure", "mean squared distance behind own's mean point of the checkers behind it, / 400"),
    ("pip_loss", "hits", "sum over the 36 rolls of the pips other loses to own's best hit, / (12 * 36)"),
    ("hit1", "hits", "share of own's 36 rolls that hit at least one of other's blots"),
    ("hit2", "hits", "share of own's 36 rolls that hit at least two of other's blots"),
    ("back_escapes", "escape", "share of the 36 rolls letting other's rearmost checker jump past own's points"),
    ("acontain", "escape", "1 - fewest escapes / 36 over points from other's rearmost checker to own's 9 point"),
    ("acontain2", "escape", "acontain squared"),
    ("contain", "escape", "1 - fewest escapes / 36 for other's checker on any of own's points 1..9"),
    ("contain2", "escape", "contain squared"),
    (
        "mobility",
        "escape",
        "sum over own's checkers outside home of (point - 6) x its escapes past other's points, / 3600",
    ),
    ("enter_loss", "bar", "mean pips own loses to dancing with its bar checkers, / (49 / 6)"),
    (
        "enter_fail",
        "bar",
        "chance that one own checker on the bar stays out, (closed points of other's home / 6)^2. "
        "gnubg's comment says this; its code computes 1 - (1 - closed/6)^2",
    ),
)

HALF_FEATURES: tuple[str, ...] = tuple(name for name, _, _ in _HALF)
CONTACT_FEATURES: tuple[str, ...] = tuple(f"{side}.{name}" for side in ("mover", "opponent") for name in HALF_FEATURES)
DESCRIPTIONS: dict[str, str] = {name: text for name, _, text in _HALF}
GROUP_NAMES: tuple[str, ...] = ("race/timing", "structure", "hits", "escape", "bar")
_GROUP_OF = {name: group for name, group, _ in _HALF}
# Column indices of each group in contact_features' output, both sides.
GROUPS: dict[str, tuple[int, ...]] = {
    group: tuple(i for i, name in enumerate(CONTACT_FEATURES) if _GROUP_OF[name.split(".", 1)[1]] == group)
    for group in GROUP_NAMES
}

_POINTS = np.arange(26)

# How many of the 36 rolls each of ``ROLLS`` stands for.
_WEIGHTS = np.rint(36 * ROLL_WEIGHTS).astype(np.int64)


def _escape_table() -> np.ndarray:
    """Escapes by blocking pattern: bit i of the index = the point i + 1 pips ahead is blocked.

    A roll lets a lone checker escape when it can move the sum of its dice: the landing point
    (d1 + d2 ahead) is open and so is one of the points d1, d2 ahead (for a double, the point
    d ahead). Counted over the 36 rolls.
    """
    masks = np.arange(4096)
    blocked = [(masks >> i) & 1 == 1 for i in range(12)]  # blocked[k - 1]: k pips ahead
    count = np.zeros(4096, dtype=np.int64)
    for (a, b), weight in zip(ROLLS.tolist(), _WEIGHTS):
        escapes = ~blocked[a + b - 1] & ~(blocked[a - 1] & blocked[b - 1])
        count += weight * escapes
    return count


ESCAPES = _escape_table()
ESCAPES.setflags(write=False)


def _enter_tables() -> tuple[np.ndarray, np.ndarray]:
    """Pips lost to dancing, summed over the 36 rolls, by the closed points of the home board entered.

    Index bit d - 1 = die d is blocked. First table: one checker on the bar (a non-double loses
    both dice only when both are blocked); second: two or more (each blocked die is lost).
    A blocked double loses all four dice either way.
    """
    one = np.zeros(64, dtype=np.int64)
    many = np.zeros(64, dtype=np.int64)
    for mask in range(64):
        closed = [False] + [bool(mask >> (d - 1) & 1) for d in range(1, 7)]
        for (a, b), weight in zip(ROLLS.tolist(), _WEIGHTS):
            if a == b:
                loss_one = loss_many = 4 * a * closed[a]
            else:
                loss_one = (a + b) * (closed[a] and closed[b])
                loss_many = a * closed[a] + b * closed[b]
            one[mask] += weight * loss_one
            many[mask] += weight * loss_many
    return one, many


_ENTER_ONE, _ENTER_MANY = _enter_tables()
_POPCOUNT6 = np.array([bin(m).count("1") for m in range(64)])


def contact_features(boards: np.ndarray) -> np.ndarray:
    """(B, 48) float32: the mover's 24 contact features then the opponent's, each in its own side's view.

    ``boards`` (B, 26) are in the mover's view. Column names are ``CONTACT_FEATURES``,
    groups ``GROUPS``. Defined for every position; in a race most are 0 or constant. Compiled for
    big batches (``bot.evaluation.kernels.contact_features``, the same rules one board at a time).
    """
    boards = np.asarray(boards).reshape(-1, 26)
    compiled = kernel("contact_features", len(boards))
    if compiled is None:
        return numpy_contact_features(boards)
    out = np.empty((len(boards), len(CONTACT_FEATURES)), dtype=np.float32)
    compiled(np.ascontiguousarray(boards, dtype=np.int8), ESCAPES, _ENTER_ONE, _ENTER_MANY, out)
    return out


def numpy_contact_features(boards: np.ndarray) -> np.ndarray:
    """``contact_features`` in numpy, whatever the batch: the reference the compiled kernel is tested against."""
    boards = np.asarray(boards).reshape(-1, 26).astype(np.int64)
    mover = np.maximum(boards, 0)
    opponent = np.maximum(flip(boards), 0)
    return np.concatenate([half_features(mover, opponent), half_features(opponent, mover)], axis=1)


HIT_FEATURES: tuple[str, ...] = tuple(
    f"{side}.{name}" for side in ("mover", "opponent") for name in ("pip_loss", "hit1", "hit2")
)


def hit_features(boards: np.ndarray) -> np.ndarray:
    """(B, 6) float32: the "hits" group of ``contact_features`` alone, columns ``HIT_FEATURES``.

    The inputs that carry nearly all of the expert inputs' gain, at a fraction of the cost; both sides'
    halves go through one pass, and races (no shots possible) are skipped. Compiled for
    big batches (``bot.evaluation.kernels.hit_features``, the same rules one board at a time).
    """
    boards = np.asarray(boards).reshape(-1, 26)
    compiled = kernel("hit_features", len(boards))
    if compiled is not None:
        out = np.empty((len(boards), len(HIT_FEATURES)), dtype=np.float32)
        compiled(np.ascontiguousarray(boards, dtype=np.int8), out)
        return out
    boards = boards.astype(np.int64)
    mover, opponent = np.maximum(boards, 0), np.maximum(flip(boards), 0)
    features = np.zeros((len(boards), len(HIT_FEATURES)), dtype=np.float32)
    contact = np.flatnonzero(_rearmost(mover) + _rearmost(opponent) > 25)  # no shots in a race
    mover, opponent = mover[contact], opponent[contact]
    own, other = np.concatenate([mover, opponent]), np.concatenate([opponent, mover])
    hits = _hits(own, other[:, ::-1])
    columns = np.stack([hits[name] for name in ("pip_loss", "hit1", "hit2")], axis=1)
    features[contact] = np.concatenate([columns[: len(contact)], columns[len(contact) :]], axis=1)
    return features


def half_features(own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """(B, 24) float32 features of ``own`` against ``other``, in own's view (``HALF_FEATURES``).

    Both are (B, 26) checker counts >= 0, each in its own numbering: index p = point p,
    25 = the bar, index 0 empty.
    """
    own_rear = _rearmost(own)
    other_rear = _rearmost(other)
    contact_point = 25 - other_rear  # other's rearmost checker, on own's numbering (0: on the bar)
    other_seen = other[:, ::-1]  # other's checkers on own's points (index 0: other's bar)

    columns = {}
    columns.update(_race_timing(own, contact_point))
    columns.update(_structure(own, own_rear))
    columns.update(_hits(own, other_seen))
    columns.update(_escape(own, other, other_seen, other_rear))
    columns.update(_bar(own, other))
    return np.stack([columns[name] for name in HALF_FEATURES], axis=1).astype(np.float32)


def _rearmost(side: np.ndarray) -> np.ndarray:
    """(B,) the highest point (25 = bar) holding one of the side's checkers, 0 if none."""
    held = side[:, 1:] > 0
    return np.where(held.any(axis=1), 25 - np.argmax(held[:, ::-1], axis=1), 0)


def _race_timing(own: np.ndarray, contact_point: np.ndarray) -> dict[str, np.ndarray]:
    """Break-contact pips, free pips, timing and checkers off (own's view)."""
    behind = _POINTS[None, :] > contact_point[:, None]
    # A checker on p must reach contact_point - 1 to be past every one of other's checkers.
    break_contact = (own * np.maximum(_POINTS[None, :] - contact_point[:, None] + 1, 0) * behind).sum(axis=1)
    free_pip = (own * _POINTS * (_POINTS[None, :] < contact_point[:, None])).sum(axis=1)

    off = 15 - own.sum(axis=1)
    return {
        "break_contact": break_contact / 167.0,
        "free_pip": free_pip / 100.0,
        "timing": _timing(own, contact_point) / 100.0,
        "off1": np.clip(off, 0, 5) / 5.0,
        "off2": np.clip(off - 5, 0, 5) / 5.0,
        "off3": np.clip(off - 10, 0, 5) / 5.0,
    }


def _timing(own: np.ndarray, contact_point: np.ndarray) -> np.ndarray:
    """(B,) gnubg's timing: pips (counted as point - 1) own can play before its home board breaks.

    Counted: bar checkers; behind both own's 12 point and other's rearmost checker, all but
    two checkers of a held point and every blot (held points are kept); all checkers on the
    points from there down to 7. Home points keep two checkers: spares above two count, and
    each point with fewer than two takes back the pips of the checkers that would fill it
    while enough counted checkers remain.
    """
    weight = _POINTS - 1
    pips = own[:, BAR] * 24
    spare = own[:, BAR].copy()
    keep_cut = np.maximum(contact_point, 12)
    for point in range(24, 6, -1):
        count = own[:, point]
        kept_anchor = np.where(count >= 2, count - 2, count)
        movable = np.where(point > keep_cut, kept_anchor, count)
        pips += weight[point] * movable
        spare += movable
    for point in range(6, 0, -1):
        count = own[:, point]
        extra = np.maximum(count - 2, 0)
        need = np.maximum(2 - count, 0)
        fill = (need > 0) & (spare >= need)
        pips += weight[point] * (extra - np.where(fill, need, 0))
        spare += extra - np.where(fill, need, 0)
    return np.maximum(pips, 0)


def _structure(own: np.ndarray, own_rear: np.ndarray) -> dict[str, np.ndarray]:
    """Rearmost checker and anchors, backbone, back-game and one-sided moment (own's view)."""
    held = own >= 2
    held[:, BAR] = False
    held[:, 0] = False
    back_anchor = np.where(held.any(axis=1), 25 - np.argmax(held[:, ::-1], axis=1), 0)

    home_of_other = held[:, 19:25]  # own's points 19..24 = other's points 6..1
    any_home = home_of_other.any(axis=1)
    lowest_home = 19 + np.argmax(home_of_other, axis=1)  # the most advanced anchor there
    outfield = held[:, 13:19]  # own's points 13..18 = other's 12..7
    any_outfield = outfield.any(axis=1)
    highest_outfield = 18 - np.argmax(outfield[:, ::-1], axis=1)
    forward = np.where(any_home, 25 - lowest_home, np.where(any_outfield, 25 - highest_outfield, 12))

    anchors_there = home_of_other.sum(axis=1)
    checkers_there = own[:, 19:26].sum(axis=1)

    return {
        "back_checker": np.maximum(own_rear - 1, 0) / 24.0,
        "back_anchor": (back_anchor - 1) / 24.0,
        "forward_anchor": forward / 6.0,
        "backbone": _backbone(own, held),
        "backgame": np.where(anchors_there >= 2, (checkers_there - 3) / 4.0, 0.0),
        "backgame1": np.where(anchors_there == 1, checkers_there / 8.0, 0.0),
        "moment2": _moment2(own) / 400.0,
    }


_CONNECTION = np.array([11 if d <= 6 else max(13 - d, 0) for d in range(25)])


def _backbone(own: np.ndarray, held: np.ndarray) -> np.ndarray:
    """(B,) 1 - the checker-weighted mean connection / 11 of consecutive held points, 0 if < 2 points."""
    count = len(own)
    upper = np.zeros(count, dtype=np.int64)  # the last held point seen, going down; 0: none yet
    upper_checkers = np.zeros(count, dtype=np.int64)
    weighted = np.zeros(count, dtype=np.int64)
    total = np.zeros(count, dtype=np.int64)
    for point in range(24, 0, -1):
        here = held[:, point]
        pair = here & (upper > 0)
        gap = np.where(pair, upper - point, 0)
        weighted += np.where(pair, _CONNECTION[gap] * upper_checkers, 0)
        total += np.where(pair, upper_checkers, 0)
        upper = np.where(here, point, upper)
        upper_checkers = np.where(here, own[:, point], upper_checkers)
    return np.where(total > 0, 1.0 - weighted / (11.0 * np.maximum(total, 1)), 0.0)


def _moment2(own: np.ndarray) -> np.ndarray:
    """(B,) mean of (p - mean point)^2 over own's checkers behind the mean point (bar = 25)."""
    checkers = own[:, 1:].sum(axis=1)
    mean = (own * _POINTS).sum(axis=1) / np.maximum(checkers, 1)
    distance = _POINTS[None, :] - mean[:, None]
    behind = (distance > 0) & (own > 0)
    weight = np.where(behind, own, 0)
    return (weight * distance**2).sum(axis=1) / np.maximum(weight.sum(axis=1), 1)


def runner_escapes(blocked: np.ndarray) -> np.ndarray:
    """(B, 26) escapes (of 36 rolls) of a lone runner on each point p, index 25 = the bar.

    ``blocked`` (B, 26) bool is in the runner's numbering (it moves down): the runner at p
    looks at the 12 points p - 1 ... p - 12; points below 1 are open.
    """
    padded = np.zeros((len(blocked), 38), dtype=np.int64)
    padded[:, 13:37] = blocked[:, 1:25]  # padded[12 + x] = blocked[x]
    masks = np.zeros((len(blocked), 26), dtype=np.int64)
    for i in range(12):  # bit i: the point p - 1 - i
        masks |= padded[:, 11 - i : 37 - i] << i
    return ESCAPES[masks]


def _escape(
    own: np.ndarray, other: np.ndarray, other_seen: np.ndarray, other_rear: np.ndarray
) -> dict[str, np.ndarray]:
    """Other's escapes past own's points (containment) and own's past other's (mobility), own's view."""
    rows = np.arange(len(own))
    # Other's runners, in other's numbering, against own's points seen from other's side.
    other_escapes = runner_escapes(own[:, ::-1] >= 2)
    points = _POINTS[None, :]
    in_reach = (points >= 16) & (points <= other_rear[:, None])  # other's 16..rearmost = own's 9..down
    fewest_reach = np.where(in_reach, other_escapes, 36).min(axis=1)
    fewest_home = other_escapes[:, 16:25].min(axis=1)  # own's points 9..1
    acontain = (36 - fewest_reach) / 36.0
    contain = (36 - fewest_home) / 36.0

    own_escapes = runner_escapes(other_seen >= 2)
    outside = np.maximum(_POINTS - 6, 0)  # points 7..24 and the bar
    mobility = (own * outside * own_escapes).sum(axis=1)
    return {
        "back_escapes": other_escapes[rows, other_rear] / 36.0,
        "acontain": acontain,
        "acontain2": acontain**2,
        "contain": contain,
        "contain2": contain**2,
        "mobility": mobility / 3600.0,
    }


def _bar(own: np.ndarray, other: np.ndarray) -> dict[str, np.ndarray]:
    """Entering own's bar checkers against other's home board (own's view)."""
    closed = (other[:, 1:7] >= 2).astype(np.int64) @ (1 << np.arange(6))  # bit d - 1: die d blocked
    bar = own[:, BAR]
    loss = np.where(bar == 0, 0, np.where(bar == 1, _ENTER_ONE[closed], _ENTER_MANY[closed]))
    return {
        "enter_loss": loss / (36.0 * 49.0 / 6.0),
        "enter_fail": (_POPCOUNT6[closed] / 6.0) ** 2,
    }


def _roll_hits(own: np.ndarray, other_seen: np.ndarray) -> np.ndarray:
    """(B, 21, 3) own's shots at other's blots for each roll: farthest blot point hit, hits one, two.

    Rules (own's view): blots on own's points 1 and 2 count only when own holds 3+ home points;
    own does not break a 2-checker point in its home board to hit; with one checker on the bar
    one die enters (its point open) and the other may hit anywhere, or the entering checker
    hits; with 2+ on the bar only entering hits count (doubles: what dice remain after entering).
    Two hits: two dice hitting different blots with different checkers, or one checker hitting
    twice on its way.

    Computed on bit masks over own's points (bit s: point s, 25 the bar), every roll at once:
    the 15 non-doubles as one (B, 15) batch, the 6 doubles as one (B, 6), so a call costs a
    few dozen numpy operations whatever the batch size.
    """
    blots = other_seen == 1
    blots[:, 0] = blots[:, BAR] = False
    weak = (own[:, 1:7] > 0).sum(axis=1) < 3
    blots[:, 1] &= ~weak
    blots[:, 2] &= ~weak
    willing = (own > 0) & ~((_POINTS <= 6) & (own == 2))
    willing[:, 0] = False
    masks = (np.stack([blots, other_seen < 2, willing, own == 1], axis=1).astype(np.int64) @ _BIT).astype(np.int32)
    blot, open_, will, single = (masks[:, i, None] for i in range(4))
    bar = own[:, BAR, None]
    hits = np.empty((len(own), len(ROLLS), 3), dtype=np.int64)
    hits[:, _MIXED_COLUMNS] = _mixed_shots(blot, open_, will, single, bar)
    hits[:, _DOUBLE_COLUMNS] = _double_shots(blot, open_, will, bar)
    return hits


def hits_by_roll(boards: np.ndarray) -> np.ndarray:
    """(B, 21, 3) the mover's shots for each of ``ROLLS``: farthest blot point hit, hits one, hits two.

    ``boards`` (B, 26) are in the mover's view; the rules are ``_roll_hits``'.
    """
    boards = np.asarray(boards).reshape(-1, 26).astype(np.int64)
    return _roll_hits(np.maximum(boards, 0), np.maximum(-boards, 0))


def _hits(own: np.ndarray, other_seen: np.ndarray) -> dict[str, np.ndarray]:
    """Own's shots at other's blots summed over the 36 rolls: pips other loses, rolls hitting one or two."""
    per_roll = _roll_hits(own, other_seen) * _WEIGHTS[None, :, None]
    best, one, two = per_roll.sum(axis=1).T
    return {"pip_loss": best / (12.0 * 36.0), "hit1": one / 36.0, "hit2": two / 36.0}


# Bit masks over own's points 0..25 (bit s: point s; bit 25: the bar).
_BIT = np.int64(1) << np.arange(26, dtype=np.int64)
_ALL = np.int32((1 << 26) - 1)
_BAR_BIT = np.int32(1 << BAR)
_BOARD = _ALL & ~_BAR_BIT
# The non-doubles (larger die first) and the doubles' dice, as rows for broadcasting, and where
# each goes among ROLLS.
_MIXED_COLUMNS = np.flatnonzero(ROLLS[:, 0] != ROLLS[:, 1])
_MIXED = ROLLS[_MIXED_COLUMNS, ::-1].astype(np.int32)
_DOUBLE_COLUMNS = np.flatnonzero(ROLLS[:, 0] == ROLLS[:, 1])
_DOUBLE = ROLLS[_DOUBLE_COLUMNS, 0].astype(np.int32)[None, :]


def _count(masks: np.ndarray) -> np.ndarray:
    """Set bits of masks."""
    return np.bitwise_count(masks).astype(np.int64)


def _highest(points: np.ndarray) -> np.ndarray:
    """The highest point in masks over points, 0 for an empty mask."""
    return np.frexp(points.astype(np.float64))[1] - 1 + (points == 0)  # exact: 26-bit integers are exact floats


def _open_at(open_: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """Sources s whose point s - distance is open to own (points below 1: borne off, open)."""
    return ((open_ << distance) | ((np.int32(1) << distance) - 1)) & _ALL


def _enters(open_: np.ndarray, die: np.ndarray) -> np.ndarray:
    """Whether a checker on the bar enters with ``die`` (lands on own's point 25 - die)."""
    return (open_ >> (BAR - die)) & 1 == 1


def _mixed_shots(blot, open_, willing, single, bar) -> np.ndarray:
    """(B, 15, 3) best blot point hit, any hit, two hits, for each non-double a-b (a > b) of ``_MIXED``.

    Masks are (B, 1) over sources (a blot hit from s with die d is on s - d); ``bar`` (B, 1).
    """
    a, b = _MIXED[None, :, 0], _MIXED[None, :, 1]
    free, one_up = bar == 0, bar == 1
    blot_a, blot_b, blot_ab = ((blot << d) & _ALL for d in (a, b, a + b))
    # Board checkers may hit with die a only when the bar is empty or die b can enter.
    board_a = free | (one_up & _enters(open_, b))
    board_b = free | (one_up & _enters(open_, a))
    shots_a = willing & blot_a & np.where(board_a, _ALL, _BAR_BIT)
    shots_b = willing & blot_b & np.where(board_b, _ALL, _BAR_BIT)
    # Both dice on one checker: from the board with no bar checker, or the single bar checker.
    combined = np.where(free, _BOARD, 0) | np.where(one_up, _BAR_BIT, 0)
    shots_ab = willing & blot_ab & (_open_at(open_, a) | _open_at(open_, b)) & combined
    best = _highest((shots_a >> a) | (shots_b >> b) | (shots_ab >> (a + b)))  # the blot points hit

    # Two different blots with the two dice.
    n_a, n_b = _count(shots_a), _count(shots_b)
    bar_a, bar_b = shots_a >> BAR, shots_b >> BAR
    shift = a - b  # die b's shot at the blot die a hits from s comes from s - shift
    pairs_free = n_a * n_b - _count((shots_a >> shift) & shots_b) - _count(shots_a & shots_b & single)
    # One on the bar: one of the two hits must be the entering checker's.
    same_as_bar_a = (shots_b >> (BAR - shift)) & 1  # die b from 25 - a + b hits the blot on 25 - a
    pairs_one = bar_a * (n_b - bar_b - same_as_bar_a) + bar_b * (n_a - bar_a)
    pairs = np.where(free, pairs_free, np.where(one_up, pairs_one, bar_a & bar_b))
    # One checker hitting on its way (the blot in between is open to land on).
    on_way = willing & blot_ab & (blot_a | blot_b) & combined
    return np.stack([best, best > 0, (pairs > 0) | (on_way != 0)], axis=2)


def _double_shots(blot, open_, willing, bar) -> np.ndarray:
    """(B, 6, 3) best blot point hit, any hit, two hits, for the doubles 1-1 ... 6-6.

    After the bar checkers enter (all on one point, which must be open) ``free`` dice remain;
    a shot of k steps costs k from the board, k - 1 for an entering checker. Two blots are hit
    when the two cheapest cost no more than ``free``, or one checker hits twice on its way.
    """
    d = _DOUBLE
    free = np.maximum(4 - bar, 0)
    blocked_out = (bar > 0) & ~_enters(open_, d)
    path = np.broadcast_to(_ALL, (len(blot), d.shape[1]))
    seen = twice = np.zeros_like(path)
    at_cost = [np.zeros_like(path) for _ in range(5)]  # at_cost[c]: blot points some shot hits at cost c
    for k in range(1, 5):
        distance = k * d  # at most 24
        if k > 1:
            path = path & _open_at(open_, (k - 1) * d)
        shots = np.where(blocked_out, 0, willing & ((blot << distance) & _ALL) & path)
        from_board = np.where(k <= free, shots & _BOARD, 0)
        from_bar = np.where(k - 1 <= free, shots & _BAR_BIT, 0)
        allowed = from_board | from_bar
        twice = twice | (seen & allowed)
        seen = seen | allowed
        at_cost[k] = at_cost[k] | (from_board >> distance)
        at_cost[k - 1] = at_cost[k - 1] | (from_bar >> distance)
    big = 99
    cheapest = np.full(path.shape, big, dtype=np.int64)
    second = np.full(path.shape, big, dtype=np.int64)
    reach = np.zeros_like(path)  # blot points hit at a cost of at most ``cost``
    for cost in range(5):
        reach = reach | at_cost[cost]
        hit = _count(reach)
        cheapest = np.where((hit >= 1) & (cheapest == big), cost, cheapest)
        second = np.where((hit >= 2) & (second == big), cost, second)
    two = (cheapest + second <= free) | (twice != 0)
    best = _highest(reach)  # every blot point hit, at any cost
    return np.stack([best, best > 0, two], axis=2)
