"""The cube benchmark's report (benchmarks/cube.py): the by-class line accounts for every take miss."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np

from benchmarks.cube import network_decisions, report_classes, run
from bot.evaluation.checkpoint import load_evaluator
from bot.evaluation.classes import classify
from engine import decode_position_id
from tests.conftest import load_fixture

CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "default.pt"


def test_the_classes_take_misses_add_up_to_the_whole(capsys):
    records = load_fixture("cube.jsonl")[:120]
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    decisions = network_decisions(records, boards, load_evaluator(CHECKPOINT), 0, lookahead=True)
    wrong_takes = [dataclasses.replace(d, should_take=not d.should_take) for d in decisions]
    report_classes(records, wrong_takes, classify(boards))
    line = capsys.readouterr().out
    cells = re.findall(r"(\w+) \((\d+)\) [\d.]+% / [\d.]+% \((\d+)\)", line)
    assert sum(int(size) for _, size, _ in cells) == len(records)
    assert sum(int(misses) for _, _, misses in cells) == run(records, wrong_takes)["take_misses"] > 60
