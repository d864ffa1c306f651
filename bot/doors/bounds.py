"""Bounds of the numbers the front doors accept, in one place for the command line and the HTTP API.

Every numeric command-line option is declared with ``Bounded`` (``action=Bounded, low=..,
high=..``): argparse parses it as an integer and ``engine.errors.check_range`` refuses a value
out of its bounds with ``InvalidOptionError`` naming the option, before any work starts
(``bot.doors.cli.run`` prints it as one ``error:`` line). The HTTP API states the shared bounds
(``MAX_SEED``, ``MAX_MATCH_LENGTH``) in its query models.
"""

from __future__ import annotations

import argparse
from typing import Any, Optional, Sequence

from bot.equity.met import default_met
from engine.errors import check_range

# A random seed: numpy takes any non-negative integer; 63 bits keep it one signed 64-bit
# integer in JSON, logs and .mat comments.
MAX_SEED = 2**63 - 1
# A match past the match equity table's reach cannot be played: its cube decisions need the table.
MAX_MATCH_LENGTH = default_met().size
# Matches of ``nardy match``, or games of a money session.
MAX_GAMES = 1_000_000
# Rollout trials on the command line. All trials advance together (``bot.search.rollout``), so memory
# grows with trials x candidates; the bounds keep a rollout within a desktop's memory.
MAX_TRIALS = 100_000
MAX_CANDIDATES = 32
# Plies before a rollout trial stops to evaluate; beyond this a trial is a played-out game.
MAX_TRUNCATE = 1_000
# Plays listed by ``nardy hint --top``: a roll has far fewer.
MAX_TOP = 10_000
MAX_PORT = 65_535  # 0 lets the system choose a free port


class Bounded(argparse.Action):
    """An integer option within ``low..high`` (both included), checked as it is parsed.

    Out of bounds raises ``InvalidOptionError`` from ``parse_args``, naming the option, the
    value and the bounds; the help text gets the bounds appended.
    """

    def __init__(self, option_strings: Sequence[str], dest: str, low: int, high: int, **kwargs: Any) -> None:
        kwargs.setdefault("type", int)
        kwargs["help"] = f"{kwargs.get('help') or ''} [{low}..{high}]".lstrip()
        super().__init__(option_strings, dest, **kwargs)
        self.low, self.high = low, high

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: Optional[str] = None,
    ) -> None:
        name = option_string or self.metavar or self.dest
        setattr(namespace, self.dest, check_range(str(name), values, self.low, self.high))
