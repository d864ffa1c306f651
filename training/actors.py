"""Self-play actors that feed the learner: in its own process, in worker processes, or as Ray actors.

Both kinds answer ``next_samples()`` (the next batch of finished games' samples),
``publish(network)`` (new weights for the players) and ``close()``. Worker
processes each run their own ``SelfPlay`` batch with a private copy of the
network, one torch thread each, and send ``Samples`` through a bounded queue;
the learner publishes weights into shared memory with a version counter, and a
worker picks up the newest weights before each batch it plays.

A worker ends when the learner does, however the learner ends: on Linux the kernel
sends it SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``), and everywhere a
watch thread ends it within a second of its parent pid changing. With the learner and
the workers gone, the multiprocessing resource tracker sees its pipe close and ends too.

With ``[selfplay] backend = "ray"`` the workers are Ray actors instead (``training.ray_actors``,
imported only then, as is Ray itself).
"""

from __future__ import annotations

import ctypes
import os
import queue as queue_module
import signal
import sys
import threading
import time
from typing import Protocol

import numpy as np
import torch
import torch.multiprocessing as mp

from bot.evaluation.evaluator import NetworkEvaluator
from engine.variant import find_variant
from training.torch_network import ValueNetwork
from training.config import Config, check_processes
from training.selfplay import Samples, self_play_of


class Actors(Protocol):
    def next_samples(self) -> Samples: ...

    def publish(self, network: ValueNetwork) -> None: ...

    def close(self) -> None: ...


class InProcessActor:
    """Self-play in the learner's process, with the learner's own network."""

    def __init__(self, config: Config, network: ValueNetwork, seed: np.random.SeedSequence) -> None:
        self.selfplay = self_play_of(config, seed)
        self.evaluator = NetworkEvaluator(network, find_variant(config.game))
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


PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_POLL_SECONDS = 1.0


def die_with_parent(parent: int) -> None:
    """End this process as soon as process ``parent`` (its parent now) dies, however it dies.

    Linux: the kernel's parent-death signal (SIGKILL). Everywhere: a daemon thread that
    polls ``os.getppid()`` (a dead parent's children are re-parented). If the parent is
    already gone, end now.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no libc to call: the thread below still watches
            pass
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="watch-learner", daemon=True).start()


def _worker(
    config: Config, seed: np.random.SeedSequence, weights: SharedWeights, samples: mp.Queue, stop, parent: int
) -> None:
    """A worker process: play self-play batches, with the newest weights at every ply, until told to stop.

    Ctrl-C and SIGTERM are left to the learner, which saves and then stops the workers:
    a worker killed by one could die holding the shared weights' lock. If the learner
    dies instead, the worker ends with it (``die_with_parent``).
    """
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    torch.set_num_threads(1)
    network = ValueNetwork(config.network)
    seen = weights.fetch(network, -1)

    def refresh() -> None:
        nonlocal seen
        seen = weights.fetch(network, seen)

    selfplay = self_play_of(config, seed)
    evaluator = NetworkEvaluator(network, find_variant(config.game))
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
            context.Process(
                target=_worker, args=(config, child, self.weights, self.samples, self.stop, os.getpid()), daemon=True
            )
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


def check_backend(config: Config) -> None:
    """Raise ConfigError now if the config's self-play backend cannot run here (Ray not installed, or
    more worker processes than this machine's cores can take)."""
    if config.selfplay.backend == "ray":
        from training.ray_actors import import_ray

        import_ray()
    else:
        check_processes("selfplay.workers", config.workers)


def start_actors(config: Config, network: ValueNetwork, seed: np.random.SeedSequence) -> Actors:
    """Ray actors with backend "ray"; else worker processes when the config asks for more than one,
    else self-play in-process."""
    if config.selfplay.backend == "ray":
        from training.ray_actors import RayActors

        return RayActors(config, network, seed)
    if config.workers > 1:
        return WorkerPool(config, network, seed, config.workers)
    return InProcessActor(config, network, seed)
