"""A whole long nardy game against the shipped long nardy bot on the web board, by clicks, with the cube.

Playwright drives Debian's Chromium against the uvicorn server of ``test_web_browser`` (its
fixtures and skips): the human chooses long nardy with the cube, rolls, clicks the first legal
play of each roll checker by checker (the server's list of plays decides what the board accepts),
takes every double, and the game ends with a result. Skipped without playwright or Chromium.
"""

from __future__ import annotations

import re

import pytest

from test_web_browser import (  # noqa: F401  (its fixtures and skips)
    _enter_first_legal_play,
    browser,
    by,
    page,
    pytestmark,
    servers,
    shoot,
    sync_api,
)


def _human_to_act(page) -> dict:
    """Wait until the page has the server's answer and the human must act (or the game is over); the view."""
    page.wait_for_function(
        "() => { const p = window.nardyPlay, v = p.view;"
        " return v && !p.busy && (v.phase === 'over' || v.turn === 'human'); }",
        timeout=15000,
    )
    return page.evaluate("() => window.nardyPlay.view")


@pytest.mark.slow
def test_a_whole_long_nardy_game_with_the_cube_by_clicks(page, servers):
    expect = sync_api.expect
    page.goto(servers["real"] + "/?seed=11&delay=0")
    page.select_option("#variant", "long")
    page.select_option("#length", "0")
    by(page, "long-cube").check()
    by(page, "new-game").click()
    expect(by(page, "roll")).to_be_enabled()
    expect(page.locator("#score")).to_have_text(re.compile("^Long nardy for money"))
    # Both heads: the human's 15 on its 24 (top right), the bot's on the human's 12 (bottom left).
    expect(by(page, "point-24")).to_contain_text("15")
    expect(by(page, "point-12")).to_contain_text("15")
    assert by(page, "bar").locator("[data-testid=checker]").count() == 0
    shot = doubled = False
    for _ in range(400):
        view = _human_to_act(page)
        assert view["variant"] == "long"
        if view["phase"] == "over":
            break
        if view["phase"] == "doubled":
            doubled = True
            by(page, "take").click()
        elif view["phase"] in ("opening", "roll"):
            by(page, "roll").click()
        else:
            expect(by(page, "position-id")).to_have_text(re.compile(r"^[A-Za-z0-9+/]{13}$"))
            if not shot and view["plays"][0]["steps"]:
                shoot(page, "long-nardy")
                shot = True
            _enter_first_legal_play(page)
    expect(by(page, "game-over")).to_be_visible()
    expect(by(page, "game-over")).to_have_text(
        re.compile(r"(You win|nardy wins) \d+ points? \((oin|mars|double passed)\)")
    )
    result = page.evaluate("() => window.nardyPlay.view.result")
    assert result["next_game"].startswith("long:")
    assert doubled or "doubles" not in page.locator("#log").inner_text()
