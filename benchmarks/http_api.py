"""Requests per second and latency of the HTTP API's ``GET /move``, beside the same move choice in-process.

The server (``python -m bot serve``) runs in its own process on loopback; many
concurrent clients (asyncio + httpx, keep-alive connections) ask ``/move`` for the
300 positions and rolls of GNU Backgammon's move-choice fixtures, round and round,
until a request count or a time limit is reached. Before anything is timed, every
position's best move over HTTP is checked against ``Bot.rank_plays`` called
in-process on the same checkpoint. Printed: requests/s, median and 99th-percentile
latency, and the median time of the same ``rank_plays`` call in-process.

``--hostile F`` makes a share F of the requests hostile (padded IDs, 2^63 fields,
1-ply with a large ``top``, 10 KB query strings, ...): each must get a 4xx or
503, never a 5xx, and the figures are those of the good requests among them.

    python -m benchmarks.http_api [--checkpoint PATH] [--clients 16] [--requests 3000] [--seconds 30] [--hostile 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

import torch

from benchmarks.common import FIXTURES
from bot.doors.cli import INFERENCE_THREADS
from bot.facade import Bot, default_checkpoint
from engine import decode_position_id

REPO = Path(__file__).resolve().parents[1]


def load_queries() -> list[tuple[np.ndarray, tuple[int, int], str]]:
    """(board, dice, /move URL) for each move-choice fixture, board in the mover's view."""
    queries = []
    for line in open(FIXTURES / "move_choice.jsonl"):
        record = json.loads(line)
        board = decode_position_id(record["position_id"])
        dice = tuple(record["dice"])
        points = "&".join(f"p{i}={int(n)}" for i, n in enumerate(board) if n)
        queries.append((board, dice, f"/move?die1={dice[0]}&die2={dice[1]}&{points}"))
    return queries


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(checkpoint: Path, port: int) -> subprocess.Popen:
    """``python -m bot serve`` on loopback; returns once it answers."""
    command = [
        sys.executable,
        "-m",
        "bot",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--checkpoint",
        str(checkpoint),
    ]
    server = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            error = server.stderr.read().decode() if server.stderr else ""
            raise RuntimeError(f"the server exited: {error[-2000:]}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=1.0)
            return server
        except httpx.TransportError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("the server did not start within 120 s")


def check_answers(base: str, bot: Bot, queries) -> None:
    """Every position's best move over HTTP must be the in-process best play."""
    with httpx.Client(base_url=base, timeout=60) as client:
        for board, dice, url in queries:
            best = client.get(url).json()["moves"][0]["play"]
            expected = [{"from": s.src, "to": s.dst} for s in bot.best_play(board, dice).play.steps]
            if best != expected:
                raise AssertionError(f"{url}: server says {best}, in-process {expected}")


# Requests a hostile client sends; every one must be refused (4xx, or 503 when 1-ply work is queued).
HOSTILE = [
    "/v1/moves?position=AAAAAAAAAAAA%3D%3D&dice=31",
    "/v1/evaluate?position=27YBAHDbtgEAcA",
    f"/move?die1=3&die2=1&p24={2**63}&p1=-2",
    "/move?die1=%C2%B2&die2=1&p24=2&p1=-2",
    "/v1/moves?position=4HPwATDgc/ABMA&dice=31&top=100000",
    "/v1/moves?position=4HPwATDgc/ABMA&dice=31&plies=1&top=100",
    "/v1/moves?position=" + "x" * 10_000,  # httpx refuses URLs over 64 KB
    "/v1/moves?position=4HPwATDgc/ABMA:cAkAAAAAAA%3D%3D&dice=31",
]
# Costly but allowed: 1-ply with the largest top it accepts (the semaphore must keep it from starving others).
EXPENSIVE = "/v1/moves?position=4HPwATDgc/ABMA&dice=11&plies=1&top=16"


async def load_test(
    base: str, urls: list[str], clients: int, requests: int, seconds: float, hostile: float = 0.0
) -> tuple[list[float], float, dict[int, int]]:
    """Latencies (s) of the good requests made by ``clients`` concurrent clients, the wall time,
    and the status counts of the hostile ones (a share ``hostile`` of all requests)."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    next_index = 0
    deadline = time.perf_counter() + seconds
    rng = np.random.default_rng(0)

    async def client_loop(client: httpx.AsyncClient) -> None:
        nonlocal next_index
        while next_index < requests and time.perf_counter() < deadline:
            index = next_index
            next_index += 1
            if rng.random() < hostile:
                bad = HOSTILE + [EXPENSIVE] * 2
                answer = await client.get(bad[index % len(bad)])
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
                if answer.status_code >= 500 and answer.status_code != 503:
                    raise AssertionError(f"hostile request answered {answer.status_code}: {answer.text[:200]}")
                continue
            url = urls[index % len(urls)]
            start = time.perf_counter()
            answer = await client.get(url)
            latencies.append(time.perf_counter() - start)
            answer.raise_for_status()

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        start = time.perf_counter()
        await asyncio.gather(*(client_loop(client) for _ in range(clients)))
        return latencies, time.perf_counter() - start, statuses


def in_process_times(bot: Bot, queries, seconds: float) -> list[float]:
    """Times (s) of ``bot.rank_plays`` on the queries, round and round for about ``seconds``.

    One untimed pass first, as the server had (torch prepares its kernels per batch shape).
    """
    for board, dice, _ in queries:
        bot.rank_plays(board, dice)
    times: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(times) < len(queries):
        board, dice, _ = queries[len(times) % len(queries)]
        start = time.perf_counter()
        bot.rank_plays(board, dice)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, default=None, help="default: the shipped bot")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (default 16)")
    parser.add_argument("--requests", type=int, default=3000, help="at most this many requests (default 3000)")
    parser.add_argument("--seconds", type=float, default=30.0, help="at most this long under load (default 30)")
    parser.add_argument("--hostile", type=float, default=0.0, help="share of hostile requests (default 0)")
    args = parser.parse_args()
    torch.set_num_threads(INFERENCE_THREADS)  # as the server (and every command line door) runs
    checkpoint = args.checkpoint or default_checkpoint()
    bot = Bot.load(checkpoint)
    queries = load_queries()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(checkpoint, port)
    try:
        check_answers(base, bot, queries)
        print(f"checked: the best move of all {len(queries)} positions over HTTP equals the in-process choice")
        urls = [url for _, _, url in queries]
        latencies, wall, statuses = asyncio.run(
            load_test(base, urls, args.clients, args.requests, args.seconds, args.hostile)
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
    local = in_process_times(bot, queries, seconds=5.0)
    ms = np.array(latencies) * 1000.0
    local_ms = np.array(local) * 1000.0
    if args.hostile:
        counts = ", ".join(f"{n} x {status}" for status, n in sorted(statuses.items()))
        print(f"hostile requests ({sum(statuses.values())}), a share {args.hostile:.0%}: {counts}")
    print(f"GET /move, {args.clients} clients on loopback, {len(ms)} good requests in {wall:.1f} s:")
    print(f"  {len(ms) / wall:8.1f} requests/s   median {np.median(ms):6.2f} ms   p99 {np.percentile(ms, 99):6.2f} ms")
    print(f"in-process Bot.rank_plays, same positions, one at a time ({len(local_ms)} calls):")
    print(
        f"  {1000.0 / local_ms.mean():8.1f} calls/s      median {np.median(local_ms):6.2f} ms   "
        f"p99 {np.percentile(local_ms, 99):6.2f} ms"
    )
    print(f"HTTP throughput / in-process throughput: {len(ms) / wall * local_ms.mean() / 1000.0:.2f}")


if __name__ == "__main__":
    main()
