"""Fit the bot's cube correction (``bot.evaluation.cube_correction``) to its own 2-ply cubeful lookahead.

Samples are positions of the bot's self-play games, each given a random cube state as the
fixtures have them (money 30% of the time, else a 3- to 13-point match at any score, Crawford
and post-Crawford included), kept where the 0-ply model is near a decision (``in_domain``),
with the model's values and the bot's 2-ply lookahead's (``bot.search.cube_decision``). The correction is
fitted to lookahead minus model (Huber loss, Adam, on the shifts and on the double margin they
give: ``correction_loss``); the epoch with the least loss on a tenth held out is kept. Self-play
only: nothing of another program goes in.

Samples are cached in ``samples.npz`` of the run directory (a rerun refits without searching
again; a larger ``--samples`` adds new games to it); the fit is written to ``correction.npz``
there, which ``python -m training ship --cube-correction`` puts into the bot.

    python -m training cube-correction --checkpoint checkpoints/default.pt --out runs/cube_correction
        [--samples 24000] [--workers 2] [--hidden 64] [--seed 1]
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from threadpoolctl import threadpool_limits

from bot.evaluation.checkpoint import load_evaluator
from bot.evaluation.classes import ClassEvaluator, exact_cube
from bot.equity.cube import CubeDecision, CubeState, decision_from_equities
from bot.evaluation.cube_correction import (
    OWNERS,
    CubeCorrection,
    domain_values,
    in_domain,
    inputs,
    state_of_row,
    state_row,
)
from bot.search.cube_decision import lookahead_cube_decision
from bot.evaluation.storage import atomic_write
from training.config import MIN_CORRECTION_SAMPLES as MIN_SAMPLES
from training.config import ConfigError, CubeCorrectionSettings
from training.distill import sample_positions

if TYPE_CHECKING:
    import torch

LENGTHS = (3, 5, 7, 9, 11, 13)
SAMPLES_FILE, CORRECTION_FILE = "samples.npz", "correction.npz"
MARGIN_WEIGHT = 1.0  # of the double margin's loss beside the shifts': it is what moves the double decision
WIDTHS = {"boards": 26, "states": 6, "probs": 5, "model": 7, "lookahead": 2}  # the sample file's columns
_evaluator: ClassEvaluator | None = None


def random_state(rng: np.random.Generator) -> CubeState:
    """A cube state as the fixtures have them: money 30% of the time, else a match of 3 to 13 points."""
    if rng.random() < 0.3:
        owner = OWNERS[rng.choice(3, p=[0.5, 0.3, 0.2])]
        return CubeState(cube=1 if owner is OWNERS[0] else int(rng.choice([2, 4])), owner=owner)
    length = int(rng.choice(LENGTHS))
    while True:
        mine, theirs = (int(s) for s in rng.integers(0, length, 2))
        if not (mine == theirs == length - 1):  # double match point: no cube decision left
            break
    crawford = (mine == length - 1) != (theirs == length - 1) and bool(rng.random() < 0.4)
    owner = OWNERS[0] if crawford else OWNERS[rng.choice(3, p=[0.6, 0.25, 0.15])]
    cube = 1 if owner is OWNERS[0] else int(rng.choice([2, 4], p=[0.8, 0.2]))
    return CubeState(cube=cube, owner=owner, match_length=length, score=(mine, theirs), crawford=crawford)


def _init(checkpoint: str) -> None:
    global _evaluator
    os.environ["OMP_NUM_THREADS"] = "1"
    _evaluator = load_evaluator(checkpoint)


def _samples(task: tuple[np.ndarray, int]) -> dict[str, np.ndarray]:
    """One worker's samples from its positions: those in the correction's domain, with the model's and the 2-ply
    values."""
    boards, seed = task
    assert _evaluator is not None
    rng = np.random.default_rng(seed)
    kept: dict[str, list] = {"boards": [], "states": [], "probs": [], "model": [], "lookahead": []}
    with threadpool_limits(1):
        fives = np.clip(np.asarray(_evaluator.probabilities(boards), dtype=np.float64), 0.0, 1.0)
        for board, five in zip(boards, fives):
            state = random_state(rng)
            if exact_cube(_evaluator, board, state) is not None:
                continue
            _, rows, values = domain_values(board[None], five[None], state)
            if not rows.size:
                continue
            searched = lookahead_cube_decision(_evaluator, board, state, 2, five=five)
            for key, value in (
                ("boards", board),
                ("states", state_row(state)),
                ("probs", five),
                ("model", values[0]),
                ("lookahead", [searched.no_double, searched.double_take]),
            ):
                kept[key].append(value)
    return {
        key: np.array(value, dtype=np.int8 if key == "boards" else np.float64).reshape(len(value), WIDTHS[key])
        for key, value in kept.items()
    }


def read_samples(path: Path) -> dict[str, np.ndarray]:
    """The samples cached at ``path`` (none if there is no file); ValueError naming a damaged one."""
    if not path.exists():
        return {}
    try:
        with np.load(path, allow_pickle=False) as stored:
            data = {name: stored[name] for name in stored.files}
    except Exception as error:  # zip and numpy errors of a damaged file
        raise ConfigError(
            f"samples {str(path)!r}: unreadable ({type(error).__name__}); delete it to start again"
        ) from None
    if {name: array.shape[1:] for name, array in data.items()} != {
        name: (width,) for name, width in WIDTHS.items()
    } or len({len(array) for array in data.values()}) != 1:
        raise ConfigError(f"samples {str(path)!r}: not a cube-correction sample file; delete it to start again")
    return data


def gather(checkpoint: Path, path: Path, samples: int, workers: int, seed: int) -> dict[str, np.ndarray]:
    """At least ``samples`` samples: those cached at ``path``, and more from new self-play games.

    The file is rewritten after each chunk of positions, so an interrupted run keeps what it
    searched; a rerun goes on from there with new games.
    """
    data: dict[str, Any] = read_samples(path)  # Any: what np.savez takes
    have = len(data.get("boards", ()))
    if have >= samples:
        return data
    round_seed = seed + have  # new games, new dice, for each extension of the file
    rng = np.random.default_rng([round_seed, 1])
    start = time.perf_counter()
    needed = samples - have
    # About one position in five is in the domain; a game gives about 57 distinct positions.
    positions = sample_positions(load_evaluator(checkpoint), max(10, needed // 8), 0.05, 256, rng)[: 5 * needed]
    chunks = np.array_split(positions, 8 * workers)
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(str(checkpoint),)) as pool:
        for k, part in enumerate(pool.map(_samples, [(c, round_seed * 1000 + i) for i, c in enumerate(chunks)])):
            data = {key: np.concatenate([data[key], part[key]]) if key in data else part[key] for key in part}
            with atomic_write(path) as f:
                np.savez(f, **data)
            print(
                f"samples: {len(data['boards'])} ({k + 1}/{len(chunks)} chunks, {time.perf_counter() - start:.0f} s)",
                flush=True,
            )
    return data


def sample_inputs(data: dict[str, np.ndarray]) -> np.ndarray:
    """(N, F) the correction's inputs of cached samples."""
    return inputs(data["boards"], data["probs"], data["model"], data["states"])


def double_margin(values: torch.Tensor) -> torch.Tensor:
    """(N,) what doubling gains over not doubling, min(double/take, pass) - no double, of (N, 2) (nd, dt) values."""
    return values[:, 1].clamp(max=1.0) - values[:, 0]


def correction_loss(
    shifts: torch.Tensor, targets: torch.Tensor, model: torch.Tensor, margin_weight: float = MARGIN_WEIGHT
) -> torch.Tensor:
    """Huber loss of the (nd, dt) shifts, plus ``margin_weight`` times that of the double margin they give the model's
    (nd, dt) ``model``: the shifts' errors matter where they move a decision, and one that moves nd and dt alike
    leaves the double decision alone."""
    import torch

    huber = torch.nn.HuberLoss(delta=0.1)
    return huber(shifts, targets) + margin_weight * huber(double_margin(model + shifts), double_margin(model + targets))


def fit(
    x: np.ndarray,
    y: np.ndarray,
    model: np.ndarray,
    hidden: int,
    seed: int,
    epochs: int = 60,
    use: np.ndarray | None = None,
) -> tuple[CubeCorrection, np.ndarray]:
    """A correction fitted to shifts ``y`` (N, 2) of the model's (nd, dt) ``model`` (N, 2) from inputs ``x``
    (``correction_loss``), the epoch with the least held-out loss kept; and the held-out rows.

    ``use`` (N,) bool keeps some rows only; the tenth held out is drawn over all N first, so that
    a row held out of a fit on every row is held out of this one too.
    """
    import torch

    torch.manual_seed(seed)
    rows = np.random.default_rng(seed).permutation(len(x))
    held, train = rows[: len(x) // 10], rows[len(x) // 10 :]
    if use is not None:
        held, train = held[use[held]], train[use[train]]
    mean, spread = x[train].mean(axis=0), x[train].std(axis=0) + 1e-6
    standardised = torch.tensor((x - mean) / spread)
    targets, base = torch.tensor(y, dtype=torch.float32), torch.tensor(model, dtype=torch.float32)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 2))
    optimiser = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-4)

    def loss(batch: torch.Tensor) -> torch.Tensor:
        return correction_loss(net(standardised[batch]), targets[batch], base[batch])

    best, kept = float("inf"), None
    for epoch in range(epochs):
        order = torch.tensor(np.random.default_rng([seed, epoch]).permutation(train))
        for batch in order.split(256):
            optimiser.zero_grad()
            loss(batch).backward()
            optimiser.step()
        with torch.no_grad():
            held_loss = float(loss(torch.tensor(held)))
        if held_loss < best:
            best, kept = held_loss, {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
    assert kept is not None  # the first epoch's loss is finite
    correction = CubeCorrection.from_arrays(
        {
            "mean": mean,
            "spread": spread,
            "hidden_weight": kept["0.weight"],
            "hidden_bias": kept["0.bias"],
            "out_weight": kept["2.weight"],
            "out_bias": kept["2.bias"],
        }
    )
    return correction, held


def agreement(decisions: list[CubeDecision], reference: list[CubeDecision]) -> str:
    """How often ``decisions`` double and take as ``reference`` does, as "D% / T%"."""
    doubles = np.mean([a.should_double == b.should_double for a, b in zip(decisions, reference)])
    takes = np.mean([a.should_take == b.should_take for a, b in zip(decisions, reference)])
    return f"{doubles:.1%} / {takes:.1%}"


def held_out_report(data: dict[str, np.ndarray], held: np.ndarray, shift: Callable[[np.ndarray], np.ndarray]) -> str:
    """How often the model and the corrected model make the bot's own 2-ply decision on the held-out samples."""

    def decide(nd: np.ndarray, dt: np.ndarray) -> list[CubeDecision]:
        return [
            decision_from_equities(float(a), float(b), 1.0, state_of_row(s), bool(p[1] > 0.0), float(m[6]))
            for a, b, s, p, m in zip(nd, dt, data["states"][held], data["probs"][held], data["model"][held])
        ]

    model = data["model"][held]
    moved = model[:, :2] + shift(sample_inputs({key: value[held] for key, value in data.items()}))
    own = decide(data["lookahead"][held, 0], data["lookahead"][held, 1])
    return (
        f"on the {len(held)} held out, double / take agreement with the bot's own 2-ply: model "
        f"{agreement(decide(model[:, 0], model[:, 1]), own)}, "
        f"corrected {agreement(decide(moved[:, 0], moved[:, 1]), own)}"
    )


def run(checkpoint: Path, out: Path, settings: CubeCorrectionSettings) -> CubeCorrection:
    """Gather (or reuse) the samples in ``out``, fit, write ``out/correction.npz``; print the held-out agreement."""
    samples, workers, hidden, seed = settings.samples, settings.workers, settings.hidden, settings.seed
    out.mkdir(parents=True, exist_ok=True)
    data = gather(checkpoint, out / SAMPLES_FILE, samples, workers, seed)
    model = data["model"][:, :2]
    # Sample files gathered before the domain left races out hold races; the fit skips them.
    use = in_domain(data["boards"], data["probs"], model)
    if use.sum() < MIN_SAMPLES:
        raise ConfigError(
            f"cube-correction: only {int(use.sum())} samples near a cube decision in "
            f"{out / SAMPLES_FILE}; rerun with a larger samples setting (--set samples=N)"
        )
    correction, held = fit(sample_inputs(data), data["lookahead"] - model, model, hidden, seed, use=use)
    print(
        f"{len(data['boards'])} samples, {int(use.sum())} in the correction's domain; "
        f"{held_out_report(data, held, correction.shifts)}"
    )
    arrays: dict[str, Any] = correction.arrays()
    with atomic_write(out / CORRECTION_FILE) as f:
        np.savez(f, **arrays)
    return correction


def load_correction(path: Path) -> CubeCorrection:
    """The correction a ``run`` wrote; ValueError naming the file if it is not one."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except Exception as error:  # a missing, damaged or foreign file
        raise ConfigError(f"cube correction {str(path)!r}: unreadable ({type(error).__name__})") from None
    try:
        return CubeCorrection.from_arrays(arrays)
    except ValueError as error:
        raise ConfigError(f"{str(path)!r}: {error}") from None
