"""Jellyfish .mat files: the layout GNU Backgammon exports, reading it back, replaying games."""

from __future__ import annotations

import re

import numpy as np
import pytest

from engine.board import CHECKERS, START, borne_off, flip
from engine.errors import InvalidDiceError
from engine.match import game_result_points
from engine.matfile import (
    ActionKind,
    InvalidMatFileError,
    MatAction,
    MatGame,
    MatMatch,
    format_mat,
    parse_mat,
    read_mat,
    replay_game,
    write_mat,
)
from engine.plays import legal_plays

# The first two games of a 5-point match exported by GNU Backgammon 1.07 (`export match
# mat`), trailing spaces removed. Game 1 ends with a drop; in game 2 the loser resigned.
GNUBG_EXPORT = """\
; [EventDate "2026.11.30"]

 5 point match

 Game 1
 gnubg : 0                      root : 0
  1)                             21: 13/11 24/23
  2) 52: 13/8 24/22              63: 8/5 11/5
  3) 53: 8/3 6/3                 62: 13/7 7/5
  4) 42: 8/4 6/4                 41: 13/9 9/8
  5) 31: 22/21 24/21             21: 5/3 6/5
  6) 43: 13/10 10/6              65: 23/18 24/18
  7) 52: 6/1 3/1                 33: 18/15 18/15 13/10 13/10
  8) 51: 6/5 8/3                 52: 3/1 6/1
  9) 65: 13/7 7/2                32: 5/3 6/3
 10) 63: 5/2 8/2                 62: 8/2 3/1
 11) 51: 2/1 21/16               42: 8/4* 4/2
 12) 66:                         22: 15/13 13/11 11/9* 3/1
 13) 54: 25/21                    Doubles => 2
 14)  Drops                       Wins 1 point

 Game 2
 gnubg : 0                      root : 1
  1)                             31: 8/5 6/5
  2) 43: 13/9 24/21              53: 24/21 21/16*
  3) 52: 25/23 13/8               Doubles => 2
  4)  Takes                      31: 16/13 6/5
  5) 32: 23/21 24/21             43: 13/10 10/6
  6) 63: 13/10 21/15             33: 24/21 21/18 18/15* 13/10*
  7) 32: 25/22 25/23             63: 13/7 10/7
  8) 65: 22/16 16/11             22: 15/13 13/11 11/9 9/7
  9) 41: 8/4 6/5                 21: 13/11 6/5
 10) 43: 8/5 8/4                 32: 11/8 8/6
 11) 42: 11/7 6/4                63: 5/2* 8/2
 12) 33: 25/22 13/10 13/10 10/7  53: 8/3* 6/3
 13) 63:                         65: 7/1 6/1
 14) 32:                         52: 13/8 8/6
 15) 43: 25/21 8/5               43: 13/10 10/6
 16) 44: 21/17 17/13 7/3 7/3     42: 7/3 7/5
 17) 33: 13/10 10/7 10/7 5/2     51: 1/0 5/0
 18) 31: 7/6 4/1                 55: 6/1 5/0 5/0 5/0
 19) 54: 21/17 17/12             55: 6/1 6/1 6/1 3/0
 20) 63: 12/6 21/18              65: 3/0 3/0
 21) 11: 18/17 17/16 16/15 7/6   42: 2/0 2/0
 22) 44: 15/11 11/7 7/3 6/2      62: 1/0 1/0
                                  Wins 2 points
"""


def test_reads_a_gnubg_export():
    match = parse_mat(GNUBG_EXPORT)
    assert match.length == 5 and match.players == ("gnubg", "root")
    first, second = match.games
    assert first.score == (0, 0) and (first.winner, first.points) == (1, 1)
    assert second.score == (0, 1) and (second.winner, second.points) == (1, 2)
    assert match.final_score == (0, 3)
    assert first.actions[0] == MatAction.of_move(1, (2, 1), "13/11 24/23")
    assert first.actions[21] == MatAction.of_move(0, (6, 6), "")  # dancing on the bar
    assert [a.kind for a in first.actions[-2:]] == [ActionKind.DOUBLE, ActionKind.DROP]
    assert second.actions[4:7] == (
        MatAction.of_double(1, 2),
        MatAction.of_take(0),
        MatAction.of_move(1, (3, 1), "16/13 6/5"),
    )
    assert sum(a.kind is ActionKind.MOVE for a in second.actions) == 41


def test_writes_what_gnubg_exports():
    """Our writer reproduces gnubg's layout (its comment line and trailing spaces aside);
    gnubg ends every game, the last one too, with a blank line."""
    expected = GNUBG_EXPORT.split("\n", 2)[2] + "\n"
    assert format_mat(parse_mat(GNUBG_EXPORT)) == expected


def test_replays_a_gnubg_export():
    first, second = parse_mat(GNUBG_EXPORT).games
    dropped = replay_game(first)
    assert dropped.over and dropped.cube == 1 and dropped.cube_owner is None
    resigned = replay_game(second)  # gnubg resigned for player 0: the moves do not end the game
    assert not resigned.over and resigned.cube == 2 and resigned.cube_owner == 0
    # Player 1 (right) has borne off 12, player 0 none: the board is seen by player 0.
    assert borne_off(resigned.board) == (0, 12)


def _game(actions, winner=None, points=0, score=(0, 0)) -> MatGame:
    return MatGame(score, tuple(actions), winner, points)


def test_layout_of_each_kind_of_line():
    game = _game(
        [
            MatAction.of_move(0, (3, 1), "8/5 6/5"),
            MatAction.of_move(1, (6, 6), "24/18 24/18 13/7 13/7"),
            MatAction.of_double(0, 2),
            MatAction.of_take(1),
            MatAction.of_move(0, (2, 1), "13/11 6/5"),
        ],
        winner=0,
        points=4,
    )
    text = format_mat(MatMatch(0, ("Al Ice", "Bob"), (game,)))
    assert text.splitlines() == [
        " 0 point match",
        "",
        " Game 1",
        " Al Ice : 0                     Bob : 0",
        "  1) 31: 8/5 6/5                 66: 24/18 24/18 13/7 13/7",
        "  2)  Doubles => 2                Takes",
        "  3) 21: 13/11 6/5",
        "      Wins 4 points",
        "",
    ]
    assert parse_mat(text).games == (game,)


def test_right_player_first_and_long_entries_split_like_gnubg():
    long_left = "44: 25/21* 25/21* 21/17* 21/17*"  # longer than the 27-character column
    game = _game(
        [
            MatAction.of_move(1, (5, 2), "13/8 13/11"),
            MatAction.of_move(0, (4, 4), long_left[4:]),
            MatAction.of_double(1, 2),
            MatAction.of_take(0),
            MatAction.of_move(1, (6, 5), "24/13"),
            MatAction.of_move(0, (4, 4), long_left[4:]),
            MatAction.of_move(1, (1, 1), ""),
        ],
    )
    text = format_mat(MatMatch(3, ("a", "b"), (game,)))
    lines = text.splitlines()
    assert lines[4] == "  1)                             52: 13/8 13/11"
    assert lines[5] == f"  2) {long_left}  Doubles => 2"
    assert lines[7] == f"  4) {long_left} 11:"
    assert parse_mat(text).games == (game,)


def _random_game(rng: np.random.Generator, score: tuple[int, int]) -> tuple[MatGame, np.ndarray]:
    """A legal game of random plays with random doubles (taken, or the last one dropped)."""
    turn = int(rng.integers(2))
    board, cube, owner, actions = START.copy(), 1, None, []
    while True:
        if owner in (None, turn) and rng.random() < 0.1:
            actions.append(MatAction.of_double(turn, 2 * cube))
            if rng.random() < 0.3:
                actions.append(MatAction.of_drop(1 - turn))
                return _game(actions, turn, cube, score), (board if turn == 0 else flip(board))
            actions.append(MatAction.of_take(1 - turn))
            cube, owner = 2 * cube, 1 - turn
        dice = tuple(int(d) for d in rng.integers(1, 7, size=2))
        plays = legal_plays(board, dice)
        play = plays[int(rng.integers(len(plays)))]
        actions.append(MatAction.of_play(turn, dice, play))
        if borne_off(play.afterstate)[0] == CHECKERS:
            final = play.afterstate if turn == 0 else flip(play.afterstate)
            return _game(actions, turn, game_result_points(final, cube), score), final
        board, turn = flip(play.afterstate), 1 - turn


def test_round_trip_of_random_games(tmp_path):
    rng = np.random.default_rng(5)
    games, finals, score = [], [], [0, 0]
    for _ in range(4):
        game, final = _random_game(rng, (score[0], score[1]))
        games.append(game)
        finals.append(final)
        score[game.winner] += game.points
    match = MatMatch(0, ("left", "right"), tuple(games))
    path = tmp_path / "session.mat"
    write_mat(match, path)
    assert read_mat(path) == match
    assert match.final_score == (score[0], score[1])
    for game, final in zip(match.games, finals):
        replay = replay_game(game)
        np.testing.assert_array_equal(replay.board, final)
        assert replay.over
        if game.actions[-1].kind is ActionKind.MOVE:
            assert game.points == game_result_points(replay.board, replay.cube)


def _gnubg_game_text(game_lines: str, header: str = " 5 point match") -> str:
    return f"{header}\n\n Game 1\n a : 0                          b : 0\n{game_lines}\n"


@pytest.mark.parametrize(
    "text, message",
    [
        ("hello\n", "line 1: expected 'N point match'"),
        (" 5 point match\n", "no games"),
        (_gnubg_game_text("  1) 31: 8/5 6/5                 Redoubles"), "line 5: cannot read 'Redoubles'"),
        (
            _gnubg_game_text("  1) 31: 8/5 6/5\n      Wins 1 point\n\n Game 2\n a : 0   b : 0"),
            "line 9: score (0, 0) before game 2, expected (1, 0)",
        ),
        (_gnubg_game_text("") + " Game 3\n a : 0   b : 0\n", "'Game 3' is out of order"),
        (_gnubg_game_text("      Wins 1 point\n  2) 31: 8/5 6/5"), "after the game was won"),
    ],
)
def test_bad_text_names_the_line(text, message):
    with pytest.raises(InvalidMatFileError, match=re.escape(message)):
        parse_mat(text)


@pytest.mark.parametrize(
    "actions, message",
    [
        ([MatAction.of_move(0, (3, 1), "24/18")], "action 1 .move by player 0.: move '24/18'"),
        ([MatAction.of_move(0, (3, 1), "8/5 6/5"), MatAction.of_move(0, (3, 1), "8/5 6/5")], "not this player's turn"),
        ([MatAction.of_double(0, 2), MatAction.of_move(0, (3, 1), "8/5 6/5")], "action 2 .move"),
        (
            [
                MatAction.of_move(0, (3, 1), "8/5 6/5"),
                MatAction.of_double(1, 2),
                MatAction.of_take(0),
                MatAction.of_move(1, (3, 1), "8/5 6/5"),
                MatAction.of_move(0, (3, 1), "8/5 6/5"),
                MatAction.of_double(1, 4),
            ],
            "cannot double to 4 with cube 2 owned by 0",
        ),
        (
            [
                MatAction.of_move(0, (3, 1), "8/5 6/5"),
                MatAction.of_double(1, 2),
                MatAction.of_drop(0),
                MatAction.of_move(1, (3, 1), "8/5 6/5"),
            ],
            "already over",
        ),
    ],
)
def test_replay_refuses_broken_rules(actions, message):
    with pytest.raises(InvalidMatFileError, match=message):
        replay_game(_game(actions))


def test_bad_records_are_refused():
    with pytest.raises(InvalidMatFileError, match="player name 'a:b'"):
        MatMatch(1, ("a:b", "c"))
    with pytest.raises(InvalidMatFileError, match="power of 2"):
        MatAction.of_double(0, 3)
    with pytest.raises(InvalidMatFileError, match="only a move has dice"):
        MatAction(0, ActionKind.TAKE, dice=(3, 1))
    with pytest.raises(InvalidDiceError):
        MatAction.of_move(1, (7, 1), "")
    with pytest.raises(InvalidMatFileError, match="winner 0 with 0 points"):
        MatGame((0, 0), (), 0, 0)


# ---------------------------------------------------------------- variants written by other programs


def _bar_and_off(text: str) -> str:
    """Points 25 and 0 written as words, as XG and most sites write them."""
    return re.sub(r"/0\b", "/off", text.replace(" 25/", " bar/"))


def _grouped(text: str) -> str:
    """Repeated steps counted, as XG writes doubles."""
    return (
        text.replace("18/15 18/15 13/10 13/10", "18/15(2) 13/10(2)")
        .replace("6/1 6/1 6/1 3/0", "6/1(3) 3/0")
        .replace("13/10 13/10 10/7", "13/10(2) 10/7")
    )


XG_HEADER = """\
; [Site "Backgammon Galaxy"]
; [Match ID "123456"]
; [Player 1 "gnubg"]
; [Player 2 "root"]
; [EventDate "2026.11.30"]
; [Variation "Backgammon"]
; [Crawford "On"]
"""


@pytest.mark.parametrize(
    "variant",
    [
        # A UTF-8 byte order mark, as Windows editors save the file.
        pytest.param("\ufeff" + GNUBG_EXPORT, id="BOM"),
        # Windows line ends.
        pytest.param(GNUBG_EXPORT.replace("\n", "\r\n"), id="CRLF"),
        # The last line without a line end.
        pytest.param(GNUBG_EXPORT.rstrip("\n"), id="no final newline"),
        # Header comments in the style of XG and Backgammon Galaxy, and a comment between the header and the first game.
        pytest.param(
            XG_HEADER
            + GNUBG_EXPORT.split("\n", 1)[1].replace(" 5 point match\n", ' 5 point match\n; [Unrated "Off"]\n'),
            id="header comments",
        ),
        # The match's last win as other programs (XG among them) write it.
        pytest.param(GNUBG_EXPORT.replace("Wins 2 points", "Wins 2 points and the match"), id="and the match"),
        # Keywords in lower case.
        pytest.param(
            re.sub(r"\b(Game|Doubles|Takes|Drops|Wins)\b", lambda m: m[1].lower(), GNUBG_EXPORT), id="lower case"
        ),
        # bar/ and /off in lower case, and in upper case.
        pytest.param(_bar_and_off(GNUBG_EXPORT), id="bar and off"),
        pytest.param(_bar_and_off(GNUBG_EXPORT).replace("bar/", "Bar/").replace("/off", "/OFF"), id="Bar and OFF"),
        # No hit markers (a checker landing on a blot hits it).
        pytest.param(GNUBG_EXPORT.replace("*", ""), id="no hit markers"),
        # Repeated steps counted: 13/10(2).
        pytest.param(_grouped(GNUBG_EXPORT), id="(2) repetition"),
    ],
)
def test_variants_of_other_programs_read_as_the_gnubg_export(variant):
    """Each variant is GNU Backgammon's export edited as another program or site writes it: the same match."""
    assert variant != GNUBG_EXPORT
    match = parse_mat(variant)
    expected = parse_mat(GNUBG_EXPORT)
    assert (match.length, match.players, match.final_score) == (expected.length, expected.players, (0, 3))
    for game, reference in zip(match.games, expected.games, strict=True):
        assert [a.kind for a in game.actions] == [a.kind for a in reference.actions]
        assert (game.winner, game.points) == (reference.winner, reference.points)
        replay, reference_replay = replay_game(game), replay_game(reference)
        np.testing.assert_array_equal(replay.board, reference_replay.board)
        assert (replay.cube, replay.cube_owner, replay.over) == (
            reference_replay.cube,
            reference_replay.cube_owner,
            reference_replay.over,
        )


# GNU Backgammon 1.07's export of a money game with a beaver (`set beavers 3`, `export match mat`): the taker's
# "Beavers => 4" takes and redoubles at once.
GNUBG_BEAVER = """\
; [EventDate "2026.12.05"]

 0 point match

 Game 1
 gnubg : 0                      root : 0
  1)                             21: 24/23 13/11
  2) 52: 24/22 13/8              63: 11/5 8/5
  3)  Doubles => 2                Beavers => 4
  4) 62: 13/7 7/5
"""


@pytest.mark.parametrize(
    "text, message",
    [
        (GNUBG_BEAVER, "line 9: 'Beavers => 4': a beaver cannot be replayed"),
        (
            GNUBG_EXPORT.replace("Wins 2 points", "Wins 2 points and the game"),
            "line 46: cannot read 'Wins 2 points and",
        ),
        ("\ufeff" + GNUBG_EXPORT.replace("\n", "\r\n").replace(" 2)", " 2]", 1), "line 8: cannot read"),
    ],
)
def test_a_variant_that_cannot_be_read_gets_one_error_naming_the_line(text, message):
    with pytest.raises(InvalidMatFileError, match=re.escape(message)):
        parse_mat(text)


# XG's export of a resigned game: the loser's "Resigns", then the winner's "Wins".
XG_RESIGNATION = """\
 3 point match

 Game 1
 Alice : 0                                 Bob : 0
  1) 31: 8/5 6/5                            42: 8/4 6/4
  2) Resigns                                Wins 2 points
"""


def test_a_resignation_as_xg_writes_it_ends_the_game():
    (game,) = parse_mat(XG_RESIGNATION).games
    assert [a.kind for a in game.actions] == [ActionKind.MOVE, ActionKind.MOVE]
    assert (game.winner, game.points) == (1, 2) and not replay_game(game).over
    resigner_wins = XG_RESIGNATION.replace("Resigns                                Wins", "Resigns\n  3) Wins")
    with pytest.raises(InvalidMatFileError, match=re.escape("line 7: 'Wins 2 points' by the player who resigned")):
        parse_mat(resigner_wins)
