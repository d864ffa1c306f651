"""The value network at inference, in numpy: a position (side on roll) -> its five probabilities.

The output layer is a softmax over the six outcomes of ``bot.outcomes`` (win
single/gammon/backgammon, lose single/gammon/backgammon), summed into
[win, win gammon, win bg, lose gammon, lose bg] of the side on roll, so the five
are consistent by construction (bg <= gammon <= win).

The first layer is a linear map of the dense encoding (``bot.encoding``). Training
(``training.network.ValueNetwork``, torch) and serving (``Network`` here, numpy)
compute the same map from the same weights; the doors never import torch.

Serving builds the dense features slot by slot: a slot's features depend only on
its own value, and most feature columns belong to one slot, so each slot fills its
own columns with one gather from a narrow table; the few columns several slots add
to (pip counts, say) are summed from one small table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

import numpy as np

from bot.encoding import VALUES, Encoding, get_encoding, slot_indices
from bot.outcomes import CUMULATIVE

ACTIVATIONS = ("sigmoid", "relu", "tanh", "elu")


@dataclass(frozen=True)
class NetworkConfig:
    """Everything needed to rebuild a network's shape."""

    # Input encoding, a name from bot.encoding.ENCODINGS ("tesauro" or "extended").
    encoding: str = "extended"
    # Sizes of the hidden layers, input side first.
    hidden: tuple[int, ...] = (128,)
    # Activation of the hidden layers: sigmoid, relu, tanh or elu.
    activation: str = "sigmoid"

    def __post_init__(self) -> None:
        get_encoding(self.encoding)
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"network.hidden {self.hidden!r}: expected one or more positive sizes")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"network.activation {self.activation!r}: unknown, expected one of {list(ACTIVATIONS)}")

    def to_dict(self) -> dict[str, Any]:
        """Plain data (lists, strings) for checkpoints and TOML."""
        data = asdict(self)
        data["hidden"] = list(self.hidden)
        return data


def weight_shapes(config: NetworkConfig) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight array of a network (torch's ``state_dict`` names)."""
    sizes = (get_encoding(config.encoding).size,) + config.hidden
    shapes: dict[str, tuple[int, ...]] = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        shapes[f"hidden_layers.{i}.weight"] = (b, a)
        shapes[f"hidden_layers.{i}.bias"] = (b,)
    shapes["output_layer.weight"] = (6, sizes[-1])
    shapes["output_layer.bias"] = (6,)
    return shapes


def _activate(x: np.ndarray, name: str) -> np.ndarray:
    """The hidden layers' activation, in place where numpy allows."""
    if name == "sigmoid":
        np.negative(x, out=x)
        np.exp(x, out=x)
        x += 1.0
        return np.reciprocal(x, out=x)
    if name == "relu":
        return np.maximum(x, 0.0, out=x)
    if name == "tanh":
        return np.tanh(x, out=x)
    return np.where(x > 0.0, x, np.expm1(np.minimum(x, 0.0)))  # elu


class _SlotFeatures:
    """Dense slot features (B, P) of boards, one gather per slot (see the module docstring)."""

    def __init__(self, encoding: Encoding) -> None:
        table = encoding.slot_table.reshape(26, VALUES, -1)
        users = (np.abs(table).sum(axis=1) > 0).sum(axis=0)  # how many slots touch each column
        self.size = table.shape[2]
        self.shared = np.flatnonzero(users > 1)
        self.shared_table = np.ascontiguousarray(encoding.slot_table[:, self.shared])
        self.own = []  # per slot: (its own columns, their (31, k) table)
        for slot in range(26):
            columns = np.flatnonzero((np.abs(table[slot]).sum(axis=0) > 0) & (users == 1))
            if len(columns):
                self.own.append((slot, columns, np.ascontiguousarray(table[slot][:, columns])))

    def __call__(self, boards: np.ndarray) -> np.ndarray:
        values = boards.astype(np.intp) + VALUES // 2
        dense = np.zeros((len(boards), self.size), dtype=np.float32)
        for slot, columns, table in self.own:
            dense[:, columns] = table[values[:, slot]]
        if len(self.shared):
            dense[:, self.shared] = self.shared_table[slot_indices(boards)].sum(axis=1)
        return dense


class Network:
    """A trained value network for inference: boards seen by the side on roll -> that side's five.

    ``weights`` maps torch's ``state_dict`` names to arrays of ``weight_shapes(config)``.
    """

    def __init__(self, config: NetworkConfig, weights: Mapping[str, np.ndarray]) -> None:
        self.config = config
        self.encoding = get_encoding(config.encoding)
        self._slot_features = _SlotFeatures(self.encoding)
        layers = len(config.hidden)
        self._hidden = [
            (
                np.ascontiguousarray(np.asarray(weights[f"hidden_layers.{i}.weight"], dtype=np.float32).T),
                np.asarray(weights[f"hidden_layers.{i}.bias"], dtype=np.float32),
            )
            for i in range(layers)
        ]
        self._output = (
            np.ascontiguousarray(np.asarray(weights["output_layer.weight"], dtype=np.float32).T),
            np.asarray(weights["output_layer.bias"], dtype=np.float32),
        )

    def logits(self, boards: np.ndarray) -> np.ndarray:
        """(B, 6) logits of the six outcomes for the side on roll of each board (B, 26)."""
        boards = np.asarray(boards)
        slot_size = self._slot_features.size
        weight, bias = self._hidden[0]
        x = self._slot_features(boards) @ weight[:slot_size]
        x += self.encoding.global_features(boards) @ weight[slot_size:]
        x += bias
        x = _activate(x, self.config.activation)
        for weight, bias in self._hidden[1:]:
            x = _activate(x @ weight + bias, self.config.activation)
        weight, bias = self._output
        return x @ weight + bias

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(B, 5) float32 [win, wg, wbg, lg, lbg] of the side on roll of each board (B, 26).

        Clipped to [0, 1]: float32 sums of the six may stray past the ends by a rounding error.
        """
        z = self.logits(boards)
        z -= z.max(axis=1, keepdims=True)
        six = np.exp(z, out=z)
        six /= six.sum(axis=1, keepdims=True)
        return np.clip(six @ CUMULATIVE, 0.0, 1.0).astype(np.float32, copy=False)
