"""A cold 0-ply `nardy hint` loads only what it uses (docs/DESIGN.md, "A cold command line")."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bot.__main__ import START_BLAS_THREADS
from bot.doors.cli import INFERENCE_THREADS
from bot.facade import REPO_CHECKPOINT

# Modules a 0-ply hint never uses: the compiler and progress bars of big batches and database builds,
# the other subcommands' modules (servers, matches, rollouts, analysis) and what only they use, long nardy,
# the game machinery and formats the position parser does not need, the cube and resignation searches,
# the match bear-off solver, what only writing files, logging and reading package data the slow way load.
NOT_LOADED = (
    "numba",
    "tqdm",
    "torch",
    "fastapi",
    "bot.evaluation.kernels",
    "bot.search.rollout",
    "bot.play.analysis",
    "bot.play.match_play",
    "bot.doors.match_command",
    "bot.doors.rollout_command",
    "bot.doors.engine_command",
    "bot.doors.external",
    "bot.doors.http_app",
    "bot.evaluation.long_nardy_encoding",
    "engine.long_nardy",
    "engine.game",
    "engine.fibs",
    "bot.search.cube_decision",
    "bot.equity.resign",
    "bot.evaluation.bearoff_match",
    "tempfile",
    "logging",
    "importlib.resources",
)


@pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason="no shipped network")
def test_a_cold_hint_loads_neither_numba_nor_other_subcommands_modules():
    script = (
        "import json, sys\n"
        "from bot.__main__ import main\n"
        f"status = main(['hint', '4HPwATDgc/ABMA', '31', '--checkpoint', {str(REPO_CHECKPOINT)!r}])\n"
        f"print(json.dumps([status, [m for m in {NOT_LOADED!r} if m in sys.modules]]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert "1. 8/5 6/5" in done.stdout, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, []]


def test_a_cold_command_starts_blas_on_the_inference_threads_and_leaves_the_environment_as_given():
    assert int(START_BLAS_THREADS) == INFERENCE_THREADS
    script = (
        "import json, os\n"
        "from bot.__main__ import main\n"
        "from threadpoolctl import threadpool_info\n"
        "threads = [pool['num_threads'] for pool in threadpool_info() if pool['user_api'] == 'blas']\n"
        "print(json.dumps([threads, os.environ.get('OPENBLAS_NUM_THREADS')]))\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=environment)
    threads, variable = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(threads) == {INFERENCE_THREADS} and variable is None, done.stderr
