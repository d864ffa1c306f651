"""Time per long nardy move choice, at 0-ply and 1-ply, of a bot against an earlier version of the project.

A network's speed is a property of the code that serves it as much as of its size, so a
candidate is timed with this checkout's code and the baseline with the code of ``--baseline``
(a git commit, checked out into a temporary worktree), each in its own process, in turn, in
the same run; each figure is the median over ``bot.play.speed.DECISIONS["long_nardy"]`` of a
decision's fastest of five (``bot.facade.Bot.best_play``), the fastest of ``--repeats`` runs
counting. Prints both and their ratio (above 1: the candidate is slower).

    python -m benchmarks.long_nardy_speed [--checkpoint checkpoints/long_nardy.npz] [--baseline REF]
        [--baseline-checkpoint checkpoints/long_nardy.npz] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bot.play.speed import DECISIONS

from benchmarks.common import ROOT

# Run in the tree being timed (its own code first on the path): the median of each decision's fastest of five.
CHILD = """
import json, sys, time
import numpy as np
sys.path.insert(0, ".")
from bot.facade import Bot
try:
    from engine.compiled import expect_long_work
    expect_long_work()
except ImportError:
    pass
checkpoint, decisions = sys.argv[1], json.loads(sys.argv[2])
bot = Bot.load(checkpoint, variant="long")
boards = [(bot.variant.position.from_id(p).board, tuple(d)) for p, d in decisions]
def median_ms(plies):
    times = np.full((5, len(boards)), np.inf)
    for r in range(5):
        for i, (board, dice) in enumerate(boards):
            start = time.perf_counter()
            bot.best_play(board, dice, plies=plies)
            times[r, i] = time.perf_counter() - start
    return float(np.median(times.min(axis=0))) * 1000.0
for plies in (0, 1):
    median_ms(plies)
print(json.dumps({"ply0_ms": median_ms(0), "ply1_ms": median_ms(1)}))
"""


def time_tree(tree: Path, checkpoint: Path) -> dict[str, float]:
    """One timing run of ``checkpoint`` with the code in ``tree``."""
    decisions = json.dumps([[position_id, list(dice)] for position_id, dice in DECISIONS["long_nardy"]])
    done = subprocess.run(
        [sys.executable, "-P", "-c", CHILD, str(checkpoint), decisions],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, default=ROOT / "checkpoints" / "long_nardy.npz")
    parser.add_argument("--baseline", default="HEAD", help="the git commit whose code times the baseline")
    parser.add_argument(
        "--baseline-checkpoint",
        default="checkpoints/long_nardy.npz",
        help="the baseline's network, a path inside the baseline's tree (default: the network it shipped)",
    )
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="baseline-") as folder:
        tree = Path(folder) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), args.baseline], cwd=ROOT, check=True)
        try:
            best = {"candidate": {"ply0_ms": float("inf"), "ply1_ms": float("inf")}}
            best["baseline"] = dict(best["candidate"])
            for repeat in range(args.repeats):
                runs = {
                    "baseline": time_tree(tree, tree / args.baseline_checkpoint),
                    "candidate": time_tree(ROOT, args.checkpoint.resolve()),
                }
                for name, figures in runs.items():
                    best[name] = {key: min(best[name][key], value) for key, value in figures.items()}
                print(f"run {repeat + 1} of {args.repeats}: {runs}", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=True)
    for key, label in (("ply0_ms", "0-ply"), ("ply1_ms", "1-ply")):
        ratio = best["candidate"][key] / best["baseline"][key]
        print(
            f"{label}: candidate {best['candidate'][key]:.2f} ms, baseline ({args.baseline}) "
            f"{best['baseline'][key]:.2f} ms a decision: {ratio:.2f}x"
        )


if __name__ == "__main__":
    main()
