"""nardy analyze over many files: folders and several paths in one run, a summary per player, one error line per
bad file (exit status 2), EMG and MWC both for a match, the progress bar only on a terminal, the HTML boards."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from bot.doors.analyze_command import board_svg, format_html
from bot.doors.cli import run
from bot.doors.progress import ProgressBar
from bot.facade import REPO_CHECKPOINT, Bot
from bot.play.analysis import analyze_match, summary
from engine.matfile import format_mat, parse_mat, read_mat
from test_analysis import session
from test_match_chart import three_point_match

pytestmark = pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason=f"no shipped network at {REPO_CHECKPOINT}")


@pytest.fixture(scope="module")
def bot() -> Bot:
    return Bot.load()


@pytest.fixture
def files(tmp_path):
    """A folder with a money session (Alice, Bob) and a note that is not a match file, and a 3-point match
    (Alice <A&B>, Bob) beside it."""
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / "session.mat").write_text(format_mat(session()))
    (folder / "notes.txt").write_text("not a match\n")
    match = tmp_path / "match.MAT"
    match.write_text(format_mat(three_point_match()))
    return folder, match


def analyse(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return run(["analyze", *argv, "--plies", "0"], stdout=out, stderr=io.StringIO()), out.getvalue()


def test_a_folder_and_a_file_are_analysed_in_one_run_with_a_summary_per_player(files, bot, capsys):
    folder, match = files
    status, text = analyse(str(folder), str(match))
    assert status == 0 and capsys.readouterr().err == ""
    assert text.count("== ") == 2 and f"== {folder / 'session.mat'}" in text and f"== {match}" in text
    assert "notes.txt" not in text  # a folder gives its .mat, .sgf and .xg files
    bob = [line for line in text.splitlines() if line.startswith("Bob ")]
    expected = analyze_match(bot, session()).stats(1) + analyze_match(bot, three_point_match()).stats(1)
    assert len(bob) == 1 and bob[0].split()[1:3] == ["2", str(expected.unforced)]  # matches, unforced moves
    assert "Summary of 2 files" in text


def test_json_gives_each_file_and_the_summary(files, bot):
    folder, match = files
    status, text = analyse(str(folder), str(match), "--json")
    data = json.loads(text)
    assert status == 0 and set(data) == {"plies", "files", "summary"} and data["plies"] == 0
    assert [f["file"] for f in data["files"]] == [str(folder / "session.mat"), str(match)]
    assert [f["analysis"]["length"] for f in data["files"]] == [0, 3]
    players = {p["name"]: p for p in data["summary"]}
    assert set(players) == {"Alice", "Bob", "Alice <A&B>"} and players["Bob"]["matches"] == 2
    unforced = sum(f["analysis"]["players"][1]["checker"]["unforced"] for f in data["files"])
    assert players["Bob"]["checker"]["unforced"] == unforced
    assert "error_total_mwc" not in players["Bob"]["checker"]  # money and match together: EMG only


@pytest.mark.slow
def test_no_prune_scores_every_play_as_the_api_does(bot):
    """``--no-prune`` is ``analyze_match(..., prune=False)``; without it the pruner picks each roll's best plays,
    which moves some values of a recorded match a little."""
    record = Path(__file__).parent / "data" / "gnubg_match3.mat"
    printed = {}
    for flags in ([], ["--no-prune"]):
        out = io.StringIO()
        assert run(["analyze", str(record), "--plies", "1", "--json", *flags], stdout=out, stderr=io.StringIO()) == 0
        values = [d["equities"] for g in json.loads(out.getvalue())["games"] for d in g["decisions"]]
        printed[bool(flags)] = values
    for full in (False, True):
        expected = analyze_match(bot, read_mat(record), 1, prune=not full)
        values = [d.values for g in expected.games for d in g.decisions]
        assert len(values) == len(printed[full])
        for mine, theirs in zip(printed[full], values):
            assert mine == pytest.approx(theirs, abs=1e-5)  # the JSON's six decimals
    assert printed[True] != printed[False]


def test_bad_files_get_one_error_line_each_and_the_others_are_analysed(files, tmp_path, capsys):
    folder, match = files
    bad = tmp_path / "bad.mat"
    bad.write_text("a shopping list\n")
    missing, empty = tmp_path / "missing.mat", tmp_path / "empty"
    empty.mkdir()
    status, text = analyse(str(bad), str(match), str(missing), str(empty), "--json")
    errors = capsys.readouterr().err.splitlines()
    assert status == 2 and len(errors) == 3 and all(line.startswith("error: ") for line in errors)
    assert str(bad) in errors[0] and "line 1" in errors[0]
    assert errors[1] == f"error: {missing}: No such file or directory"
    assert str(empty) in errors[2] and "no .mat" in errors[2]
    data = json.loads(text)
    assert ["error" in f for f in data["files"]] == [True, False, True, True]
    assert "analysis" in data["files"][1]
    assert {p["name"] for p in data["summary"]} == {"Alice <A&B>", "Bob"}


def test_html_and_sgf_take_one_file(files, tmp_path):
    folder, match = files
    err = io.StringIO()
    argv = ["analyze", str(folder), str(match), "--html", str(tmp_path / "r.html")]
    status = run(argv, stdout=io.StringIO(), stderr=err)
    assert status == 2 and "--html and --sgf take one match file" in err.getvalue()
    assert not (tmp_path / "r.html").exists()


def test_no_progress_bar_when_stderr_is_not_a_terminal(files, capsys):
    folder, match = files
    assert analyse(str(folder), str(match))[0] == 0
    assert capsys.readouterr().err == ""


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_draws_on_a_terminal_only():
    screen, pipe = Terminal(), io.StringIO()
    for stream in (screen, pipe):
        bar = ProgressBar(stream, "decision")
        bar.describe("1/2 match.mat")
        bar(3, 8)
        bar.close()
    assert "1/2 match.mat" in screen.getvalue() and "3/8" in screen.getvalue()
    assert pipe.getvalue() == ""


def test_a_match_prints_emg_and_mwc_a_money_session_emg(bot, tmp_path):
    path = tmp_path / "m.mat"
    path.write_text(format_mat(three_point_match()))
    status, text = analyse(str(path))
    rows = [line for line in text.splitlines() if line.startswith("Error total EMG")]
    assert status == 0 and len(rows) == 2
    assert all(line.startswith("Error total EMG (MWC)") for line in rows)
    assert all(len(re.findall(r"\d+\.\d{3} \(\d+\.\d{2}%\)", line)) == 2 for line in rows)
    path.write_text(format_mat(session()))
    money = [line for line in analyse(str(path))[1].splitlines() if line.startswith("Error total")]
    assert len(money) == 2 and not any("MWC" in line or "%" in line for line in money)


def test_mwc_errors_add_up_and_follow_the_emg_ones(bot):
    analysis = analyze_match(bot, parse_mat(format_mat(three_point_match())), plies=0)
    bob = analysis.stats(1)
    moves = [d for d in analysis.decisions() if d.player == 1 and d.kind == "move"]
    assert bob.checker_error_mwc == pytest.approx(sum(d.error_mwc for d in moves))
    blunder = next(d for d in moves if d.mark == "very bad")
    assert 0 < blunder.error_mwc < blunder.error  # a cube of 1 at 3-away: less than half the MWC range
    assert analyze_match(bot, session()).stats(1).checker_error_mwc is None
    total = summary([analysis, analysis])
    assert [p.matches for p in total] == [2, 2] and total[1].unforced == 2 * bob.unforced


def test_the_html_boards_are_drawn_as_the_web_board(bot):
    analysis = analyze_match(bot, parse_mat(format_mat(three_point_match())), plies=0)
    board = board_svg("4HPwATDgc/ABMA", dice=(5, 1), cube=2, cube_owner="me")
    labels = re.findall(r">(\d+)</text>", board)
    assert labels[:24] == [str(p) for p in range(1, 25)] and labels[-1] == "2"  # point numbers, then the cube
    assert board.count('r="4"') == 6  # the dice's pips: five and one
    assert board.count('fill="#fafafa"') == 15 and board.count('fill="#2b2b2b"') == 15
    page = format_html(analysis)
    assert '<table class="stats">' in page and "<pre>" not in page and "width=device-width" in page
    assert "White (bottom, on roll): Bob" in page
