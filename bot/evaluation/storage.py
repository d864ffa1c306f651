"""Files written whole or not at all: checkpoints, bear-off databases, metadata.

A file is written to a temporary ``.NAME.*.tmp`` beside its target, flushed to disk,
then renamed over the target, so a crash never leaves a half-written file; a process
killed mid-write leaves only the temporary, which ``remove_stale_temporaries`` clears.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

from engine.compiled import cache_dir  # noqa: F401  (the project's cache folder, shared with the engine)


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb") -> Iterator[IO[Any]]:
    """A file to write ``path``'s new content to; it replaces ``path`` only once the block ends well.

    The temporary file (``.NAME.*.tmp`` beside ``path``) is flushed to disk before the
    rename and removed if the block raises.
    """
    import tempfile  # here: a program that only reads (a cold hint) need not load it

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, mode) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes it private; the file is for every user
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_stale_temporaries(directory: str | os.PathLike) -> list[Path]:
    """Delete the temporary files ``atomic_write`` left in ``directory`` when a process was killed mid-write."""
    stale = sorted(Path(directory).glob(".*.tmp"))
    for path in stale:
        path.unlink(missing_ok=True)
    return stale


def warn(message: str) -> None:
    """One ``nardy: MESSAGE`` line on stderr: a cache rebuilt or not kept, which the user should know but need not
    act on."""
    print(f"nardy: {message}", file=sys.stderr, flush=True)
