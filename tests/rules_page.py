"""The rules page that `capsa serve` shows at /rules: docs/rules.md rendered to HTML.

``python -m tests.rules_page`` writes ``solver/apps/web/static/rules.html`` from
docs/rules.md (rendered by markdown-it-py, which Rich already needs, with raw HTML in
the Markdown turned off: the page holds only what Markdown makes, escaped); ``--check``
only compares, as tests/test_web_serve.py does. The page is pre-rendered so that the
server ships it as one more static file: no Markdown at run time, no script, and the
same Content-Security-Policy as every page (``'self'`` only). Headings get GitHub's
anchors (tests/test_docs.py's ``slug``), so ``/rules#fouls`` is docs/rules.md#fouls.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs" / "rules.md"
TARGET = ROOT / "solver" / "apps" / "web" / "static" / "rules.html"

HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>capsa: the rules</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/style.css">
</head>
<body class="rules-page">
<header><div class="brand"><span class="logo" aria-hidden="true">♠</span> capsa
<span class="tagline"><a href="/">back to the page</a></span></div></header>
<main class="rules-text">
<!-- Written by python -m tests.rules_page from docs/rules.md: edit that file, not this. -->
"""
FOOT = """</main>
</body>
</html>
"""


def slug(heading: str) -> str:
    """GitHub's anchor for a heading (as tests/test_docs.py computes it)."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def render(markdown: str) -> str:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    tokens = md.parse(markdown)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            tok.attrSet("id", slug(tokens[i + 1].content))
        style = tok.attrGet("style")
        if style is not None:  # a table column's alignment: a class, not inline CSS
            del tok.attrs["style"]
            tok.attrSet("class", "align-" + str(style).split(":")[-1].strip())
    body = md.renderer.render(tokens, md.options, {})
    return HEAD + body + FOOT


def main(argv: list[str]) -> int:
    text = render(SOURCE.read_text(encoding="utf-8"))
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is not docs/rules.md as it is: python -m tests.rules_page")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET} ({len(text):,} characters)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
