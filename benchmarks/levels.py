"""Each playing level (bot.play.levels) against pubeval: games won, and the level's PR from nardy analyze.

Money sessions with the same dice for every level (one seed); games won (whoever wins the
game, whatever the cube) with a 95% normal interval; the level's PR (error per unforced
move and close cube decision x 500) from ``bot.play.analysis`` at ``--analysis-plies`` on the
first ``--analysed`` games, with a 95% interval over games.

    python -m benchmarks.levels --games 200 --analysed 40
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from bot.play.analysis import analyze_match
from bot.facade import Bot
from bot.play.levels import LEVELS
from bot.play.match_play import BotPlayer, PubevalPlayer, play_match
from engine.matfile import MatMatch


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--analysed", type=int, default=40)
    parser.add_argument("--analysis-plies", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--levels", default=",".join(LEVELS))
    args = parser.parse_args()
    bot = Bot.load()
    print(
        f"{args.games} money games per level against pubeval (seed {args.seed}); PR from {args.analysed} games "
        f"analysed at {args.analysis_plies}-ply"
    )
    print("| level | plies | noise | games won vs pubeval (95% CI) | PR (95% CI) | seconds |")
    print("|---|---|---|---|---|---|")
    for name in args.levels.split(","):
        level = LEVELS[name]
        start = time.perf_counter()
        players = (BotPlayer(bot, level=level, name=name), PubevalPlayer())
        played = play_match(players, 0, np.random.default_rng(args.seed), games=args.games)
        won = np.array([g.record.winner == 0 for g in played.games], dtype=float)
        prs = []
        for g in played.record().games[: args.analysed]:
            game = MatMatch(0, played.names, (g.__class__((0, 0), g.actions, g.winner, g.points),))
            stats = analyze_match(bot, game, args.analysis_plies).stats(0)
            if stats.unforced + stats.close_cube:
                prs.append(stats.pr)
        prs_a = np.array(prs)
        half = 1.96 * won.std(ddof=1) / np.sqrt(len(won))
        pr_half = 1.96 * prs_a.std(ddof=1) / np.sqrt(len(prs_a))
        print(
            f"| {name} | {level.plies} | {level.noise:.3f} | {100 * won.mean():.1f}% +- {100 * half:.1f} | "
            f"{prs_a.mean():.1f} +- {pr_half:.1f} | {time.perf_counter() - start:.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
