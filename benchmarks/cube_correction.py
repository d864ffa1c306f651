"""Probe: can a small network, fitted to the bot's own 2-ply cube lookahead, correct the 0-ply cube model?

The 0-ply cube model (``bot.cube``: Janowski's interpolation on cubeless probabilities)
cannot see market losers; the cubeful lookahead of ``bot.cubeful`` can, and at 2-ply it
agrees with GNU Backgammon's 2-ply on ``fixtures/cube.jsonl`` far more often. This fits a
one-hidden-layer network to the difference, lookahead minus model, of the two normalised
equities (no double, double/take) of the side on roll, from the board (the networks' ``hits``
encoding), its 0-ply probabilities, the model's values (at the board's cube efficiency, a
dead cube and a fully live one) and the cube state. The samples are the bot's own: positions
of its self-play games with random money and match cube states, kept where the 0-ply model is
near a decision (self-play only; nothing of GNU Backgammon goes into them). Printed:

- on held-out samples: how often the model, and the corrected model, make the bot's own 2-ply
  decision (the measure the fit is chosen by);
- on ``fixtures/cube.jsonl``: agreement with GNU Backgammon's 2-ply and the equity cost of the
  decisions (as ``benchmarks/cube.py`` prints them), the model beside the corrected model.

The bot does not use such a correction: this measures whether one is worth building
(docs/training.md, "A learned correction to the 0-ply cube"). The samples are cached in
``--data`` (rerun to refit without searching again; more ``--samples`` extend the file).

    python benchmarks/cube_correction.py [--samples 24000] [--workers 2] [--hidden 64] [--seed 1] [--data PATH]
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from bot.checkpoint import load_evaluator
from bot.classes import exact_cube
from bot.cube import CubeDecision, CubeState, Owner, cube_decision, decision_from_equities
from bot.cubeful import lookahead_cube_decision
from bot.encoding import get_encoding
from engine import decode_position_id

from cube import DEFAULT_CHECKPOINT, ROOT, load_records, run, state_of  # beside this script

OWNERS = (Owner.CENTERED, Owner.ME, Owner.OPP)
LENGTHS = (3, 5, 7, 9, 11, 13)
# A sample is kept where the model is this close to a decision's edge (normalised equities).
NEAR_DOUBLE, NEAR_PASS, NEAR_TOO_GOOD = 0.15, 0.2, 0.1
_evaluator = None


def random_state(rng: np.random.Generator) -> CubeState:
    """A cube state as the fixture has them: money 30% of the time, else a match of 3 to 13 points."""
    if rng.random() < 0.3:
        owner = OWNERS[rng.choice(3, p=[0.5, 0.3, 0.2])]
        return CubeState(cube=1 if owner is Owner.CENTERED else int(rng.choice([2, 4])), owner=owner)
    length = int(rng.choice(LENGTHS))
    while True:
        mine, theirs = (int(s) for s in rng.integers(0, length, 2))
        if not (mine == theirs == length - 1):  # double match point: no cube decision left
            break
    crawford = (mine == length - 1) != (theirs == length - 1) and bool(rng.random() < 0.4)
    owner = Owner.CENTERED if crawford else OWNERS[rng.choice(3, p=[0.6, 0.25, 0.15])]
    cube = 1 if owner is Owner.CENTERED else int(rng.choice([2, 4], p=[0.8, 0.2]))
    return CubeState(cube=cube, owner=owner, match_length=length, score=(mine, theirs), crawford=crawford)


def encode_state(state: CubeState) -> list[float]:
    """The cube state as numbers: length, score, cube, owner code, Crawford flag."""
    return [state.match_length, *state.score, state.cube, OWNERS.index(state.owner), float(state.crawford)]


def decode_state(row: np.ndarray) -> CubeState:
    length, mine, theirs, cube, owner, crawford = (int(v) for v in row)
    return CubeState(cube=cube, owner=OWNERS[owner], match_length=length, score=(mine, theirs), crawford=bool(crawford))


def model_values(board: np.ndarray, five: np.ndarray, state: CubeState) -> tuple[CubeDecision, list[float]]:
    """The model's decision, and its (nd, dt) at the board's efficiency, a dead cube and a live one, and that efficiency."""
    decision = cube_decision(board, five, state)
    dead, live = (cube_decision(board, five, state, efficiency=x) for x in (0.0, 1.0))
    return decision, [decision.no_double, decision.double_take, dead.no_double, dead.double_take,
                      live.no_double, live.double_take, decision.cube_efficiency]


def _init(checkpoint: str) -> None:
    global _evaluator
    os.environ["OMP_NUM_THREADS"] = "1"
    _evaluator = load_evaluator(checkpoint)


def _samples(task: tuple[np.ndarray, int]) -> dict[str, np.ndarray]:
    """One worker's samples from its positions: those near a decision, with the model's and the 2-ply values."""
    boards, seed = task
    assert _evaluator is not None
    rng = np.random.default_rng(seed)
    kept: dict[str, list] = {"boards": [], "states": [], "probs": [], "model": [], "lookahead": []}
    with threadpool_limits(1):
        fives = np.clip(np.asarray(_evaluator.probabilities(boards), dtype=np.float64), 0.0, 1.0)
        for board, five in zip(boards, fives):
            state = random_state(rng)
            if not 0.45 <= five[0] <= 0.97 or exact_cube(_evaluator, board, state) is not None:
                continue
            decision, values = model_values(board, five, state)
            nd, dt = decision.no_double, decision.double_take
            if not (abs(nd - min(dt, 1.0)) < NEAR_DOUBLE or abs(dt - 1.0) < NEAR_PASS or abs(nd - 1.0) < NEAR_TOO_GOOD):
                continue
            searched = lookahead_cube_decision(_evaluator, board, state, 2, five=five)
            for key, value in (("boards", board), ("states", encode_state(state)), ("probs", five), ("model", values),
                               ("lookahead", [searched.no_double, searched.double_take])):
                kept[key].append(value)
    return {key: np.array(value, dtype=np.int8 if key == "boards" else np.float64).reshape(len(value), -1)
            for key, value in kept.items()}


def gather(checkpoint: Path, path: Path, samples: int, workers: int, seed: int) -> dict[str, np.ndarray]:
    """At least ``samples`` samples: those cached at ``path``, and more from new self-play games."""
    from training.distill import sample_positions

    data = dict(np.load(path)) if path.exists() else {}
    have = len(data.get("boards", ()))
    if have >= samples:
        return data
    round_seed = seed + have  # new games, new dice, for each extension of the file
    rng = np.random.default_rng([round_seed, 1])
    start = time.perf_counter()
    needed = samples - have
    # About one position in five is near a decision; a game gives about 57 distinct positions.
    positions = sample_positions(load_evaluator(checkpoint), max(10, needed // 8), 0.05, 256, rng)[: 5 * needed]
    chunks = np.array_split(positions, 8 * workers)
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(str(checkpoint),)) as pool:
        for k, part in enumerate(pool.map(_samples, [(c, round_seed * 1000 + i) for i, c in enumerate(chunks)])):
            data = {key: np.concatenate([data[key], part[key]]) if key in data else part[key] for key in part}
            print(f"samples: {len(data['boards'])} ({k + 1}/{len(chunks)} chunks, {time.perf_counter() - start:.0f} s)",
                  flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **data)
    return data


def features(boards: np.ndarray, states: np.ndarray, probs: np.ndarray, model: np.ndarray) -> np.ndarray:
    """(N, F) float32 inputs of the correction: the board's encoding, probabilities, model values, cube state."""
    length, mine, theirs, cube, owner, crawford = states.T
    money = length == 0
    away_mine = np.where(money, 0.0, (length - mine) / 15.0)
    away_theirs = np.where(money, 0.0, (length - theirs) / 15.0)
    post_crawford = ~money & (crawford == 0) & ((mine == length - 1) | (theirs == length - 1))
    owners = np.eye(3)[owner.astype(int)]
    cube_state = np.column_stack([money, owners, np.log2(cube) / 3.0, away_mine, away_theirs, crawford, post_crawford])
    board = get_encoding("hits").encode(boards)
    return np.concatenate([board, probs, model, cube_state], axis=1).astype(np.float32)


def fit(x: np.ndarray, y: np.ndarray, hidden: int, seed: int, epochs: int = 60):
    """A tanh network fitted to ``y`` (Huber loss, Adam), the epoch with the least held-out loss kept; and its held-out rows."""
    import torch

    torch.manual_seed(seed)
    rows = np.random.default_rng(seed).permutation(len(x))
    held, train = rows[: len(x) // 10], rows[len(x) // 10:]
    mean, spread = x[train].mean(axis=0), x[train].std(axis=0) + 1e-6
    inputs, targets = torch.tensor((x - mean) / spread), torch.tensor(y, dtype=torch.float32)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 2))
    optimiser = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-4)
    loss = torch.nn.HuberLoss(delta=0.1)
    best, kept = float("inf"), None
    for epoch in range(epochs):
        order = torch.tensor(np.random.default_rng([seed, epoch]).permutation(train))
        for batch in order.split(256):
            optimiser.zero_grad()
            loss(net(inputs[batch]), targets[batch]).backward()
            optimiser.step()
        with torch.no_grad():
            held_loss = float(loss(net(inputs[held]), targets[held]))
        if held_loss < best:
            best, kept = held_loss, {k: v.clone() for k, v in net.state_dict().items()}
    assert kept is not None  # the first epoch's loss is finite
    net.load_state_dict(kept)

    def predict(z: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return net(torch.tensor(((z - mean) / spread).astype(np.float32))).numpy().astype(np.float64)
    return predict, held


def decide(nd: np.ndarray, dt: np.ndarray, states: np.ndarray, probs: np.ndarray, model: np.ndarray) -> list[CubeDecision]:
    return [decision_from_equities(float(a), float(b), 1.0, decode_state(s), bool(p[1] > 0.0), float(m[6]))
            for a, b, s, p, m in zip(nd, dt, states, probs, model)]


def agreement(decisions: list[CubeDecision], reference: list[CubeDecision]) -> str:
    doubles = np.mean([a.should_double == b.should_double for a, b in zip(decisions, reference)])
    takes = np.mean([a.should_take == b.should_take for a, b in zip(decisions, reference)])
    return f"{doubles:.1%} / {takes:.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument("--samples", type=int, default=24000, help="samples near a decision to fit on")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=ROOT / "runs" / "cube_correction" / "samples.npz")
    args = parser.parse_args()

    data = gather(args.checkpoint, args.data, args.samples, args.workers, args.seed)
    x = features(data["boards"], data["states"], data["probs"], data["model"])
    predict, held = fit(x, data["lookahead"] - data["model"][:, :2], args.hidden, args.seed)
    states, probs, model = data["states"][held], data["probs"][held], data["model"][held]
    own = decide(data["lookahead"][held, 0], data["lookahead"][held, 1], states, probs, model)
    plain = decide(model[:, 0], model[:, 1], states, probs, model)
    shift = predict(x[held])
    corrected = decide(model[:, 0] + shift[:, 0], model[:, 1] + shift[:, 1], states, probs, model)
    print(f"{len(x)} samples; on the {len(held)} held out, double / take agreement with the bot's own 2-ply: "
          f"model {agreement(plain, own)}, corrected {agreement(corrected, own)}")

    records = load_records()
    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    evaluator = load_evaluator(args.checkpoint)
    fives = np.clip(np.asarray(evaluator.probabilities(boards), dtype=np.float64), 0.0, 1.0)
    decisions = [cube_decision(b, p, state_of(r), exact=exact_cube(evaluator, b, state_of(r)))
                 for b, p, r in zip(boards, fives, records)]
    modelled = [i for i, (b, r) in enumerate(zip(boards, records)) if exact_cube(evaluator, b, state_of(r)) is None]
    fixture_states = np.array([encode_state(state_of(records[i])) for i in modelled], dtype=np.float64)
    fixture_model = np.array([model_values(boards[i], fives[i], state_of(records[i]))[1] for i in modelled])
    shift = predict(features(boards[modelled], fixture_states, fives[modelled], fixture_model))
    adjusted = list(decisions)
    for i, decision in zip(modelled, decide(fixture_model[:, 0] + shift[:, 0], fixture_model[:, 1] + shift[:, 1],
                                            fixture_states, fives[modelled], fixture_model)):
        adjusted[i] = decision
    for name, chosen in (("model", decisions), ("corrected", adjusted)):
        result = run(records, chosen)
        print(f"fixtures/cube.jsonl, {name}: double / take agreement with GNU Backgammon 2-ply {result['double']:.1%} / "
              f"{result['take']:.1%}; equity cost (pass = 1) doubler {result['double_cost']:.4f}, taker {result['take_cost']:.4f}")


if __name__ == "__main__":
    main()
