"""Race inputs (bot.evaluation.race_features): exact from the one-sided database once a side is home, each
side's columns in its own view, and the encoding that carries them."""

from __future__ import annotations

import numpy as np
import pytest

from bot.evaluation import bearoff
from bot.evaluation.encoding import get_encoding
from bot.evaluation.race_features import AVERAGE_ROLL, RACE_FEATURES, ROLL_SCALE, race_features
from engine import decode_position_id, flip

# A race: the mover has 3 checkers outside home (on its 9, 8 and 8 points) and none off; the opponent
# is home with 10 checkers off.
RACE = np.zeros(26, dtype=np.int8)
RACE[[1, 2, 3, 4, 5, 6]] = [2, 2, 2, 2, 2, 2]
RACE[[8, 9]] = [2, 1]
RACE[[19, 20, 21]] = [-1, -2, -2]
COLUMN = {name: i for i, name in enumerate(RACE_FEATURES)}


def test_a_side_at_home_reads_the_databases_expected_rolls():
    table = bearoff.one_sided(progress=False)
    features = race_features(RACE[None])[0]
    home = np.array([[0, 0, 0, 2, 2, 1]])  # on the mover's 21, 20 and 19: the opponent's 4, 5 and 6 points
    expected = table.mean_rolls()[bearoff.home_index(home)][0] / ROLL_SCALE
    assert features[COLUMN["opponent.race_rolls"]] == np.float32(expected)
    assert features[COLUMN["opponent.race_first_off"]] == 0 and features[COLUMN["opponent.race_none_off"]] == 0


def test_checkers_outside_home_are_brought_to_the_six_point_first():
    table = bearoff.one_sided(progress=False)
    features = race_features(RACE[None])[0]
    pips_to_home = 2 * (8 - 6) + (9 - 6)
    home = np.array([[2, 2, 2, 2, 2, 2 + 3]])
    rolls = pips_to_home / AVERAGE_ROLL + table.mean_rolls()[bearoff.home_index(home)][0]
    assert features[COLUMN["mover.race_rolls"]] == np.float32(rolls / ROLL_SCALE)
    assert features[COLUMN["mover.race_none_off"]] == 1 and features[COLUMN["mover.race_outside"]] == np.float32(3 / 15)
    assert features[COLUMN["mover.race_crossovers"]] == np.float32(3 / 45)
    assert features[COLUMN["race_lead"]] < 0  # the opponent, far ahead, finishes first


def test_each_side_is_seen_in_its_own_view():
    boards = np.array([RACE, decode_position_id("4HPwATDgc/ABMA"), decode_position_id("u7UFUAA5AAAAAA")], dtype=np.int8)
    mine, theirs = race_features(boards), race_features(flip(boards))
    np.testing.assert_array_equal(mine[:, :5], theirs[:, 5:10])
    np.testing.assert_array_equal(mine[:, 5:10], theirs[:, :5])
    np.testing.assert_allclose(mine[:, 10] + theirs[:, 10], 1.0 / ROLL_SCALE, atol=1e-6)  # the half roll twice


def test_the_race_encoding_extends_hits():
    race, hits = get_encoding("race"), get_encoding("hits")
    np.testing.assert_array_equal(race.slot_table, hits.slot_table)
    assert race.global_names[: hits.global_size] == hits.global_names
    boards = np.array([RACE, decode_position_id("4HPwATDgc/ABMA")], dtype=np.int8)
    np.testing.assert_array_equal(race.encode(boards)[:, : hits.size], hits.encode(boards))
    assert race.size == hits.size + len(RACE_FEATURES)


def test_the_compiled_kernel_gives_the_same_columns():
    from bot.evaluation import race_features as module
    from bot.evaluation.compiled import _load

    compiled = _load("race_features")
    if compiled is None:
        pytest.skip("no numba: numpy computes every batch")
    rng = np.random.default_rng(3)
    boards = np.array([RACE, decode_position_id("4HPwATDgc/ABMA"), decode_position_id("u7UFUAA5AAAAAA")], dtype=np.int8)
    boards = np.concatenate([boards, flip(boards)])[rng.permutation(6)]
    out = np.empty((len(boards), len(RACE_FEATURES)), dtype=np.float32)
    all_off, one_off = module._means()
    compiled(boards, bearoff.BINOMIAL, all_off, one_off, AVERAGE_ROLL, out)
    np.testing.assert_array_equal(out, module.numpy_race_features(boards))
