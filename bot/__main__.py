"""``python -m bot`` and the ``nardy`` console script: see ``bot.cli``."""

from __future__ import annotations

import sys
from typing import Optional

from bot.cli import run


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command line ``argv`` (default: the process's arguments); return the exit status."""
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
