"""A training run, read top to bottom: setup, then one loop of self-play, TD update,
evaluation, checkpoint and logging.

Everything of a run lives in its run directory: ``config.toml`` (the resolved
config), TensorBoard event files, ``latest.pt`` and numbered checkpoints
``games-000050000.pt``. ``resume=True`` continues from ``latest.pt``: weights,
optimizer, games played and the learner's random state come back; the games in
progress at the checkpoint are not saved, so a resumed run equals an
uninterrupted one up to randomness. A Ctrl-C (KeyboardInterrupt) saves
``latest.pt`` before it ends the run, after the update in progress if any.
"""

from __future__ import annotations

import copy
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from bot.checkpoint import load_checkpoint, save_checkpoint
from training.network import network_from_payload
from bot.evaluator import NetworkEvaluator
from training.network import ValueNetwork
from bot.pubeval import Pubeval
from training.actors import start_actors
from training.config import Config, config_to_toml
from training.evaluate import MatchResult, evaluate
from training.td import Learner

LATEST = "latest.pt"


def checkpoint_name(games: int) -> str:
    """File name of the numbered checkpoint taken after ``games`` games."""
    return f"games-{games:09d}.pt"


def _crossed(before: int, after: int, every: int) -> bool:
    """Whether a multiple of ``every`` lies in (before, after]."""
    return after // every > before // every


def _save(
    run_dir: Path,
    network: ValueNetwork,
    learner: Learner,
    config: Config,
    games: int,
    wall_seconds: float,
    numbered: bool = True,
) -> None:
    """Write ``latest.pt`` and, if ``numbered``, the checkpoint named after ``games``."""
    training = {
        "games": games,
        "wall_seconds": wall_seconds,
        "learner": learner.state_dict(),
        "torch_rng": torch.get_rng_state(),
    }
    if numbered:
        save_checkpoint(run_dir / checkpoint_name(games), network, training, config.to_dict())
    save_checkpoint(run_dir / LATEST, network, training, config.to_dict())


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Run the block with Ctrl-C (SIGINT) held back; raise KeyboardInterrupt after it if one came.

    Keeps an update whole: the weights, the optimizer and the games count move together.
    A second Ctrl-C does not wait. Outside the main thread, where no signal handler can
    be set, the block just runs.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame) -> None:
        if caught:
            raise KeyboardInterrupt
        caught.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
    if caught:
        raise KeyboardInterrupt


def _evaluations(network: ValueNetwork, previous: ValueNetwork, config: Config) -> dict[str, MatchResult]:
    """The current network against pubeval and against the previous evaluation's network."""
    player = NetworkEvaluator(network.eval())
    return {
        "pubeval": evaluate(player, Pubeval(), config.eval_games, config.seed),
        "previous": evaluate(player, NetworkEvaluator(previous.eval()), config.eval_games, config.seed),
    }


def _log_weights(writer: SummaryWriter, network: ValueNetwork, games: int) -> None:
    for name, parameter in network.named_parameters():
        writer.add_scalar(f"weights/{name}", parameter.detach().norm().item(), games)


def train(config: Config, run_dir: str | Path, resume: bool = False, progress: bool = False) -> ValueNetwork:
    """Run (or, with ``resume``, continue) training until ``config.games`` games; the final network.

    ``progress`` shows a tqdm bar on stderr (games, games/s, latest evaluation).
    """
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    torch.manual_seed(config.seed)

    games = 0
    wall_before = 0.0  # training time of the run before this process (resumed runs)
    network = ValueNetwork(config.network)
    learner_rng = np.random.default_rng(np.random.SeedSequence([config.seed, 0]))
    payload = None
    if resume:
        payload = load_checkpoint(run_dir / LATEST)
        network = network_from_payload(payload, config.network, source=f"checkpoint {str(run_dir / LATEST)!r}")
        games = payload["training"]["games"]
        wall_before = payload["training"].get("wall_seconds", 0.0)
        torch.set_rng_state(payload["training"]["torch_rng"])
    learner = Learner(network, config.learning, learner_rng)
    if payload is not None:
        learner.load_state_dict(payload["training"]["learner"])
    (run_dir / "config.toml").write_text(config_to_toml(config))

    writer = SummaryWriter(str(run_dir), purge_step=games if resume else None)
    previous = copy.deepcopy(network)
    actors = start_actors(config, network, np.random.SeedSequence([config.seed, 1, games]))
    bar = tqdm(total=config.games, initial=games, unit="game", dynamic_ncols=True, disable=not progress)
    latest_eval = "none yet"
    checkpoint_due = False  # a numbered checkpoint is owed for the games played
    started = time.perf_counter() - wall_before
    try:
        clock = time.perf_counter()
        while games < config.games:
            # Self-play.
            samples = actors.next_samples()
            # TD update.
            with _interrupts_held():
                learner.schedule(games / config.games)
                loss = learner.train(samples)
                actors.publish(network)
                before, games = games, games + samples.games
                checkpoint_due = _crossed(before, games, config.checkpoint_every) or games >= config.games
            now = time.perf_counter()
            rate = samples.games / (now - clock)
            clock = now
            writer.add_scalar("train/loss", loss, games)
            writer.add_scalar("train/learning_rate", learner.optimizer.param_groups[0]["lr"], games)
            writer.add_scalar("train/games_per_second", rate, games)
            writer.add_scalar("train/plies_per_game", len(samples) / samples.games, games)
            writer.add_scalar("train/gammon_rate", samples.results[1:].sum() / samples.games, games)
            # Evaluation.
            if _crossed(before, games, config.eval_every):
                for opponent, result in _evaluations(network, previous, config).items():
                    writer.add_scalar(f"eval/{opponent}_ppg", result.ppg, games)
                    writer.add_scalar(f"eval/{opponent}_win_rate", result.win_rate, games)
                    if opponent == "pubeval":
                        latest_eval = f"{result.ppg:+.3f}+-{result.ppg_interval:.3f} ppg vs pubeval"
                previous = copy.deepcopy(network)
                _log_weights(writer, network, games)
                clock = time.perf_counter()
            # Checkpoint.
            if checkpoint_due:
                _save(run_dir, network, learner, config, games, time.perf_counter() - started)
                checkpoint_due = False
            bar.update(games - before)
            bar.set_postfix_str(f"{rate:.0f} games/s, loss {loss:.4f}, eval {latest_eval}")
    except KeyboardInterrupt:  # Ctrl-C: keep what was learned (resume continues from it)
        _save(run_dir, network, learner, config, games, time.perf_counter() - started, numbered=checkpoint_due)
        raise
    finally:
        actors.close()
        writer.close()
        bar.close()
    return network
