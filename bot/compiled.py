"""The compiled kernels of ``bot.kernels`` for big batches, loaded on first use.

numba's import costs about 0.3 s, more than a small batch saves, so batches under
``KERNEL_BATCH`` boards (one position's plays) stay in numpy and a cold command line
never loads it; search, rollouts and analysis run compiled. Without numba installed,
every batch stays in numpy.
"""

from __future__ import annotations

import functools
import importlib
from typing import Callable

KERNEL_BATCH = 256  # boards from which a batch runs compiled


def kernel(name: str, batch: int) -> Callable[..., None] | None:
    """``bot.kernels.<name>`` for a batch of ``batch`` boards; None for a small batch, or without numba."""
    return _load(name) if batch >= KERNEL_BATCH else None


@functools.cache
def _load(name: str) -> Callable[..., None] | None:
    try:
        kernels = importlib.import_module("bot.kernels")
    except ImportError:
        return None
    return getattr(kernels, name)
