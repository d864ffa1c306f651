"""Compiled loops (numba) for the network's big batches.

Imported by ``bot.network`` only for a batch big enough to pay for numba's import
(about 0.3 s), so a cold command line never loads it. Compiled on first use and
cached on disk (numba's cache: beside this file, else in the user's cache directory).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, fastmath=True, boundscheck=False)
def embedding_bag(
    boards: np.ndarray,
    table: np.ndarray,
    global_features: np.ndarray,
    global_weight: np.ndarray,
    bias: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled; checked against the numpy path in tests/test_network.py
    """Write into ``out`` (B, H) the first layer's pre-activation of boards (B, 26) int8.

    ``table`` (26 * 31, H) holds the layer's response to each slot value (row
    ``slot * 31 + value + 15``, zero for an empty slot, which is skipped), ``global_weight``
    (G, H) its rows for the global features (B, G). A board is about 16 table rows and G
    scaled rows added to the bias: a few thousand additions, against the dense product's
    tens of thousands of multiply-adds. The side on roll's rows are summed once for a run
    of boards where its checkers stay put (the afterstates of one position, hits aside).
    """
    hidden = out.shape[1]
    on_roll = np.empty(hidden, dtype=np.float32)
    acc = np.empty(hidden, dtype=np.float32)
    for b in range(boards.shape[0]):
        same = b > 0
        if same:
            for slot in range(26):
                if max(boards[b, slot], 0) != max(boards[b - 1, slot], 0):
                    same = False
                    break
        if not same:
            for h in range(hidden):
                on_roll[h] = bias[h]
            for slot in range(26):
                count = boards[b, slot]
                if count > 0:
                    row = slot * 31 + count + 15
                    for h in range(hidden):
                        on_roll[h] += table[row, h]
        for h in range(hidden):
            acc[h] = on_roll[h]
        for g in range(global_features.shape[1]):
            value = global_features[b, g]
            if value != 0.0:
                for h in range(hidden):
                    acc[h] += value * global_weight[g, h]
        for slot in range(26):
            count = boards[b, slot]
            if count < 0:
                row = slot * 31 + count + 15
                for h in range(hidden):
                    acc[h] += table[row, h]
        for h in range(hidden):
            out[b, h] = acc[h]


@numba.njit(cache=True, nogil=True, fastmath=True, boundscheck=False)
def output_probabilities(
    x: np.ndarray, shift: np.float32, weight: np.ndarray, bias: np.ndarray, cumulative: np.ndarray, out: np.ndarray,
) -> None:  # pragma: no cover - compiled; checked against the numpy path in tests/test_network.py
    """Write into ``out`` (B, 5) the five probabilities of the output layer's softmax over (x + shift) @ weight.T + bias.

    ``weight`` (6, H) is the output layer, too narrow for BLAS to run at speed; ``shift``
    the hidden activation's constant (1 for a sigmoid served as 1 + tanh), added here
    instead of in a pass over ``x``; ``cumulative`` (6, 5) sums the six outcomes into the
    five (``bot.outcomes.CUMULATIVE``), each clipped to [0, 1].
    """
    six = np.empty(6, dtype=np.float32)
    for b in range(x.shape[0]):
        top = np.float32(-np.inf)
        for k in range(6):
            acc = np.float32(0.0)
            for h in range(x.shape[1]):
                acc += (x[b, h] + shift) * weight[k, h]
            six[k] = acc + bias[k]
            top = max(top, six[k])
        total = np.float32(0.0)
        for k in range(6):
            six[k] = np.exp(six[k] - top)
            total += six[k]
        for j in range(5):
            value = np.float32(0.0)
            for k in range(6):
                value += six[k] * cumulative[k, j]
            out[b, j] = min(max(value / total, np.float32(0.0)), np.float32(1.0))


@numba.njit(cache=True, nogil=True, boundscheck=False)
def extended_globals(boards: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Write into ``out`` (B, 5) float32 ``bot.encoding``'s extended globals of boards (B, 26), side on roll's view.

    Borne off / 15 (mover, opponent), the race flag, rearmost checkers / 25: one pass over
    each board's slots instead of numpy's dozen passes over the batch.
    """
    for b in range(boards.shape[0]):
        mine = theirs = mover = 0
        opponent = -1
        for slot in range(26):
            count = boards[b, slot]
            if count > 0:
                mine += count
                mover = slot
            elif count < 0:
                theirs -= count
                if opponent < 0:
                    opponent = slot
        back = 25 - opponent if opponent >= 0 else 0
        out[b, 0] = np.float32(15 - mine) / np.float32(15.0)
        out[b, 1] = np.float32(15 - theirs) / np.float32(15.0)
        out[b, 2] = 1.0 if mover + back <= 25 else 0.0
        out[b, 3] = np.float32(mover) / np.float32(25.0)
        out[b, 4] = np.float32(back) / np.float32(25.0)
