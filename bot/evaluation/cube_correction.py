"""A learned correction to the 0-ply cube model, fitted to the bot's own 2-ply cubeful lookahead.

Janowski's model (``bot.equity.cube``) prices cube life from cubeless probabilities and cannot see
market losers; the cubeful lookahead (``bot.search.cube_decision``) can. A small network (one tanh layer)
adds to the model's no-double and double/take equities (normalised, the side on roll's, a pass
is +1) what the bot's own 2-ply lookahead found beyond them on positions of its self-play games
(``training.cube_correction`` fits it; nothing of another program goes in). It reads the board
(the ``hits`` encoding), the five cubeless probabilities, the model's values at the board's cube
efficiency, a dead cube and a live one, and the cube state.

It is applied only where it was fitted (``in_domain``): contact positions, P(win) 0.45 to 0.97 and
the model near a decision's edge; elsewhere the model's decision stands (and inside the two-sided
bear-off database the exact one). In races and bear-offs the correction moved the bot's 0-ply
decisions away from its own 2-ply lookahead's, where the model is already close to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

import numpy as np

from bot.equity.cube import (
    CubeDecision,
    CubeState,
    MatchScore,
    Owner,
    cube_efficiencies,
    decision_from_equities,
    model_decisions,
)
from bot.evaluation.encoding import get_encoding, is_race
from bot.equity.met import MatchEquityTable

ENCODING = "hits"
OWNERS = (Owner.CENTERED, Owner.ME, Owner.OPP)
STATE_INPUTS = 9  # money, owner (3), log2 cube, both away counts, Crawford, post-Crawford
MODEL_INPUTS = 7  # no double and double/take at the board's efficiency, a dead and a live cube; the efficiency
# Where the correction was fitted: P(win) in this range, and the model this close to an edge.
WIN_RANGE = (0.45, 0.97)
NEAR_DOUBLE, NEAR_PASS, NEAR_TOO_GOOD = 0.15, 0.2, 0.1
ARRAY_NAMES = ("mean", "spread", "hidden_weight", "hidden_bias", "out_weight", "out_bias")


def input_size() -> int:
    """F: the number of inputs the correction reads."""
    return get_encoding(ENCODING).size + 5 + MODEL_INPUTS + STATE_INPUTS


def state_row(state: CubeState) -> list[float]:
    """A cube state as six numbers (length, score, cube, owner index, Crawford flag), as samples store it."""
    return [state.match_length, *state.score, state.cube, OWNERS.index(state.owner), float(state.crawford)]


def state_of_row(row: np.ndarray) -> CubeState:
    """The cube state of a ``state_row``."""
    length, mine, theirs, cube, owner, crawford = (int(v) for v in row)
    return CubeState(cube=cube, owner=OWNERS[owner], match_length=length, score=(mine, theirs), crawford=bool(crawford))


def state_inputs(rows: np.ndarray) -> np.ndarray:
    """(N, STATE_INPUTS) of ``state_row``s (N, 6): what the network reads of the cube and score."""
    length, mine, theirs, cube, owner, crawford = np.asarray(rows, dtype=np.float64).reshape(-1, 6).T
    money = length == 0
    away_mine = np.where(money, 0.0, (length - mine) / 15.0)
    away_theirs = np.where(money, 0.0, (length - theirs) / 15.0)
    post_crawford = ~money & (crawford == 0) & ((mine == length - 1) | (theirs == length - 1))
    owners = np.eye(3)[owner.astype(int)]
    return np.column_stack([money, owners, np.log2(cube) / 3.0, away_mine, away_theirs, crawford, post_crawford])


def edges(decisions: list[CubeDecision]) -> np.ndarray:
    """(N, 2) the no-double and double/take equities of the model's decisions (what ``in_domain`` reads)."""
    return np.array([[d.no_double, d.double_take] for d in decisions], dtype=np.float64).reshape(-1, 2)


def model_values(
    decisions: list[CubeDecision], fives: np.ndarray, state: CubeState, met: Optional[MatchEquityTable] = None
) -> np.ndarray:
    """(N, MODEL_INPUTS) the network's view of the model's ``decisions`` of positions at one state (``fives``
    their probabilities): their values, the same at a dead and a live cube, their cube efficiency."""
    dead, live = (model_decisions(fives, np.full(len(fives), x), state, met) for x in (0.0, 1.0))
    values = np.array(
        [
            [d.no_double, d.double_take, a.no_double, a.double_take, b.no_double, b.double_take, d.cube_efficiency]
            for d, a, b in zip(decisions, dead, live)
        ],
        dtype=np.float64,
    )
    return values.reshape(-1, MODEL_INPUTS)


def inputs(boards: np.ndarray, fives: np.ndarray, values: np.ndarray, states: np.ndarray) -> np.ndarray:
    """(N, F) float32 network inputs from boards (N, 26), probabilities, ``model_values`` and ``state_row``s."""
    board = get_encoding(ENCODING).encode(np.asarray(boards).reshape(-1, 26))
    return np.concatenate([board, np.asarray(fives).reshape(-1, 5), values, state_inputs(states)], axis=1).astype(
        np.float32
    )


def in_domain(boards: np.ndarray, fives: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(N,) whether each of boards (N, 26) is where the correction was fitted: a contact position with P(win)
    in ``WIN_RANGE`` and the model's (no double, double/take), the first two columns of ``values`` (``edges``
    or ``model_values``), near an edge."""
    win = np.asarray(fives)[:, 0]
    nd, dt = values[:, 0], values[:, 1]
    near = (
        (np.abs(nd - np.minimum(dt, 1.0)) < NEAR_DOUBLE)
        | (np.abs(dt - 1.0) < NEAR_PASS)
        | (np.abs(nd - 1.0) < NEAR_TOO_GOOD)
    )
    return ~is_race(np.asarray(boards).reshape(-1, 26)) & (win >= WIN_RANGE[0]) & (win <= WIN_RANGE[1]) & near


def domain_values(
    boards: np.ndarray, fives: np.ndarray, state: CubeState, met: Optional[MatchEquityTable] = None
) -> tuple[list[CubeDecision], np.ndarray, np.ndarray]:
    """The model's decisions of boards (N, 26) at one state (``fives`` their probabilities), the rows ``in_domain``
    and those rows' ``model_values``: the dead and live cube values are only worked out where the correction applies."""
    decisions = model_decisions(fives, cube_efficiencies(boards), state, met)
    rows = np.flatnonzero(in_domain(boards, fives, edges(decisions)))
    if not rows.size:
        return decisions, rows, np.empty((0, MODEL_INPUTS))
    return decisions, rows, model_values([decisions[row] for row in rows], fives[rows], state, met)


@dataclass(frozen=True)
class CubeCorrection:
    """The network: inputs standardised by ``mean`` and ``spread``, one tanh layer, two outputs (nd, dt shifts)."""

    mean: np.ndarray
    spread: np.ndarray
    hidden_weight: np.ndarray
    hidden_bias: np.ndarray
    out_weight: np.ndarray
    out_bias: np.ndarray

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> "CubeCorrection":
        """The correction of stored arrays (``arrays``); ValueError naming what does not fit."""
        missing, extra = sorted(set(ARRAY_NAMES) - set(arrays)), sorted(set(arrays) - set(ARRAY_NAMES))
        if missing or extra:
            raise ValueError(f"cube correction: missing arrays {missing}, unexpected {extra}")
        values = {name: np.asarray(arrays[name], dtype=np.float32) for name in ARRAY_NAMES}
        size, hidden = input_size(), len(values["hidden_bias"])
        shapes = {
            "mean": (size,),
            "spread": (size,),
            "hidden_weight": (hidden, size),
            "hidden_bias": (hidden,),
            "out_weight": (2, hidden),
            "out_bias": (2,),
        }
        for name, shape in shapes.items():
            if values[name].shape != shape:
                raise ValueError(f"cube correction: {name} is {list(values[name].shape)}, expected {list(shape)}")
            if not np.isfinite(values[name]).all():
                raise ValueError(f"cube correction: {name} holds NaN or infinite values")
        if (values["spread"] <= 0).any():
            raise ValueError("cube correction: spread must be positive")
        return cls(**values)

    def arrays(self) -> dict[str, np.ndarray]:
        """The stored arrays, by name (``from_arrays`` reads them back)."""
        return {name: getattr(self, name) for name in ARRAY_NAMES}

    def shifts(self, features: np.ndarray) -> np.ndarray:
        """(N, 2) what to add to the model's (no double, double/take) of positions with ``inputs`` features."""
        hidden = np.tanh(((features - self.mean) / self.spread) @ self.hidden_weight.T + self.hidden_bias)
        return (hidden @ self.out_weight.T + self.out_bias).astype(np.float64)

    def decisions(
        self, boards: np.ndarray, fives: np.ndarray, state: CubeState, met: Optional[MatchEquityTable] = None
    ) -> list[CubeDecision]:
        """The corrected 0-ply decisions of boards (N, 26) at one state, the side on roll's (``fives`` its
        cubeless probabilities); the model's own outside ``in_domain``."""
        fives = np.asarray(fives, dtype=np.float64).reshape(-1, 5)
        decisions, rows, values = domain_values(boards, fives, state, met)
        if not rows.size:
            return decisions
        states = np.tile(state_row(state), (len(rows), 1))
        shifted = values[:, :2] + self.shifts(inputs(np.asarray(boards)[rows], fives[rows], values, states))
        score = None if state.is_money else MatchScore.of(state, met)
        for row, (nd, dt), efficiency in zip(rows.tolist(), shifted.tolist(), values[:, 6].tolist()):
            mwcs = (
                (None, None, None)
                if score is None
                else (score.mwc(nd, state.cube), score.mwc(dt, state.cube), score.after(state.cube))
            )
            decisions[row] = decision_from_equities(nd, dt, 1.0, state, bool(fives[row, 1] > 0.0), efficiency, mwcs)
        return decisions
