"""Latency of `capsa serve` answers, server side and in the browser.

    python benchmarks/web_latency.py [--hands 20] [--seed 1] [--no-browser]

Times ``solver.solve`` in process for reference, then starts the real
``capsa serve --port 0`` (warm: it loads the kernels and field tables
before it says where it listens), then, for the same random hands, times

- ``api``: ``POST /api/solve`` from a Python client: the server's own solve time
  (``Server-Timing``) and the client's round trip;
- ``page``: the page in headless Chromium (Debian's, as the browser tests use): the hand
  typed, Solve clicked, the time from the click until the answer is drawn (the page's
  own measurement, shown under every answer) and the server's part of it.

for ``field`` and for ``mc`` at 3,000 opponent hands. Prints medians and 90th
percentiles in milliseconds. Not collected by pytest (the file name is not bench_*).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from evaluator import format_cards
from solver.strategy.hands.deal import random_hands

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def start_server() -> tuple[subprocess.Popen, str]:
    script = shutil.which("capsa", path=str(Path(sys.executable).parent))
    cmd = [script] if script else [sys.executable, "-m", "solver"]
    proc = subprocess.Popen([*cmd, "serve", "--port", "0"], stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        m = re.search(r"serving on (http://\S+/)", line)
        if m:
            return proc, m.group(1)
    raise SystemExit(f"capsa serve exited {proc.wait()}")


def summary(name: str, ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=10)[-1] if len(ms) > 1 else ms[0]
    return f"{name:<34} {statistics.median(ms):>9.1f} {q:>9.1f} {len(ms):>5}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()

    import httpx2 as httpx

    hands = [
        format_cards(h[::-1]) for h in random_hands(np.random.default_rng(args.seed), args.hands)
    ]
    policies = {"field": {"policy": "field"}, "mc 3000": {"policy": "mc", "samples": 3000}}
    rows = direct_rows(hands, policies)
    proc, url = start_server()
    try:
        # A new connection a request, as curl makes: on a kept-alive connection the
        # client's two writes (headers, then body) meet Nagle and a delayed ACK (40 ms).
        fresh = httpx.Limits(max_keepalive_connections=0)
        with httpx.Client(base_url=url, timeout=120, limits=fresh) as client:
            for name, opts in policies.items():
                server, trip = [], []
                for i, hand in enumerate(hands):
                    t0 = time.perf_counter()
                    res = client.post("/api/solve", json={"hand": hand, "seed": i, **opts})
                    trip.append(1000 * (time.perf_counter() - t0))
                    res.raise_for_status()
                    server.append(float(res.headers["server-timing"].split("dur=")[1]))
                rows += [
                    summary(f"api {name}: server solve", server),
                    summary(f"api {name}: client round trip", trip),
                ]
        if not args.no_browser:
            rows += browser_rows(url, hands, policies)
    finally:
        proc.terminate()
        proc.wait()
    print(f"{'measurement (ms)':<34} {'median':>9} {'p90':>9} {'n':>5}")
    for row in rows:
        print(row)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


def direct_rows(hands: list[str], policies: dict) -> list[str]:
    """The same solves called in this process, no server: what the web adds is the rest."""
    from solver.strategy.solving.solve import solve

    solve(hands[0], policy="mc", samples=300, seed=0)  # load the kernels first
    rows = []
    for name, opts in policies.items():
        ms = []
        for i, hand in enumerate(hands):
            t0 = time.perf_counter()
            solve(hand, seed=i, **opts)
            ms.append(1000 * (time.perf_counter() - t0))
        rows.append(summary(f"solve() in process, {name}", ms))
    return rows


def browser_rows(url: str, hands: list[str], policies: dict) -> list[str]:
    from playwright.sync_api import sync_playwright

    rows = []
    chromium = os.environ.get("CAPSA_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector("body[data-ready=true]")
        for name, opts in policies.items():
            page.select_option("#policy", opts["policy"])
            if "samples" in opts:
                page.fill("#samples", str(opts["samples"]))
            server, drawn = [], []
            for i, hand in enumerate(hands):
                if opts["policy"] == "mc":
                    page.fill("#seed", str(i))
                page.fill("#hand-input", hand)
                page.evaluate("document.querySelector('#answer').replaceChildren()")
                page.click("#solve")
                timing = page.wait_for_selector("#answer .timing", timeout=120_000)
                drawn.append(float(timing.get_attribute("data-page-ms")))
                server.append(float(timing.get_attribute("data-server-ms")))
            rows += [
                summary(f"page {name}: server solve", server),
                summary(f"page {name}: click to answer drawn", drawn),
            ]
        browser.close()
    return rows


if __name__ == "__main__":
    main()
