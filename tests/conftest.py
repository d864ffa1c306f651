"""Shared test helpers: where the read-only shared material lives, and fixture loading."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("NARDY_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def load_fixture(name: str) -> list[dict]:
    """The records of ``SHARED/fixtures/<name>`` (a .jsonl file), one dict per line."""
    path = SHARED / "fixtures" / name
    if not path.exists():
        pytest.skip(f"fixture {path} not found (set NARDY_SHARED)")
    with path.open() as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture
def shared_dir() -> Path:
    """The shared reference directory (``../shared`` beside the repo, or $NARDY_SHARED)."""
    return SHARED
