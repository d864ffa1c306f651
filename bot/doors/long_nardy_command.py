"""Long nardy at the command line: ``nardy hint --game long-nardy POSITION DICE`` and ``nardy play --game long-nardy``.

Only parsing, calling ``bot.play.long_nardy`` and printing, as the backgammon doors do.
Positions are long nardy Position IDs (13 characters, docs/long_nardy.md), seen by the
side on roll; probabilities are the mover's after its play. Money play, no cube, the
default rule flags.
"""

from __future__ import annotations

import argparse
from typing import TextIO

import numpy as np

from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.play.long_nardy import RankedPlay, best_play, load_long_nardy_player, rank_plays
from engine.board import validate_dice
from engine.errors import BackgammonError
from engine.game import Phase
from engine.long_nardy import (
    LongGame,
    LongGameResult,
    LongPosition,
    format_play,
    legal_plays,
    parse_long_move,
    pip_counts,
    render_long_board,
    start_long_game,
)
from engine.match import roll_dice
from engine.plays import Play

GAME_NAMES = ("backgammon", "long-nardy")


def format_long_ranked_plays(ranked: list[RankedPlay], top: int) -> list[str]:
    """One line per play, best first: the move, the mover's equity and its three probabilities."""
    lines = ["     move                          equity    win  win mars  lose mars"]
    best = ranked[0].equity if ranked else 0.0
    for rank, play in enumerate(ranked[:top], start=1):
        win, win_mars, lose_mars = play.probabilities
        difference = "" if rank == 1 else f" ({play.equity - best:+.3f})"
        lines.append(
            f"{rank:>3}. {play.move or '(no move)':<28} {play.equity:+.3f}{difference:<9} "
            f"{win:.3f}   {win_mars:.3f}      {lose_mars:.3f}"
        )
    return lines


def run_hint(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    """``nardy hint --game long-nardy POSITION DICE``: the ranked plays of a roll."""
    if not args.dice:
        raise BackgammonError("long nardy hint: give the dice (there is no cube decision to show without them)")
    position = LongPosition.from_id(args.position)
    dice = validate_dice(args.dice)
    player = load_long_nardy_player(args.checkpoint)
    ranked = rank_plays(player, position.board, dice, args.plies)
    mover, opponent = pip_counts(position.board)
    lines = [
        f"Long nardy Position ID: {position.id}",
        f"Pips: side on roll {mover}, opponent {opponent}",
        f"Dice {dice[0]}{dice[1]}: best plays ({args.plies}-ply), values for the mover after the play",
    ]
    stdout.write("\n".join(lines + format_long_ranked_plays(ranked, args.top)) + "\n")
    return 0


class LongNardySession:
    """One money game of long nardy in the terminal: the person is X (seat 0), the bot O (seat 1).

    The dice come from ``rng``. The person types a move (``24/18 24/21``), ``hint``,
    ``moves`` (every legal play) or ``quit``.
    """

    def __init__(
        self, player: ProbabilityEvaluator, rng: np.random.Generator, stdin: TextIO, stdout: TextIO, plies: int = 0
    ) -> None:
        self.player = player
        self.rng = rng
        self.stdin = stdin
        self.stdout = stdout
        self.plies = plies

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def run(self) -> int:
        rules = self.player.game.rules
        assert rules is not None, "a long nardy player"
        game: LongGame | LongGameResult = start_long_game(None, rules, self.rng)
        while isinstance(game, LongGame):
            if game.phase is Phase.BEFORE_ROLL:
                game = game.roll(roll_dice(self.rng))
                continue
            assert game.dice is not None and game.turn is not None
            if game.turn == 1:
                play = best_play(self.player, game.board, game.dice, self.plies)
                self.say(f"O rolls {game.dice[0]}{game.dice[1]} and plays {_move_text(play)}")
                game = game.move(play)
                continue
            chosen = self._ask(game)
            if chosen is None:
                self.say("You leave the game.")
                return 0
            game = chosen
        winner = "You win" if game.winner == 0 else "O wins"
        kind = "mars" if game.points == 2 else "oin"
        self.say(f"{winner} {game.points} point{'s' if game.points > 1 else ''} ({kind}).")
        return 0

    def _ask(self, game: LongGame) -> LongGame | LongGameResult | None:
        """The person's turn: the game after the move typed, or None to quit."""
        assert game.dice is not None
        self.say(render_long_board(game.board, dice=game.dice, names=("you (X)", "bot (O)")))
        plays = legal_plays(game.board, game.dice, game.rules)
        if len(plays) == 1 and not plays[0].steps:
            self.say(f"You rolled {game.dice[0]}{game.dice[1]}: no legal move.")
            return game.move(plays[0])
        while True:
            self.stdout.write(f"Your move ({game.dice[0]}{game.dice[1]}), or hint / moves / quit: ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line or line.strip() in ("quit", "q"):
                return None
            text = line.strip()
            if text == "hint":
                ranked = rank_plays(self.player, game.board, game.dice, self.plies)
                self.say("\n".join(format_long_ranked_plays(ranked, 5)))
            elif text == "moves":
                self.say("  ".join(_move_text(play) for play in plays))
            elif text:
                try:
                    return game.move(parse_long_move(text, game.board, game.dice, game.rules))
                except BackgammonError as error:
                    self.say(f"error: {error}")


def _move_text(play: Play) -> str:
    return format_play(play) or "(no move)"


def run_play(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    """``nardy play --game long-nardy``: a money game against the long nardy bot."""
    if args.length or args.level is not None:
        raise BackgammonError("long nardy play: money games at a search depth only; leave out --length and --level")
    session = LongNardySession(
        load_long_nardy_player(args.checkpoint), np.random.default_rng(args.seed), stdin, stdout, args.plies
    )
    return session.run()
