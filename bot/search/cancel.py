"""Cooperative cancellation of long computations (rollouts, searches, match analysis).

A front door that runs work for someone who may leave (an HTTP client that disconnects,
a server asked to stop) wraps the work in ``cancel_on(event)``; the long loops of
``bot.search.nply``, ``bot.search.rollout`` and ``bot.play.analysis`` call ``check_cancelled()`` between
plies, chunks and positions, and raise ``Cancelled`` once the event is set. Outside
``cancel_on`` the check costs one context-variable read and never raises, so the
command line and training are unaffected. The flag is a ``contextvars.ContextVar``:
it belongs to the thread (or task) that set it, so concurrent requests do not see
each other's flags.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator, Optional

_flag: ContextVar[Optional[threading.Event]] = ContextVar("nardy_cancel", default=None)


class Cancelled(Exception):
    """The work was abandoned: its requester has gone or the process is stopping (not bad input)."""


@contextmanager
def cancel_on(event: threading.Event) -> Iterator[None]:
    """Within the block, ``check_cancelled()`` raises ``Cancelled`` once ``event`` is set."""
    token = _flag.set(event)
    try:
        yield
    finally:
        _flag.reset(token)


def check_cancelled() -> None:
    """Raise ``Cancelled`` if the surrounding ``cancel_on`` event is set; else do nothing."""
    event = _flag.get()
    if event is not None and event.is_set():
        raise Cancelled("cancelled")
