"""Rollout speed: trials per second of 0-ply cubeless rollouts, ours beside GNU Backgammon 1.07's, same run.

Each position (before the roll, the side on roll's view) is rolled out by
``bot.search.rollout.rollout_position`` with the shipped network, and by gnubg
(``/usr/games/gnubg -t``, one thread, 0-ply chequer play, cubeless, quasi-random
dice, no truncation, bear-off database truncation off so both play every game
to the end), with and without lookahead variance reduction. gnubg prints its
results only to a terminal, so it runs under ``script``; its start-up time
(measured with no rollout) is subtracted. Prints both rates, the ratio, and
both equities (they should agree within a few standard errors; the networks differ).
Each rollout runs ``--repeats`` times, ours and gnubg's in turn, and the fastest run of
each counts: the machines are shared, and a burst of other work slows one run, not all.
Ours plays as the bot rolls out: with its move pruner where it has one (``bot.evaluation.prune``);
``--full`` times it without too, every play scored by the full networks.

``--command`` times the command line instead: ``nardy rollout`` of the opening with ``--command-trials``
trials (5,184 by default) and the command's own defaults (variance reduction, the pruner, 0-ply play),
a whole process as a user runs it (start-up, network, compiled kernels included), against gnubg's rollout
of the same position with the same trials and variance reduction on (its start-up subtracted).

    python -m benchmarks.rollout [--trials 1296] [--vr-trials 144] [--repeats 3] [--full]
    python -m benchmarks.rollout --command [--command-trials 5184] [--repeats 1]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from bot.evaluation.checkpoint import load_evaluator
from bot.facade import default_checkpoint
from bot.search.rollout import RolloutSettings, rollout_position
from engine import decode_position_id

ROOT = Path(__file__).resolve().parents[1]
GNUBG = "/usr/games/gnubg"
POSITIONS = {
    "opening (before the roll)": "4HPwATDgc/ABMA",
    "middle game": "zJ3BCCjMzsEBKA",
    "race": "33YDgAB22wAAAA",
}
# gnubg needs a position without dice: two human players, no automatic roll, play one opening move.
SETUP = """set threads 1
set player 0 human
set player 1 human
set automatic roll off
new game
set dice 3 1
move 8/5 6/5
set rollout cubeful off
set rollout chequerplay plies 0
set rollout truncation enable off
set rollout bearofftruncation exact off
set rollout bearofftruncation onesided off
set rollout quasirandom on
set rollout seed 1
"""
RESULT = re.compile(r"^\s*([\d.]+) ([\d.]+) ([\d.]+) - ([\d.]+) ([\d.]+) ([\d.]+) CL ([+-][\d.]+)", re.M)


def gnubg_seconds(commands: str) -> tuple[float, str]:
    """Wall time and terminal output of gnubg -t running ``commands`` (under ``script`` for a tty)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(commands)
    start = time.perf_counter()
    done = subprocess.run(
        ["script", "-q", "-c", f"{GNUBG} -t -q < {f.name}", "/dev/null"], capture_output=True, text=True, timeout=1800
    )
    Path(f.name).unlink()
    return time.perf_counter() - start, done.stdout.replace("\r", "")


def gnubg_rollout(position_id: str, trials: int, vr: bool, startup: float) -> tuple[float, float]:
    """(trials per second, equity of the side on roll) of gnubg's rollout of ``position_id``."""
    seconds, output = gnubg_seconds(
        SETUP + f"set board {position_id}\nset rollout trials {trials}\n"
        f"set rollout varredn {'on' if vr else 'off'}\nrollout\n"
    )
    match = RESULT.search(output.split("Rollout done")[-1])
    assert match, f"gnubg printed no rollout result for {position_id}:\n{output[-2000:]}"
    return trials / max(seconds - startup, 1e-9), float(match.group(7))


def command_rollout(trials: int, seed: int, repeats: int) -> None:
    """``--command``: ``nardy rollout`` of the opening, whole processes, against gnubg's rollout of it; the fastest
    of ``repeats`` runs of each counts."""
    nardy = shutil.which("nardy") or str(Path(sys.executable).with_name("nardy"))
    position_id = POSITIONS["opening (before the roll)"]
    command = [nardy, "rollout", position_id, "--trials", str(trials), "--seed", str(seed), "--json"]
    have_gnubg = shutil.which("script") is not None and Path(GNUBG).exists()
    startup = gnubg_seconds(SETUP)[0] if have_gnubg else 0.0
    if have_gnubg:
        print(f"gnubg start-up (subtracted): {startup:.2f} s")
    ours = theirs = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
        ours = max(ours, trials / (time.perf_counter() - start))
        if have_gnubg:
            rate, their_equity = gnubg_rollout(position_id, trials, True, startup)
            theirs = max(theirs, rate)
    data = json.loads(done.stdout)
    assert data["trials"] == trials
    line = (
        f"{' '.join(['nardy', *command[1:]])}: {ours:6.1f} trials/s "
        f"(equity {data['equity']:+.3f} +- {data['equity_std_error']:.3f})"
    )
    if have_gnubg:
        line += f", gnubg {theirs:6.1f} trials/s (equity {their_equity:+.3f}), ratio {ours / theirs:5.2f}x (goal: 1.8x)"
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(default_checkpoint()))
    parser.add_argument("--trials", type=int, default=1296, help="trials without variance reduction")
    parser.add_argument("--vr-trials", type=int, default=144, help="trials with variance reduction")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (gnubg runs on one)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each rollout, the fastest counting")
    parser.add_argument(
        "--full",
        action="store_true",
        help="also time ours without the move pruner (bot.evaluation.prune): every play scored by the full networks",
    )
    parser.add_argument(
        "--command",
        action="store_true",
        help="time the nardy rollout command line on the opening against gnubg's rollout (see above)",
    )
    parser.add_argument("--command-trials", type=int, default=5184, help="trials of --command (default 5184)")
    args = parser.parse_args()
    if args.command:
        command_rollout(args.command_trials, args.seed, args.repeats)
        return
    threadpool_limits(limits=args.threads, user_api="blas")
    evaluator = load_evaluator(args.checkpoint)  # the bot as served: numpy network, exact bear-offs
    have_gnubg = shutil.which("script") is not None and Path(GNUBG).exists()
    startup = gnubg_seconds(SETUP)[0] if have_gnubg else 0.0
    if have_gnubg:
        print(f"gnubg start-up (subtracted): {startup:.2f} s")
    rollout_position(
        evaluator,
        decode_position_id(POSITIONS["race"]),
        np.random.default_rng(0),
        RolloutSettings(trials=36, variance_reduction=False),
    )  # warm up
    for vr, trials in ((False, args.trials), (True, args.vr_trials)):
        ours_total = gnubg_total = full_total = 0.0
        for name, position_id in POSITIONS.items():
            settings = RolloutSettings(trials=trials, variance_reduction=vr)
            ours = theirs = full = 0.0
            for _ in range(args.repeats):
                start = time.perf_counter()
                result = rollout_position(
                    evaluator, decode_position_id(position_id), np.random.default_rng(args.seed), settings
                )
                ours = max(ours, trials / (time.perf_counter() - start))
                if args.full:
                    start = time.perf_counter()
                    rollout_position(
                        evaluator,
                        decode_position_id(position_id),
                        np.random.default_rng(args.seed),
                        replace(settings, prune=False),
                    )
                    full = max(full, trials / (time.perf_counter() - start))
                if have_gnubg:
                    rate, their_equity = gnubg_rollout(position_id, trials, vr, startup)
                    theirs = max(theirs, rate)
            assert result.trials == trials and abs(result.equity) <= 3.0
            line = (
                f"VR {'on ' if vr else 'off'} {name:26s} {trials:5d} trials: ours {ours:7.1f} trials/s "
                f"(equity {result.equity:+.3f} +- {result.equity_std_error:.3f})"
            )
            ours_total += trials / ours
            if args.full:
                full_total += trials / full
                line += f", without the pruner {full:7.1f} trials/s"
            if have_gnubg:
                gnubg_total += trials / theirs
                line += f", gnubg {theirs:7.1f} trials/s (equity {their_equity:+.3f}), ratio {ours / theirs:5.2f}x"
            print(line, flush=True)
        summary = (
            f"VR {'on ' if vr else 'off'} all positions: ours {len(POSITIONS) * trials / ours_total:7.1f} trials/s"
        )
        if args.full:
            summary += (
                f" (without the pruner {len(POSITIONS) * trials / full_total:7.1f}: "
                f"the pruner's speed-up {full_total / ours_total:4.2f}x)"
            )
        if have_gnubg:
            summary += (
                f", gnubg {len(POSITIONS) * trials / gnubg_total:7.1f} trials/s, "
                f"ratio {gnubg_total / ours_total:5.2f}x (goal: 2x)"
            )
        print(summary, flush=True)


if __name__ == "__main__":
    main()
