"""The learner: fits the network to self-play positions' TD(lambda) targets with minibatches.

On a GPU (``[learning] device``) the learner trains a copy of the network there and copies
the weights back into the given (CPU) network after every pass, so that self-play,
evaluation and checkpoints never see a GPU tensor.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch

from training.torch_network import ValueNetwork
from training.config import ConfigError, LearningConfig
from training.selfplay import Samples


def target_loss(network: ValueNetwork, logits: torch.Tensor, targets: torch.Tensor, kind: str) -> torch.Tensor:
    """Mean loss of logits (B, 6) against target outcome distributions (B, 6).

    ``cross_entropy``: of the six-outcome softmax against the targets;
    ``mse``: squared error of the five cumulative probabilities.
    """
    if kind == "cross_entropy":
        return -(targets * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    predicted = torch.softmax(logits, dim=1) @ network.cumulative
    return ((predicted - targets @ network.cumulative) ** 2).sum(dim=1).mean()


def learner_device(name: str) -> torch.device:
    """The torch device of ``[learning] device``: "cpu", "cuda", or "auto" (cuda if torch sees one)."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError(
            "config key 'learning.device': 'cuda' asked for, but torch sees no CUDA GPU "
            f"(torch {torch.__version__}, built for CUDA {torch.version.cuda or 'none'}); use 'cpu' or 'auto'"
        )
    return torch.device(name)


class Learner:
    """Owns the network's optimizer; ``train`` makes one pass over a batch of samples.

    ``network`` stays where it is (the CPU); with another ``device`` the steps run on a
    copy there (``self.network``) and ``train`` copies the new weights back into ``network``.
    """

    def __init__(
        self,
        network: ValueNetwork,
        config: LearningConfig,
        rng: np.random.Generator,
        device: torch.device | None = None,
    ) -> None:
        here = next(network.parameters()).device
        self.host = network
        self.device = device if device is not None else here
        self.network = network if self.device == here else copy.deepcopy(network).to(self.device)
        self.config = config
        self.rng = rng
        self.optimizer: torch.optim.Optimizer
        if config.optimizer == "adam":
            self.optimizer = torch.optim.Adam(network.parameters(), lr=config.learning_rate)
        else:
            self.optimizer = torch.optim.SGD(network.parameters(), lr=config.learning_rate)
        self.steps = 0

    def schedule(self, progress: float) -> None:
        """Set the learning rate for a run that is ``progress`` (0..1) done: log-linear decay."""
        rate = self.config.learning_rate * self.config.final_learning_rate_fraction ** min(progress, 1.0)
        for group in self.optimizer.param_groups:
            group["lr"] = rate

    def train(self, samples: Samples) -> float:
        """One shuffled pass of minibatch steps over ``samples``; the mean loss."""
        order = self.rng.permutation(len(samples))
        size = self.config.batch_size
        losses = []
        self.network.train()
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            rows, weights = self.network.inputs(samples.boards[batch])
            logits = self.network(rows.to(self.device), weights.to(self.device))
            targets = torch.from_numpy(samples.targets[batch]).to(self.device)
            loss = target_loss(self.network, logits, targets, self.config.loss)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.detach())
            self.steps += 1
        if self.network is not self.host:
            with torch.no_grad():
                host = self.host.state_dict()
                for name, value in self.network.state_dict().items():
                    host[name].copy_(value)
        return float(np.mean(torch.stack(losses).cpu().numpy().astype(np.float64)))  # one sync, not one per step

    def state_dict(self) -> dict[str, Any]:
        """Optimizer state, step count and shuffling generator, for checkpoints."""
        return {"optimizer": self.optimizer.state_dict(), "steps": self.steps, "rng": self.rng.bit_generator.state}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""
        self.optimizer.load_state_dict(state["optimizer"])
        self.steps = state["steps"]
        self.rng.bit_generator.state = state["rng"]
