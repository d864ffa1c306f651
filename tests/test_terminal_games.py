"""The terminal games (``nardy play``, backgammon and long nardy) as a person meets them, driven through their
input and output streams: another game after a money game, resignations asked before they are offered, help,
the board's counts and the bot's name."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from bot.doors.terminal import TerminalSession
from bot.facade import Bot
from engine.long_nardy.board import START as LONG_START
from engine.long_nardy.render import render_long_board


def test_a_long_nardy_head_of_ten_to_fifteen_is_counted_in_digits():
    board = LONG_START.copy()
    board[24], board[21] = 12, 3
    text = render_long_board(board)
    assert "12 |" in text and "|15 " in text
    points = "".join(line[1:40] for line in text.splitlines()[1:-1])  # the board between its number lines
    assert not re.search(r"[A-F]", points) and sorted(int(n) for n in re.findall(r"\d+", points)) == [12, 15]


class Person:
    """Types each answer at the prompt it expects (one of the prefixes given), failing on any other prompt; then
    the end of the input."""

    def __init__(self, screen: io.StringIO, script: list[tuple[tuple[str, ...], str]]) -> None:
        self.screen, self.script = screen, list(script)

    def readline(self) -> str:
        prompt = self.screen.getvalue().rsplit("\n", 1)[-1]
        if not self.script:
            return ""  # the end of the input
        expected, answer = self.script.pop(0)
        assert prompt.startswith(expected), f"prompt {prompt!r}, expected one of {expected}"
        self.screen.write(answer + "\n")  # echoed, as a terminal shows what is typed
        return answer + "\n"


TURN = ("roll, double, hint, resign?", "Your move (")  # the person's first prompt, whoever opens


@pytest.fixture(scope="module")
def nardy() -> Bot:
    return Bot.load()


def play(bot: Bot, length: int, script: list[tuple[tuple[str, ...], str]]) -> tuple[str, Person]:
    screen = io.StringIO()
    person = Person(screen, script)
    session = TerminalSession(bot, length, np.random.default_rng(7), person, screen)  # type: ignore[arg-type]
    assert session.run() == 0
    return screen.getvalue(), person


def test_after_a_money_game_the_terminal_offers_another_and_the_score_runs_on(nardy):
    shown, person = play(
        nardy,
        0,
        [
            (TURN, "resign single"),
            (("Resign a single game: nardy would win 1 point. Are you sure? [y/n]",), "y"),
            (("Play another game? [y/n]",), "maybe"),
            (("Play another game? [y/n]",), "y"),
            (TURN, "resign backgammon"),
            (("Resign a backgammon: nardy would win 3 points. Are you sure? [y/n]",), "yes"),
            (("Play another game? [y/n]",), "n"),
        ],
    )
    assert not person.script
    assert "Answer y or n." in shown and "New game. Score: you 0, nardy 1 (money)" in shown
    assert shown.rstrip().endswith("Bye. Score: you 0, nardy 4 (money)")


def test_resign_asks_which_and_whether_the_person_is_sure_before_the_bot_hears_of_it(nardy):
    shown, person = play(
        nardy,
        0,
        [
            (TURN, "resign"),
            (("Resign a single game, a gammon or a backgammon? [single/gammon/backgammon/no]",), "all"),
            (("Resign a single game, a gammon or a backgammon?",), "gammon"),
            (("Resign a gammon: nardy would win 2 points. Are you sure? [y/n]",), "n"),
            (TURN, "resign"),
            (("Resign a single game, a gammon or a backgammon?",), "no"),
            (TURN, "board"),
        ],
    )
    assert not person.script
    assert "say single, gammon or backgammon (or no)" in shown and shown.count("Not resigned; play on.") == 2
    assert "accepts" not in shown and "rejects" not in shown and "won" not in shown
    assert shown.rstrip().endswith("Bye. Score: you 0, nardy 0 (money)")


def test_a_finished_match_offers_no_other_game(nardy):
    shown, _ = play(
        nardy, 1, [(TURN, "resign"), (("Resign a single game",), "single"), (("Resign a single game:",), "y")]
    )
    assert "nardy won the match." in shown and "Play another game" not in shown


@pytest.fixture(scope="module")
def long_player() -> Bot:
    return Bot.load(variant="long")


def play_long(player, script: list[tuple[tuple[str, ...], str]], length: int = 0) -> tuple[str, Person]:
    screen = io.StringIO()
    person = Person(screen, script)
    session = TerminalSession(player, length, np.random.default_rng(7), person, screen, cube=True)  # type: ignore[arg-type]
    assert session.run() == 0
    return screen.getvalue(), person


def test_long_nardy_help_shows_long_nardy_moves_and_nothing_of_a_bar_or_a_hit(long_player):
    shown, person = play_long(long_player, [(TURN, "help")])
    help_text = shown.split("Commands:", 1)[1].split("quit", 1)[0]
    assert "24/15" in help_text and "6/off" in help_text and "resign" in help_text
    assert "bar/" not in help_text and "*" not in help_text and "22" not in help_text
    assert "docs/long_nardy_rules.md" in shown


MARS = ("Resign a mars: nardy would win 2 points. Are you sure? [y/n]",)


def test_long_nardy_resign_names_the_mars_asks_and_another_game_follows(long_player):
    shown, person = play_long(
        long_player,
        [
            (TURN, "resign"),
            (MARS, "n"),
            (TURN, "resign"),
            (MARS, "y"),
            (("Play another game? [y/n]",), "y"),
            (TURN, "resign"),
            (MARS, "y"),
            (("Play another game? [y/n]",), "n"),
        ],
    )
    assert not person.script
    assert "Not resigned; play on." in shown
    assert "nardy won 2 points (mars). Score: you 0, nardy 2 (money)" in shown
    assert shown.rstrip().endswith("Bye. Score: you 0, nardy 4 (money)")


def test_a_long_nardy_match_plays_its_crawford_game_without_the_cube_and_ends(long_player):
    shown, person = play_long(long_player, [(TURN, "resign"), (MARS, "y"), (TURN, "resign"), (MARS, "y")], length=3)
    assert not person.script
    assert "Score: you 0, nardy 2 (3-point match, Crawford game)" in shown
    crawford = shown.split("Crawford game)", 1)[1]
    assert "roll, double" not in crawford and "doubles" not in crawford and "Crawford game, no cube" in crawford
    assert "nardy won the match." in shown and "Play another game" not in shown
