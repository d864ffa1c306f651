"""Contact features (bot.evaluation.features): hand-computed positions, ranges on played positions, symmetry."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import board

from bot.evaluation import compiled
from bot.evaluation.encoding import get_encoding
from bot.evaluation.features import (
    CONTACT_FEATURES,
    ESCAPES,
    GROUPS,
    HALF_FEATURES,
    HIT_FEATURES,
    contact_features,
    hit_features,
    hits_by_roll,
    numpy_contact_features,
)
from engine import afterstates
from engine.board import ROLLS, START, flip

HALF = len(HALF_FEATURES)


def features(b: np.ndarray, side: str = "mover") -> dict[str, float]:
    """{name: value} of one board's features for one side."""
    row = contact_features(b[None])[0]
    return {name.split(".", 1)[1]: float(v) for name, v in zip(CONTACT_FEATURES, row) if name.startswith(side + ".")}


def played_positions(count: int = 300, plies: int = 40) -> np.ndarray:
    """Varied legal positions (many with hits and bar checkers) from random self-play."""
    rng = np.random.default_rng(9)
    boards = np.tile(START, (count, 1))
    seen = []
    for _ in range(plies):
        children, parent = afterstates(boards, rng.integers(1, 7, size=(count, 2)))
        # a random child of each board
        starts = np.searchsorted(parent, np.arange(count))
        sizes = np.bincount(parent, minlength=count)
        boards = flip(children[starts + (rng.random(count) * sizes).astype(int)])
        done = (np.maximum(boards, 0).sum(axis=1) == 0) | (np.maximum(-boards, 0).sum(axis=1) == 0)
        boards[done] = START
        seen.append(boards)
    return np.concatenate(seen)


# The starting position, by hand (both sides alike).


def test_starting_position():
    f = features(START)
    # Checkers on 24 (2), 13 (5), 8 (3), 6 (5) must all pass the opponent's checkers on
    # point 1: 2*24 + 5*13 + 3*8 + 5*6 = 167 pips, the scale.
    assert f["break_contact"] == pytest.approx(1.0)
    assert f["free_pip"] == 0.0
    # Timing: 13 point's 3 spares at 12 pips (36), the 8 point's 3 at 7 (21), the 6 point's
    # 3 spares at 5 (15) = 72; then filling 5, 4, 3, 2 (2 checkers each, 7 spares left
    # after the first) takes back 8 + 6 + 4 + 2 = 20; point 1 cannot be filled: 52.
    assert f["timing"] == pytest.approx(0.52)
    assert (f["off1"], f["off2"], f["off3"]) == (0.0, 0.0, 0.0)
    assert f["back_checker"] == pytest.approx(23 / 24)
    assert f["back_anchor"] == pytest.approx(23 / 24)
    assert f["forward_anchor"] == pytest.approx(1 / 6)  # the anchor on the opponent's 1 point
    # Held points 24, 13, 8, 6: gaps 11 (13 - 11 = 2), 5 (11), 2 (11), weighted by the upper
    # point's checkers 2, 5, 3: 1 - (2*2 + 5*11 + 3*11) / (10 * 11).
    assert f["backbone"] == pytest.approx(1 - 92 / 110)
    assert (f["backgame"], f["backgame1"]) == (0.0, pytest.approx(2 / 8))  # one anchor there
    # Mean point 167/15; behind it: 5 on 13 and 2 on 24.
    mean = 167 / 15
    assert f["moment2"] == pytest.approx((5 * (13 - mean) ** 2 + 2 * (24 - mean) ** 2) / 7 / 400, rel=1e-5)
    assert (f["pip_loss"], f["hit1"], f["hit2"]) == (0.0, 0.0, 0.0)
    # The opponent's back checkers on our 1 point (its 24) face our points 6 and 8 (5 and 7
    # pips ahead) and 13 (12 ahead): sums 5 (41, 32), 7 (61, 52, 43), 12 (66) and 55 are
    # stopped: 4 + 6 + 1 + 1 = 12 of 36.
    assert f["back_escapes"] == pytest.approx(24 / 36)
    # Mobility: our 24s face points 19, 17, 12 (24 escapes, as above), the 13s face 12 and
    # 1 (11 and 66 stopped: 34), the 8s face 1 (sums of 7 stopped: 30).
    assert f["mobility"] == pytest.approx((18 * 2 * 24 + 7 * 5 * 34 + 2 * 3 * 30) / 3600)
    assert f["enter_loss"] == 0.0
    assert f["enter_fail"] == pytest.approx(1 / 36)  # one closed point: 1/6 squared
    assert features(START, "opponent") == pytest.approx(f)


def test_prime_traps_the_back_checker():
    # Our lone back checker on 24 behind the opponent's 6-prime on 18..23: every landing
    # point 1..6 pips ahead is blocked, so no roll moves it (sums need a die's point open).
    b = board({24: 1, 6: 14}, {p: 2 for p in range(18, 24)} | {1: 3})
    assert features(b)["mobility"] == 0.0  # the rest of ours are home: (point - 6) <= 0
    theirs = features(b, "opponent")
    assert theirs["back_escapes"] == 0.0
    # Their containment: our checker on our 24 (their 1, inside their 1..9) escapes 0 times.
    assert theirs["acontain"] == 1.0 and theirs["contain"] == 1.0
    # Their 3 checkers on our 1 point are an anchor on our (their opponent's) 1 point: 1/6.
    assert theirs["forward_anchor"] == pytest.approx(1 / 6)


def test_escape_table():
    assert ESCAPES[0] == 36
    # Only the point 6 pips ahead blocked: 66 (lands 12, but 6 is blocked for a double) and
    # the sums of 6: 51, 42 (4 rolls) and 33 (1).
    assert ESCAPES[1 << 5] == 36 - 1 - 4 - 1
    assert ESCAPES[0b111111] == 0  # a 6-prime right in front
    assert sum(2 if a != b else 1 for a, b in ROLLS) == 36


def test_bar_against_a_five_point_board():
    # One checker on our bar; the opponent holds its points 1..5 (our 24..20), point 6 open.
    b = board({25: 1, 6: 14}, {24: 2, 23: 2, 22: 2, 21: 2, 20: 2, 12: 5})
    f = features(b)
    # It enters only with a 6: 11 of 36 rolls; stays out with 25/36.
    assert f["enter_fail"] == pytest.approx(25 / 36)
    # Pips lost: blocked doubles 11..55 lose 4 dice: 4 * 15 = 60; non-doubles of two blocked
    # dice i < j <= 5 lose both, twice each: 2 * 4 * 15 = 120 (each die is in 4 pairs).
    assert f["enter_loss"] == pytest.approx(180 / (36 * 49 / 6))
    # Two on the bar: every blocked die is lost: doubles 60, non-doubles with a 6: 2 * 15 = 30
    # (the other die), non-doubles of two blocked dice: 120.
    b2 = board({25: 2, 6: 13}, {24: 2, 23: 2, 22: 2, 21: 2, 20: 2, 12: 5})
    assert features(b2)["enter_loss"] == pytest.approx(210 / (36 * 49 / 6))
    assert features(b2)["back_checker"] == 1.0  # the bar


def test_shots_of_a_single_checker():
    # Our single checker on 13 (the rest on 2, below every blot); opponent blots on our 10
    # and 9 (3 and 4 pips away), its other 13 checkers on our 20.
    b = board({13: 1, 2: 14}, {10: 1, 9: 1, 20: 13})
    f = features(b)
    # Hitting rolls: any 3 or 4 (20), 21 (2) and 11 for the 3, 22 for the 4: 24.
    assert f["hit1"] == pytest.approx(24 / 36)
    # The blot on 10 (10 pips lost) is hit by any 3 (11), 21 (2), 11 (1): 14 rolls; the blot
    # on 9 alone by 41, 42, 45, 46 (8), 44 (1), 22 (1): 10 rolls.
    assert f["pip_loss"] == pytest.approx((14 * 10 + 10 * 9) / 432)
    # Two hits with one checker only on its way: 31 (13/10*/9*) and 11 (13/12/11/10*/9*).
    # 43 hits one: the same checker cannot use its 3 and its 4 on both.
    assert f["hit2"] == pytest.approx(3 / 36)


def test_two_hitters_hit_two():
    # Two checkers on 13 and the same blots: 43 now hits both (13/10* 13/9*).
    b = board({13: 2, 2: 13}, {10: 1, 9: 1, 20: 13})
    assert features(b)["hit2"] == pytest.approx(5 / 36)  # 31, 43, 11


def test_no_hits_with_two_on_the_bar_except_entering():
    # Two on our bar; an opponent blot on our 20 (enters with a 5) and one on 10 (far).
    b = board({25: 2, 13: 13}, {20: 1, 10: 1, 1: 13})
    f = features(b)
    # Non-doubles: only a 5 hits, entering (10 rolls); 13/10* with a 3 does not count, both
    # dice must enter. Doubles: two dice enter, two remain: 55 hits entering, 33 enters
    # and plays 13/10*: 12 rolls, 11 losing 20 pips and one 10.
    assert f["hit1"] == pytest.approx(12 / 36)
    assert f["pip_loss"] == pytest.approx((11 * 20 + 10) / 432)


def test_containment_and_moment():
    # Our points 7..12 held (a 6-prime from 12 down to 7); the opponent's back checker on
    # its 24 = our 1. A checker on our 1..6 ... the one on our 6 faces the full prime.
    b = board({7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 2, 3: 3}, {1: 1, 20: 14})
    f = features(b)
    assert f["contain"] == 1.0  # a checker on our 6 point cannot move past the prime
    assert f["acontain"] == 1.0  # ... and our 6 lies between its back checker (1) and 9
    # Moment: 2 on each of 7..12 and 3 on 3: mean = (2*57 + 9) / 15 = 8.2; behind it 9..12.
    mean = (2 * 57 + 9) / 15
    second = sum(2 * (p - mean) ** 2 for p in range(9, 13)) / 8
    assert f["moment2"] == pytest.approx(second / 400, rel=1e-5)
    # Free pips: none of ours is below the opponent's checker on our 1.
    assert f["free_pip"] == 0.0
    # Break contact: each checker on p needs p pips (to reach point 0... past point 1).
    assert f["break_contact"] == pytest.approx((2 * 57 + 9) / 167)


def test_checkers_off_and_backgame():
    # 7 of ours off; anchors on our 24 and 22 (two anchors there) with 5 checkers: backgame.
    b = board({24: 3, 22: 2, 6: 3}, {10: 15})
    f = features(b)
    assert (f["off1"], f["off2"], f["off3"]) == pytest.approx((1.0, 0.4, 0.0))
    assert f["backgame"] == pytest.approx((5 - 3) / 4) and f["backgame1"] == 0.0
    assert f["forward_anchor"] == pytest.approx(3 / 6)  # the anchor on their 3 point
    # Free pips: the opponent's rearmost checker is on our 10; our 3 checkers on 6 are past it.
    assert f["free_pip"] == pytest.approx(18 / 100)


# Many positions.


@pytest.fixture(scope="module")
def positions() -> np.ndarray:
    return played_positions()


def test_shape_dtype_range(positions):
    x = contact_features(positions)
    assert x.shape == (len(positions), 2 * HALF) and x.dtype == np.float32
    assert len(CONTACT_FEATURES) == 2 * HALF == len(set(CONTACT_FEATURES))
    assert np.isfinite(x).all()
    # -1/24: no back anchor; up to 2.25: backgame with 12 checkers back (gnubg's scales)
    assert x.min() >= -1 / 24 - 1e-6 and x.max() <= 2.25 + 1e-6
    assert sorted(i for group in GROUPS.values() for i in group) == list(range(2 * HALF))


def test_flip_swaps_the_sides(positions):
    x = contact_features(positions)
    y = contact_features(flip(positions))
    np.testing.assert_array_equal(y, np.concatenate([x[:, HALF:], x[:, :HALF]], axis=1))


def test_batch_equals_one_by_one(positions):
    some = positions[::97]
    rows = np.concatenate([contact_features(b[None]) for b in some])
    np.testing.assert_array_equal(contact_features(some), rows)


def test_shots_are_real_hits(positions):
    """Rolls counted as hitting have a legal play that hits (checked with the move generator).

    Our rules hold back some hits (weak board, home points), so the converse need not hold. A
    counted hit can be illegal when its other die cannot be played afterwards while another
    play uses both dice; that is rare: allow 1 in 1,000 (position, roll) pairs.
    """
    some = positions[::7]
    counted = hits_by_roll(some)[:, :, 1] > 0
    wrong = 0
    for r, (a, b) in enumerate(ROLLS):
        children, parent = afterstates(some, np.tile([a, b], (len(some), 1)))
        hits = some[parent, 0].astype(int) - children[:, 0]  # the opponent's bar grows
        possible = np.bincount(parent, weights=hits > 0, minlength=len(some)) > 0
        wrong += np.sum(counted[:, r] & ~possible)
    assert wrong <= counted.size / 1000
    assert counted.any(axis=1).mean() > 0.2  # the sample does have shots
    # The features are the weighted sums of the rolls.
    weights = np.array([1 if a == b else 2 for a, b in ROLLS])
    hit1 = contact_features(some)[:, CONTACT_FEATURES.index("mover.hit1")]
    np.testing.assert_allclose(hit1, (counted * weights).sum(axis=1) / 36, rtol=1e-6)


def test_the_compiled_kernel_gives_numpys_columns(positions):
    """A big batch runs compiled (``bot.evaluation.kernels.contact_features``); numpy's version is the reference."""
    assert compiled.kernel("contact_features", len(positions)) is not None
    # Three on the bar against a five-point board, and the opponent on the bar against two blots.
    crowded = board({25: 3, 24: 2, 13: 5, 8: 3, 6: 1, 5: 1}, {0: 1, 19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 12: 4})[None]
    boards = np.concatenate([positions, flip(positions), crowded, flip(crowded)])
    np.testing.assert_array_equal(contact_features(boards), numpy_contact_features(boards))


def test_contact_encoding_extends_extended(positions):
    contact = get_encoding("contact").encode(positions[:50])
    extended = get_encoding("extended").encode(positions[:50])
    assert contact.shape[1] == extended.shape[1] + len(CONTACT_FEATURES)
    np.testing.assert_array_equal(contact[:, : extended.shape[1]], extended)
    np.testing.assert_array_equal(contact[:, extended.shape[1] :], contact_features(positions[:50]))


def test_the_hits_encoding_is_extended_plus_the_shot_counts(positions):
    """``hit_features`` are the hits columns of ``contact_features``; the "hits" encoding appends them.

    A batch this big runs compiled (``bot.evaluation.kernels.hit_features``), against numpy's ``contact_features``.
    """
    assert compiled.kernel("hit_features", len(positions)) is not None
    hits = hit_features(positions)
    np.testing.assert_array_equal(hits, contact_features(positions)[:, list(GROUPS["hits"])])
    assert [CONTACT_FEATURES[i] for i in GROUPS["hits"]] == list(HIT_FEATURES)
    encoded = get_encoding("hits").encode(positions[:50])
    extended = get_encoding("extended").encode(positions[:50])
    np.testing.assert_array_equal(encoded, np.concatenate([extended, hits[:50]], axis=1))
