"""Self-play workers as Ray actors, on this machine or across a cluster (``[selfplay] backend = "ray"``).

The learner stays in the driver (the ``train`` process). Each of ``workers`` actors owns a
``SelfPlay`` batch (``parallel_games``, ``epsilon``, ``samples_per_update`` as with worker
processes) and a private copy of the network on one CPU. The driver keeps one ``play``
task in flight per actor and takes finished batches in the order they arrive
(``ray.wait``); it resubmits an actor's next batch before it trains on the last one. After
each update it puts the weights into Ray's object store once (``ray.put``) and sends the
reference to every actor; an actor loads the newest weights it has before every ply, as
a worker process does from shared memory.

Faults. An actor that dies (its process killed, its node lost) takes its games in
flight with it: they are not counted. Ray restarts it (``ray_max_restarts``) and runs
the batch asked of it again there (task retries), with the newest weights. An actor that
dies more often than that is left out; the run fails only when none is left. The driver itself is resumed
from its checkpoint as with any backend.

Nothing is left running when the driver ends: ``close`` kills the actors and
disconnects; a local instance started by the run (``ray_address = ""``) stops with it,
and a cluster's actors, owned by the driver, end when it disconnects or dies.

Ray is imported only here, and only when a run asks for this backend.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

from bot.evaluation.evaluator import NetworkEvaluator
from training.config import Config, ConfigError
from training.torch_network import ValueNetwork
from training.selfplay import Samples, self_play_of

INSTALL = "pip install 'nardy[ray]'"
WAIT_SECONDS = 1.0  # ray.wait slices, so that Ctrl-C and SIGTERM reach the learner promptly
PACKAGES = ("engine", "bot", "training")  # shipped to the actors' nodes (runtime_env py_modules)


def import_ray() -> Any:
    """The ``ray`` module, or a ConfigError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(
            f"config key 'selfplay.backend': 'ray' needs Ray, which is not installed: {INSTALL}"
        ) from None
    return ray


def runtime_env() -> dict[str, Any]:
    """Ray's runtime environment of a run: this checkout's packages, uploaded to every node that runs an actor.

    So a cluster's nodes need Python, numpy, torch and Ray of the driver's versions, not nardy itself.
    """
    root = Path(__file__).resolve().parents[1]
    return {"py_modules": [str(root / name) for name in PACKAGES], "env_vars": {"OMP_NUM_THREADS": "1"}}


def _weights(network: ValueNetwork) -> dict[str, np.ndarray]:
    return {name: value.detach().cpu().numpy().copy() for name, value in network.state_dict().items()}


class SelfPlayWorker:
    """One self-play actor: a ``SelfPlay`` batch played with the newest weights it was sent.

    ``play`` runs in the actor's default thread; ``set_weights`` in a concurrency group of its
    own, so that new weights arrive while a batch is being played and are loaded before the next ply.
    """

    def __init__(self, config: Config, seed: np.random.SeedSequence) -> None:
        import ray

        torch.set_num_threads(1)
        with warnings.catch_warnings():  # Ray's own property warns of an API it calls inside
            warnings.simplefilter("ignore", DeprecationWarning)
            restarted = ray.get_runtime_context().was_current_actor_reconstructed
        if restarted:  # other dice than the first life's
            seed = np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (os.getpid(),))
        self.network = ValueNetwork(config.network)  # its weights come with the first batch asked for
        self.seen = -1
        self.newest: tuple[int, dict[str, np.ndarray]] = (-1, {})
        self.selfplay = self_play_of(config, seed)
        self.evaluator = NetworkEvaluator(self.network, self.selfplay.game)
        self.samples_per_update = config.learning.samples_per_update

    def set_weights(self, version: int, weights: dict[str, np.ndarray]) -> None:
        """Keep ``weights`` (a resolved object-store reference) if newer than those held; loaded before the next ply."""
        if version > self.newest[0]:
            self.newest = (version, weights)  # one assignment: the play thread sees the old pair or the new one

    def _refresh(self) -> None:
        version, weights = self.newest
        if version != self.seen:
            self.network.load_state_dict({name: torch.tensor(value) for name, value in weights.items()})
            self.seen = version

    def play(self, version: int, weights: dict[str, np.ndarray]) -> Samples:
        """The next batch of finished games' samples, starting with weights no older than ``version``."""
        self.set_weights(version, weights)
        return self.selfplay.play(self.evaluator, self.samples_per_update, before_ply=self._refresh)

    def pid(self) -> int:
        """The actor's process id (tests kill it)."""
        return os.getpid()


def connect(config: Config) -> bool:
    """Connect this process to Ray as the run asks; whether it connected (and so must disconnect).

    Already connected (``ray.init`` called by the caller): use that. ``ray_address`` empty: start a
    local instance with ``workers`` CPUs; otherwise join the cluster at that address ("auto": the
    one started on this machine with ``ray start``).
    """
    ray = import_ray()
    if ray.is_initialized():
        return False
    address = config.selfplay.ray_address
    try:
        if address:
            ray.init(address=address, runtime_env=runtime_env(), log_to_driver=True)
        else:
            ray.init(num_cpus=config.workers, include_dashboard=False, runtime_env=runtime_env(), log_to_driver=True)
    except (ConnectionError, RuntimeError, ValueError) as error:
        where = f"cannot join the Ray cluster at {address!r}" if address else "cannot start a local Ray instance"
        raise ConfigError(f"config key 'selfplay.ray_address': {where} ({error})") from None
    return True


class RayActors:
    """``workers`` self-play actors feeding the learner in this process (see the module's docstring)."""

    def __init__(self, config: Config, network: ValueNetwork, seed: np.random.SeedSequence) -> None:
        self.ray = import_ray()
        self.connected = connect(config)
        self.actors: list[Any] = []
        self.pending: dict[Any, int] = {}  # play task in flight -> actor index
        try:
            ray = self.ray
            count = config.selfplay.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
            self.max_restarts = config.selfplay.ray_max_restarts
            self.gone: list[int] = []  # actors that died for good
            self.version = 0
            self.weights = ray.put(_weights(network))
            worker = ray.remote(
                num_cpus=1,
                max_restarts=self.max_restarts,
                max_task_retries=self.max_restarts,
                concurrency_groups={"weights": 1},
            )(SelfPlayWorker)
            # No weights to the constructor: a restarted actor gets the newest with its next batch.
            self.actors = [worker.remote(config, child) for child in seed.spawn(count)]
            for index in range(count):
                self._submit(index)
        except BaseException:
            self.close()
            raise

    def _submit(self, index: int) -> None:
        self.pending[self.actors[index].play.remote(self.version, self.weights)] = index

    def next_samples(self) -> Samples:
        """The next finished batch from any actor.

        A batch whose actor died is played again by the restarted actor (Ray's task retries):
        the games lost with the old process are not counted. An actor whose restarts are used
        up is left out; with none left, RuntimeError.
        """
        ray = self.ray
        unavailable = getattr(ray.exceptions, "ActorUnavailableError", ())
        while True:
            if not self.pending:
                raise RuntimeError(f"every self-play actor died more than ray_max_restarts={self.max_restarts} times")
            ready, _ = ray.wait(list(self.pending), num_returns=1, timeout=WAIT_SECONDS)
            if not ready:
                continue
            index = self.pending.pop(ready[0])
            try:
                samples = ray.get(ready[0])
            except unavailable:  # unreachable for now (a node's network): ask again
                self._submit(index)
                continue
            except ray.exceptions.RayActorError as error:
                self.gone.append(index)
                print(
                    f"self-play actor {index} died and has used its {self.max_restarts} restarts: "
                    f"the run goes on without it ({error})",
                    file=sys.stderr,
                    flush=True,
                )
                continue
            self._submit(index)  # plays on while the learner trains on this batch
            return samples

    def publish(self, network: ValueNetwork) -> None:
        """Put the new weights into the object store once and send their reference to every actor."""
        self.version += 1
        self.weights = self.ray.put(_weights(network))
        for index in set(self.pending.values()):
            self.actors[index].set_weights.options(concurrency_group="weights").remote(self.version, self.weights)

    def close(self) -> None:
        """Kill the actors; disconnect if this object connected (a local instance stops with it)."""
        try:
            for actor in self.actors:
                self.ray.kill(actor, no_restart=True)
        finally:
            self.actors, self.pending = [], {}
            if self.connected:
                self.connected = False
                self.ray.shutdown()
