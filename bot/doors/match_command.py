"""The ``match`` subcommand: computer players play matches or money sessions (``bot.play.match_play``).

It parses its arguments, plays through ``bot.play.match_play.play_match``, prints each
result and a summary table, and writes the matches as .mat or .sgf files when asked (each whole or not at all).
``--variant long`` plays long nardy with the doubling cube (its opponents: the bot itself, the
hand-set ``heuristic``, or another long nardy checkpoint); its records are long nardy .mat files.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Optional, TextIO

import numpy as np

from bot.doors.bounds import MAX_GAMES, MAX_MATCH_LENGTH, MAX_SEED, Bounded
from bot.doors.codecs import codec_for
from bot.facade import PLIES, Bot
from bot.play.levels import LEVEL_NAMES, Level, level_named
from engine.errors import InvalidOptionError
from engine.variant import BACKGAMMON, NAMES, Variant

if TYPE_CHECKING:  # imported where a match is played: a cold `nardy hint` need not load them
    from bot.play.match_play import BotPlayer, PlayedMatch, Player, Summary


def format_summary(summary: Summary, names: tuple[str, str], money: bool, variant: Variant = BACKGAMMON) -> list[str]:
    """A table of ``summary``: one row per count, one column per player; the wins above a single in ``variant``'s
    words (long nardy: mars)."""
    width = max(8, *(len(n) for n in names))
    rows = [("Points", summary.points)] + ([] if money else [("Matches won", summary.matches_won)])
    rows += [("Games won", summary.games_won)]
    rows += list(zip(codec_for(variant).won_words, (summary.gammons, summary.backgammons)))
    rows += [
        ("Doubles", summary.doubles),
        ("Takes", summary.takes),
        ("Drops", summary.drops),
    ]
    games = _count(summary.games, "game")
    if money:
        lines = [f"Money session: {games}"]
    else:
        lines = [f"{_count(summary.matches, 'match', 'matches')}: {games} ({summary.crawford_games} Crawford)"]
    lines.append(f"{'':<16}" + "".join(f"{n:>{width + 2}}" for n in names))
    lines += [f"{label:<16}" + "".join(f"{v:>{width + 2}}" for v in values) for label, values in rows]
    return lines


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def result_line(match: PlayedMatch) -> str:
    """The final score of one match or session."""
    (a, b), (x, y) = match.names, match.state.score
    if not match.length:
        return f"Money session, {_count(len(match.games), 'game')}: {a} {x}, {b} {y}"
    winner = match.state.winner
    assert winner is not None  # a match is played to its end
    return f"{match.length}-point match: {a} {x}, {b} {y}; {match.names[winner]} wins"


def _mat_name(name: str) -> str:
    """A player name as a .mat file can hold it: no spaces or colons."""
    return "".join("_" if c.isspace() or c == ":" else c for c in name) or "player"


def _numbered(path: Path, index: int, count: int) -> Path:
    """``path`` itself for a single match, else ``stem-<index>.suffix``."""
    return path if count == 1 else path.with_name(f"{path.stem}-{index}{path.suffix}")


def _bot_player(
    checkpoint: Optional[str], plies: int, level: Optional[Level] = None, variant: Variant = BACKGAMMON
) -> BotPlayer:
    """The bot of ``checkpoint`` for ``variant`` (default: the shipped one), named after the file when one is
    given, at ``level``."""
    from bot.play.match_play import BotPlayer

    bot = Bot.load(checkpoint, variant=variant)
    name = Path(checkpoint).stem if checkpoint else bot.name
    return BotPlayer(bot, plies, name=f"{name}-{level.name}" if level else name, level=level)


def _players(args: argparse.Namespace, game: Variant) -> tuple[Player, Player]:
    from bot.play.match_play import BotPlayer, HeuristicPlayer, PubevalPlayer

    level = level_named(args.level) if args.level else None
    owner = next((codec for codec in map(codec_for, NAMES) if codec.fixed_opponent == args.opponent), None)
    if owner is not None and owner.variant.name != game.name:
        raise InvalidOptionError(f"--opponent {args.opponent}: plays {owner.variant.title}, not {game.title}")
    first = _bot_player(args.checkpoint, args.plies, level, game)
    if args.opponent == "self":
        second: Player = BotPlayer(first.bot, args.plies, name=first.name, level=level)
    elif args.opponent == "pubeval":
        second = PubevalPlayer()
    elif args.opponent == "heuristic":
        second = HeuristicPlayer(game)
    else:
        second = _bot_player(args.opponent, args.plies, level, game)
    first.name = _mat_name(first.name)
    second.name = _mat_name(second.name)
    if second.name == first.name:
        second.name += "-2"
    return first, second


def _run_match(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from bot.play.match_play import play_match, summarize
    from bot.doors.analyze_command import write_whole
    from engine.matfile import format_mat
    from engine.sgf import format_sgf

    if args.jacoby and args.length:
        raise InvalidOptionError("--jacoby: only for money sessions (--length 0)")
    codec = codec_for(args.variant)
    game = codec.match_variant
    if args.jacoby and not codec.jacoby:
        raise InvalidOptionError(f"--jacoby: backgammon's rule, not {game.title}'s")
    if args.sgf and not codec.sgf:
        raise InvalidOptionError(f"--sgf: GNU Backgammon's SGF holds backgammon only; write {game.title} with --mat")
    players = _players(args, game)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
    rng = np.random.default_rng(seed)
    stdout.write(f"{players[0].name} vs {players[1].name}, seed {seed}\n")
    count = 1 if args.length == 0 else args.games
    matches = []
    for k in range(1, count + 1):
        match = play_match(players, args.length, rng, games=args.games, jacoby=args.jacoby, variant=game)
        matches.append(match)
        line = result_line(match)
        written = []
        for option, format_record in ((args.mat, format_mat), (args.sgf, format_sgf)):
            if option:
                path = _numbered(Path(option), k, count)
                write_whole(str(path), format_record(match.record()))
                written.append(str(path))
        if written:
            line += f" (written to {' and '.join(written)})"
        stdout.write(line + "\n")
        stdout.flush()
    names = (players[0].name, players[1].name)
    stdout.write("\n".join(format_summary(summarize(matches), names, money=not args.length, variant=game)) + "\n")
    return 0


def add_match(subparsers) -> None:
    """The ``match`` subcommand: the bot plays matches or money sessions and writes .mat files."""
    p = subparsers.add_parser("match", help="bot against bot (or pubeval): matches or money sessions, .mat files")
    p.add_argument(
        "--length",
        action=Bounded,
        low=0,
        high=MAX_MATCH_LENGTH,
        default=7,
        help="match length; 0 = a money session (default 7)",
    )
    p.add_argument(
        "--variant",
        default="backgammon",
        metavar="{backgammon,long}",
        help="the game: backgammon (default) or long (long nardy, with the doubling cube)",
    )
    p.add_argument(
        "--opponent",
        default="self",
        metavar="self|pubeval|heuristic|CHECKPOINT",
        help="the other player: the same bot, pubeval (backgammon), the hand-set heuristic (long nardy), "
        "or another checkpoint (default self)",
    )
    p.add_argument(
        "--games",
        action=Bounded,
        low=1,
        high=MAX_GAMES,
        default=1,
        help="number of matches, or of games in a money session (default 1)",
    )
    p.add_argument(
        "--seed", action=Bounded, low=0, high=MAX_SEED, help="random seed of the dice (default: a fresh one, printed)"
    )
    p.add_argument("--mat", metavar="FILE", help="write each match as a .mat file (FILE-1.mat, ... for several)")
    p.add_argument(
        "--sgf", metavar="FILE", help="write each match as a GNU Backgammon .sgf file (FILE-1.sgf, ... for several)"
    )
    p.add_argument("--jacoby", action="store_true", help="money sessions: the Jacoby rule")
    p.add_argument("--plies", type=int, choices=PLIES, default=0, help="the bot's search depth (default 0)")
    p.add_argument(
        "--level",
        choices=LEVEL_NAMES,
        default=None,
        help="the bot's playing level (depth plus noise, like gnubg's; overrides --plies)",
    )
    p.add_argument("--checkpoint", metavar="PATH", help="network checkpoint (default: the shipped bot)")
    p.set_defaults(run=_run_match)
