"""Match equity table lookups (Kazaross-XG2)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bot.equity.met import default_met, mwc
from engine.errors import InvalidMatchError


def test_table_is_complementary():
    pre = default_met().pre_crawford
    np.testing.assert_allclose(pre + pre.T, 1.0, atol=1e-9)
    assert np.allclose(np.diag(pre), 0.5)


def test_table_is_monotone():
    pre = default_met().pre_crawford
    assert np.all(np.diff(pre, axis=0) < 0), "needing more points must lower the MWC"
    assert np.all(np.diff(pre, axis=1) > 0), "the opponent needing more points must raise the MWC"
    assert np.all(np.diff(default_met().post_crawford) <= 0)


@pytest.mark.parametrize(
    "away_me, away_opp, post, expected",
    [
        (1, 2, False, 0.67736),  # Crawford game, leader's view
        (2, 1, False, 0.32264),
        (3, 3, False, 0.5),
        (2, 3, False, 0.59947),
        (2, 1, True, 0.48803),  # post-Crawford trailer at 2-away (the free drop)
        (1, 2, True, 1.0 - 0.48803),
        (1, 1, True, 0.5),
        (3, 1, True, 0.32264),
    ],
)
def test_known_values(away_me, away_opp, post, expected):
    assert mwc(away_me, away_opp, post_crawford=post) == pytest.approx(expected, abs=1e-9)


def test_same_numbers_as_the_shared_file(shared_dir):
    path = shared_dir / "data" / "met_kazaross_xg2.json"
    if not path.exists():
        pytest.skip(f"{path} not found")
    data = json.loads(path.read_text())
    np.testing.assert_array_equal(default_met().pre_crawford, np.array(data["pre_crawford"]))
    np.testing.assert_array_equal(default_met().post_crawford, np.array(data["post_crawford"]))


def test_finished_match():
    assert mwc(0, 5) == 1.0
    assert mwc(-2, 1) == 1.0
    assert mwc(5, 0) == 0.0
    assert mwc(1, -3, post_crawford=True) == 0.0
    with pytest.raises(InvalidMatchError, match="both sides"):
        mwc(0, 0)


def test_out_of_table_and_inconsistent_scores_raise():
    size = default_met().size
    assert mwc(size, size) == pytest.approx(0.5)
    with pytest.raises(InvalidMatchError, match="covers 1 to"):
        mwc(size + 1, 3)
    with pytest.raises(InvalidMatchError, match="post-Crawford needs a side at 1-away"):
        mwc(3, 4, post_crawford=True)
