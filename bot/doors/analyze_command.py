"""The ``analyze`` subcommand: a whole .mat, .sgf or .xg match analysed (``bot.play.analysis``), as GNU
Backgammon's statistics.

``nardy analyze FILE [--plies P] [--json] [--html OUT.html] [--sgf OUT.sgf]``: reads the file
(``engine.matchfiles``: .mat, .sgf, eXtreme Gammon .xg or a position list, told apart by content; a
damaged one is an error naming the line, or an .xg's game and record), analyses every
decision of both players, and prints the statistics per player (left column first)
and the marked decisions; ``--json`` prints ``MatchAnalysis.to_json()``; ``--html``
also writes one self-contained page with the match's chart and an SVG board of each marked decision;
``--sgf`` the match as a GNU Backgammon .sgf with the analysis's marks (``bot.doors.sgf_export``).
A game of a .mat or .sgf with an illegal recorded action is analysed up to it, with a message (an .xg
move is read as the legal play that leaves its board: a file with none is refused, naming the record).
A list of positions is answered position by position (``bot.doors.position_list``).
The file is read within ``engine.matfile.ReadBounds``' defaults (games, actions, nodes, nested variations)
and ``engine.matchfiles.MAX_FILE_BYTES``: past one, one ``error:`` line names it. ``--html`` and ``--sgf`` are
written whole or not at all (``bot.evaluation.storage.atomic_write``).
"""

from __future__ import annotations

import argparse
import html
import json
from typing import TYPE_CHECKING, TextIO


from bot.facade import Bot
from engine.errors import InvalidOptionError
from engine.position_id import decode_position_id

if TYPE_CHECKING:  # the analysis and the match formats load when a file is analysed, not for a cold `nardy hint`
    from bot.play.analysis import MatchAnalysis

# 1-ply: its cubeful lookahead judges cube decisions better than 0-ply, for little more time
# over a whole match (docs/analysis.md).
DEFAULT_PLIES = 1


def format_statistics(analysis: MatchAnalysis) -> list[str]:
    """GNU Backgammon-like statistics, one column per player."""
    stats = [analysis.stats(0), analysis.stats(1)]
    w = max(14, *(len(s.name) for s in stats)) + 2
    kind = f"{analysis.length}-point match" if analysis.length else "money session"
    lines = [
        f"Analysis of a {kind}, {len(analysis.games)} games, {analysis.plies}-ply",
        f"{'':<36}" + "".join(f"{s.name:>{w}}" for s in stats),
    ]

    def row(label: str, values) -> None:
        lines.append(f"{label:<36}" + "".join(f"{v:>{w}}" for v in values))

    row("Checkerplay statistics", ["", ""])
    row("Total moves", [s.moves for s in stats])
    row("Unforced moves", [s.unforced for s in stats])
    row("Moves marked doubtful", [s.marked["doubtful"] for s in stats])
    row("Moves marked bad", [s.marked["bad"] for s in stats])
    row("Moves marked very bad", [s.marked["very_bad"] for s in stats])
    row("Error total EMG (MWC)", [f"{s.checker_error:.3f}" for s in stats])
    row("Error rate mEMG", [f"{s.checker_rate:.1f}" for s in stats])
    row("Luck total EMG", [f"{s.luck:+.3f}" for s in stats])
    row("Luck rate mEMG", [f"{s.luck_rate:+.1f}" for s in stats])
    lines.append("")
    row("Cube statistics", ["", ""])
    row("Total cube decisions", [s.cube_decisions for s in stats])
    row("Close or actual cube decisions", [s.close_cube for s in stats])
    row("Doubles", [s.doubles for s in stats])
    row("Takes", [s.takes for s in stats])
    row("Passes", [s.passes for s in stats])
    row("Missed doubles", [s.missed_doubles for s in stats])
    row("Wrong doubles", [s.wrong_doubles for s in stats])
    row("Wrong takes", [s.wrong_takes for s in stats])
    row("Wrong passes", [s.wrong_passes for s in stats])
    row("Error total EMG", [f"{s.cube_error:.3f}" for s in stats])
    row("Error rate mEMG", [f"{s.cube_rate:.1f}" for s in stats])
    lines.append("")
    row("Overall error rate mEMG", [f"{s.overall_rate:.1f}" for s in stats])
    row("PR (XG-style: error per decision x 500)", [f"{s.pr:.2f}" for s in stats])
    return lines


def format_marked(analysis: MatchAnalysis) -> list[str]:
    """One line per marked decision, and one per game stopped by an illegal action."""
    lines = []
    for game in analysis.games:
        for d in game.decisions:
            if d.mark:
                dice = f" {d.dice[0]}{d.dice[1]}" if d.dice else ""
                lines.append(
                    f"Game {d.game} {analysis.names[d.player]}{dice}: {d.played or '(no move)'} "
                    f"[{d.mark}, -{d.error:.3f}], best {d.best or '(no move)'}  "
                    f"{d.position_id}:{d.match_id}"
                )
        if game.stopped:
            lines.append(f"Game {game.number} stopped: {game.stopped}")
    return lines


# ---------------------------------------------------------------- HTML


def board_svg(position_id: str) -> str:
    """An SVG drawing of a position, the side on roll (white) at the bottom moving to its lower right."""
    board = decode_position_id(position_id)
    w, h, pw = 390, 240, 28
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
        f'<rect width="{w}" height="{h}" fill="#2e6b3a"/>',
        f'<rect x="{6 * pw + 15}" y="0" width="20" height="{h}" fill="#5a3d22"/>',
    ]

    def x_of(point: int) -> float:  # points 1..24 of the side on roll; 1-12 bottom right to left
        col = 12 - point if point <= 12 else point - 13
        return 15 + col * pw + (20 if col >= 6 else 0)

    for point in range(1, 25):
        x, bottom = x_of(point), point <= 12
        tip = h - 100 if bottom else 100
        base = h if bottom else 0
        colour = "#c8a165" if point % 2 else "#8b2f2f"
        parts.append(f'<polygon points="{x},{base} {x + pw},{base} {x + pw / 2},{tip}" fill="{colour}"/>')
        n = int(board[point])
        for k in range(min(abs(n), 5)):
            cy = h - 12 - 22 * k if bottom else 12 + 22 * k
            fill = "#f4f4f4" if n > 0 else "#222"
            parts.append(f'<circle cx="{x + pw / 2}" cy="{cy}" r="10.5" fill="{fill}" stroke="#888"/>')
        if abs(n) > 5:
            cy = h - 12 - 88 if bottom else 12 + 88
            parts.append(
                f'<text x="{x + pw / 2}" y="{cy + 4}" font-size="11" text-anchor="middle" fill="#d00">{abs(n)}</text>'
            )
    bar_x = 6 * pw + 25
    for n, bar_y, fill in ((int(board[25]), h / 2 + 30, "#f4f4f4"), (-int(board[0]), h / 2 - 30, "#222")):
        if n:
            parts.append(
                f'<circle cx="{bar_x}" cy="{bar_y}" r="9" fill="{fill}" stroke="#888"/>'
                f'<text x="{bar_x}" y="{bar_y + 4}" font-size="10" text-anchor="middle" fill="#d00">{n}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def format_html(analysis: MatchAnalysis) -> str:
    """One self-contained page: the match's chart (``bot.doors.match_chart``), the statistics and, for each
    marked decision, its board (SVG)."""
    from bot.doors.match_chart import match_chart_svg

    esc = html.escape
    body = [
        f"<h1>{esc(analysis.names[0])} vs {esc(analysis.names[1])}</h1>",
        f'<div class="chart">{match_chart_svg(analysis)}</div>',
        "<pre>" + esc("\n".join(format_statistics(analysis))) + "</pre>",
        "<h2>Marked decisions</h2>",
    ]
    for game in analysis.games:
        for d in game.decisions:
            if not d.mark:
                continue
            dice = f", rolled {d.dice[0]}{d.dice[1]}" if d.dice else ""
            body.append(
                f'<div class="d"><h3>Game {d.game}: {esc(analysis.names[d.player])}{dice} '
                f'<span class="m">{esc(d.mark)}</span></h3>{board_svg(d.position_id)}'
                f"<p>Played <b>{esc(d.played or '(no move)')}</b>, best <b>{esc(d.best or '(no move)')}</b>, "
                f"error {d.error:.3f} EMG<br><code>{esc(d.position_id)}:{esc(d.match_id)}</code></p></div>"
            )
        if game.stopped:
            body.append(f"<p class='s'>Game {game.number} stopped: {esc(game.stopped)}</p>")
    style = (
        "body{font-family:sans-serif;max-width:900px;margin:auto}.d{border-top:1px solid #ccc;padding:8px}"
        ".chart svg{max-width:640px;height:auto}"
        ".m{color:#b00}.s{color:#b00}"
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>nardy analysis</title>"
        f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n"
    )


def _run_analyze(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from bot.play.analysis import analyze_match
    from bot.doors.position_list import format_positions, positions_json
    from bot.doors.sgf_export import analysed_sgf
    from engine.matchfiles import read_records_file
    from engine.matfile import MatMatch

    records = read_records_file(args.file)  # .mat, .sgf, .xg or a position list, told apart by content
    if not isinstance(records, MatMatch):
        if args.html or args.sgf:
            raise InvalidOptionError(f"{args.file}: a list of positions has no match to write as --html or --sgf")
        bot = Bot.load(args.checkpoint)
        if args.json:
            stdout.write(json.dumps(positions_json(bot, records, args.plies)) + "\n")
        else:
            stdout.write("\n".join(format_positions(bot, records, args.plies)))
        return 0
    match = records
    analysis = analyze_match(Bot.load(args.checkpoint), match, args.plies)
    if args.html:
        _write_whole(args.html, format_html(analysis))
    if args.sgf:
        _write_whole(args.sgf, analysed_sgf(match, analysis))
    if args.json:
        stdout.write(json.dumps(analysis.to_json()) + "\n")  # ASCII: any name is escaped
    else:
        lines = format_statistics(analysis) + [""] + format_marked(analysis)
        if args.html:
            lines.append(f"(HTML report written to {args.html})")
        if args.sgf:
            lines.append(f"(GNU Backgammon .sgf written to {args.sgf})")
        stdout.write(_printable("\n".join(lines) + "\n", stdout))
    return 0


def _write_whole(path: str, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8, whole or not at all: an error leaves any earlier file as it was."""
    from bot.evaluation.storage import atomic_write

    data = text.encode("utf-8")
    with atomic_write(path) as f:
        f.write(data)


def _printable(text: str, stream: TextIO) -> str:
    """``text`` as ``stream``'s encoding can hold it: a character it lacks (an emoji on a Latin-1 terminal)
    becomes '?' rather than an error after the whole analysis."""
    encoding = getattr(stream, "encoding", None)
    return text.encode(encoding, "replace").decode(encoding) if encoding else text


def add_analyze(subparsers) -> None:
    """The ``analyze`` subcommand."""
    p = subparsers.add_parser(
        "analyze",
        help="analyse every decision of a .mat, .sgf or .xg match, GNU Backgammon-style, or each position of a list",
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="a Jellyfish .mat, GNU Backgammon .sgf or eXtreme Gammon .xg match, money session or "
        "game, or a list of positions (Position IDs or XGIDs, one a line); the format is read from the content",
    )
    p.add_argument(
        "--plies", type=int, choices=(0, 1, 2), default=DEFAULT_PLIES, help=f"analysis depth (default {DEFAULT_PLIES})"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--html",
        metavar="OUT.html",
        help="also write an HTML page with the match's chart and a board of each marked decision",
    )
    p.add_argument(
        "--sgf",
        metavar="OUT.sgf",
        help="also write the match as a GNU Backgammon .sgf with the analysis's marks, luck and comments",
    )
    p.add_argument("--checkpoint", metavar="PATH", help="network checkpoint (default: the shipped bot)")
    p.set_defaults(run=_run_analyze)
