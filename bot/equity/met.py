"""Match equity table: the chance of winning the match from a score.

Backgammon's table is GNU Backgammon's default, Kazaross-XG2 (``bot/data/met_kazaross_xg2.json``);
long nardy's (``met_for("long")``, ``bot/data/met_long_nardy.json``) is built from the long nardy
bot's own mars rate (docs/long_nardy_met.md), in the same layout:
``pre_crawford[i][j]`` is the match-winning chance (MWC) of a player needing
``i + 1`` points against one needing ``j + 1``, cube centred, before the Crawford
game (so ``pre_crawford[0][j]`` is the Crawford game itself);
``post_crawford[k]`` is the MWC of the trailer needing ``k + 1`` against a leader
needing 1 after the Crawford game. Scores are given as "away" counts: the points
each side still needs.

>>> round(mwc(1, 2), 5)
0.67736
>>> mwc(0, 3), mwc(3, 0)
(1.0, 0.0)
>>> round(mwc(2, 1, post_crawford=True), 5)
0.48803
>>> round(met_for("long_nardy").mwc(2, 1, post_crawford=True), 4)
0.4494
"""

from __future__ import annotations

import json
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import InvalidMatchError

if TYPE_CHECKING:
    from engine.variant import Variant

TABLE_FILE = "met_kazaross_xg2.json"
# Long nardy's table, built from the shipped long nardy bot's mars rate (docs/long_nardy_met.md).
LONG_NARDY_TABLE_FILE = "met_long_nardy.json"


@dataclass(frozen=True)
class MatchEquityTable:
    """A pre-Crawford table (N x N) and a post-Crawford row (N), as in the JSON file."""

    name: str
    pre_crawford: np.ndarray
    post_crawford: np.ndarray

    @property
    def size(self) -> int:
        """The largest away count the table covers."""
        return self.pre_crawford.shape[0]

    def mwc(self, away_me: int, away_opp: int, post_crawford: bool = False) -> float:
        """MWC of "me" needing ``away_me`` points against an opponent needing ``away_opp``.

        The value holds at the start of a game with the cube centred. An away count of
        0 or less means that side has already won the match (1.0 or 0.0).
        ``post_crawford``: the Crawford game has been played; it only matters when a
        side needs exactly 1 point, and is an error when neither does.
        """
        if away_me <= 0 and away_opp <= 0:
            raise InvalidMatchError(f"score {away_me}-away, {away_opp}-away: both sides cannot have won")
        if away_me <= 0:
            return 1.0
        if away_opp <= 0:
            return 0.0
        if max(away_me, away_opp) > self.size:
            raise InvalidMatchError(
                f"score {away_me}-away, {away_opp}-away: the {self.name} table covers 1 to {self.size} away"
            )
        if post_crawford:
            if away_opp == 1:
                return float(self.post_crawford[away_me - 1])
            if away_me == 1:
                return 1.0 - float(self.post_crawford[away_opp - 1])
            raise InvalidMatchError(f"score {away_me}-away, {away_opp}-away: post-Crawford needs a side at 1-away")
        return float(self.pre_crawford[away_me - 1, away_opp - 1])


def _load(name: str) -> MatchEquityTable:
    # pkgutil, not importlib.resources: the same package data through the package's loader, for a fraction
    # of the cost at a cold start (the command line's bounds read the table's size).
    raw = pkgutil.get_data("bot", f"data/{name}")
    if raw is None:  # a loader that cannot read data files
        raise FileNotFoundError(f"{name}: not readable from the bot package")
    data = json.loads(raw.decode("utf-8"))
    pre = np.asarray(data["pre_crawford"], dtype=np.float64)
    post = np.asarray(data["post_crawford"], dtype=np.float64)
    if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or post.shape != (pre.shape[0],):
        raise InvalidMatchError(f"{name}: expected an N x N pre-Crawford table and an N post-Crawford row")
    return MatchEquityTable(data.get("name", name), pre, post)


@lru_cache(maxsize=None)
def default_met() -> MatchEquityTable:
    """The project's backgammon table (Kazaross-XG2), loaded once from the package data."""
    return _load(TABLE_FILE)


@lru_cache(maxsize=None)
def _long_nardy_met() -> MatchEquityTable:
    return _load(LONG_NARDY_TABLE_FILE)


def met_for(variant: str | Variant) -> MatchEquityTable:
    """The table of a game, by its ``Variant`` or any name ``engine.variant.find_variant`` knows: backgammon's
    ``default_met``, or long nardy's (``met_long_nardy.json``); InvalidOptionError for an unknown name."""
    from engine.variant import find_variant

    name = find_variant(variant).name if isinstance(variant, str) else variant.name
    return _long_nardy_met() if name == "long_nardy" else default_met()


def mwc(away_me: int, away_opp: int, post_crawford: bool = False) -> float:
    """MWC of the default table; see ``MatchEquityTable.mwc``."""
    return default_met().mwc(away_me, away_opp, post_crawford)
