"""A game or match against the bot in the terminal (the ``play`` subcommand).

The person types moves in GNU Backgammon's notation (``24/18 13/11``, ``bar/22*``,
``6/off``, ``8/5(2)``), in any order and with a checker's steps joined or apart
(``13/8 8/2``, ``8/2 13/8``, ``13/2`` and ``13/7/2`` are one play: ``engine.notation``
judges a play by the position it reaches); an illegal move is refused with the reason
and the position kept. Other commands: ``hint``, ``double``, ``take``, ``pass``, ``resign [single|
gammon|backgammon]`` (asked which, when not said, and confirmed before it is offered), ``accept``,
``reject``, ``board``, ``help``, ``quit``. The bot's moves and cube actions are printed in the same
notation; the board is shown from the person's side (``X``, moving 24 -> 1) with pip counts, score
and cube. After a money game the session offers another; the score runs on.

The game's flow and rules (opening roll, cube, moves, resignations, points won)
are ``engine.game``'s state machine, the match's (score, Crawford game)
``engine.match``'s; every decision of the bot from ``bot.facade.Bot``. The session
reads lines from ``stdin`` and writes to ``stdout``, so a script can play it.
"""

from __future__ import annotations

from typing import Callable, Optional, TextIO, Union

import numpy as np

from bot.doors.text import format_cube, format_evaluation, format_ranked_plays
from bot.facade import Bot
from bot.play.levels import Level, LevelPlayer
from bot.play.match_play import BotPlayer
from bot.equity.cube import cube_state_for
from engine.errors import BackgammonError, InvalidOptionError
from engine.game import Game, GameResult, Phase, start_game
from engine.match import MatchState, may_double, roll_dice
from engine.notation import format_play, parse_move
from engine.plays import legal_plays
from engine.render import render_board

PERSON, BOT = 0, 1
LEVELS = {"single": 1, "normal": 1, "gammon": 2, "backgammon": 3}
LEVEL_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
YES, NO = ("y", "yes"), ("n", "no")
HINT_TOP = 5
HELP = """Commands:
  a move like 24/18 13/11, bar/22*, 6/off, 8/5(2)   play your roll
                  (steps in any order, a checker's steps apart or joined: 13/8 8/2 or 13/2)
  roll            roll the dice (before rolling you may also double)
  double          offer the cube before rolling
  take / pass     answer the bot's double
  accept / reject answer the bot's resignation
  resign [single|gammon|backgammon]   offer to resign (asked which, then confirmed)
  hint            the bot's advice: ranked plays, or the cube decision
  board           show the board again
  help            this text
  quit            leave"""


def yes_or_no(ask: Callable[[str], Optional[str]], say: Callable[[str], None], question: str) -> Optional[bool]:
    """A person's yes or no to ``question`` (``ask`` prompts and reads a line, None when the person leaves),
    asked again until it is one; None if the person leaves. Both games' terminal sessions ask this way."""
    while True:
        answer = ask(question)
        if answer is None:
            return None
        if answer.lower() in YES + NO:
            return answer.lower() in YES
        say("Answer y or n.")


Step = Union[Game, GameResult, None]  # what a turn of the dialogue leads to; None: the person left


class TerminalSession:
    """One match (or money games one after another, ``length`` 0) between a person and ``bot``, on ``engine.game``."""

    def __init__(
        self,
        bot: Bot,
        length: int,
        rng: np.random.Generator,
        stdin: TextIO,
        stdout: TextIO,
        plies: int = 0,
        name: str = "you",
        level: Optional[Level] = None,
    ) -> None:
        if length < 0:
            raise InvalidOptionError(f"--length {length}: expected 0 (a money game) or a match length")
        self.bot, self.rng, self.stdin, self.stdout, self.plies = bot, rng, stdin, stdout, plies
        self.names = (name, bot.name)
        # At a playing level the bot's own decisions have its depth and noise; hints stay at ``plies``.
        self.player = LevelPlayer(bot, level, rng) if level is not None else BotPlayer(bot, plies)
        self.match = MatchState(match_length=length)  # between games

    # ------------------------------------------------------------ input and output

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")

    def ask(self, prompt: str, default: str = "") -> Optional[str]:
        """The next non-empty line of input, or ``default`` for an empty one if given.

        None at the end of the input or on ``quit``: the person leaves.
        """
        while True:
            self.stdout.write(prompt)
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say("")
                return None
            text = line.strip()
            if text.lower() in ("quit", "exit", "q"):
                return None
            if text or default:
                return text or default

    def show_board(self, game: Game) -> None:
        """The board from the person's side, with the dice if rolled."""
        owner = game.match.cube_owner
        person_view = game.position if game.turn == PERSON else game.position.flipped()
        self.say(
            render_board(
                person_view.board,
                dice=game.dice,
                cube_value=game.match.cube_value,
                cube_owner=0 if owner is None else 1 if owner == PERSON else -1,
                score=game.match.score,
                match_length=game.match.match_length,
                names=self.names,
            )
            + f"Position ID: {person_view.id}"
        )

    def score_line(self) -> str:
        you, them = self.match.score
        if not self.match.match_length:
            return f"Score: {self.names[PERSON]} {you}, {self.names[BOT]} {them} (money)"
        line = f"Score: {self.names[PERSON]} {you}, {self.names[BOT]} {them} ({self.match.match_length}-point match"
        if self.match.crawford:
            line += ", Crawford game"
        elif self.match.post_crawford:
            line += ", post-Crawford"
        return line + ")"

    # ------------------------------------------------------------ the match

    def run(self) -> int:
        """Play until the match is over, or for money until the person wants no other game, or quits."""
        self.say(f"{self.names[BOT]} vs {self.names[PERSON]}. Type help for the commands.")
        while True:
            result = self.play_game()
            if result is None:
                break
            self.match = result.next_match
            noun = "point" if result.points == 1 else "points"
            self.say(f"{self.names[result.winner]} won {result.points} {noun}. {self.score_line()}")
            if self.match.match_length and self.match.is_over:
                assert self.match.winner is not None
                self.say(f"{self.names[self.match.winner]} won the match.")
                return 0
            if not self.match.match_length and not self.yes("Play another game? [y/n] "):
                break  # no, or the person left
        self.say(f"Bye. {self.score_line()}")
        return 0

    def yes(self, question: str) -> Optional[bool]:
        """The person's yes or no to ``question``; None if the person leaves."""
        return yes_or_no(self.ask, self.say, question)

    def play_game(self) -> Optional[GameResult]:
        """One game; None if the person left during it."""
        game: Step = start_game(self.match, self.rng)
        assert isinstance(game, Game) and game.turn is not None and game.dice is not None
        self.say(f"\nNew game. {self.score_line()}")
        self.say(f"Opening roll: {self.names[game.turn]} to play {game.dice[0]}{game.dice[1]}.")
        while isinstance(game, Game):
            game = self.turn_step(game)
        return game

    def turn_step(self, game: Game) -> Step:
        """The side on roll's cube actions and roll (phase BEFORE_ROLL) or its move (ROLLED)."""
        if game.phase is Phase.BEFORE_ROLL:
            return self.bot_before_roll(game) if game.turn == BOT else self.person_before_roll(game)
        return self.bot_moves(game) if game.turn == BOT else self.person_moves(game)

    def roll(self, game: Game) -> Game:
        return game.roll(roll_dice(self.rng))

    # ------------------------------------------------------------ before the roll

    def bot_before_roll(self, game: Game) -> Step:
        """The bot's resignation offer (answered), its double (answered), then its roll."""
        offer = self.bot.resign_decision(game.board, cube_state_for(game.match, BOT), plies=self.plies).offer
        if offer.level is not None:
            self.say(f"{self.names[BOT]} offers to resign {LEVEL_NAMES[offer.level]}.")
            answered = self.person_answers_resignation(game.resign(BOT, offer.level))
            if not isinstance(answered, Game):
                return answered
            game = answered
        cube = cube_state_for(game.match, BOT)
        if may_double(game.match, BOT) and self.player.should_double(game.board, cube):
            self.say(f"{self.names[BOT]} doubles to {2 * game.match.cube_value}.")
            answered = self.person_answers_double(game.double())
            if not isinstance(answered, Game):
                return answered
            game = answered
        game = self.roll(game)
        assert game.dice is not None
        self.say(f"{self.names[BOT]} rolls {game.dice[0]}{game.dice[1]}.")
        return game

    def person_before_roll(self, game: Game) -> Step:
        if not may_double(game.match, PERSON):
            return self.roll(game)
        self.show_board(game)
        while True:
            answer = self.ask("roll, double, hint, resign? [roll] ", default="roll")
            if answer is None:
                return None
            command = answer.lower()
            if command in ("roll", "r"):
                return self.roll(game)
            if command == "double":
                answered = self.bot_answers_double(game.double())
                return self.roll(answered) if isinstance(answered, Game) else answered
            handled, after = self.common_command(game, command)
            if not handled:
                self.say("Before rolling: roll, double, hint, resign, board, help or quit.")
            elif not isinstance(after, Game):
                return after

    def bot_answers_double(self, game: Game) -> Step:
        doubler = cube_state_for(game.match, PERSON)
        if self.player.should_take(game.board, doubler):
            return self.took(game.take())
        self.say(f"{self.names[BOT]} passes.")
        return game.drop()

    def person_answers_double(self, game: Game) -> Step:
        while True:
            answer = self.ask("take or pass? ")
            if answer is None:
                return None
            command = answer.lower()
            if command == "take":
                return self.took(game.take())
            if command in ("pass", "drop"):
                return game.drop()
            if command == "hint":
                doubler = cube_state_for(game.match, BOT)
                result = self.bot.evaluate(game.board, doubler, self.plies)
                self.say("The bot's cube analysis, from its side:\n" + "\n".join(format_cube(result)))
                self.say(f"Advice: {'take' if result.cube.should_take else 'pass'}.")
                continue
            handled, after = self.common_command(game, command, answering=True)
            if not handled:
                self.say("You have been doubled: take or pass.")
            elif not isinstance(after, Game):
                return after

    def took(self, game: Game) -> Game:
        """Say who took the double ``game`` has just seen taken."""
        taker = game.match.cube_owner
        assert taker is not None
        self.say(f"{self.names[taker]} take{'s' if taker == BOT else ''}; the cube is on {game.match.cube_value}.")
        return game

    def person_answers_resignation(self, game: Game) -> Step:
        while True:
            answer = self.ask("accept or reject? ")
            if answer is None:
                return None
            command = answer.lower()
            if command == "accept":
                return game.accept()
            if command == "reject":
                return game.reject()
            self.say("Answer accept or reject.")

    # ------------------------------------------------------------ moves

    def bot_moves(self, game: Game) -> Step:
        assert game.dice is not None
        dice = game.dice
        play = self.player.choose_play(game.board, dice, cube_state_for(game.match, BOT))
        if play.steps:
            self.say(f"{self.names[BOT]} plays {dice[0]}{dice[1]}: {format_play(play)}")
        else:
            self.say(f"{self.names[BOT]} cannot move {dice[0]}{dice[1]}.")
        return game.move(play)

    def person_moves(self, game: Game) -> Step:
        assert game.dice is not None
        dice = game.dice
        self.show_board(game)
        plays = legal_plays(game.board, dice)
        if not plays[0].steps:
            self.say(f"You cannot move {dice[0]}{dice[1]}.")
            return game.move(plays[0])
        while True:
            text = self.ask(f"Your move ({dice[0]}{dice[1]}): ")
            if text is None:
                return None
            command = text.lower()
            handled, after = self.common_command(game, command)
            if handled and not isinstance(after, Game):
                return after
            if handled:
                continue
            if command in ("roll", "double"):
                self.say("You have already rolled: type your move.")
                continue
            try:
                play = parse_move(text, game.board, dice)
            except BackgammonError as error:
                self.say(f"Not played: {error}")
                continue
            return game.move(play)

    # ------------------------------------------------------------ commands valid everywhere

    def common_command(self, game: Game, command: str, answering: bool = False) -> tuple[bool, Step]:
        """Handle hint, board, help and resign: (True, what the game is after it: itself, a result if a
        resignation was accepted, None if the person left), or (False, None) if ``command`` was none of them."""
        words = command.split()
        if command == "help":
            self.say(HELP)
        elif command == "board":
            self.show_board(game)
            self.say(self.score_line())
        elif command == "hint" and not answering:
            self.hint(game)
        elif words and words[0] == "resign":
            return True, self.person_resigns(game, words[1] if len(words) > 1 else None)
        else:
            return False, None
        return True, game

    def hint(self, game: Game) -> None:
        cube = cube_state_for(game.match, PERSON)
        if game.dice is None:
            result = self.bot.evaluate(game.board, cube, self.plies)
            self.say("\n".join(format_evaluation(result) + format_cube(result)))
        else:
            ranked = self.bot.rank_plays(game.board, game.dice, plies=self.plies, top=HINT_TOP, state=cube)
            self.say("\n".join(format_ranked_plays(ranked)))

    def person_resigns(self, game: Game, word: Optional[str]) -> Step:
        """Ask which resignation (when ``word`` names none) and whether the person is sure, then offer it; the
        game goes on as it was when the person thinks better of it, None if the person leaves."""
        which = "Resign a single game, a gammon or a backgammon? [single/gammon/backgammon/no] "
        word = self.ask(which) if word is None else word
        while word is not None and word.lower() not in LEVELS:
            if word.lower() in NO:
                self.say("Not resigned; play on.")
                return game
            self.say(f"resign {word!r}: say single, gammon or backgammon (or no).")
            word = self.ask(which)
        if word is None:
            return None
        level = LEVELS[word.lower()]
        points = level * game.match.cube_value
        question = f"Resign {LEVEL_NAMES[level]}: {self.names[BOT]} would win {points} point{'s' * (points > 1)}."
        sure = self.yes(question + " Are you sure? [y/n] ")
        if sure is None:
            return None
        if not sure:
            self.say("Not resigned; play on.")
            return game
        assert game.turn is not None
        decisions = self.bot.resign_decision(game.board, cube_state_for(game.match, game.turn), level, self.plies)
        # The person resigns on its own turn (the bot answers as the opponent) or while the bot is on roll.
        answer = decisions.opponent_accepts if game.turn == PERSON else decisions.side_on_roll_accepts
        offered = game.resign(PERSON, level)
        if answer.accept:
            self.say(f"{self.names[BOT]} accepts {LEVEL_NAMES[level]}.")
            return offered.accept()
        self.say(f"{self.names[BOT]} rejects; play on.")
        return offered.reject()
