"""The players' rules of long nardy as a page of the web app (/rules/long-nardy), and where players are sent to it:
the board's link (index.html), the terminal game's ``help``; and the OpenAPI description naming what nardy is."""

from __future__ import annotations

import io
import re
import warnings

import pytest

from bot.doors.cli import run
from bot.doors.http_app import create_app
from bot.doors.web_app import WEB_DIR
from bot.doors.web_rules import REPO_DOCS, markdown_to_html
from conftest import tiny_bot

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(tiny_bot(2)))


def test_the_long_nardy_rules_are_a_page_of_the_web_app(client):
    answer = client.get("/rules/long-nardy")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    page = answer.text
    assert "<title>Long nardy: the rules, for players</title>" in page
    assert '<h2 id="the-head-rule-r6">The head rule (R6)</h2>' in page
    assert '<a class="api-link" href="/" data-testid="back-to-board">' in page
    # The start position's diagram stays a block of text; the notation table is a table.
    assert "<pre><code>$ python -m engine long-nardy show 24x15/24x15" in page
    assert "<tr><td><code>24/18</code></td><td>one checker from 24 to 18</td></tr>" in page
    assert "<li><strong>oin</strong>, 1 point," in page
    # Every link inside the page reaches a heading of it.
    anchors = set(re.findall(r'href="#([^"]+)"', page))
    assert anchors and anchors <= set(re.findall(r' id="([^"]+)"', page))
    # Served offline: nothing but this server's own stylesheet.
    assert not re.search(r'(src|href)="(https?:)?//', page)


def test_the_rules_page_has_every_rule_of_the_markdown(client):
    page = client.get("/rules/long-nardy").text
    source = (REPO_DOCS / "long_nardy_rules.md").read_text(encoding="utf-8")
    for number in sorted(set(re.findall(r"\bR\d+\b", source))):
        assert number in page


def test_an_unknown_rules_page_is_a_404_naming_the_pages_there_are(client):
    answer = client.get("/rules/chess")
    assert answer.status_code == 404
    assert answer.json() == {"message": "no rules page 'chess'; there is /rules/long-nardy"}


def test_markdown_text_is_escaped_not_read_as_html():
    assert markdown_to_html("a <script>x</script> & `<b>`") == (
        "<p>a &lt;script&gt;x&lt;/script&gt; &amp; <code>&lt;b&gt;</code></p>"
    )
    assert markdown_to_html("```\n<O> & X\n```") == "<pre><code>&lt;O&gt; &amp; X</code></pre>"


def test_the_board_links_the_rules_page():
    index = (WEB_DIR / "index.html").read_text(encoding="utf-8")
    link = re.search(r'<a id="rules-link"[^>]*>', index)
    assert link and 'href="/rules/long-nardy"' in link.group(0) and 'target="_blank"' in link.group(0)


def test_the_terminal_games_help_names_the_rules():
    out = io.StringIO()
    status = run(
        ["play", "--variant", "long", "--seed", "3"],
        stdin=io.StringIO("help\nquit\n"),
        stdout=out,
        stderr=io.StringIO(),
    )
    assert status == 0
    assert "The rules, for players: docs/long_nardy_rules.md, or /rules/long-nardy on the web board" in out.getvalue()
    assert (REPO_DOCS / "long_nardy_rules.md").is_file()


def test_the_openapi_description_says_what_nardy_is(client):
    description = client.get("/openapi.json").json()["info"]["description"]
    assert description.startswith("A neural-network bot for backgammon and long nardy: the web board at `/`")
    assert "TD-Gammon" not in description
