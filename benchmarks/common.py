"""What the benchmarks share: the repository's paths, the bar's fixtures, and GNU Backgammon's board layout."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# The bar's shared files (fixtures with GNU Backgammon's answers, the match equity table), beside the checkout.
SHARED = Path(os.environ.get("NARDY_SHARED", ROOT.parent / "shared"))
FIXTURES = SHARED / "fixtures"
DEFAULT_CHECKPOINT = ROOT / "checkpoints" / "default.pt"


def load_records(path: Path) -> list[dict]:
    """A .jsonl fixture's records, one dict per line."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def gnubg_board(board: np.ndarray) -> list[list[int]]:
    """Our board (side on roll's view) as gnubg's 2 x 25 lists: [opponent, side on roll], bar last."""
    on_roll = [max(int(board[i]), 0) for i in range(1, 25)] + [int(board[25])]
    opponent = [max(-int(board[25 - k]), 0) for k in range(1, 25)] + [-int(board[0])]
    return [opponent, on_roll]
