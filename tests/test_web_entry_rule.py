"""The web board's entry rule (bot/doors/web/entry.js) run by Node.js against the engine's legal plays.

Faster and wider than the browser test: on random positions of every kind, each legal
play entered through random orders of its steps, some of a checker's steps joined into
one move, must be taken move by move and reach that play's afterstate; every other
move from every checker must be refused with a message and change nothing. Skipped
where ``node`` is not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from engine.plays import legal_plays
from entry_cases import combined, entry_order, situations

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="no node (Node.js) to run the web board's JavaScript")
ENTRY_JS = Path(__file__).resolve().parents[1] / "bot" / "doors" / "web" / "entry.js"

# Reads the cases on stdin; answers, for each, every move refused from the start (from, to, message,
# whether the board stayed as it was) and, for each entry, the first refusal or the board reached.
SCRIPT = """
import { Entry } from "ENTRY";
import { readFileSync } from "fs";
const out = [];
for (const c of JSON.parse(readFileSync(0, "utf8"))) {
  const plays = c.plays.map((steps) => ({ move: "", steps }));
  const refused = [];
  const start = new Entry(c.board, c.dice, plays);
  for (let from = 25; from >= 1; from--) {
    if (c.board[from] <= 0) continue;
    const targets = start.targets(from);
    for (let to = 0; to < from; to++) {
      if (targets.has(to)) continue;
      const why = start.move(from, to);
      refused.push([from, to, why, start.board.join() === c.board.join() && start.history.length === 0]);
    }
  }
  const entries = c.entries.map((moves) => {
    const e = new Entry(c.board, c.dice, plays);
    for (const [a, b] of moves) {
      const why = e.move(a, b);
      if (why) return { why, at: [a, b] };
    }
    return { complete: Boolean(e.complete()), board: e.board };
  });
  out.push({ refused, entries });
}
process.stdout.write(JSON.stringify(out));
"""


def _run(cases: list[dict]) -> list[dict]:
    assert NODE is not None
    script = SCRIPT.replace('"ENTRY"', json.dumps(ENTRY_JS.as_uri()))
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_every_legal_play_by_any_path_is_taken_and_other_moves_are_refused():
    rng = np.random.default_rng(77)
    cases, expected = [], []
    for s in situations(rng, 300):
        plays = legal_plays(s.board, s.dice)
        entries, afterstates = [], []
        for play in plays:
            for _ in range(2):
                entries.append(combined(entry_order(s.board, play, rng), rng))
                afterstates.append([int(x) for x in play.afterstate])
        cases.append(
            {
                "board": [int(x) for x in s.board],
                "dice": list(s.dice),
                "entries": entries,
                "plays": [[{"from": t.src, "to": t.dst, "hit": t.hit} for t in p.steps] for p in plays],
            }
        )
        expected.append(afterstates)
    kinds = set()
    for case, want, got in zip(cases, expected, _run(cases)):
        for moves, after, entry in zip(case["entries"], want, got["entries"]):
            where = f"board {case['board']} dice {case['dice']} moves {moves}"
            assert "why" not in entry, f"{where}: refused {entry}"
            assert entry["complete"] and entry["board"] == after, f"{where}: reached {entry['board']}"
        for a, b, why, unchanged in got["refused"]:
            assert why and unchanged, f"board {case['board']} dice {case['dice']}: {a}->{b} gave {why!r}"
            kinds.add(why.split(" ")[0])
    assert len(kinds) >= 5, kinds  # the messages say different things, not one line for everything


def test_the_reported_play_through_the_other_intermediate_point():
    b = np.zeros(26, dtype=np.int8)
    b[[13, 8, 7, 6, 24]] = [2, 2, 2, 5, 2]
    b[[1, 19, 12, 17]] = [-2, -5, -5, -3]
    plays = legal_plays(b, "56")
    entries = [[(13, 8), (8, 2)], [(8, 2), (13, 8)], [(13, 7), (7, 2)], [(7, 2), (13, 7)], [(13, 2)]]
    case = {
        "board": [int(x) for x in b],
        "dice": [5, 6],
        "entries": entries,
        "plays": [[{"from": t.src, "to": t.dst, "hit": t.hit} for t in p.steps] for p in plays],
    }
    got = _run([case])[0]
    assert all(e.get("complete") for e in got["entries"]), got["entries"]
    assert len({tuple(e["board"]) for e in got["entries"]}) == 1
    refused = {(a, c): why for a, c, why, _ in got["refused"]}
    assert refused[(13, 4)] == "No legal play moves a checker from 13 to 4"
