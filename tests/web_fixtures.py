"""The page tests' `capsa serve`, one a test process, and Chromium, one a test file
(tests/conftest.py imports them, so every test file that names them shares them).

The server and the browser are started once a process, not once a file: each of the
twenty page-test files started its own (a `capsa serve` loads its kernels and tables
before it answers, a few CPU seconds each time; Playwright's driver and Chromium start in
about a CPU second, and a browser's first page loads cost more than its later ones:
docs/architecture.md#tests). A test that needs a server of its own (other options, one
it stops) starts it with ``tests.web_server.serve``. Playwright's synchronous API keeps
an event loop running on the test process's thread while its browser is open, where
``asyncio.run`` refuses to start: the server's own tests run their coroutines with
``tests.helpers.run_async``, on a thread of their own.

Chromium is Debian's headless shell (``/usr/bin/chromium-headless-shell``; else
``/usr/bin/chromium``; ``CAPSA_CHROMIUM`` names another), launched by Playwright with a
fresh, empty profile (never a browser downloaded by ``playwright install``). The shell is
Chromium's own engine without the windowing of the full browser, the build Playwright
itself runs headless tests in; the page tests took a third less CPU in it than in Debian's
full ``chromium`` (docs/architecture.md#tests). `.ci/run` installs it when it is
missing, and the page tests fail, not skip, when it cannot start;
``CAPSA_SKIP_BROWSER=1`` skips them on purpose.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.web_server import serve

#: The Chromium the page tests drive: ``CAPSA_CHROMIUM``, else Debian's headless shell,
#: else Debian's full browser (a developer who installed only that one).
CHROMIUM = os.environ.get("CAPSA_CHROMIUM") or next(
    (p for p in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if Path(p).exists()),
    "/usr/bin/chromium-headless-shell",
)
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


#: Pages a test gave back (tests/test_web_browser.py's ``open_page`` and ``Lease``), kept
#: open for the next test with the same browser options: a fresh context is a new Chromium
#: renderer, about 1 CPU second a page test, against a quarter of that to load the page
#: again in one already open (docs/architecture.md#tests). Keyed by the browser's ``id``,
#: the server's URL and the context's options; the browser's are dropped as it closes.
SHARED: dict[tuple, tuple] = {}


@pytest.fixture(scope="session")
def browser():
    if os.environ.get("CAPSA_SKIP_BROWSER") == "1":
        pytest.skip("CAPSA_SKIP_BROWSER=1: the browser tests are skipped on request")
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install it (apt-get install -y "
            "chromium-headless-shell; .ci/run does), point CAPSA_CHROMIUM at it, or set "
            "CAPSA_SKIP_BROWSER=1 to skip these tests",
            pytrace=False,
        )
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=120_000)
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
    except Exception as exc:  # noqa: BLE001 - say why, and fail
        pw.stop()
        pytest.fail(f"Chromium at {CHROMIUM} did not start: {exc}", pytrace=False)
    yield b
    for key in [k for k in SHARED if k[0] == id(b)]:
        del SHARED[key]
    b.close()
    pw.stop()


@pytest.fixture(scope="session")
def server():
    s = serve()
    yield s
    s.stop()
