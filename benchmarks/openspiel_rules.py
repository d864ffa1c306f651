"""The rules cross-checked against OpenSpiel's ``backgammon``: the same afterstates at every turn of random play.

OpenSpiel plays random games (uniform legal actions, seeded dice); at the start of each
turn the afterstates its legal actions reach by the end of the turn (a double is two of
its actions, ``bot.envs.openspiel.turn_afterstates``) are compared with
``engine.afterstates`` on the same board and roll. Prints how many turns agree and the
first differences, each with its GNU Backgammon Position ID, the roll and the plays one
side allows and the other does not. Needs the ``envs`` extra (open_spiel).

    python -m benchmarks.openspiel_rules [--states 100000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np
import pyspiel

from bot.envs.gym_env import notation_of
from bot.envs.openspiel import engine_board, state_dice, turn_afterstates, turn_start
from engine import afterstates, encode_position_id

BATCH = 1024  # turns whose engine afterstates are listed in one batched call


def describe(board: np.ndarray, dice: tuple[int, int], extra: set[bytes], missing: set[bytes]) -> str:
    """One difference: the position, the roll, and how many plays each side has that the other lacks."""
    ours = [notation_of(board, dice, np.frombuffer(b, dtype=np.int8)) for b in sorted(missing)[:3]]
    theirs = [np.frombuffer(b, dtype=np.int8).tolist() for b in sorted(extra)[:1]]
    return (
        f"{encode_position_id(board)} {dice[0]}{dice[1]}: OpenSpiel allows {len(extra)} afterstates the engine "
        f"does not (e.g. {theirs}), the engine {len(missing)} OpenSpiel does not (e.g. {ours})"
    )


class Tally:
    """Turns compared so far, by kind, and the first differences described."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.shown: list[str] = []
        self.pending: list[tuple[np.ndarray, tuple[int, int], set[bytes]]] = []

    def add(self, board: np.ndarray, dice: tuple[int, int], theirs: set[bytes]) -> None:
        self.pending.append((board, dice, theirs))
        if len(self.pending) == BATCH:
            self.flush()

    def flush(self) -> None:
        """Compare the pending turns with the engine's afterstates, listed in one call."""
        if not self.pending:
            return
        boards = np.stack([board for board, _, _ in self.pending])
        children, parent = afterstates(boards, np.array([dice for _, dice, _ in self.pending]))
        ours: list[set[bytes]] = [set() for _ in self.pending]
        for child, i in zip(children, parent):
            ours[i].add(child.tobytes())
        for (board, dice, theirs), mine in zip(self.pending, ours):
            kind = "double" if dice[0] == dice[1] else "non-double"
            self.kinds[f"{kind} turns"] += 1
            if theirs != mine:
                self.kinds[f"{kind} turns that differ"] += 1
                if len(self.shown) < 10:
                    self.shown.append(describe(board, dice, theirs - mine, mine - theirs))
        self.pending = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=100_000, help="turns to compare")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = pyspiel.load_game("backgammon")
    rng = np.random.default_rng(args.seed)
    compared, tally = 0, Tally()
    started = time.perf_counter()
    while compared < args.states:
        state = game.new_initial_state()
        while not state.is_terminal() and compared < args.states:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            if turn_start(state) is state:
                tally.add(engine_board(state, state.current_player()), state_dice(state), set(turn_afterstates(state)))
                compared += 1
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    tally.flush()
    seconds = time.perf_counter() - started
    differ = sum(n for k, n in tally.kinds.items() if k.endswith("differ"))
    print(
        f"{compared} turns of random OpenSpiel play compared in {seconds:.0f} s: "
        f"{compared - differ} agree, {differ} differ"
    )
    for kind, n in sorted(tally.kinds.items()):
        print(f"  {kind}: {n}")
    for line in tally.shown:
        print("  " + line)


if __name__ == "__main__":
    main()
