"""Long nardy at the command line: ``nardy hint --game long-nardy POSITION DICE`` and ``nardy play --game long-nardy``.

Only parsing, calling long nardy's ``Bot`` (``bot.facade``) and printing, as the backgammon doors do.
Positions are long nardy Position IDs (13 characters, docs/long_nardy.md), seen by the
side on roll; probabilities are the mover's after its play. Money play with the default
rule flags, the doubling cube when asked for (``--cube``); no matches.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TextIO

import numpy as np

from bot.doors.terminal import yes_or_no
from bot.doors.text import depth_drop
from bot.equity.cube import CubeDecision, CubeState, Owner, verdict_words
from bot.facade import Bot, RankedPlay
from engine.board import validate_dice
from engine.errors import BackgammonError, quote
from engine.game import Phase
from engine.long_nardy import (
    LongGame,
    LongGameResult,
    LongPosition,
    Rules,
    check_game_on,
    format_play,
    legal_plays,
    parse_long_move,
    pip_counts,
    render_long_board,
    start_long_game,
)
from engine.match import MatchState, roll_dice
from engine.plays import Play

HUMAN, BOT = 0, 1


def format_long_ranked_plays(ranked: list[RankedPlay], top: int) -> list[str]:
    """One line per play, best first: the move, the mover's equity, its three probabilities and the depth they
    come from; deeper plays first, with a line where the depth drops (``bot.doors.text.depth_drop``)."""
    lines = ["     move                          equity    win  win mars  lose mars  ply"]
    best = ranked[0].equity if ranked else 0.0
    for rank, play in enumerate(ranked[:top], start=1):
        if rank > 1 and play.plies < ranked[rank - 2].plies:
            lines.append(depth_drop(ranked[rank - 2].plies, play.plies))
        win, win_mars, lose_mars = play.game_probabilities
        difference = "" if rank == 1 else f" ({play.equity - best:+.3f})"
        lines.append(
            f"{rank:>3}. {play.notation or '(no move)':<28} {play.equity:+.3f}{difference:<9} "
            f"{win:.3f}   {win_mars:.3f}      {lose_mars:.3f}  {play.plies:>3}"
        )
    return lines


def run_hint(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    """``nardy hint --game long-nardy POSITION DICE``: the ranked plays of a roll."""
    if not args.dice:
        raise BackgammonError("long nardy hint: give the dice (there is no cube decision to show without them)")
    position = LongPosition.from_id(args.position)
    check_game_on(position.board, f"long nardy position {quote(args.position)}")
    dice = validate_dice(args.dice)
    bot = Bot.load(args.checkpoint, variant="long_nardy")
    ranked = bot.rank_plays(position, dice, args.plies, top=args.top)
    mover, opponent = pip_counts(position.board)
    lines = [
        f"Long nardy Position ID: {position.id}",
        f"Pips: side on roll {mover}, opponent {opponent}",
        f"Dice {dice[0]}{dice[1]}: best plays ({args.plies}-ply), values for the mover after the play",
    ]
    stdout.write("\n".join(lines + format_long_ranked_plays(ranked, args.top)) + "\n")
    return 0


HELP = """Commands:
  a move like 24/15, 24/18 18/15, 13/7(2), 6/off   play your roll (your points 24..1 from your head;
                  long nardy has no bar and no hitting)
  roll / double   before rolling, in a game with the cube (--cube)
  take / pass     answer a double
  hint            advice: ranked plays, or the cube decision
  moves           every legal play of your roll
  resign          resign the game (a mars while you have borne off no checker), after asking
  help            this text
  quit            leave
The rules, for players: docs/long_nardy_rules.md, or /rules/long-nardy on the web board (nardy serve)."""


class LongNardySession:
    """Money games of long nardy in the terminal: the person is X (seat 0), the bot O (seat 1), named ``name``.

    The dice come from ``rng``. The person types a move (``24/18 18/15``), ``hint``,
    ``moves`` (every legal play), ``resign``, ``help`` or ``quit``; with the doubling cube
    (``rules.cube``), before each roll ``roll`` or ``double``, and ``take`` or ``pass`` when the
    bot doubles. After each game the session offers another; the score runs on.
    """

    def __init__(
        self,
        bot: Bot,
        rng: np.random.Generator,
        stdin: TextIO,
        stdout: TextIO,
        plies: int = 0,
        rules: Rules | None = None,
        name: str = "nardy",
    ) -> None:
        self.bot = bot
        self.rng = rng
        self.stdin = stdin
        self.stdout = stdout
        self.plies = plies
        rules = bot.variant.rules if rules is None else rules
        assert rules is not None, "a long nardy bot"
        self.rules: Rules = rules
        self.names = ("you", name)
        self.match = MatchState()  # the money score between games

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def score_line(self) -> str:
        you, them = self.match.score
        return f"Score: {self.names[HUMAN]} {you}, {self.names[BOT]} {them} (money)"

    def run(self, game: LongGame | None = None) -> int:
        """Play ``game`` (default: a new one after its opening throw) to its end, then more games while the person
        wants another; until the person quits."""
        while True:
            result = self.play(game)
            if result is None:
                self.say("You leave the game.")
                break
            self.match = result.next_match
            self.say(self._result_line(result))
            if not yes_or_no(self._line, self.say, "Play another game? [y/n] "):
                break
            game = None
            self.say(f"New game. {self.score_line()}")
        self.say(f"Bye. {self.score_line()}")
        return 0

    def play(self, game: LongGame | None = None) -> LongGameResult | None:
        """One game from ``game`` (default: a new one) to its result; None if the person quits."""
        step: LongGame | LongGameResult | None = game or start_long_game(self.match, self.rules, self.rng)
        bot = self.names[BOT]
        while isinstance(step, LongGame):
            if step.phase is Phase.BEFORE_ROLL:
                step = self._before_roll(step)
            elif step.phase is Phase.DOUBLED:
                step = self._answer_double(step) if step.actor == HUMAN else self._bot_answers(step)
            elif step.turn == BOT:
                assert step.dice is not None
                play = self.bot.best_play(step.board, step.dice, self.plies).play
                self.say(f"{bot} rolls {step.dice[0]}{step.dice[1]} and plays {_move_text(play)}")
                step = step.move(play)
            else:
                step = self._ask(step)
        return step

    def _result_line(self, result: LongGameResult) -> str:
        """Who won what, and the score after it."""
        if result.winner is None:
            return f"The game is drawn (the last roll). {self.score_line()}"
        winner = "You win" if result.winner == HUMAN else f"{self.names[BOT]} wins"
        kind = "double passed" if result.outcome is None else "mars" if int(result.outcome) == 2 else "oin"
        if result.resigned:
            kind += ", resigned"
        points = f"{result.points} point{'s' if result.points > 1 else ''}"
        return f"{winner} {points} ({kind}). {self.score_line()}"

    def _cube(self, game: LongGame, seat: int) -> CubeDecision:
        """The money cube decision of ``seat`` on roll in ``game`` (before its roll), by the bot."""
        owner = Owner.CENTERED if game.cube_owner is None else Owner.ME if game.cube_owner == seat else Owner.OPP
        return self.bot.cube_decision(
            game.board, CubeState(cube=1 if owner is Owner.CENTERED else 2, owner=owner), self.plies
        )

    def _roll(self, game: LongGame) -> LongGame:
        return game.roll(roll_dice(self.rng))

    def _board(self, game: LongGame) -> str:
        names = (f"{self.names[HUMAN]} (X)", f"{self.names[BOT]} (O)")
        return render_long_board(game.board, dice=game.dice, cube=self._cube_note(game), names=names)

    def _before_roll(self, game: LongGame) -> LongGame | LongGameResult | None:
        """The side on roll may double (the other answers), then rolls; None: the person quits."""
        if not game.may_double:
            return self._roll(game)
        if game.turn == BOT:
            if not self._cube(game, BOT).should_double:
                return self._roll(game)
            self.say(f"{self.names[BOT]} doubles to {game.raised_cube}.")
            return game.double()
        self.say(self._board(game))
        while True:
            text = self._line("Roll or double (roll / double / hint / resign / help / quit): ")
            if text is None:
                return None
            if text in ("", "roll", "r"):
                return self._roll(game)
            if text == "hint":
                decision = self._cube(game, HUMAN)
                self.say(
                    f"{verdict_words(decision.verdict)}: no double {decision.no_double:+.3f}, "
                    f"double/take {decision.double_take:+.3f}, double/pass {decision.double_pass:+.3f}"
                )
            elif text == "double":
                return game.double()
            elif text == "resign":
                resigned = self._resign(game)
                if resigned is not game:
                    return resigned
            elif text == "help":
                self.say(HELP)
            else:
                self.say("error: type roll, double, hint, resign, help or quit")

    def _bot_answers(self, offered: LongGame) -> LongGame | LongGameResult:
        """The bot takes or passes the person's double."""
        if self._cube(offered, HUMAN).should_take:  # the board and the cube as before the double
            self.say(f"{self.names[BOT]} takes; the cube is on {offered.raised_cube}.")
            return offered.take()
        self.say(f"{self.names[BOT]} passes.")
        return offered.drop()

    def _answer_double(self, offered: LongGame) -> LongGame | LongGameResult | None:
        """The person takes or passes the bot's double; None: the person quits."""
        while True:
            text = self._line("Take or pass (take / pass / hint / help / quit): ")
            if text is None:
                return None
            if text == "take":
                return offered.take()
            if text == "pass":
                return offered.drop()
            if text == "hint":
                decision = self._cube(offered, BOT)  # the board and the cube as before the double
                advice = "take" if decision.should_take else "pass"
                self.say(f"{advice}: double/take {-decision.double_take:+.3f} for you, pass -1.000")
            elif text == "help":
                self.say(HELP)
            else:
                self.say("error: type take, pass, hint, help or quit")

    def _resign(self, game: LongGame) -> LongGame | LongGameResult | None:
        """The game resigned once the person says it is sure (what it costs named first); ``game`` itself when
        not, or when the rules allow no resignation now; None: the person quits."""
        try:
            result = game.resign(HUMAN)
        except BackgammonError as error:
            self.say(f"error: {error}")
            return game
        assert result.outcome is not None
        kind = "a mars: you have borne off no checker" if int(result.outcome) == 2 else "a single game (oin)"
        points = f"{result.points} point{'s' if result.points > 1 else ''}"
        sure = yes_or_no(
            self._line, self.say, f"Resign {kind}; {self.names[BOT]} would win {points}. Are you sure? [y/n] "
        )
        if sure is None:
            return None
        if not sure:
            self.say("Not resigned; play on.")
            return game
        return result

    def _line(self, prompt: str) -> str | None:
        """The next line typed, stripped; None at the end of input or on ``quit``."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        text = line.strip()
        return None if not line or text in ("quit", "q") else text

    def _ask(self, game: LongGame) -> LongGame | LongGameResult | None:
        """The person's turn: the game after the move typed, or None to quit."""
        assert game.dice is not None
        self.say(self._board(game))
        plays = legal_plays(game.board, game.dice, game.rules)
        if len(plays) == 1 and not plays[0].steps:
            self.say(f"You rolled {game.dice[0]}{game.dice[1]}: no legal move.")
            return game.move(plays[0])
        while True:
            text = self._line(f"Your move ({game.dice[0]}{game.dice[1]}), or hint / moves / resign / help / quit: ")
            if text is None:
                return None
            if text == "hint":
                ranked = self.bot.rank_plays(game.board, game.dice, self.plies, top=5)
                self.say("\n".join(format_long_ranked_plays(ranked, 5)))
            elif text == "moves":
                self.say("  ".join(_move_text(play) for play in plays))
            elif text == "help":
                self.say(HELP)
            elif text == "resign":
                resigned = self._resign(game)
                if resigned is not game:
                    return resigned
            elif text:
                try:
                    return game.move(parse_long_move(text, game.board, game.dice, game.rules))
                except BackgammonError as error:
                    self.say(f"error: {error}")

    def _cube_note(self, game: LongGame) -> str:
        """The stake as the board shows it: empty without a cube."""
        if game.rules.cube == "none":
            return ""
        owner = "centred" if game.cube_owner is None else f"owned by {self.names[game.cube_owner]}"
        return f"cube {game.cube}, {owner}"


def _move_text(play: Play) -> str:
    return format_play(play) or "(no move)"


def run_play(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    """``nardy play --game long-nardy [--cube]``: a money game against the long nardy bot, with the doubling cube
    when asked for."""
    if args.length or args.level is not None:
        raise BackgammonError("long nardy play: money games at a search depth only; leave out --length and --level")
    bot = Bot.load(args.checkpoint, variant="long_nardy")
    assert bot.variant.rules is not None
    rules = replace(bot.variant.rules, cube="doubling") if args.cube else bot.variant.rules
    session = LongNardySession(bot, np.random.default_rng(args.seed), stdin, stdout, args.plies, rules)
    return session.run()
