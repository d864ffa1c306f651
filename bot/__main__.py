"""``python -m bot`` and the ``nardy`` console script: see ``bot.doors.cli``."""

from __future__ import annotations

import sys
from typing import Optional

from bot.doors.cli import inference_threads, run


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command line ``argv`` (default: the process's arguments); return the exit status.

    Every subcommand (hint, eval, play, match, and the external and HTTP servers) runs with
    the BLAS threads of ``bot.doors.cli.inference_threads``, set here where the process starts
    (tests call ``bot.doors.cli.run`` in a shared process).
    """
    with inference_threads():
        return run(argv)


if __name__ == "__main__":
    sys.exit(main())
