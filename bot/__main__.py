"""``python -m bot`` and the ``nardy`` console script: see ``bot.cli``."""

from __future__ import annotations

import sys
from typing import Optional

import torch

from bot.cli import INFERENCE_THREADS, run


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command line ``argv`` (default: the process's arguments); return the exit status.

    The process's torch threads are set here, where the process starts (see ``INFERENCE_THREADS``).
    """
    torch.set_num_threads(INFERENCE_THREADS)
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
