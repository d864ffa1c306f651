"""A game or match against the bot in the terminal (the ``play`` subcommand).

The person types moves in GNU Backgammon's notation (``24/18 13/11``, ``bar/22*``,
``6/off``, ``8/5(2)``); an illegal move is refused with the reason and the position
kept. Other commands: ``hint``, ``double``, ``take``, ``pass``, ``resign [single|
gammon|backgammon]``, ``accept``, ``reject``, ``board``, ``help``, ``quit``. The
bot's moves and cube actions are printed in the same notation; the board is shown
from the person's side (``X``, moving 24 -> 1) with pip counts, score and cube.

Rules of the match (score, Crawford game, cube access, points won) come from
``engine.match``; every decision of the bot from ``bot.facade.Bot``. The session
reads lines from ``stdin`` and writes to ``stdout``, so a script can play it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, TextIO

import numpy as np

from bot.doors.text import format_cube, format_evaluation, format_ranked_plays
from bot.facade import Bot
from bot.cube import cube_state_for
from engine.board import START, flip
from engine.errors import BackgammonError, InvalidOptionError
from engine.match import MatchState, after_game, game_outcome, game_result_points, may_double, opening_roll
from engine.notation import parse_move
from engine.plays import legal_plays
from engine.position_id import encode_position_id
from engine.render import render_board

PERSON, BOT = 0, 1
LEVELS = {"single": 1, "normal": 1, "gammon": 2, "backgammon": 3}
LEVEL_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
HINT_TOP = 5
HELP = """Commands:
  a move like 24/18 13/11, bar/22*, 6/off, 8/5(2)   play your roll
  roll            roll the dice (before rolling you may also double)
  double          offer the cube before rolling
  take / pass     answer the bot's double
  accept / reject answer the bot's resignation
  resign [single|gammon|backgammon]   offer to resign (default single)
  hint            the bot's advice: ranked plays, or the cube decision
  board           show the board again
  help            this text
  quit            leave"""


class _Quit(Exception):
    """The person left (``quit`` or the end of the input)."""


class _GameOver(Exception):
    """The game ended by a pass or an accepted resignation: ``winner`` scores ``points``."""

    def __init__(self, winner: int, points: int) -> None:
        super().__init__(winner, points)
        self.winner, self.points = winner, points


class TerminalSession:
    """One match (or one money game, ``length`` 0) between a person and ``bot``."""

    def __init__(
        self,
        bot: Bot,
        length: int,
        rng: np.random.Generator,
        stdin: TextIO,
        stdout: TextIO,
        plies: int = 0,
        name: str = "you",
    ) -> None:
        if length < 0:
            raise InvalidOptionError(f"--length {length}: expected 0 (a money game) or a match length")
        self.bot, self.rng, self.stdin, self.stdout, self.plies = bot, rng, stdin, stdout, plies
        self.names = (name, bot.name)
        self.state = MatchState(match_length=length)
        self.board = np.zeros(26, dtype=np.int8)  # in the view of ``self.turn``
        self.turn = PERSON

    # ------------------------------------------------------------ input and output

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")

    def ask(self, prompt: str, default: str = "") -> str:
        """The next non-empty line of input, or ``default`` for an empty one if given.

        Raise _Quit at the end of the input or on ``quit``.
        """
        while True:
            self.stdout.write(prompt)
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say("")
                raise _Quit
            text = line.strip()
            if text.lower() in ("quit", "exit", "q"):
                raise _Quit
            if text or default:
                return text or default

    def person_view(self) -> np.ndarray:
        return self.board if self.turn == PERSON else flip(self.board)

    def show_board(self, dice: Optional[tuple[int, int]] = None) -> None:
        owner = self.state.cube_owner
        self.say(
            render_board(
                self.person_view(),
                dice=dice,
                cube_value=self.state.cube_value,
                cube_owner=0 if owner is None else 1 if owner == PERSON else -1,
                score=self.state.score,
                match_length=self.state.match_length,
                names=self.names,
            )
            + f"Position ID: {encode_position_id(self.person_view())}"
        )

    def score_line(self) -> str:
        you, them = self.state.score
        if not self.state.match_length:
            return f"Score: {self.names[PERSON]} {you}, {self.names[BOT]} {them} (money)"
        line = f"Score: {self.names[PERSON]} {you}, {self.names[BOT]} {them} ({self.state.match_length}-point match"
        if self.state.crawford:
            line += ", Crawford game"
        elif self.state.post_crawford:
            line += ", post-Crawford"
        return line + ")"

    # ------------------------------------------------------------ the match

    def run(self) -> int:
        """Play until the match is over (one game for money) or the person quits."""
        self.say(f"{self.names[BOT]} vs {self.names[PERSON]}. Type help for the commands.")
        try:
            while True:
                winner, points = self.play_game()
                self.state = after_game(self.state, winner, points)
                noun = "point" if points == 1 else "points"
                self.say(f"{self.names[winner]} won {points} {noun}. {self.score_line()}")
                if not self.state.match_length or self.state.is_over:
                    break
            if self.state.match_length:
                self.say(f"{self.names[self.state.winner]} won the match.")
        except _Quit:
            self.say(f"Bye. {self.score_line()}")
        return 0

    def play_game(self) -> tuple[int, int]:
        """One game; returns (winner, points)."""
        self.turn, dice = opening_roll(self.rng)
        self.board = START.copy()
        self.say(f"\nNew game. {self.score_line()}")
        self.say(f"Opening roll: {self.names[self.turn]} to play {dice[0]}{dice[1]}.")
        try:
            while True:
                if dice is None:
                    dice = self.before_roll()
                afterstate = self.move(dice)
                if not np.any(afterstate > 0):
                    outcome = game_outcome(afterstate)
                    return self.turn, game_result_points(outcome, self.state.cube_value, self.state.jacoby)
                self.board, self.turn, dice = flip(afterstate), 1 - self.turn, None
        except _GameOver as over:
            return over.winner, over.points

    def roll(self) -> tuple[int, int]:
        d1, d2 = (int(d) for d in self.rng.integers(1, 7, size=2))
        return d1, d2

    # ------------------------------------------------------------ before the roll

    def before_roll(self) -> tuple[int, int]:
        """Cube actions and resignations before the side on roll rolls; then its dice."""
        if self.turn == BOT:
            self.bot_resigns()
            cube = cube_state_for(self.state, BOT)
            if may_double(self.state, BOT) and self.bot.evaluate(self.board, cube, self.plies).cube.should_double:
                self.say(f"{self.names[BOT]} doubles to {2 * self.state.cube_value}.")
                self.person_answers_double()
            dice = self.roll()
            self.say(f"{self.names[BOT]} rolls {dice[0]}{dice[1]}.")
            return dice
        if not may_double(self.state, PERSON):
            return self.roll()
        self.show_board()
        while True:
            command = self.ask("roll, double, hint, resign? [roll] ", default="roll").lower()
            if command in ("roll", "r"):
                return self.roll()
            if command == "double":
                self.person_doubles()
                return self.roll()
            if not self.common_command(command, dice=None):
                self.say("Before rolling: roll, double, hint, resign, board, help or quit.")

    def person_doubles(self) -> None:
        doubler = cube_state_for(self.state, PERSON)
        if self.bot.evaluate(self.board, doubler, self.plies).cube.should_take:
            self.take(taker=BOT)
        else:
            self.say(f"{self.names[BOT]} passes.")
            raise _GameOver(PERSON, self.state.cube_value)

    def person_answers_double(self) -> None:
        while True:
            command = self.ask("take or pass? ").lower()
            if command == "take":
                self.take(taker=PERSON)
                return
            if command in ("pass", "drop"):
                raise _GameOver(BOT, self.state.cube_value)
            if command == "hint":
                doubler = cube_state_for(self.state, BOT)
                result = self.bot.evaluate(self.board, doubler, self.plies)
                self.say(f"The bot's cube analysis, from its side:\n" + "\n".join(format_cube(result)))
                self.say(f"Advice: {'take' if result.cube.should_take else 'pass'}.")
            elif not self.common_command(command, dice=None, answering=True):
                self.say("You have been doubled: take or pass.")

    def take(self, taker: int) -> None:
        self.state = replace(self.state, cube_value=2 * self.state.cube_value, cube_owner=taker)
        self.say(f"{self.names[taker]} take{'s' if taker == BOT else ''}; the cube is on {self.state.cube_value}.")

    def bot_resigns(self) -> None:
        """The bot offers the cheapest resignation it judges right, if any, and the person answers."""
        offer = self.bot.resign_decision(self.board, cube_state_for(self.state, BOT), plies=self.plies).offer
        if offer.level is None:
            return
        self.say(f"{self.names[BOT]} offers to resign {LEVEL_NAMES[offer.level]}.")
        while True:
            command = self.ask("accept or reject? ").lower()
            if command == "accept":
                raise _GameOver(PERSON, offer.level * self.state.cube_value)
            if command == "reject":
                return
            self.say("Answer accept or reject.")

    # ------------------------------------------------------------ moves

    def move(self, dice: tuple[int, int]) -> np.ndarray:
        """The side on roll plays ``dice``; returns the afterstate in its view."""
        if self.turn == BOT:
            cube = cube_state_for(self.state, BOT)
            best = self.bot.best_play(self.board, dice, plies=self.plies, state=cube)
            if best.notation:
                self.say(f"{self.names[BOT]} plays {dice[0]}{dice[1]}: {best.notation}")
            else:
                self.say(f"{self.names[BOT]} cannot move {dice[0]}{dice[1]}.")
            return best.afterstate
        self.show_board(dice)
        if not legal_plays(self.board, dice)[0].steps:
            self.say(f"You cannot move {dice[0]}{dice[1]}.")
            return self.board
        while True:
            text = self.ask(f"Your move ({dice[0]}{dice[1]}): ")
            command = text.lower()
            if self.common_command(command, dice):
                continue
            if command in ("roll", "double"):
                self.say("You have already rolled: type your move.")
                continue
            try:
                return parse_move(text, self.board, dice).afterstate
            except BackgammonError as error:
                self.say(f"Not played: {error}")

    # ------------------------------------------------------------ commands valid everywhere

    def common_command(self, command: str, dice: Optional[tuple[int, int]], answering: bool = False) -> bool:
        """Handle hint, board, help and resign; return whether ``command`` was one of them."""
        words = command.split()
        if command == "help":
            self.say(HELP)
        elif command == "board":
            self.show_board(dice)
            self.say(self.score_line())
        elif command == "hint" and not answering:
            self.hint(dice)
        elif words and words[0] == "resign":
            self.person_resigns(words[1] if len(words) > 1 else "single")
        else:
            return False
        return True

    def hint(self, dice: Optional[tuple[int, int]]) -> None:
        cube = cube_state_for(self.state, PERSON)
        if dice is None:
            result = self.bot.evaluate(self.board, cube, self.plies)
            self.say("\n".join(format_evaluation(result) + format_cube(result)))
        else:
            ranked = self.bot.rank_plays(self.board, dice, plies=self.plies, top=HINT_TOP, state=cube)
            self.say("\n".join(format_ranked_plays(ranked)))

    def person_resigns(self, word: str) -> None:
        if word not in LEVELS:
            self.say(f"resign {word!r}: say single, gammon or backgammon.")
            return
        level = LEVELS[word]
        decisions = self.bot.resign_decision(self.board, cube_state_for(self.state, self.turn), level, self.plies)
        # The person resigns on its own turn (the bot answers as the opponent) or while the bot is on roll.
        answer = decisions.opponent_accepts if self.turn == PERSON else decisions.side_on_roll_accepts
        if answer.accept:
            self.say(f"{self.names[BOT]} accepts {LEVEL_NAMES[level]}.")
            raise _GameOver(BOT, level * self.state.cube_value)
        self.say(f"{self.names[BOT]} rejects; play on.")
