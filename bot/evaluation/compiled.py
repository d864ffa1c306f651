"""The compiled kernels of ``bot.evaluation.kernels``, loaded once a process's work pays for them.

Until a process has run enough boards in numpy to pay for numba's import
(``engine.compiled.runs_compiled``: a rollout, an analysis, a server's first searches) every
batch stays in numpy, and a cold command line never loads it. Once loaded, every batch runs
compiled: a process that searched enough (a server, a frontend's engine) chooses its 0-ply
plays compiled too. Without numba installed, or with nowhere to cache its compiled code,
every batch stays in numpy. A damaged or foreign cache is discarded and compiled afresh
(``bot.evaluation.kernels``).
"""

from __future__ import annotations

import functools
from typing import Callable

from engine.compiled import load, runs_compiled


def kernel(name: str, batch: int) -> Callable[..., None] | None:
    """``bot.evaluation.kernels.<name>`` for a batch of ``batch`` boards; None while the process's work stays in
    numpy (``engine.compiled.runs_compiled``), or without numba."""
    if not runs_compiled("bot.evaluation.kernels", batch):
        return None
    return _load(name)


@functools.cache
def _load(name: str) -> Callable[..., None] | None:
    """The kernel, numba caching its machine code beside the bear-off databases (``engine.compiled.load``).

    None without numba, or where it has nowhere to write its cache (a read-only home).
    """
    kernels = load("bot.evaluation.kernels")
    return None if kernels is None else getattr(kernels, name)
