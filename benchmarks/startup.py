"""Serving speed: a cold command line against GNU Backgammon's, and in-process decisions, numpy against torch.

    python -m benchmarks.startup [--runs 7] [--positions 100] [--no-cold | --cold-only]

1. Cold start, as a script calling the command line once per position sees it:
   ``nardy hint POSITION DICE`` and ``nardy eval POSITION`` (median wall time and peak
   memory over ``--runs`` runs), beside GNU Backgammon's own cold ``hint`` of the same
   position (Debian's ``gnubg -t``) in the same run, when it is installed, and beside
   Python importing numpy alone, its BLAS on one thread as the command line starts it
   (``bot.__main__``): the floor of any command line of ours. Then the first deep search
   after an install: ``nardy hint POSITION DICE --plies 2`` on an empty compiled-code
   cache against the same on a warm one, beside GNU Backgammon's cold 2-ply hint.
2. In-process decisions: ``Bot.rank_plays`` at 0-ply and 1-ply (median ms per position
   of ``fixtures/move_choice.jsonl``) with the numpy network the doors serve from
   against the torch network training uses (one thread each), same checkpoint.
3. Raw network throughput, numpy against torch, on batches of 1-ply search's kind
   (the afterstates of the fixture positions for all 21 rolls, side on roll to play),
   from the 1-ply sizes (1,000-5,000) to rollout sizes (16k-64k): best of 5 per size.

The answers are checked first: both networks must choose the same plays.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("NARDY_SHARED", ROOT.parent / "shared"))
POSITION, DICE = "4HPwATDgc/ABMA", "31"
GNUBG = Path("/usr/games/gnubg")


def cold_run(command: list[str], stdin: str | None = None) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one run of ``command`` in a fresh process."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/tmp", text=True
    )
    process.communicate(stdin)
    _, status, usage = os.wait4(process.pid, 0) if process.returncode is None else (0, 0, None)
    wall = time.perf_counter() - start
    if usage is None:  # communicate() reaped it: ask for the children's peak instead
        import resource

        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed with status {process.returncode}")
    return wall, usage.ru_maxrss / 1024


def cold_run_isolated(command: list[str], stdin: str | None) -> tuple[float, float, float]:
    """(wall s, peak MB, CPU s) of one cold run measured by a wrapper process, so its peak memory is its own
    (RUSAGE_CHILDREN is cumulative). CPU time wanders less than wall time on a shared machine."""
    probe = (
        "import os, resource, subprocess, sys, time; "
        "t = time.perf_counter(); "
        "p = subprocess.run(sys.argv[2:], input=sys.argv[1] or None, text=True, cwd='/tmp', "
        "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
        "w = time.perf_counter() - t; "
        "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
        "print(p.returncode, w, u.ru_maxrss / 1024, u.ru_utime + u.ru_stime)"
    )
    out = subprocess.run([sys.executable, "-c", probe, stdin or "", *command], capture_output=True, text=True).stdout
    status, wall, peak, cpu = out.split()
    if int(status):
        raise SystemExit(f"{' '.join(command)} failed with status {status}")
    return float(wall), float(peak), float(cpu)


def decision_times(bot, positions: list[tuple[str, str]], plies: int) -> tuple[float, list[str]]:
    """Median ms of one ``rank_plays`` per position, and the best play chosen in each."""
    from engine.position_formats import read_position

    times, choices = [], []
    for position_id, dice in positions:
        board = read_position(position_id).board
        start = time.perf_counter()
        best = bot.rank_plays(board, dice, plies=plies, top=1)[0]
        times.append(time.perf_counter() - start)
        choices.append(best.notation)
    return statistics.median(times) * 1e3, choices


def throughput(
    numpy_network, torch_network, positions: list[tuple[str, str]], sizes=(1024, 4096, 16384, 65536)
) -> None:
    """Print the microseconds per board of each network at each batch size, and their ratio."""
    import numpy as np

    from engine import ROLLS, afterstates, flip
    from engine.position_formats import read_position

    boards = np.stack([read_position(position_id).board for position_id, _ in positions])
    children, _ = afterstates(np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (len(boards), 1)))
    pool = np.concatenate([flip(children)] * (max(sizes) // len(children) + 1))
    print("network throughput, best of 5, microseconds per board:")
    for size in sizes:
        batch = pool[:size]
        best: dict[str, float] = {}
        for _ in range(5):  # interleaved, so both see the same machine load
            for name, network in (("numpy", numpy_network), ("torch", torch_network)):
                start = time.perf_counter()
                network.probabilities(batch)
                best[name] = min(best.get(name, np.inf), time.perf_counter() - start)
        print(
            f"  {size:6d} boards: numpy {best['numpy'] / size * 1e6:5.2f} us, "
            f"torch {best['torch'] / size * 1e6:5.2f} us, "
            f"numpy/torch {best['numpy'] / best['torch']:.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="cold runs of each command (default 7)")
    parser.add_argument("--positions", type=int, default=100, help="fixture positions for in-process timing")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold command-line runs")
    parser.add_argument("--cold-only", action="store_true", help="only the cold command-line runs")
    args = parser.parse_args()
    if not args.no_cold:
        cold_start(args.runs)
    if not args.cold_only:
        in_process(args.positions)


def cold_start(runs: int) -> None:
    """Part 1: the cold command line, beside GNU Backgammon's and beside Python importing numpy alone (the floor).

    The commands run in turn, ``runs`` rounds, so a spell of load on a shared machine slows all of them.
    Bytecode is written and used, as an installed package has it (``PYTHONDONTWRITEBYTECODE`` is cleared).
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    nardy = shutil.which("nardy") or str(Path(sys.executable).with_name("nardy"))
    print(f"cold start, median of {runs} runs in turn (wall s, peak MB, CPU s):")
    rows: list[tuple[str, list[str], str | None]] = [
        (f"nardy hint {POSITION} {DICE}", [nardy, "hint", POSITION, DICE], None),
        (f"nardy eval {POSITION}", [nardy, "eval", POSITION], None),
        (
            "python -c 'import numpy' (the floor)",
            ["env", "OPENBLAS_NUM_THREADS=1", sys.executable, "-c", "import numpy"],
            None,
        ),
    ]
    empty_cache, warm_cache = Path(tempfile.mkdtemp()) / "numba", Path(tempfile.mkdtemp()) / "numba"
    deep_hint = f"{nardy} hint {POSITION} {DICE} --plies 2"
    rows += [
        (
            f"nardy hint {POSITION} {DICE} --plies 2, empty cache",
            ["sh", "-c", f"rm -rf {empty_cache} && NUMBA_CACHE_DIR={empty_cache} exec {deep_hint}"],
            None,
        ),
        (
            f"nardy hint {POSITION} {DICE} --plies 2, warm cache",
            ["env", f"NUMBA_CACHE_DIR={warm_cache}", *deep_hint.split()],
            None,
        ),
    ]
    if GNUBG.exists():
        rows += [
            (f"gnubg -t hint {POSITION} {DICE}", [str(GNUBG), "-t", "-q", "-r"], gnubg_hint_script(0)),
            (f"gnubg -t hint {POSITION} {DICE}, 2-ply", [str(GNUBG), "-t", "-q", "-r"], gnubg_hint_script(2)),
        ]
    for _, command, stdin in rows:
        cold_run(command, stdin)  # warm-up: the disk cache, the bytecode
    results: list[list[tuple[float, float, float]]] = [[] for _ in rows]
    for _ in range(runs):
        for index, (_, command, stdin) in enumerate(rows):
            results[index].append(cold_run_isolated(command, stdin))
    walls = [statistics.median(run[0] for run in runs_of) for runs_of in results]
    cpus = [statistics.median(run[2] for run in runs_of) for runs_of in results]
    for (label, _, _), wall, cpu, runs_of in zip(rows, walls, cpus, results):
        print(f"  {label:<52} {wall:6.3f} s {max(run[1] for run in runs_of):7.1f} MB {cpu:6.3f} s")
    print(f"  first 2-ply hint / a warm one: {walls[3] / walls[4]:.2f}x wall, {cpus[3] / cpus[4]:.2f}x CPU")
    if GNUBG.exists():
        print(
            f"  nardy hint / gnubg hint: {walls[0] / walls[5]:.2f}x wall, {cpus[0] / cpus[5]:.2f}x CPU; "
            f"the floor / gnubg hint: {walls[2] / walls[5]:.2f}x wall, {cpus[2] / cpus[5]:.2f}x CPU; "
            f"first 2-ply hint / gnubg's: {walls[3] / walls[6]:.2f}x wall, {cpus[3] / cpus[6]:.2f}x CPU"
        )


def gnubg_hint_script(plies: int) -> str:
    """GNU Backgammon's commands for a hint of the benchmark's position at ``plies`` (it sets a board only in a
    game)."""
    dice = " ".join(DICE)
    return (
        f"new game\nset evaluation chequerplay evaluation plies {plies}\nset board {POSITION}\nset dice {dice}\nhint\n"
    )


def in_process(count: int) -> None:
    """Parts 2 and 3: decisions and raw throughput, numpy against torch, one thread each."""
    import numpy as np
    import torch
    from threadpoolctl import threadpool_limits

    from bot.evaluation.checkpoint import load_class_payloads
    from bot.evaluation.classes import ClassEvaluator
    from bot.facade import Bot, default_checkpoint
    from training.torch_network import network_from_payload

    torch.set_num_threads(1)
    numpy_bot = Bot.load()
    assert isinstance(numpy_bot.evaluator, ClassEvaluator)  # the shipped bot: a network per class
    payloads = load_class_payloads(default_checkpoint().with_suffix(".pt"))[0]  # the same networks, in torch
    torch_evaluator = ClassEvaluator(
        {label: network_from_payload(payload).eval() for label, payload in payloads.items()},
        numpy_bot.evaluator.bearoff,
    )
    torch_bot = Bot(torch_evaluator)
    lines = (SHARED / "fixtures" / "move_choice.jsonl").read_text().splitlines()[:count]
    positions = [(r["position_id"], "".join(map(str, r["dice"]))) for r in map(json.loads, lines)]
    with threadpool_limits(limits=1, user_api="blas"):
        print(f"in-process decisions, median ms per position over {len(positions)} positions:")
        for plies in (0, 1):
            numpy_ms, numpy_choices = decision_times(numpy_bot, positions, plies)
            torch_ms, torch_choices = decision_times(torch_bot, positions, plies)
            same = np.mean([a == b for a, b in zip(numpy_choices, torch_choices)])
            print(
                f"  {plies}-ply: numpy {numpy_ms:6.2f} ms, torch {torch_ms:6.2f} ms, "
                f"numpy/torch {numpy_ms / torch_ms:.2f}x (same play chosen in {same:.0%})"
            )
        throughput(numpy_bot.evaluator.networks["contact"], torch_evaluator.networks["contact"], positions)


if __name__ == "__main__":
    main()
