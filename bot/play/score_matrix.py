"""A position's cube decision at every score of a match, and for money: XG's score matrix.

``score_matrix(bot, board, length, plies)`` asks the facade's cube decision (``Bot.cube_decision``,
the same as ``nardy hint`` without dice) for the side on roll of ``board`` with the cube centred
on 1, at each score from 1- to ``length``-away for both sides: row = the side on roll's
points to go, column = the opponent's. Where one side is 1-away the game is either the Crawford
game (no cube: nothing to decide) or post-Crawford, and both are given; at 1-away both sides
(double match point) the cube is dead. ``money_cube(bot, board, plies)`` gives the money decisions
with the cube centred, centred under the Jacoby rule, and owned by the side on roll (cube on 2).

Each cell is labelled as XG labels it: D/T (double, take), D/P (double, pass), ND/T (no double),
TG/T and TG/P (too good to double), a leading R for a redouble (RD/T, NRD/T, TGR/...), and carries
the margins that show how close it is: ``double_margin`` = doubling (the opponent's best answer)
minus not doubling, ``take_margin`` = pass minus take, both in the side on roll's normalised equity
(a pass is +1: money points per cube, or in a match the EMG of ``bot.equity.cube.MatchScore.normalise``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from bot.equity.cube import CubeDecision, CubeState, Owner, Verdict, verdict_words
from bot.facade import Bot
from bot.equity.met import default_met
from engine.errors import BackgammonError


class ScoreMatrixError(BackgammonError):
    """A score matrix that cannot be made (a match length out of the table's range)."""


# XG's short labels of GNU Backgammon's verdicts; the optional doubles (equal to within a hair) read as doubles.
LABELS = {
    Verdict.NODOUBLE_TAKE: "ND/T",
    Verdict.NODOUBLE_BEAVER: "ND/B",
    Verdict.DOUBLE_TAKE: "D/T",
    Verdict.DOUBLE_PASS: "D/P",
    Verdict.DOUBLE_BEAVER: "D/B",
    Verdict.TOOGOOD_TAKE: "TG/T",
    Verdict.TOOGOOD_PASS: "TG/P",
    Verdict.NO_REDOUBLE_TAKE: "NRD/T",
    Verdict.NO_REDOUBLE_BEAVER: "NRD/B",
    Verdict.REDOUBLE_TAKE: "RD/T",
    Verdict.REDOUBLE_PASS: "RD/P",
    Verdict.TOOGOODRE_TAKE: "TGR/T",
    Verdict.TOOGOODRE_PASS: "TGR/P",
    Verdict.OPTIONAL_DOUBLE_TAKE: "D/T",
    Verdict.OPTIONAL_DOUBLE_PASS: "D/P",
    Verdict.OPTIONAL_DOUBLE_BEAVER: "D/B",
    Verdict.OPTIONAL_REDOUBLE_TAKE: "RD/T",
    Verdict.OPTIONAL_REDOUBLE_PASS: "RD/P",
    Verdict.NODOUBLE_DEADCUBE: "dead",
    Verdict.NO_REDOUBLE_DEADCUBE: "dead",
    Verdict.NOT_AVAILABLE: "-",
}
NO_CUBE = "no cube"  # the Crawford game


@dataclass(frozen=True)
class Cell:
    """The decision at one score (or one money cube): ``label`` as above, ``decision`` None where there is none."""

    name: str
    label: str
    decision: Optional[CubeDecision]

    @property
    def double_margin(self) -> Optional[float]:
        """Doubling (the opponent's best answer) minus not doubling; positive: double."""
        d = self.decision
        return None if d is None else min(d.double_take, d.double_pass) - d.no_double

    @property
    def take_margin(self) -> Optional[float]:
        """Passing minus taking for the side on roll's equity; positive: the opponent should take."""
        d = self.decision
        return None if d is None else d.double_pass - d.double_take

    def to_json(self) -> dict:
        d = self.decision
        data: dict = {"name": self.name, "label": self.label}
        if d is not None:

            def r(x):
                return round(float(x), 4)

            data.update(
                verdict=d.verdict.value,
                action=verdict_words(d.verdict),
                should_double=d.should_double,
                should_take=d.should_take,
                no_double=r(d.no_double),
                double_take=r(d.double_take),
                double_pass=r(d.double_pass),
                double_margin=r(self.double_margin),
                take_margin=r(self.take_margin),
            )
            if d.mwc_no_double is not None:
                data["mwc"] = {
                    "no_double": r(d.mwc_no_double),
                    "double_take": r(d.mwc_double_take),
                    "double_pass": r(d.mwc_double_pass),
                }
        return data


@dataclass(frozen=True)
class ScoreMatrix:
    """``cells[a - 1][b - 1]``: the side on roll ``a`` away, the opponent ``b`` away (post-Crawford where one is
    1-away); ``crawford[(a, b)]``: the Crawford game's cell at the scores where there is one."""

    length: int
    plies: int
    cells: tuple[tuple[Cell, ...], ...]
    crawford: dict

    def to_json(self) -> dict:
        """``{"length", "plies", "rows": [[cell, ...] per away of the side on roll], "crawford": [cell, ...]}``."""
        return {
            "length": self.length,
            "plies": self.plies,
            "rows": [[c.to_json() for c in row] for row in self.cells],
            "crawford": [self.crawford[key].to_json() for key in sorted(self.crawford)],
        }


def max_length(bot: Optional[Bot] = None) -> int:
    """The longest match the matrix covers: the size of the match equity table of ``bot``'s game (default:
    backgammon's)."""
    table = None if bot is None else bot.match_table(CubeState(match_length=1))
    return (table or default_met()).size


def _cell(bot: Bot, board: np.ndarray, state: CubeState, plies: int, name: str) -> Cell:
    decision = bot.cube_decision(board, state, plies)
    return Cell(name, LABELS[decision.verdict], decision)


def score_matrix(bot: Bot, board: np.ndarray, length: int, plies: int = 0) -> ScoreMatrix:
    """The cube decision of the side on roll of ``board`` (cube centred) at every score of a ``length``-point match."""
    longest = max_length(bot)
    if not 1 <= length <= longest:
        raise ScoreMatrixError(
            f"match length {length}: the score matrix covers 1 to {longest} points "
            f"(the {bot.variant.title} match equity table's range)"
        )
    rows, crawford = [], {}
    for a in range(1, length + 1):
        row = []
        for b in range(1, length + 1):
            score = (length - a, length - b)
            name = f"{a}-away/{b}-away"
            if a == 1 and b == 1:
                row.append(Cell(name, "dead", None))
                continue
            state = CubeState(match_length=length, score=score)
            row.append(_cell(bot, board, state, plies, name + (" post-Crawford" if 1 in (a, b) else "")))
            if 1 in (a, b):
                crawford[(a, b)] = Cell(name + " Crawford", NO_CUBE, None)
        rows.append(tuple(row))
    return ScoreMatrix(length, plies, tuple(rows), crawford)


def money_cube(bot: Bot, board: np.ndarray, plies: int = 0, jacoby: bool = True) -> tuple[Cell, ...]:
    """The money decisions: the cube centred, centred with the Jacoby rule (where the game has it: ``jacoby``),
    and on 2 owned by the side on roll."""
    states = (
        ("centred", CubeState()),
        *((("centred, Jacoby", CubeState(jacoby=True)),) if jacoby else ()),
        ("owned (cube 2)", CubeState(cube=2, owner=Owner.ME)),
    )
    return tuple(_cell(bot, board, state, plies, name) for name, state in states)


def format_matrix(matrix: ScoreMatrix, money: tuple[Cell, ...] = ()) -> list[str]:
    """The matrix as a text table: a row per away of the side on roll, a column per away of the opponent; each
    cell the label and the doubling margin in thousandths (+ double, - not), and a legend of the labels."""
    width = 12
    lines = [
        f"Cube decisions of the side on roll at every score of a {matrix.length}-point match ({matrix.plies}-ply), "
        "cube centred;",
        "rows: the side on roll's points to go, columns: the opponent's; each cell: action, "
        "then doubling minus not doubling (x1000)",
        "(1-away: post-Crawford; in the Crawford game there is no cube)",
        " " * 8 + "".join(f"{str(b) + '-away':>{width}}" for b in range(1, matrix.length + 1)),
    ]
    for a, row in enumerate(matrix.cells, 1):
        text = []
        for cell in row:
            margin = cell.double_margin if cell.label not in ("dead", "-") else None
            text.append(f"{cell.label}{'' if margin is None else f' {round(1000 * margin):+d}'}")
        lines.append(f"{str(a) + '-away':>8}" + "".join(f"{t:>{width}}" for t in text))
    shown = {c.label for row in matrix.cells for c in row}
    first = {label: verdict for verdict, label in reversed(LABELS.items())}  # optional doubles read as doubles
    lines.append("(" + "; ".join(f"{label}: {verdict_words(first[label]).lower()}" for label in sorted(shown)) + ")")
    if money:
        lines += ["", "Money:"] + format_money(money)
    return lines


def format_money(money: tuple[Cell, ...]) -> list[str]:
    """One line per money cube: its name, the decision in words and the two margins."""
    return [
        f"  {c.name:<18} {verdict_words(c.decision.verdict):<27} "
        f"double {c.double_margin:+.3f}, take {c.take_margin:+.3f}"
        for c in money
        if c.decision is not None
    ]
