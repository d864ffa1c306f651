"""pubeval against a literal reading of bot/data/pubeval.json on the movegen fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bot.evaluation.evaluator import choose_afterstates
from bot.evaluation.pubeval import Pubeval
from engine import START, afterstates, decode_position_id, flip

from conftest import load_fixture

WEIGHTS = json.loads((Path(__file__).resolve().parents[1] / "bot" / "data" / "pubeval.json").read_text())


def reference_inputs(board: list[int]) -> list[float]:
    """The 122 inputs exactly as the JSON describes them, one position at a time."""
    x = [0.0] * 122
    for p in range(1, 25):
        n = board[p]
        base = 5 * (24 - p)
        if n == -1:
            x[base] = 1.0
        if n == 1:
            x[base + 1] = 1.0
        if n >= 2:
            x[base + 2] = 1.0
        if n == 3:
            x[base + 3] = 1.0
        if n >= 4:
            x[base + 4] = (n - 3) / 2.0
    x[120] = -board[0] / 2.0
    x[121] = (15 - sum(n for n in board if n > 0)) / 15.0
    return x


def reference_race(board: list[int]) -> bool:
    """No contact: the mover's rearmost checker is below the opponent's rearmost one."""
    mover = max([p for p in range(26) if board[p] > 0], default=0)
    opponent = min([p for p in range(26) if board[p] < 0], default=25)
    return mover < opponent


def reference_score(before: list[int], after: list[int]) -> float:
    if sum(n for n in after if n > 0) == 0:
        return float("inf")
    weights = WEIGHTS["race"] if reference_race(before) else WEIGHTS["contact"]
    return sum(w * x for w, x in zip(weights, reference_inputs(after)))


def fixture_cases():
    for record in load_fixture("movegen.jsonl"):
        if record["afterstates"]:
            board = decode_position_id(record["position_id"])
            children = np.stack([flip(decode_position_id(a)) for a in record["afterstates"]])
            yield record, board, children


@pytest.mark.slow
def test_scores_match_the_reference_on_every_fixture():
    pubeval = Pubeval()
    checked = 0
    races = 0
    for record, board, children in fixture_cases():
        scores = pubeval.afterstate_scores(board[None], children, np.zeros(len(children), dtype=np.int64))
        expected = [reference_score(board.tolist(), c.tolist()) for c in children]
        np.testing.assert_allclose(scores, expected, rtol=1e-9, atol=1e-9, err_msg=record["position_id"])
        checked += 1
        races += reference_race(board.tolist())
    assert checked > 2000 and races > 100


@pytest.mark.slow
def test_batched_choice_is_the_reference_best_play():
    pubeval = Pubeval()
    cases = list(fixture_cases())
    boards = np.stack([board for _, board, _ in cases])
    dice = np.array([record["dice"] for record, _, _ in cases])
    chosen = choose_afterstates(pubeval, boards, dice)
    for (record, board, children), play in zip(cases, chosen):
        expected = [reference_score(board.tolist(), c.tolist()) for c in children]
        assert any((play == c).all() for c in children), record["position_id"]
        assert reference_score(board.tolist(), play.tolist()) == pytest.approx(max(expected)), record["position_id"]


def test_opening_31_makes_the_five_point():
    chosen = choose_afterstates(Pubeval(), START[None], np.array([[3, 1]]))[0]
    assert chosen[5] == 2 and chosen[8] == 2 and chosen[6] == 4


def test_bad_weights_are_rejected():
    with pytest.raises(ValueError, match="contact"):
        Pubeval({"race": [0.0] * 122, "contact": [0.0] * 121})


def test_finished_afterstates_score_best():
    board = np.zeros(26, dtype=np.int8)
    board[1], board[2], board[24] = 1, 1, -15
    children, parent = afterstates(board[None], np.array([[2, 1]]))
    scores = Pubeval().afterstate_scores(board[None], children, parent)
    assert np.isinf(scores).sum() == 1 and (children[np.argmax(scores)] <= 0).all()
