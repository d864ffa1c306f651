"""The learner: fits the network to self-play positions' TD(lambda) targets with minibatches."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from training.network import ValueNetwork
from training.config import LearningConfig
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


class Learner:
    """Owns the network's optimizer; ``train`` makes one pass over a batch of samples."""

    def __init__(self, network: ValueNetwork, config: LearningConfig, rng: np.random.Generator) -> None:
        self.network = network
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
            logits = self.network(*self.network.inputs(samples.boards[batch]))
            loss = target_loss(self.network, logits, torch.from_numpy(samples.targets[batch]), self.config.loss)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.item())
            self.steps += 1
        return float(np.mean(losses))

    def state_dict(self) -> dict[str, Any]:
        """Optimizer state, step count and shuffling generator, for checkpoints."""
        return {"optimizer": self.optimizer.state_dict(), "steps": self.steps, "rng": self.rng.bit_generator.state}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""
        self.optimizer.load_state_dict(state["optimizer"])
        self.steps = state["steps"]
        self.rng.bit_generator.state = state["rng"]
