"""docs/report.png: the top of the HTML report of docs/examples/session.txt, as
docs/report.md shows it.

``python -m tests.report_screenshot`` runs ``capsa batch docs/examples/session.txt -o
session.jsonl --policy field`` and ``capsa report session.jsonl -o report.html`` in a
scratch folder (the commands of docs/report.md), then opens the page in headless
Chromium (Debian's, as tests/test_web_browser.py does) at 1200 × 1600 and writes the
picture. ``--lang zh-Hans --out docs/report-zh.png`` makes it in another language. The
page names the naturals in Chinese, so the picture needs a CJK font on the machine
(Debian: ``apt-get install fonts-noto-cjk``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.web_fixtures import CHROMIUM
from tests.web_server import capsa_command

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="en")
    ap.add_argument("--out", default=str(ROOT / "docs" / "report.png"))
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="capsa-report-") as tmp:
        folder = Path(tmp)
        session = ROOT / "docs" / "examples" / "session.txt"
        run = [*capsa_command(), "batch", str(session), "-o", "session.jsonl", "--policy", "field"]
        subprocess.run(run, cwd=folder, check=True, capture_output=True)
        page_args = ["report", "session.jsonl", "-o", "report.html", "--lang", args.lang]
        subprocess.run([*capsa_command(), *page_args], cwd=folder, check=True, capture_output=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
            page = browser.new_page(viewport={"width": 1200, "height": 1600})
            page.goto((folder / "report.html").as_uri())
            page.screenshot(path=args.out)
            browser.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
