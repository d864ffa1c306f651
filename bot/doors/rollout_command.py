"""The ``rollout`` subcommand: Monte-Carlo rollouts of a position or of the plays of a roll (``bot.search.rollout``).

``nardy rollout POSITION [DICE] [--trials N] [--plies P] [--truncate T] [--cubeful]
[--no-vr] [--seed S] [--json]``. Without DICE the position is rolled out before the
roll, for the side on roll; with DICE the best ``--candidates`` plays by 0-ply are
rolled out together (same dice for all), for the mover, and ranked.

``--cubeful`` adds the cube decision from cubeful trials (no double, and double/take,
each trial played with both sides' cube actions): ``bot.search.rollout.rollout_cube``.

``rollout_json`` is shared with the HTTP API (``GET /v1/rollout``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Optional, TextIO

import numpy as np

from bot.doors.progress import ProgressBar
from bot.doors.bounds import MAX_CANDIDATES, MAX_SEED, MAX_TRIALS, MAX_TRUNCATE, Bounded
from bot.doors.cli import _add_game, _add_position
from bot.doors.codecs import codec_for
from bot.doors.situation import Situation
from bot.doors.text import format_probabilities
from bot.equity.cube import verdict_words
from bot.facade import Bot, check_game_on, game_probabilities
from bot.search.nply import InvalidSearchError
from engine.board import validate_dice
from engine.errors import check_range
from engine.variant import Variant

if TYPE_CHECKING:  # imported where a rollout runs: a cold `nardy hint` need not load it
    from bot.search.rollout import Progress, RolloutSettings

DEFAULT_TRIALS = 1296
DEFAULT_CANDIDATES = 5
MAX_ROLLOUT_PLIES = 2  # checker play inside the trials: 0, 1 or 2 plies


def rollout_json(
    bot: Bot,
    situation: Situation,
    dice: Optional[tuple[int, int]],
    settings: RolloutSettings,
    seed: Optional[int] = None,
    cubeful: bool = False,
    candidates: int = DEFAULT_CANDIDATES,
    progress: Optional[Progress] = None,
) -> dict:
    """The rollout answer as JSON data (the side on roll's view; plays: the mover's after each play).

    No dice: ``{"variant", "position_id", "trials", "probabilities", "std_errors", "equity", "equity_std_error"}``
    (+ ``"cube"`` when ``cubeful``). Dice: ``{"variant", "position_id", "dice", "trials", "plays": [{"move", ...}]}``,
    best first by rolled-out equity. ``variant`` is the game as the HTTP API names it; the probabilities are
    always the five of docs/DESIGN.md (long nardy's backgammon columns 0).
    """
    from bot.search.rollout import check_cubeful, rollout_afterstates, rollout_cube, rollout_position

    board = check_game_on(situation.board, bot.variant)
    variant = codec_for(bot.variant).api_name
    if candidates < 1:
        raise InvalidSearchError(f"candidates {candidates!r}: expected at least 1")
    if seed is not None:  # the HTTP API's seed comes here unchecked by argparse
        check_range("seed", seed, 0, MAX_SEED)
    if cubeful:
        check_cubeful(bot.evaluator)  # before any trial
    rng = np.random.default_rng(seed)
    if dice is None:
        result = rollout_position(bot.evaluator, board, rng, settings, progress)
        data = {"variant": variant, **result.to_json()}
        if cubeful:
            data["cube"] = rollout_cube(bot.evaluator, board, situation.state, rng, settings, progress).to_json()
        return data
    ranked = bot.rank_plays(board, validate_dice(dice), plies=0, top=candidates)
    results = rollout_afterstates(bot.evaluator, np.stack([r.afterstate for r in ranked]), rng, settings, progress)
    order = sorted(range(len(ranked)), key=lambda i: -results[i].equity)
    plays = [{"move": ranked[i].notation, **results[i].to_json()} for i in order]
    return {
        "variant": variant,
        "position_id": situation.position_id,
        "dice": list(dice),
        "trials": settings.trials,
        "plays": plays,
    }


def _settings(args: argparse.Namespace) -> RolloutSettings:
    from bot.search.rollout import RolloutSettings

    return RolloutSettings(
        trials=args.trials,
        truncate=args.truncate,
        variance_reduction=not args.no_vr,
        plies=args.plies,
        prune=not args.no_prune,
    )


def _table(heading: str, rows: list[tuple[str, dict, Optional[float]]], variant: Variant) -> list[str]:
    """Rolled-out figures under a header: per row its label, equity and standard error, the gap to the best
    (when given) and the probabilities of the game's own outcomes, with their standard errors on the line below."""
    width = max(len(heading), *(len(label) for label, _, _ in rows))
    names = " ".join(f"{n:>6}" for n in codec_for(variant).columns)

    def own(values: list[float]) -> str:
        return format_probabilities(game_probabilities(np.array(values), variant))

    lines = [f"{heading:<{width}}  {'Equity':>7} {'+-':>6} {'Diff':>7}  {names}"]
    for label, data, diff in rows:
        gap = "" if diff is None else f"{diff:+7.3f}"
        figures = f"{data['equity']:+7.3f} {data['equity_std_error']:6.3f} {gap:>7}"
        lines.append(f"{label:<{width}}  {figures}  " + own(data["probabilities"]))
        lines.append(f"{'':<{width}}  {'':>7} {'':>6} {'+-':>7}  " + own(data["std_errors"]))
    return lines


def format_rollout(data: dict, settings: RolloutSettings) -> list[str]:
    """The text report of ``rollout_json``'s answer, in the columns of its game."""
    variant = codec_for(data["variant"]).variant
    ending = (
        "truncated after " + str(settings.truncate) + " plies" if settings.truncate is not None else "played to the end"
    )
    how = (
        f"{data['trials']} trials, {settings.plies}-ply checker play, "
        f"{ending}, "
        f"variance reduction {'on' if settings.variance_reduction else 'off'}"
    )
    lines = [f"Rollout of {data['position_id']}: {how}"]
    if "plays" not in data:
        lines.append("Side on roll, cubeless; +- a standard error:")
        lines += _table("", [("  side on roll", data, None)], variant)
        cube = data.get("cube")
        if cube:
            lines.append(
                f"Cube decision ({cube['trials']} cubeful trials each for no double and double/take, "
                "0-ply cube actions inside them):"
            )
            names = ("No double", "Double, take", "Double, pass")
            for name, key, se in zip(names, ("no_double", "double_take", "double_pass"), cube["std_errors"]):
                lines.append(f"  {name:<13} {cube[key]:+.3f} +- {se:.3f}")
            lines.append(f"Proper cube action: {verdict_words(cube['verdict'])}")
        return lines
    d1, d2 = data["dice"]
    lines.append(
        f"Dice {d1}{d2}: the best {len(data['plays'])} plays by 0-ply, rolled out (mover's view after the play); "
        "+- a standard error:"
    )
    best = data["plays"][0]["equity"]
    plays = enumerate(data["plays"], 1)
    rows = [(f"{i:>3}. {play['move'] or '(no move)'}", play, play["equity"] - best) for i, play in plays]
    return lines + _table("     Play", rows, variant)


def _run_rollout(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    bot = Bot.load(args.checkpoint, variant=args.game)
    situation = codec_for(bot.variant).read_position(args.position)
    dice = validate_dice(args.dice) if args.dice else situation.dice
    settings = _settings(args)
    bar = ProgressBar(sys.stderr, "trial")
    try:
        data = rollout_json(bot, situation, dice, settings, args.seed, args.cubeful, args.candidates, bar)
    finally:
        bar.close()
    if args.json:
        stdout.write(json.dumps(data) + "\n")
    else:
        stdout.write("\n".join(format_rollout(data, settings)) + "\n")
    return 0


def add_rollout(subparsers) -> None:
    """The ``rollout`` subcommand."""
    p = subparsers.add_parser("rollout", help="Monte-Carlo rollout of a position, or of the plays of a roll")
    _add_position(p)
    p.add_argument("dice", metavar="DICE", nargs="?", help="a roll (e.g. 31): roll out its best plays")
    _add_game(p)
    p.add_argument(
        "--trials",
        action=Bounded,
        low=2,
        high=MAX_TRIALS,
        default=DEFAULT_TRIALS,
        help=f"games per position (default {DEFAULT_TRIALS})",
    )
    p.add_argument(
        "--plies",
        action=Bounded,
        low=0,
        high=MAX_ROLLOUT_PLIES,
        default=0,
        help="checker play inside the trials (default 0)",
    )
    p.add_argument(
        "--truncate",
        action=Bounded,
        low=0,
        high=MAX_TRUNCATE,
        default=None,
        metavar="T",
        help="stop each trial after T plies and evaluate (default: play to the end)",
    )
    p.add_argument(
        "--cubeful",
        action="store_true",
        help="also the cube decision, from cubeful trials of no double and double/take (backgammon only)",
    )
    p.add_argument("--no-vr", action="store_true", help="no variance reduction")
    p.add_argument(
        "--no-prune",
        action="store_true",
        help="score every play inside the trials with the full networks, not the pruner's best few (slower)",
    )
    p.add_argument("--seed", action=Bounded, low=0, high=MAX_SEED, default=None, help="random seed (default: fresh)")
    p.add_argument(
        "--candidates",
        action=Bounded,
        low=1,
        high=MAX_CANDIDATES,
        default=DEFAULT_CANDIDATES,
        help=f"with DICE: how many plays (the best by 0-ply) to roll out (default {DEFAULT_CANDIDATES})",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--checkpoint", metavar="PATH", help="network checkpoint (default: the shipped bot)")
    p.set_defaults(run=_run_rollout)
