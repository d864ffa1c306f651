"""An analysed match written as GNU Backgammon's .sgf (``nardy analyze ... --sgf OUT.sgf``).

The moves are the match's (``engine.sgf.format_sgf``); the analysis goes into the properties
GNU Backgammon shows without its own evaluations: each play's and cube action's mark (``DO``,
``BM``), a missed double's mark on the move after it (``DC``, ``BC``), each roll's luck (``LU``,
``GW``/``GB``) and a comment with the error and the best play or cube action. gnubg's full
evaluation records (``A``, ``DA``) are not written: their equities would claim to be gnubg's.
"""

from __future__ import annotations

from typing import Optional

from bot.play.analysis import EPSILON, Decision, MatchAnalysis
from engine.matfile import ActionKind, MatMatch
from engine.sgf import SgfNote, format_sgf


def _comment(decision: Decision, plies: int) -> str:
    if decision.kind == "move" and decision.forced:
        return ""
    if decision.error <= EPSILON:
        return f"nardy {plies}-ply: {decision.played or '(no move)'} is best"
    return f"nardy {plies}-ply: error {decision.error:.3f} EMG, best {decision.best or '(no move)'}" + (
        f" ({decision.mark})" if decision.mark else ""
    )


def analysis_notes(match: MatMatch, analysis: MatchAnalysis) -> dict[tuple[int, int], SgfNote]:
    """What ``analysis`` says of each recorded action, keyed (game index, action index) as ``format_sgf`` takes it.

    A move's action carries the cube decision before its roll (no double) and the play; a double,
    the doubling decision; a take or drop, the answer. A game's actions after its analysis stopped get none.
    """
    notes: dict[tuple[int, int], SgfNote] = {}
    for g, game in enumerate(analysis.games):
        decisions = iter(game.decisions)
        pending: Optional[Decision] = next(decisions, None)
        for k, action in enumerate(match.games[g].actions):
            if pending is None:
                break
            cube: Optional[Decision] = None
            if action.kind is ActionKind.MOVE and pending.kind == "double" and pending.played == "no double":
                cube, pending = pending, next(decisions, None)
                if pending is None:
                    break
            main, pending = pending, next(decisions, None)
            comments = [_comment(cube, analysis.plies)] if cube is not None and cube.error > EPSILON else []
            comments = [c for c in comments + [_comment(main, analysis.plies)] if c]
            notes[(g, k)] = SgfNote(
                skill=main.mark,
                cube_skill=cube.mark if cube else None,
                luck=main.luck if main.kind == "move" else None,
                comment="; ".join(comments),
            )
    return notes


def analysed_sgf(match: MatMatch, analysis: MatchAnalysis) -> str:
    """The .sgf text of ``match`` with ``analysis`` in gnubg's mark, luck and comment properties."""
    return format_sgf(match, analysis_notes(match, analysis))
