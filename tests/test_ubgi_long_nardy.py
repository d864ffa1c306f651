"""UBGI (``nardy ubgi``) playing long nardy: ``game.variant``, long nardy's Position ID, its plays and cube,
the other game's positions refused by name; scripted dialogues, then a whole game over pipes."""

from __future__ import annotations

import io

import numpy as np
import pytest

from conftest import tiny_bot
from test_ubgi_bgci import Engine
from bot.equity.cube import CubeState, Owner
from bot.doors.ubgi import KEYS, UbgiEngine, serve
from bot.facade import Bot
from engine.board import START as BACKGAMMON_START
from engine.game import Phase
from engine.match import MatchState
from engine.notation import format_steps
from engine.variant import BACKGAMMON, LONG_NARDY

LONG_START = "AAAB//wAAAP/+"
BACKGAMMON_START_ID = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
# The side on roll cannot play a 4-6 here.
NO_PLAY = "3voAAA/+4AAIA"
# A position where the shipped long nardy bot doubles for money.
DOUBLES = "AQQSH/wBQANf+"


@pytest.fixture(scope="module")
def bots() -> dict[str, Bot]:
    return {"backgammon": Bot.load(), "long_nardy": Bot.load(variant="long")}


def talk(bot: Bot, *lines: str, load=Bot.load) -> list[str]:
    """Every line the engine writes for ``lines``, run one after another on this thread."""
    out: list[str] = []
    serve(UbgiEngine(bot, out.append, load), io.BytesIO("".join(line + "\n" for line in lines).encode()), False)
    return out


def answers(out: list[str]) -> list[str]:
    """The lines that answer (no ``info``/``eval`` lines)."""
    return [line for line in out if not line.startswith(("info ", "eval "))]


def board_of(position_id: str) -> np.ndarray:
    return LONG_NARDY.position.from_id(position_id).board


def best(bot: Bot, position_id: str, dice, state: CubeState = CubeState()) -> str:
    return format_steps(bot.best_play(board_of(position_id), dice, state=state).play) or "pass"


# ---------------------------------------------------------------- the variant key


def test_the_handshake_lists_both_games_in_both_dialects(bots):
    out = talk(bots["backgammon"], "ubgi")
    assert "key game.variant enum backgammon|long_nardy backgammon the game played" in out
    assert "option name Variant type combo default backgammon var backgammon var long_nardy" in out
    assert KEYS["game.variant"].parse("long_nardy") == "long_nardy"


@pytest.mark.parametrize(
    "line",
    [
        "set game.variant long_nardy",
        "set game.variant long-nardy",
        "set game.variant long",
        "set game.variant LongNardy",
        "setoption name Variant value Long-Nardy",
        "setoption name variant value long",
    ],
)
def test_every_spelling_of_long_nardy_selects_it_under_its_one_name(bots, line):
    out = talk(bots["backgammon"], line, "get game.variant", f"position gnubgid {LONG_START}", "dice 3 1", "go")
    assert answers(out) == ["value game.variant long_nardy", f"bestmove {best(bots['long_nardy'], LONG_START, (3, 1))}"]


def test_an_engine_started_with_the_long_nardy_bot_plays_long_nardy(bots):
    out = talk(bots["long_nardy"], "get game.variant", f"position gnubgid {LONG_START}", "dice 6 6", "go")
    assert answers(out) == ["value game.variant long_nardy", "bestmove 24/18 24/18"]


# ---------------------------------------------------------------- decisions


def test_go_answers_the_long_nardy_bots_best_play_and_pass_when_none(bots):
    bot = bots["long_nardy"]
    out = talk(
        bot,
        "set engine.ply 1",
        f"position gnubgid {LONG_START}",
        "dice 5 2",
        "go",
        f"position gnubgid {NO_PLAY}",
        "dice 4 6",
        "go",
    )
    one_ply = bot.best_play(board_of(LONG_START), (5, 2), plies=1)
    p = one_ply.probabilities
    assert f"eval eq {one_ply.equity:.4f} pwin {p[0]:.4f} pgammon {p[1]:.4f} pbg 0.0000" in out
    assert answers(out) == [f"bestmove {format_steps(one_ply.play)}", "bestmove pass"]
    assert not LONG_NARDY.legal_plays(board_of(NO_PLAY), (4, 6))[0].steps


def test_go_cube_and_go_turn_for_money_are_the_bots_decisions(bots):
    bot = bots["long_nardy"]
    assert bot.should_double(board_of(DOUBLES)) and not bot.should_double(board_of(LONG_START))
    out = talk(
        bot,
        "set game.variant long",
        f"position gnubgid {DOUBLES}",
        "go cube",
        "dice 4 3",
        "go turn",
        f"position gnubgid {LONG_START}",
        "go cube",
    )
    doubled = CubeState(cube=2, owner=Owner.OPP)
    assert answers(out) == [
        "bestcube double",
        f"bestturn cube=double move={best(bot, DOUBLES, (4, 3), doubled)}",
        "bestcube nodouble",
    ]
    evaluation = bot.evaluate(board_of(DOUBLES))
    p = evaluation.probabilities
    assert out[1] == f"eval eq {evaluation.cubeful_equity:.4f} pwin {p[0]:.4f} pgammon {p[1]:.4f} pbg 0.0000"


def test_cube_and_play_at_a_match_score_use_long_nardys_match_equities(bots):
    bot = bots["long_nardy"]
    # Player 1 on roll at 3-1 to 5, cube 2 owned by player 1; then the Crawford game at 4-1 to 5.
    out = talk(
        bot,
        "set game.variant long",
        "newsession type match length 5 crawford on",
        "setscore 1 3",
        "setturn p1",
        "setcube value 2 owner p1",
        f"position gnubgid {DOUBLES}",
        "go cube",
        "dice 6 1",
        "go",
        "setscore 1 4",
        "setcube value 1 owner center",
        "go cube",
    )
    board = board_of(DOUBLES)
    match = CubeState(cube=2, owner=Owner.ME, match_length=5, score=(3, 1))
    evaluation = bot.evaluate(board, match)
    assert evaluation.mwc is not None
    crawford = bot.evaluate(board, CubeState(match_length=5, score=(4, 1), crawford=True))
    assert not crawford.cube.should_double
    verdict = "double" if evaluation.cube.should_double else "nodouble"
    assert answers(out) == [f"bestcube {verdict}", f"bestmove {best(bot, DOUBLES, (6, 1), match)}", "bestcube nodouble"]
    evals = [line for line in out if line.startswith("eval ")]
    assert evals[0].startswith(f"eval eq {evaluation.cubeful_equity:.4f} mwc {evaluation.mwc:.4f} ")
    assert evals[2].startswith(f"eval eq {crawford.cubeful_equity:.4f} mwc {crawford.mwc:.4f} ")


# ---------------------------------------------------------------- switching games


def test_switching_games_mid_session_forgets_the_position_and_keeps_each_games_bot(bots):
    loaded: list = []

    def load(path, game):
        loaded.append((path, game.name))
        return Bot.load(path, variant=game)

    long_nardy = "checkpoints/long_nardy.npz"
    out = talk(
        bots["backgammon"],
        f"position gnubgid {BACKGAMMON_START_ID}",
        "dice 3 1",
        "go",
        "set game.variant long_nardy",
        "go",  # the backgammon position is gone with the game
        f"set engine.checkpoint {long_nardy}",
        f"position gnubgid {LONG_START}",
        "dice 3 1",
        "go",
        "setoption name Variant value backgammon",
        "get engine.checkpoint",
        "go",
        f"position gnubgid {BACKGAMMON_START_ID}",
        "dice 6 4",
        "go",
        "set game.variant long",
        "get engine.checkpoint",
        f"position gnubgid {LONG_START}",
        "dice 6 5",
        "go",
        "set game.variant long",  # the same game again: nothing is forgotten
        "go",
        load=load,
    )
    backgammon, long_bot = bots["backgammon"], bots["long_nardy"]
    assert answers(out) == [
        f"bestmove {format_steps(backgammon.best_play(BACKGAMMON_START, (3, 1)).play)}",
        "error bad_state missing position",
        f"bestmove {best(long_bot, LONG_START, (3, 1))}",
        "value engine.checkpoint default",
        "error bad_state missing position",
        f"bestmove {format_steps(backgammon.best_play(BACKGAMMON_START, (6, 4)).play)}",
        f"value engine.checkpoint {long_nardy}",
        f"bestmove {best(long_bot, LONG_START, (6, 5))}",
        f"bestmove {best(long_bot, LONG_START, (6, 5))}",
    ]
    assert loaded == [(None, "long_nardy"), (long_nardy, "long_nardy")]  # each loaded once, kept after


def test_a_checkpoint_of_the_other_game_is_refused_naming_both_games(bots):
    backgammon = tiny_bot(7)
    out = talk(backgammon, "set game.variant long", "get game.variant", load=lambda path, game: backgammon)
    assert out == [
        "error bad_value game.variant long_nardy: the shipped network plays backgammon, not long nardy",
        "value game.variant backgammon",
    ]
    out = talk(bots["backgammon"], "set engine.checkpoint checkpoints/long_nardy.npz", "get engine.checkpoint")
    assert out[0].startswith("error bad_value engine.checkpoint ") and "long nardy" in out[0]
    assert out[1] == "value engine.checkpoint default"


# ---------------------------------------------------------------- bad positions


@pytest.mark.parametrize(
    "line, error",
    [
        (
            f"position gnubgid {BACKGAMMON_START_ID}",
            f"error bad_value '{BACKGAMMON_START_ID}' is a backgammon position, not long nardy: "
            "set game.variant backgammon",
        ),
        (
            f"position xgid {START_XGID}",
            f"error bad_value '{START_XGID}' is a backgammon position, not long nardy: set game.variant backgammon",
        ),
        (
            f"position gnubgid {BACKGAMMON_START_ID}:QYkqASAAIAAA",
            f"error bad_value '{BACKGAMMON_START_ID}:QYkqASAAIAAA' is a backgammon position",
        ),
        ("position xgid XGID=nonsense", "error unsupported position xgid in long nardy: an XGID is a backgammon"),
        (f"position gnubgid {LONG_START}:QYkqASAAIAAA", "error unsupported a Match ID in long nardy: give score"),
        ("position gnubgid AAAB//wAAAP/", "error bad_value long nardy Position ID 'AAAB//wAAAP/': expected 13"),
        ("position gnubgid 24x16/24x15", "error bad_value long nardy position text '24x16/24x15': 16 checkers"),
        ("position gnubgid /24x15", "error bad_value position: the side on roll has borne off all 15 checkers"),
        (
            "position gnubgid 24x9,23x1,22x1,21x1,20x1,19x1,18x1/24x15",
            "error bad_value long nardy position '24x9,23x1,22x1,21x1,20x1,19x1,18x1/24x15': the side on roll "
            "holds a six-point block",
        ),
        ("position fibs 24x15/24x15", "error unsupported position format 'fibs'"),
    ],
)
def test_a_bad_or_other_games_position_is_refused_and_the_last_one_stays(bots, line, error):
    bot = bots["long_nardy"]
    out = talk(bot, f"position gnubgid {LONG_START}", "dice 4 2", line, "go")
    assert out[0].startswith(error), out
    assert answers(out)[1:] == [f"bestmove {best(bot, LONG_START, (4, 2))}"]


def test_a_long_nardy_position_given_to_backgammon_is_refused_naming_long_nardy(bots):
    out = talk(bots["backgammon"], f"position gnubgid {LONG_START}", "position gnubgid 24x15/24x15", "go")
    assert out == [
        f"error bad_value '{LONG_START}' is a long nardy position, not backgammon: set game.variant long_nardy",
        "error bad_value '24x15/24x15' is a long nardy position, not backgammon: set game.variant long_nardy",
        "error bad_state missing position",
    ]


# ---------------------------------------------------------------- over pipes


def until(engine: Engine, first: str) -> str:
    """The engine's next line starting with ``first``; an ``error`` line instead fails."""
    while True:
        line = engine.read()
        assert not line.startswith("error"), line
        if line.startswith(first):
            return line


@pytest.mark.slow
def test_a_whole_long_nardy_game_over_pipes_against_a_random_mover(tmp_path):
    """The engine (seat 0) plays every turn of a game against random plays; each ``bestmove`` is one of the
    engine's legal plays, read back in the project's notation; before and after, backgammon in the same session."""
    rng = np.random.default_rng(54)
    with open(tmp_path / "stderr.txt", "w+") as stderr:
        engine = Engine(stderr)
        try:
            engine.send("ubgi")
            until(engine, "ubgiok")
            engine.send(f"position gnubgid {BACKGAMMON_START_ID}\ndice 6 5\ngo")
            BACKGAMMON.parse_play(until(engine, "bestmove").split(" ", 1)[1], BACKGAMMON_START, (6, 5))

            engine.send("set game.variant long-nardy\nget game.variant")
            assert until(engine, "value") == "value game.variant long_nardy"
            game = LONG_NARDY.new_game(MatchState())
            while game.phase is Phase.OPENING:
                game = game.roll_opening(*(int(d) for d in rng.integers(1, 7, 2)))
            engine_turns = 0
            while hasattr(game, "phase"):  # a result has none
                if game.phase is Phase.BEFORE_ROLL:
                    game = game.roll(tuple(int(d) for d in rng.integers(1, 7, 2)))
                    continue
                assert game.phase is Phase.ROLLED
                plays = LONG_NARDY.legal_plays(game.board, game.dice)
                if game.turn == 1:
                    game = game.move(plays[rng.integers(len(plays))])
                    continue
                position = LONG_NARDY.position(game.board).id
                engine.send("position gnubgid {}\ndice {} {}\ngo".format(position, *game.dice))
                payload = until(engine, "bestmove").split(" ", 1)[1]
                play = LONG_NARDY.parse_play("" if payload == "pass" else payload, game.board, game.dice)
                assert any(np.array_equal(play.afterstate, p.afterstate) for p in plays), (position, game.dice)
                assert (payload == "pass") == (not plays[0].steps)
                game = game.move(play)
                engine_turns += 1
            assert game.winner in (0, 1) and engine_turns > 20

            engine.send(f"set game.variant backgammon\nposition gnubgid {LONG_START}")
            assert engine.read().startswith(f"error bad_value '{LONG_START}' is a long nardy position")
            engine.send(f"position gnubgid {BACKGAMMON_START_ID}\ndice 2 1\ngo")
            BACKGAMMON.parse_play(until(engine, "bestmove").split(" ", 1)[1], BACKGAMMON_START, (2, 1))
            assert engine.quit() == 0
        finally:
            if engine.proc.poll() is None:
                engine.proc.kill()
                engine.proc.wait()
