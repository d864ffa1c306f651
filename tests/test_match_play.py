"""Matches between computer players: cube, Crawford and post-Crawford, scoring, .mat files, the command."""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess

import numpy as np
import pytest
import torch

from bot.evaluation.checkpoint import save_checkpoint
from bot.doors.cli import inference_threads
from bot.equity.cube import CubeState, Owner
from bot.evaluation.evaluator import NetworkEvaluator
from bot.facade import Bot
from bot.play.match_play import (
    BotPlayer,
    PubevalPlayer,
    play_game,
    play_match,
    pubeval_probabilities,
    summarize,
)
from bot.doors.match_command import add_match
from bot.evaluation.network import NetworkConfig
from training.torch_network import ValueNetwork
from engine.board import START
from engine.errors import IllegalMoveError, InvalidMatchError
from engine.match import MatchState, Outcome, game_outcome, game_result_points
from engine.matfile import ActionKind, MatMatch, format_mat, parse_mat, read_mat, replay_game, write_mat
from engine.plays import legal_plays

TINY = NetworkConfig(hidden=(4,))


class FixedCube(PubevalPlayer):
    """pubeval's moves with a fixed cube policy: always or never double, always or never take."""

    def __init__(self, name: str, doubles: bool, takes: bool) -> None:
        super().__init__(name)
        self.doubles, self.takes = doubles, takes

    def should_double(self, board, state) -> bool:
        return self.doubles

    def should_take(self, board, state) -> bool:
        return self.takes


@pytest.fixture(autouse=True)
def _one_thread():
    with inference_threads():
        yield


def _tiny_bot(name: str = "tiny") -> Bot:
    torch.manual_seed(0)
    return Bot(NetworkEvaluator(ValueNetwork(TINY).eval()), name=name)


def _doubles(game):
    return [a for a in game.record.actions if a.kind is ActionKind.DOUBLE]


def _check_recorded(match) -> MatMatch:
    """The record survives a .mat round trip; every game replays legally and scores as the rules say."""
    record = match.record()
    assert parse_mat(format_mat(record)) == record
    assert record.final_score == match.state.score
    for game in match.games:
        replay = replay_game(game.record)
        assert replay.over and replay.cube == game.cube
        if game.outcome is None:  # a pass: the doubler wins the cube before the double
            assert game.record.actions[-1].kind is ActionKind.DROP
            assert game.record.points == game.cube and game.record.winner == game.record.actions[-2].player
        else:
            assert game.outcome == game_outcome(replay.board)
    return record


@pytest.mark.parametrize("seed", range(4))
def test_crawford_and_post_crawford_games(seed):
    """Both sides double at every chance and pass every double: each game is worth 1 point,
    except the Crawford game, where nobody may double; after it only the trailer doubles."""
    players = (FixedCube("a", doubles=True, takes=False), FixedCube("b", doubles=True, takes=False))
    match = play_match(players, 3, np.random.default_rng(seed))
    assert match.state.is_over
    _check_recorded(match)
    crawford_seen = False
    for game in match.games:
        score = game.record.score
        at_two = 2 in score
        assert game.crawford == (at_two and not crawford_seen)
        if game.crawford:
            crawford_seen = True
            assert not _doubles(game) and game.outcome is not None
        elif at_two:  # post-Crawford: the leader never doubles, the trailer at once
            assert all(score[a.player] < 2 for a in _doubles(game))
            assert bool(_doubles(game)) == (score != (2, 2))
        else:
            assert game.outcome is None and game.record.points == 1
    assert crawford_seen


def test_scoring_with_cube_and_gammons():
    """Both sides double at every chance and take: the cube climbs; points = outcome x cube."""
    players = (FixedCube("a", doubles=True, takes=True), FixedCube("b", doubles=True, takes=True))
    match = play_match(players, 0, np.random.default_rng(3), games=4)
    _check_recorded(match)
    for game in match.games:
        assert game.cube == 2 ** len(_doubles(game)) and game.cube >= 4
        assert game.record.points == int(game.outcome) * game.cube
        assert game.record.points == game_result_points(replay_game(game.record).board, game.cube)


@pytest.mark.slow
def test_jacoby_rule_counts_gammons_single_with_a_centred_cube():
    players = (FixedCube("a", doubles=False, takes=True), FixedCube("b", doubles=False, takes=True))
    plain = play_match(players, 0, np.random.default_rng(1), games=8)
    jacoby = play_match(players, 0, np.random.default_rng(1), games=8, jacoby=True)
    outcomes = [g.outcome for g in plain.games]
    assert Outcome.GAMMON in outcomes  # the seed gives at least one gammon
    assert [g.outcome for g in jacoby.games] == outcomes  # the same dice and plays
    assert [g.record.points for g in plain.games] == [int(o) for o in outcomes]
    assert [g.record.points for g in jacoby.games] == [1] * len(outcomes)


def test_bot_against_pubeval_match():
    """The network bot's cube decisions (bot.equity.cube) against pubeval's rule, a whole 3-point match."""
    match = play_match((BotPlayer(_tiny_bot()), PubevalPlayer()), 3, np.random.default_rng(0))
    assert match.state.is_over and match.names == ("tiny", "pubeval")
    _check_recorded(match)
    summary = summarize([match])
    assert summary.games == len(match.games) == sum(summary.games_won)
    assert summary.points == match.state.score
    assert sum(summary.matches_won) == 1
    assert sum(summary.takes) + sum(summary.drops) == sum(summary.doubles)


def _race(opponent: dict[int, int]) -> np.ndarray:
    """A race: 5 checkers each on my 6, 5 and 4 points (75 pips), the opponent's as given (point: count)."""
    board = np.zeros(26, dtype=np.int8)
    board[[6, 5, 4]] = 5
    for point, count in opponent.items():
        board[point] = -count
    return board


def test_pubeval_cube_rule():
    """A race seen by pip counts: about the 8-9-12 rule of thumb (double at 8% ahead, pass past 12%)."""
    on_roll = pubeval_probabilities(START)
    assert 0.5 < on_roll[0] < 0.6 and not on_roll[1:].any()
    player, money = PubevalPlayer(), CubeState()
    far_ahead = _race({17: 5, 18: 5, 19: 5})  # 75 pips against 105
    assert pubeval_probabilities(far_ahead)[0] > 0.9
    assert player.should_double(far_ahead, money) and not player.should_take(far_ahead, money)
    ahead = _race({16: 2, 19: 3, 20: 5, 21: 5})  # against 81
    assert player.should_double(ahead, money) and player.should_take(ahead, money)
    assert not player.should_double(ahead, CubeState(cube=2, owner=Owner.OPP))
    close = _race({19: 6, 20: 5, 21: 4})  # against 77
    assert not player.should_double(close, money) and player.should_take(close, money)


def test_an_illegal_choice_is_refused():
    class Cheater(PubevalPlayer):
        def choose_play(self, board, dice, state):
            return legal_plays(START, (6, 6))[0]  # a play of another roll

    with pytest.raises(IllegalMoveError, match="cheat chose"):
        play_game((Cheater("cheat"), Cheater("cheat2")), MatchState(), np.random.default_rng(0))


def test_bad_match_settings():
    players = (PubevalPlayer("a"), PubevalPlayer("b"))
    with pytest.raises(InvalidMatchError, match="Jacoby"):
        play_match(players, 3, np.random.default_rng(0), jacoby=True)
    with pytest.raises(InvalidMatchError, match="money session of 0 games"):
        play_match(players, 0, np.random.default_rng(0), games=0)


# ---------------------------------------------------------------- the command


def _run(argv: list[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    add_match(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["match", *argv])
    out = io.StringIO()
    return args.run(args, io.StringIO(), out), out.getvalue()


@pytest.fixture
def tiny_checkpoint(tmp_path):
    torch.manual_seed(0)
    path = tmp_path / "tiny.pt"
    save_checkpoint(path, ValueNetwork(TINY))
    return path


def test_match_command_writes_an_importable_match(tmp_path, tiny_checkpoint):
    mat = tmp_path / "m.mat"
    code, out = _run(
        [
            "--length",
            "3",
            "--opponent",
            "pubeval",
            "--seed",
            "4",
            "--mat",
            str(mat),
            "--checkpoint",
            str(tiny_checkpoint),
        ]
    )
    assert code == 0
    record = read_mat(mat)
    (a, b), (x, y) = record.players, record.final_score
    assert (a, b) == ("tiny", "pubeval") and max(x, y) >= 3
    assert f"3-point match: tiny {x}, pubeval {y}" in out
    assert re.search(rf"Games won\s+{sum(g.winner == 0 for g in record.games)}\s+", out)
    for label in ("Doubles", "Takes", "Drops", "Gammons won"):
        assert label in out
    # The same seed plays the same match.
    assert (
        _run(["--length", "3", "--opponent", "pubeval", "--seed", "4", "--checkpoint", str(tiny_checkpoint)])[
            1
        ].splitlines()[1]
        == out.splitlines()[1].split(" (written")[0]
    )


@pytest.mark.slow
def test_money_session_and_several_matches(tmp_path, tiny_checkpoint):
    mat = tmp_path / "s.mat"
    code, out = _run(
        ["--length", "0", "--games", "2", "--seed", "1", "--mat", str(mat), "--checkpoint", str(tiny_checkpoint)]
    )  # --opponent self
    record = read_mat(mat)
    assert code == 0 and record.length == 0 and len(record.games) == 2
    assert record.players == ("tiny", "tiny-2")
    assert "Money session, 2 games" in out
    code, out = _run(
        [
            "--length",
            "1",
            "--games",
            "2",
            "--opponent",
            str(tiny_checkpoint),
            "--seed",
            "1",
            "--mat",
            str(tmp_path / "m.mat"),
            "--checkpoint",
            str(tiny_checkpoint),
        ]
    )
    records = [read_mat(tmp_path / f"m-{k}.mat") for k in (1, 2)]
    assert [(r.length, r.players) for r in records] == [(1, ("tiny", "tiny-2"))] * 2
    assert "2 matches" in out and re.search(r"Matches won\s+(\d+)\s+(\d+)", out)


def test_match_command_bad_input(tiny_checkpoint):
    with pytest.raises(ValueError, match="--games 0"):
        _run(["--games", "0", "--checkpoint", str(tiny_checkpoint)])
    with pytest.raises(ValueError, match="--jacoby"):
        _run(["--length", "3", "--jacoby", "--checkpoint", str(tiny_checkpoint)])


# ---------------------------------------------------------------- GNU Backgammon reads our files

GNUBG = shutil.which("gnubg") or shutil.which("/usr/games/gnubg")


def _steps(game):
    """A game's actions with each move as a sorted list of steps (gnubg orders them its own way)."""
    return [(a.player, a.kind, a.dice, a.cube, sorted(a.move.split())) for a in game.actions]


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
@pytest.mark.parametrize("length, games", [(3, 1), (0, 3)])
def test_gnubg_imports_every_game(tmp_path, length, games):
    """gnubg imports our .mat file, scores it as we do, and exports the same games back."""
    players = (PubevalPlayer("left"), PubevalPlayer("right"))
    record = play_match(players, length, np.random.default_rng(7), games=games).record()
    ours, theirs = tmp_path / "ours.mat", tmp_path / "theirs.mat"
    write_mat(record, ours)
    script = f"set jacoby off\nimport mat {ours}\nshow score\nexport match mat {theirs}\n"
    result = subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True, text=True, timeout=120)
    assert "WARNING" not in result.stdout and "Unrecognised" not in result.stdout
    x, y = record.final_score
    assert f"after {len(record.games)} game" in result.stdout and f"left {x}, right {y}" in result.stdout
    exported = read_mat(theirs)
    assert (exported.length, exported.players) == (record.length, record.players)
    assert [(g.score, g.winner, g.points) for g in exported.games] == [
        (g.score, g.winner, g.points) for g in record.games
    ]
    assert [_steps(g) for g in exported.games] == [_steps(g) for g in record.games]
