"""README.md and docs/ tell the truth: every console example prints what the page shows
(tests/readme_examples.py replays them; ``python -m tests.readme_examples`` rewrites
them from a real run), the Python examples run, every link to a file of the repository
resolves, the quick start is the two commands CI runs, and the README stays short."""

from __future__ import annotations

import difflib
import re
import subprocess
import sys

import pytest

from solver.apps import bench
from tests import readme_examples as X

ROOT = X.ROOT
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [p for p in X.PAGES if X.examples(p)]


@pytest.mark.parametrize("page", [
    p if p.name == "README.md" else pytest.param(p, marks=pytest.mark.slow) for p in PAGES
], ids=[p.name for p in PAGES])  # fmt: skip
def test_console_examples_print_what_the_page_shows(page):
    """What each page's examples print, replayed as a newcomer types them: the README's by
    default (the page every newcomer starts from), each docs page's under ``-m slow``
    (CI's second step: 25 CPU seconds of commands a run, docs/architecture.md#tests)."""
    wrong = []
    for ex, got in X.replay(page):
        if got != ex.shown:
            diff = difflib.unified_diff(
                ex.shown.splitlines(), got.splitlines(), "shown", "printed", lineterm=""
            )
            wrong.append(f"{ex.page}:{ex.line}: $ {ex.command}\n" + "\n".join(diff))
    assert not wrong, "\n\n".join(wrong) + "\n(python -m tests.readme_examples rewrites them)"


def test_the_examples_fit_80_columns_and_end_no_line_in_spaces():
    """Issue 36: what the pages show (what capsa prints at 80 columns) fits 80 columns,
    tables included, and no line ends in spaces (a byte-exact diff holds). Data (JSON or
    CSV records) and one-line errors are lines of their own whatever their length."""
    from rich.cells import cell_len

    assert X.WIDTH == 80
    wide, trailing = [], []
    for page in PAGES:
        for ex in X.examples(page):
            data = "csv" in ex.command or "--format json" in ex.command
            for line in ex.shown.splitlines():
                if line != line.rstrip():
                    trailing.append(f"{ex.page}:{ex.line}: {line!r}")
                if cell_len(line) > X.WIDTH and not (
                    data or line.startswith(("{", "capsa: error: "))
                ):
                    wide.append(f"{ex.page}:{ex.line}: {line}")
    assert not wide, "\n".join(wide)
    assert not trailing, "\n".join(trailing)


def test_the_examples_cover_every_kind_the_issue_names():
    """Seeds, known opponents, rank, rules, a batch of a file in the repository and its
    report are all replayed."""
    commands = [ex.command for page in PAGES for ex in X.examples(page)]
    assert any("solve" in c and "--seed" in c for c in commands)
    assert any("--against" in c for c in commands)
    assert any(c.startswith("capsa rank") for c in commands)
    assert any(c.startswith("capsa rules") for c in commands)
    assert any(c.startswith("capsa batch docs/examples/") for c in commands)
    assert any(c.startswith("capsa report") for c in commands)
    # issue 20: the README shows a 十三水 hand solved, replayed like every example
    readme = [ex.command for ex in X.examples(ROOT / "README.md")]
    assert any(c.startswith("capsa solve") and "--rules shisanshui --seed" in c for c in readme)


def test_a_changed_output_is_caught(tmp_path):
    """The replay fails on any difference: an example with one character changed."""
    page = tmp_path / "page.md"
    page.write_text('```console\n$ capsa rank "As Ks Qs"\n cards     A♠ K♠ Q♠\n```\n')
    ((ex, got),) = X.replay(page)
    assert got.startswith(" cards     A♠ K♠ Q♠\n") and got != ex.shown


def test_the_python_examples_run():
    for page in X.PAGES:
        text = page.read_text(encoding="utf-8")
        for code in re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M):
            run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            assert run.returncode == 0, f"{page.name}:\n{code}\n{run.stderr}"


def test_links_to_files_of_the_repository_resolve():
    for page in X.PAGES:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[\w-]+)?\)", text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            assert (page.parent / target).exists(), f"{page.name}: {target}"


def test_links_to_sections_of_the_docs_resolve():
    from tests.test_docs import slug

    for page in X.PAGES:
        text = page.read_text(encoding="utf-8")
        for target, anchor in re.findall(r"\]\(([^)#\s]*)#([\w-]+)\)", text):
            other = (page.parent / target) if target else page
            headings = re.findall(r"^#{1,6} (.*)$", other.read_text(encoding="utf-8"), re.M)
            assert anchor in {slug(h) for h in headings}, f"{page.name}: {target}#{anchor}"


QUICK_START = [
    # command 1: capsa with what solving needs (no test extra), and a hand solved
    "python3 -m venv .venv && .venv/bin/pip install -e . && "
    '.venv/bin/capsa solve "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"',
    # command 2: the test extra, and the tests on every core
    '.venv/bin/pip install -e ".[test]" && .venv/bin/python -m pytest -n auto',
]


def test_the_quick_start_is_what_ci_runs():
    """Issue 36: command 1 installs only what solving needs; CI (.ci/run) runs both
    commands as the README writes them, in a fresh clone."""
    block = re.search(r"## Quick start\n\n```bash\n(.*?)```", README, re.S).group(1)
    assert block.splitlines() == QUICK_START
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for line in QUICK_START:
        assert line in ci, line
    assert "git clone --quiet \"$repo\" \"$work/capsa\"" in ci


def test_solving_needs_no_extra():
    """The base dependencies are what a solve imports: no package of an extra is one,
    and a solve runs with every extra's packages hidden."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = {re.split(r"[<>=\[ ]", d)[0].lower() for d in project["dependencies"]}
    assert base == {"numba", "numpy", "typer", "rich", "platformdirs"}
    extras = project["optional-dependencies"]
    hidden = sorted({re.split(r"[<>=\[ ]", d)[0] for k, v in extras.items() if k != "test"
                     for d in v})  # fmt: skip
    names = {"dask": "dask", "phevaluator": "phevaluator", "treys": "treys", "eval7": "eval7",
             "jinja2": "jinja2", "matplotlib": "matplotlib", "babel": "babel",
             "starlette": "starlette", "uvicorn": "uvicorn",
             "prometheus-client": "prometheus_client", "httptools": "httptools",
             "uvloop": "uvloop"}  # fmt: skip
    assert set(hidden) <= set(names)
    code = (
        "import sys\n"
        + "".join(f"sys.modules[{names[h]!r}] = None\n" for h in hidden)
        + "sys.argv = ['capsa', 'solve', 'As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d',"
        " '--samples', '200', '--format', 'json']\n"
        "from solver.cli import main\nmain()\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert '"back": "As Ks Qs Js Ts"' in run.stdout


def test_the_readme_is_short_and_links_the_reference():
    assert len(README.splitlines()) <= 250
    for page in ("solve", "rulesets", "rules", "batch", "report", "serve", "strength",
                 "benchmarks", "cli", "architecture"):  # fmt: skip
        assert f"(docs/{page}.md)" in README, page


def test_the_benchmark_targets_are_the_ones_bench_checks():
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    targets = [v.text for k, v in vars(bench).items() if k.startswith("TARGET_")]
    assert len(targets) >= 6
    for target in targets:
        assert target in text, target
    assert f"≤ {bench.STARTUP_RATIO:g}×" in text
