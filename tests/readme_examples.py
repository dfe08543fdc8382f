"""The console examples of README.md and docs/*.md: run them, and write what they print.

A ```` ```console ```` block is a transcript: a line starting with ``$ `` is a command,
the lines after it (up to the next command) what it prints on stdout; a command that
ends in ``2>&1`` shows stderr too. Talk on stderr (progress, a batch's closing summary
with its timings) is otherwise left out, so every example is deterministic: seeds,
known opponents, ``rank``, ``rules``, batches of files in the repository and their
reports. A block of ``curl`` commands needs a running server:
tests/test_faults_web.py replays those against the real ``capsa serve``.

The commands of one page run in order, in one scratch folder (a file one example writes,
the next may read), with ``docs`` linked to the repository's docs/ folder, the virtual
environment's ``bin`` first on ``PATH`` (``capsa`` is the installed command), an
80-column terminal (``COLUMNS=80``, what a newcomer's terminal or a pipe gives) and the
state the page's own commands leave: no opponent pool until a command of the page builds
one (an empty ``CAPSA_POOL_DIR`` of the scratch folder, whatever pool the machine has
cached: README.md says where a pool changes the numbers). The caches (``CAPSA_CACHE_DIR``,
``NUMBA_CACHE_DIR``) are the caller's: under pytest, the tests' own (tests/conftest.py).
Trailing spaces are not dropped: what is shown is byte for byte what is printed.

``python -m tests.readme_examples`` rewrites every shown output from a real run (never
edit one by hand); ``--check`` only compares, as tests/test_readme.py does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
#: The pages whose console examples are replayed.
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
#: The terminal's width the examples are printed at.
WIDTH = 80
#: Seconds a command may take (a cold kernel cache compiles first).
TIMEOUT = 600

_BLOCK = re.compile(r"^```console\n(.*?)^```$", re.S | re.M)


class Example(NamedTuple):
    """One command of a page and the output shown under it."""

    page: str
    line: int  # of the command, in the page
    command: str
    shown: str


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAPSA_", "COLUMNS"))}
    env.update(COLUMNS=str(WIDTH), LINES="50", PYTHONUTF8="1", TERM="dumb")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("NO_COLOR", None)
    # what a command ending in 2>&1 shows stays the same however long it takes
    env["CAPSA_PROGRESS_SECONDS"] = "3600"
    for kept in ("NUMBA_CACHE_DIR", "CAPSA_CACHE_DIR"):
        if kept in os.environ:
            env[kept] = os.environ[kept]
    return env


def examples(page: Path) -> list[Example]:
    """Every command of ``page``'s console blocks with the output it shows."""
    text = page.read_text(encoding="utf-8")
    out = []
    for block in _BLOCK.finditer(text):
        start = text.count("\n", 0, block.start(1)) + 1
        lines = block.group(1).splitlines()
        if any(line.startswith("$ curl ") for line in lines):
            continue  # needs a server: tests/test_faults_web.py
        commands = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        if not commands or commands[0] != 0:
            raise ValueError(f"{page.name}:{start}: a console block starts with '$ '")
        for i, j in zip(commands, [*commands[1:], len(lines)], strict=True):
            shown = "".join(line + "\n" for line in lines[i + 1 : j])
            out.append(Example(page.name, start + i, lines[i][2:], shown))
    return out


def run(examples_of_a_page: list[Example], folder: Path) -> list[str]:
    """What each command prints (stdout), run in order in ``folder``."""
    (folder / "docs").symlink_to(ROOT / "docs", target_is_directory=True)
    # no opponent pool the machine has cached: mc answers are dealt, the same everywhere
    env = {**_environment(), "CAPSA_POOL_DIR": str(folder / "pools")}
    outputs = []
    for ex in examples_of_a_page:
        res = subprocess.run(
            ["bash", "-c", ex.command],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=TIMEOUT,
        )
        if res.returncode not in (0, 1, 2) or "Traceback" in res.stderr:
            raise RuntimeError(f"{ex.page}:{ex.line}: {ex.command}\n{res.stderr}")
        outputs.append(res.stdout)
    return outputs


def replay(page: Path) -> list[tuple[Example, str]]:
    """Every example of ``page`` with what it prints now."""
    found = examples(page)
    if not found:
        return []
    with tempfile.TemporaryDirectory(prefix="capsa-examples-") as tmp:
        return list(zip(found, run(found, Path(tmp)), strict=True))


def rewrite(page: Path) -> int:
    """Write what every command of ``page`` prints under it; how many outputs changed."""
    replayed = replay(page)
    if not replayed:
        return 0
    lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
    changed = 0
    for ex, got in reversed(replayed):  # from the end: line numbers stay right
        i = ex.line - 1
        j = i + 1 + ex.shown.count("\n")
        if got != ex.shown:
            changed += 1
            lines[i + 1 : j] = [got] if got else []
    page.write_text("".join(lines), encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    check = "--check" in argv
    names = [a for a in argv if not a.startswith("--")]
    pages = [p for p in PAGES if not names or p.name in names]
    bad = 0
    for page in pages:
        if check:
            for ex, got in replay(page):
                if got != ex.shown:
                    bad += 1
                    print(f"{ex.page}:{ex.line}: $ {ex.command}: output differs", file=sys.stderr)
        else:
            n = rewrite(page)
            print(f"{page.relative_to(ROOT)}: {n} outputs rewritten", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
