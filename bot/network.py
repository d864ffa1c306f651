"""The value network: a position (side on roll) -> the five cumulative probabilities.

The output layer is a softmax over the six outcomes of ``bot.outcomes`` (win
single/gammon/backgammon, lose single/gammon/backgammon), summed into
[win, win gammon, win bg, lose gammon, lose bg] of the side on roll, so the five
are consistent by construction (bg <= gammon <= win).

The first layer is a linear map of the dense encoding, computed the fast way: one
embedding-bag over the rows of ``slot_table @ W_slot.T`` (26 lookups per position
instead of a matmul over ~200 inputs) and of ``W_global.T`` weighted by the global
features (a tiny matmul with K = G is several times slower on CPU).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from bot.encoding import get_encoding, slot_indices
from bot.outcomes import CUMULATIVE

ACTIVATIONS = {"sigmoid": torch.sigmoid, "relu": torch.relu, "tanh": torch.tanh, "elu": F.elu}


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
            raise ValueError(
                f"network.activation {self.activation!r}: unknown, expected one of {sorted(ACTIVATIONS)}"
            )

    def to_dict(self) -> dict:
        """Plain data (lists, strings) for checkpoints and TOML."""
        data = asdict(self)
        data["hidden"] = list(self.hidden)
        return data


class ValueNetwork(nn.Module):
    """Maps boards seen by the side on roll to that side's outcome probabilities."""

    def __init__(self, config: NetworkConfig) -> None:
        super().__init__()
        self.config = config
        self.encoding = get_encoding(config.encoding)
        self.register_buffer("slot_table", torch.from_numpy(self.encoding.slot_table), persistent=False)
        first = config.hidden[0]
        self.slot_layer = nn.Linear(self.encoding.slot_size, first)
        self.global_layer = nn.Linear(self.encoding.global_size, first, bias=False)
        sizes = config.hidden
        self.hidden_layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.output_layer = nn.Linear(sizes[-1], 6)
        self.activation = ACTIVATIONS[config.activation]
        self.register_buffer("cumulative", torch.from_numpy(CUMULATIVE), persistent=False)
        first_global_row = self.encoding.slot_table.shape[0]
        self._global_rows = np.arange(first_global_row, first_global_row + self.encoding.global_size)

    def inputs(self, boards: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """Embedding-bag inputs of boards (B, 26) seen by the side on roll.

        Returns (rows (B, 26 + G) int64, weights (B, 26 + G) float32): the 26 slot rows of
        the slot table with weight 1, then the G global-feature rows weighted by the
        feature values.
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
        """Logits (B, 6) of the six outcomes for the side on roll, from ``inputs``."""
        table = torch.cat([self.slot_table @ self.slot_layer.weight.T, self.global_layer.weight.T])
        x = F.embedding_bag(rows, table, mode="sum", per_sample_weights=weights) + self.slot_layer.bias
        x = self.activation(x)
        for layer in self.hidden_layers:
            x = self.activation(layer(x))
        return self.output_layer(x)

    def dense_forward(self, features: torch.Tensor) -> torch.Tensor:
        """Logits (B, 6) from dense encoded features (B, F): the same map, computed as matmuls."""
        slot_part = features[:, : self.encoding.slot_size]
        global_part = features[:, self.encoding.slot_size :]
        x = self.activation(self.slot_layer(slot_part) + self.global_layer(global_part))
        for layer in self.hidden_layers:
            x = self.activation(layer(x))
        return self.output_layer(x)

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(B, 5) float32 [win, wg, wbg, lg, lbg] of the side on roll of each board (B, 26)."""
        with torch.inference_mode():
            six = torch.softmax(self(*self.inputs(boards)), dim=1)
            return (six @ self.cumulative).numpy()
