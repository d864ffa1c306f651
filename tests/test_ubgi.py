"""UBGI (``nardy ubgi``): scripted dialogues without pipes, the search's limits, then one real subprocess."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import board, tiny_bot
from bot.search.cancel import check_cancelled
from bot.evaluation.checkpoint import CheckpointError
from bot.equity.cube import CubeState, Owner
from bot.doors.situation import parse_position
from bot.doors.ubgi import KEYS, MAX_LINE, V01_OPTIONS, Answer, Search, UbgiEngine, serve
from bot.facade import Bot
from engine.board import START
from engine.notation import format_steps, parse_move
from engine.position_id import encode_position_id

REPO = Path(__file__).resolve().parents[1]
START_ID = "4HPwATDgc/ABMA"
# 9-point match, score 2-4, cube 2 owned by player 0, player 1 to play 52.
MATCH_GNUBGID = "4HPwATDgc/ABMA:QYkqASAAIAAA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
# The side on roll is on the bar against a closed board: no roll can be played.
CLOSED_OUT = board({25: 1, 6: 5, 5: 5, 4: 4}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3})
CODES = {"bad_command", "bad_value", "bad_state", "unsupported"}


@pytest.fixture(scope="module")
def bot() -> Bot:
    return tiny_bot(7)


def talk(bot: Bot, *lines: str, load=None) -> list[str]:
    """Every line the engine writes for ``lines``, run one after another on this thread."""
    out: list[str] = []
    engine = UbgiEngine(bot, out.append, load or (lambda path, game: bot))
    serve(engine, io.BytesIO("".join(line + "\n" for line in lines).encode()), background=False)
    return out


def answers(out: list[str]) -> list[str]:
    """The lines that answer (no ``info``/``eval`` lines)."""
    return [line for line in out if not line.startswith(("info ", "eval "))]


def best(bot: Bot, board_, dice, state: CubeState = CubeState(), plies: int = 0) -> str:
    return format_steps(bot.best_play(board_, dice, plies=plies, state=state).play) or "pass"


# ---------------------------------------------------------------- handshake and options


def test_the_handshake_names_the_engine_its_protocol_and_keys_then_ubgiok(bot):
    out = talk(bot, "ubgi", "isready")
    assert out[0] == "id name nardy" and out[1].startswith("id author ") and out[2].startswith("id version ")
    assert out[3] == "proto 0.2"
    keys = [line for line in out if line.startswith("key ")]
    assert keys == [key.line for key in KEYS.values()]
    assert out[-2:] == ["ubgiok", "readyok"]


def test_key_lines_follow_the_spec_grammar_and_their_defaults_fit_their_types():
    grammar = re.compile(r"key (\S+) (int (-?\d+)\.\.(-?\d+)|bool|enum (\S+)|string \*) (\S+)( !)? \S.*")
    for key in KEYS.values():
        m = grammar.fullmatch(key.line)
        assert m, key.line
        assert key.parse(m.group(6)) == m.group(6)  # the default is a valid value
    assert KEYS["engine.ply"].line.startswith("key engine.ply int 0..2 0 ")
    assert KEYS["engine.depth"].line.startswith("key engine.depth int 1..3 1 ")


def test_get_and_set_typed_keys(bot):
    out = talk(
        bot,
        "get engine.ply",
        "set engine.ply 2",
        "get engine.ply",
        "get engine.depth",
        "setoption name engine.ply value 1",
        "get engine.ply",
        "set engine.depth 1",
        "get engine.ply",
        "get engine.depth",
        "set engine.level world-class",
        "get engine.level",
        "set engine.info false",
        "get engine.info",
        "get game.variant",
        "keys",
    )
    assert out[:9] == [
        "value engine.ply 0",
        "value engine.ply 2",
        "value engine.depth 3",
        "value engine.ply 1",
        "value engine.ply 0",
        "value engine.depth 1",
        "value engine.level world-class",
        "value engine.info false",
        "value game.variant backgammon",
    ]
    assert out[9:] == [key.line for key in KEYS.values()]


@pytest.mark.parametrize(
    "line, code, detail",
    [
        ("set engine.ply 3", "bad_value", "engine.ply must_be 0..2, not '3'"),
        ("set engine.ply -1", "bad_value", "engine.ply must_be 0..2, not '-1'"),
        ("set engine.ply two", "bad_value", "engine.ply must_be 0..2, not 'two'"),
        ("set engine.depth 0", "bad_value", "engine.depth must_be 1..3, not '0'"),
        ("set engine.level godlike", "bad_value", "engine.level must_be none|"),
        ("set engine.info yes", "bad_value", "engine.info must_be true|false"),
        ("set game.variant nackgammon", "bad_value", "game.variant must_be backgammon|long_nardy, not 'nackgammon'"),
        ("set engine.hash 64", "unsupported", "key 'engine.hash'"),
        ("get engine.hash", "unsupported", "key 'engine.hash'"),
        ("set engine.ply", "bad_command", "expected: set <key> <value>"),
        ("get", "bad_command", "expected: get <key>"),
        ("setoption engine.ply 2", "bad_command", "expected: setoption name"),
    ],
)
def test_bad_options_get_the_spec_error_codes(bot, line, code, detail):
    out = talk(bot, line, "get engine.ply")
    assert out[0].startswith(f"error {code} {detail}"), out
    assert out[1] == "value engine.ply 0"  # nothing changed, the engine reads on


def test_v01_option_names_set_the_keys_they_stand_for(bot):
    out = talk(
        bot,
        "setoption name Variant value backgammon",
        "setoption name Seed value 42",
        "setoption name Deterministic value false",
        "setoption name Threads value 4",
        "setoption name EvalMode value cubeless",
        "setoption name Ply value 2",
        "setoption name variant value backgammon",  # names in any case, as gnubg-ubgi reads them
        *(f"get {key}" for key in V01_OPTIONS.values()),
        "get engine.depth",
    )
    assert out == [
        "value game.variant backgammon",
        "value engine.seed 42",
        "value engine.deterministic false",
        "value engine.threads 4",
        "value engine.eval_mode cubeless",
        "value engine.ply 2",
        "value engine.depth 3",
    ]


def test_the_handshake_announces_the_v01_options_after_the_keys(bot):
    out = talk(bot, "ubgi")
    options = [line for line in out if line.startswith("option ")]
    assert options == [
        "option name Variant type combo default backgammon var backgammon var long_nardy",
        "option name Seed type spin default 0 min 0 max 9223372036854775807",
        "option name Deterministic type check default true",
        "option name Threads type spin default 1 min 1 max 64",
        "option name EvalMode type combo default cubeful var cubeful var cubeless",
        "option name Ply type spin default 0 min 0 max 2",
    ]
    assert out.index(options[0]) > max(i for i, line in enumerate(out) if line.startswith("key "))
    assert out[-1] == "ubgiok"


@pytest.mark.parametrize(
    "line, detail",
    [
        ("setoption name Variant value nackgammon", "game.variant must_be backgammon|long_nardy, not 'nackgammon'"),
        ("setoption name Variant value plakoto", "game.variant must_be backgammon|long_nardy, not 'plakoto'"),
        ("set game.variant hypergammon", "game.variant must_be backgammon|long_nardy, not 'hypergammon'"),
        ("setoption name Threads value 0", "engine.threads must_be 1..64, not '0'"),
        ("setoption name EvalMode value fast", "engine.eval_mode must_be cubeful|cubeless, not 'fast'"),
        ("setoption name Deterministic value yes", "engine.deterministic must_be true|false, not 'yes'"),
        ("setoption name Ply value 3", "engine.ply must_be 0..2, not '3'"),
    ],
)
def test_a_v01_option_with_a_bad_value_is_refused_naming_the_value(bot, line, detail):
    out = talk(bot, line, "get game.variant", "isready")
    assert out == [f"error bad_value {detail}", "value game.variant backgammon", "readyok"]


def test_an_unknown_v01_option_is_unsupported(bot):
    assert talk(bot, "setoption name Hash value 16") == ["error unsupported key 'Hash'"]


def test_engine_ply_0_is_a_static_evaluation_and_1_looks_a_roll_ahead(bot):
    lines = ["position gnubgid " + START_ID, "dice 3 1", "go", "go cube"]
    static = talk(bot, "set engine.ply 0", *lines)
    assert [line.split()[2] for line in static if line.startswith("info ")] == ["1", "1"]  # one depth each
    play = bot.best_play(START, (3, 1), plies=0)
    p = play.probabilities
    assert static[1] == f"eval eq {play.equity:.4f} pwin {p[0]:.4f} pgammon {p[1]:.4f} pbg {p[2]:.4f}"
    assert static[2] == f"bestmove {format_steps(play.play)}"
    cube = bot.evaluate(START, plies=0)
    assert static[4].startswith(f"eval eq {cube.cubeful_equity:.4f} pwin {cube.probabilities[0]:.4f} ")

    ahead = talk(bot, "set engine.ply 1", *lines)
    assert [line.split()[2] for line in ahead if line.startswith("info ")] == ["1", "2", "1", "2"]
    one_ply = bot.best_play(START, (3, 1), plies=1)
    assert ahead[2] == f"eval eq {one_ply.equity:.4f} pwin {one_ply.probabilities[0]:.4f} " + (
        f"pgammon {one_ply.probabilities[1]:.4f} pbg {one_ply.probabilities[2]:.4f}"
    )
    assert ahead[2] != static[1]  # a roll deeper is not the static evaluation


def test_eval_mode_cubeless_ranks_plays_by_money_equity_in_a_match(bot):
    lines = ["newsession type match length 7", "setscore 5 2", "position gnubgid " + START_ID, "dice 6 2", "go"]
    cubeful = talk(bot, *lines)
    cubeless = talk(bot, "setoption name EvalMode value cubeless", *lines)
    assert " mwc " in cubeful[-2] and " mwc " not in cubeless[-2]
    assert cubeless[-1] == f"bestmove {best(bot, START, (6, 2))}"
    match = CubeState(match_length=7, score=(5, 2))
    assert cubeful[-1] == f"bestmove {best(bot, START, (6, 2), match)}"


def test_the_checkpoint_key_loads_a_bot_and_a_bad_file_is_refused(bot):
    other = tiny_bot(8)
    loaded: list = []

    def load(path, game):
        loaded.append(path)
        if path == "missing.npz":
            raise CheckpointError("missing.npz: no such file")
        return other

    out = talk(
        bot,
        "set engine.checkpoint /tmp/a file.npz",
        "get engine.checkpoint",
        "set engine.checkpoint missing.npz",
        "get engine.checkpoint",
        "set engine.checkpoint default",
        "position gnubgid " + START_ID,
        "dice 3 1",
        "go",
        load=load,
    )
    assert loaded == ["/tmp/a file.npz", "missing.npz", None]
    assert out[:3] == [
        "value engine.checkpoint /tmp/a file.npz",
        "error bad_value engine.checkpoint missing.npz: no such file",
        "value engine.checkpoint /tmp/a file.npz",
    ]
    assert answers(out)[-1] == f"bestmove {best(other, START, (3, 1))}"


# ---------------------------------------------------------------- positions and decisions


def test_go_plays_the_bots_best_move_from_a_position_id_as_plain_steps(bot):
    out = talk(bot, "newgame", "position gnubgid " + START_ID, "dice 6 6", "go")
    move = answers(out)[-1]
    assert move == f"bestmove {best(bot, START, (6, 6))}"
    steps = move.split()[1:]
    assert len(steps) == 4 and all(re.fullmatch(r"(\d+|bar)/(\d+|off)", s) for s in steps)
    parse_move(" ".join(steps), START, (6, 6))  # legal


def test_roles_chequer_cube_and_turn_answer_as_the_facade_decides(bot):
    out = answers(
        talk(
            bot,
            "position gnubgid " + START_ID,
            "dice 4 2",
            "go chequer",
            "go role chequer",
            "go cube",
            "go role cube",
            "go turn",
        )
    )
    move = best(bot, START, (4, 2))
    cube = "double" if bot.should_double(START) else "nodouble"
    assert out == [f"bestmove {move}"] * 2 + [f"bestcube {cube}"] * 2 + [f"bestturn cube={cube} move={move}"]


def test_a_position_by_xgid_brings_its_dice_and_context(bot):
    situation = parse_position(START_XGID)
    expected = best(bot, situation.board, situation.dice, situation.state)
    out = answers(talk(bot, "position xgid " + START_XGID, "go", "position xgid " + START_XGID[5:], "go"))
    assert out == [f"bestmove {expected}"] * 2


def test_a_position_and_match_id_set_score_cube_turn_and_dice(bot):
    situation = parse_position(MATCH_GNUBGID)
    assert situation.state.match_length == 9 and situation.dice == (5, 2)
    out = talk(bot, "position gnubgid " + MATCH_GNUBGID, "go")
    assert answers(out)[-1] == f"bestmove {best(bot, situation.board, (5, 2), situation.state)}"
    assert any(line.startswith("eval ") and " mwc " in line for line in out)  # match play: an MWC


def test_session_commands_give_the_side_on_roll_its_score_and_cube(bot):
    state = CubeState(cube=2, owner=Owner.OPP, match_length=7, score=(1, 3))
    expected = best(bot, START, (5, 3), state)
    out = answers(
        talk(
            bot,
            "newsession type match length 7",
            "setscore 3 1",
            "setcube value 2 owner p0",
            "setturn p1",
            "position gnubgid " + START_ID,
            "dice 5 3",
            "go",
        )
    )
    assert out == [f"bestmove {expected}"]


def test_the_crawford_flag_makes_a_one_away_game_the_crawford_game(bot):
    lines = ["newsession type match length 5 crawford {}", "setscore 4 2", "position gnubgid " + START_ID, "go cube"]
    for flag in ("on", "off"):
        out = answers(talk(bot, *[line.format(flag) for line in lines]))
        crawford = flag == "on"
        state = CubeState(match_length=5, score=(4, 2), crawford=crawford)
        assert out == [f"bestcube {'double' if bot.should_double(START, state) else 'nodouble'}"]
    # The trailer on roll in the Crawford game may not double, whatever the position.
    out = answers(talk(bot, *[line.format("on") for line in lines[:1]], "setscore 2 4", *lines[2:]))
    assert out == ["bestcube nodouble"]


def test_a_roll_that_cannot_be_played_is_a_pass(bot):
    out = answers(talk(bot, "position gnubgid " + encode_position_id(CLOSED_OUT), "dice 6 5", "go", "go turn"))
    assert out[0] == "bestmove pass"
    assert re.fullmatch(r"bestturn cube=(double|nodouble) move=pass", out[1])


def test_info_lines_count_depths_from_one_and_eval_gives_the_numbers(bot):
    out = talk(bot, "set engine.ply 2", "position gnubgid " + START_ID, "dice 3 1", "go", "go depth 2")
    infos = [line for line in out if line.startswith("info ")]
    assert [int(line.split()[2]) for line in infos] == [1, 2, 3, 1, 2]
    for line in infos:
        assert re.fullmatch(r"info depth \d time_ms \d+ score -?\d+\.\d{4} pv \S.*", line), line
    evals = [line for line in out if line.startswith("eval ")]
    assert len(evals) == 2 and re.fullmatch(r"eval eq -?[\d.]+ pwin [\d.]+ pgammon [\d.]+ pbg [\d.]+", evals[0])
    # engine.ply 2 searches to depth 3 and decides what the bot's 2-ply decides.
    assert answers(out)[0] == f"bestmove {best(bot, START, (3, 1), plies=2)}"
    assert not [
        line
        for line in talk(bot, "set engine.info false", "position gnubgid " + START_ID, "dice 3 1", "go")
        if line.startswith(("info", "eval"))
    ]


def test_a_noisy_level_still_plays_a_legal_move_and_is_the_same_each_time(bot):
    lines = ["set engine.level beginner", "position gnubgid " + START_ID, "dice 4 3", "go"]
    first, second = answers(talk(bot, *lines)), answers(talk(bot, *lines))
    assert first == second
    parse_move(first[0].split(" ", 1)[1], START, (4, 3))
    seeded = ["set engine.deterministic false", "set engine.seed 5"] + lines
    assert answers(talk(bot, *seeded)) == answers(talk(bot, *seeded))


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "lines, expected",
    [
        (["frobnicate"], "error bad_command unknown command 'frobnicate'"),
        (["dice 7 1"], "error bad_value die must_be 1..6"),
        (["dice 3"], "error bad_command expected: dice <d1> <d2>"),
        (["dice three one"], "error bad_command expected: dice <d1> <d2>"),
        (["go"], "error bad_state missing position"),
        (["position gnubgid " + START_ID, "go"], "error bad_state missing dice"),
        (["position gnubgid " + START_ID, "go turn"], "error bad_state missing dice"),
        (["position fibs board:a:b"], "error unsupported position format 'fibs'"),
        (["position gnubgid"], "error bad_command expected: position gnubgid"),
        (["position gnubgid ABCDEFGHIJKLMN"], "error bad_value "),
        (["position gnubgid 4HPwATDgc"], "error bad_value Position ID"),
        (["position gnubgid " + START_XGID], "error bad_value an XGID goes in position xgid"),
        (["position xgid XGID=nonsense"], "error bad_value "),
        (["position gnubgid " + START_ID, "dice 3 1", "go nodes 1000"], "error unsupported go nodes"),
        (["position gnubgid " + START_ID, "dice 3 1", "go trials 36"], "error unsupported go trials"),
        (["position gnubgid " + START_ID, "dice 3 1", "go banana"], "error bad_command go 'banana'"),
        (["position gnubgid " + START_ID, "dice 3 1", "go role"], "error bad_command expected: go role"),
        (["position gnubgid " + START_ID, "dice 3 1", "go depth"], "error bad_command expected: go"),
        (["position gnubgid " + START_ID, "dice 3 1", "go depth 9"], "error bad_value depth must_be 1..3"),
        (["position gnubgid " + START_ID, "dice 3 1", "go movetime soon"], "error bad_value movetime must_be"),
        (["position gnubgid " + START_ID, "dice 3 1", "go depth 1 depth 2"], "error bad_command depth given twice"),
        (
            ["position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10", "go cube"],
            "error unsupported answering a double",
        ),
        (["newsession"], "error bad_command expected: newsession type"),
        (["newsession type chouette"], "error bad_value type must_be money|match"),
        (["newsession type match"], "error bad_value length"),
        (["newsession type money length 5"], "error bad_value length"),
        (["newsession type match length 0"], "error bad_value length must_be 1.."),
        (["newsession type money jacoby maybe"], "error bad_value jacoby must_be on|off"),
        (["newsession type money colour red"], "error bad_command expected: newsession"),
        (["setscore 1"], "error bad_command expected: setscore"),
        (["setscore -1 0"], "error bad_value p0 score must_be 0.."),
        (["setcube value 3 owner p0"], "error bad_value cube value 3 must_be a power of two"),
        (["setcube value 2 owner center"], "error bad_value cube value 2: a centred cube is on 1"),
        (["setcube value 2 owner p2"], "error bad_value owner must_be p0|p1"),
        (["setcube value 2"], "error bad_command expected: setcube"),
        (["setturn p3"], "error bad_value turn must_be p0|p1"),
        (
            ["newsession type match length 5", "setscore 7 0", "position gnubgid " + START_ID, "go cube"],
            "error bad_state score and cube",
        ),
    ],
)
def test_bad_input_gets_the_spec_error_code_and_the_engine_reads_on(bot, lines, expected):
    out = talk(bot, *lines, "isready")
    errors = [line for line in out if line.startswith("error ")]
    assert len(errors) == 1 and errors[0].startswith(expected), out
    assert errors[0].split()[1] in CODES
    assert out[-1] == "readyok"


def test_a_finished_game_is_not_a_position_to_decide(bot):
    over = np.zeros(26, dtype=np.int8)
    over[19] = -15  # the side on roll has borne off every checker
    out = talk(bot, "position gnubgid " + encode_position_id(over))
    assert out[0].startswith("error bad_value position: the side on roll has borne off all 15 checkers")


def test_garbage_never_crashes_the_engine(bot):
    rng = np.random.default_rng(3)
    words = [
        "go",
        "set",
        "get",
        "position",
        "gnubgid",
        "xgid",
        "dice",
        "newsession",
        "setcube",
        "value",
        "owner",
        "setscore",
        "setturn",
        "type",
        "match",
        "length",
        "-1",
        "0",
        "7",
        "99999999999999999999",
        "p0",
        "p1",
        "cube",
        "turn",
        "role",
        "depth",
        "movetime",
        "engine.ply",
        "\x00",
        "\u0663",
        "XGID=",
        START_ID,
        "é",
    ]
    lines = [" ".join(rng.choice(words, size=rng.integers(1, 6))) for _ in range(300)]
    too_long = [b"x" * (MAX_LINE * 3), "é".encode() * (MAX_LINE // 2 + 1)]  # bytes count, not characters
    raw = b"".join(line.encode() + b"\n" for line in lines) + b"\xff\xfe garbage \x80\n"
    raw += b"".join(line + b"\n" for line in too_long) + b"isready\n"
    out: list[str] = []
    serve(UbgiEngine(bot, out.append, lambda path: bot), io.BytesIO(raw), background=False)
    assert out[-1] == "readyok"
    assert out.count(f"error bad_command line longer than {MAX_LINE} bytes") == 2
    prefixes = (
        "error ",
        "value ",
        "key ",
        "info ",
        "eval ",
        "bestmove ",
        "bestcube ",
        "bestturn ",
        "readyok",
        "id ",
        "proto ",
        "ubgiok",
    )
    for line in out:
        assert line.startswith(prefixes) and "\n" not in line, line
        if line.startswith("error "):
            assert line.split()[1] in CODES


def test_quit_ends_the_dialogue(bot):
    assert talk(bot, "isready", "quit", "isready") == ["readyok"]


# ---------------------------------------------------------------- limits, stop and pipes


def slow_decide(depth: int) -> Answer:
    """A search whose depth 2 and deeper take seconds, checking for cancellation as the bot's do."""
    deadline = time.monotonic() + (10.0 if depth > 1 else 0.0)
    while time.monotonic() < deadline:
        check_cancelled()
        time.sleep(0.005)
    return Answer(f"bestmove depth-{depth}", 0.0, f"d{depth}", np.zeros(5), 0.0, None)


def test_movetime_keeps_the_deepest_finished_answer():
    out: list[str] = []
    start = time.monotonic()
    Search(slow_decide, depth=3, movetime=0.1, info=True).run(out.append, threading.Event())
    assert time.monotonic() - start < 5.0
    assert out[-1] == "bestmove depth-1" and [line.split()[2] for line in out if line.startswith("info")] == ["1"]


def test_stop_and_isready_are_answered_while_a_search_runs(bot, monkeypatch):
    monkeypatch.setattr(UbgiEngine, "_chequer", lambda self, board_, dice, state, depth: slow_decide(depth))
    read_fd, write_fd = os.pipe()
    out: list[str] = []
    arrived = threading.Condition()

    def emit(line: str) -> None:
        with arrived:
            out.append(line)
            arrived.notify_all()

    def wait_for(prefix: str) -> None:
        with arrived:
            assert arrived.wait_for(lambda: any(line.startswith(prefix) for line in out), timeout=30), out

    engine = UbgiEngine(bot, emit, lambda path: bot)
    with io.FileIO(read_fd, "rb") as stdin:
        server = threading.Thread(target=serve, args=(engine, stdin))
        server.start()
        os.write(write_fd, f"position gnubgid {START_ID}\ndice 3 1\ngo depth 3\n".encode())
        wait_for("info depth 1")
        os.write(write_fd, b"isready\n")
        wait_for("readyok")
        assert not any(line.startswith("bestmove") for line in out)  # still searching depth 2
        os.write(write_fd, b"stop\ngo depth 1\nquit\n")
        server.join(timeout=30)
        os.close(write_fd)
    assert not server.is_alive()
    assert answers(out) == ["readyok", "bestmove depth-1", "bestmove depth-1"]


def test_nardy_ubgi_talks_over_pipes():
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "ubgi"],
        cwd=REPO,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def until(last: str) -> list[str]:
        lines: list[str] = []
        while not lines or not lines[-1].startswith(last):
            line = proc.stdout.readline()
            assert line, f"engine ended early; stderr: {proc.stderr.read() if proc.stderr else ''}"
            lines.append(line.rstrip("\n"))
        return lines

    try:
        proc.stdin.write("ubgi\n")
        assert until("ubgiok")[:1] == ["id name nardy"]
        proc.stdin.write("isready\n")
        assert until("readyok") == ["readyok"]
        proc.stdin.write(f"position gnubgid {START_ID}\ndice 6 5\ngo\n")
        move = until("bestmove")[-1].split(" ", 1)[1]
        parse_move(move, START, (6, 5))
        proc.stdin.write("dice 9 9\n")
        assert until("error")[-1].startswith("error bad_value")
        proc.stdin.write("quit\n")  # stdin stays open: quit alone ends the engine
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
