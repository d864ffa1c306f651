"""Collection settings for the whole tree: ``bot/envs`` (the ``envs`` extra) is only imported when its libraries
are there."""

from __future__ import annotations

import importlib.util

# pytest imports every module under bot/ for its doctests; without the extra those imports would fail.
collect_ignore = (
    [] if all(importlib.util.find_spec(m) for m in ("gymnasium", "pettingzoo", "pyspiel")) else ["bot/envs"]
)
