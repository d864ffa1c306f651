"""Search-backed targets from self-play: fit the network to its own search values or rollouts.

Three stages, each resumable, all in one run directory:

1. **positions** (``positions.npz``): the bot plays ``games`` self-play games at
   0-ply with a little epsilon exploration; every position it meets with the side
   on roll is kept (finished ones skipped), de-duplicated and shuffled.
2. **targets** (``targets-NNNNN.npz``, one per chunk of ``chunk`` positions): each
   position ``b`` is re-scored by the bot's own search, ``invert(probabilities_at(
   evaluator, game.flip(b)[None], plies)[0])``: the side on roll's probabilities,
   averaged over its 21 rolls after its best play by 0-ply equity (1-ply), batched
   over the whole chunk, with the numpy network and one BLAS thread. With
   ``teachers`` (more networks of the bot's own, earlier fits say) each target is
   the mean of every network's searched value: an ensemble, distilled into one
   network. With ``rollout_trials`` the target is instead the mean result of that
   many cubeless games played from the position by the bot itself at 0-ply
   (``bot.search.rollout``, bear-offs exact; cut after ``rollout_truncate`` plies for the
   network's value when that is set; variance-reduced with ``rollout_vr``): unbiased
   where the network's own search carries its misjudgements on. ``workers``
   processes share the chunks. Each chunk is written
   atomically; a rerun skips chunks that are there and intact, so a killed run
   continues where it stopped.
3. **fit** (``distilled.pt``, ``distilled.npz``, ``fit.json``): the torch network,
   from the checkpoint's weights (widened first with ``widen``: extra hidden units
   that start silent), is fitted to those targets with the six-outcome
   cross-entropy of ``training.td`` (targets through ``bot.equity.outcomes.to_six``,
   clipped and renormalized), Adam at a small learning rate, a held-out share of the
   positions scored after every epoch; the epoch with the lowest held-out loss is kept.
   ``also`` names finished runs whose positions and targets are fitted as well (a
   position in two runs is fitted to the mean of its targets: that minimises the
   cross-entropy); the held-out share is drawn from the run's own positions only, and
   no copy of a held-out board is trained on.

With ``position_class`` (``crashed``, say) a round keeps only the positions of that class
(``bot.evaluation.classes.classify``), its own and its ``also`` runs', and fits the checkpoint's network
for that class (its contact network where it has none): a specialist for ``ship --crashed``.
A checkpoint with a network per class plays the games and searches the targets as the bot.

Only the bot's own network makes positions and targets: no other program's
evaluation enters the data (fixtures are for measurement only).

    python -m training distill --checkpoint checkpoints/default.pt --out runs/distill/a --set games=6000
    python -m training distill --checkpoint runs/distill/a/distilled.pt --out runs/distill/b   # iterate
    python -m training distill --checkpoint bot.pt --set 'teachers=["older.pt", "other.pt"]' --set workers=2
        --out runs/distill/ensemble
    python -m training distill --checkpoint bot.pt --set rollout_trials=36 --set 'also=["runs/distill/b"]'
        --out runs/distill/rollouts
    python -m training distill --checkpoint bot.pt --set plies=2 --set position_class=crashed --set games=30000
        --out runs/distill/crashed
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from bot.evaluation.checkpoint import (
    atomic_write,
    export_numpy,
    load_class_payload,
    load_evaluator,
    load_player,
    save_checkpoint,
)
from bot.evaluation.classes import NETWORK_CLASSES, PositionClass, classify
from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.equity.outcomes import invert, is_finished, to_six
from bot.search.rollout import RolloutSettings, rollout_boards
from bot.search.nply import MoveFilter, probabilities_at, survivors
from engine.compiled import expect_long_work
from engine.variant import BACKGAMMON
from training.config import ConfigError, check_bounds, check_positive
from training.selfplay import SelfPlay, roll_dice

POSITIONS = "positions.npz"
SETTINGS = "distill.json"
DISTILLED = "distilled.pt"


class TargetError(RuntimeError):
    """Targets could not be made: a worker process died (killed, out of memory) or a chunk would not read back.

    The chunks already written are kept; rerunning the same command continues from them.
    """


@dataclass(frozen=True)
class DistillConfig:
    """The settings of one distillation round (stored in the run directory as ``distill.json``)."""

    checkpoint: str  # the network that plays, scores and is fitted
    games: int = 6000  # self-play games that give the positions
    max_positions: int = 0  # keep at most this many positions (0: all)
    epsilon: float = 0.05  # exploration of the self-play games
    alternatives: int = 0  # also keep the afterstates of each position's best plays of a random roll, this many
    parallel_games: int = 512
    plies: int = 1  # search depth of the targets
    chunk: int = 4096  # positions per target file
    seed: int = 1
    # fitting
    epochs: int = 10
    learning_rate: float = 1e-3
    batch_size: int = 256
    holdout: float = 0.05  # share of positions held out to watch over-fitting
    widen: int = 0  # fit a copy widened to this many hidden units (0: the network as it is)
    encoding: str = ""  # fit a copy on this encoding, which extends the network's ("": its own)
    teachers: tuple[str, ...] = ()  # more networks whose searched values are averaged with the checkpoint's
    workers: int = 1  # processes computing targets (the results do not depend on it)
    rollout_trials: int = 0  # > 0: targets are the mean of this many 0-ply rollout games (not a search)
    rollout_truncate: int = 0  # rollout games stop after this many plies for the network's value (0: at the end)
    rollout_vr: bool = False  # rollout games with variance reduction (lookahead: far less spread for more work a game)
    also: tuple[str, ...] = ()  # finished run directories whose positions and targets are fitted too
    position_class: str = (
        ""  # keep only positions of this network class (bot.evaluation.classes), fit its network ("": all)
    )
    # keep only positions whose side on roll wins this often by the checkpoint's 0-ply: (0.45, 0.97) are the
    # positions where the leader's cube decisions are made (bot.evaluation.cube_correction.WIN_RANGE)
    win_range: tuple[float, float] = (0.0, 1.0)

    def __post_init__(self) -> None:
        for name in ("teachers", "also"):  # JSON lists when read back
            object.__setattr__(self, name, tuple(str(t) for t in getattr(self, name)))
        check_bounds(self, "distill")
        check_positive("distill.learning_rate", self.learning_rate)
        if self.rollout_trials == 1:
            raise ConfigError("rollout trials 1: expected 0 (search targets) or 2 or more")
        if not self.rollout_trials and (self.rollout_truncate or self.rollout_vr):
            raise ConfigError("rollout truncate and rollout vr shape rollout targets: give rollout trials too")
        if self.rollout_trials and self.teachers:
            raise ConfigError("teachers average searched values; rollout targets are the checkpoint's own games")
        object.__setattr__(self, "win_range", tuple(float(p) for p in self.win_range))
        if len(self.win_range) != 2 or not 0.0 <= self.win_range[0] < self.win_range[1] <= 1.0:
            raise ConfigError(f"win range {list(self.win_range)!r}: expected two chances, 0 <= low < high <= 1")
        if self.position_class and self.position_class not in NETWORK_CLASSES:
            raise ConfigError(f"position class {self.position_class!r}: expected one of {list(NETWORK_CLASSES)}")


def _save_npz(path: Path, **arrays: Any) -> None:
    """Write ``arrays`` to ``path`` as one .npz file, atomically."""
    with atomic_write(path) as f:
        np.savez(f, **arrays)


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def prepare(config: DistillConfig, run_dir: Path) -> DistillConfig:
    """Record ``config`` in ``run_dir`` or check it against the recorded one (sampling and target settings)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / SETTINGS
    if path.exists():
        stored = json.loads(path.read_text())
        asked = json.loads(json.dumps(asdict(config)))  # as JSON holds it: tuples read back as lists
        default = json.loads(json.dumps(asdict(DistillConfig(checkpoint=""))))  # for keys older runs lack
        fixed = (
            "checkpoint",
            "games",
            "max_positions",
            "epsilon",
            "alternatives",
            "parallel_games",
            "plies",
            "chunk",
            "seed",
            "teachers",
            "rollout_trials",
            "rollout_truncate",
            "rollout_vr",
            "position_class",
            "win_range",
        )
        differ = [
            f"{k}: run has {stored.get(k, default[k])!r}, asked {asked[k]!r}"
            for k in fixed
            if stored.get(k, default[k]) != asked[k]
        ]
        if differ:
            raise ConfigError(
                f"{path}: the run was started with other settings ({'; '.join(differ)}); use another --out"
            )
    with atomic_write(path, "w") as f:
        json.dump(asdict(config), f, indent=2)
    return config


def recorded_settings(run_dir: Path) -> dict[str, Any]:
    """The settings ``run_dir`` recorded when it started ({} for a new run), the base a resume or refit builds on.

    So a rerun (``--stage fit --set epochs=10``) need not repeat the sampling settings;
    ``prepare`` still refuses a change to them.
    """
    path = Path(run_dir) / SETTINGS
    stored = json.loads(path.read_text()) if path.exists() else {}
    known = {f.name for f in fields(DistillConfig)} - {"checkpoint"}
    return {key: value for key, value in stored.items() if key in known}


def sample_positions(
    evaluator: ProbabilityEvaluator, games: int, epsilon: float, parallel_games: int, rng: np.random.Generator
) -> np.ndarray:
    """(P, 26) int8 distinct positions (side on roll, not finished) of ``games`` self-play games, shuffled.

    The games run ``parallel_games`` at a time with ``SelfPlay``; every position
    before a move is kept. Games still in flight when ``games`` have finished count
    with the positions they reached.
    """
    game = evaluator.game
    play = SelfPlay(min(parallel_games, games), td_lambda=0.0, epsilon=epsilon, rng=rng, game=game)
    seen: list[np.ndarray] = []
    finished = 0
    while finished < games:
        seen.append(play.boards.copy())
        done = play.ply(evaluator)
        if done is not None:
            finished += done.games
    boards = np.concatenate(seen).astype(np.int8)
    boards = boards[~is_finished(boards) & ~is_finished(game.flip(boards))]
    boards = np.unique(boards, axis=0)
    return boards[rng.permutation(len(boards))]


def with_alternatives(
    evaluator: ProbabilityEvaluator, boards: np.ndarray, count: int, rng: np.random.Generator
) -> np.ndarray:
    """``boards`` (side on roll) and, for a random roll of each, the afterstates of its ``count`` best plays by
    the evaluator turned to the side then on roll, distinct and shuffled: the plays a move choice ranks, the
    ones it passes over among them, which self-play alone never reaches."""
    game = evaluator.game
    dice = roll_dice(len(boards), rng)
    children, parent = game.afterstates(boards, dice)
    scores = evaluator.afterstate_scores(boards, children, parent)
    best = survivors(scores, parent, np.arange(len(children)), MoveFilter(count, math.inf))
    kept = game.flip(children[best])
    kept = kept[~is_finished(kept) & ~is_finished(game.flip(kept))]
    boards = np.unique(np.concatenate([boards, kept]), axis=0)
    return boards[rng.permutation(len(boards))]


def search_targets(evaluator: ProbabilityEvaluator, boards: np.ndarray, plies: int = 1) -> np.ndarray:
    """(B, 5) float32 probabilities of the side on roll of ``boards`` (B, 26), searched ``plies`` deep.

    ``invert(probabilities_at(evaluator, game.flip(b)[None], plies)[0])`` for every board at
    once: ``game.flip(b)`` is the afterstate the opponent just left, so ``plies`` = 1 averages
    the side on roll's 21 rolls, each after its best play by 0-ply equity.
    """
    afterstates = evaluator.game.flip(np.asarray(boards, dtype=np.int8))
    return invert(probabilities_at(evaluator, afterstates, plies)).astype(np.float32)


def rollout_targets(
    evaluator: ProbabilityEvaluator, boards: np.ndarray, config: DistillConfig, rng: np.random.Generator
) -> np.ndarray:
    """(B, 5) float32 mean results, for the side on roll of ``boards`` (B, 26), of ``config.rollout_trials``
    cubeless games each.

    The games are ``bot.search.rollout``'s (0-ply play, rotated first rolls, variance reduction
    if ``rollout_vr``), stopped after ``rollout_truncate`` plies for ``evaluator``'s value if > 0.
    """
    settings = RolloutSettings(
        trials=config.rollout_trials, truncate=config.rollout_truncate or None, variance_reduction=config.rollout_vr
    )
    return rollout_boards(evaluator, boards, rng, settings).mean(axis=1).astype(np.float32)


def six_targets(five: np.ndarray) -> np.ndarray:
    """(B, 6) float32 outcome distributions from five probabilities: ``to_six``, clipped to [0, 1], summing to 1."""
    six = np.clip(to_six(np.asarray(five, dtype=np.float64)), 0.0, 1.0)
    return (six / six.sum(axis=1, keepdims=True)).astype(np.float32)


def chunk_path(run_dir: Path, index: int) -> Path:
    return run_dir / f"targets-{index:05d}.npz"


def _read_chunk(path: Path, boards: np.ndarray) -> np.ndarray | None:
    """The targets stored at ``path`` if the file is intact and holds exactly ``boards``; else None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            stored, targets = data["boards"], data["targets"]
    except Exception:  # noqa: BLE001 -- missing, truncated or foreign file: recompute it
        return None
    if stored.shape != boards.shape or not np.array_equal(stored, boards) or targets.shape != (len(boards), 5):
        return None
    if not np.isfinite(targets).all():
        return None
    return targets


def split_chunks(boards: np.ndarray, size: int) -> list[np.ndarray]:
    """``boards`` in consecutive chunks of ``size`` (the last one shorter): chunk i is ``targets-i``'s."""
    return [boards[i : i + size] for i in range(0, len(boards), size)]


def read_chunks(run_dir: Path, chunks: list[np.ndarray]) -> list[np.ndarray | None]:
    """The stored targets of each of a run's ``chunks`` (``split_chunks``), None where not intact."""
    return [_read_chunk(chunk_path(run_dir, i), chunk) for i, chunk in enumerate(chunks)]


def finished_targets(run_dir: Path, position_class: str = "") -> tuple[np.ndarray, np.ndarray]:
    """(boards, (P, 5) targets) of a run whose targets are all written, those of ``position_class`` only
    when given (``class_rows``); ValueError naming what is not written."""
    if not (run_dir / POSITIONS).is_file() or not (run_dir / SETTINGS).is_file():
        raise ConfigError(f"{run_dir}: not a distillation run (no {POSITIONS} or {SETTINGS})")
    with np.load(run_dir / POSITIONS, allow_pickle=False) as data:
        boards = data["boards"]
    parts = read_chunks(run_dir, split_chunks(boards, int(json.loads((run_dir / SETTINGS).read_text())["chunk"])))
    for i, part in enumerate(parts):
        if part is None:
            raise ConfigError(
                f"{run_dir}: {chunk_path(run_dir, i).name} is missing or damaged; "
                "finish that run first (its command with --stage targets)"
            )
    five = np.concatenate([part for part in parts if part is not None])
    rows = class_rows(boards, position_class)
    return boards[rows], five[rows]


def make_positions(config: DistillConfig, run_dir: Path, evaluator: ProbabilityEvaluator) -> np.ndarray:
    """The run's positions: read from ``positions.npz``, or sampled and written there."""
    path = run_dir / POSITIONS
    if path.exists():
        with np.load(path, allow_pickle=False) as data:
            return data["boards"]
    start = time.perf_counter()
    rng = np.random.default_rng([config.seed, 0])
    boards = sample_positions(evaluator, config.games, config.epsilon, config.parallel_games, rng)
    if config.alternatives:
        boards = with_alternatives(evaluator, boards, config.alternatives, rng)
    boards = boards[class_rows(boards, config.position_class)]
    if config.win_range != (0.0, 1.0):
        win = np.asarray(evaluator.probabilities(boards))[:, 0]
        boards = boards[(win >= config.win_range[0]) & (win <= config.win_range[1])]
    if config.max_positions:
        boards = boards[: config.max_positions]
    _save_npz(path, boards=boards)
    _log(f"positions: {len(boards)} distinct from {config.games} games ({time.perf_counter() - start:.0f} s)")
    return boards


def class_rows(boards: np.ndarray, label: str) -> np.ndarray:
    """(K,) indices, in order, of the boards (B, 26; side on roll) that a ``label`` network plays
    (``bot.evaluation.classes.classify``); every row for ""."""
    if not label:
        return np.arange(len(boards))
    return np.flatnonzero(classify(boards) == PositionClass[label.upper()])


def target_evaluators(config: DistillConfig, own: ProbabilityEvaluator | None = None) -> list[ProbabilityEvaluator]:
    """The networks whose searched values, averaged, are the targets: the checkpoint's (``own``, if
    already loaded), then each teacher's. Rollout targets: the checkpoint's bot (backgammon's with its
    bear-offs exact; a long nardy network plays alone, as its bot does)."""
    own = own if own is not None else load_player(config.checkpoint)
    if config.rollout_trials:
        return [own if own.game is not BACKGAMMON else load_evaluator(config.checkpoint)]
    teachers = [load_player(path) for path in config.teachers]
    for path, teacher in zip(config.teachers, teachers):
        if teacher.game is not own.game:
            raise ConfigError(f"teacher {path!r} plays {teacher.game.title}, the checkpoint {own.game.title}")
    return [own, *teachers]


def ensemble_targets(evaluators: list[ProbabilityEvaluator], boards: np.ndarray, plies: int) -> np.ndarray:
    """(B, 5) float32: the mean of each evaluator's ``search_targets``."""
    return np.mean([search_targets(e, boards, plies) for e in evaluators], axis=0).astype(np.float32)


def chunk_targets(
    config: DistillConfig, evaluators: list[ProbabilityEvaluator], chunk: np.ndarray, index: int
) -> np.ndarray:
    """(B, 5) the targets of chunk ``index``: rollouts (their dice seeded by the chunk) or searched values.

    Computed compiled from the first batch in every process, so a worker's targets equal the run's own."""
    expect_long_work()
    if config.rollout_trials:
        rng = np.random.default_rng([config.seed, 3, index])
        return rollout_targets(evaluators[0], chunk, config, rng)
    return ensemble_targets(evaluators, chunk, config.plies)


_worker_evaluators: list[ProbabilityEvaluator] = []


def _start_worker(config: DistillConfig, parent: int) -> None:
    from threadpoolctl import threadpool_limits

    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    threadpool_limits(1)  # one BLAS thread per process, for the life of the process
    _worker_evaluators[:] = target_evaluators(config)


def _exit_with_parent(parent: int) -> None:
    """A worker ends within a second of its run's process (``parent``, the pid it was started by),
    however that ended, killed too, and even before the worker got going."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _write_chunk(config: DistillConfig, run_dir: Path, index: int, chunk: np.ndarray) -> int:
    """Compute and store one chunk's targets in a worker process; its size."""
    _save_npz(chunk_path(run_dir, index), boards=chunk, targets=chunk_targets(config, _worker_evaluators, chunk, index))
    return len(chunk)


def make_targets(
    config: DistillConfig, run_dir: Path, evaluator: ProbabilityEvaluator, boards: np.ndarray
) -> np.ndarray:
    """(P, 5) search targets of ``boards``, computed chunk by chunk; chunks already on disk are reused.

    ``evaluator`` is the checkpoint's; with teachers each target is the mean of every
    network's. With ``config.workers`` > 1, missing chunks are computed by that many
    processes, each writing its own chunks; the targets are the same.
    """
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context

    from threadpoolctl import threadpool_limits

    chunks = split_chunks(boards, config.chunk)
    parts = read_chunks(run_dir, chunks)
    missing = [i for i, part in enumerate(parts) if part is None]
    to_do = sum(len(chunks[i]) for i in missing)
    start, computed = time.perf_counter(), 0

    def progress(done: int) -> None:
        rate = computed / (time.perf_counter() - start)
        _log(
            f"targets: chunk {done}/{len(missing)} to do, {rate:.0f} positions/s, "
            f"about {(to_do - computed) / rate / 60:.1f} min left"
        )

    evaluators = target_evaluators(config, evaluator) if missing else []  # a bad teacher is refused here
    if config.workers > 1 and len(missing) > 1:
        with ProcessPoolExecutor(
            min(config.workers, len(missing)),
            mp_context=get_context("spawn"),
            initializer=_start_worker,
            initargs=(config, os.getpid()),
        ) as pool:
            futures = [pool.submit(_write_chunk, config, run_dir, i, chunks[i]) for i in missing]
            try:
                for done, future in enumerate(as_completed(futures), 1):
                    computed += future.result()
                    progress(done)
            except BrokenProcessPool as error:
                raise TargetError(
                    f"{run_dir}: a target worker died ({error}); the same command continues from the chunks written"
                ) from None
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise
    elif missing:
        with threadpool_limits(1):
            for done, i in enumerate(missing, 1):
                targets = chunk_targets(config, evaluators, chunks[i], i)
                _save_npz(chunk_path(run_dir, i), boards=chunks[i], targets=targets)
                computed += len(chunks[i])
                progress(done)
    for i in missing:
        parts[i] = _read_chunk(chunk_path(run_dir, i), chunks[i])
    if any(part is None for part in parts):
        raise TargetError(f"{run_dir}: a target chunk could not be read back after it was written")
    return np.concatenate([p for p in parts if p is not None]) if parts else np.zeros((0, 5), dtype=np.float32)


def held_out_split(
    boards: np.ndarray, own: int, share: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(held-out rows, training rows) of ``boards``: ``share`` of the first ``own`` rows (the run's own
    positions) held out, and every other copy of a held-out board left out of training.

    Only the run's own positions are held out: the starting network may have been fitted to the
    ``also`` runs already, and on those no epoch would beat the network it started from.
    """
    held = max(1, round(share * own)) if share > 0 else 0
    valid = rng.permutation(own)[:held]
    rows = np.ascontiguousarray(boards).view(np.dtype((np.void, boards.shape[1]))).ravel()
    copies = np.isin(rows, rows[valid])  # the held-out rows themselves, and the same boards elsewhere
    return valid, np.flatnonzero(~copies)  # in order: every epoch shuffles them


def fit(
    payload: dict[str, Any],
    boards: np.ndarray,
    five: np.ndarray,
    config: DistillConfig,
    log: bool = True,
    own: int | None = None,
) -> tuple[Any, dict[str, Any]]:
    """Fit the checkpoint's torch network to ``five`` (targets of ``boards``); (best network, report).

    The held-out share comes from the first ``own`` rows (default: all of them), the run's own positions.
    """
    import torch

    from training.torch_network import network_from_payload, reencode, widen
    from training.td import target_loss

    torch.manual_seed(config.seed)
    rng = np.random.default_rng([config.seed, 2])
    network = network_from_payload(payload)
    if config.widen:
        network = widen(network, config.widen, config.seed)
    if config.encoding:
        network = reencode(network, config.encoding)
    targets = six_targets(five)
    valid, train = held_out_split(boards, len(boards) if own is None else own, config.holdout, rng)
    held = len(valid)
    # The inputs of every position, once (expert features are costly; ~12 bytes an input).
    parts = [network.inputs(boards[i : i + 65536]) for i in range(0, len(boards), 65536)]
    input_rows = torch.cat([rows for rows, _ in parts])
    input_weights = torch.cat([weights for _, weights in parts])
    plogp = -(targets * np.log(np.clip(targets, 1e-12, 1.0))).sum(axis=1)  # cross-entropy = KL + this
    entropy = float(plogp[valid].mean()) if held else 0.0
    train_entropy = float(plogp[train].mean())

    def held_out_loss() -> float:
        if not held:
            return float("nan")
        network.eval()
        with torch.no_grad():
            losses = []
            for i in range(0, held, 8192):
                rows = valid[i : i + 8192]
                index = torch.from_numpy(rows)
                logits = network(input_rows[index], input_weights[index])
                losses.append(
                    target_loss(network, logits, torch.from_numpy(targets[rows]), "cross_entropy").item() * len(rows)
                )
        return float(np.sum(losses) / held)

    optimizer = torch.optim.Adam(network.parameters(), lr=config.learning_rate)
    best_loss, best_epoch = held_out_loss(), 0
    best_state = {k: v.clone() for k, v in network.state_dict().items()}
    history: list[dict[str, Any]] = [{"epoch": 0, "train_loss": None, "held_out_loss": best_loss}]
    if log:
        _log(f"fit: {len(train)} train, {held} held out; held-out KL before {best_loss - entropy:.5f}")
    for epoch in range(1, config.epochs + 1):
        network.train()
        losses = []
        shuffled = train[rng.permutation(len(train))]
        for i in range(0, len(shuffled), config.batch_size):
            rows = shuffled[i : i + config.batch_size]
            index = torch.from_numpy(rows)
            logits = network(input_rows[index], input_weights[index])
            loss = target_loss(network, logits, torch.from_numpy(targets[rows]), "cross_entropy")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        held_loss = held_out_loss()
        history.append({"epoch": epoch, "train_loss": float(np.mean(losses)), "held_out_loss": held_loss})
        if log:
            _log(
                f"fit: epoch {epoch}, train KL {np.mean(losses) - train_entropy:.5f}, "
                f"held-out KL {held_loss - entropy:.5f}"
            )
        if not held or held_loss < best_loss:
            best_loss, best_epoch = held_loss, epoch
            best_state = {k: v.clone() for k, v in network.state_dict().items()}
    network.load_state_dict(best_state)
    network.eval()
    report = {
        "train_positions": len(train),
        "held_out_positions": int(held),
        "held_out_target_entropy": entropy,
        "history": history,
        "best_epoch": best_epoch,
    }
    return network, report


def distill(
    config: DistillConfig, run_dir: Path, stages: tuple[str, ...] = ("positions", "targets", "fit")
) -> dict[str, Any]:
    """Run (or resume) the stages of one round in ``run_dir``; the fit report when it fits."""
    prepare(config, run_dir)
    payload = load_class_payload(config.checkpoint, config.position_class or "contact")
    evaluator = load_player(config.checkpoint)
    others = (
        [finished_targets(Path(other), config.position_class) for other in config.also] if "fit" in stages else []
    )  # refused early
    start = time.perf_counter()
    boards = make_positions(config, run_dir, evaluator)
    if "targets" not in stages and "fit" not in stages:
        return {}
    five = make_targets(config, run_dir, evaluator, boards)
    target_seconds = time.perf_counter() - start
    if "fit" not in stages:
        return {}
    import torch

    torch.set_num_threads(1)
    start = time.perf_counter()
    fitted_boards = np.concatenate([boards, *(b for b, _ in others)])
    fitted_targets = np.concatenate([five, *(t for _, t in others)])
    network, report = fit(payload, fitted_boards, fitted_targets, config, own=len(boards))
    training = dict(payload.get("training") or {})
    state = {
        "games": training.get("games"),
        "wall_seconds": training.get("wall_seconds"),
        "distill": {
            "from": config.checkpoint,
            "positions": len(boards),
            "plies": config.plies,
            "rollout_trials": config.rollout_trials,
            "also_positions": len(fitted_boards) - len(boards),
            "best_epoch": report["best_epoch"],
        },
    }
    recorded = payload.get("config")
    if (config.widen or config.encoding) and isinstance(
        recorded, dict
    ):  # the run config describes the network that was fitted
        recorded = {**recorded, "network": network.config.to_dict()}
    save_checkpoint(run_dir / DISTILLED, network, training=state, config=recorded)
    export_numpy((run_dir / DISTILLED).with_suffix(".npz"), network.config, network.state_dict())
    report.update(
        settings=asdict(config),
        positions=len(boards),
        fit_seconds=round(time.perf_counter() - start, 1),
        positions_and_targets_seconds_this_call=round(target_seconds, 1),
    )
    with atomic_write(run_dir / "fit.json", "w") as f:
        json.dump(report, f, indent=2)
    _log(
        f"fit: epoch {report['best_epoch']} kept; wrote {run_dir / DISTILLED} "
        f"and {(run_dir / DISTILLED).with_suffix('.npz')}"
    )
    return report
