"""A game or match against the bot in the terminal (the ``play`` subcommand), in either game.

The person types moves in GNU Backgammon's notation (``24/18 13/11``, ``bar/22*``,
``6/off``, ``8/5(2)``; long nardy ``24/15``, ``13/7(2)``), in any order and with a checker's
steps joined or apart (``13/8 8/2``, ``8/2 13/8``, ``13/2`` and ``13/7/2`` are one play: the
engine judges a play by the position it reaches); an illegal move is refused with the reason
and the position kept. Other commands: ``hint``, ``double``, ``take``, ``pass``, ``resign``
(backgammon: ``[single|gammon|backgammon]``, asked which when not said; long nardy: the rules fix
oin or mars and the game ends at once; confirmed before it is offered), ``accept``, ``reject``,
``board``, ``help``, ``quit``. The bot's moves and cube actions are printed in the same notation;
the board is shown from the person's side with pip counts, score and cube. After a money game the
session offers another; the score runs on. A match is played to its length with the Crawford rule.
With ``mat`` the match (or money session) is kept as a .mat record (``engine.matfile``; long nardy's
names its variant), written whole after each game and when the person leaves, for ``nardy analyze``.

The game's flow and rules (opening roll, cube, moves, resignations, points won) are the
engine's state machine of the bot's game, the match's (score, Crawford game) ``engine.match``'s,
read and drawn through the game's codec (``bot.doors.codecs``); every decision of the bot from
``bot.facade.Bot``. The session reads lines from ``stdin`` and writes to ``stdout``, so a script
can play it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional, TextIO

import numpy as np

from bot.doors.codecs import Step, codec_for
from bot.doors.text import format_cube, format_evaluation, format_ranked_plays
from bot.equity.met import met_for
from bot.facade import Bot
from bot.play.levels import Level, LevelPlayer
from bot.play.match_play import BotPlayer, mat_move
from engine.errors import BackgammonError, InvalidOptionError
from engine.game import Phase
from engine.match import MAX_CUBE, MatchState, roll_dice
from engine.matfile import MatAction, MatGame, MatMatch, clean_name, format_mat
from engine.plays import Play
from engine.variant import Finished

PERSON, BOT = 0, 1
YES, NO = ("y", "yes"), ("n", "no")
HINT_TOP = 5
HELP = """Commands:
  {moves}   play your roll
                  (steps in any order, a checker's steps apart or joined: 13/8 8/2 or 13/2)
  roll            roll the dice (before rolling you may also double)
  double          offer the cube before rolling
  take / pass     answer the bot's double
  accept / reject answer the bot's resignation
  {resign}
  hint            the bot's advice: ranked plays, or the cube decision
  moves           every legal play of your roll
  board           show the board again
  help            this text
  quit            leave{notes}"""


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


class TerminalSession:
    """One match (or money games one after another, ``length`` 0) between a person and ``bot``, in the bot's game.

    ``cube``: long nardy's money games with the doubling cube (backgammon and every match always have it).
    ``mat``: the file the games are recorded in (None: not recorded).
    """

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
        cube: bool = True,
        mat: Optional[str | Path] = None,
    ) -> None:
        longest = met_for(bot.variant).size
        if not 0 <= length <= longest:
            raise InvalidOptionError(
                f"--length {length}: expected 0 (a money game) or a match length up to {longest} "
                f"(the {bot.variant.title} match equity table's reach)"
            )
        self.bot, self.rng, self.stdin, self.stdout, self.plies = bot, rng, stdin, stdout, plies
        self.codec = codec_for(bot.variant)
        self.cube = cube
        self.names = (name, bot.name)
        # At a playing level the bot's own decisions have its depth and noise; hints stay at ``plies``.
        self.player = LevelPlayer(bot, level, rng) if level is not None else BotPlayer(bot, plies)
        self.match = MatchState(match_length=length)  # between games
        self.mat = None if mat is None else Path(mat)
        self.games: list[MatGame] = []  # the games played to their end, as recorded
        self.actions: list[MatAction] = []  # the game in progress, as recorded

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

    def show_board(self, game: Step) -> None:
        """The board from the person's side, with the dice if rolled."""
        board = game.board if game.turn == PERSON else self.bot.variant.flip(game.board)
        self.say(self.codec.render(game, PERSON, self.names) + f"Position ID: {self.codec.position_id(board)}")

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

    def help_text(self) -> str:
        """The commands, in the words of the session's game."""
        codec = self.codec
        return HELP.format(moves=codec.move_help, resign=codec.resign_help, notes=codec.help_notes)

    # ------------------------------------------------------------ the match

    def run(self, game: Optional[Step] = None) -> int:
        """Play until the match is over, or for money until the person wants no other game, or quits; the first
        game from ``game`` when given (a game of the bot's game in progress, in a session that records nothing: a
        record starts each game at its opening), else a new one."""
        if game is not None and self.mat is not None:
            raise ValueError("a session recording its games starts from a game's opening, not a game in progress")
        self.say(f"{self.names[BOT]} vs {self.names[PERSON]}. Type help for the commands.")
        while True:
            result = self.play_game(game)
            game = None
            if result is None:
                break
            self.keep_game(result)
            self.match = result.next_match
            self.say(f"{self.result_words(result)} {self.score_line()}")
            if self.match.match_length and self.match.is_over:
                assert self.match.winner is not None
                self.say(f"{self.names[self.match.winner]} won the match.")
                self.write_record(final=True)
                return 0
            if not self.match.match_length and not self.yes("Play another game? [y/n] "):
                break  # no, or the person left
        self.write_record(final=True)
        self.say(f"Bye. {self.score_line()}")
        return 0

    def keep_game(self, result: Finished) -> None:
        """Record a finished game (its actions, who won how many points) and write the record so far."""
        self.games.append(self.game_record(result.winner, result.points))
        self.actions = []
        self.write_record()

    def game_record(self, winner: Optional[int] = None, points: int = 0) -> MatGame:
        """The game in progress as recorded, from the score before it (no winner: left unfinished, or drawn)."""
        crawford = True if self.match.crawford else None
        return MatGame(self.match.score, tuple(self.actions), winner, points, crawford=crawford)

    def write_record(self, final: bool = False) -> None:
        """Write the games recorded to ``mat``, whole or not at all; ``final``: as the session ends, with a game the
        person left under way (kept unfinished, as gnubg saves one), saying where."""
        if self.mat is None:
            return
        from bot.doors.analyze_command import write_whole

        games = self.games + ([self.game_record()] if final and self.actions else [])
        if not games:
            return
        names = (clean_name(self.names[PERSON]) or "player", clean_name(self.names[BOT]) or "bot")
        variant = self.bot.variant
        record = MatMatch(self.match.match_length, names, tuple(games), variant=variant.name, rules=variant.rules)
        write_whole(str(self.mat), format_mat(record))
        if final:
            self.say(f"Recorded in {self.mat} (nardy analyze {self.mat}).")

    def result_words(self, result: Finished) -> str:
        """Who won how many points, and how when more than a single game (a gammon, a mars)."""
        if result.winner is None:
            return "The game is drawn (the last roll)."
        noun = "point" if result.points == 1 else "points"
        how = f" ({self.bot.variant.outcome_name(result.outcome)})" if result.outcome and result.outcome > 1 else ""
        return f"{self.names[result.winner]} won {result.points} {noun}{how}."

    def yes(self, question: str) -> Optional[bool]:
        """The person's yes or no to ``question``; None if the person leaves."""
        return yes_or_no(self.ask, self.say, question)

    def play_game(self, game: Optional[Step] = None) -> Optional[Finished]:
        """One game (from ``game`` when given); None if the person left during it."""
        step: Step = game
        self.actions = []
        if step is None:
            step = self.codec.new_game(self.match, self.cube)
            self.say(f"\nNew game. {self.score_line()}")
            while step.phase is Phase.OPENING:
                thrown = roll_dice(self.rng)
                step = step.roll_opening(*thrown)
            first = self.names[step.turn]
            if step.dice is not None:
                self.say(f"Opening roll: {first} to play {step.dice[0]}{step.dice[1]}.")
            else:
                self.say(f"Opening throw: {self.names[0]} {thrown[0]}, {self.names[1]} {thrown[1]}; {first} to roll.")
        while step is not None and not isinstance(step, Finished):
            step = self.turn_step(step)
        return step

    def turn_step(self, game: Step) -> Step:
        """The side on roll's cube actions and roll (phase BEFORE_ROLL), the answer to a double (DOUBLED), or its
        move (ROLLED)."""
        if game.phase is Phase.BEFORE_ROLL:
            return self.bot_before_roll(game) if game.turn == BOT else self.person_before_roll(game)
        if game.phase is Phase.DOUBLED:
            return self.person_answers_double(game) if game.actor == PERSON else self.bot_answers_double(game)
        return self.bot_moves(game) if game.turn == BOT else self.person_moves(game)

    def roll(self, game: Step) -> Step:
        return game.roll(roll_dice(self.rng))

    def may_double(self, game: Step) -> bool:
        """Whether the side on roll may double now, the cube not past its largest value."""
        return bool(game.may_double) and 2 * self.codec.cube(game)[0] <= MAX_CUBE

    # ------------------------------------------------------------ before the roll

    def bot_before_roll(self, game: Step) -> Step:
        """The bot's resignation (offered and answered, or ending the game where the rules say so), its double
        (answered), then its roll."""
        offer = self.bot.resign_decision(game.board, self.codec.cube_state(game, BOT), plies=self.plies).offer
        if offer.level is not None:
            fixed = self.codec.resign_level(game, BOT)
            if fixed is None:
                self.say(f"{self.names[BOT]} offers to resign {self.codec.level_words[offer.level - 1]}.")
                answered = self.person_answers_resignation(self.codec.resign(game, BOT, offer.level))
                if answered is None or isinstance(answered, Finished):
                    return answered
                game = answered
            elif fixed <= offer.level:
                self.say(f"{self.names[BOT]} resigns {self.codec.level_words[fixed - 1]}.")
                return self.codec.resign(game, BOT, fixed)
        if self.may_double(game) and self.player.should_double(game.board, self.codec.cube_state(game, BOT)):
            self.say(f"{self.names[BOT]} doubles to {2 * self.codec.cube(game)[0]}.")
            answered = self.person_answers_double(self.double(game))
            if answered is None or isinstance(answered, Finished):
                return answered
            game = answered
        game = self.roll(game)
        self.say(f"{self.names[BOT]} rolls {game.dice[0]}{game.dice[1]}.")
        return game

    def person_before_roll(self, game: Step) -> Step:
        if not self.may_double(game):
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
                answered = self.bot_answers_double(self.double(game))
                return self.roll(answered) if not isinstance(answered, Finished) else answered
            handled, after = self.common_command(game, command)
            if not handled:
                self.say("Before rolling: roll, double, hint, resign, board, help or quit.")
            elif after is None or isinstance(after, Finished):
                return after

    def bot_answers_double(self, game: Step) -> Step:
        """The bot takes or passes the person's double (its cube decision on the board and cube before it)."""
        if self.player.should_take(game.board, self.codec.cube_state(game, PERSON)):
            return self.answer_double(game, take=True)
        self.say(f"{self.names[BOT]} passes.")
        return self.answer_double(game, take=False)

    def person_answers_double(self, game: Step) -> Step:
        while True:
            answer = self.ask("take or pass? ")
            if answer is None:
                return None
            command = answer.lower()
            if command == "take":
                return self.answer_double(game, take=True)
            if command in ("pass", "drop"):
                return self.answer_double(game, take=False)
            if command == "hint":
                result = self.bot.evaluate(game.board, self.codec.cube_state(game, BOT), self.plies)
                self.say("The bot's cube analysis, from its side:\n" + "\n".join(format_cube(result)))
                self.say(f"Advice: {'take' if result.cube.should_take else 'pass'}.")
                continue
            handled, after = self.common_command(game, command, answering=True)
            if not handled:
                self.say("You have been doubled: take or pass.")
            elif after is None or isinstance(after, Finished):
                return after

    def double(self, game: Step) -> Step:
        """The side on roll doubles, recorded."""
        self.actions.append(MatAction.of_double(game.turn, 2 * self.codec.cube(game)[0]))
        return game.double()

    def answer_double(self, game: Step, take: bool) -> Step:
        """The side doubled takes (said with the cube's new value) or passes, recorded."""
        taker = game.actor
        self.actions.append(MatAction.of_take(taker) if take else MatAction.of_drop(taker))
        if not take:
            return game.drop()
        game = game.take()
        self.say(f"{self.names[taker]} take{'s' if taker == BOT else ''}; the cube is on {self.codec.cube(game)[0]}.")
        return game

    def moved(self, game: Step, play: Play) -> Step:
        """The side on roll plays ``play`` (possibly no move), recorded."""
        self.actions.append(mat_move(game.turn, game.dice, play, self.bot.variant))
        return game.move(play)

    def person_answers_resignation(self, game: Step) -> Step:
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

    def bot_moves(self, game: Step) -> Step:
        dice = game.dice
        play = self.player.choose_play(game.board, dice, self.codec.cube_state(game, BOT))
        if play.steps:
            self.say(f"{self.names[BOT]} plays {dice[0]}{dice[1]}: {self.bot.variant.format_play(play)}")
        else:
            self.say(f"{self.names[BOT]} cannot move {dice[0]}{dice[1]}.")
        return self.moved(game, play)

    def person_moves(self, game: Step) -> Step:
        dice = game.dice
        self.show_board(game)
        plays = self.bot.variant.legal_plays(game.board, dice)
        if not plays[0].steps:
            self.say(f"You cannot move {dice[0]}{dice[1]}.")
            return self.moved(game, plays[0])
        while True:
            text = self.ask(f"Your move ({dice[0]}{dice[1]}): ")
            if text is None:
                return None
            command = text.lower()
            handled, after = self.common_command(game, command)
            if handled and (after is None or isinstance(after, Finished)):
                return after
            if handled:
                continue
            if command in ("roll", "double"):
                self.say("You have already rolled: type your move.")
                continue
            try:
                play = self.bot.variant.parse_play(text, game.board, dice)
            except BackgammonError as error:
                self.say(f"Not played: {error}")
                continue
            return self.moved(game, play)

    # ------------------------------------------------------------ commands valid everywhere

    def common_command(self, game: Step, command: str, answering: bool = False) -> tuple[bool, Step]:
        """Handle hint, moves (the legal plays of a roll), board, help and resign: (True, what the game is after it:
        itself, a result if a resignation ended it, None if the person left), or (False, None) if ``command`` was
        none of them."""
        words = command.split()
        if command == "help":
            self.say(self.help_text())
        elif command == "board":
            self.show_board(game)
            self.say(self.score_line())
        elif command == "hint" and not answering:
            self.hint(game)
        elif command == "moves" and game.phase is Phase.ROLLED:
            plays = self.bot.variant.legal_plays(game.board, game.dice)
            self.say("  ".join(self.bot.variant.format_play(play) or "(no move)" for play in plays))
        elif words and words[0] == "resign":
            return True, self.person_resigns(game, words[1] if len(words) > 1 else None)
        else:
            return False, None
        return True, game

    def hint(self, game: Step) -> None:
        cube = self.codec.cube_state(game, PERSON)
        if game.dice is None:
            result = self.bot.evaluate(game.board, cube, self.plies)
            self.say("\n".join(format_evaluation(result, self.bot.variant) + format_cube(result)))
        else:
            ranked = self.bot.rank_plays(game.board, game.dice, plies=self.plies, top=HINT_TOP, state=cube)
            self.say("\n".join(format_ranked_plays(ranked)))

    def person_resigns(self, game: Step, word: Optional[str]) -> Step:
        """Ask which resignation (when ``word`` names none and the rules leave it open) and whether the person is
        sure, then offer it (the bot answers) or, where the rules say so, end the game; the game goes on as it was
        when the person thinks better of it, None if the person leaves."""
        codec = self.codec
        level = codec.resign_level(game, PERSON)
        if level is None:
            level = self.ask_level(word)
            if level is None or level == 0:
                return None if level is None else game
        points = level * max(codec.cube(game)[0], 1)
        question = (
            f"Resign {codec.level_words[level - 1]}: {self.names[BOT]} would win {points} point{'s' * (points > 1)}."
        )
        sure = self.yes(question + " Are you sure? [y/n] ")
        if sure is None:
            return None
        if not sure:
            self.say("Not resigned; play on.")
            return game
        offered = codec.resign(game, PERSON, level)
        if isinstance(offered, Finished):
            return offered
        decisions = self.bot.resign_decision(game.board, codec.cube_state(game, game.turn), level, self.plies)
        # The person resigns on its own turn (the bot answers as the opponent) or while the bot is on roll.
        answer = decisions.opponent_accepts if game.turn == PERSON else decisions.side_on_roll_accepts
        if answer.accept:
            self.say(f"{self.names[BOT]} accepts {codec.level_words[level - 1]}.")
            return offered.accept()
        self.say(f"{self.names[BOT]} rejects; play on.")
        return offered.reject()

    def ask_level(self, word: Optional[str]) -> Optional[int]:
        """The resignation level the person names (``word``, else asked): 1, 2, ...; 0 for no; None if it leaves."""
        names = self.bot.variant.outcome_names
        levels = {"normal": 1} | {name: level for level, name in enumerate(names, start=1)}
        words = self.codec.level_words
        which = f"Resign {', '.join(words[:-1])} or {words[-1]}? [{'/'.join(names)}/no] "
        word = self.ask(which) if word is None else word
        while word is not None and word.lower() not in levels:
            if word.lower() in NO:
                self.say("Not resigned; play on.")
                return 0
            self.say(f"resign {word!r}: say {', '.join(names[:-1])} or {names[-1]} (or no).")
            word = self.ask(which)
        return None if word is None else levels[word.lower()]
