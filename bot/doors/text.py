"""Text the command line and the terminal game print: ranked plays, evaluations, cube decisions.

Every number is in the view the facade gives it: ranked plays for the mover after
the play, evaluations and cube decisions for the side on roll.
"""

from __future__ import annotations

import numpy as np

from bot.doors.codecs import codec_for
from bot.equity.cube import CubeState, Owner, verdict_words
from bot.facade import Evaluation, RankedPlay, game_probabilities
from engine.variant import BACKGAMMON, Variant

PROBABILITY_NAMES = ("Win", "W g", "W bg", "L g", "L bg")


def describe_state(state: CubeState) -> str:
    """One line on the game kind, score and cube, seen by the side on roll."""
    if state.is_money:
        kind = "money game" + (", Jacoby" if state.jacoby else "")
    else:
        mine, theirs = state.score
        kind = f"{state.match_length}-point match, score {mine}-{theirs} (side on roll first)"
        if state.crawford:
            kind += ", Crawford game"
        elif 1 in state.away:
            kind += ", post-Crawford"
    owner = {Owner.CENTERED: "centred", Owner.ME: "owned by the side on roll", Owner.OPP: "owned by the opponent"}
    return f"{kind}; cube {state.cube} {owner[state.owner]}"


def format_probabilities(five: np.ndarray) -> str:
    """The five probabilities in fixed columns."""
    return " ".join(f"{x:6.3f}" for x in five)


def depth_drop(deeper: int, shallower: int) -> str:
    """The line a ranked-play table shows where its rows' depth drops: their values are not comparable."""
    return f"     (below: {shallower}-ply only, kept out of the {deeper}-ply search by its move filter)"


def format_ranked_plays(ranked: list[RankedPlay]) -> list[str]:
    """A table of ranked plays: notation, equity, MWC in a match, the gap to the best, the probabilities of the
    game's own outcomes (backgammon's five, long nardy's win, win mars, lose mars).

    The gap is in the ranking's unit: equity for money, MWC percentage points in a match. Plays searched
    deeper rank ahead of shallower ones (``Bot.rank_plays``); a line says where the depth drops, since a
    shallower value may be higher than a deeper one above it.
    """
    best_mwc = ranked[0].mwc
    match = best_mwc is not None
    width = max(12, *(len(r.notation) for r in ranked))
    header = f"     {'Play':<{width}}  {'Equity':>7}" + (f" {'MWC':>7}" if match else "") + f" {'Diff':>7}"
    header += "  " + " ".join(f"{n:>6}" for n in codec_for(ranked[0].variant).columns) + "  Ply"
    lines = [header]
    best = ranked[0]
    for i, r in enumerate(ranked, 1):
        if i > 1 and r.plies < ranked[i - 2].plies:
            lines.append(depth_drop(ranked[i - 2].plies, r.plies))
        line = f"{i:>3}. {r.notation or '(no move)':<{width}}  {r.equity:+7.3f}"
        if best_mwc is not None:
            assert r.mwc is not None, "a ranking has an MWC for every play or for none"
            line += f" {r.mwc * 100:6.2f}% {(r.mwc - best_mwc) * 100:+7.2f}"
        else:
            line += f" {r.equity - best.equity:+7.3f}"
        lines.append(line + "  " + format_probabilities(r.game_probabilities) + f"  {r.plies:>3}")
    return lines


def format_evaluation(result: Evaluation, variant: Variant = BACKGAMMON) -> list[str]:
    """Probabilities of ``variant``'s own outcomes, cubeless and cubeful equity (or MWC) of the side on roll."""
    words = codec_for(variant).probability_words
    lines = [
        "Probabilities (side on roll): "
        + ", ".join(f"{name} {x:.3f}" for name, x in zip(words, game_probabilities(result.probabilities, variant))),
        f"Cubeless equity: {result.cubeless_equity:+.3f}",
        f"Cubeful equity:  {result.cubeful_equity:+.3f}",
    ]
    if result.mwc is not None:
        lines.append(f"Match-winning chance: {result.mwc * 100:.2f}%")
    return lines


def format_cube(result: Evaluation) -> list[str]:
    """The three cubeful equities and the verdict."""
    cube = result.cube
    lines = ["Cubeful equities (a pass = +1):"]
    rows = (
        ("No double", cube.no_double, cube.mwc_no_double),
        ("Double, take", cube.double_take, cube.mwc_double_take),
        ("Double, pass", cube.double_pass, cube.mwc_double_pass),
    )
    for name, value, mwc in rows:
        line = f"  {name:<13} {value:+.3f}"
        if mwc is not None:
            line += f"  (MWC {mwc * 100:.2f}%)"
        lines.append(line)
    lines.append(f"Proper cube action: {verdict_words(cube.verdict)}")
    return lines
