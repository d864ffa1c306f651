"""The Analyse mode's score matrix in a real browser (Playwright driving Debian's Chromium): a position set up,
a 7-point matrix asked for, and the table's verdicts those of ``GET /v1/cube/matrix`` for the same position; at a
phone's 390x844 the page does not scroll sideways (the table scrolls in its own box). Skipped as
tests/test_web_browser.py is, whose server, browser and page fixtures these tests share.
"""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import urlencode

import numpy as np
import pytest

from bot.facade import REPO_CHECKPOINT
from engine.position_id import encode_position_id
from test_web_browser import (  # noqa: F401  (fixtures)
    CHROMIUM,
    browser,
    by,
    page,
    servers,
    sync_api,
)

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium)"),
    pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason=f"no shipped network at {REPO_CHECKPOINT}"),
]
PHONE = {"width": 390, "height": 844}


def racing_lead() -> np.ndarray:
    """Bottom's view: a pure race that bottom leads, close enough to the doubling window for the matrix to vary."""
    board = np.zeros(26, dtype=int)
    board[1:7] = [2, 2, 3, 3, 2, 3]
    board[19:25] = [-3, -3, -3, -2, -2, -2]
    return board


def api_matrix(server: str, position: str, length: int) -> dict:
    query = urlencode({"position": position, "length": length, "plies": 0})
    with urllib.request.urlopen(f"{server}/v1/cube/matrix?{query}", timeout=60) as answer:
        return json.load(answer)


@pytest.mark.slow
def test_a_position_in_analyse_gets_the_apis_seven_point_matrix(page, servers):
    page.goto(servers["real"] + "/?delay=0#analyse")
    position = encode_position_id(racing_lead())
    by(page, "position-input").fill(position)
    by(page, "dice-input").fill("")
    by(page, "analyse").click()
    sync_api.expect(by(page, "cube-verdict")).to_be_visible()
    by(page, "matrix-length").fill("7")
    by(page, "score-matrix").click()
    table = by(page, "matrix-table")
    sync_api.expect(table).to_be_visible()

    expected = api_matrix(servers["real"], position, 7)
    rows = table.locator("tbody tr")
    sync_api.expect(rows).to_have_count(7)
    shown = [row.locator("[data-testid=matrix-verdict]").all_text_contents() for row in rows.all()]
    assert shown == [[c["label"] for c in row] for row in expected["matrix"]["rows"]]
    assert len({label for row in shown for label in row}) > 2, shown  # a matrix worth a glance, not one verdict
    money = by(page, "matrix-money").locator("[data-testid=matrix-verdict]").all_text_contents()
    assert money == [c["label"] for c in expected["money"]]
    sync_api.expect(by(page, "score-matrix-result")).to_contain_text(expected["position_id"])
    # Coloured by kind: a cell's class follows its verdict, and the verdicts differ.
    colours = {}
    for cell in table.locator("tbody td").all():
        label = cell.locator("[data-testid=matrix-verdict]").text_content()
        colours.setdefault(label, set()).add(cell.get_attribute("class"))
    assert all(len(classes) == 1 for classes in colours.values()) and len(colours) > 2, colours

    # Set up from the position analysed: the matrix is still that position's.
    by(page, "setup").click()
    sync_api.expect(by(page, "setup-on-roll")).to_be_visible()
    by(page, "score-matrix").click()
    sync_api.expect(table.locator("tbody tr")).to_have_count(7)
    sync_api.expect(by(page, "score-matrix-result")).to_contain_text(expected["position_id"])
    by(page, "setup").click()

    # The Crawford game has no cube: with the box ticked, the 1-away row and column say so.
    by(page, "matrix-crawford").check()
    by(page, "score-matrix").click()
    first_row = table.locator("tbody tr").first.locator("[data-testid=matrix-verdict]")
    sync_api.expect(first_row).to_have_text(["dead"] + ["no cube"] * 6)

    # A phone: the page keeps to the screen's width; the table scrolls in its own box.
    by(page, "matrix-length").fill("25")
    by(page, "score-matrix").click()
    sync_api.expect(table.locator("tbody tr")).to_have_count(25)
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(80)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    scroll = page.locator(".matrix-scroll")
    assert scroll.evaluate("(e) => e.scrollWidth > e.clientWidth"), "a 25-point table is wider than a phone"


@pytest.mark.slow
def test_a_bad_length_is_refused_in_the_page(page, servers):
    page.goto(servers["real"] + "/?delay=0#analyse")
    by(page, "matrix-length").fill("2")
    by(page, "score-matrix").click()
    sync_api.expect(by(page, "error")).to_contain_text("3 to 25 points")
