"""The compiled kernels of ``bot.evaluation.kernels`` for big batches, loaded on first use.

numba's import costs more than a small batch saves, so until a batch of
``KERNEL_BATCH`` boards comes (search, rollouts, analysis) every batch stays in numpy and a
cold command line never loads it. Once loaded, every batch runs compiled: a process that
searched once (a server, a frontend's engine) chooses its 0-ply plays compiled too.
Without numba installed, or with nowhere to cache its compiled code, every batch stays in
numpy. A damaged or foreign cache is discarded and compiled afresh (``bot.evaluation.kernels``).
"""

from __future__ import annotations

import functools
import sys
from typing import Callable

from engine.compiled import load

KERNEL_BATCH = 256  # boards from which a batch loads the kernels


def kernel(name: str, batch: int) -> Callable[..., None] | None:
    """``bot.evaluation.kernels.<name>`` for a batch of ``batch`` boards; None while small batches stay in
    numpy, or without numba."""
    if batch < KERNEL_BATCH and "bot.evaluation.kernels" not in sys.modules:
        return None
    return _load(name)


@functools.cache
def _load(name: str) -> Callable[..., None] | None:
    """The kernel, numba caching its machine code beside the bear-off databases (``engine.compiled.load``).

    None without numba, or where it has nowhere to write its cache (a read-only home).
    """
    kernels = load("bot.evaluation.kernels")
    return None if kernels is None else getattr(kernels, name)
