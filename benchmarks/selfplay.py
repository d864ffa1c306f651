"""Full self-play games per second with learning on, and where the time goes.

A 128-hidden-unit network (the ``configs/td.toml`` settings) plays batches of
games against itself and learns from every finished game, exactly as
``python -m training train`` does. First the samples are checked (legal boards,
every game starting at START, targets that are distributions, final targets the
real result); then the run is timed, in the learner's process and, with
``--workers``, with self-play worker processes. The time split (move generation,
encoding + network, learning, the rest) comes from a profiled run, which is a
little slower than the timed one.

``--backend ray`` also times Ray actors (1, 2, ... up to ``--actors``, default 2) on a local
Ray instance against worker processes of the same count, in the same run; for each, the
share of the time the learner was busy training says where it becomes the bottleneck
(near 100%: the actors wait for it, and more of them add nothing).

    python -m benchmarks.selfplay [--seconds 20] [--workers 2] [--backend ray [--actors 2]]
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import pstats
import time
from pathlib import Path

import numpy as np
import torch

from bot.evaluation.evaluator import NetworkEvaluator
from training.torch_network import ValueNetwork
from engine import START, validate_board
from training.actors import InProcessActor, WorkerPool
from training.config import load_config
from training.selfplay import SelfPlay
from training.td import Learner

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "td.toml"
REQUIRED = 250.0  # games per second


def check_samples(config) -> None:
    """Play a few games and check what the learner would receive."""
    network = ValueNetwork(config.network)
    samples = SelfPlay(64, config.learning.td_lambda, 0.0, np.random.default_rng(0)).play(NetworkEvaluator(network), 1)
    for board in samples.boards:
        validate_board(board)
    starts = np.flatnonzero((samples.boards == START).all(axis=1))
    assert len(starts) == samples.games >= 1 and starts[0] == 0, "every game starts at START"
    assert np.allclose(samples.targets.sum(axis=1), 1.0, atol=1e-5), "targets are distributions"
    finals = samples.targets[np.append(starts[1:], len(samples)) - 1]
    assert (finals.max(axis=1) == 1.0).all() and finals[:, :3].sum() == samples.games, "last target = the win"


def run_for(seconds: float, actor, learner: Learner, warmup: int = 3) -> tuple[int, int, float, float]:
    """(games, positions, elapsed, seconds in learner.train) of self-play + learning for about ``seconds``,
    after a warm-up of ``warmup`` batches."""
    for _ in range(warmup):  # reach steady state: games of every length in flight
        learner.train(actor.next_samples())
        actor.publish(learner.network)
    games = positions = 0
    learning = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        samples = actor.next_samples()
        before = time.perf_counter()
        learner.train(samples)
        learning += time.perf_counter() - before
        actor.publish(learner.network)
        games += samples.games
        positions += len(samples)
    return games, positions, time.perf_counter() - start, learning


def time_split(seconds: float, actor: InProcessActor, learner: Learner) -> dict[str, float]:
    """Fractions of time in move generation, encoding + network, learning and the rest (profiled)."""
    profile = cProfile.Profile()
    profile.enable()
    run_for(seconds, actor, learner)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]  # its table, absent from the stubs
    total = max(v[3] for v in stats.values())  # (calls, primitive calls, own time, cumulative, callers)

    def cumulative(file_end: str, function: str) -> float:
        return sum(v[3] for (file, _, name), v in stats.items() if file.endswith(file_end) and name == function)

    split = {
        "move generation": cumulative("engine/movegen.py", "afterstates"),
        "encoding + network": cumulative("bot/evaluation/evaluator.py", "afterstate_probabilities"),
        "learning": cumulative("training/td.py", "train"),
    }
    split["other (choice, bookkeeping, TD returns)"] = total - sum(split.values())
    return {k: v / total for k, v in split.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="timed seconds per measurement")
    parser.add_argument("--workers", type=int, default=0, help="also time this many self-play processes")
    parser.add_argument(
        "--backend",
        choices=("processes", "ray"),
        default="processes",
        help="ray: also time Ray actors against worker processes (needs nardy[ray])",
    )
    parser.add_argument("--actors", type=int, default=2, help="with --backend ray: time 1..ACTORS of each")
    args = parser.parse_args()
    config = load_config(CONFIG)
    assert config.network.hidden == (128,)
    check_samples(config)
    print(f"samples checked; network {config.network}, {config.selfplay.parallel_games} games per batch")

    torch.set_num_threads(1)

    def fresh() -> Learner:  # every measurement starts from the same untrained network
        torch.manual_seed(0)
        return Learner(ValueNetwork(config.network), config.learning, np.random.default_rng(1))

    learner = fresh()
    actor = InProcessActor(config, learner.network, np.random.SeedSequence(1))
    games, positions, elapsed, _ = run_for(args.seconds, actor, learner)
    rate = games / elapsed
    verdict = "ok" if rate >= REQUIRED else f"BELOW the required {REQUIRED:.0f}"
    print(
        f"one process: {rate:7.1f} games/s, {positions / elapsed:8.0f} positions/s "
        f"({positions / games:.1f} per game of an untrained network) {verdict}"
    )
    learner = fresh()
    actor = InProcessActor(config, learner.network, np.random.SeedSequence(1))
    for part, fraction in time_split(min(args.seconds, 10.0), actor, learner).items():
        print(f"    {part:40s} {100 * fraction:5.1f}%")

    if args.workers > 1:
        learner = fresh()
        pool = WorkerPool(config, learner.network, np.random.SeedSequence(2), args.workers)
        try:
            games, positions, elapsed, _ = run_for(args.seconds, pool, learner)
        finally:
            pool.close()
        print(
            f"{args.workers} workers:   {games / elapsed:7.1f} games/s, {positions / elapsed:8.0f} positions/s "
            "(self-play processes + this learner)"
        )
    if args.backend == "ray":
        compare_ray(config, args.seconds, args.actors, fresh)


def compare_ray(config, seconds: float, most: int, fresh) -> None:
    """Ray actors against worker processes, 1..``most`` of each, on a local Ray instance of ``most`` CPUs."""
    from training.ray_actors import RayActors, import_ray, runtime_env

    ray = import_ray()
    ray.init(num_cpus=most, include_dashboard=False, runtime_env=runtime_env(), log_to_driver=False)
    try:
        print(
            f"{'backend':10s} {'workers':>7s} {'games/s':>8s} {'positions/s':>11s} {'learner busy':>12s} "
            f"{'learner alone':>13s}"
        )
        for count in range(1, most + 1):
            for backend in ("processes", "ray"):
                settings = dataclasses.replace(config.selfplay, workers=count, backend=backend)
                run = config.replace(selfplay=settings)
                learner = fresh()
                seed = np.random.SeedSequence(3)
                actors: RayActors | WorkerPool
                if backend == "ray":
                    actors = RayActors(run, learner.network, seed)
                else:  # worker processes, one included (a config's workers = 1 plays in-process instead)
                    actors = WorkerPool(run, learner.network, seed, count)
                try:
                    games, positions, elapsed, learning = run_for(seconds, actors, learner, warmup=3 * count)
                finally:
                    actors.close()
                print(
                    f"{backend:10s} {count:7d} {games / elapsed:8.1f} {positions / elapsed:11.0f} "
                    f"{100 * learning / elapsed:11.0f}% {games / learning:9.0f} g/s"
                )
        print(
            "learner busy: the share of the time in learner.train; near 100% the learner is the bottleneck and "
            "more workers add nothing.\nlearner alone: games/s the learner could take if samples came at once "
            "(where adding workers stops paying, given a core each)."
        )
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
