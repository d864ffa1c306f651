"""The bot: ``from bot import Bot``, then ``Bot.load()`` for the shipped one.

The public names load on first use, so that ``import bot.envs`` or a door's command
line pays only for what it touches.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.equity.cube import CubeDecision, CubeState
    from bot.facade import MONEY, Bot, BoardLike, Evaluation, RankedPlay, Resignations

__all__ = ["Bot", "BoardLike", "CubeDecision", "CubeState", "Evaluation", "MONEY", "RankedPlay", "Resignations"]
_HOMES = {"CubeDecision": "bot.equity.cube", "CubeState": "bot.equity.cube"}


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use."""
    if name not in __all__:
        raise AttributeError(f"module 'bot' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES.get(name, "bot.facade")), name)
