"""The players' rules pages of the web board, served offline: ``GET /rules/long-nardy``.

The page is ``docs/long_nardy_rules.md`` (beside the package in a checkout, ``share/nardy/`` under the
installation's data directory otherwise) turned into HTML by ``markdown_to_html``, which reads the plain
Markdown those pages are written in: headings, paragraphs, lists, tables, code blocks, inline code, bold,
italics and links. Anything else shows as its text.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, JSONResponse, Response

from bot.facade import _data_directories

REPO_DOCS = Path(__file__).resolve().parents[2] / "docs"
# The rules pages the board links: URL name -> Markdown file (docs/ in a checkout, share/nardy/ installed).
RULES = {"long-nardy": "long_nardy_rules.md"}
_INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|\*([^*\s][^*]*?)\*|\[([^\]]+)\]\(([^)\s]+)\)")


def rules_file(name: str) -> Path | None:
    """The Markdown file of the rules page ``name`` (a key of ``RULES``), or None when it is not installed."""
    places = [REPO_DOCS] + [data / "share" / "nardy" for data in _data_directories()]
    return next((place / RULES[name] for place in places if (place / RULES[name]).is_file()), None)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it, so that the pages' own links (``#bearing-off-r11``) work.

    >>> slug("The first turn: 6-6, 4-4 and 3-3 (R7)")
    'the-first-turn-6-6-4-4-and-3-3-r7'
    """
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def inline(text: str) -> str:
    """One line's Markdown as HTML: code, bold, italics and links; the rest escaped.

    >>> inline("**oin**: `6/off` and <b> [R1](#r1)")
    '<strong>oin</strong>: <code>6/off</code> and &lt;b&gt; <a href="#r1">R1</a>'
    """
    out, last = [], 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[last : m.start()], quote=False))
        code, bold, italic, label, href = m.groups()
        if code is not None:
            out.append(f"<code>{html.escape(code, quote=False)}</code>")
        elif bold is not None:
            out.append(f"<strong>{inline(bold)}</strong>")
        elif italic is not None:
            out.append(f"<em>{inline(italic)}</em>")
        else:
            out.append(f'<a href="{html.escape(href)}">{inline(label)}</a>')
        last = m.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _table(rows: list[str]) -> str:
    head, body = _cells(rows[0]), [_cells(r) for r in rows[2:]]
    th = "".join(f"<th>{inline(c)}</th>" for c in head)
    trs = "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in body)
    return f'<div class="table"><table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table></div>'


def markdown_to_html(text: str) -> str:
    """The body of a page written in plain Markdown, as HTML.

    >>> print(markdown_to_html("# Title\\n\\nA *b*\\nc.\\n\\n- one\\n  two\\n- three\\n\\n| a |\\n|---|\\n| 1 |"))
    <h1 id="title">Title</h1>
    <p>A <em>b</em>
    c.</p>
    <ul><li>one
    two</li><li>three</li></ul>
    <div class="table"><table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table></div>
    """
    lines, blocks, i = text.splitlines(), list[str](), 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("```"):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
            blocks.append(f"<pre><code>{html.escape(chr(10).join(lines[i + 1 : end]), quote=False)}</code></pre>")
            i = end + 1
        elif m := re.match(r"(#{1,6}) (.*)", line):
            level, heading = len(m.group(1)), m.group(2).strip()
            blocks.append(f'<h{level} id="{slug(heading)}">{inline(heading)}</h{level}>')
            i += 1
        elif line.startswith("|"):
            end = next((j for j in range(i, len(lines)) if not lines[j].startswith("|")), len(lines))
            blocks.append(_table(lines[i:end]))
            i = end
        elif re.match(r"([-*]|\d+\.) ", line):
            ordered, items = bool(re.match(r"\d", line)), list[list[str]]()
            while i < len(lines) and (re.match(r"([-*]|\d+\.) ", lines[i]) or lines[i].startswith("  ")):
                if lines[i].startswith("  "):
                    items[-1].append(lines[i].strip())
                else:
                    items.append([lines[i].split(" ", 1)[1]])
                i += 1
            tag = "ol" if ordered else "ul"
            blocks.append(f"<{tag}>" + "".join(f"<li>{inline(chr(10).join(it))}</li>" for it in items) + f"</{tag}>")
        else:
            start = i
            while i < len(lines) and lines[i].strip() and not re.match(r"(```|#{1,6} |\||([-*]|\d+\.) )", lines[i]):
                i += 1
            blocks.append(f"<p>{inline(chr(10).join(lines[start:i]))}</p>")
    return "\n".join(blocks)


def rules_page(name: str) -> str:
    """The whole HTML page of the rules page ``name``, with a way back to the board."""
    path = rules_file(name)
    if path is None:
        raise FileNotFoundError(f"the rules page {RULES[name]} is not installed")
    text = path.read_text(encoding="utf-8")
    first = re.search(r"^# (.*)$", text, re.MULTILINE)
    title = html.escape(first.group(1) if first else name)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<title>{title}</title>\n<link rel="icon" href="data:,">\n<link rel="stylesheet" href="/web/style.css">\n'
        '</head>\n<body class="rules-page">\n<header><h1>nardy</h1><a class="api-link" href="/" '
        'data-testid="back-to-board">Back to the board</a></header>\n'
        f'<article class="rules" data-testid="rules">\n{markdown_to_html(text)}\n</article>\n</body>\n</html>\n'
    )


def add_rules_routes(app: FastAPI) -> None:
    """Serve each page of ``RULES`` at ``/rules/<name>``."""

    @app.get("/rules/{name}", include_in_schema=False)
    def rules(name: str) -> Response:
        if name not in RULES:
            known = ", ".join(f"/rules/{n}" for n in RULES)
            return JSONResponse({"message": f"no rules page {name!r}; there is {known}"}, status_code=404)
        try:
            return HTMLResponse(rules_page(name))
        except FileNotFoundError as e:
            return JSONResponse({"message": str(e)}, status_code=404)
