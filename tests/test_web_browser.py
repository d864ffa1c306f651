"""The web board in a real browser: Playwright driving Debian's Chromium against a uvicorn server on 127.0.0.1.

Plays a whole game against the shipped bot by clicks (the first legal play each turn,
the server's dice from a fixed seed), takes the doubles of a bot that always thinks the
side on roll is a 72% favourite, analyses typed positions, recovers from bad input,
checks that /docs renders with no request leaving 127.0.0.1, and fails on any console
error. Screenshots of each mode go to $NARDY_SHOTS (default /tmp/web-shots).
Skipped when playwright or /usr/bin/chromium is missing.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import uvicorn

from bot.doors.http_app import create_app
from bot.evaluation.evaluator import ProbabilityEvaluator
from bot.facade import Bot, REPO_CHECKPOINT

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install .[browser])")
CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium)"),
    pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason=f"no shipped network at {REPO_CHECKPOINT}"),
]
SHOTS = Path(os.environ.get("NARDY_SHOTS", "/tmp/web-shots"))
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
# What Chromium itself logs for an answer of 400: expected where the test sends bad input.
BAD_REQUEST_LOG = "Failed to load resource: the server responded with a status of 400"


class Favourite(ProbabilityEvaluator):
    """The side on roll always wins 72% of games, no gammons: a bot that doubles and takes."""

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        return np.tile(np.array([0.72, 0.0, 0.0, 0.0, 0.0]), (len(boards), 1))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Server:
    """uvicorn serving ``bot``'s application on 127.0.0.1 in a thread."""

    def __init__(self, bot: Bot) -> None:
        self.port = _free_port()
        config = uvicorn.Config(create_app(bot), host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "_Server":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def servers():
    with _Server(Bot.load()) as real, _Server(Bot(Favourite())) as favourite:
        yield {"real": real.url, "favourite": favourite.url}


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, servers):
    """A page that records console errors, page errors, and every request to a host other than 127.0.0.1."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.errors, page.outside, page.allowed_logs = [], [], set()

    def block(route):
        page.outside.append(route.request.url)
        route.abort()

    page.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/]).*"), block)
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    yield page
    context.close()
    unexpected = [e for e in page.errors if not any(e.startswith(a) for a in page.allowed_logs)]
    assert not unexpected, f"console errors: {unexpected}"
    assert not page.outside, f"requests outside 127.0.0.1: {page.outside}"


def shoot(page, name: str) -> None:
    """Screenshots at 1280x800 and at phone width."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(50)
        page.screenshot(path=str(SHOTS / f"{name}-{size}.png"), full_page=size == "phone")
    page.set_viewport_size({"width": 1280, "height": 800})


def by(page, testid: str):
    return page.get_by_test_id(testid)


# ---------------------------------------------------------------- play


def _wait_for_human(page) -> str:
    """Wait until the human must act; return what: roll, move, doubled or over."""
    page.wait_for_function(
        """() => {
            const t = (id) => document.querySelector(`[data-testid="${id}"]`);
            return !t('game-over').hidden || !t('take').hidden || !t('roll').disabled
                || (t('dice').textContent !== '' && !document.getElementById('turn').textContent.startsWith('nardy'));
        }""",
        timeout=15000,
    )
    if by(page, "game-over").is_visible():
        return "over"
    if by(page, "take").is_visible():
        return "doubled"
    if by(page, "roll").is_enabled():
        return "roll"
    return "move"


def point_centres(page) -> dict[int, tuple[float, float]]:
    """The screen centre of each point's clickable area by number (1-24; 25 the bar's upper half, 0 the tray)."""
    boxes = page.evaluate("""() => {
        const out = {};
        const box = (sel) => { const e = document.querySelector(sel), r = e && e.getBoundingClientRect();
                               return r ? [r.x + r.width / 2, r.y + r.height / 2, r.height] : null; };
        for (let p = 1; p <= 24; p++) out[p] = box(`[data-testid="point-${p}"] .hit-area`);
        const bar = box('[data-testid="bar"] .bar-rect');
        if (bar) out[25] = [bar[0], bar[1] - bar[2] * 0.32, 0];
        out[0] = box('[data-testid="off"] .tray');
        return out;
    }""")
    return {int(k): (v[0], v[1]) for k, v in boxes.items()}


def _enter_first_legal_play(page) -> None:
    """Click the first legal play of the roll, step by step (source, then destination) where each point is on the
    screen, then confirm."""
    plays = page.evaluate("() => window.nardyPlay.view.plays")
    centres = point_centres(page)
    for step in plays[0]["steps"]:
        page.mouse.click(*centres[step["from"]])
        page.mouse.click(*centres[step["to"]])
    assert by(page, "confirm").is_enabled()
    by(page, "confirm").click()


@pytest.mark.slow
def test_a_whole_game_against_the_bot_by_clicks(page, servers):
    page.goto(servers["real"] + "/?seed=7&delay=0")
    page.select_option("#length", "1")
    by(page, "new-game").click()
    expect = sync_api.expect
    expect(by(page, "roll")).to_be_enabled()
    shot = False
    for _ in range(200):
        what = _wait_for_human(page)
        if what == "over":
            break
        if what == "doubled":
            by(page, "take").click()
        elif what == "roll":
            by(page, "roll").click()
            expect(by(page, "dice")).to_have_text(re.compile(r"^[1-6]{2}$"))
            expect(by(page, "position-id")).to_have_text(re.compile(r"^[A-Za-z0-9+/]{14}$"))
        else:
            if not shot:  # a source chosen: it and its destinations are highlighted
                first = page.evaluate("() => window.nardyPlay.view.plays[0].steps")[0]["from"]
                by(page, "bar" if first == 25 else f"point-{first}").click()
                shoot(page, "play")
                by(page, "undo").click()
                shot = True
            _enter_first_legal_play(page)
    expect(by(page, "game-over")).to_be_visible()
    expect(by(page, "game-over")).to_have_text(re.compile(r"(You win|nardy wins) \d+ point"))
    assert by(page, "checker").count() < 30  # someone has borne off


@pytest.mark.slow
def test_the_bot_doubles_and_the_human_takes(page, servers):
    page.goto(servers["favourite"] + "/?seed=3&delay=0")
    page.select_option("#length", "0")
    by(page, "new-game").click()
    for _ in range(20):
        what = _wait_for_human(page)
        if what == "doubled":
            break
        if what == "roll":
            by(page, "roll").click()
            page.wait_for_timeout(20)
        elif what == "move":
            _enter_first_legal_play(page)
    else:
        pytest.fail("the bot never doubled")
    sync_api.expect(by(page, "pass")).to_be_visible()
    by(page, "take").click()
    sync_api.expect(page.locator("#cube-info")).to_have_text("Cube 2, yours")
    # The bot cannot redouble a cube the human owns: the human's next turn comes with roll enabled.
    assert _wait_for_human(page) in ("roll", "over")


@pytest.mark.slow
def test_resigning_ends_the_game(page, servers):
    page.goto(servers["real"] + "/?seed=11&delay=0")
    by(page, "new-game").click()
    by(page, "roll").click()
    if _wait_for_human(page) == "move":
        _enter_first_legal_play(page)
    _wait_for_human(page)
    by(page, "resign").click()  # asks first
    page.select_option("#resign-level", "3")  # a backgammon: the bot accepts at once
    by(page, "resign-yes").click()
    sync_api.expect(by(page, "game-over")).to_have_text(re.compile(r"nardy wins 3 points"))


# ---------------------------------------------------------------- analyse


@pytest.mark.slow
def test_analyse_typed_positions(page, servers):
    page.goto(servers["real"] + "/#analyse")
    expect = sync_api.expect
    expect(by(page, "position-id")).to_have_text("4HPwATDgc/ABMA")
    expect(by(page, "checker")).to_have_count(30)
    by(page, "position-input").fill("4HPwATDgc/ABMA")
    by(page, "dice-input").fill("31")
    by(page, "analyse").click()
    expect(by(page, "hint-row").first).to_contain_text("8/5 6/5")
    assert by(page, "hint-row").count() == 16
    shoot(page, "analyse")
    by(page, "hint-row").first.click()
    expect(by(page, "position-id")).to_have_text("sGfwATDgc/ABMA")
    # No dice: the cube decision; an XGID with a match score.
    by(page, "dice-input").fill("")
    by(page, "position-input").fill("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:5:10")
    by(page, "analyse").click()
    expect(by(page, "cube-verdict")).to_contain_text("No double")
    expect(by(page, "hint-row")).to_have_count(0)
    shoot(page, "analyse-cube")


@pytest.mark.slow
def test_bad_input_shows_a_message_and_the_page_keeps_working(page, servers):
    page.allowed_logs.add(BAD_REQUEST_LOG)
    page.goto(servers["real"] + "/#analyse")
    expect = sync_api.expect
    by(page, "position-input").fill("nonsense")
    by(page, "analyse").click()
    expect(by(page, "error")).to_be_visible()
    expect(by(page, "error")).to_contain_text("nonsense")
    by(page, "position-input").fill("4HPwATDgc/ABMA")
    by(page, "dice-input").fill("71")
    by(page, "analyse").click()
    expect(by(page, "error")).to_contain_text("dice 71")
    by(page, "dice-input").fill("42")
    by(page, "analyse").click()
    expect(by(page, "error")).to_be_hidden()
    expect(by(page, "hint-row").first).to_contain_text("8/4 6/4")
    # A play of the game cannot be forged into an illegal one: the server refuses, the game goes on.
    page.goto(servers["real"] + "/?seed=5&delay=0")
    by(page, "new-game").click()
    by(page, "roll").click()
    if _wait_for_human(page) == "move":
        page.evaluate("() => window.nardyPlay.act('/v1/game/play', {move: '24/1'})")
        expect(by(page, "error")).to_contain_text("24/1")
        _enter_first_legal_play(page)
        expect(by(page, "error")).to_be_hidden()


# ---------------------------------------------------------------- /docs and the other modes


@pytest.mark.slow
def test_docs_render_offline(page, servers):
    page.goto(servers["real"] + "/docs")
    sync_api.expect(page.locator(".swagger-ui .info .title")).to_contain_text("nardy")
    sync_api.expect(page.locator(".opblock-summary-path", has_text="/v1/game/bot")).to_have_count(1)
    shoot(page, "docs")


# ---------------------------------------------------------------- match analysis

# A 1-point match, one unfinished game: nardy's opening 51 played 8/7 8/3 (a very bad play at 0-ply,
# about 9% of its winning chances lost).
BLUNDER_MAT = (
    " 1 point match\n\n Game 1\n nardy : 0                      nardy-2 : 0\n"
    "  1) 51: 8/7 8/3                 22: 13/11 13/11 6/4 6/4\n"
    "  2) 52: 13/8 24/22              64: 24/18 13/9\n"
)


@pytest.mark.slow
def test_match_analysis_steps_through_the_decisions(page, servers, tmp_path):
    from bot.doors import cli

    exported = tmp_path / "exported.mat"
    assert cli.run(["match", "--length", "1", "--seed", "3", "--mat", str(exported)]) in (0, None)
    blunder = tmp_path / "blunder.mat"
    blunder.write_text(BLUNDER_MAT)
    page.goto(servers["real"] + "/")
    expect = sync_api.expect
    page.click("#tab-match")
    expect(by(page, "analyse-match")).to_be_disabled()
    by(page, "mat-input").set_input_files(str(exported))
    by(page, "analyse-match").click()
    expect(by(page, "player-row")).to_have_count(2, timeout=30000)
    expect(by(page, "match-players")).to_contain_text("nardy-2")
    rows = by(page, "decision-row")
    assert rows.count() > 20
    expect(rows.first).to_have_class(re.compile(r"\bcurrent\b"))
    expect(by(page, "decision-count")).to_have_text(f"1 / {rows.count()}")
    expect(by(page, "prev-decision")).to_be_disabled()
    expect(by(page, "checker")).to_have_count(30)
    expect(by(page, "position-id")).to_have_text("4HPwATDgc/ABMA")
    expect(by(page, "dice")).to_have_text(re.compile(r"^[1-6]{2}$"))
    first_id = by(page, "position-id").text_content()
    by(page, "next-decision").click()
    expect(rows.nth(1)).to_have_class(re.compile(r"\bcurrent\b"))
    expect(by(page, "position-id")).not_to_have_text(first_id)
    expect(by(page, "prev-decision")).to_be_enabled()
    rows.nth(5).click()
    expect(by(page, "decision-count")).to_have_text(f"6 / {rows.count()}")
    by(page, "prev-decision").click()
    expect(by(page, "decision-count")).to_have_text(f"5 / {rows.count()}")
    shoot(page, "match")
    # A hand-made game with a blunder: its row is marked and highlighted, "next error" goes to it.
    page.select_option("#match-depth", "0")
    by(page, "mat-input").set_input_files(str(blunder))
    by(page, "analyse-match").click()
    expect(by(page, "decision-row").first).to_contain_text("8/7 8/3")
    first = by(page, "decision-row").first
    expect(first).to_have_attribute("data-mark", "very bad")
    expect(first).to_have_class(re.compile(r"\bmark-very-bad\b"))
    assert first.evaluate("e => getComputedStyle(e).backgroundColor") not in ("rgba(0, 0, 0, 0)", "transparent")
    expect(by(page, "decision-detail")).to_contain_text("very bad")
    expect(by(page, "decision-detail")).to_contain_text("Best: 24/23 13/8")
    # "Next error" goes to the next marked decision, wrapping round to the first.
    marked = page.locator('[data-testid="decision-row"][data-mark]').count()
    for _ in range(marked):
        by(page, "next-error").click()
        expect(page.locator('[data-testid="decision-row"].current')).to_have_attribute("data-mark", re.compile("."))
    expect(first).to_have_class(re.compile(r"\bcurrent\b"))
    shoot(page, "match-error")


@pytest.mark.slow
def test_an_xg_file_is_analysed_and_an_illegal_one_named(page, servers):
    """eXtreme Gammon's binary files go up as they are (tests/data/xg/README.md)."""
    page.allowed_logs.add(BAD_REQUEST_LOG)
    xg = Path(__file__).parent / "data" / "xg"
    page.goto(servers["real"] + "/")
    expect = sync_api.expect
    page.click("#tab-match")
    by(page, "mat-input").set_input_files(str(xg / "B4_SrGcsKAQmoTyHlgJCbM.xg"))
    by(page, "analyse-match").click()
    expect(by(page, "player-row")).to_have_count(2, timeout=30000)
    expect(by(page, "match-players")).to_contain_text("Bluepoint02")
    assert by(page, "decision-row").count() > 40
    by(page, "mat-input").set_input_files(str(xg / "hQ8sVn2LbTdF4wRm.xg"))
    by(page, "analyse-match").click()
    expect(by(page, "error")).to_contain_text("game 2 record 186")


@pytest.mark.slow
def test_a_damaged_mat_file_shows_a_message_and_the_page_keeps_working(page, servers, tmp_path):
    page.allowed_logs.add(BAD_REQUEST_LOG)
    damaged = tmp_path / "damaged.mat"
    damaged.write_text("garbage\nnot a match\n")
    good = tmp_path / "good.mat"
    good.write_text(BLUNDER_MAT)
    page.goto(servers["real"] + "/")
    expect = sync_api.expect
    page.click("#tab-match")
    by(page, "mat-input").set_input_files(str(damaged))
    by(page, "analyse-match").click()
    expect(by(page, "error")).to_be_visible()
    expect(by(page, "error")).to_contain_text("line 1")
    expect(by(page, "analyse-match")).to_be_enabled()
    by(page, "mat-input").set_input_files(str(good))
    by(page, "analyse-match").click()
    expect(by(page, "error")).to_be_hidden()
    expect(by(page, "player-row")).to_have_count(2)
    # The other modes still work.
    page.click("#tab-analyse")
    by(page, "dice-input").fill("31")
    by(page, "analyse").click()
    expect(by(page, "hint-row").first).to_contain_text("8/5 6/5")


@pytest.mark.slow
def test_set_up_a_position_on_the_board_and_analyse_it(page, servers):
    from engine.position_id import encode_position_id

    page.goto(servers["real"] + "/#analyse")
    expect = sync_api.expect
    by(page, "setup").click()
    expect(by(page, "position-input")).to_have_value(re.compile(r"^4HPwATDgc/ABMA\b"))  # from the position shown
    by(page, "setup-clear").click()
    expect(by(page, "checker")).to_have_count(0)
    for _ in range(3):
        by(page, "point-6").click()
    by(page, "point-5").click()
    by(page, "bar").click()
    for _ in range(2):
        by(page, "point-19").click(modifiers=["Shift"])
    by(page, "point-24").click(button="right")
    by(page, "point-5").click(modifiers=["Shift"])  # takes bottom's checker off point 5 again
    expect(by(page, "checker")).to_have_count(7)
    board = np.zeros(26, dtype=int)
    board[6], board[25], board[19], board[24] = 3, 1, -2, -1
    expected = encode_position_id(board)
    expect(by(page, "position-input")).to_have_value(re.compile("^" + re.escape(expected) + ":"))  # and the Match ID
    expect(by(page, "position-id")).to_have_text(expected)
    shoot(page, "setup")
    by(page, "dice-input").fill("21")
    by(page, "analyse").click()
    expect(by(page, "hint-row").first).to_be_visible()
    expect(by(page, "position-id")).to_have_text(expected)
    expect(by(page, "error")).to_be_hidden()
    expect(by(page, "setup")).to_have_attribute("aria-pressed", "false")


@pytest.mark.slow
def test_the_level_menu_plays_the_bot_at_a_named_level(page, servers):
    page.goto(servers["real"] + "/?seed=7&delay=0")
    page.select_option("#level", "beginner")
    bodies: list[dict] = []
    page.on("request", lambda r: bodies.append(r.post_data_json) if r.url.endswith("/v1/game/bot") else None)
    by(page, "new-game").click()
    for _ in range(20):
        what = _wait_for_human(page)
        if bodies or what == "over":
            break
        if what == "roll":
            by(page, "roll").click()
        elif what == "doubled":
            by(page, "take").click()
        else:
            _enter_first_legal_play(page)
    assert bodies and bodies[0]["playing_level"] == "beginner" and "plies" not in bodies[0]
