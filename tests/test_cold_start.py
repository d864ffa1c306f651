"""A cold 0-ply `nardy hint` loads only what it uses (docs/DESIGN.md, "A cold command line")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.facade import REPO_CHECKPOINT

# Modules a 0-ply hint never uses: the compiler and progress bars of big batches and database builds,
# the rollouts and match analysis of other subcommands, the long nardy encoding.
NOT_LOADED = (
    "numba",
    "tqdm",
    "bot.evaluation.kernels",
    "bot.search.rollout",
    "bot.play.analysis",
    "bot.evaluation.long_nardy_encoding",
    "torch",
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
