"""Match analysis (bot.play.analysis, nardy analyze): blunders marked, counts, damaged files, the JSON shape."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bot.play.analysis import BAD, DOUBTFUL, VERY_BAD, analyze_match, mark_of
from bot.doors.analyze_command import board_svg, format_html
from bot.doors.cli import run
from bot.facade import Bot
from engine.matfile import InvalidMatFileError, MatAction, MatGame, MatMatch, format_mat, parse_mat, read_mat

DATA = Path(__file__).parent / "data"
M, D, T, P = MatAction.of_move, MatAction.of_double, MatAction.of_take, MatAction.of_drop


def session() -> MatMatch:
    """Three money games: Alice's opening 61 played 8/7 8/2 and Bob's drop of a far-too-early double are
    blunders; game 2 has an illegal move by Bob (31 played 8/4 6/5); game 3 is ordinary."""
    games = (
        MatGame((0, 0), (M(0, (6, 1), "8/7 8/2"), M(1, (4, 2), "8/4 6/4"), D(0, 2), P(1)), winner=0, points=1),
        MatGame((1, 0), (M(0, (3, 1), "8/5 6/5"), M(1, (3, 1), "8/4 6/5")), winner=1, points=1),
        MatGame(
            (1, 1),
            (M(1, (3, 1), "8/5 6/5"), M(0, (5, 2), "13/8 13/11"), D(1, 2), T(0), M(1, (2, 1), "13/11 6/5")),
            winner=1,
            points=2,
        ),
    )
    return MatMatch(0, ("Alice", "Bob"), games)


@pytest.fixture(scope="module")
def bot() -> Bot:
    return Bot.load()


@pytest.fixture(scope="module")
def analysis(bot):
    return analyze_match(bot, parse_mat(format_mat(session())), plies=0)


def test_marks_follow_gnubgs_thresholds():
    assert mark_of(0.0) is None and mark_of(DOUBTFUL - 0.001) is None
    assert mark_of(DOUBTFUL) == "doubtful" and mark_of(BAD) == "bad" and mark_of(VERY_BAD + 0.5) == "very bad"


def test_an_obvious_blunder_is_marked_very_bad(analysis):
    opening = analysis.games[0].decisions[0]
    assert (opening.player, opening.kind, opening.played) == (0, "move", "8/7 8/2")
    assert opening.best == "13/7 8/7" and opening.mark == "very bad" and opening.error >= VERY_BAD
    drop = [d for d in analysis.games[0].decisions if d.kind == "take"][0]
    assert (drop.player, drop.played, drop.best, drop.mark) == (1, "pass", "take", "very bad")
    assert analysis.stats(1).wrong_passes == 1 and analysis.stats(0).marked["very_bad"] >= 1


def test_unforced_moves_and_cube_decisions_are_counted(analysis):
    alice, bob = analysis.stats(0), analysis.stats(1)
    assert (alice.moves, alice.unforced) == (3, 3)
    assert (bob.moves, bob.unforced) == (3, 3)  # game 2's illegal move is not analysed
    assert alice.doubles == 1 and bob.doubles == 1 and alice.takes == 1 and bob.passes == 1


def test_an_illegal_move_stops_only_its_game(analysis):
    stopped = analysis.games[1].stopped
    assert stopped and "game 2, action 2" in stopped and "Bob" in stopped and "8/4 6/5" in stopped
    assert analysis.games[0].stopped is None and analysis.games[2].stopped is None
    assert [d.kind for d in analysis.games[2].decisions if d.kind == "move"] == ["move"] * 3


def test_a_damaged_file_names_the_line(tmp_path):
    text = format_mat(session()).replace("13/8 13/11", "13/8 13/11").splitlines()
    text[5] = "  3) 7x: 8/5"
    path = tmp_path / "bad.mat"
    path.write_text("\n".join(text) + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert run(["analyze", str(path)], stdout=out, stderr=err) == 2
    assert "line 6" in err.getvalue() and "7x" in err.getvalue()
    with pytest.raises(InvalidMatFileError, match="line 6"):
        parse_mat("\n".join(text))


def test_json_shape(tmp_path):
    path = tmp_path / "s.mat"
    path.write_text(format_mat(session()))
    out = io.StringIO()
    assert run(["analyze", str(path), "--json"], stdout=out, stderr=io.StringIO()) == 0
    data = json.loads(out.getvalue())
    assert [p["name"] for p in data["players"]] == ["Alice", "Bob"]
    player = data["players"][0]
    assert set(player) == {"name", "checker", "cube", "overall", "pr", "luck_rate_memg"}
    assert set(player["checker"]) == {"unforced", "error_total_emg", "error_rate_memg", "marked"}
    assert set(player["checker"]["marked"]) == {"doubtful", "bad", "very_bad"}
    assert set(player["cube"]) == {
        "decisions",
        "close",
        "error_total_emg",
        "error_rate_memg",
        "missed_doubles",
        "wrong_doubles",
        "wrong_takes",
        "wrong_passes",
    }
    assert set(player["overall"]) == {"error_rate_memg"}
    decision = data["games"][0]["decisions"][0]
    assert {"position_id", "match_id", "dice", "played", "best", "error", "mark"} <= set(decision)
    assert decision["position_id"] == "4HPwATDgc/ABMA" and decision["dice"] == [6, 1]


def test_html_page_draws_each_marked_decision(analysis, tmp_path):
    page = format_html(analysis)
    marked = sum(1 for d in analysis.decisions() if d.mark)
    assert page.count("<svg") == marked + 1 and marked >= 2  # and the match's chart
    assert board_svg("4HPwATDgc/ABMA").count("<circle") == 30  # no stack over 5 at the start


def test_match_play_errors_are_in_emg(bot):
    match = MatMatch(3, ("A", "B"), (MatGame((0, 0), (M(0, (6, 1), "8/7 8/2"), M(1, (4, 2), "8/4 6/4"))),))
    first = analyze_match(bot, match).games[0].decisions[0]
    assert first.mark is not None and first.best == "13/7 8/7" and first.match_id != ""


@pytest.mark.slow
def test_pruned_analysis_judges_as_the_full_search_does(bot):
    """Pruning (the bot's pruner picking each roll's best plays, as rollouts do) changes a 1-ply analysis of a whole
    recorded match by no more than a few close calls."""
    match = read_mat(DATA / "gnubg_match3.mat")
    pruned, full = (analyze_match(bot, match, 1, prune=prune) for prune in (True, False))
    decisions = [(a, b) for g, h in zip(pruned.games, full.games) for a, b in zip(g.decisions, h.decisions)]
    assert len(decisions) > 100
    assert sum(a.best != b.best for a, b in decisions) <= 0.02 * len(decisions)
    assert max(abs(a.error - b.error) for a, b in decisions) < 0.05
    assert max(abs(a.luck - b.luck) for a, b in decisions if a.kind == "move") < 0.05
