"""Training an uploaded house ruleset on the page (issue 34, item 11), in a real browser
at a desktop size and a phone size: docs/examples/house.toml uploaded, "Train it here",
the <progress> bar advancing while the server trains, then the hand in the box solved.

A server of the test's own (tests/web_server.py) with a cache folder of its own and a
small training size (``CAPSA_SERVE_TRAIN``); the browser is tests/test_web_browser.py's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from evaluator import tables as ev_tables
from solver.apps.web.training import TRAIN_ENV
from tests.test_web_browser import HAND, ROWS, as_symbols
from tests.test_web_table import catalogue, size, table_page  # noqa: F401 - fixture
from tests.web_server import serve

ROOT = Path(__file__).resolve().parent.parent
HOUSE_FILE = ROOT / "docs" / "examples" / "house.toml"
#: Long enough for the page to see the bar between 0 and 1 (it asks every 0.7 s), short
#: enough for a test: seconds.
SIZE = "6,4000"


@pytest.fixture
def trainer(monkeypatch, tmp_path):
    """`capsa serve` with a cache of its own (the lookup tables copied in, so it need not
    build them) that trains at ``SIZE``."""
    cache = tmp_path / "cache"
    cache.mkdir()
    ev_tables.get_tables()
    if ev_tables.cache_path().exists():
        shutil.copy(ev_tables.cache_path(), cache)
    monkeypatch.setenv("CAPSA_CACHE_DIR", str(cache))
    monkeypatch.setenv(TRAIN_ENV, SIZE)
    s = serve()
    yield s, cache
    s.stop()


def test_an_uploaded_ruleset_trains_on_the_page_then_solves(browser, trainer, size):  # noqa: F811
    server, cache = trainer
    ctx, page, watch = table_page(browser, server, size)
    tap = page.tap if size[0] < 500 else page.click
    words = catalogue("en")
    page.fill("#hand-input", as_symbols(HAND))
    expect(page.locator("#hand-status")).to_have_text("13 cards: ready")
    page.select_option("#policy", "field")
    page.set_input_files("#rules-file", str(HOUSE_FILE))
    summary = page.locator("#rules-summary")
    expect(summary).to_contain_text("capsa train --rules house.toml")  # the other way
    button = page.locator("#train-start")
    expect(button).to_be_visible()
    minutes = page.evaluate("state.trainSize.minutes")
    assert button.inner_text() == words["train.button"].replace("{minutes}", str(minutes))
    box = button.bounding_box()
    assert box["x"] + box["width"] <= size[0] and (size[0] >= 500 or box["height"] >= 44)
    bar = page.locator("#train-progress")
    expect(bar).to_be_hidden()
    page.evaluate(
        "() => { window.barSeen = []; const bar = document.querySelector('#train-progress');"
        " new MutationObserver(() => window.barSeen.push(bar.value))"
        ".observe(bar, {attributes: true, attributeFilter: ['value']}); }"
    )
    tap("#train-start")
    expect(bar).to_be_visible()
    expect(button).to_be_hidden()
    # the page stays usable while it trains: nothing is busy, the server answers
    assert page.evaluate("state.busy") is False
    assert page.evaluate("fetch('/api/deal?seed=3').then((r) => r.status)") == 200
    page.wait_for_selector("#answer .timing")  # trained, then the hand in the box solved
    seen = page.evaluate("window.barSeen")
    assert any(0 < v < 1 for v in seen), seen  # the bar advanced while it trained
    assert seen == sorted(seen), seen
    name = page.evaluate("state.training.name")
    expect(page.locator("#train-status")).to_have_text(words["train.done"].replace("{name}", name))
    expect(bar).to_be_hidden()
    expect(button).to_be_hidden()
    assert "capsa train" not in summary.inner_text()  # ready now
    answer = page.evaluate("state.answer.data")
    assert (answer["rules"], answer["policy"]) == (name, "field")
    assert sorted(" ".join(answer[r] for r in ROWS).split()) == sorted(HAND.split())
    assert len(list(cache.glob("field-*.npz"))) == 1  # in the server's own cache
    ctx.close()
    assert watch.problems == []
