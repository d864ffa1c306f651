"""The larger cube fixture's builder (benchmarks/cube_fixture.py): GNU Backgammon's verdicts read right,
the official fixture's answer mix kept, and (with gnubg installed) its answers given back."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import numpy as np
import pytest


from benchmarks.cube_fixture import DEFAULT_OUT, answer_mix, answer_pair, answered, fixture_record, verdict_name

GNUBG = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")


@pytest.mark.parametrize(
    "printed, name",
    [
        ("No double, take (19.1%)", "NODOUBLE_TAKE"),
        ("No redouble, take (3.3%)", "NO_REDOUBLE_TAKE"),
        ("Double, take", "DOUBLE_TAKE"),
        ("Redouble, pass", "REDOUBLE_PASS"),
        ("Too good to double, pass (32.8%)", "TOOGOOD_PASS"),
        ("Too good to redouble, take", "TOOGOODRE_TAKE"),
        ("Optional double, take", "OPTIONAL_DOUBLE_TAKE"),
        ("Optional redouble, pass", "OPTIONAL_REDOUBLE_PASS"),
        ("Never double, take (dead cube)", "NODOUBLE_DEADCUBE"),
    ],
)
def test_gnubg_cube_actions_get_the_fixture_names(printed, name):
    assert verdict_name(printed) == name


def test_an_unknown_cube_action_is_refused_by_name():
    with pytest.raises(ValueError, match="Resign"):
        verdict_name("Resign, pass")


def test_a_fixture_line_says_what_the_bar_scores():
    stub = {
        "position_id": "4HPwATDgc/ABMA",
        "match_length": 0,
        "score": [0, 0],
        "crawford": False,
        "cube": 1,
        "owner": "centered",
    }
    line = fixture_record(stub, (0.95, 1.2, 1.0, "Double, pass"))
    assert (line["decision"], line["should_double"], line["should_take"]) == ("DOUBLE_PASS", True, False)
    line = fixture_record(stub, (1.3, 0.9, 1.0, "Too good to double, take"))
    assert (line["decision"], line["should_double"], line["should_take"]) == ("TOOGOOD_TAKE", False, True)


def test_the_mix_of_answers_follows_the_shares_and_never_repeats_a_line():
    lines = [{"id": i, "should_double": i % 3 == 0, "should_take": i % 2 == 0} for i in range(600)]
    shares = {(True, True): 0.5, (False, False): 0.25, (True, False): 0.125, (False, True): 0.125}
    kept = answer_mix(lines, shares, 160, np.random.default_rng(1))
    assert len(kept) == 160 and len({line["id"] for line in kept}) == 160
    assert Counter(map(answer_pair, kept)) == {
        (True, True): 80,
        (False, False): 40,
        (True, False): 20,
        (False, True): 20,
    }
    # (True, True) has 100 lines: at its share of a half the mix can hold 200 lines, not 1000.
    assert len(answer_mix(lines, shares, 1000, np.random.default_rng(1))) == 200


@pytest.mark.skipif(not DEFAULT_OUT.exists(), reason="no larger cube fixture built")
def test_the_shipped_larger_fixture_has_the_official_answer_mix():
    with open(DEFAULT_OUT) as f:
        lines = [json.loads(line) for line in f]
    shares = {pair: n / len(lines) for pair, n in Counter(map(answer_pair, lines)).items()}
    # fixtures/cube.jsonl's 280 positions where the side may double: 38 double/take, 58 double/pass,
    # 90 no double/take, 94 no double/pass (too good).
    for pair, official in {(True, True): 38, (True, False): 58, (False, True): 90, (False, False): 94}.items():
        assert shares[pair] == pytest.approx(official / 280, abs=1e-3)
    assert len({line["position_id"] for line in lines}) == len(lines)  # distinct positions of the games


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon not installed (apt-get install gnubg)")
def test_gnubg_gives_the_official_fixture_answers_back():
    stubs = [
        {
            "position_id": "4POFAxDYdsQBMA",
            "match_length": 0,
            "score": [0, 0],
            "crawford": False,
            "cube": 1,
            "owner": "centered",
        },
        {
            "position_id": "ic+DMQDB2xkHAA",
            "match_length": 11,
            "score": [3, 3],
            "crawford": False,
            "cube": 4,
            "owner": "me",
        },
        {
            "position_id": "ic+DMQDB2xkHAA",
            "match_length": 0,
            "score": [0, 0],
            "crawford": False,
            "cube": 2,
            "owner": "opp",
        },
    ]  # the opponent owns the cube: no answer
    lines = answered(stubs, GNUBG, 1)
    assert [line["decision"] for line in lines] == ["NODOUBLE_TAKE", "NO_REDOUBLE_TAKE"]
    # fixtures/cube.jsonl: no double +0.56978, double/take +0.55587; +0.48771, +0.40957.
    assert lines[0]["no_double"] == pytest.approx(0.56978, abs=0.01)
    assert lines[1]["double_take"] == pytest.approx(0.40957, abs=0.01)
    assert all(line["should_take"] and not line["should_double"] for line in lines)
