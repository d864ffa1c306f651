"""What people read at the command line: cube verdicts in GNU Backgammon's words, the hint and rollout tables'
headers, ``--help`` and ``--version``."""

from __future__ import annotations

import numpy as np
import pytest

from bot.equity.cube import CubeState, Owner, Verdict, cube_decision, verdict_words


def test_every_verdict_has_gnu_backgammons_words():
    assert {v: verdict_words(v) for v in (Verdict.NODOUBLE_TAKE, Verdict.TOOGOOD_PASS, Verdict.REDOUBLE_PASS)} == {
        Verdict.NODOUBLE_TAKE: "No double, take",
        Verdict.TOOGOOD_PASS: "Too good to double, pass",
        Verdict.REDOUBLE_PASS: "Redouble, pass",
    }
    words = [verdict_words(v) for v in Verdict]
    assert len(set(words)) == len(Verdict) and not any("_" in w for w in words)
    assert verdict_words("DOUBLE_TAKE") == "Double, take"  # the enum name as JSON carries it


@pytest.mark.parametrize(
    "probs, owner, expected",
    [
        ((0.50, 0.10, 0.0, 0.10, 0.0), Owner.CENTERED, "No double, take"),
        ((0.95, 0.60, 0.05, 0.0, 0.0), Owner.CENTERED, "Too good to double, pass"),
        ((0.85, 0.0, 0.0, 0.0, 0.0), Owner.ME, "Redouble, pass"),
    ],
)
def test_a_decision_reads_as_gnu_backgammon_writes_it(probs, owner, expected):
    board = np.zeros(26, dtype=np.int8)
    board[[6, 8, 13, 24]], board[[1, 17, 12, 19]] = [5, 3, 5, 2], [-2, -3, -5, -5]
    decision = cube_decision(board, np.array(probs), CubeState(cube=1 if owner is Owner.CENTERED else 2, owner=owner))
    assert verdict_words(decision.verdict) == expected
