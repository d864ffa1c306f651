"""numba-compiled modules, loaded on first use: the engine's move generator (``engine.kernels``), and ``bot``'s.

numba's import costs more than a small batch saves, so until a batch of ``KERNEL_BATCH``
boards comes, the numpy generator answers and ``import engine`` never loads numba. Once
loaded, every batch runs compiled (its fixed cost per call is far below numpy's). Without
numba, or with nowhere to cache its compiled code, every batch stays in numpy.
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

KERNEL_BATCH = 256  # boards from which a batch loads the compiled generator


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


def afterstates_kernel(batch: int) -> Generator | None:
    """The compiled ``afterstates`` for a batch of ``batch`` boards.

    None while small batches stay in numpy (before any big one came), or without numba.
    """
    if batch < KERNEL_BATCH and "engine.kernels" not in sys.modules:
        return None
    return _compiled_afterstates()


def use_compiled_generator() -> bool:
    """Load the compiled generator now, so that every batch, however small, runs compiled; False without numba.

    For a process that generates many small batches (a learning environment stepping a
    few games) and can pay numba's import once.
    """
    return _compiled_afterstates() is not None


@functools.cache
def _compiled_afterstates() -> Generator | None:
    kernels = load("engine.kernels")
    return None if kernels is None else kernels.afterstates
