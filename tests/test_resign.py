"""Resignations: offering at the right level, accepting or declining, money and match."""

from __future__ import annotations

import pytest

from bot.equity.cube import CubeState
from bot.equity.met import mwc
from bot.equity.resign import InvalidResignationError, ResignLevel, accept_resignation, offer_resignation
from engine import START

MONEY = CubeState()
LOST_SINGLE = [0.0, 0.0, 0.0, 0.0, 0.0]
LOST_GAMMON = [0.0, 0.0, 0.0, 1.0, 0.0]
LOST_BACKGAMMON = [0.0, 0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize(
    "probs, level",
    [
        (LOST_SINGLE, ResignLevel.SINGLE),
        (LOST_GAMMON, ResignLevel.GAMMON),
        (LOST_BACKGAMMON, ResignLevel.BACKGAMMON),
        ([0.0, 0.0, 0.0, 0.99, 0.0], ResignLevel.GAMMON),  # costs 0.01 < 0.05
        ([0.001, 0.0, 0.0, 0.0, 0.0], ResignLevel.SINGLE),
    ],
)
def test_offer_when_the_game_is_lost(probs, level):
    offer = offer_resignation(START, probs, MONEY)
    assert offer.level is level
    assert offer.equity_resign == (-1.0, -2.0, -3.0)
    assert offer.equity_play - offer.equity_resign[level - 1] <= 0.05


@pytest.mark.parametrize("probs", [[0.0, 0.0, 0.0, 0.5, 0.0], [0.2, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.4]])
def test_no_offer_while_the_outcome_is_open(probs):
    offer = offer_resignation(START, probs, MONEY)
    assert offer.level is None


def test_jacoby_rule_makes_a_certain_gammon_a_single():
    offer = offer_resignation(START, LOST_GAMMON, CubeState(jacoby=True))
    assert offer.level is ResignLevel.SINGLE
    assert offer.equity_resign == (-1.0, -1.0, -1.0)
    # With the cube turned, gammons count again.
    assert offer_resignation(START, LOST_GAMMON, CubeState(cube=2, owner="me", jacoby=True)).level is ResignLevel.GAMMON


def test_accept_as_the_side_on_roll():
    sure_win = [1.0, 0.0, 0.0, 0.0, 0.0]
    answer = accept_resignation(START, sure_win, MONEY, 1, resigner_on_roll=False)
    assert answer.accept and answer.equity_accept == 1.0 and answer.equity_play == pytest.approx(1.0)
    gammonish = [1.0, 0.5, 0.0, 0.0, 0.0]
    single = accept_resignation(START, gammonish, MONEY, 1, resigner_on_roll=False)
    assert not single.accept and single.equity_play > single.equity_accept
    assert accept_resignation(START, gammonish, MONEY, ResignLevel.GAMMON, resigner_on_roll=False).accept


def test_accept_when_the_resigner_is_on_roll():
    """The opponent of the side on roll answers: its equity is the negative of the side on roll's."""
    offer = offer_resignation(START, LOST_SINGLE, MONEY)
    answer = accept_resignation(START, LOST_SINGLE, MONEY, 1, resigner_on_roll=True)
    assert answer.accept
    assert answer.equity_play == pytest.approx(-offer.equity_play)
    assert answer.equity_accept == 1.0
    declined = accept_resignation(START, [0.0, 0.0, 0.0, 0.6, 0.0], MONEY, 1, resigner_on_roll=True)
    assert not declined.accept


def test_match_resignation_in_match_winning_chances():
    # 7-point match, 2-4: the side on roll needs 5, the opponent 3; cube on 1.
    state = CubeState(match_length=7, score=(2, 4))
    offer = offer_resignation(START, LOST_GAMMON, state)
    assert offer.level is ResignLevel.GAMMON
    assert offer.mwc_resign == pytest.approx((mwc(5, 2), mwc(5, 1), 0.0))
    assert offer.mwc_play == pytest.approx(mwc(5, 1))
    answer = accept_resignation(START, LOST_GAMMON, state, 1, resigner_on_roll=True)
    assert not answer.accept
    assert answer.mwc_accept == pytest.approx(1.0 - mwc(5, 2))
    assert answer.mwc_play == pytest.approx(1.0 - mwc(5, 1))


def test_match_gammon_that_does_not_count():
    """The opponent needs one point (post-Crawford): a gammon is worth no more than a single."""
    state = CubeState(match_length=5, score=(2, 4))
    offer = offer_resignation(START, [0.0, 0.0, 0.0, 0.7, 0.0], state)
    assert offer.level is ResignLevel.SINGLE
    assert offer.mwc_resign == (0.0, 0.0, 0.0)
    answer = accept_resignation(START, [0.0, 0.0, 0.0, 0.7, 0.0], state, 1, resigner_on_roll=True)
    assert answer.accept and answer.mwc_accept == 1.0


def test_bad_level():
    with pytest.raises(InvalidResignationError, match="resignation level 4"):
        accept_resignation(START, LOST_SINGLE, MONEY, 4, resigner_on_roll=True)
