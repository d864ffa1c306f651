"""``nardy play --mat FILE`` in both games, driven through the terminal session's streams as a person plays it: the
games are recorded as a .mat file that ``engine.matfile`` reads back move for move and ``nardy analyze`` analyses,
a long nardy record naming its variant."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from bot.doors.cli import run
from bot.doors.terminal import TerminalSession
from bot.facade import Bot
from engine.matfile import ActionKind, read_mat, replay_game


class MovesPlayer:
    """A person who rolls, takes every double, accepts every resignation and, at each move, asks for the legal plays
    (``moves``) and types one of them; ``quit_after`` moves, leaves (None: plays on)."""

    def __init__(self, screen: io.StringIO, seed: int, quit_after: int | None = None) -> None:
        self.screen, self.rng, self.quit_after = screen, np.random.default_rng(seed), quit_after
        self.listed = False
        self.moves = 0

    def readline(self) -> str:
        lines = self.screen.getvalue().split("\n")
        prompt = lines[-1]
        if prompt.startswith("Your move ("):
            if self.quit_after is not None and self.moves == self.quit_after:
                return "quit\n"
            if not self.listed:
                answer = "moves"
            else:
                answer = str(self.rng.choice(lines[-2].split("  ")))
                self.moves += 1
            self.listed = not self.listed
        else:
            answers = {"roll, double": "roll", "take or pass": "take", "accept or reject": "accept"}
            answer = next((a for start, a in answers.items() if prompt.startswith(start)), "")
            assert answer or prompt.startswith("Play another game"), f"unexpected prompt {prompt!r}"
            answer = answer or "n"
        self.screen.write(answer + "\n")
        return answer + "\n"


@pytest.fixture(scope="module", params=["backgammon", "long"])
def bot(request) -> Bot:
    return Bot.load(variant=request.param)


def _session(bot: Bot, path: Path, length: int, quit_after: int | None = None) -> tuple[str, MovesPlayer]:
    screen = io.StringIO()
    person = MovesPlayer(screen, seed=5, quit_after=quit_after)
    session = TerminalSession(bot, length, np.random.default_rng(11), person, screen, cube=True, mat=path)  # type: ignore[arg-type]
    assert session.run() == 0
    return screen.getvalue(), person


def test_a_match_played_in_the_terminal_is_recorded_and_read_back_move_for_move(bot, tmp_path):
    path = tmp_path / "match.mat"
    shown, person = _session(bot, path, length=1)
    assert f"Recorded in {path}" in shown and "won the match." in shown
    record = read_mat(path, bot.variant.name)
    assert record.variant == bot.variant.name and record.length == 1 and record.players == ("you", "nardy")
    (game,) = record.games
    assert game.winner in (0, 1) and game.points >= 1
    assert record.final_score[game.winner] == game.points
    typed = [a for a in game.actions if a.kind is ActionKind.MOVE and a.player == 0 and a.move]  # not "cannot move"
    assert len(typed) == person.moves > 0
    assert replay_game(game, record.game).over
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert (first == '; [Variation "Long Nardy"]') == (bot.variant.name == "long_nardy")


def test_a_game_left_under_way_is_kept_unfinished_and_nardy_analyze_reads_it(bot, tmp_path):
    path = tmp_path / "left.mat"
    shown, person = _session(bot, path, length=0, quit_after=3)
    assert person.moves == 3 and shown.rstrip().endswith("(money)")
    (game,) = read_mat(path, bot.variant.name).games
    assert game.winner is None and sum(a.player == 0 and bool(a.move) for a in game.actions) == 3
    out, err = io.StringIO(), io.StringIO()
    assert run(["analyze", str(path), "--json", "--plies", "0"], stdout=out, stderr=err) == 0, err.getvalue()
    report = json.loads(out.getvalue())
    assert report["variant"] == bot.variant.name
    assert report["players"][0]["name"] == "you"


def test_nardy_play_mat_writes_the_record_and_refuses_a_folder_it_cannot_write(tmp_path):
    path = tmp_path / "resigned.mat"
    out, err = io.StringIO(), io.StringIO()
    typed = io.StringIO("resign\ny\nn\n")
    assert run(["play", "--variant", "long", "--seed", "3", "--mat", str(path)], typed, out, err) == 0, err.getvalue()
    (game,) = read_mat(path).games
    assert (game.winner, game.points) == (1, 2)  # a mars: the person had borne off nothing
    missing = tmp_path / "no such folder" / "x.mat"
    err = io.StringIO()
    assert run(["play", "--mat", str(missing)], io.StringIO(""), io.StringIO(), err) == 2
    assert err.getvalue() == f"error: --mat {str(missing)!r}: cannot write the record there (its folder " + (
        f"{str(missing.parent)!r} is missing or not writable)\n"
    )
