"""The ``analyze`` subcommand: whole .mat, .sgf or .xg matches analysed (``bot.play.analysis``), as GNU
Backgammon's statistics.

``nardy analyze FILE [FILE ...] [--plies P] [--json] [--html OUT.html] [--sgf OUT.sgf]``: reads the file
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

Several files, or a folder (its .mat, .sgf and .xg files), are analysed in one process, one after another,
each as above, then a summary per player (a player is a name) across them; ``--json`` then prints
``{"plies", "files": [{"file", "analysis"} or {"file", "error"}], "summary"}``. A file that cannot be read or
analysed gets one ``error: FILE: ...`` line on stderr, the others are still analysed, and the exit status is 2.
A progress bar (``bot.doors.progress``) shows on stderr for several files or a search deeper than 0-ply when
stderr is a terminal.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional, TextIO

from bot.doors.progress import ProgressBar
from bot.facade import Bot
from engine.errors import BackgammonError, InvalidOptionError
from engine.match_id import decode_match_id
from engine.position_id import decode_position_id

if TYPE_CHECKING:  # the analysis and the match formats load when a file is analysed, not for a cold `nardy hint`
    from bot.play.analysis import Decision, MatchAnalysis, PlayerStats
    from engine.matfile import MatMatch

# 1-ply: its cubeful lookahead judges cube decisions better than 0-ply, for little more time
# over a whole match (docs/analysis.md).
DEFAULT_PLIES = 1


def statistics_rows(analysis: MatchAnalysis) -> list[tuple[str, list]]:
    """GNU Backgammon-like statistics as (label, [left player's, right player's]) rows: first the title, section
    headers with empty values, ("", []) between sections."""
    stats = [analysis.stats(0), analysis.stats(1)]
    kind = f"{analysis.length}-point match" if analysis.length else "money session"
    match = analysis.length > 0  # GNU Backgammon's "EMG (MWC)": both where a match has match-winning chances
    return [
        (f"Analysis of a {kind}, {len(analysis.games)} games, {analysis.plies}-ply", []),
        ("Checkerplay statistics", ["", ""]),
        ("Total moves", [s.moves for s in stats]),
        ("Unforced moves", [s.unforced for s in stats]),
        ("Moves marked doubtful", [s.marked["doubtful"] for s in stats]),
        ("Moves marked bad", [s.marked["bad"] for s in stats]),
        ("Moves marked very bad", [s.marked["very_bad"] for s in stats]),
        _error_total(match, stats, "checker"),
        _error_rate(match, stats, "checker"),
        ("Luck total EMG", [f"{s.luck:+.3f}" for s in stats]),
        ("Luck rate mEMG", [f"{s.luck_rate:+.1f}" for s in stats]),
        ("", []),
        ("Cube statistics", ["", ""]),
        ("Total cube decisions", [s.cube_decisions for s in stats]),
        ("Close or actual cube decisions", [s.close_cube for s in stats]),
        ("Doubles", [s.doubles for s in stats]),
        ("Takes", [s.takes for s in stats]),
        ("Passes", [s.passes for s in stats]),
        ("Missed doubles", [s.missed_doubles for s in stats]),
        ("Wrong doubles", [s.wrong_doubles for s in stats]),
        ("Wrong takes", [s.wrong_takes for s in stats]),
        ("Wrong passes", [s.wrong_passes for s in stats]),
        _error_total(match, stats, "cube"),
        _error_rate(match, stats, "cube"),
        ("", []),
        _error_rate(match, stats, "overall"),
        ("PR (XG-style: error per decision x 500)", [f"{s.pr:.2f}" for s in stats]),
    ]


def format_statistics(analysis: MatchAnalysis) -> list[str]:
    """GNU Backgammon-like statistics, one column per player."""
    rows = statistics_rows(analysis)
    names = [analysis.stats(p).name for p in (0, 1)]
    w = max(14, *(len(str(v)) for _, values in rows for v in values), *(len(n) for n in names)) + 2
    lines = [rows[0][0], f"{'':<36}" + "".join(f"{n:>{w}}" for n in names)]
    for label, values in rows[1:]:
        lines.append(f"{label:<36}" + "".join(f"{v:>{w}}" for v in values) if label else "")
    return lines


def _error_total(match: bool, stats: list[PlayerStats], part: str) -> tuple[str, list[str]]:
    """The "Error total" row of ``part`` ('checker' or 'cube'): EMG, and MWC in brackets in a match."""
    if not match:
        return "Error total EMG", [f"{getattr(s, part + '_error'):.3f}" for s in stats]
    return "Error total EMG (MWC)", [
        f"{getattr(s, part + '_error'):.3f} ({100 * (getattr(s, part + '_error_mwc') or 0.0):.2f}%)" for s in stats
    ]


def _error_rate(match: bool, stats: list[PlayerStats], part: str) -> tuple[str, list[str]]:
    """The "Error rate" row of ``part`` ('checker', 'cube' or 'overall'): mEMG per decision, MWC in a match."""
    label = "Overall error rate" if part == "overall" else "Error rate"
    if not match:
        return f"{label} mEMG", [f"{getattr(s, part + '_rate'):.1f}" for s in stats]
    return f"{label} mEMG (MWC)", [
        f"{getattr(s, part + '_rate'):.1f} ({100 * (getattr(s, part + '_rate_mwc') or 0.0):.3f}%)" for s in stats
    ]


def format_summary(players: list[PlayerStats], files: int, failed: int) -> list[str]:
    """One row per player over every analysed file: its matches, unforced moves, error rates, PR and luck."""
    w = max(12, *(len(p.name) for p in players)) if players else 12
    head = ("Matches", "Unforced", "Checker", "Cube dec.", "Cube", "Overall", "PR", "Luck")
    lines = [
        f"Summary of {files} file{'s' if files != 1 else ''}" + (f", {failed} not analysed" if failed else ""),
        f"{'Player':<{w}}" + "".join(f"{h:>10}" for h in head),
        f"{'':<{w}}" + "".join(f"{h:>10}" for h in ("", "moves", "mEMG", "(close)", "mEMG", "mEMG", "", "mEMG")),
    ]
    for p in players:
        cells = (
            p.matches,
            p.unforced,
            f"{p.checker_rate:.1f}",
            f"{p.cube_decisions} ({p.close_cube})",
            f"{p.cube_rate:.1f}",
            f"{p.overall_rate:.1f}",
            f"{p.pr:.2f}",
            f"{p.luck_rate:+.1f}",
        )
        lines.append(f"{p.name:<{w}}" + "".join(f"{c:>10}" for c in cells))
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

# The web board's geometry and colours (bot/doors/web/board.js, style.css), so that a report's board reads as the
# board a player knows: the side on roll white at the bottom, its points numbered 1-24 from its lower right.
_W, _H, _FRAME, _POINT_W, _POINT_H, _BAR_W, _TRAY_X, _TRAY_W, _R = 760, 600, 20, 50, 240, 60, 700, 60, 22
_RIGHT, _BAR_X = _FRAME + 6 * _POINT_W + _BAR_W, _FRAME + 6 * _POINT_W
_MINE, _THEIRS = ("#fafafa", "#999", "#222"), ("#2b2b2b", "#000", "#eee")  # fill, stroke, count text
_PIPS = {
    1: ((20, 20),),
    2: ((10, 10), (30, 30)),
    3: ((10, 10), (20, 20), (30, 30)),
    4: ((10, 10), (30, 10), (10, 30), (30, 30)),
    5: ((10, 10), (30, 10), (20, 20), (10, 30), (30, 30)),
    6: ((10, 9), (30, 9), (10, 20), (30, 20), (10, 31), (30, 31)),
}


def _point_x(point: int) -> tuple[int, bool]:
    """The left x of point 1..24 of the side on roll and whether it is in the bottom row."""
    if point <= 6:
        return _RIGHT + (6 - point) * _POINT_W, True
    if point <= 12:
        return _FRAME + (12 - point) * _POINT_W, True
    if point <= 18:
        return _FRAME + (point - 13) * _POINT_W, False
    return _RIGHT + (point - 19) * _POINT_W, False


def _stack(parts: list[str], cx: float, y0: float, dy: float, n: int, mine: bool) -> None:
    """``n`` checkers from (cx, y0) growing by dy; past five, the count on the fifth (as the web board)."""
    fill, stroke, ink = _MINE if mine else _THEIRS
    shown = min(n, 5)
    for i in range(shown):
        cy = y0 + i * dy
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="{_R}" fill="{fill}" stroke="{stroke}"/>')
        if i == shown - 1 and n > 5:
            parts.append(f'<text x="{cx}" y="{cy + 6}" fill="{ink}" font-size="18" text-anchor="middle">{n}</text>')


def board_svg(
    position_id: str, dice: Optional[tuple[int, int]] = None, cube: int = 1, cube_owner: Optional[str] = None
) -> str:
    """An SVG drawing of a position as the web board draws it: the side on roll (white) at the bottom moving to
    its lower right, points numbered, its ``dice`` on the right half, the cube on the bar (``cube_owner`` 'me'
    at the bottom, 'them' at the top, None centred)."""
    board = decode_position_id(position_id)
    h = _H
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {_W} {h}" width="100%" '
        f'role="img" aria-label="board {position_id}" font-family="sans-serif">',
        f'<rect width="{_W}" height="{h}" fill="#5b3a21"/>',
    ]
    for x in (_FRAME, _RIGHT):
        parts.append(f'<rect x="{x}" y="{_FRAME}" width="{6 * _POINT_W}" height="{h - 2 * _FRAME}" fill="#2f6b4f"/>')
    for point in range(1, 25):
        x, bottom = _point_x(point)
        tip = h - _FRAME - _POINT_H if bottom else _FRAME + _POINT_H
        base = h - _FRAME if bottom else _FRAME
        colour = "#e9d8b4" if point % 2 else "#9c3d2e"
        parts.append(
            f'<polygon points="{x},{base} {x + _POINT_W},{base} {x + _POINT_W / 2},{tip}" fill="{colour}"/>'
            f'<text x="{x + _POINT_W / 2}" y="{h - 5 if bottom else 15}" fill="#f3e7d3" font-size="17" '
            f'text-anchor="middle">{point}</text>'
        )
        n = int(board[point])
        if n:
            y0 = h - _FRAME - _R if bottom else _FRAME + _R
            _stack(parts, x + _POINT_W / 2, y0, -2 * _R if bottom else 2 * _R, abs(n), n > 0)
    parts.append(f'<rect x="{_BAR_X}" y="0" width="{_BAR_W}" height="{h}" fill="#4a2f1a"/>')
    if board[25] > 0:  # the side on roll's checkers on the bar wait on the upper half, the other's below
        _stack(parts, _BAR_X + _BAR_W / 2, h / 2 - 40 - _R, -2 * _R, int(board[25]), True)
    if board[0] < 0:
        _stack(parts, _BAR_X + _BAR_W / 2, h / 2 + 40 + _R, 2 * _R, -int(board[0]), False)
    mine_off = 15 - int(board[board > 0].sum())
    theirs_off = 15 + int(board[board < 0].sum())
    tray_h = h / 2 - _FRAME - 10
    parts.append(f'<rect x="{_TRAY_X}" y="{_FRAME}" width="{_TRAY_W}" height="{tray_h}" fill="#3e2716"/>')
    parts.append(f'<rect x="{_TRAY_X}" y="{h / 2 + 10}" width="{_TRAY_W}" height="{tray_h}" fill="#3e2716"/>')
    for i in range(mine_off):
        parts.append(
            f'<rect x="{_TRAY_X + 8}" y="{h - _FRAME - 14 - i * 16}" width="{_TRAY_W - 16}" height="12" rx="3" '
            f'fill="{_MINE[0]}"/>'
        )
    for i in range(theirs_off):
        parts.append(
            f'<rect x="{_TRAY_X + 8}" y="{_FRAME + 2 + i * 16}" width="{_TRAY_W - 16}" height="12" rx="3" '
            f'fill="{_THEIRS[0]}" stroke="#777"/>'
        )
    for i, value in enumerate(dice or ()):
        x, y = _RIGHT + 3 * _POINT_W - 45 + i * 50, h / 2 - 20
        parts.append(f'<g class="die"><rect x="{x}" y="{y}" width="40" height="40" rx="7" fill="#fff"/>')
        parts.extend(f'<circle cx="{x + px}" cy="{y + py}" r="4" fill="#222"/>' for px, py in _PIPS[value])
        parts.append("</g>")
    y = h - _FRAME - 60 if cube_owner == "me" else _FRAME + 10 if cube_owner == "them" else h / 2 - 25
    parts.append(
        f'<g class="cube"><rect x="{_BAR_X + 5}" y="{y}" width="50" height="50" rx="6" fill="#f5f0e0" stroke="#333"/>'
        f'<text x="{_BAR_X + 30}" y="{y + 33}" font-size="22" font-weight="bold" fill="#222" text-anchor="middle">'
        f"{cube if cube_owner else max(cube, 64)}</text></g>"
    )
    parts.append("</svg>")
    return "".join(parts)


def _decision_board(d: Decision) -> str:
    """The board of a decision, its dice and its cube as the Match ID has them, the side on roll at the bottom."""
    m = decode_match_id(d.match_id)
    owner = None if m.cube_owner is None else "me" if m.cube_owner == m.player_on_roll else "them"
    return board_svg(d.position_id, d.dice, m.cube_value, owner)


def _statistics_table(analysis: MatchAnalysis) -> str:
    """The statistics as an HTML table, labels wrapping so that it fits a phone's width."""
    esc = html.escape
    names = "".join(f"<th>{esc(analysis.stats(p).name)}</th>" for p in (0, 1))
    rows = [f"<tr><th></th>{names}</tr>"]
    for label, values in statistics_rows(analysis)[1:]:
        if not label:
            continue
        if all(v == "" for v in values):
            rows.append(f'<tr class="h"><th colspan="3">{esc(label)}</th></tr>')
        else:
            rows.append(f"<tr><td>{esc(label)}</td>" + "".join(f"<td>{esc(str(v))}</td>" for v in values) + "</tr>")
    return f'<table class="stats">{"".join(rows)}</table>'


def format_html(analysis: MatchAnalysis) -> str:
    """One self-contained page: the match's chart (``bot.doors.match_chart``), the statistics and, for each
    marked decision, its board (SVG, as the web board draws it)."""
    from bot.doors.match_chart import match_chart_svg

    esc = html.escape
    body = [
        f"<h1>{esc(analysis.names[0])} vs {esc(analysis.names[1])}</h1>",
        f'<div class="chart">{match_chart_svg(analysis)}</div>',
        f"<p>{esc(statistics_rows(analysis)[0][0])}</p>",
        _statistics_table(analysis),
        "<h2>Marked decisions</h2>",
    ]
    for game in analysis.games:
        for d in game.decisions:
            if not d.mark:
                continue
            dice = f", rolled {d.dice[0]}{d.dice[1]}" if d.dice else ""
            on_roll = d.player if d.kind != "take" else 1 - d.player
            mwc = f" ({100 * d.error_mwc:.2f}% MWC)" if d.error_mwc is not None else ""
            body.append(
                f'<div class="d"><h3>Game {d.game}: {esc(analysis.names[d.player])}{dice} '
                f'<span class="m">{esc(d.mark)}</span></h3>{_decision_board(d)}'
                f"<p>White (bottom, on roll): {esc(analysis.names[on_roll])}; "
                f"black: {esc(analysis.names[1 - on_roll])}.<br>"
                f"Played <b>{esc(d.played or '(no move)')}</b>, best <b>{esc(d.best or '(no move)')}</b>, "
                f"error {d.error:.3f} EMG{mwc}<br><code>{esc(d.position_id)}:{esc(d.match_id)}</code></p></div>"
            )
        if game.stopped:
            body.append(f"<p class='s'>Game {game.number} stopped: {esc(game.stopped)}</p>")
    style = (
        "body{font-family:sans-serif;max-width:900px;margin:auto;padding:0 8px}"
        ".d{border-top:1px solid #ccc;padding:8px 0}.d svg.board{max-width:640px;height:auto;display:block}"
        ".chart svg{max-width:640px;height:auto}code{word-break:break-all}"
        "table.stats{border-collapse:collapse;font-size:14px;max-width:100%}"
        "table.stats td,table.stats th{padding:2px 6px;border-bottom:1px solid #eee;text-align:right}"
        "table.stats td:first-child{text-align:left}table.stats tr.h th{text-align:left;padding-top:10px}"
        ".m{color:#b00}.s{color:#b00}"
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>nardy analysis</title>"
        f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n"
    )


# A folder given to `nardy analyze` contributes its files with these endings (any case), not its subfolders.
MATCH_SUFFIXES = (".mat", ".sgf", ".xg")


def _run_analyze(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    if len(args.files) == 1 and not Path(args.files[0]).is_dir():
        return _analyze_one(args, args.files[0], stdout)
    if args.html or args.sgf:
        raise InvalidOptionError("--html and --sgf take one match file; several files or a folder were given")
    return _analyze_many(args, stdout)


def _analyze_one(args: argparse.Namespace, path: str, stdout: TextIO) -> int:
    """One file: a match's statistics and marked decisions (or its JSON), or a list of positions answered."""
    from bot.play.analysis import analyze_match
    from bot.doors.position_list import format_positions, positions_json
    from bot.doors.sgf_export import analysed_sgf
    from engine.matchfiles import read_records_file
    from engine.matfile import MatMatch

    records = read_records_file(path)  # .mat, .sgf, .xg or a position list, told apart by content
    if not isinstance(records, MatMatch):
        if args.html or args.sgf:
            raise InvalidOptionError(f"{path}: a list of positions has no match to write as --html or --sgf")
        bot = Bot.load(args.checkpoint)
        if args.json:
            stdout.write(json.dumps(positions_json(bot, records, args.plies)) + "\n")
        else:
            stdout.write("\n".join(format_positions(bot, records, args.plies)))
        return 0
    match = records
    if match.variant != "backgammon" and (args.html or args.sgf):
        raise InvalidOptionError(f"{path}: a long nardy match: --html and --sgf draw and write backgammon only")
    bar = ProgressBar(sys.stderr, "decision") if args.plies > 0 else None
    try:
        bot = Bot.load(args.checkpoint, variant=match.variant)
        analysis = analyze_match(bot, match, args.plies, bar, prune=not args.no_prune)
    finally:
        if bar is not None:
            bar.close()
    if args.html:
        write_whole(args.html, format_html(analysis))
    if args.sgf:
        write_whole(args.sgf, analysed_sgf(match, analysis))
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


def match_paths(names: list[str]) -> list[tuple[str, Optional[str]]]:
    """(path, None) for each file named, and for each match file (``MATCH_SUFFIXES``) of each folder named, by
    name; (folder, error) for a folder that has none."""
    paths: list[tuple[str, Optional[str]]] = []
    for name in names:
        folder = Path(name)
        if not folder.is_dir():
            paths.append((name, None))
            continue
        found = sorted(str(p) for p in folder.iterdir() if p.suffix.lower() in MATCH_SUFFIXES and p.is_file())
        paths.extend((p, None) for p in found)
        if not found:
            paths.append((name, f"no {', '.join(MATCH_SUFFIXES)} files in the folder"))
    return paths


def _named(path: str, error: Exception) -> str:
    """The error's message, with the file's name in front unless it names it already."""
    message = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return message if path in message else f"{path}: {message}"


def _analyze_many(args: argparse.Namespace, stdout: TextIO) -> int:
    """Every file in one process: each read, then each analysed (an error line for one that fails, the others
    still analysed), then a summary per player; exit status 2 if any failed."""
    from bot.play.analysis import analyze_match, load_compiled_for, summary
    from engine.matchfiles import read_records_file
    from engine.matfile import ActionKind, MatMatch

    paths = match_paths(args.files)
    results: list[tuple[str, MatchAnalysis | str]] = []  # (path, its analysis or why it has none)
    matches: list[tuple[str, MatMatch]] = []
    for path, problem in paths:
        try:
            if problem is not None:
                raise InvalidOptionError(problem)
            records = read_records_file(path)
            if not isinstance(records, MatMatch):
                raise InvalidOptionError("a list of positions, not a match: analyse it on its own")
            matches.append((path, records))
        except (BackgammonError, OSError) as error:
            results.append((path, _named(path, error)))
    bots: dict[str, Bot] = {}  # one per game, loaded when a match of it comes
    moves = sum(a.kind is ActionKind.MOVE for _, m in matches for g in m.games for a in g.actions)
    load_compiled_for(moves, args.plies)  # the whole batch's work decides, not each file's
    bar = ProgressBar(sys.stderr, "decision")
    try:
        for k, (path, match) in enumerate(matches, 1):
            bar.describe(f"{k}/{len(matches)} {Path(path).name}")
            try:
                if match.variant not in bots:
                    bots[match.variant] = Bot.load(args.checkpoint, variant=match.variant)
                analysis = analyze_match(bots[match.variant], match, args.plies, bar, prune=not args.no_prune)
                results.append((path, analysis))
            except BackgammonError as error:
                results.append((path, _named(path, error)))
    finally:
        bar.close()
    order = {path: k for k, (path, _) in enumerate(paths)}
    results.sort(key=lambda result: order[result[0]])  # the files' order, failed or not
    analysed = [r for _, r in results if not isinstance(r, str)]
    failed = [(path, r) for path, r in results if isinstance(r, str)]
    for _, message in failed:
        sys.stderr.write(f"error: {message}\n")
    players = summary(analysed)
    if args.json:
        files = [
            {"file": p, "error": r} if isinstance(r, str) else {"file": p, "analysis": r.to_json()} for p, r in results
        ]
        data = {"plies": args.plies, "files": files, "summary": [_summary_json(p) for p in players]}
        stdout.write(json.dumps(data) + "\n")
    else:
        lines = []
        for path, result in results:
            if not isinstance(result, str):
                lines += [f"== {path}", *format_statistics(result), "", *format_marked(result), ""]
        lines += format_summary(players, len(results), len(failed))
        stdout.write(_printable("\n".join(lines) + "\n", stdout))
    return 2 if failed else 0


def _summary_json(player: PlayerStats) -> dict:
    """A player's statistics over the files (``PlayerStats.to_json``) and how many matches they cover."""
    return {**player.to_json(), "matches": player.matches}


def write_whole(path: str, text: str) -> None:
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
        help="analyse every decision of .mat, .sgf or .xg matches (files or folders), GNU Backgammon-style, "
        "or each position of a list",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a Jellyfish .mat, GNU Backgammon .sgf or eXtreme Gammon .xg match, money session or "
        "game, or a list of positions (Position IDs or XGIDs, one a line); the format is read from the content. "
        "Several files, or a folder (its .mat, .sgf and .xg files), are analysed in one run, with a summary "
        "per player; exit status 2 if any could not be",
    )
    p.add_argument(
        "--plies", type=int, choices=(0, 1, 2), default=DEFAULT_PLIES, help=f"analysis depth (default {DEFAULT_PLIES})"
    )
    p.add_argument(
        "--no-prune",
        action="store_true",
        help="score every play of each roll with the full networks, not the pruner's best few (slower)",
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
