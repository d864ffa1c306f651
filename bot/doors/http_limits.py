"""What one HTTP request may cost, and the one bounded queue that every request above 0-ply goes through.

``docs/http_limits.md`` explains the limits for users. Three parts:

- A cost model (``rollout_work``, ``analysis_work``): the work of a rollout or a match analysis,
  estimated from its parameters before it starts, in *trial-plies* (one ply of one
  variance-reduced trial of one position, the rollout's step); a request over
  ``Limits.max_work`` gets 400 naming the limit (``WorkLimitError``).
- ``HeavyQueue``: searches above 0-ply, rollouts and analyses wait (as asyncio tasks, holding no
  thread) for one of ``Limits.heavy_slots`` slots, at most ``Limits.heavy_wait`` seconds and at most
  ``Limits.heavy_queue`` of them at once, else 503 with Retry-After (``BusyError``); the work runs in
  the queue's own small thread pool, so the thread pool that answers 0-ply requests is never tied up.
- Cancellation: each job runs under ``bot.search.cancel.cancel_on``; its flag is set when the client
  disconnects, when the job runs past ``Limits.work_seconds``, or when the server stops
  (``HeavyQueue.stop``), and the search, rollout and analysis loops stop at their next check.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Optional, TypeVar

import anyio
from fastapi import Request
from starlette.exceptions import HTTPException

from bot.search.cancel import Cancelled, cancel_on
from bot.doors.http_views import ErrorMessage
from engine.errors import InvalidOptionError

log = logging.getLogger(__name__)
T = TypeVar("T")

# The estimated work of one .mat action (a play, a double, a take or a pass) analysed at 0-ply and at
# 1-ply, in trial-plies: its checker play (every legal play, the luck of all 21 rolls) and the cube
# decision before it; 1-ply searches the best plays one roll deeper.
ANALYSIS_ACTION_WORK = (8, 16)
# A rolled-out play of a roll weighs more than a position before the roll: its trials start one ply
# later and share fewer positions with each other.
CANDIDATE_WEIGHT = 1.5
# Trials without variance reduction evaluate the rolled dice's plays only, not all 21 rolls'.
NO_VR_WEIGHT = 0.1
# The OpenAPI answers of a route whose work may go through the queue.
# Every route may answer 413: the server refuses a body over its route's limit before reading it.
TOO_LARGE_RESPONSES: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorMessage, "description": "a request body over the route's limit, or a chunked one"},
}
BUSY_RESPONSES: dict[int | str, dict[str, Any]] = {
    503: {
        "model": ErrorMessage,
        "description": "the queue for work above 0-ply is full, the work ran too long, "
        "or the server is stopping; try again (Retry-After)",
    },
}


@dataclass(frozen=True)
class Limits:
    """The server's bounds on one request's work and on waiting (``create_app(bot, limits)``)."""

    # Rollouts and analyses estimated above this many trial-plies are refused (400). The default
    # admits every default rollout request (324 trials, 10 plies, 3 candidates of a roll).
    max_work: int = 16_200
    # Heavy requests (above 0-ply, rollouts, analyses) computed at once.
    heavy_slots: int = 1
    # Heavy requests waiting for a slot at once; one more gets 503 at once.
    heavy_queue: int = 32
    # Seconds a heavy request waits for its slot before 503.
    heavy_wait: float = 5.0
    # A heavy request still computing after this many seconds is cancelled (503).
    work_seconds: float = 60.0
    # Seconds to send a request's headers, and then its body, before the connection is closed (408).
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    # uvicorn: seconds an idle keep-alive connection stays open; seconds of grace on SIGTERM.
    keep_alive: int = 5
    shutdown_grace: int = 3


class BusyError(Exception):
    """Too much heavy work queued, or the server is stopping: try again later (503, Retry-After)."""


class WorkLimitError(InvalidOptionError):
    """A request whose estimated work is over the server's limit (400)."""


class TooSlowError(HTTPException):
    """A request body that did not arrive within ``Limits.body_timeout``: 408, and the connection closes.

    An ``HTTPException``, so that FastAPI's JSON body reading passes it on instead of calling it a parse error.
    """

    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"request body not received within {seconds:g} s", {"Connection": "close"})


def rollout_work(trials: int, truncate: int, variance_reduction: bool, cubeful: bool, candidates: Optional[int]) -> int:
    """Trial-plies of a rollout: trials x plies x positions (a cubeful rollout adds two, its no-double and
    double/take trials; ``candidates`` plays of a roll count ``CANDIDATE_WEIGHT`` each)."""
    positions = candidates * CANDIDATE_WEIGHT if candidates is not None else 1 + (2 if cubeful else 0)
    weight = 1.0 if variance_reduction else NO_VR_WEIGHT
    return math.ceil(trials * max(truncate, 1) * positions * weight)


def analysis_work(actions: int, plies: int) -> int:
    """Trial-plies of analysing a match of ``actions`` .mat actions ``plies`` deep (0 or 1)."""
    return actions * ANALYSIS_ACTION_WORK[min(plies, len(ANALYSIS_ACTION_WORK) - 1)]


def check_work(what: str, work: int, limits: Limits, advice: str) -> None:
    """Raise ``WorkLimitError`` when ``work`` trial-plies are over ``limits.max_work``."""
    if work > limits.max_work:
        raise WorkLimitError(
            f"{what}: about {work} trial-plies of work, over this server's limit of "
            f"{limits.max_work} per request; {advice}"
        )


def _run_cancellable(event: threading.Event, work: Callable[[], T]) -> T:
    with cancel_on(event):
        return work()


class HeavyQueue:
    """One bounded queue for every request above 0-ply: a few slots, a short wait, cancellation.

    ``stop`` cancels what runs and refuses what comes; ``start`` (the application's startup) opens it
    again, so that an application can be started and stopped more than once (as tests do).
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._slots: Optional[asyncio.Semaphore] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._waiting = 0
        self._running: set[threading.Event] = set()
        self._executor = ThreadPoolExecutor(limits.heavy_slots, thread_name_prefix="nardy-heavy")
        self._stopping = False

    def start(self) -> None:
        """Accept work (again): a fresh thread pool if ``close`` released the last one."""
        if self._stopping:
            self._executor = ThreadPoolExecutor(self.limits.heavy_slots, thread_name_prefix="nardy-heavy")
        self._stopping = False

    @property
    def waiting(self) -> int:
        """Requests waiting for a slot now."""
        return self._waiting

    @property
    def running(self) -> int:
        """Jobs computing now (cancelled ones until their thread has stopped)."""
        return len(self._running)

    async def run(self, request: Optional[Request], work: Callable[[], T]) -> T:
        """``work()`` computed in the queue's thread pool once a slot is free; cancelled when ``request``'s
        client disconnects, after ``work_seconds``, or on ``stop``. Raise ``BusyError`` when the queue is
        full, the wait too long or the server stopping; ``Cancelled`` when cancelled."""
        if self._stopping:
            raise BusyError("the server is stopping")
        if self._waiting >= self.limits.heavy_queue:
            raise BusyError(f"{self._waiting} requests already wait for the server's search slots")
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:  # an asyncio semaphore serves one event loop
            self._slots, self._loop = asyncio.Semaphore(self.limits.heavy_slots), loop
        slots = self._slots
        self._waiting += 1
        try:
            await asyncio.wait_for(slots.acquire(), self.limits.heavy_wait)
        except asyncio.TimeoutError:  # TimeoutError from Python 3.11
            raise BusyError(f"no search slot free within {self.limits.heavy_wait:g} s") from None
        finally:
            self._waiting -= 1
        event = threading.Event()
        if self._stopping:
            slots.release()
            raise BusyError("the server is stopping")
        self._running.add(event)
        future = loop.run_in_executor(self._executor, _run_cancellable, event, work)

        def finished(_: object) -> None:
            # The slot frees when the thread stops, not when the client leaves: at most heavy_slots compute.
            self._running.discard(event)
            slots.release()

        future.add_done_callback(finished)
        why: list[str] = []

        def cancel(reason: str) -> None:
            why.append(reason)
            event.set()

        deadline = loop.call_later(self.limits.work_seconds, cancel, "deadline")
        watcher = asyncio.ensure_future(self._watch(request, cancel)) if request is not None else None
        try:
            return await asyncio.shield(future)
        except Cancelled:
            if why[:1] == ["deadline"]:
                raise BusyError(f"the work ran past this server's limit of {self.limits.work_seconds:g} s") from None
            raise
        except asyncio.CancelledError:
            event.set()  # the server gave up on this request (shutdown): stop its work too
            raise
        finally:
            deadline.cancel()
            if watcher is not None:
                watcher.cancel()

    @staticmethod
    async def _watch(request: Request, cancel: Callable[[str], None]) -> None:
        """Cancel the job when the client disconnects.

        Waits on the ASGI receive channel: once the body is read only the disconnect comes. (Starlette's
        ``is_disconnected`` polls with an already-cancelled scope, which never sees the disconnect through
        an HTTP middleware's receive.)"""
        while True:
            message = await request.receive()
            if message.get("type") == "http.disconnect":
                cancel("disconnected")
                return
            await asyncio.sleep(0.05)  # the rest of a body nobody reads: no busy loop

    def stop(self) -> None:
        """Cancel every running job and refuse new ones; the threads end at their next cancellation check.

        Only sets flags, so a signal handler may call it."""
        self._stopping = True
        for event in list(self._running):
            event.set()

    def close(self) -> None:
        """Release the queue's threads (after ``stop``), without waiting for them."""
        self._executor.shutdown(wait=False, cancel_futures=True)


async def compute(request: Request, heavy: bool, work: Callable[[], T]) -> T:
    """``work()`` through the application's ``HeavyQueue`` when ``heavy``, else in the thread pool that answers
    cheap requests (a 0-ply answer never waits behind a search)."""
    if not heavy:
        from starlette.concurrency import run_in_threadpool

        return await run_in_threadpool(work)
    queue: HeavyQueue = request.app.state.heavy_queue
    return await queue.run(request, work)


class BodyDeadline:
    """ASGI middleware: a request body must arrive within ``seconds`` of its headers, else ``TooSlowError``.

    uvicorn waits for a body as long as the client keeps the connection open; this bounds the wait.
    """

    def __init__(self, app, seconds: float) -> None:
        self.app, self.seconds = app, seconds

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        end = loop.time() + self.seconds
        body_done = False

        async def bounded_receive():
            nonlocal body_done
            if body_done:
                return await receive()  # after the body: only the disconnect comes, whenever it does
            try:
                # A cancel scope, not wait_for: no extra task, so a message already there is taken at once
                # (Starlette's disconnect poll cancels any receive that suspends).
                with anyio.fail_after(max(0.0, end - loop.time())):
                    message = await receive()
            except TimeoutError:
                raise TooSlowError(self.seconds) from None
            if message.get("type") != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        await self.app(scope, bounded_receive, send)


def header_timeout_protocol(seconds: float) -> type:
    """uvicorn's h11 protocol, closing a connection whose next request's headers take over ``seconds``.

    uvicorn closes idle keep-alive connections, but not a new connection that stays silent, nor one
    that sends part of its headers and stops.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeoutProtocol(H11Protocol):
        _header_timer: Optional[asyncio.TimerHandle] = None

        def connection_made(self, transport) -> None:  # type: ignore[no-untyped-def]
            super().connection_made(transport)
            self._wait_for_headers()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._wait_for_headers()

        def connection_lost(self, exc: Optional[Exception]) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            super().connection_lost(exc)

        def _wait_for_headers(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            self._header_timer = self.loop.call_later(seconds, self._headers_late)

        def _headers_late(self) -> None:
            # A request in progress has its headers: its body is BodyDeadline's, its work the queue's.
            in_progress = self.cycle is not None and not self.cycle.response_complete
            if not in_progress and not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeoutProtocol
