"""A cube request from the HTTP door moves down the layers: no call goes from a lower layer to a higher one.

The door's view (``bot.doors.http_views.cube``) asks the facade, which asks
``bot.search.cube_decision``; that takes probabilities (or exact cube values) from
``bot.evaluation`` and prices them with ``bot.equity.cube``. A long nardy request
(``bot.doors.http_views.cube`` with long nardy's bot) asks long nardy's ``Bot`` the same way. Every call made while
answering is traced, and each must stay in its caller's layer or go below it.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

from bot import Bot
from bot.doors.http_views import EvaluateQuery, PositionQuery, cube
from bot.facade import default_long_nardy_checkpoint

ROOT = Path(__file__).resolve().parents[1]
RANK = {"engine": 0, "equity": 1, "evaluation": 2, "search": 3, "facade": 4, "play": 5, "doors": 6}


@cache
def layer(filename: str) -> str | None:
    """The layer of a project source file, None for anything else (the standard library, packages)."""
    path = Path(filename)
    if not path.is_relative_to(ROOT) or path.suffix != ".py":
        return None
    parts = path.relative_to(ROOT).parts
    if parts[0] == "engine":
        return "engine"
    if parts[0] != "bot":
        return None
    return "facade" if parts[1] in ("facade.py", "__init__.py") else parts[1]


def upward_calls(request) -> list[str]:
    """'caller -> callee' for every call made by ``request()`` from a lower layer into a higher one."""
    found: list[str] = []

    def watch(frame, event, arg):
        if event != "call" or frame.f_back is None:
            return
        callee, caller = layer(frame.f_code.co_filename), layer(frame.f_back.f_code.co_filename)
        if callee and caller and RANK[caller] < RANK[callee]:
            found.append(f"{frame.f_back.f_code.co_qualname} ({caller}) -> {frame.f_code.co_qualname} ({callee})")

    sys.setprofile(watch)
    try:
        request()
    finally:
        sys.setprofile(None)
    return found


@pytest.mark.parametrize(
    "position, plies",
    [
        ("4HPwATDgc/ABMA:cAkAAAAAAAAA", 0),  # the opening, money
        pytest.param("4HPwATDgc/ABMA:cAkAAAAAAAAA", 1, marks=pytest.mark.slow),
        ("4HPwATDgc/ABMA:MAGgAAAAAAAA", 1),  # a 7-point match
        ("DQAAsAAAAAAAAA:cAkAAAAAAAAA", 1),  # a bear-off the databases answer exactly
    ],
)
def test_a_cube_request_never_calls_back_up(position, plies):
    bot = Bot.load()
    query = PositionQuery(position=position, plies=plies)
    assert upward_calls(lambda: cube(bot, query)) == []


@pytest.mark.skipif(not default_long_nardy_checkpoint().is_file(), reason="no shipped long nardy network")
@pytest.mark.parametrize("plies", [0, 1])
def test_a_long_nardy_cube_request_passes_through_the_bot_and_never_calls_back_up(plies):
    bot = Bot.load(variant="long")
    query = EvaluateQuery(position="ACBUH/wCQAk/+", plies=plies, variant="long")
    called: list[str] = []
    real = Bot.evaluate

    def evaluate(self, *args, **kwargs):
        called.append(self.variant.name)
        return real(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Bot, "evaluate", evaluate)
        assert upward_calls(lambda: cube(bot, query)) == []
    assert called == ["long_nardy"]
