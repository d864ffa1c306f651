"""Cube decisions: Janowski's formulas on hand-computed cases, money and match rules,
and GNU Backgammon 1.07's own 0-ply cube analysis for given probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from bot.equity.cube import (
    CONTACT_EFFICIENCY,
    CubeState,
    InvalidEvaluationError,
    Owner,
    Verdict,
    cube_decision,
    cube_efficiencies,
    cube_efficiency,
    cubeful_equity,
    cubeful_mwc,
    model_decisions,
)
from bot.equity.met import mwc
from engine import START, decode_position_id
from engine.errors import InvalidMatchError

MONEY = CubeState()


def no_gammons(p: float) -> list[float]:
    return [p, 0.0, 0.0, 0.0, 0.0]


def race(mover_pips_on_point: dict[int, int], opponent_on_point: dict[int, int]) -> np.ndarray:
    """A board from checkers per point; the opponent's points in its own numbering."""
    board = np.zeros(26, dtype=np.int8)
    for point, n in mover_pips_on_point.items():
        board[point] = n
    for point, n in opponent_on_point.items():
        board[25 - point] = -n
    return board


# ------------------------------------------------------------ cube efficiency


def test_cube_efficiency_by_position_kind():
    assert cube_efficiency(START) == CONTACT_EFFICIENCY
    # Race: 0.55 + 0.00125 x pips of the side on roll, kept within 0.6..0.7.
    board = race({10: 8}, {6: 8})  # 80 pips, no contact
    assert cube_efficiency(board) == pytest.approx(0.55 + 0.00125 * 80)
    assert cube_efficiency(race({12: 11}, {12: 11})) == pytest.approx(0.7)  # 132 pips
    assert cube_efficiency(race({8: 3}, {8: 3})) == pytest.approx(0.6)  # 24 pips, clamped
    assert cube_efficiency(race({6: 5, 2: 3}, {5: 6})) == pytest.approx(0.6)  # both bearing off
    assert cube_efficiency(race({}, {5: 6})) == 0.0  # the side on roll has borne off: game over
    hit = race({6: 5}, {5: 6})
    hit[25] = 1  # a checker of the side on roll on the bar: contact again
    assert cube_efficiency(hit) == CONTACT_EFFICIENCY


def test_batched_cube_arithmetic_is_the_one_position_answer():
    # A search prices many leaves at once: each must be what cube_decision says of it alone.
    rng = np.random.default_rng(3)
    boards = np.stack(
        [
            START,
            race({10: 8}, {6: 8}),
            race({12: 11}, {12: 11}),
            race({6: 5, 2: 3}, {5: 6}),
            race({}, {5: 6}),
            decode_position_id("4HPwATDgc/ABMA"),
        ]
    )
    np.testing.assert_array_equal(cube_efficiencies(boards), [cube_efficiency(b) for b in boards])
    win = rng.uniform(0.0, 1.0, 40)
    gammons = rng.uniform(0.0, 0.3, (40, 2)) * np.stack([win, 1.0 - win], axis=1)
    probs = np.column_stack([win, gammons[:, 0], gammons[:, 0] / 4, gammons[:, 1], gammons[:, 1] / 4])
    probs[:3] = [no_gammons(0.0), no_gammons(1.0), [1.0, 1.0, 1.0, 0.0, 0.0]]  # sure results: a dead cube
    efficiencies = rng.uniform(0.0, 1.0, 40)
    states = [
        MONEY,
        CubeState(cube=2, owner=Owner.ME),
        CubeState(jacoby=True),
        CubeState(match_length=7, score=(2, 4)),
        CubeState(cube=2, owner=Owner.OPP, match_length=5, score=(3, 1)),
        CubeState(match_length=5, score=(4, 2), crawford=True),
    ]
    for state in states:
        batched = model_decisions(probs, efficiencies, state)
        alone = [cube_decision(START, p, state, efficiency=x) for p, x in zip(probs, efficiencies)]
        assert batched == alone


# ------------------------------------------------------------ money: Janowski


@pytest.mark.parametrize("probs", [no_gammons(0.3), [0.6, 0.2, 0.01, 0.1, 0.02], [0.95, 0.5, 0.1, 0.0, 0.0]])
def test_dead_cube_equity_is_cubeless_equity(probs):
    win, wg, wbg, lg, lbg = probs
    cubeless = 2 * win - 1 + wg - lg + wbg - lbg
    for owner in Owner:
        state = CubeState(cube=1 if owner is Owner.CENTERED else 2, owner=owner)
        assert cubeful_equity(START, probs, state, efficiency=0.0) == pytest.approx(cubeless)


@pytest.mark.parametrize("efficiency, take_point", [(0.0, 0.25), (1.0, 0.20)])
def test_money_take_point_without_gammons(efficiency, take_point):
    """Dead cube: take at 25%; fully live cube (the taker redoubles efficiently): 20%."""
    doubler = 1.0 - take_point
    at = cube_decision(START, no_gammons(doubler), MONEY, efficiency=efficiency)
    assert at.double_take == pytest.approx(1.0)
    assert at.double_pass == 1.0
    assert cube_decision(START, no_gammons(doubler - 0.01), MONEY, efficiency=efficiency).should_take
    assert not cube_decision(START, no_gammons(doubler + 0.01), MONEY, efficiency=efficiency).should_take


def test_janowski_interpolation_centred_cube():
    """x = 0.68, no gammons, P(win) 0.7: live equity runs from -1 at 20% to +1 at 80%."""
    dead = 2 * 0.7 - 1
    live = -1 + 2 * (0.7 - 0.2) / 0.6
    expected = 0.32 * dead + 0.68 * live
    assert cubeful_equity(START, no_gammons(0.7), MONEY, efficiency=0.68) == pytest.approx(expected)


def test_janowski_with_gammons():
    """W and L (average win and loss values) move the take and cash points."""
    probs = [0.6, 0.2, 0.0, 0.1, 0.0]
    win, loss = 1 + 0.2 / 0.6, 1 + 0.1 / 0.4
    take, cash = (loss - 0.5) / (win + loss + 0.5), (loss + 1) / (win + loss + 0.5)
    live_centred = -1 + 2 * (0.6 - take) / (cash - take)
    assert cubeful_equity(START, probs, MONEY, efficiency=1.0) == pytest.approx(live_centred)
    live_owned = -loss + (1 + loss) * 0.6 / cash  # below my cash point, I own the cube
    owned = CubeState(cube=2, owner="me")
    assert cubeful_equity(START, probs, owned, efficiency=1.0) == pytest.approx(live_owned)
    live_theirs = -1 + (win + 1) * (0.6 - take) / (1 - take)  # above the opponent's cash point
    theirs = CubeState(cube=2, owner="opp")
    assert cubeful_equity(START, probs, theirs, efficiency=1.0) == pytest.approx(live_theirs)


def test_money_clear_decisions():
    strong = cube_decision(START, no_gammons(0.9), MONEY)
    assert strong.verdict is Verdict.DOUBLE_PASS
    assert strong.should_double and not strong.should_take
    assert strong.equity == 1.0
    weak = cube_decision(START, no_gammons(0.6), MONEY)
    assert weak.verdict is Verdict.NODOUBLE_TAKE
    assert not weak.should_double and weak.should_take
    assert weak.equity == weak.no_double < weak.double_pass


def test_too_good_to_double_and_the_jacoby_rule():
    gammonish = [0.9, 0.6, 0.0, 0.0, 0.0]
    plain = cube_decision(START, gammonish, MONEY)
    assert plain.verdict is Verdict.TOOGOOD_PASS
    assert plain.no_double > 1.0 and not plain.should_double
    # With the Jacoby rule gammons do not count with a centred cube: cash it.
    jacoby = cube_decision(START, gammonish, CubeState(jacoby=True))
    assert jacoby.verdict is Verdict.DOUBLE_PASS
    assert jacoby.should_double
    # Once the cube has been turned, the Jacoby rule no longer applies.
    owned = cube_decision(START, gammonish, CubeState(cube=2, owner="me", jacoby=True))
    assert owned.verdict is Verdict.TOOGOODRE_PASS


def test_redouble_and_unavailable_cube():
    owned = cube_decision(START, no_gammons(0.9), CubeState(cube=2, owner=Owner.ME))
    assert owned.verdict is Verdict.REDOUBLE_PASS and owned.should_double
    theirs = cube_decision(START, no_gammons(0.9), CubeState(cube=2, owner=Owner.OPP))
    assert theirs.verdict is Verdict.NOT_AVAILABLE
    assert not theirs.should_double
    assert theirs.equity == theirs.no_double


def test_beaver():
    """An underdog's double with beavers allowed: the taker should beaver."""
    decision = cube_decision(START, no_gammons(0.45), CubeState(beavers=True))
    assert decision.verdict is Verdict.NODOUBLE_BEAVER
    assert decision.should_take and decision.should_beaver
    assert not cube_decision(START, no_gammons(0.45), MONEY).should_beaver


# ------------------------------------------------------------ match play


def test_crawford_game_has_no_doubling():
    state = CubeState(match_length=7, score=(3, 6), crawford=True)
    decision = cube_decision(START, no_gammons(0.95), state)
    assert decision.verdict is Verdict.NODOUBLE_DEADCUBE
    assert not decision.should_double
    # Cubeless: win 1 point (5 against 1 after Crawford) or lose the match.
    expected = 0.95 * mwc(3, 1, post_crawford=True)
    assert decision.mwc_no_double == pytest.approx(expected)
    assert cubeful_mwc(START, no_gammons(0.95), state) == pytest.approx(expected)


def test_post_crawford_trailer_doubles_and_leader_cannot():
    leader = CubeState(match_length=7, score=(6, 4))
    assert not leader.can_double
    assert cube_decision(START, no_gammons(0.8), leader).verdict is Verdict.NODOUBLE_DEADCUBE
    # The trailer (4-away, even) doubles at once; the leader takes.
    trailer = CubeState(match_length=7, score=(3, 6))
    decision = cube_decision(START, no_gammons(0.5), trailer)
    assert decision.verdict is Verdict.DOUBLE_TAKE
    assert decision.should_double and decision.should_take
    # After the double the leader owns a cube it can never use.
    redoubled = CubeState(match_length=7, score=(6, 3), cube=2, owner="me")
    assert cube_decision(START, no_gammons(0.9), redoubled).verdict is Verdict.NO_REDOUBLE_DEADCUBE


def test_dead_cube_when_it_overshoots_the_match():
    """At 2-away, 2-away with the cube on 2 both sides win the match with the cube as it is."""
    state = CubeState(match_length=5, score=(3, 3), cube=2, owner=Owner.ME)
    probs = [0.7, 0.2, 0.0, 0.1, 0.0]
    decision = cube_decision(START, probs, state)
    assert decision.verdict is Verdict.NO_REDOUBLE_DEADCUBE
    assert decision.mwc_no_double == pytest.approx(0.7)  # any win wins the match
    assert decision.no_double == pytest.approx(2 * 0.7 - 1)
    for x in (0.0, 0.5, 1.0):
        assert cubeful_mwc(START, probs, state, efficiency=x) == pytest.approx(0.7)


def test_match_numbers_are_normalised_mwc():
    state = CubeState(match_length=9, score=(2, 4))
    decision = cube_decision(START, [0.65, 0.15, 0.01, 0.08, 0.005], state)
    assert decision.double_pass == 1.0
    win, lose = mwc(6, 5), mwc(7, 4)  # this game won / lost with the cube on 1
    assert decision.mwc_double_pass == pytest.approx(win)
    for eq, m in [(decision.no_double, decision.mwc_no_double), (decision.double_take, decision.mwc_double_take)]:
        assert eq == pytest.approx((2 * m - win - lose) / (win - lose))


# GNU Backgammon 1.07's 0-ply cube analysis (Kazaross-XG2, no Jacoby, no beavers) of
# fixture positions: its cubeless probabilities (6 digits), no-double and
# double-take equities, verdict.
GNUBG_0PLY = [
    ("7e4GAIBuzwMAAA", 0, (0, 0), 1, "centered", (0.561156, 0, 0, 0, 0), 0.171238, -0.018681, "NODOUBLE_TAKE"),
    (
        "yOfgARiwZ8MBAw",
        0,
        (0, 0),
        1,
        "centered",
        (0.702247, 0.155724, 0.005968, 0.050749, 0.0011),
        0.722606,
        0.826204,
        "DOUBLE_TAKE",
    ),
    (
        "4PPBAWDbboOAAA",
        0,
        (0, 0),
        1,
        "centered",
        (0.978271, 0.939546, 0.006367, 0.000282, 0),
        1.91231,
        3.789568,
        "TOOGOOD_PASS",
    ),
    (
        "m+2AEUC2uwkwAA",
        0,
        (0, 0),
        2,
        "me",
        (0.881315, 0.471175, 0.005466, 0.020565, 0),
        1.302964,
        2.356706,
        "TOOGOODRE_PASS",
    ),
    (
        "uTsAAPi9AwDAAA",
        0,
        (0, 0),
        2,
        "me",
        (0.014943, 0, 0, 0.233453, 0.003129),
        -1.201615,
        -2.440848,
        "NO_REDOUBLE_TAKE",
    ),
    (
        "Mz4ZBwAZX0cwAA",
        3,
        (1, 0),
        1,
        "centered",
        (0.461407, 0.006562, 0, 0.007368, 0),
        -0.156683,
        -0.870372,
        "NODOUBLE_TAKE",
    ),
    ("drsRggDafQ8AAA", 3, (1, 0), 1, "centered", (0.924645, 0.000222, 0, 0, 0), 0.945551, 2.457397, "DOUBLE_PASS"),
    (
        "sK/BYAiYcxsHAA",
        9,
        (2, 4),
        1,
        "centered",
        (0.722743, 0.107347, 0.001897, 0.034066, 0.001175),
        0.794058,
        0.949077,
        "DOUBLE_TAKE",
    ),
    (
        "ic+DMQDB2xkHAA",
        11,
        (3, 3),
        4,
        "me",
        (0.604656, 0.013938, 0, 0.009065, 0),
        0.488202,
        0.425828,
        "NO_REDOUBLE_TAKE",
    ),
    ("WneZAgCaez4AAA", 9, (2, 3), 4, "me", (0.691803, 5e-05, 0, 5e-05, 0), 0.753674, 0.929799, "REDOUBLE_TAKE"),
    (
        "u+cGACC2XQMCBg",
        5,
        (1, 3),
        2,
        "me",
        (0.726437, 0.044618, 0.000866, 0.074854, 0.000908),
        0.891304,
        1.905748,
        "REDOUBLE_PASS",
    ),
    (
        "tncDEECb3YAFIA",
        9,
        (1, 3),
        4,
        "me",
        (0.739685, 0.278117, 0.006996, 0.070122, 0.002707),
        1.040823,
        1.373709,
        "TOOGOODRE_PASS",
    ),
    (
        "4PPgIChsG/BBIA",
        11,
        (8, 10),
        1,
        "centered",
        (0.723657, 0.338082, 0.024516, 0.052982, 0.00189),
        0.855477,
        1.175561,
        "DOUBLE_PASS",
    ),
    ("afsAALAvNwAAAA", 7, (0, 6), 1, "centered", (0.697938, 0, 0, 0, 0), 0.439439, 0.468481, "DOUBLE_TAKE"),
    (
        "m+2AEUDW7gkADA",
        3,
        (1, 2),
        1,
        "centered",
        (0.702959, 0.346139, 0.007387, 0.091802, 0.0013),
        1.303252,
        1.811836,
        "TOOGOOD_PASS",
    ),
]


@pytest.mark.parametrize(
    "pid, length, score, cube, owner, probs, nd, dt, verdict", GNUBG_0PLY, ids=[c[0] for c in GNUBG_0PLY]
)
def test_same_as_gnubg_0ply(pid, length, score, cube, owner, probs, nd, dt, verdict):
    state = CubeState(cube=cube, owner=owner, match_length=length, score=score)
    decision = cube_decision(decode_position_id(pid), probs, state)
    assert decision.no_double == pytest.approx(nd, abs=5e-5), pid
    assert decision.double_take == pytest.approx(dt, abs=5e-5), pid
    assert decision.verdict.value == verdict, pid


# ------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(cube=3, owner="me"), "power of two"),
        (dict(cube=2), "centred cube is on 1"),
        (dict(owner="nobody"), "cube owner"),
        (dict(score=(1, 0)), "money game"),
        (dict(match_length=5, score=(5, 0)), "score"),
        (dict(match_length=5, score=(1, 2), crawford=True), "Crawford"),
        (dict(match_length=5, jacoby=True), "money games only"),
    ],
)
def test_bad_cube_state(kwargs, message):
    with pytest.raises(InvalidMatchError, match=message):
        CubeState(**kwargs)


@pytest.mark.parametrize(
    "probs",
    [
        [0.5, 0.1, 0.0, 0.1],
        [1.2, 0, 0, 0, 0],
        [0.5, float("nan"), 0, 0, 0],
        [0.5, 0, 0, float("inf"), 0],
        [0.5, 0, -0.01, 0, 0],
    ],
)
def test_bad_probabilities(probs):
    with pytest.raises(InvalidEvaluationError, match="probabilities"):
        cube_decision(START, probs, MONEY)


def test_bad_efficiency():
    with pytest.raises(InvalidEvaluationError, match="efficiency"):
        cube_decision(START, no_gammons(0.5), MONEY, efficiency=1.5)
