"""A 0-ply request's latency while many clients ask for 2-ply work, as a ratio to its latency when idle.

The server (``python -m bot serve``, as ``benchmarks/http_api.py`` starts it) runs in its own
process on loopback. First the 0-ply answer is checked against ``Bot.evaluate`` in-process on
the same checkpoint; then ``--probes`` sequential 0-ply ``GET /v1/evaluate`` requests are timed
on the idle server, then again while ``--clients`` concurrent clients ask for 2-ply
evaluations, round and round (each answered 200 or refused 503 with Retry-After, never held
open). Printed: the idle and loaded medians and 95th percentiles, their ratio, and how the
heavy requests were answered.

    python -m benchmarks.http_load [--checkpoint PATH] [--clients 30] [--probes 40] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from pathlib import Path

import httpx
import numpy as np

from benchmarks.http_api import free_port, start_server

from bot.doors.situation import parse_position  # noqa: E402
from bot.facade import Bot, default_checkpoint  # noqa: E402

POSITIONS = ["4HPwATDgc/ABMA", "4PPgASTg28EBMA"]


def check_answer(base: str, bot: Bot) -> None:
    """The server's 0-ply probabilities are the in-process bot's (else the timing means nothing)."""
    for text in POSITIONS:
        answer = httpx.get(f"{base}/v1/evaluate", params={"position": text}, timeout=30).json()
        situation = parse_position(text)
        expected = bot.evaluate(situation.board, situation.state).probabilities
        served = np.array([answer["probabilities"][k] for k in ("win", "winG", "winBg", "loseG", "loseBg")])
        if not np.allclose(served, expected, atol=1e-5):
            raise SystemExit(f"{text}: served {served}, in-process {expected}")


async def probe(client: httpx.AsyncClient, count: int) -> list[float]:
    """Seconds of ``count`` sequential 0-ply requests."""
    times = []
    for i in range(count):
        started = time.perf_counter()
        answer = await client.get("/v1/evaluate", params={"position": POSITIONS[i % len(POSITIONS)]})
        answer.raise_for_status()
        times.append(time.perf_counter() - started)
    return times


async def heavy_client(base: str, stop: asyncio.Event, statuses: Counter[int], end: float) -> None:
    """2-ply evaluations until ``stop`` is set or ``end`` passes; a 503 waits its Retry-After."""
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        i = 0
        while not stop.is_set() and time.monotonic() < end:
            answer = await client.get("/v1/evaluate", params={"position": POSITIONS[i % len(POSITIONS)], "plies": 2})
            statuses[answer.status_code] += 1
            if answer.status_code == 503:
                await asyncio.sleep(float(answer.headers.get("retry-after", "1")))
            i += 1


async def measure(
    base: str, clients: int, probes: int, seconds: float
) -> tuple[list[float], list[float], Counter[int]]:
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        await probe(client, 5)  # warm: the network's first calls compile, at 0-ply and at 2-ply
        (await client.get("/v1/evaluate", params={"position": POSITIONS[0], "plies": 2})).raise_for_status()
        idle = await probe(client, probes)
        stop, statuses = asyncio.Event(), Counter[int]()
        end = time.monotonic() + seconds
        heavy = [asyncio.create_task(heavy_client(base, stop, statuses, end)) for _ in range(clients)]
        await asyncio.sleep(2.0)  # let the queue fill
        loaded = await probe(client, probes)
        stop.set()
        await asyncio.gather(*heavy)
    return idle, loaded, statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", type=Path, default=None)
    parser.add_argument("--clients", type=int, default=30, help="concurrent 2-ply clients")
    parser.add_argument("--probes", type=int, default=40, help="0-ply requests timed, idle and loaded")
    parser.add_argument("--seconds", type=float, default=60.0, help="longest time the heavy clients run")
    args = parser.parse_args()
    checkpoint = args.checkpoint or default_checkpoint()
    port = free_port()
    server = start_server(checkpoint, port)
    base = f"http://127.0.0.1:{port}"
    try:
        check_answer(base, Bot.load(checkpoint))
        idle, loaded, statuses = asyncio.run(measure(base, args.clients, args.probes, args.seconds))
    finally:
        server.terminate()
        server.wait(timeout=30)
    idle_ms, loaded_ms = np.array(idle) * 1000, np.array(loaded) * 1000
    print(f"0-ply /v1/evaluate idle:   median {np.median(idle_ms):7.1f} ms, p95 {np.percentile(idle_ms, 95):7.1f} ms")
    print(
        f"0-ply /v1/evaluate loaded: median {np.median(loaded_ms):7.1f} ms, p95 {np.percentile(loaded_ms, 95):7.1f} ms"
        f"  ({args.clients} clients asking 2-ply)"
    )
    print(
        f"ratio loaded/idle: median {np.median(loaded_ms) / np.median(idle_ms):.2f}x, "
        f"p95 {np.percentile(loaded_ms, 95) / np.percentile(idle_ms, 95):.2f}x"
    )
    print("2-ply answers: " + ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items())))


if __name__ == "__main__":
    main()
