"""The command line: hint, eval and their errors (run in-process with a tiny checkpoint)."""

from __future__ import annotations

import io
import socket
import subprocess

import pytest
import torch
from threadpoolctl import threadpool_info, threadpool_limits

import bot.__main__
import bot.doors.cli
import bot.doors.match_command
from bot.evaluation.checkpoint import save_checkpoint
from bot.doors.bounds import Bounded
from bot.doors.cli import INFERENCE_THREADS, build_parser, run
from bot.facade import Bot
from bot.evaluation.network import NetworkConfig
from training.torch_network import ValueNetwork
from bot.doors.situation import parse_position
from bot.equity.cube import verdict_words
from conftest import PYTHON_M_BOT
from engine.board import START
from engine.notation import format_play
from engine.plays import legal_plays
from engine.position_id import decode_position_id


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
    assert f"Proper cube action: {verdict_words(decision.verdict)}\n" in out and "_" not in out
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


OUT_OF_BOUNDS = [
    ["rollout", "4HPwATDgc/ABMA", "--seed", "-1"],
    ["rollout", "4HPwATDgc/ABMA", "--trials", "100000000000000000000"],
    ["rollout", "4HPwATDgc/ABMA", "--truncate", "-2"],
    ["rollout", "4HPwATDgc/ABMA", "31", "--candidates", "0"],
    ["rollout", "4HPwATDgc/ABMA", "--plies", "3"],
    ["match", "--games", "0"],
    ["match", "--length", "-1"],
    ["match", "--length", "26"],  # past the match equity table
    ["match", "--seed", "9223372036854775808"],
    ["play", "--length", "100000000"],
    ["play", "--seed", "-5"],
    ["hint", "4HPwATDgc/ABMA", "31", "--top", "100000000000000000000"],
    ["external", "--port", "65536"],
    ["serve", "--port", "-1"],
    ["serve", "--heavy-slots", "0"],
    ["serve", "--max-work", "1000000001"],
]


@pytest.mark.parametrize("argv", OUT_OF_BOUNDS, ids=lambda argv: " ".join(argv[:1] + argv[-2:]))
def test_numbers_out_of_bounds_are_one_error_line_naming_the_option(argv):
    status, out, err = cli(*argv)
    option, value = argv[-2:]
    assert (status, out) == (2, "")
    assert err.startswith(f"error: {option} {value}: expected ") and err.count("\n") == 1


def test_every_numeric_option_has_bounds():
    """Each integer option of every subcommand is ``Bounded`` or has a fixed list of choices."""
    for name, sub in build_parser()._subparsers._group_actions[0].choices.items():
        for action in sub._actions:
            if action.type is int:
                assert isinstance(action, Bounded) or action.choices, f"{name} {action.option_strings}: no bounds"


def test_the_parser_knows_every_subcommand():
    commands = build_parser()._subparsers._group_actions[0].choices
    assert {"play", "match", "hint", "eval", "external", "serve"} <= set(commands)


@pytest.mark.slow
def test_python_dash_m_bot_runs(checkpoint):
    done = subprocess.run(
        [*PYTHON_M_BOT, "hint", "4HPwATDgc/ABMA", "66", "--top", "1", "--checkpoint", checkpoint],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert " 1. " in done.stdout


# ---------------------------------------------------------------- play


class ScriptedPerson(io.StringIO):
    """Stdin for ``play`` that answers each prompt from what the screen shows, like a person.

    It plays the last legal play of its roll (read from the Position ID and the prompt),
    doubles whenever it may, takes every double and rejects resignations. ``first`` holds
    lines to type at the first prompt starting with a given text, before the usual answer.
    """

    def __init__(self, screen: io.StringIO, first: dict[str, list[str]]) -> None:
        super().__init__()
        self.screen, self.first = screen, first

    def readline(self, size: int = -1) -> str:
        shown = self.screen.getvalue()
        prompt = shown.rsplit("\n", 1)[-1]
        for start, lines in self.first.items():
            if prompt.startswith(start) and lines:
                return lines.pop(0) + "\n"
        if prompt.startswith("Your move ("):
            dice = prompt[len("Your move (") :][:2]
            board = decode_position_id(shown.rsplit("Position ID: ", 1)[1][:14])
            return format_play(legal_plays(board, dice)[-1]) + "\n"
        answers = {"roll, double": "double", "take or pass": "take", "accept or reject": "reject"}
        return next(answer for start, answer in answers.items() if prompt.startswith(start)) + "\n"


def test_play_a_match_from_scripted_input(checkpoint):
    screen = io.StringIO()
    person = ScriptedPerson(screen, {"Your move": ["24/1", "hint", "double"], "roll, double": ["hint", "board"]})
    status = run(["play", "--length", "3", "--seed", "5", "--checkpoint", checkpoint], person, screen, io.StringIO())
    shown = screen.getvalue()
    assert status == 0
    assert "Not played: move '24/1'" in shown  # refused with the reason, the position kept
    assert "You have already rolled" in shown
    assert "Equity" in shown and "Proper cube action" in shown  # hints with and without dice
    assert "nardy plays" in shown and "Position ID: " in shown and "pips" in shown
    assert "doubles" in shown or "takes" in shown or "passes" in shown
    assert "won the match." in shown
    final = [line for line in shown.splitlines() if line.startswith("Score:") or " won " in line][-2]
    assert "3-point match" in final


def test_play_ends_politely_at_the_end_of_the_input(checkpoint):
    status, out, err = cli("play", "--seed", "1", "--checkpoint", checkpoint, stdin="help\nboard\n")
    assert status == 0 and err == ""
    assert "Commands:" in out and out.rstrip().splitlines()[-1].startswith("Bye. Score: you 0, nardy 0 (money)")


def test_resignations_are_scored_and_the_crawford_game_follows(checkpoint):
    typed = "resign\nsingle\ny\nresign gammon\ny\n"  # which resignation, then sure
    out = cli("play", "--length", "2", "--seed", "2", "--checkpoint", checkpoint, stdin=typed)[1]
    assert "nardy accepts a single game." in out and "nardy won 1 point. Score: you 0, nardy 1" in out
    assert "New game. Score: you 0, nardy 1 (2-point match, Crawford game)" in out
    assert "nardy accepts a gammon." in out and "nardy won the match." in out


def test_a_busy_port_is_an_error_line(checkpoint):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        status, _, err = cli("external", "--port", port, "--checkpoint", checkpoint)
    assert status == 2 and err.startswith("error: ") and "in use" in err


def test_serve_takes_its_limits_from_the_command_line(monkeypatch, checkpoint):
    import bot.doors.http_app
    from bot.doors.http_limits import Limits

    seen = []
    monkeypatch.setattr(bot.doors.http_app, "serve", lambda bot, host, port, limits: seen.append(limits))
    assert cli("serve", "--checkpoint", checkpoint)[0] == 0
    assert seen == [Limits()]
    argv = ["--max-work", "500", "--heavy-slots", "2", "--heavy-queue", "0", "--heavy-wait", "1", "--work-seconds", "9"]
    assert cli("serve", "--checkpoint", checkpoint, *argv)[0] == 0
    assert seen[1] == Limits(max_work=500, heavy_slots=2, heavy_queue=0, heavy_wait=1.0, work_seconds=9.0)


def _blas_threads() -> int:
    return max(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")


@pytest.mark.parametrize(
    "argv, module, handler",
    [
        (["serve"], bot.doors.cli, "_run_serve"),
        (["external"], bot.doors.cli, "_run_external"),
        (["match"], bot.doors.match_command, "_run_match"),
        (["eval", "4HPwATDgc/ABMA"], bot.doors.cli, "_run_eval"),
    ],
)
def test_every_subcommand_runs_blas_on_the_inference_threads(monkeypatch, argv, module, handler):
    """The process entry (python -m bot, nardy) sets the BLAS threads for every subcommand, then restores them."""
    seen = []
    monkeypatch.setattr(module, handler, lambda args, stdin, stdout: seen.append(_blas_threads()) or 0)
    with threadpool_limits(limits=INFERENCE_THREADS + 1, user_api="blas"):
        before = _blas_threads()
        assert bot.__main__.main(argv) == 0
        assert seen == [INFERENCE_THREADS] and _blas_threads() == before
