"""The value network at inference, in numpy: a position (side on roll) -> its five probabilities.

The output layer is a softmax over the six outcomes of ``bot.equity.outcomes`` (win
single/gammon/backgammon, lose single/gammon/backgammon), summed into
[win, win gammon, win bg, lose gammon, lose bg] of the side on roll, so the five
are consistent by construction (bg <= gammon <= win).

The first layer is a linear map of the dense encoding (``bot.evaluation.encoding``). Training
(``training.torch_network.ValueNetwork``, torch) and serving (``Network`` here, numpy)
compute the same map from the same weights; the doors never import torch.

Serving factors the first layer by side. A slot's features are a function of the
checkers one side has on it (a point's Tesauro units; its pip and home counts are
sums of those units), so each side of a board is 4 units a point, each times its
first-layer rows folded from the slot's columns. The side on roll is the side that
did not just move: across the afterstates of a position it changes only by hit
checkers, so a batch holds few distinct ones and each is multiplied once. Per
board that leaves one product over the other side's units and the global features,
about a third of the dense encoding's columns.

Big batches (search, rollouts, analysis: ``bot.evaluation.compiled``) take compiled kernels
instead: the first layer as an embedding bag, each board adding up the layer's rows of
its occupied slots' values (a tenth of the multiply-adds), and the narrow output layer. A
network of one tanh or sigmoid layer (every shipped one) runs whole in one kernel, a board at
a time, with a rational tanh within 4e-7 of numpy's (``bot.evaluation.kernels.tanh_network``).
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass
from typing import Any, Mapping

import numpy as np

from bot.evaluation.compiled import kernel
from bot.evaluation.encoding import VALUES, Encoding, get_encoding
from bot.equity.outcomes import CUMULATIVE

_CUMULATIVE = CUMULATIVE.astype(np.float32)

ACTIVATIONS = ("sigmoid", "relu", "tanh", "elu")
CHUNK = 4096  # boards per pass of the network: (CHUNK, H) float32 working arrays of a few MB


@dataclass(frozen=True)
class NetworkConfig:
    """Everything needed to rebuild a network's shape."""

    # Input encoding, a name from bot.evaluation.encoding.ENCODINGS ("tesauro" or "extended").
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


def _activate(x: np.ndarray, name: str, offset: bool = True) -> np.ndarray:
    """The hidden layers' activation, in place where numpy allows; sigmoid as 2 * sigmoid (see ``Network``).

    Without ``offset``, sigmoid's 1 + tanh stops at the tanh (``_offset`` gives the 1).
    """
    if name == "sigmoid":
        np.tanh(x, out=x)
        if offset:
            x += 1.0
        return x
    if name == "tanh":
        return np.tanh(x, out=x)
    if name == "relu":
        return np.maximum(x, 0.0, out=x)
    return np.where(x > 0.0, x, np.expm1(np.minimum(x, 0.0)))  # elu


def _side_units(table: np.ndarray, rows: slice) -> tuple[np.ndarray, np.ndarray]:
    """One side's units of each slot's checker count n = 0..15, and the matching map to the slot features.

    ``table`` (26, 31, P) is a slot table; ``rows`` its 15 rows for n = 1..15 of one side.
    Returns (units (26, 16, r), maps (26, r, P)) with units[slot, n] @ maps[slot] equal to
    the slot's features: the units are a basis of the slot's feature columns (Tesauro's
    four units of a point: the pip and home counts are sums of them), so r <= 4 here.
    """
    counts = table[:, rows].astype(np.float64)
    bases = [_basis_columns(slot) for slot in counts]
    width = max(1, max(len(columns) for columns in bases))
    units = np.zeros((26, 16, width))
    for slot, columns in enumerate(bases):
        units[slot, 1:, : len(columns)] = counts[slot][:, columns]
    maps = np.linalg.pinv(units[:, 1:]) @ counts  # padding columns (zero) get zero rows
    if not np.allclose(np.einsum("snr,srp->snp", units[:, 1:], maps), counts, atol=1e-6):
        raise ValueError("slot table: the features of a slot are not spanned by its own columns")
    return units, maps


def _basis_columns(features: np.ndarray) -> list[int]:
    """The first linearly independent columns of ``features`` (a slot's feature columns, in order).

    Gram-Schmidt with a float32-sized tolerance: the table's columns are float32 roundings.
    """
    columns: list[int] = []
    basis = np.zeros((len(features), 0))
    for column in np.flatnonzero(np.abs(features).sum(axis=0)):
        vector = features[:, column]
        residual = vector - basis @ (basis.T @ vector)
        if residual @ residual > 1e-10 * (vector @ vector):
            columns.append(int(column))
            basis = np.column_stack([basis, residual / np.sqrt(residual @ residual)])
    return columns


@functools.cache
def _encoding_units(name: str) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Per side (on roll, other): its units (26 * 16, r) float32 and maps (26, r, P) of ``_side_units``.

    They depend on the encoding alone, so the networks of a bot share one factoring (a pseudo-inverse per slot).
    """
    table = get_encoding(name).slot_table.reshape(26, VALUES, -1)
    sides = []
    for rows in (slice(16, VALUES), slice(14, None, -1)):  # n = 1..15 of the side on roll, of the other
        units, maps = _side_units(table, rows)
        sides.append((units.reshape(26 * 16, -1).astype(np.float32), maps))
    return tuple(sides)


_SIDE_ROWS = np.arange(26, dtype=np.int64) * 16  # row slot * 16 + n of a side's unit table
_KEY_POWERS = 16 ** np.arange(13, dtype=np.int64)  # 13 slots of 0..15 in one exact int64 key


class _FirstLayer:
    """The first layer's pre-activation from boards, factored by side (see the module docstring).

    ``units[side]`` (26 * 16, r) holds a side's units by row ``slot * 16 + n`` (n of that
    side's checkers on the slot), ``weights[side]`` (26 * r, H) the first layer's rows for
    them; the other side's rows are followed by the global features' rows. Each distinct
    side on roll is multiplied once, with the bias.
    """

    def __init__(self, encoding: Encoding, weight: np.ndarray, bias: np.ndarray) -> None:
        slot_weight = weight[:, : encoding.slot_size].T
        self.units, self.weights = [], []
        for units, maps in _encoding_units(encoding.name):
            self.units.append(units)
            self.weights.append((maps @ slot_weight).reshape(-1, weight.shape[0]).astype(np.float32))
        self.weights[1] = np.concatenate([self.weights[1], weight[:, encoding.slot_size :].T]).astype(np.float32)
        self.encoding = encoding
        self.bias = bias.astype(np.float32)
        self._weight, self._bias = weight, bias  # float64, for the embedding bag's tables

    def __call__(self, boards: np.ndarray) -> np.ndarray:
        bag = kernel("embedding_bag", len(boards))
        if bag is not None:
            x = np.empty((len(boards), len(self.bias)), dtype=np.float32)
            bag(*self.bag_inputs(boards), x)
            return x
        on_roll = np.maximum(boards, 0)
        first, group = _distinct_rows(on_roll)
        shared = np.take(self.units[0], on_roll[first] + _SIDE_ROWS, axis=0).reshape(len(first), -1) @ self.weights[0]
        shared += self.bias
        other = np.take(self.units[1], np.maximum(np.negative(boards, dtype=np.int64), 0) + _SIDE_ROWS, axis=0)
        features = np.concatenate([other.reshape(len(boards), -1), self.encoding.global_features(boards)], axis=1)
        x = features @ self.weights[1]
        x += np.take(shared, group, axis=0)
        return x

    def bag_inputs(self, boards: np.ndarray) -> tuple[np.ndarray, ...]:
        """The compiled first layer's inputs for ``boards`` (B, 26): boards as int8, the slot-value table, the
        global features, their rows and the bias (``bot.evaluation.kernels.embedding_bag``)."""
        table, global_weight, bias = self._bag_weights
        features = np.ascontiguousarray(self.encoding.global_features(boards), dtype=np.float32)
        return np.ascontiguousarray(boards, dtype=np.int8), table, features, global_weight, bias

    @functools.cached_property
    def _bag_weights(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The embedding bag's (26 * 31, H) slot-value rows, (G, H) global rows and bias.

        Empty slots' rows are folded into the bias, so the kernel skips empty slots.
        """
        slots = self.encoding.slot_size
        table = self.encoding.slot_table.astype(np.float64) @ self._weight[:, :slots].T
        empty = np.arange(26) * VALUES + 15
        bias = self._bias + table[empty].sum(axis=0)
        table[empty] = 0.0
        return (
            np.ascontiguousarray(table, dtype=np.float32),
            np.ascontiguousarray(self._weight[:, slots:].T, dtype=np.float32),
            bias.astype(np.float32),
        )


def _offset(activation: str) -> np.float32:
    """The constant that ``_activate(..., offset=False)`` leaves out: 1 for a sigmoid, else 0.

    float32: a Python float would compile the output kernel's loop in float64, at half speed.
    """
    return np.float32(1.0 if activation == "sigmoid" else 0.0)


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, group): the first index of each distinct row of ``rows`` (B, 26) in 0..15, and each row's group.

    Cheap where a batch has few distinct rows, in runs: the side on roll of the afterstates
    of one position changes only by hit checkers. Runs of equal rows first, then a sort of
    their exact keys.
    """
    run_start = np.ones(len(rows), dtype=bool)
    run_start[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    starts = np.flatnonzero(run_start)
    keys = rows[starts].reshape(len(starts), 2, 13).astype(np.int64) @ _KEY_POWERS
    order = np.lexsort((keys[:, 1], keys[:, 0]))
    new = np.ones(len(order), dtype=bool)
    new[1:] = (keys[order[1:]] != keys[order[:-1]]).any(axis=1)
    group_of_run = np.empty(len(order), dtype=np.int64)
    group_of_run[order] = np.cumsum(new) - 1
    return starts[order[new]], group_of_run[np.cumsum(run_start) - 1]


class Network:
    """A trained value network for inference: boards seen by the side on roll -> that side's five.

    ``weights`` maps torch's ``state_dict`` names to arrays of ``weight_shapes(config)``.
    Sigmoid layers are served as 2 * sigmoid(z) = 1 + tanh(z / 2), two passes instead of
    four: a layer's weights and bias are halved, and so are the next layer's weights.
    (Not tanh alone: the next layer's bias would take half its row sums, and its float32
    sums would lose the small logits in the cancellation of big terms.)
    """

    def __init__(self, config: NetworkConfig, weights: Mapping[str, np.ndarray]) -> None:
        self.config = config
        self.encoding = get_encoding(config.encoding)
        names = [f"hidden_layers.{i}" for i in range(len(config.hidden))] + ["output_layer"]
        # Looked up now (a missing one fails here), prepared for serving when first used (``_served``).
        self._weights = [(weights[f"{name}.weight"], weights[f"{name}.bias"]) for name in names]

    @functools.cached_property
    def _served(self) -> tuple[tuple[np.ndarray, np.ndarray], list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
        """(the first layer's float64 weight and bias, each later layer's float32 weight.T and bias, the output
        layer's (6, H) float32 rows for the compiled layer), prepared when first used: a bot loads four networks,
        and a hint may use one."""
        layers = [
            (np.asarray(weight, dtype=np.float64), np.asarray(bias, dtype=np.float64)) for weight, bias in self._weights
        ]
        if self.config.activation == "sigmoid":  # served as 1 + tanh(z / 2): see the class docstring
            for i in range(len(layers) - 1):
                weight, bias = layers[i]
                layers[i] = (weight / 2.0, bias / 2.0)
                after, after_bias = layers[i + 1]
                layers[i + 1] = (after / 2.0, after_bias)
        later = [
            (np.ascontiguousarray(weight.T, dtype=np.float32), bias.astype(np.float32)) for weight, bias in layers[1:]
        ]
        return layers[0], later, np.ascontiguousarray(layers[-1][0], dtype=np.float32)

    @functools.cached_property
    def _first(self) -> _FirstLayer:
        """The first layer, factored when first used: a bot loads four networks, and a hint may use one."""
        return _FirstLayer(self.encoding, *self._served[0])

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(B, 5) float32 [win, wg, wbg, lg, lbg] of the side on roll of each board (B, 26).

        Big batches go in chunks of ``CHUNK`` boards, whose working arrays stay in cache.
        Clipped to [0, 1]: float32 sums of the six may stray past the ends by a rounding error.
        """
        boards = np.asarray(boards)
        if len(boards) > CHUNK:
            return np.concatenate([self._probabilities(boards[i : i + CHUNK]) for i in range(0, len(boards), CHUNK)])
        return self._probabilities(boards)

    def _probabilities(self, boards: np.ndarray) -> np.ndarray:
        activation = self.config.activation
        _, layers, output_rows = self._served
        whole = kernel("tanh_network", len(boards)) if len(layers) == 1 and activation in ("sigmoid", "tanh") else None
        if whole is not None:
            five = np.empty((len(boards), 5), dtype=np.float32)
            whole(*self._first.bag_inputs(boards), _offset(activation), output_rows, layers[0][1], _CUMULATIVE, five)
            return five
        x = self._first(boards)
        for weight, bias in layers[:-1]:
            x = _activate(x, activation) @ weight + bias
        weight, bias = layers[-1]
        output = kernel("output_probabilities", len(boards))
        if output is not None:
            five = np.empty((len(boards), 5), dtype=np.float32)
            output(_activate(x, activation, offset=False), _offset(activation), output_rows, bias, _CUMULATIVE, five)
            return five
        z = _activate(x, activation) @ weight + bias
        z -= z.max(axis=1, keepdims=True)
        six = np.exp(z, out=z)
        six /= six.sum(axis=1, keepdims=True)
        return np.clip(six @ CUMULATIVE, 0.0, 1.0).astype(np.float32, copy=False)
