"""A picture of an analysed match: the left player's chances after each decision, errors and luck marked.

``match_chart_svg(analysis)`` draws one self-contained SVG (no script, no outside file), used by
both the web board's match analysis (``/v1/analyze`` answers it as ``chart``) and the HTML report
of ``nardy analyze --html``. The line is the left player's (player 0's) match-winning chance in a
match, or its equity in points (the decision's value times the cube) in a money session: at the start
of each game, after each of both players' decisions (``bot.play.analysis``'s values of the play or cube
action chosen), and after the game's result. Games are shaded bands; an error is a dot coloured
by its mark on the line; a roll GNU Backgammon would call lucky or unlucky is a triangle in the
strip under the chart, pointing up (in the left player's colour) when it helped the left player, down
(in the right player's) when it helped the right one.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Optional

from bot.play.analysis import Decision, GameAnalysis, MatchAnalysis
from bot.equity.cube import CubeState, MatchScore, Owner
from engine.match_id import decode_match_id

# GNU Backgammon's luck thresholds in EMG (lucky / unlucky rolls; twice that: very lucky / unlucky).
LUCKY = 0.3
MARK_COLOURS = {"doubtful": "#e0b000", "bad": "#e07000", "very bad": "#c01010"}
PLAYER_COLOURS = ("#1f6f5c", "#7a3fb0")
# Small enough that its 12-unit text stays legible when a phone scales it to its width.
W, H = 480, 232
LEFT, RIGHT, TOP, PLOT_BOTTOM, LUCK_Y = 40, 8, 30, 180, 200


@dataclass(frozen=True)
class _Point:
    """One point of the line: player 0's value, and the decision it follows (None: a game's start or end)."""

    value: float
    decision: Optional[Decision] = None


def _cube_state(decision: Decision, seat: int) -> CubeState:
    """The cube and score of the decision's Match ID, seen by ``seat`` (a money session's score left out)."""
    m = decode_match_id(decision.match_id)
    owner = Owner.CENTERED if m.cube_owner is None else Owner.ME if m.cube_owner == seat else Owner.OPP
    score = (m.score[seat], m.score[1 - seat]) if m.match_length else (0, 0)
    return CubeState(cube=m.cube_value, owner=owner, match_length=m.match_length, score=score, crawford=m.crawford)


def _valued(decision: Decision) -> Optional[tuple[int, float]]:
    """(seat, normalised equity in its view) after the action chosen; None when the analysis gave no values."""
    v = decision.values
    if decision.kind == "move":
        return (decision.player, v["played"]) if "played" in v else None
    if "no_double" not in v:
        return None
    doubler = decision.player if decision.kind == "double" else 1 - decision.player
    if decision.kind == "double":
        value = v["no_double"] if decision.played == "no double" else min(v["double_take"], v["double_pass"])
    else:
        value = v["double_take"] if decision.played == "take" else v["double_pass"]
    return doubler, value


def _player0(decision: Decision, length: int) -> Optional[float]:
    """Player 0's MWC (match) or equity in points (money) after the decision."""
    valued = _valued(decision)
    if valued is None:
        return None
    seat, equity = valued
    state = _cube_state(decision, seat)
    if length:
        mwc = MatchScore.of(state).mwc(equity, state.cube)
        return mwc if seat == 0 else 1.0 - mwc
    points = equity * state.cube
    return points if seat == 0 else -points


def _game_points(game: GameAnalysis, length: int) -> list[_Point]:
    """Player 0's values through one game: its start, each decision, its result."""
    if length:
        start = MatchScore.of(CubeState(match_length=length, score=game.score, crawford=_crawford(game, length))).after(
            0
        )
    else:
        start = 0.0
    points = [_Point(start)]
    for d in game.decisions:
        value = _player0(d, length)
        if value is not None:
            points.append(_Point(value, d))
    if game.winner is not None and not game.stopped:
        gained = game.points if game.winner == 0 else -game.points
        if length:
            score = (game.score[0] + max(gained, 0), game.score[1] + max(-gained, 0))
            end = (
                1.0
                if score[0] >= length
                else 0.0
                if score[1] >= length
                else MatchScore.of(CubeState(match_length=length, score=score, crawford=False)).after(0)
            )
        else:
            end = float(gained)
        points.append(_Point(end))
    return points


def _crawford(game: GameAnalysis, length: int) -> bool:
    """Whether the game is the Crawford game, from its first decision's Match ID (False if it has none)."""
    first = next(iter(game.decisions), None)
    return decode_match_id(first.match_id).crawford if first is not None else False


def _money_range(series: list[list[_Point]]) -> float:
    """The half-height of a money chart in points: the largest value, rounded up to a whole point."""
    largest = max((abs(p.value) for points in series for p in points), default=1.0)
    return float(max(1, int(largest + 0.999)))


def _tooltip(d: Decision, names: tuple[str, str]) -> str:
    what = f"{d.dice[0]}{d.dice[1]}: {d.played or '(no move)'}" if d.kind == "move" and d.dice else d.played
    text = f"Game {d.game}, {names[d.player]}: {what}"
    if d.mark:
        text += f" ({d.mark}, -{d.error:.3f}; best {d.best or '(no move)'})"
    if d.luck is not None and abs(d.luck) >= LUCKY:
        text += f" luck {d.luck:+.3f}"
    return html.escape(text)


def match_chart_svg(analysis: MatchAnalysis) -> str:
    """The chart of ``analysis`` as one ``<svg>`` element (see the module docstring)."""
    length, names = analysis.length, analysis.names
    series = [_game_points(g, length) for g in analysis.games]
    count = sum(len(points) for points in series)
    span = max(count - 1, 1)
    top = 1.0 if length else _money_range(series)
    bottom = 0.0 if length else -top

    def x_of(i: float) -> float:
        return LEFT + (W - LEFT - RIGHT) * i / span

    def y_of(v: float) -> float:
        return PLOT_BOTTOM - (PLOT_BOTTOM - TOP) * (min(max(v, bottom), top) - bottom) / (top - bottom)

    esc = html.escape
    what = f"{esc(names[0])}'s match-winning chance" if length else f"{esc(names[0])}'s equity (points)"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="match-chart" data-testid="match-chart" '
        f'viewBox="0 0 {W} {H}" width="100%" role="img" aria-label="{what} after each decision" '
        f'font-family="sans-serif" font-size="12">',
        f"<title>{what} after each decision; errors and luck marked</title>",
        f'<rect width="{W}" height="{H}" fill="#fff"/>',
    ]
    # Games: shaded bands, labelled.
    at = 0
    for k, (game, points) in enumerate(zip(analysis.games, series)):
        x0, x1 = x_of(at), x_of(at + len(points) - 1)
        fill = "#f3efe4" if k % 2 == 0 else "#fbf9f4"
        parts.append(
            f'<rect x="{x0:.1f}" y="{TOP}" width="{max(x1 - x0, 1):.1f}" height="{PLOT_BOTTOM - TOP}" '
            f'fill="{fill}"><title>Game {game.number}</title></rect>'
        )
        if x1 - x0 >= 14 or len(analysis.games) <= 12:
            parts.append(
                f'<text x="{(x0 + x1) / 2:.1f}" y="{TOP - 4}" text-anchor="middle" fill="#555">G{game.number}</text>'
            )
        at += len(points)
    # Grid and axis labels.
    ticks = [0.0, 0.25, 0.5, 0.75, 1.0] if length else [bottom, bottom / 2, 0.0, top / 2, top]
    for t in ticks:
        y = y_of(t)
        label = f"{100 * t:.0f}%" if length else f"{t:+g}"
        parts.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{W - RIGHT}" y2="{y:.1f}" stroke="#ccc" '
            f'stroke-dasharray="{"" if t == (0.5 if length else 0.0) else "3 3"}"/>'
            f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end" fill="#555">{label}</text>'
        )
    # The line, one per game, and the errors on it; a mark's data-decision is the decision's place in the
    # match's decisions, in order (the web board selects that decision when it is clicked).
    place = {id(d): k for k, d in enumerate(analysis.decisions())}
    at = 0
    for points in series:
        coords = " ".join(f"{x_of(at + i):.1f},{y_of(p.value):.1f}" for i, p in enumerate(points))
        parts.append(f'<polyline points="{coords}" fill="none" stroke="{PLAYER_COLOURS[0]}" stroke-width="2"/>')
        for i, p in enumerate(points):
            d = p.decision
            if d is None:
                continue
            x = x_of(at + i)
            if d.mark:
                parts.append(
                    f'<circle class="error" data-decision="{place[id(d)]}" cx="{x:.1f}" '
                    f'cy="{y_of(p.value):.1f}" r="4.5" '
                    f'fill="{MARK_COLOURS[d.mark]}" stroke="#fff"><title>{_tooltip(d, names)}</title></circle>'
                )
            if d.luck is not None and abs(d.luck) >= LUCKY:
                helped = (d.luck > 0) == (d.player == 0)  # the left player
                size = 6 if abs(d.luck) >= 2 * LUCKY else 4
                tip = LUCK_Y - size if helped else LUCK_Y + size
                base = LUCK_Y + size if helped else LUCK_Y - size
                parts.append(
                    f'<polygon class="luck" data-decision="{place[id(d)]}" '
                    f'points="{x - size:.1f},{base} {x + size:.1f},{base} {x:.1f},{tip}" '
                    f'fill="{PLAYER_COLOURS[0 if helped else 1]}"><title>{_tooltip(d, names)}</title></polygon>'
                )
        at += len(points)
    # Legend.
    short = f"{esc(names[0])}'s chance to win the match" if length else f"{esc(names[0])}'s equity"
    parts.append(
        f'<text x="{LEFT}" y="12" fill="{PLAYER_COLOURS[0]}">&#9472;&#9472; {short}</text>'
        f'<text x="{W - RIGHT}" y="{H - 8}" text-anchor="end" fill="#555">errors: '
        + " ".join(f'<tspan fill="{c}">&#9679;</tspan>{m}' for m, c in MARK_COLOURS.items())
        + "</text>"
        f'<text x="{LEFT}" y="{H - 8}" fill="#555">luck: '
        f'<tspan fill="{PLAYER_COLOURS[0]}">&#9650; {esc(names[0])}</tspan> '
        f'<tspan fill="{PLAYER_COLOURS[1]}">&#9660; {esc(names[1])}</tspan></text>'
    )
    parts.append("</svg>")
    return "".join(parts)
