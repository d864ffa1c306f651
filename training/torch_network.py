"""The value network in torch, for training: the same map as ``bot.evaluation.network.Network``.

Outputs as in ``bot.evaluation.network``: a softmax over the six outcomes, summed into the
five probabilities of the side on roll. The weights' names (``state_dict``) are the
ones ``bot.evaluation.network.weight_shapes`` lists, so serving reads what training writes.

The first layer is a linear map of the dense encoding (``bot.evaluation.encoding``). For big
batches it is computed as one embedding-bag over the rows of ``input_table @ W.T``:
26 slot lookups plus G weighted global rows per position instead of a matmul over
~200 inputs (several times faster at self-play batch sizes).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from bot.evaluation.checkpoint import checked_weights
from bot.evaluation.encoding import get_encoding, slot_indices
from bot.evaluation.network import NetworkConfig
from bot.equity.outcomes import CUMULATIVE
from training.config import ConfigError

TABLE_BATCH = 1024  # from this batch size on, inference folds the first layer into the embedding-bag
ACTIVATIONS = {"sigmoid": torch.sigmoid, "relu": torch.relu, "tanh": torch.tanh, "elu": F.elu}


class ValueNetwork(nn.Module):
    """Maps boards seen by the side on roll to that side's outcome probabilities."""

    # Buffers, registered in __init__.
    input_table: torch.Tensor
    cumulative: torch.Tensor

    def __init__(self, config: NetworkConfig) -> None:
        super().__init__()
        self.config = config
        self.encoding = get_encoding(config.encoding)
        slots, size = self.encoding.slot_table.shape[0], self.encoding.size
        # Rows of the embedding-bag: one per (slot, value) with its slot features, then one
        # per global feature with a 1 in that feature's column. Dense features = the bag's sum.
        table = np.zeros((slots + self.encoding.global_size, size), dtype=np.float32)
        table[:slots, : self.encoding.slot_size] = self.encoding.slot_table
        table[slots:, self.encoding.slot_size :] = np.eye(self.encoding.global_size)
        self.register_buffer("input_table", torch.from_numpy(table), persistent=False)
        self._global_rows = np.arange(slots, slots + self.encoding.global_size)
        sizes = (size,) + config.hidden
        self.hidden_layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.output_layer = nn.Linear(sizes[-1], 6)
        self.activation = ACTIVATIONS[config.activation]
        self.register_buffer("cumulative", torch.from_numpy(CUMULATIVE), persistent=False)

    def inputs(self, boards: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """Embedding-bag inputs of boards (B, 26) seen by the side on roll.

        Returns (rows (B, 26 + G) int64, weights (B, 26 + G) float32): the 26 slot rows
        with weight 1, then the G global-feature rows weighted by the feature values.
        """
        boards = np.asarray(boards)
        count = len(boards)
        rows = np.empty((count, 26 + self.encoding.global_size), dtype=np.int64)
        rows[:, :26] = slot_indices(boards)
        rows[:, 26:] = self._global_rows
        weights = np.ones(rows.shape, dtype=np.float32)
        weights[:, 26:] = self.encoding.global_features(boards)
        return torch.from_numpy(rows), torch.from_numpy(weights)

    def forward(self, rows: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        """Logits (B, 6) of the six outcomes for the side on roll, from ``inputs``.

        Big inference batches fold the first layer into the bag (``input_table @ W.T``,
        then 26 + G row sums of H values per position); small batches, and training
        (whose backward pass through the folded table is slow), build the dense features
        and multiply.
        """
        first = self.hidden_layers[0]
        assert isinstance(first, nn.Linear)  # every hidden layer is; ModuleList types its items as Module
        if len(rows) >= TABLE_BATCH and not torch.is_grad_enabled():
            table = self.input_table @ first.weight.T
            x = F.embedding_bag(rows, table, mode="sum", per_sample_weights=weights) + first.bias
        else:
            x = first(F.embedding_bag(rows, self.input_table, mode="sum", per_sample_weights=weights))
        return self._rest(x)

    def dense_forward(self, features: torch.Tensor) -> torch.Tensor:
        """Logits (B, 6) from dense encoded features (B, F) (``Encoding.encode``): the same map."""
        return self._rest(self.hidden_layers[0](features))

    def _rest(self, x: torch.Tensor) -> torch.Tensor:
        """The layers after the first one's pre-activation ``x``."""
        x = self.activation(x)
        for layer in self.hidden_layers[1:]:
            x = self.activation(layer(x))
        return self.output_layer(x)

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(B, 5) float32 [win, wg, wbg, lg, lbg] of the side on roll of each board (B, 26).

        Clipped to [0, 1]: float32 sums of the six may stray past the ends by a rounding error.
        """
        with torch.inference_mode():
            six = torch.softmax(self(*self.inputs(boards)), dim=1)
            return (six @ self.cumulative).clamp_(0.0, 1.0).numpy()


def widen(network: ValueNetwork, hidden: int, seed: int = 0) -> ValueNetwork:
    """A copy of a one-hidden-layer ``network`` with ``hidden`` units computing the same map.

    The new units get small random input weights and zero output weights, so they start
    silent and learn from the first gradient step (their output weights' gradients are not zero).
    """
    old = network.config.hidden
    if len(old) != 1 or hidden < old[0]:
        raise ConfigError(
            f"widen to {hidden} hidden units: needs one hidden layer of at most that many (has {list(old)})"
        )
    wide = ValueNetwork(NetworkConfig(network.config.encoding, (hidden,), network.config.activation))
    generator = torch.Generator().manual_seed(seed)
    first, output = network.hidden_layers[0], network.output_layer
    assert isinstance(first, nn.Linear)
    with torch.no_grad():
        new_first = wide.hidden_layers[0]
        assert isinstance(new_first, nn.Linear)
        scale = float(first.weight.std())
        new_first.weight.copy_(torch.randn(new_first.weight.shape, generator=generator) * 0.1 * scale)
        new_first.weight[: old[0]] = first.weight
        new_first.bias.zero_()
        new_first.bias[: old[0]] = first.bias
        wide.output_layer.weight.zero_()
        wide.output_layer.weight[:, : old[0]] = output.weight
        wide.output_layer.bias.copy_(output.bias)
    return wide


def reencode(network: ValueNetwork, encoding: str) -> ValueNetwork:
    """A copy of ``network`` on an encoding that extends its own, computing the same map.

    The new encoding must have the same slot features and every global feature of the old
    one (by name: ``contact`` extends ``extended`` and ``hits``); each old column's weights
    move to the new column of its name, and the inputs it adds start with zero weights.
    """
    old, new = network.encoding, get_encoding(encoding)
    missing = [name for name in old.global_names if name not in new.global_names]
    if not np.array_equal(old.slot_table, new.slot_table) or missing:
        reason = f"lacks its global features {missing}" if missing else "has other slot features"
        raise ConfigError(f"encoding {encoding!r} does not extend {old.name!r}: it {reason}")
    wider = ValueNetwork(NetworkConfig(encoding, network.config.hidden, network.config.activation))
    state = network.state_dict()
    first = state["hidden_layers.0.weight"]
    weight = torch.zeros((first.shape[0], new.size), dtype=first.dtype)
    columns = list(range(old.slot_size)) + [new.slot_size + new.global_names.index(name) for name in old.global_names]
    weight[:, columns] = first
    wider.load_state_dict({**state, "hidden_layers.0.weight": weight})
    return wider


def grows_into(old: NetworkConfig, new: NetworkConfig) -> bool:
    """Whether ``grown_to`` can turn a network of shape ``old`` into one of shape ``new`` (and they differ)."""
    before, after = get_encoding(old.encoding), get_encoding(new.encoding)
    same_slots = np.array_equal(before.slot_table, after.slot_table)
    extends = same_slots and set(before.global_names) <= set(after.global_names)
    wider = len(old.hidden) == len(new.hidden) == 1 and new.hidden[0] >= old.hidden[0]
    return old != new and extends and (wider or old.hidden == new.hidden) and old.activation == new.activation


def grown_to(network: ValueNetwork, config: NetworkConfig, seed: int = 0) -> ValueNetwork:
    """``network`` computing the same map in the shape of ``config``: reencoded to an encoding that extends its own
    (``reencode``), widened to more hidden units (``widen``); ConfigError when ``config`` is no such growth."""
    if config.encoding != network.config.encoding:
        network = reencode(network, config.encoding)
    if config.hidden != network.config.hidden:
        network = widen(network, config.hidden[0], seed) if len(config.hidden) == 1 else network
    if network.config != config:
        raise ConfigError(f"a {network.config} network cannot grow into {config}")
    return network


def network_from_payload(
    payload: dict[str, Any], expected: NetworkConfig | None = None, source: str = "checkpoint"
) -> ValueNetwork:
    """Rebuild the torch network of a checkpoint payload, checking its shape against ``expected``."""
    config, weights = checked_weights(payload, source, expected)
    network = ValueNetwork(config)
    network.load_state_dict(
        {name: torch.from_numpy(np.array(array, dtype=np.float32)) for name, array in weights.items()}
    )
    return network
