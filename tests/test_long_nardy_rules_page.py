"""The players' page of the long nardy rules (docs/long_nardy_rules.md) agrees with the engine.

Every ``$ python -m engine ...`` line in the page's code blocks is run and must print what
the page shows under it; every row of a table with position, roll and play columns is
checked against the legal plays: a ``legal`` play parses to a legal play, an ``illegal``
one is refused as illegal, and an ``every legal play`` cell lists exactly the engine's
plays. So an edit to the rules or the board drawing that the page does not follow fails here.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.__main__ import main
from engine.errors import IllegalMoveError
from engine.long_nardy import LongPosition, Rules, format_play, legal_plays, parse_long_move

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "long_nardy_rules.md"
TEXT = PAGE.read_text(encoding="utf-8")
PROMPT = "$ python -m engine "


@dataclass(frozen=True)
class Command:
    """One command of the page and the lines it is shown to print."""

    argv: tuple[str, ...]
    expected: str


def page_commands() -> list[Command]:
    """The ``$ python -m engine`` commands of the page's fenced code blocks, each with the lines below it."""
    commands: list[Command] = []
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", TEXT, flags=re.MULTILINE | re.DOTALL):
        found: list[tuple[tuple[str, ...], list[str]]] = []
        for line in block.splitlines():
            if line.startswith(PROMPT):
                found.append((tuple(shlex.split(line[len(PROMPT) :])), []))
            elif found:
                found[-1][1].append(line)
        commands += [Command(argv, "".join(line + "\n" for line in shown)) for argv, shown in found]
    return commands


def page_tables() -> list[list[dict[str, str]]]:
    """Each markdown table of the page as rows of {column name: cell text without backticks}."""
    tables: list[list[dict[str, str]]] = []
    lines = TEXT.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("|") or (i > 0 and lines[i - 1].startswith("|")):
            continue
        header = [cell.strip().lower() for cell in line.strip("|").split("|")]
        rows = []
        for row in lines[i + 2 :]:
            if not row.startswith("|"):
                break
            cells = [cell.strip().replace("`", "") for cell in row.strip("|").split("|")]
            assert len(cells) == len(header), f"table row {row!r} does not match its header {header}"
            rows.append(dict(zip(header, cells)))
        tables.append(rows)
    return tables


def rows_with(*columns: str) -> list[dict[str, str]]:
    """The rows of every table that has all of ``columns``."""
    return [row for table in page_tables() for row in table if table and set(columns) <= set(table[0])]


def rules_of(row: dict[str, str]) -> Rules:
    """The rule flags a row names in its ``rules`` column (``default``, or ``flag=value``)."""
    text = row.get("rules", "default")
    if text == "default":
        return Rules()
    name, value = text.split("=")
    flags: dict[str, Any] = {name: value}  # Rules reads flag text such as '46' and refuses what it does not know
    return Rules(**flags)


COMMANDS = page_commands()
VERDICTS = rows_with("position", "roll", "play", "verdict")
EVERY_PLAY = rows_with("position", "roll", "every legal play")


def test_the_page_has_its_examples():
    """The parsers find the page's examples: the start board, the forced first rolls, the verdict rows."""
    assert len(COMMANDS) >= 15
    assert COMMANDS[0].argv == ("long-nardy", "show", "24x15/24x15")
    assert " | O                |                  | pips 360, off 0\n" in COMMANDS[0].expected
    assert len(VERDICTS) >= 15 and {row["verdict"] for row in VERDICTS} == {"legal", "illegal"}
    assert len(EVERY_PLAY) >= 6


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c.argv))
def test_each_command_prints_what_the_page_shows(command: Command, capsys):
    status = main(list(command.argv))
    out, err = capsys.readouterr()
    assert out + err == command.expected
    assert status == (2 if command.expected.startswith("error: ") else 0)


@pytest.mark.parametrize("row", VERDICTS, ids=lambda r: f"{r['position']} {r['roll']} {r['play']}")
def test_each_play_has_the_verdict_the_page_gives(row: dict[str, str]):
    board = LongPosition.from_id(row["position"]).board
    rules = rules_of(row)
    assert row["verdict"] in ("legal", "illegal"), f"verdict {row['verdict']!r}"
    if row["verdict"] == "legal":
        assert parse_long_move(row["play"], board, row["roll"], rules).steps
    else:
        with pytest.raises(IllegalMoveError):
            parse_long_move(row["play"], board, row["roll"], rules)


@pytest.mark.parametrize("row", EVERY_PLAY, ids=lambda r: f"{r['position']} {r['roll']}")
def test_every_legal_play_is_listed(row: dict[str, str]):
    board = LongPosition.from_id(row["position"]).board
    listed = {play.strip() for play in row["every legal play"].split(";")}
    found = {format_play(play) for play in legal_plays(board, row["roll"], rules_of(row)) if play.steps}
    assert found == listed


def test_the_rule_numbers_the_code_cites_are_on_the_page():
    """Each of R1-R15 names a heading of the page, so a docstring's 'R9' can be looked up there."""
    headings = " ".join(re.findall(r"^#+ (.*)$", TEXT, flags=re.MULTILINE))
    cited = {int(n) for n in re.findall(r"\bR(\d+)\b", headings)}
    assert cited == set(range(1, 16))


def test_the_page_links_resolve():
    """Each in-page link names a heading (GitHub's anchors), and docs/long_nardy.md links to the page."""
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")
        for heading in re.findall(r"^#+ (.*)$", TEXT, flags=re.MULTILINE)
    }
    links = set(re.findall(r"\]\(#([^)]+)\)", TEXT))
    assert links and links <= anchors
    assert "(long_nardy_rules.md)" in (REPO / "docs" / "long_nardy.md").read_text(encoding="utf-8")
