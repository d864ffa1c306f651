"""GNU Backgammon's own shallow cube decisions on the fixture, beside the bot's: where the cube bar sits.

``fixtures/cube.jsonl`` holds GNU Backgammon's 2-ply cube decisions. Its terminal program
(Debian's ``gnubg``, run as ``gnubg -t``) decides the same positions at ``--plies`` (default 0,
the depth of the issue's bar) through its ``hint`` command; this script scores those decisions
with ``benchmarks/cube.py``'s measures, and the bot's at 0-ply on the same positions.

GNU Backgammon only answers where the side on roll may double (``You cannot double``
elsewhere: the opponent owns the cube, or it is dead), so the take figures and the
list of misses cover those positions; the double figure over all positions counts the
others as "no double", which is what the fixture says there.

    python -m benchmarks.gnubg_cube [--plies 0] [--gnubg /usr/games/gnubg] [--checkpoint PATH] [--fixture PATH]
"""

from __future__ import annotations

import argparse
from dataclasses import replace
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from bot.equity.cube import CubeDecision, Owner, decision_from_equities
from engine import decode_position_id
from engine.match_id import MatchId, encode_match_id

from benchmarks.cube import (
    DEFAULT_CHECKPOINT,
    OFFICIAL_FIXTURE,
    load_records,
    network_decisions,
    run,
    state_of,
)  # benchmarks/cube.py

MARK = "@@position"
# GNU Backgammon's names of the three cubeful equities in its cube analysis, initial double or redouble.
EQUITY_LINE = re.compile(
    r"^\s*\d\. (No (?:re)?double|(?:Re)?[Dd]ouble, take|(?:Re)?[Dd]ouble, pass)\s+([+-]\d+\.\d+)", re.M
)


def gnubg_commands(records: list[dict], plies: int) -> str:
    """A gnubg script that sets up every record (side on roll = player 0) and asks for its cube hint."""
    lines = [
        "set confirm new off",
        "set output digits 5",
        "set player 0 human",
        "set player 1 human",
        "set jacoby off",
        "set beavers 0",
        f"set evaluation cubedecision evaluation plies {plies}",
        "set evaluation cubedecision evaluation cubeful on",
    ]
    owners = {Owner.CENTERED: None, Owner.ME: 0, Owner.OPP: 1}
    for i, record in enumerate(records):
        state = state_of(record)
        match_id = encode_match_id(
            MatchId(
                cube_value=state.cube,
                cube_owner=owners[Owner(state.owner)],
                match_length=state.match_length,
                score=state.score,
                crawford=state.crawford,
                jacoby=False,
            )
        )
        lines += [
            f'>print("{MARK} {i}")',
            f"new match {state.match_length}" if state.match_length else "new session",
            f"set matchid {match_id}",
            f"set board {record['position_id']}",
            "hint",
        ]
    return "\n".join(lines) + "\n"


def ask_gnubg(records: list[dict], plies: int, program: str = "/usr/games/gnubg") -> str:
    """GNU Backgammon's printed cube hints for ``records``, ``plies`` deep, from one run of its terminal program."""
    return subprocess.run(
        [program, "-t", "-q"],
        input=gnubg_commands(records, plies),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=1800,
    ).stdout


def gnubg_answers(output: str, count: int) -> list[tuple[float, float, float, str] | None]:
    """(no double, double/take, double/pass, its verdict) of each of ``count`` hints in gnubg's output
    (None where it may not double). The verdict is its "Proper cube action" line, e.g. "No double, take (19.1%)"."""
    blocks = dict(re.findall(rf"^{MARK} (\d+)\n(.*?)(?=^{MARK} |\Z)", output, re.M | re.S))
    answers: list[tuple[float, float, float, str] | None] = []
    for i in range(count):
        block = blocks.get(str(i), "")
        found = {name.lower().replace("redouble", "double"): float(value) for name, value in EQUITY_LINE.findall(block)}
        action = re.search(r"Proper cube action: (.*)", block)
        if len(found) < 3 or action is None:
            answers.append(None)
            continue
        answers.append((found["no double"], found["double, take"], found["double, pass"], action.group(1).strip()))
    return answers


def parse_hints(output: str, records: list[dict]) -> list[CubeDecision | None]:
    """GNU Backgammon's decision for each record from its printed equities (None: it may not double)."""
    decisions: list[CubeDecision | None] = []
    for record, answer in zip(records, gnubg_answers(output, len(records))):
        if answer is None:
            decisions.append(None)
            continue
        nd, dt, dp, verdict = answer
        decision = decision_from_equities(nd, dt, dp, state_of(record), True, 0.0)
        # Its verdict, where the printed (rounded) equities tie.
        decisions.append(
            replace(
                decision,
                should_double=verdict.lower().startswith(("double", "redouble")),
                should_take="pass" not in verdict.lower(),
            )
        )
    return decisions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, choices=(0, 1), default=0, help="GNU Backgammon's depth (default 0)")
    parser.add_argument("--gnubg", default="/usr/games/gnubg", help="GNU Backgammon's program")
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument(
        "--fixture",
        type=Path,
        default=OFFICIAL_FIXTURE,
        help="the cube fixture (default: fixtures/cube.jsonl; benchmarks/cube_fixture.py writes larger ones)",
    )
    args = parser.parse_args()
    if shutil.which(args.gnubg) is None:
        print(f"error: no GNU Backgammon at {args.gnubg} (apt-get install gnubg)", file=sys.stderr)
        return 2
    records = load_records(args.fixture)
    output = ask_gnubg(records, args.plies, args.gnubg)
    theirs = parse_hints(output, records)
    may_double = [i for i, decision in enumerate(theirs) if decision is not None]
    if not may_double:
        print("error: GNU Backgammon answered no hint; its output ends:\n" + output[-2000:], file=sys.stderr)
        return 1
    from bot.evaluation.checkpoint import load_evaluator

    boards = np.array([decode_position_id(r["position_id"]) for r in records])
    ours = network_decisions(records, boards, load_evaluator(args.checkpoint), 0, True)
    subset = [records[i] for i in may_double]
    print(
        f"cube decisions vs GNU Backgammon 2-ply on the {len(subset)} of {len(records)} fixture positions "
        "where the side on roll may double"
    )
    # Elsewhere GNU Backgammon cannot double, as the fixture says: "no double" is its answer.
    assert not any(records[i]["should_double"] for i in set(range(len(records))) - set(may_double))
    for name, decisions in (
        (f"gnubg {args.plies}-ply", [d for d in theirs if d is not None]),
        ("bot 0-ply", [ours[i] for i in may_double]),
    ):
        result = run(subset, decisions)
        print(
            f"  {name:12s} should_double {result['double']:.1%} "
            f"({1 - result['double_misses'] / len(records):.1%} over all "
            f"{len(records)}), should_take {result['take']:.1%}; "
            f"mean cost doubler {result['double_cost']:.4f}, taker {result['take_cost']:.4f}"
        )
    overall = run(records, ours)
    print(
        f"  bot 0-ply over all {len(records)}: should_double {overall['double']:.1%}, should_take {overall['take']:.1%}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
