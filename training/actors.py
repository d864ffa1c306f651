"""Self-play actors that feed the learner: in its own process, or in worker processes.

Both kinds answer ``next_samples()`` (the next batch of finished games' samples),
``publish(network)`` (new weights for the players) and ``close()``. Worker
processes each run their own ``SelfPlay`` batch with a private copy of the
network, one torch thread each, and send ``Samples`` through a bounded queue;
the learner publishes weights into shared memory with a version counter, and a
worker picks up the newest weights before each batch it plays.
"""

from __future__ import annotations

import queue as queue_module
import signal
from typing import Protocol

import numpy as np
import torch
import torch.multiprocessing as mp

from bot.evaluator import NetworkEvaluator
from training.network import ValueNetwork
from training.config import Config
from training.selfplay import Samples, SelfPlay


class Actors(Protocol):
    def next_samples(self) -> Samples: ...

    def publish(self, network: ValueNetwork) -> None: ...

    def close(self) -> None: ...


def _self_play(config: Config, seed: np.random.SeedSequence) -> SelfPlay:
    return SelfPlay(
        config.selfplay.parallel_games, config.learning.td_lambda, config.selfplay.epsilon, np.random.default_rng(seed)
    )


class InProcessActor:
    """Self-play in the learner's process, with the learner's own network."""

    def __init__(self, config: Config, network: ValueNetwork, seed: np.random.SeedSequence) -> None:
        self.selfplay = _self_play(config, seed)
        self.evaluator = NetworkEvaluator(network)
        self.samples_per_update = config.learning.samples_per_update

    def next_samples(self) -> Samples:
        return self.selfplay.play(self.evaluator, self.samples_per_update)

    def publish(self, network: ValueNetwork) -> None:
        """Nothing to do: the actor plays with the learner's network itself."""

    def close(self) -> None:
        """Nothing to stop."""


class SharedWeights:
    """A shared-memory copy of a network's weights and a version number."""

    def __init__(self, network: ValueNetwork, context) -> None:
        self.tensors = {k: v.detach().clone().share_memory_() for k, v in network.state_dict().items()}
        self.version = context.Value("q", 0)
        self.lock = context.Lock()

    def publish(self, network: ValueNetwork) -> None:
        with self.lock:
            for key, value in network.state_dict().items():
                self.tensors[key].copy_(value)
            self.version.value += 1

    def fetch(self, network: ValueNetwork, seen: int) -> int:
        """Load the shared weights into ``network`` if newer than version ``seen``; the version loaded."""
        if self.version.value == seen:
            return seen
        with self.lock:
            network.load_state_dict(self.tensors)
            return self.version.value


def _worker(
    config: Config, seed: np.random.SeedSequence, weights: SharedWeights, samples: mp.Queue, stop
) -> None:
    """A worker process: play self-play batches, with the newest weights at every ply, until told to stop.

    Ctrl-C is left to the learner, which saves and then stops the workers: a worker
    killed by it could die holding the shared weights' lock.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)
    network = ValueNetwork(config.network)
    seen = weights.fetch(network, -1)

    def refresh() -> None:
        nonlocal seen
        seen = weights.fetch(network, seen)

    selfplay = _self_play(config, seed)
    evaluator = NetworkEvaluator(network)
    while not stop.is_set():
        batch = selfplay.play(evaluator, config.learning.samples_per_update, before_ply=refresh)
        while not stop.is_set():
            try:
                samples.put(batch, timeout=0.2)
                break
            except queue_module.Full:
                continue


class WorkerPool:
    """``workers`` self-play processes feeding one queue."""

    def __init__(self, config: Config, network: ValueNetwork, seed: np.random.SeedSequence, workers: int) -> None:
        context = mp.get_context("spawn")
        self.weights = SharedWeights(network, context)
        self.samples = context.Queue(maxsize=1)  # a deeper queue trains on staler games
        self.stop = context.Event()
        self.processes = [
            context.Process(target=_worker, args=(config, child, self.weights, self.samples, self.stop), daemon=True)
            for child in seed.spawn(workers)
        ]
        for process in self.processes:
            process.start()

    def next_samples(self) -> Samples:
        while True:
            try:
                return self.samples.get(timeout=5.0)
            except queue_module.Empty:
                dead = [p.pid for p in self.processes if not p.is_alive()]
                if dead:
                    raise RuntimeError(f"self-play worker process(es) {dead} died") from None

    def publish(self, network: ValueNetwork) -> None:
        self.weights.publish(network)

    def close(self) -> None:
        self.stop.set()
        while any(p.is_alive() for p in self.processes):
            try:  # drain, so that no worker stays blocked on a full queue
                self.samples.get(timeout=0.1)
            except queue_module.Empty:
                pass
            for process in self.processes:
                process.join(timeout=0.1)
        self.samples.close()


def start_actors(config: Config, network: ValueNetwork, seed: np.random.SeedSequence) -> Actors:
    """Worker processes when the config asks for more than one, else self-play in-process."""
    if config.workers > 1:
        return WorkerPool(config, network, seed, config.workers)
    return InProcessActor(config, network, seed)
