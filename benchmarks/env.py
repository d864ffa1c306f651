"""Steps per second of the vectorized environment (``nardy/Backgammon-v0`` in lockstep) against OpenSpiel's.

The agents play uniformly random legal actions (below ``info["legal_count"]``, as OpenSpiel's
random policy picks from ``state.legal_actions()``) against the random opponent, N = 1, 64
and 1024 games at once. First the answers are checked: every board valid, every mask and
legal count as long as the list of ``engine.plays.legal_plays`` (the slow, one-position
generator) for a sample of games, every game ending with 1, 2 or 3 points.
Then each N is timed. A step is one agent's play and its opponent's reply; a turn is one
side's play of one roll. The baseline, in the same run, is OpenSpiel's ``backgammon``
stepped one game at a time from Python with the same random policy on both sides (a
double is two OpenSpiel actions, one turn); it needs the ``envs`` extra's open_spiel and is
skipped without it. On a shared machine the load changes from one measurement to the next,
so every measurement is taken in each of ``--rounds`` rounds, in turn: the best of each is
compared, and each round's own ratio is printed to show the noise.

    python -m benchmarks.env [--seconds 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bot.envs import BackgammonVectorEnv
from bot.envs.games import Legal
from bot.envs.opponents import RandomOpponent
from engine import validate_board
from engine.plays import legal_plays

SIZES = (1, 64, 1024)


class CountingRandom(RandomOpponent):
    """The random opponent, counting the plays it makes."""

    def __init__(self) -> None:
        self.plays = 0

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: Legal, rng: np.random.Generator) -> np.ndarray:
        self.plays += len(boards)
        return super().choose(boards, dice, moves, rng)


def random_actions(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per game: its legal actions are ``0 .. info["legal_count"] - 1``."""
    return (rng.random(len(counts)) * counts).astype(np.int64)


def check(steps: int = 200, games: int = 64) -> None:
    """The environment's answers against the slow generator and the rules of scoring; AssertionError otherwise."""
    env = BackgammonVectorEnv(games, opponent="random")
    rng = np.random.default_rng(1)
    observations, infos = env.reset(seed=1)
    ended = 0
    for _ in range(steps):
        for i in range(0, games, 8):
            board = validate_board(observations[i, :26])
            plays = legal_plays(board, (int(observations[i, 26]), int(observations[i, 27])))
            assert infos["action_mask"][i].sum() == len(plays), f"game {i}: mask against {len(plays)} plays"
            assert infos["legal_count"][i] == len(plays), f"game {i}: legal_count against {len(plays)} plays"
        observations, rewards, over, _, infos = env.step(random_actions(infos["legal_count"], rng))
        assert set(np.abs(rewards[over]).tolist()) <= {1.0, 2.0, 3.0} and not rewards[~over].any()
        ended += int(over.sum())
    assert ended > 0, "no game ended"


def vector_rate(size: int, seconds: float) -> tuple[float, float]:
    """(steps/s, turns/s) of ``size`` games in lockstep, random against random."""
    opponent = CountingRandom()
    env = BackgammonVectorEnv(size, opponent=opponent)
    rng = np.random.default_rng(0)
    _, infos = env.reset(seed=0)
    steps = opponent.plays = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        _, _, _, _, infos = env.step(random_actions(infos["legal_count"], rng))
        steps += size
    elapsed = time.perf_counter() - started
    return steps / elapsed, (steps + opponent.plays) / elapsed


def openspiel_rate(seconds: float) -> float | None:
    """Turns/s of OpenSpiel's backgammon, one game at a time, random against random; None without it."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("backgammon")
    rng = np.random.default_rng(0)
    turns = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                turns += 1
            else:
                actions = state.legal_actions()
                state.apply_action(actions[rng.integers(len(actions))])
    return turns / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="timing per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every measurement, in turn")
    args = parser.parse_args()
    check()
    print("checked: boards valid, masks and counts equal to the legal plays, rewards 1-3 points at the end")
    best: dict[int, tuple[float, float]] = {}
    baselines: list[float] = []
    ratios: dict[int, list[float]] = {size: [] for size in SIZES}
    for _ in range(args.rounds):  # each round times everything once, so a change of load hits all alike
        baseline = openspiel_rate(args.seconds)
        if baseline is not None:
            baselines.append(baseline)
        for size in SIZES:
            steps, turns = vector_rate(size, args.seconds)
            best[size] = max(best.get(size, (0.0, 0.0)), (steps, turns))
            if baseline is not None:
                ratios[size].append(turns / baseline)
    if baselines:
        print(f"OpenSpiel backgammon, one game at a time: {max(baselines):,.0f} turns/s (best of {len(baselines)})")
    else:
        print("OpenSpiel not installed (pip install -e '.[envs]'): no baseline")
    for size, (steps, turns) in best.items():
        line = f"N = {size:5d}: {steps:,.0f} steps/s, {turns:,.0f} turns/s"
        if baselines:
            spread = ", ".join(f"{r:.2f}" for r in ratios[size])
            line += f", {turns / max(baselines):.2f}x OpenSpiel's turns/s (best against best; rounds: {spread})"
        print(line)


if __name__ == "__main__":
    main()
