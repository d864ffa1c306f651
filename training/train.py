"""A training run, read top to bottom: setup, then one loop of self-play, TD update,
evaluation, checkpoint and logging.

Everything of a run lives in its run directory: ``config.toml`` (the resolved
config), TensorBoard event files, ``latest.pt`` and numbered checkpoints
``games-000050000.pt``. ``resume=True`` continues from ``latest.pt``: weights,
optimizer, games played and the learner's random state come back; the games in
progress at the checkpoint are not saved, so a resumed run equals an
uninterrupted one up to randomness. ``init_from`` instead starts a new run from
another checkpoint's weights (a shipped bot, say) with a fresh optimizer.

What a crash can leave, and what a run does about it:

- A Ctrl-C (SIGINT, KeyboardInterrupt) or a SIGTERM (``Terminated``) saves
  ``latest.pt`` before it ends the run, after the update in progress if any.
- ``latest.pt`` is written before the numbered checkpoint, so a kill between the two
  leaves the newer state in ``latest.pt``; if ``latest.pt`` is missing or damaged
  all the same, a resume continues from the newest numbered checkpoint that loads.
- Temporary files of a write that a kill cut short (``.NAME.*.tmp``) are removed
  when a run starts.
- Worker processes end when the learner dies (see ``training.actors``).
"""

from __future__ import annotations

import copy
import signal
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from bot.evaluation.checkpoint import CheckpointError, load_class_payload, save_checkpoint
from bot.evaluation.storage import remove_stale_temporaries
from training.torch_network import grown_to, grows_into, network_from_payload
from bot.evaluation.evaluator import Evaluator, NetworkEvaluator
from engine.variant import Variant, find_variant
from bot.evaluation.long_nardy_heuristic import HeuristicPlayer
from training.torch_network import ValueNetwork
from bot.evaluation.pubeval import Pubeval
from training.actors import check_backend, start_actors
from training.config import Config, ConfigError, config_to_toml
from training.evaluate import MatchResult, evaluate
from training.td import Learner, learner_device

LATEST = "latest.pt"
NUMBERED = "games-*.pt"


class Terminated(KeyboardInterrupt):
    """A SIGTERM, handled as a Ctrl-C is: the run saves ``latest.pt`` and ends."""


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


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
    """Write ``latest.pt`` and, if ``numbered``, the checkpoint named after ``games``.

    ``latest.pt`` first: a kill between the two writes leaves the newest state where a
    resume looks first (each write is atomic on its own).
    """
    training = {
        "games": games,
        "wall_seconds": wall_seconds,
        "learner": learner.state_dict(),
        "torch_rng": torch.get_rng_state(),
    }
    save_checkpoint(run_dir / LATEST, network, training, config.to_dict())
    if numbered:
        save_checkpoint(run_dir / checkpoint_name(games), network, training, config.to_dict())


_STOP_SIGNALS: dict[int, type[BaseException]] = {signal.SIGINT: KeyboardInterrupt, signal.SIGTERM: Terminated}


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Run the block with SIGTERM raising ``Terminated`` (a KeyboardInterrupt), so that it saves as Ctrl-C does.

    Outside the main thread, where no signal handler can be set, the block just runs.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame) -> None:
        raise Terminated("SIGTERM")

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Run the block with Ctrl-C (SIGINT) and SIGTERM held back; raise the interrupt after it if one came.

    Keeps an update whole: the weights, the optimizer and the games count move together.
    A second signal does not wait. Outside the main thread, where no signal handler can
    be set, the block just runs.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame) -> None:
        if caught:
            raise _STOP_SIGNALS[signum]()
        caught.append(signum)

    previous = {signum: signal.signal(signum, hold) for signum in _STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
    if caught:
        raise _STOP_SIGNALS[caught[0]]()


def _check_resumable(payload: dict, path: Path) -> dict:
    """The ``training`` dict of a checkpoint payload if a resume can read it; else CheckpointError."""
    source = f"checkpoint {str(path)!r}"
    training = payload.get("training")
    if not isinstance(training, dict) or not isinstance(training.get("learner"), dict) or "torch_rng" not in training:
        raise CheckpointError(
            f"{source}: it holds a network but no trainer state to continue (a shipped bot?); "
            f"start a new run from its weights with --init-from {path}"
        )
    if training.get("games") is None:
        raise CheckpointError(f"{source}: the trainer state has no games count")
    learner = training["learner"]
    optimizer = learner.get("optimizer")
    if (
        not isinstance(optimizer, dict)
        or not isinstance(optimizer.get("state"), dict)
        or not isinstance(optimizer.get("param_groups"), list)
        or not all(isinstance(group, dict) for group in optimizer["param_groups"])
    ):
        raise CheckpointError(f"{source}: the trainer state has no readable optimizer state")
    if type(learner.get("steps")) is not int or learner["steps"] < 0:
        raise CheckpointError(f"{source}: the trainer state's step count {learner.get('steps')!r} is not a count")
    if not isinstance(learner.get("rng"), dict):
        raise CheckpointError(f"{source}: the trainer state has no shuffling generator state")
    rng = training["torch_rng"]
    if not isinstance(rng, torch.Tensor) or rng.dtype != torch.uint8 or rng.dim() != 1:
        raise CheckpointError(f"{source}: the trainer state's torch random state is not a byte tensor")
    return training


def resume_point(run_dir: str | Path, quiet: bool = False) -> tuple[Path, dict]:
    """The checkpoint a resume of ``run_dir`` continues from, and its payload.

    ``latest.pt``; if it is missing or does not load, the newest numbered checkpoint
    that does (with a message on stderr unless ``quiet``). CheckpointError if none does.
    """
    run_dir = Path(run_dir)
    candidates = [run_dir / LATEST] + sorted(run_dir.glob(NUMBERED), reverse=True)
    problems = []
    for path in candidates:
        try:
            payload = load_class_payload(path)  # a shipped bot's contact network: refused below, naming --init-from
            _check_resumable(payload, path)
        except CheckpointError as error:
            problems.append(str(error))
            continue
        if path.name != LATEST and not quiet:
            _log(f"{problems[0]}; resuming from {path.name}, the newest numbered checkpoint that loads")
        return path, payload
    if len(problems) == 1:
        raise CheckpointError(problems[0])
    raise CheckpointError(f"nothing to resume from in {str(run_dir)!r}: " + "; ".join(problems))


def _restore(payload: dict, learner: Learner, source: str) -> None:
    """Put a resumable payload's optimizer and random states back (torch's and the learner's)."""
    training = payload["training"]
    try:
        learner.load_state_dict(training["learner"])
        for group in learner.optimizer.param_groups:
            for parameter in group["params"]:
                for value in learner.optimizer.state.get(parameter, {}).values():
                    if isinstance(value, torch.Tensor) and value.dim() and value.shape != parameter.shape:
                        raise ValueError(
                            f"optimizer state of shape {list(value.shape)} for a weight of {list(parameter.shape)}"
                        )
        torch.set_rng_state(training["torch_rng"])
    except Exception as error:  # torch and numpy raise many kinds for a state of the wrong shape or type
        detail = f"{type(error).__name__} {error}" if isinstance(error, KeyError) else str(error)
        raise CheckpointError(f"{source}: the trainer state does not fit this run ({detail})") from None


def baseline(game: Variant) -> tuple[str, Evaluator]:
    """The fixed yardstick of a game's in-run evaluations: pubeval for backgammon, the heuristic player for long
    nardy."""
    if game.name == "long_nardy":
        return "heuristic", HeuristicPlayer(game)
    return "pubeval", Pubeval()


def _evaluations(network: ValueNetwork, previous: ValueNetwork, config: Config) -> dict[str, MatchResult]:
    """The current network against the game's baseline (``baseline``) and against the previous evaluation's network."""
    game = find_variant(config.game)
    player = NetworkEvaluator(network.eval(), game)
    name, opponent = baseline(game)
    return {
        name: evaluate(player, opponent, config.eval_games, config.seed),
        "previous": evaluate(player, NetworkEvaluator(previous.eval(), game), config.eval_games, config.seed),
    }


def _log_weights(writer: SummaryWriter, network: ValueNetwork, games: int) -> None:
    for name, parameter in network.named_parameters():
        writer.add_scalar(f"weights/{name}", parameter.detach().norm().item(), games)


def train(
    config: Config,
    run_dir: str | Path,
    resume: bool = False,
    progress: bool = False,
    init_from: str | Path | None = None,
) -> ValueNetwork:
    """Run (or, with ``resume``, continue) training until ``config.games`` games; the final network.

    ``init_from``: a checkpoint whose weights a new run starts from (its network, or a shipped
    bot's contact network, in the config's shape or grown into it by ``grown_to``: new inputs and
    hidden units start silent; optimizer and counts start afresh).
    ``progress`` shows a tqdm bar on stderr (games, games/s, latest evaluation).
    """
    if resume and init_from is not None:
        raise ConfigError("train: --resume continues a run, --init-from starts a new one: give one of them")
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    stale = remove_stale_temporaries(run_dir)
    if stale:
        _log(f"removed {len(stale)} temporary file(s) of an interrupted write in {run_dir}")
    with _terminate_as_interrupt():
        return _train(config, run_dir, resume, progress, init_from)


def _train(config: Config, run_dir: Path, resume: bool, progress: bool, init_from: str | Path | None) -> ValueNetwork:
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    torch.manual_seed(config.seed)
    device = learner_device(config.learning.device)  # errors before anything is written
    check_backend(config)

    games = 0
    wall_before = 0.0  # training time of the run before this process (resumed runs)
    learner_rng = np.random.default_rng(np.random.SeedSequence([config.seed, 0]))
    payload = None
    if resume:
        path, payload = resume_point(run_dir)
        source = f"checkpoint {str(path)!r}"
        network = network_from_payload(payload, config.network, source=source)
    elif init_from is not None:
        source = f"checkpoint {str(init_from)!r}"
        payload_from = load_class_payload(init_from)
        start = network_from_payload(payload_from, source=source)
        if grows_into(start.config, config.network):
            network = grown_to(start, config.network)
        else:  # the config's shape, or CheckpointError naming how the shapes differ
            network = network_from_payload(payload_from, config.network, source=source)
    else:
        network = ValueNetwork(config.network)
    learner = Learner(network, config.learning, learner_rng, device)
    if payload is not None:
        _restore(payload, learner, source)
        games = payload["training"]["games"]
        wall_before = float(payload["training"].get("wall_seconds") or 0.0)
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
                    if opponent != "previous":
                        latest_eval = f"{result.ppg:+.3f}+-{result.ppg_interval:.3f} ppg vs {opponent}"
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
