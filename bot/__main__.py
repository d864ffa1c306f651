"""``python -m bot`` and the ``nardy`` console script: see ``bot.doors.cli``."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Optional

# Every subcommand runs BLAS on ``bot.doors.cli.INFERENCE_THREADS`` threads (one), but numpy's OpenBLAS starts
# a thread per core when it loads, and they spin a while: a cold command line pays for threads it never uses.
# So OpenBLAS starts on that count here, where the process starts (unless the environment names one), and the
# variable is put back at once: processes a command starts see the environment it was given.
START_BLAS_THREADS = "1"
_given = os.environ.get("OPENBLAS_NUM_THREADS")
_numpy_loaded = "numpy" in sys.modules
os.environ.setdefault("OPENBLAS_NUM_THREADS", START_BLAS_THREADS)
try:
    import numpy

    from bot.doors.cli import inference_threads, run
finally:
    if _given is None:
        del os.environ["OPENBLAS_NUM_THREADS"]
# Whether numpy's BLAS started here on the inference threads' count (an OpenBLAS, as numpy's wheels have, reads
# the variable as it loads): then there is nothing left to limit, and the command need not load threadpoolctl.
BLAS_STARTS_HERE = (
    _given is None
    and not _numpy_loaded
    and "openblas" in str(numpy.__config__.CONFIG.get("Build Dependencies", {}).get("blas", {}).get("name", ""))
)


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command line ``argv`` (default: the process's arguments); return the exit status.

    Every subcommand (hint, eval, play, match, and the external and HTTP servers) runs with
    the BLAS threads of ``bot.doors.cli.inference_threads``: started on that count where the
    process starts here, else set around the command (tests call ``bot.doors.cli.run`` and
    this in a shared process).
    """
    warnings.showwarning = _one_line
    if BLAS_STARTS_HERE:
        return run(argv)
    with inference_threads():
        return run(argv)


def _one_line(message: Warning | str, category: type[Warning], *where: Any, **more: Any) -> None:
    """A warning of the engine's (a compile, a cache rebuilt) as one ``nardy: MESSAGE`` line on stderr, as the
    doors' own notices are, not Python's two lines of source."""
    print(f"nardy: {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
