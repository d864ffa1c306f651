"""The picture of an analysed match (bot.doors.match_chart): one self-contained SVG, the left player's
chances through every game, each error a dot coloured by its mark, in the web answer and the HTML report."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from bot.play.analysis import analyze_match
from bot.doors.analyze_command import format_html
from bot.doors.match_chart import MARK_COLOURS, PLOT_BOTTOM, TOP, match_chart_svg
from bot.facade import REPO_CHECKPOINT, Bot
from engine.matfile import MatAction, MatGame, MatMatch, format_mat, parse_mat
from test_analysis import session

pytestmark = pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason=f"no shipped network at {REPO_CHECKPOINT}")
SVG = "{http://www.w3.org/2000/svg}"
M, D, T = MatAction.of_move, MatAction.of_double, MatAction.of_take


def three_point_match() -> MatMatch:
    """A 3-point match: Alice wins a doubled game (2 points; her double far too early), then Bob's opening 51
    is a blunder."""
    games = (
        MatGame((0, 0), (M(0, (3, 1), "8/5 6/5"), M(1, (4, 2), "8/4 6/4"), D(0, 2), T(1)), winner=0, points=2),
        MatGame((2, 0), (M(1, (5, 1), "8/7 8/3"), M(0, (2, 2), "13/11 13/11 6/4 6/4")), winner=None, points=0),
    )
    return MatMatch(3, ("Alice <A&B>", "Bob"), games)


@pytest.fixture(scope="module")
def bot() -> Bot:
    return Bot.load()


def chart_of(bot: Bot, match: MatMatch) -> tuple[ET.Element, str]:
    analysis = analyze_match(bot, parse_mat(format_mat(match)), plies=0)
    text = match_chart_svg(analysis)
    return ET.fromstring(text), text


def line_values(root: ET.Element) -> list[list[float]]:
    """The y coordinates of each game's line."""
    return [[float(xy.split(",")[1]) for xy in line.get("points", "").split()] for line in root.iter(f"{SVG}polyline")]


def test_a_money_session_is_drawn_with_every_error_marked(bot):
    analysis = analyze_match(bot, parse_mat(format_mat(session())), plies=0)
    root = ET.fromstring(match_chart_svg(analysis))
    assert root.tag == f"{SVG}svg" and root.get("data-testid") == "match-chart"
    assert not list(root.iter(f"{SVG}script")) and not list(root.iter(f"{SVG}image"))
    errors = [c for c in root.iter(f"{SVG}circle") if c.get("class") == "error"]
    marked = [d for d in analysis.decisions() if d.mark]
    assert len(errors) == len(marked) >= 2
    assert [c.get("fill") for c in errors] == [MARK_COLOURS[d.mark] for d in marked]
    assert len(line_values(root)) == len(analysis.games)
    assert "equity (points)" in root.findtext(f"{SVG}title", "")


def test_a_match_is_drawn_as_match_winning_chances_and_names_are_escaped(bot):
    root, text = chart_of(bot, three_point_match())
    assert "Alice &lt;A&amp;B&gt;" in text and "match-winning chance" in text and "chance to win the match" in text
    first, second = line_values(root)
    top, bottom = float(TOP), float(PLOT_BOTTOM)  # the plot's 100% and 0% lines
    assert all(top <= y <= bottom for y in first + second)
    assert first[0] == pytest.approx((top + bottom) / 2, abs=0.2)  # 0-0: even
    # Alice leads 2-0 after the first game: its end and the second game's start agree, above 50%.
    assert first[-1] == pytest.approx(second[0]) and second[0] < (top + bottom) / 2
    errors = [c for c in root.iter(f"{SVG}circle") if c.get("class") == "error"]
    assert any(c.findtext(f"{SVG}title", "").startswith("Game 2, Bob: 51: 8/7 8/3 (very bad") for c in errors)


def test_the_html_report_carries_the_chart(bot):
    analysis = analyze_match(bot, parse_mat(format_mat(replace(session(), players=("Alice", "Bob")))), plies=0)
    page = format_html(analysis)
    assert page.count('data-testid="match-chart"') == 1 and "<script" not in page
    assert re.search(r"<h1>.*</h1><div class=\"chart\"><svg", page)
