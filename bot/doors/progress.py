"""A progress bar for long command-line work: tqdm on stderr when it is a terminal, nothing otherwise.

Used by ``nardy rollout`` (trials) and ``nardy analyze`` (decisions, file by file), also with ``--json``:
the bar goes to stderr, the answer to stdout, and a pipe or a file gets no bar.
"""

from __future__ import annotations

from typing import TextIO


class ProgressBar:
    """A tqdm bar counting ``unit``s done out of a total, or nothing when ``stream`` is not a terminal."""

    def __init__(self, stream: TextIO, unit: str) -> None:
        self.bar = None
        if stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=0, unit=unit, file=stream, leave=False)

    def __call__(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.total = total
            self.bar.n = done
            self.bar.refresh()

    def describe(self, text: str) -> None:
        """Show ``text`` before the bar (the file being worked on)."""
        if self.bar is not None:
            self.bar.set_description_str(text)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
