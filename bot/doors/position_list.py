"""A list of positions analysed one by one (``nardy analyze POSITIONS.txt``): a file of Position IDs,
``PositionID:MatchID``\\ s or XGIDs, one a line (``engine.matchfiles``).

Each position is answered as ``nardy hint`` answers it, through the facade: with dice (an XGID's or
a Match ID's), the best plays of the roll ranked; without, the cube decision of the side on roll
(with a double offered, the answer to it is its ``should_take``). Numbers are in the facade's views:
plays for the mover after the play, cube equities for the side on roll (a pass = +1).
"""

from __future__ import annotations

from typing import Optional

from bot.doors.situation import Situation, parse_position
from bot.doors.text import describe_state, format_cube, format_evaluation, format_ranked_plays
from bot.facade import Bot, Evaluation, RankedPlay
from engine.matchfiles import PositionLine

# Plays listed per position: enough to see the choice, short enough to read a long list.
TOP_PLAYS = 5


def _report(
    bot: Bot, item: PositionLine, plies: int
) -> tuple[Situation, Optional[list[RankedPlay]], Optional[Evaluation]]:
    situation = parse_position(item.text)
    if situation.dice is not None and not situation.double_offered:
        return situation, bot.rank_plays(situation.board, situation.dice, plies, TOP_PLAYS, situation.state), None
    return situation, None, bot.evaluate(situation.board, situation.state, plies)


def positions_json(bot: Bot, items: list[PositionLine], plies: int) -> dict:
    """``{"kind": "positions", "plies", "positions": [...]}``: per position its line, text, Position ID, the game
    (``describe_state``), and ``plays`` (with dice) or ``cube`` (before the roll)."""
    out = []
    for item in items:
        situation, plays, evaluation = _report(bot, item, plies)
        entry: dict = {
            "line": item.line,
            "position": item.text,
            "position_id": situation.position_id,
            "game": describe_state(situation.state),
            "dice": list(situation.dice) if situation.dice else None,
        }
        if plays is not None:
            entry["plays"] = [
                {
                    "move": r.notation,
                    "equity": round(r.equity, 4),
                    "mwc": None if r.mwc is None else round(r.mwc, 4),
                    "probabilities": [round(float(x), 4) for x in r.probabilities],
                    "plies": r.plies,
                }
                for r in plays
            ]
        else:
            assert evaluation is not None
            cube = evaluation.cube
            entry["double_offered"] = situation.double_offered
            entry["cube"] = {
                "verdict": cube.verdict.value,
                "should_double": cube.should_double,
                "should_take": cube.should_take,
                "no_double": round(cube.no_double, 4),
                "double_take": round(cube.double_take, 4),
                "double_pass": round(cube.double_pass, 4),
            }
            entry["probabilities"] = [round(float(x), 4) for x in evaluation.probabilities]
            entry["cubeful_equity"] = round(evaluation.cubeful_equity, 4)
        out.append(entry)
    return {"kind": "positions", "plies": plies, "positions": out}


def format_positions(bot: Bot, items: list[PositionLine], plies: int) -> list[str]:
    """The text report: per position a header line, then its ranked plays or its cube decision."""
    lines: list[str] = []
    for item in items:
        situation, plays, evaluation = _report(bot, item, plies)
        lines.append(f"Line {item.line}: {item.text}")
        lines.append(f"  Position ID {situation.position_id} ({describe_state(situation.state)})")
        if plays is not None:
            assert situation.dice is not None
            lines.append(f"  Dice {situation.dice[0]}{situation.dice[1]}: best plays ({plies}-ply)")
            lines += ["  " + line for line in format_ranked_plays(plays)]
        else:
            assert evaluation is not None
            what = "answer to the double" if situation.double_offered else "cube decision"
            lines.append(f"  No dice: {what} ({plies}-ply)")
            lines += ["  " + line for line in format_evaluation(evaluation) + format_cube(evaluation)]
        lines.append("")
    return lines
