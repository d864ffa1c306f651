"""The command line: hint, eval and their errors (run in-process with a tiny checkpoint)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
import torch

from bot.checkpoint import save_checkpoint
from bot.cli import build_parser, run
from bot.facade import Bot
from bot.network import NetworkConfig, ValueNetwork
from bot.positions import parse_position
from engine.board import START


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> str:
    torch.manual_seed(1)
    path = tmp_path_factory.mktemp("cli") / "tiny.pt"
    save_checkpoint(path, ValueNetwork(NetworkConfig(hidden=(8,))))
    return str(path)


def cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(list(argv), io.StringIO(stdin), out, err)
    return status, out.getvalue(), err.getvalue()


def test_hint_with_dice_ranks_the_plays(checkpoint):
    status, out, err = cli("hint", "4HPwATDgc/ABMA", "31", "--top", "3", "--checkpoint", checkpoint)
    assert status == 0 and err == ""
    best = Bot.load(checkpoint).rank_plays(START, (3, 1), top=3)
    rows = [line for line in out.splitlines() if line[:4].strip().rstrip(".").isdigit()]
    assert len(rows) == 3
    for row, ranked in zip(rows, best):
        assert ranked.notation in row and f"{ranked.equity:+.3f}" in row
    assert "Position ID: 4HPwATDgc/ABMA" in out and "money game" in out


def test_hint_takes_the_dice_and_score_from_a_match_id(checkpoint):
    status, out, _ = cli("hint", "sGfwATDgc/ABMA:QYkqASAAIAAA", "--plies", "1", "--checkpoint", checkpoint)
    assert status == 0
    assert "Dice 52" in out and "9-point match, score 4-2" in out and "MWC" in out


def test_hint_without_dice_gives_the_cube_decision(checkpoint):
    status, out, _ = cli("hint", "4HPwATDgc/ABMA", "--checkpoint", checkpoint)
    assert status == 0
    decision = Bot.load(checkpoint).cube_decision(START)
    assert f"Proper cube action: {decision.verdict.value}" in out
    assert f"No double     {decision.no_double:+.3f}" in out


def test_eval_prints_probabilities_and_equities(checkpoint):
    status, out, _ = cli("eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:0:9:10", "--checkpoint", checkpoint)
    assert status == 0
    state = parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:0:9:10").state
    result = Bot.load(checkpoint).evaluate(START, state)
    assert f"Cubeless equity: {result.cubeless_equity:+.3f}" in out
    assert f"Match-winning chance: {result.mwc * 100:.2f}%" in out
    money = cli("eval", "4HPwATDgc/ABMA", "--checkpoint", checkpoint)[1]
    assert "Cubeful equity" in money and "Match-winning" not in money


@pytest.mark.parametrize(
    "argv, named",
    [
        (["hint", "nonsense"], "nonsense"),
        (["hint", "4HPwATDgc/ABMA", "37"], "dice"),
        (["hint", "4HPwATDgc/ABMA", "31", "--top", "0"], "--top 0"),
        (["eval", "4HPwATDgc/ABMA:cAkAAAAAAAA!"], "Match ID"),
        (["eval", "4HPwATDgc/ABMA", "--checkpoint", "/no/such/file.pt"], "no such file"),
    ],
)
def test_bad_input_is_one_error_line_and_status_2(argv, named):
    status, out, err = cli(*argv)
    assert status == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and named in err


def test_the_parser_knows_every_subcommand():
    commands = build_parser()._subparsers._group_actions[0].choices
    assert {"hint", "eval", "external", "serve"} <= set(commands)


def test_python_dash_m_bot_runs(checkpoint):
    done = subprocess.run(
        [sys.executable, "-m", "bot", "hint", "4HPwATDgc/ABMA", "66", "--top", "1", "--checkpoint", checkpoint],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert " 1. " in done.stdout
