"""The paired fixture comparison of two bots (benchmarks/fixture_diff.py)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest


from benchmarks.cube import network_decisions, verdicts
from benchmarks.fixture_diff import cube_split, paired_interval, sign_test

from bot.evaluation.checkpoint import load_evaluator  # noqa: E402
from engine import decode_position_id  # noqa: E402
from tests.conftest import load_fixture  # noqa: E402

CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "default.pt"


def test_sign_test_is_the_exact_two_sided_binomial_tail():
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == pytest.approx(2 / 32)  # all five discordant positions one way
    assert sign_test(3, 0) == pytest.approx(0.25)
    assert sign_test(2, 7) == sign_test(7, 2) == pytest.approx(2 * (1 + 9 + 36) / 512)
    assert sign_test(4, 4) == 1.0


def test_paired_interval_is_the_mean_and_its_normal_half_width():
    mean, half_width = paired_interval(np.array([1.0, 2.0, 3.0]))
    assert mean == 2.0
    assert half_width == pytest.approx(1.96 / math.sqrt(3))
    assert paired_interval(np.zeros(300)) == (0.0, 0.0)


def test_cube_split_finds_the_decisions_only_one_bot_gets_right():
    records = load_fixture("cube.jsonl")[:60]
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    baseline = network_decisions(records, boards, load_evaluator(CHECKPOINT), 0, lookahead=True)
    assert cube_split(records, baseline, baseline) == {"double": ([], []), "take": ([], [])}
    # A candidate that answers every double the other way: wrong where the baseline was right, and the reverse,
    # except where GNU Backgammon's take and pass tie (either answer is right there).
    candidate = [dataclasses.replace(d, should_take=not d.should_take) for d in baseline]
    baseline_only, candidate_only = cube_split(records, baseline, candidate)["take"]
    right = [verdicts(r, d)[1] for r, d in zip(records, baseline)]
    tied = [abs(r["double_take"] - r["double_pass"]) <= 1e-5 for r in records]
    assert baseline_only == [row for row in range(60) if right[row] and not tied[row]]
    assert candidate_only == [row for row in range(60) if not right[row]]
    assert len(baseline_only) > 40
    assert cube_split(records, baseline, candidate)["double"] == ([], [])


def test_a_double_worth_no_more_than_playing_on_accepts_either_answer():
    """A race won for sure without gammons: no double, double/pass and the cash are all worth 1 (gnubg calls it too
    good); the doubler loses nothing either way, so either answer counts as right, as a take and a pass that tie do."""
    records = [r for r in load_fixture("cube.jsonl") if r["decision"] == "TOOGOOD_PASS"][:1]
    assert records, "the fixture has a too-good position"
    record = dict(records[0])
    decision = network_decisions(
        [record], np.array([decode_position_id(record["position_id"])]), load_evaluator(CHECKPOINT), 0, lookahead=True
    )[0]
    wrong = dataclasses.replace(decision, should_double=not record["should_double"])
    assert verdicts(record, wrong)[0] is False  # a real too-good position: doubling loses equity
    tied = dict(record, no_double=1.0, double_take=1.9, double_pass=1.0)
    assert verdicts(tied, wrong)[0] is True and verdicts(tied, decision)[0] is True
