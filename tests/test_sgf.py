"""GNU Backgammon .sgf files (engine.sgf, engine.matchfiles): read from real gnubg-written files, written back
so that gnubg loads them, dispatched by content, analysed by `nardy analyze`, `POST /v1/analyze`.

The files in tests/data were written by GNU Backgammon 1.07 (Debian's gnubg, `gnubg -t`):
- gnubg_match3.sgf: a 3-point match gnubg played against itself (with 0.08 chequer-play noise), imported
  from its own .mat export (gnubg_match3.mat), game 1 then analysed by gnubg (`analyse game`: its A, DA,
  LU, BM properties); a double dropped, two games resigned, the Crawford game;
- gnubg_money.sgf (and gnubg_money.mat): a money session of three games under the Jacoby rule;
- gnubg_crawford_game.sgf: gnubg's `save game` of that match's last game alone, the Crawford game (score 2-1);
- gnubg_setup.sgf: a money game from a set-up position (`set board`, `set turn 1`, `set cube value 2`,
  `set cube owner 0`), played on by gnubg: a redouble dropped.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from bot.play.analysis import MatchAnalysis, analyze_match
from bot.doors.cli import run
from bot.doors.sgf_export import analysed_sgf, analysis_notes
from bot.facade import Bot
from engine.game import Game, GameResult
from engine.match import MatchState
from engine.matchfiles import FileKind, kind_of, read_match, read_records, read_records_file
from engine.matfile import ActionKind, InvalidMatFileError, MatMatch, game_at_start, read_mat, replay_game
from engine.notation import parse_move
from engine.sgf import InvalidSgfError, SgfNote, format_sgf, parse_sgf, read_sgf

DATA = Path(__file__).parent / "data"
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)


def afterstates(match: MatMatch) -> list[list[tuple]]:
    """Per game, each action as (player, kind, dice, the board after it seen by player 0): the same games whatever
    the notation of their moves."""
    out = []
    for record in match.games:
        state: Game | GameResult = game_at_start(record, MatchState(score=record.score))
        seq = []
        for action in record.actions:
            assert isinstance(state, Game)
            if action.kind is ActionKind.MOVE:
                assert action.dice is not None
                if state.dice is None:
                    state = state.roll(action.dice)
                state = state.move(parse_move(action.move, state.board, action.dice))
            elif action.kind is ActionKind.DOUBLE:
                state = state.double()
            else:
                state = state.take() if action.kind is ActionKind.TAKE else state.drop()
            if isinstance(state, GameResult):
                board = state.position.board if state.winner == 0 else state.position.flipped().board
            else:
                board = state.board if state.turn == 0 else state.position.flipped().board
            seq.append((action.player, action.kind, action.dice, tuple(int(x) for x in board)))
        out.append(seq)
    return out


def test_a_gnubg_match_reads_as_its_own_mat_export():
    sgf, mat = read_sgf(DATA / "gnubg_match3.sgf"), read_mat(DATA / "gnubg_match3.mat")
    assert sgf.length == 3 and sgf.players == mat.players == ("gnubg", "root")
    assert [(g.score, g.winner, g.points) for g in sgf.games] == [(g.score, g.winner, g.points) for g in mat.games]
    assert afterstates(sgf) == afterstates(mat)
    kinds = [a.kind for g in sgf.games for a in g.actions]
    assert ActionKind.DROP in kinds and ActionKind.TAKE in kinds


def test_resignations_end_games_without_a_finish():
    match = read_sgf(DATA / "gnubg_match3.sgf")
    # RE[B+1] after a drop; RE[W+2R] and RE[B+2R]: resigned, the game not played out.
    assert [replay_game(g).over for g in match.games] == [True, False, False]
    assert [(g.winner, g.points) for g in match.games] == [(1, 1), (0, 2), (1, 2)]


def test_a_money_session_keeps_the_jacoby_rule():
    sgf, mat = read_sgf(DATA / "gnubg_money.sgf"), read_mat(DATA / "gnubg_money.mat")
    assert sgf.length == 0 and sgf.jacoby and not mat.jacoby
    assert afterstates(sgf) == afterstates(mat)


def test_a_set_up_position_and_its_cube_are_read():
    match = read_sgf(DATA / "gnubg_setup.sgf")
    (game,) = match.games
    assert game.setup is not None
    # gnubg was given `set turn 1`, `set board 2OsBAAD0jwEAAA` (the side on roll's view), cube 2 owned by player 0.
    assert (game.setup.position.id, game.setup.turn, game.setup.cube, game.setup.cube_owner) == (
        "2OsBAAD0jwEAAA",
        1,
        2,
        0,
    )
    assert [a.kind for a in game.actions] == [ActionKind.MOVE, ActionKind.DOUBLE, ActionKind.DROP]
    assert game.actions[1].cube == 4 and (game.winner, game.points) == (0, 2)
    assert replay_game(game).over


def test_the_format_comes_from_the_content():
    sgf_text = (DATA / "gnubg_money.sgf").read_text()
    assert kind_of(sgf_text) is FileKind.SGF and kind_of((DATA / "gnubg_money.mat").read_text()) is FileKind.MAT
    assert kind_of("# mine\n4HPwATDgc/ABMA\n") is FileKind.POSITIONS
    assert read_match(sgf_text) == parse_sgf(sgf_text)
    positions = read_records("4HPwATDgc/ABMA\n\nXGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10\n")
    assert isinstance(positions, list) and [p.line for p in positions] == [1, 3] and positions[1].setup.dice == (5, 2)
    with pytest.raises(InvalidMatFileError, match="a list of positions, not a match"):
        read_match("4HPwATDgc/ABMA\n")


@pytest.mark.parametrize(
    "text, message",
    [
        ("(;FF[4]GM[6]MI[length:3]RU[Crawford]\n;W[52mhmk]\n;B[31", "line 3: a property value"),
        ("(;FF[4]GM[1]SZ[19];B[pd])", "line 1: GM.*not backgammon"),
        ("(;FF[4]GM[6]MI[length:3]RU[Crawford]\n;W[52mh]\n;B[7xab])", "line 3: cannot read the move '7xab'"),
        ("(;FF[4]GM[6]MI[length:3]RU[Crawford]\n;W[52mhzk])", "line 2: 'zk' in '52mhzk' is not a checker step"),
        ("(;FF[4]GM[6]MI[length:5]\n;W[52mhmk])", "line 1: a match without the Crawford rule"),
        ("(;FF[4]GM[6]MI[length:0]RU[Nackgammon])", "line 1: RU.Nackgammon.: only standard backgammon"),
        ("(;FF[4]GM[6]MI[length:0]RE[X+1])", "line 1: RE.'X.1'.: expected"),
        (
            "(;FF[4]GM[6]MI[length:0]\n;W[52mhmk]\n;AB[a])",
            "line 3: AB changes the position after the game's first action",
        ),
        (
            "(;FF[4]GM[6]MI[length:0]\n;PL[W]AE[a:y]AW[a][a]AB[a])",
            "line 2: the setup puts both players' checkers on one point",
        ),
        (
            "(;FF[4]GM[6]MI[length:3]RU[Crawford])\n(;FF[4]GM[6]MI[length:5]RU[Crawford])",
            "line 2: a 5-point game in a 3-point",
        ),
        ("(;FF[4]GM[6]) trailing", "expected '\\(' to start a game tree"),
    ],
)
def test_a_damaged_sgf_is_one_error_naming_the_line(text, message):
    with pytest.raises(InvalidSgfError, match=message) as caught:
        parse_sgf(text, "x.sgf")
    assert str(caught.value).startswith("x.sgf")


def test_an_illegal_recorded_move_is_found_on_replay():
    match = parse_sgf("(;FF[4]GM[6]MI[length:0]\n;W[52mhmh])")  # 13/8 13/8 with 52
    with pytest.raises(InvalidMatFileError, match="game action 1"):
        replay_game(match.games[0])


@pytest.mark.slow
def test_the_writer_round_trips_through_the_reader():
    for name in ("gnubg_match3.sgf", "gnubg_money.sgf", "gnubg_setup.sgf"):
        match = read_sgf(DATA / name)
        again = parse_sgf(format_sgf(match))
        assert again.length == match.length and again.players == match.players and again.jacoby == match.jacoby
        assert [(g.score, g.winner, g.points, g.setup) for g in again.games] == [
            (g.score, g.winner, g.points, g.setup) for g in match.games
        ]
        assert afterstates(again) == afterstates(match)


def test_notes_are_written_as_gnubgs_properties():
    match = read_sgf(DATA / "gnubg_setup.sgf")
    text = format_sgf(
        match,
        {
            (0, 0): SgfNote(skill="bad", luck=0.7, comment="x] y"),
            (0, 1): SgfNote(skill="doubtful"),
            (0, 2): SgfNote(skill="very bad"),
        },
    )
    lines = text.splitlines()
    assert lines[0].startswith(
        "(;FF[4]GM[6]CA[UTF-8]AP[nardy]MI[length:0][game:0][ws:0][bs:0]PW[gnubg]PB[root]RU[Jacoby]RE[W+2]"
    )
    # the setup node exactly as gnubg wrote it
    assert lines[1] == ";PL[B]AE[a:y]AW[d][d][e][e][e][e][f][g][g][g][g]AB[r][q][q][q][q][q][q][q][q][n][n]"
    assert lines[1] in (DATA / "gnubg_setup.sgf").read_text().splitlines()
    assert lines[2:4] == [";CV[2]", ";CP[w]"]
    assert lines[4] == ";B[32qtqs]LU[0.70000]GB[2]BM[1]C[x\\] y]"
    assert lines[5:] == [";W[double]DO[]", ";B[drop]BM[2])"]


@pytest.fixture(scope="module")
def bot() -> Bot:
    return Bot.load()


@pytest.fixture(scope="module")
def match3(bot) -> tuple[MatMatch, MatchAnalysis]:
    """GNU Backgammon's 3-point match read from its .sgf, and its 0-ply analysis (shared: seconds to compute)."""
    match = read_sgf(DATA / "gnubg_match3.sgf")
    return match, analyze_match(bot, match, 0)


@pytest.mark.slow
def test_an_sgf_and_its_mat_analyse_alike(bot, match3):
    from_sgf = match3[1]
    from_mat = analyze_match(bot, read_mat(DATA / "gnubg_match3.mat"), 0)
    ours, theirs = from_sgf.decisions(), from_mat.decisions()
    # The same decisions, errors equal to batch-order rounding (the plays' text differs: gnubg's .mat marks hits).
    assert [(d.game, d.player, d.kind, d.position_id, d.match_id, d.mark) for d in ours] == [
        (d.game, d.player, d.kind, d.position_id, d.match_id, d.mark) for d in theirs
    ]
    assert [d.error for d in ours] == pytest.approx([d.error for d in theirs], abs=1e-5)
    assert from_sgf.stats(0).pr == pytest.approx(from_mat.stats(0).pr, abs=1e-3)


def test_a_set_up_game_is_analysed_from_its_setup(bot):
    analysis = analyze_match(bot, read_sgf(DATA / "gnubg_setup.sgf"), 0)
    (game,) = analysis.games
    assert game.stopped is None
    assert [(d.player, d.kind, d.played) for d in game.decisions] == [
        (1, "move", "8/6 8/5"),
        (0, "double", "double"),
        (1, "take", "pass"),
    ]
    assert game.decisions[0].position_id == "2OsBAAD0jwEAAA" and game.decisions[0].luck is not None


@pytest.mark.slow
def test_analysis_notes_follow_the_actions(match3):
    match, analysis = match3
    notes = analysis_notes(match, analysis)
    moves = sum(a.kind is ActionKind.MOVE for g in match.games for a in g.actions)
    assert sum(note.luck is not None for note in notes.values()) == moves
    marked = sum(d.mark is not None for d in analysis.decisions())
    assert sum(bool(n.skill) + bool(n.cube_skill) for n in notes.values()) == marked
    text = analysed_sgf(match, analysis)
    assert afterstates(parse_sgf(text)) == afterstates(match)


@pytest.mark.slow
def test_nardy_analyze_reads_sgf_and_writes_sgf(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "out.sgf"
    status = run(
        ["analyze", str(DATA / "gnubg_money.sgf"), "--plies", "0", "--json", "--sgf", str(target)],
        stdout=out,
        stderr=err,
    )
    assert status == 0, err.getvalue()
    data = json.loads(out.getvalue())
    assert data["length"] == 0 and len(data["games"]) == 3 and [p["name"] for p in data["players"]] == ["gnubg", "root"]
    assert afterstates(read_sgf(target)) == afterstates(read_sgf(DATA / "gnubg_money.sgf"))


def test_nardy_analyze_names_the_line_of_a_damaged_sgf(tmp_path):
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;FF[4]GM[6]MI[length:3]RU[Crawford]\n;W[52mhmk]\n;B[9]\n)")
    err = io.StringIO()
    assert run(["analyze", str(bad)], stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue().count("\n") == 1 and f"{bad} line 3" in err.getvalue()


@pytest.mark.slow
def test_post_analyze_takes_sgf(bot):
    from bot.doors.analysis_views import MAX_SGF_BYTES
    from bot.doors.http_app import create_app

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*httpx2")
        from fastapi.testclient import TestClient
    client = TestClient(create_app(bot))
    body = (DATA / "gnubg_match3.sgf").read_bytes()
    assert 32 * 1024 > len(body) > 8 * 1024 < MAX_SGF_BYTES  # over the 1-ply bound of a .mat, fine for a .sgf
    answer = client.post("/v1/analyze", params={"plies": 0}, content=body, headers={"content-type": "text/plain"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["length"] == 3 and len(data["games"]) == 3 and data["chart"].startswith("<svg")
    answer = client.post("/v1/analyze", content=b"(;FF[4]GM[6]MI[length:3]\n;W[52mhmk])")
    assert answer.status_code == 400 and "uploaded .sgf line 1" in answer.json()["message"]


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed")
@pytest.mark.slow
def test_gnubg_loads_what_we_write(tmp_path, bot):
    """gnubg `load match` of our .sgf, its `save match` read back: the same games, scores and results."""
    match = read_sgf(DATA / "gnubg_match3.sgf")
    ours, theirs = tmp_path / "ours.sgf", tmp_path / "theirs.sgf"
    ours.write_text(analysed_sgf(match, analyze_match(bot, match, 0)))
    script = f"set display off\nload match {ours}\nsave match {theirs}\n"
    subprocess.run([GNUBG, "-t", "-q", "-r"], input=script, capture_output=True, text=True, timeout=120, check=True)
    back = read_sgf(theirs)
    assert back.length == 3 and back.players == match.players
    assert [(g.score, g.winner, g.points) for g in back.games] == [(g.score, g.winner, g.points) for g in match.games]
    assert afterstates(back) == afterstates(match)
    assert "BM[2]" in theirs.read_text()  # gnubg kept our marks


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed")
def test_gnubg_loads_a_set_up_game_we_write(tmp_path):
    match = read_sgf(DATA / "gnubg_setup.sgf")
    ours, theirs = tmp_path / "ours.sgf", tmp_path / "theirs.sgf"
    ours.write_text(format_sgf(match))
    script = f"set display off\nload match {ours}\nsave match {theirs}\n"
    subprocess.run([GNUBG, "-t", "-q", "-r"], input=script, capture_output=True, text=True, timeout=120, check=True)
    back = read_sgf(theirs)
    assert back.games[0].setup == match.games[0].setup and afterstates(back) == afterstates(match)


def test_positions_files_are_reported_one_by_one(tmp_path):
    path = tmp_path / "positions.txt"
    path.write_text(
        "# three positions\n4HPwATDgc/ABMA\nXGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10\n"
        "4HPwATDgc/ABMA:MBkAAAAAAAAE\n"
    )
    out, err = io.StringIO(), io.StringIO()
    assert run(["analyze", str(path), "--plies", "0", "--json"], stdout=out, stderr=err) == 0, err.getvalue()
    data = json.loads(out.getvalue())
    assert data["kind"] == "positions" and [p["line"] for p in data["positions"]] == [2, 3, 4]
    first, second, third = data["positions"]
    assert first["dice"] is None and first["cube"]["verdict"] == "NODOUBLE_TAKE"
    assert second["dice"] == [5, 2] and len(second["plays"]) == 5
    assert {"13/11 13/8", "24/22 13/8"} <= {p["move"] for p in second["plays"]}
    assert third["double_offered"] and third["cube"]["should_take"]
    out = io.StringIO()
    assert run(["analyze", str(path), "--plies", "0"], stdout=out, stderr=io.StringIO()) == 0
    text = out.getvalue()
    assert "Line 2: 4HPwATDgc/ABMA" in text and "Dice 52: best plays" in text and "answer to the double" in text


def test_a_bad_positions_file_names_the_line(tmp_path):
    path = tmp_path / "positions.txt"
    path.write_text("4HPwATDgc/ABMA\n4HPwATDgc/ABM!\n")
    err = io.StringIO()
    assert run(["analyze", str(path)], stdout=io.StringIO(), stderr=err) == 2
    assert f"{path} line 2" in err.getvalue() and err.getvalue().count("\n") == 1
    err = io.StringIO()
    assert run(["analyze", str(path), "--sgf", str(tmp_path / "x.sgf")], stdout=io.StringIO(), stderr=err) == 2


def test_a_single_game_file_is_analysed(tmp_path, bot):
    one = tmp_path / "one.sgf"
    text = (DATA / "gnubg_match3.sgf").read_text()
    one.write_text(text[: text.index("\n(;")] + "\n")  # gnubg's `save game` of the first game: one tree
    analysis = analyze_match(bot, read_records_file(one), 0)
    assert len(analysis.games) == 1 and analysis.games[0].winner == 1
    assert np.isfinite(analysis.stats(0).pr)


@pytest.mark.slow
def test_a_single_crawford_game_keeps_its_crawford_rule(bot, match3):
    match = read_sgf(DATA / "gnubg_crawford_game.sgf")
    (game,) = match.games
    assert game.score == (2, 1) and game.crawford is True
    analysis = analyze_match(bot, match, 0)
    assert analysis.stats(0).cube_decisions == analysis.stats(1).cube_decisions == 0  # no cube in the Crawford game
    in_match = match3[1].games[2]
    assert [d.position_id for d in analysis.games[0].decisions] == [d.position_id for d in in_match.decisions]
    assert "RU[Crawford:CrawfordGame]" in format_sgf(match)


@pytest.mark.slow
def test_the_bots_own_match_as_sgf_and_mat_is_the_same_match(tmp_path):
    """`nardy match --mat --sgf`: both files read back as the same games, and gnubg loads the .sgf as it was."""
    mat, sgf = tmp_path / "m.mat", tmp_path / "m.sgf"
    argv = ["match", "--length", "3", "--opponent", "pubeval", "--seed", "3", "--mat", str(mat), "--sgf", str(sgf)]
    assert run(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    from_mat, from_sgf = read_mat(mat), read_sgf(sgf)
    assert from_sgf.length == from_mat.length == 3 and from_sgf.players == from_mat.players
    assert [(g.score, g.winner, g.points) for g in from_sgf.games] == [
        (g.score, g.winner, g.points) for g in from_mat.games
    ]
    assert afterstates(from_sgf) == afterstates(from_mat)
    if GNUBG is not None:
        theirs = tmp_path / "theirs.sgf"
        script = f"set display off\nload match {sgf}\nsave match {theirs}\n"
        done = subprocess.run([GNUBG, "-t", "-q", "-r"], input=script, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "warning" not in (done.stdout + done.stderr).lower()
        assert afterstates(read_sgf(theirs)) == afterstates(from_sgf)
