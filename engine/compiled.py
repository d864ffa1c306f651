"""numba-compiled modules, loaded on first use: the engine's move generator (``engine.kernels``), and ``bot``'s.

Loading numba and the cached kernels costs about as much as 250,000 boards' work in numpy,
so a process runs numpy until it has done that much (a 2-ply hint never gets there; a rollout
gets there early) and ``import engine`` never loads numba. Once loaded, every batch runs
compiled (its fixed cost per call is far below numpy's). The first compile after an install
says so on stderr. Without numba, or with nowhere to cache its compiled code, every batch
stays in numpy.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Protocol

import numpy as np

NUMPY_BOARDS_BEFORE_COMPILING = 250_000  # boards, summed over every kernel's batches, before numba loads

_numpy_boards = 0  # boards this process ran in numpy, while no compiled module is loaded


class Generator(Protocol):
    """``engine.kernels.afterstates``: (children, parent) of boards and dice; ``starts``, when given, receives where
    each board's children begin."""

    def __call__(
        self, boards: np.ndarray, dice: np.ndarray, starts: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]: ...


def cache_dir() -> Path:
    """Where the project caches what it builds (bear-off databases, compiled kernels): ``$XDG_CACHE_HOME/nardy``,
    else ``~/.cache/nardy``."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "nardy"


def load(module: str) -> ModuleType | None:
    """The compiled module ``module``, numba caching its machine code in ``cache_dir()`` (``$NUMBA_CACHE_DIR`` first).

    None without numba, or where it has nowhere to write its cache (a read-only home).
    Every compiled module goes through here, so numba reads the cache folder before its
    first import, whichever module comes first.
    """
    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir() / "numba"))
    try:
        return importlib.import_module(module)
    except (ImportError, RuntimeError):  # RuntimeError: numba found no directory it may cache in
        return None


def runs_compiled(module: str, batch: int) -> bool:
    """Whether a batch of ``batch`` boards should run in the compiled ``module``: always once it is loaded;
    before, only once this process has run enough boards in numpy to pay for loading it."""
    global _numpy_boards
    if module in sys.modules:
        return True
    _numpy_boards += batch
    return _numpy_boards >= NUMPY_BOARDS_BEFORE_COMPILING


def expect_long_work() -> None:
    """Run every batch compiled from now on (with numba): for work that surely pays for loading the kernels
    (self-play, distillation targets), so that every process computes the same numbers whatever it ran before."""
    global _numpy_boards
    _numpy_boards = max(_numpy_boards, NUMPY_BOARDS_BEFORE_COMPILING)


def afterstates_kernel(batch: int) -> Generator | None:
    """The compiled ``afterstates`` for a batch of ``batch`` boards.

    None while the process's work stays in numpy (``runs_compiled``), or without numba.
    """
    if not runs_compiled("engine.kernels", batch):
        return None
    return _compiled_afterstates()


def use_compiled_generator() -> bool:
    """Load the compiled generator now, so that every batch, however few, runs compiled; False without numba.

    For a process that generates many small batches (a learning environment stepping a
    few games) and can pay numba's import once.
    """
    return _compiled_afterstates() is not None


@functools.cache
def _compiled_afterstates() -> Generator | None:
    kernels = load("engine.kernels")
    return None if kernels is None else kernels.afterstates
