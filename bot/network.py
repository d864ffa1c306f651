"""The value network at inference, in numpy: a position (side on roll) -> its five probabilities.

The output layer is a softmax over the six outcomes of ``bot.outcomes`` (win
single/gammon/backgammon, lose single/gammon/backgammon), summed into
[win, win gammon, win bg, lose gammon, lose bg] of the side on roll, so the five
are consistent by construction (bg <= gammon <= win).

The first layer is a linear map of the dense encoding (``bot.encoding``). Training
(``training.network.ValueNetwork``, torch) and serving (``Network`` here, numpy)
compute the same map from the same weights; the doors never import torch.

Serving computes the first layer from one narrow gather: a slot's features depend
only on its own value and touch a few columns (a point's Tesauro units, the pip
counts), so one gather puts each slot's few values side by side and one product
with the first layer's matching rows, stacked slot by slot, gives the layer.
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
        np.exp(np.minimum(x, 80.0, out=x), out=x)  # no overflow warning: exp(80) is already a sure 0
        x += 1.0
        return np.reciprocal(x, out=x)
    if name == "tanh":
        return np.tanh(x, out=x)
    if name == "relu":
        return np.maximum(x, 0.0, out=x)
    return np.where(x > 0.0, x, np.expm1(np.minimum(x, 0.0)))  # elu


class _FirstLayer:
    """The first layer's pre-activation from boards: one gather and one product (see the module docstring).

    Row ``slot * 31 + value`` of ``slot_table`` holds a slot's features in the columns it
    touches (at most ``width``, zero-padded); ``slot_weights`` holds the first layer's
    rows for the same columns, block by block, so a column several slots touch (a pip
    count) gets each slot's share.
    """

    def __init__(self, encoding: Encoding, weight: np.ndarray, bias: np.ndarray) -> None:
        table = encoding.slot_table.reshape(26, VALUES, -1)
        touched = [np.flatnonzero(np.abs(table[slot]).sum(axis=0) > 0) for slot in range(26)]
        self.width = max(len(columns) for columns in touched)
        slot_table = np.zeros((26, VALUES, self.width), dtype=np.float32)
        slot_weights = np.zeros((26, self.width, weight.shape[0]), dtype=np.float32)
        for slot, columns in enumerate(touched):
            slot_table[slot, :, : len(columns)] = table[slot][:, columns]
            slot_weights[slot, : len(columns)] = weight[:, columns].T
        self.slot_table = slot_table.reshape(26 * VALUES, self.width)
        self.slot_weights = slot_weights.reshape(26 * self.width, -1)
        self.global_weights = np.ascontiguousarray(weight[:, encoding.slot_size :].T)
        self.encoding = encoding
        self.bias = bias

    def __call__(self, boards: np.ndarray) -> np.ndarray:
        slots = np.take(self.slot_table, slot_indices(boards), axis=0).reshape(len(boards), -1)
        x = slots @ self.slot_weights
        x += self.encoding.global_features(boards) @ self.global_weights
        x += self.bias
        return x


class Network:
    """A trained value network for inference: boards seen by the side on roll -> that side's five.

    ``weights`` maps torch's ``state_dict`` names to arrays of ``weight_shapes(config)``.
    """

    def __init__(self, config: NetworkConfig, weights: Mapping[str, np.ndarray]) -> None:
        self.config = config
        self.encoding = get_encoding(config.encoding)
        names = [f"hidden_layers.{i}" for i in range(len(config.hidden))] + ["output_layer"]
        layers = [
            (np.asarray(weights[f"{name}.weight"], dtype=np.float32), np.asarray(weights[f"{name}.bias"], dtype=np.float32))
            for name in names
        ]
        self._first = _FirstLayer(self.encoding, *layers[0])
        self._layers = [(np.ascontiguousarray(weight.T), bias) for weight, bias in layers[1:]]

    def logits(self, boards: np.ndarray) -> np.ndarray:
        """(B, 6) logits of the six outcomes for the side on roll of each board (B, 26)."""
        x = _activate(self._first(np.asarray(boards)), self.config.activation)
        for weight, bias in self._layers[:-1]:
            x = _activate(x @ weight + bias, self.config.activation)
        weight, bias = self._layers[-1]
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
