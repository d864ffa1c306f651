"""A damaged or foreign compiled-kernel cache is discarded and rebuilt, with a warning, never an internal error.

Each run is a fresh process on a private ``XDG_CACHE_HOME``, so numba
reads its cache from disk as a restarted server would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[1]
# A 0-ply hint: it compiles the move generator and the network's kernels, half the work of a 1-ply one.
HINT = ["hint", "4HPwATDgc/ABMA", "31", "--plies", "0", "--top", "3"]
# The hint of a process whose every batch runs compiled, as a long one's (a rollout's) soon does.
COMPILED_HINT = (
    "import sys, engine.compiled\n"
    "engine.compiled.NUMPY_BOARDS_BEFORE_COMPILING = 0\n"
    "from bot.__main__ import main\n"
    f"sys.exit(main({HINT!r}))\n"
)


def run_hint(cache_home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run(
        [sys.executable, "-c", COMPILED_HINT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> tuple[Path, str]:
    """A cache filled by one run, and that run's answer."""
    home = tmp_path_factory.mktemp("clean") / "xdg"
    done = run_hint(home)
    assert done.returncode == 0, done.stderr
    assert list((home / "nardy" / "numba").rglob("*.nbc")), "the run cached no compiled kernel"
    assert done.stderr.count("compiling the search kernels, once") == 1, done.stderr
    return home, done.stdout


# The files of one kernel are damaged: the shipped networks' whole evaluation, which every evaluation calls from
# Python, so the hint must read them; healing it recompiles that kernel alone (seconds, where every kernel takes
# ~15 s).
DAMAGED = "kernels.tanh_network-*"


def _files(folder: Path, suffix: str) -> list[Path]:
    found = sorted(folder.rglob(DAMAGED + suffix))
    assert found, f"no {DAMAGED}{suffix} in the cache"
    return found


def truncate_indexes(folder: Path) -> None:
    for path in _files(folder, ".nbi"):
        path.write_bytes(path.read_bytes()[:20])


def flip_data_bytes(folder: Path) -> None:
    for path in _files(folder, ".nbc"):
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))


def foreign_files(folder: Path) -> None:
    """The kernel's files replaced by another program's bytes (numba's own format, say, or junk)."""
    for path in [*_files(folder, ".nbi"), *_files(folder, ".nbc")]:
        path.write_bytes(b"\x80\x04\x95not a numba cache file")


@pytest.mark.parametrize("damage", [truncate_indexes, flip_data_bytes, foreign_files], ids=lambda f: f.__name__)
@pytest.mark.slow
def test_damaged_kernel_cache_is_rebuilt_with_the_same_answer(clean, tmp_path, damage):
    home, answer = clean
    copy = tmp_path / "xdg"
    shutil.copytree(home, copy)
    damage(copy / "nardy" / "numba")

    healed = run_hint(copy)
    assert healed.returncode == 0, healed.stderr
    assert healed.stdout == answer
    assert "compiled-kernel cache" in healed.stderr and "discarded, compiling afresh" in healed.stderr
    assert "internal error" not in healed.stderr

    again = run_hint(copy)  # the rebuilt cache loads without a word
    assert (again.returncode, again.stdout, again.stderr) == (0, answer, "")
