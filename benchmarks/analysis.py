"""nardy analyze beside GNU Backgammon 1.07's own analysis of the same matches.

gnubg plays short matches against itself, each player with its own chequer-play noise
(``set player N chequerplay evaluation noise X``, 0-ply), exports each (``export match
mat``), analyses it (``analyse match`` at ``--gnubg-plies``, default 2) and prints ``show
statistics match``. ``nardy analyze`` (``bot.play.analysis.analyze_match`` at ``--plies``, default
its own default depth, 1) reads the same .mat files. Per
player and match: unforced moves and the chequer-play error rate (mEMG per unforced
move), and the overall error rate; then the rank correlation (Spearman) and the mean
difference between the two analyses.

    python -m benchmarks.analysis --matches 6 --length 3 [--gnubg-plies 0 --plies 0]

``--speed`` instead times both programs on the same recorded matches (``--speed-files``, default the test
data's .mat files) at 0, 1 and 2 plies, measured in the same run: CPU seconds (user + system) of ``nardy
analyze`` given all the files in one process, and of one gnubg process importing and analysing each in turn
(``analyse match``); then each file in a process of its own, both programs. Prints the ratios nardy / gnubg.
``--speed-archive N`` times an analyst's archive instead: N matches (``--length`` points) that gnubg plays
against itself at 0-ply, each player with its own noise, all in one process each (the start-up paid once).

    python -m benchmarks.analysis --speed [--speed-plies 0,1]
    python -m benchmarks.analysis --speed --speed-archive 40 --length 5 [--speed-plies 0,1]
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from bot.play.analysis import analyze_match
from bot.doors.analyze_command import DEFAULT_PLIES
from bot.facade import Bot
from engine.matfile import read_mat

GNUBG = "/usr/games/gnubg"
DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SPEED_FILES = (DATA / "gnubg_match3.mat", DATA / "gnubg_money.mat", *sorted((DATA / "xg").glob("*.mat")))
NOISES = (0.0, 0.01, 0.02, 0.04, 0.06, 0.08)


def gnubg_unattended(seed: int) -> list[str]:
    """gnubg commands that let it play games through on its own, quietly, on dice seeded by ``seed``."""
    return ["set automatic game on", "set automatic roll on", "set display off", f"set seed {seed}"]


def gnubg_players(noise: Sequence[float]) -> list[str]:
    """gnubg commands that make both players gnubg at 0-ply, player ``k`` with chequer-play noise ``noise[k]``."""
    lines = []
    for player in (0, 1):
        lines += [
            f"set player {player} gnubg",
            f"set player {player} chequerplay evaluation plies 0",
            f"set player {player} cubedecision evaluation plies 0",
            f"set player {player} chequerplay evaluation noise {noise[player]}",
        ]
    return lines


def gnubg_script(mat: Path, length: int, seed: int, noise: tuple[float, float], plies: int = 0) -> str:
    lines = gnubg_unattended(seed)
    lines += gnubg_players(noise)
    lines += [
        f"set analysis chequerplay evaluation plies {plies}",
        f"set analysis cubedecision evaluation plies {plies}",
        f"new match {length}",
        f"export match mat {mat}",
        "analyse match",
        "show statistics match",
    ]
    return "\n".join(lines) + "\n"


def _row(text: str, section: str, label: str) -> tuple[float, float]:
    """The two players' numbers on the line starting ``label`` after the header ``section``."""
    part = text[text.index(section) :]
    line = next(candidate for candidate in part.splitlines() if candidate.startswith(label))
    numbers = re.findall(r"[-+]?\d+(?:\.\d+)?", line[len(label) :])
    if "(" in line:  # "value (percent)" pairs: keep the values
        numbers = numbers[0::2]
    return abs(float(numbers[0])), abs(float(numbers[1]))


def gnubg_statistics(text: str) -> dict:
    return {
        "unforced": _row(text, "Chequerplay statistics", "Unforced moves"),
        "checker_rate": _row(text, "Chequerplay statistics", "Error rate mEMG"),
        "overall_rate": _row(text, "Overall statistics", "Error rate mEMG"),
        "cube_decisions": _row(text, "Cube statistics", "Total cube decisions"),
        "close_cube": _row(text, "Cube statistics", "Close or actual cube decisions"),
    }


def _child_cpu(command: list[str], stdin: str | None = None) -> float:
    """CPU seconds (user + system) of running ``command`` to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=3600, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def gnubg_analysis_script(files: list[Path], plies: int) -> str:
    lines = [
        "set display off",
        f"set analysis chequerplay evaluation plies {plies}",
        f"set analysis cubedecision evaluation plies {plies}",
    ]
    for path in files:
        lines += [f"import mat {path}", "analyse match"]
    return "\n".join(lines) + "\n"


def nardy_cpu(files: list[Path], plies: int) -> float:
    return _child_cpu([sys.executable, "-m", "bot", "analyze", *map(str, files), "--plies", str(plies), "--json"])


def gnubg_cpu(files: list[Path], plies: int) -> float:
    return _child_cpu([GNUBG, "-t", "-q"], gnubg_analysis_script(files, plies))


def archive(folder: Path, count: int, length: int, seed: int) -> list[Path]:
    """``count`` .mat files in ``folder``: ``length``-point matches gnubg plays against itself at 0-ply, each
    player with its own noise (``NOISES``), as an analyst's archive of played matches."""
    rng = np.random.default_rng(seed)
    lines = gnubg_unattended(seed)
    files = []
    for k in range(count):
        lines += gnubg_players(rng.choice(NOISES, size=2, replace=False).tolist())
        files.append(folder / f"match{k:03d}.mat")
        lines += [f"new match {length}", f"export match mat {files[-1]}"]
    subprocess.run([GNUBG, "-t", "-q"], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    return files


def speed(files: list[Path], depths: list[int], each_alone: bool = True) -> None:
    """Both programs' CPU for the same matches at each depth, all files in one process and (``each_alone``) one
    file a process."""
    print(f"{len(files)} matches: {', '.join(p.name for p in files[:8])}{' ...' if len(files) > 8 else ''}")
    print(f"{'plies':>5} {'how':<22} {'nardy s':>8} {'gnubg s':>8} {'ratio':>6}")
    for plies in depths:
        rows = [("all in one process", nardy_cpu(files, plies), gnubg_cpu(files, plies))]
        if each_alone:
            each = [(nardy_cpu([p], plies), gnubg_cpu([p], plies)) for p in files]
            rows.append(("one file a process", sum(n for n, _ in each), sum(g for _, g in each)))
        for how, ours, theirs in rows:
            print(f"{plies:>5} {how:<22} {ours:8.2f} {theirs:8.2f} {ours / theirs:6.2f}", flush=True)


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--length", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--gnubg-plies",
        type=int,
        default=2,
        choices=(0, 1, 2),
        help="gnubg's analysis depth (default 2, a judge deeper than its 0-ply players; at 0 its "
        "noiseless player scores 0 by construction, the same network chose and judged)",
    )
    parser.add_argument(
        "--plies",
        type=int,
        default=DEFAULT_PLIES,
        choices=(0, 1, 2),
        help=f"nardy's analysis depth (default {DEFAULT_PLIES}, nardy analyze's)",
    )
    parser.add_argument("--speed", action="store_true", help="time both analyses of the same files instead")
    parser.add_argument("--speed-plies", default="0,1,2", help="depths for --speed (default 0,1,2)")
    parser.add_argument("--speed-files", nargs="+", type=Path, default=list(SPEED_FILES), help="matches for --speed")
    parser.add_argument(
        "--speed-archive", type=int, metavar="N", help="--speed on N matches gnubg plays (--length points) instead"
    )
    args = parser.parse_args()
    if args.speed:
        depths = [int(p) for p in args.speed_plies.split(",")]
        if not args.speed_archive:
            speed(args.speed_files, depths)
            return 0
        with tempfile.TemporaryDirectory() as tmp:
            speed(archive(Path(tmp), args.speed_archive, args.length, args.seed), depths, each_alone=False)
        return 0
    bot = Bot.load()
    rng = np.random.default_rng(args.seed)
    rows = []  # (noise, gnubg unforced, nardy unforced, gnubg rate, nardy rate, gnubg overall, nardy overall,
    #           gnubg cube decisions, nardy's, gnubg close cube decisions, nardy's)
    seconds = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.matches):
            first, second = (float(x) for x in rng.choice(NOISES, size=2, replace=False))
            noise = (first, second)
            mat = Path(tmp) / f"m{k}.mat"
            out = subprocess.run(
                [GNUBG, "-t", "-q"],
                input=gnubg_script(mat, args.length, 100 + k, noise, args.gnubg_plies),
                capture_output=True,
                text=True,
                timeout=1200,
                check=True,
            ).stdout
            theirs = gnubg_statistics(out)
            start = time.perf_counter()
            analysis = analyze_match(bot, read_mat(mat), plies=args.plies)
            seconds += time.perf_counter() - start
            for p in (0, 1):
                s = analysis.stats(p)
                rows.append(
                    (
                        noise[p],
                        theirs["unforced"][p],
                        s.unforced,
                        theirs["checker_rate"][p],
                        s.checker_rate,
                        theirs["overall_rate"][p],
                        s.overall_rate,
                        theirs["cube_decisions"][p],
                        s.cube_decisions,
                        theirs["close_cube"][p],
                        s.close_cube,
                    )
                )
                print(
                    f"match {k} player {p} noise {noise[p]:.3f}: unforced gnubg {theirs['unforced'][p]:.0f} "
                    f"nardy {s.unforced}; checker mEMG gnubg {theirs['checker_rate'][p]:6.1f} "
                    f"nardy {s.checker_rate:6.1f}; overall gnubg {theirs['overall_rate'][p]:6.1f} "
                    f"nardy {s.overall_rate:6.1f}"
                )
    a = np.array(rows)
    decisions = a[:, 2].sum()
    print(f"\n{len(rows)} player-matches, {decisions:.0f} unforced moves by nardy, analysed in {seconds:.1f} s")
    print(
        f"unforced moves: identical in {int((a[:, 1] == a[:, 2]).sum())}/{len(rows)}, "
        f"mean difference {np.mean(a[:, 2] - a[:, 1]):+.2f}"
    )
    for name, g, n in (("cube decisions", 7, 8), ("close or actual cube decisions", 9, 10)):
        print(
            f"{name}: gnubg {a[:, g].sum():.0f}, nardy {a[:, n].sum():.0f}, "
            f"identical in {int((a[:, g] == a[:, n]).sum())}/{len(rows)}"
        )
    for name, g, n in (("checker error rate", 3, 4), ("overall error rate", 5, 6)):
        print(
            f"{name}: Spearman {spearman(a[:, g], a[:, n]):.2f}, mean difference (nardy - gnubg) "
            f"{np.mean(a[:, n] - a[:, g]):+.1f} mEMG, mean |difference| {np.mean(np.abs(a[:, n] - a[:, g])):.1f}"
        )
    print(
        f"rank correlation of nardy's checker rate with the noise: {spearman(a[:, 0], a[:, 4]):.2f}, "
        f"gnubg's: {spearman(a[:, 0], a[:, 3]):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
