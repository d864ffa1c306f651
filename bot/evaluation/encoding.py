"""Input encodings of boards for the value network, named so that a config picks one.

An encoding turns a batch of boards (B, 26) int8, seen by the side on roll, into
float32 features (B, F). Every encoding here has two parts:

- slot features: each of the 26 board entries ("slots") contributes a feature
  vector that depends only on its own value -15..15 (Tesauro's units, pips,
  checkers back...). They are a table ``slot_table`` of shape (26 * 31, P):
  row ``slot * 31 + value + 15``. The dense features are the sum over slots of
  their rows, so a network's first layer can be computed as an embedding-bag of
  ``slot_table @ W.T`` instead of a matmul over the dense features (``slot_indices``);
- global features (G of them) that are not a sum over slots (race flag,
  rearmost checkers, borne-off fractions), computed by ``global_features``.

The dense vector is ``[slot features (P), global features (G)]``, F = P + G.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from bot.evaluation.compiled import kernel
from bot.evaluation.features import CONTACT_FEATURES, HIT_FEATURES, contact_features, hit_features

VALUES = 31  # a slot holds -15..15
_OFFSETS = np.arange(26, dtype=np.int64) * VALUES + 15  # slot * 31 + (value + 15)
_COUNTS = np.arange(-15, 16)


@dataclass(frozen=True)
class Encoding:
    """A named input encoding: a slot table (26*31, P) and a global-feature function, its columns named."""

    name: str
    slot_table: np.ndarray
    global_features: Callable[[np.ndarray], np.ndarray]
    global_names: tuple[str, ...]
    # The game whose boards it reads (an ``engine.variant.NAMES`` name): a network plays that game only.
    game: str = "backgammon"

    @property
    def global_size(self) -> int:
        """G: the number of global-feature columns."""
        return len(self.global_names)

    @property
    def slot_size(self) -> int:
        """P: the number of slot-feature columns."""
        return self.slot_table.shape[1]

    @property
    def size(self) -> int:
        """F: the length of the dense feature vector."""
        return self.slot_size + self.global_size

    def encode(self, boards: np.ndarray) -> np.ndarray:
        """Dense features (B, F) float32 of boards (B, 26) seen by the side on roll."""
        boards = np.asarray(boards)
        slots = self.slot_table[slot_indices(boards)].sum(axis=1)
        return np.concatenate([slots, self.global_features(boards)], axis=1).astype(np.float32)


def slot_indices(boards: np.ndarray) -> np.ndarray:
    """(B, 26) int64 rows of a slot table: ``slot * 31 + value + 15``."""
    return boards.astype(np.int64) + _OFFSETS


def _tesauro_units(count: np.ndarray) -> np.ndarray:
    """Tesauro's four units of one side's checker count n >= 0: n>=1, n>=2, n>=3, (n-3)/2."""
    return np.stack([count >= 1, count >= 2, count >= 3, np.maximum(count - 3, 0) / 2.0], axis=-1)


def _tesauro_slots() -> np.ndarray:
    """Slot table of Tesauro's encoding: 8 units per point (mover's 4, opponent's 4), bars / 2.

    Columns: point p = 1..24 uses 8*(p-1) .. 8*(p-1)+7; 192 is the mover's bar, 193 the
    opponent's bar.
    """
    table = np.zeros((26, VALUES, 194), dtype=np.float32)
    mover = _tesauro_units(np.maximum(_COUNTS, 0))
    opponent = _tesauro_units(np.maximum(-_COUNTS, 0))
    for point in range(1, 25):
        table[point, :, 8 * (point - 1) : 8 * (point - 1) + 4] = mover
        table[point, :, 8 * (point - 1) + 4 : 8 * point] = opponent
    table[25, :, 192] = np.maximum(_COUNTS, 0) / 2.0
    table[0, :, 193] = np.maximum(-_COUNTS, 0) / 2.0
    return table


def _count_slots() -> np.ndarray:
    """Slot table of linear checker counts: pips / 100, checkers back / 15, checkers home / 15.

    Columns (mover, then opponent): pip counts, checkers on the bar or in the other side's
    home board, checkers in their own home board.
    """
    table = np.zeros((26, VALUES, 6), dtype=np.float32)
    mover = np.maximum(_COUNTS, 0)
    opponent = np.maximum(-_COUNTS, 0)
    for slot in range(26):
        table[slot, :, 0] = mover * slot / 100.0
        table[slot, :, 1] = opponent * (25 - slot) / 100.0
        table[slot, :, 2] = mover * (slot >= 19) / 15.0
        table[slot, :, 3] = opponent * (slot <= 6) / 15.0
        table[slot, :, 4] = mover * (1 <= slot <= 6) / 15.0
        table[slot, :, 5] = opponent * (19 <= slot <= 24) / 15.0
    return table


def _borne_off(boards: np.ndarray) -> np.ndarray:
    """(B, 2): (mover's, opponent's) checkers borne off / 15."""
    mover = np.maximum(boards, 0).sum(axis=1, dtype=np.int32)
    opponent = -np.minimum(boards, 0).sum(axis=1, dtype=np.int32)
    return (15 - np.stack([mover, opponent], axis=1)) / np.float32(15.0)


def rearmost(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mover's, opponent's) rearmost checker, each in its own numbering (25 = bar, 0 = none)."""
    rows = np.arange(len(boards))
    mover = 25 - np.argmax(boards[:, ::-1] > 0, axis=1)  # the highest point holding a mover checker
    opponent = np.argmax(boards < 0, axis=1)  # the lowest point holding an opponent checker
    return (
        np.where(boards[rows, mover] > 0, mover, 0),
        np.where(boards[rows, opponent] < 0, 25 - opponent, 0),
    )


def is_race(boards: np.ndarray) -> np.ndarray:
    """(B,) bool: no contact left (every mover checker is past every opponent checker)."""
    mover, opponent = rearmost(boards)
    return mover + opponent <= 25


def _extended_globals(boards: np.ndarray) -> np.ndarray:
    """(B, 5): borne off (2), race flag, rearmost checkers / 25 (mover, opponent); compiled for big batches."""
    compiled = kernel("extended_globals", len(boards))
    if compiled is not None:
        out = np.empty((len(boards), 5), dtype=np.float32)
        compiled(np.ascontiguousarray(boards, dtype=np.int8), out)
        return out
    mover, opponent = rearmost(boards)
    race = (mover + opponent <= 25).astype(np.float32)
    return np.concatenate(
        [_borne_off(boards), race[:, None], np.stack([mover, opponent], axis=1) / np.float32(25.0)],
        axis=1,
    ).astype(np.float32)


def _contact_globals(boards: np.ndarray) -> np.ndarray:
    """(B, 5 + 48): the "extended" globals, then ``bot.evaluation.features.contact_features`` (both sides)."""
    return np.concatenate([_extended_globals(boards), contact_features(boards)], axis=1)


def _hits_globals(boards: np.ndarray) -> np.ndarray:
    """(B, 5 + 6): the "extended" globals, then ``bot.evaluation.features.hit_features`` (both sides' shots)."""
    return np.concatenate([_extended_globals(boards), hit_features(boards)], axis=1)


def _race_globals(boards: np.ndarray) -> np.ndarray:
    """(B, 11 + 13): the "hits" globals, then ``bot.evaluation.race_features.race_features`` (both sides' rolls)."""
    from bot.evaluation.race_features import race_features

    return np.concatenate([_hits_globals(boards), race_features(boards)], axis=1)


def _race() -> Encoding:
    """The race encoding, its module (and the one-sided database it reads) loaded only for a race network."""
    from bot.evaluation.race_features import RACE_FEATURES

    return Encoding(
        "race",
        _flat(np.concatenate([_tesauro_slots(), _count_slots()], axis=2)),
        _race_globals,
        _EXTENDED_GLOBALS + HIT_FEATURES + RACE_FEATURES,
    )


def _flat(table: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(table.reshape(26 * VALUES, -1))


_BORNE_OFF = ("mover.off", "opponent.off")
_EXTENDED_GLOBALS = _BORNE_OFF + ("race", "mover.rearmost", "opponent.rearmost")


def _long_nardy() -> Encoding:
    """Long nardy's encoding, its module imported only for a long nardy network."""
    from bot.evaluation import long_nardy_encoding as long_nardy

    return Encoding(
        "long_nardy", long_nardy.slot_table(), long_nardy.global_features, long_nardy.GLOBAL_NAMES, game="long_nardy"
    )


def _long_nardy_primes() -> Encoding:
    """Long nardy's encoding with what blocks hold back and each side's timing (``long_nardy_encoding``)."""
    from bot.evaluation import long_nardy_encoding as long_nardy

    return Encoding(
        "long_nardy_primes",
        long_nardy.slot_table(),
        long_nardy.prime_features,
        long_nardy.PRIME_NAMES,
        game="long_nardy",
    )


# Each encoding built when first asked for (``get_encoding``): a cold command line needs one or two.
ENCODINGS: dict[str, Callable[[], Encoding]] = {
    # Tesauro's TD-Gammon inputs (without the side-to-move units: the board is always
    # seen by the side on roll): 4 units per point per side, bars, borne off. F = 196.
    "tesauro": lambda: Encoding("tesauro", _flat(_tesauro_slots()), _borne_off, _BORNE_OFF),
    # Tesauro's inputs plus pip counts, checkers back and home, the race flag and the
    # rearmost checkers. F = 205.
    "extended": lambda: Encoding(
        "extended",
        _flat(np.concatenate([_tesauro_slots(), _count_slots()], axis=2)),
        _extended_globals,
        _EXTENDED_GLOBALS,
    ),
    # "extended" plus GNU Backgammon-style contact inputs for both sides (bot.evaluation.features):
    # escapes, containment, shots, timing, anchors... as extra global features. F = 253.
    "contact": lambda: Encoding(
        "contact",
        _flat(np.concatenate([_tesauro_slots(), _count_slots()], axis=2)),
        _contact_globals,
        _EXTENDED_GLOBALS + CONTACT_FEATURES,
    ),
    # "extended" plus both sides' shot counts only (pip loss, one hit, two hits over the 36
    # rolls): the contact inputs that carry their gain (docs/training.md). F = 211.
    "hits": lambda: Encoding(
        "hits",
        _flat(np.concatenate([_tesauro_slots(), _count_slots()], axis=2)),
        _hits_globals,
        _EXTENDED_GLOBALS + HIT_FEATURES,
    ),
    # "hits" plus race inputs (bot.evaluation.race_features): each side's expected rolls to bear off all its
    # checkers and one, from the one-sided database, checkers outside home, crossovers, the leads. F = 224.
    "race": _race,
    # Long nardy boards (bot.evaluation.long_nardy_encoding): each side's points in its own numbering
    # (Tesauro's units), pips, quarters, borne off, runs of held points, all home. F = 210.
    "long_nardy": _long_nardy,
    # ``long_nardy`` and, per side, the other side's checkers held back by its blocks, how hard the other
    # side's rearmost checker escapes, whether it has passed every opposing checker, pips to home. F = 218.
    "long_nardy_primes": _long_nardy_primes,
}


@functools.cache
def get_encoding(name: str) -> Encoding:
    """The encoding called ``name``; raise ValueError listing the known ones otherwise."""
    try:
        build = ENCODINGS[name]
    except KeyError:
        raise ValueError(f"encoding {name!r}: unknown, expected one of {sorted(ENCODINGS)}") from None
    return build()
