#!/usr/bin/env python3
"""The slowest tests of a pytest run and its total, from what pytest printed.

    python3 .ci/durations.py LOG [TOP]
    python3 .ci/durations.py --cpu FILE [TOP]

LOG holds the output of one or more pytest runs with ``--durations=N`` (pyproject's
addopts ask for it; ``--durations=0`` lists every test). For each run: its closing line
(tests and wall time), then the ``TOP`` slowest tests (default 25), each test's setup,
call and teardown added up, the slowest first, and how much of what was listed the
setups (the fixtures: pools, tables, compiles) took. It needs the standard library only,
not capsa: CI (.ci/run) prints it at the end; docs/architecture.md#tests says how to read
it.

``--cpu FILE``: what a run with ``CAPSA_TESTS_CPU=FILE`` wrote (tests/conftest.py: each
test phase's CPU seconds, the processes it started included): the run's CPU seconds, the
files that took most and the slowest tests by CPU, which the machine's load does not
inflate as it does wall time; then the files and tests that waited most: their wall
seconds less the CPU seconds of the test and of the processes it started (``other``:
servers, Chromium), the time no core worked for them.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict

_ROW = re.compile(r"^\s*([0-9.]+)s (setup|call|teardown)\s+(\S.*)$")
_END = re.compile(r"^=+ (.* in [0-9.]+s.*?) =+$")
_START = re.compile(r"^=+ slowest (?:\d+ )?durations =+$")


def runs(lines: list[str]) -> list[tuple[str, dict[str, dict[str, float]]]]:
    """Each run's closing line and its listed tests' phases in seconds."""
    found: list[tuple[str, dict[str, dict[str, float]]]] = []
    tests: dict[str, dict[str, float]] = defaultdict(dict)
    listing = False
    for line in lines:
        if _START.match(line):
            listing, tests = True, defaultdict(dict)
            continue
        row = _ROW.match(line) if listing else None
        if row:
            seconds, phase, test = row.groups()
            tests[test][phase] = tests[test].get(phase, 0.0) + float(seconds)
            continue
        end = _END.match(line)
        if end and listing:
            found.append((end.group(1), dict(tests)))
            listing = False
    return found


def cpu(path: str, top: int) -> int:
    """The summary of a ``CAPSA_TESTS_CPU`` file (the module docstring)."""
    import json

    tests: dict[str, dict[str, float]] = defaultdict(dict)
    busy: dict[str, float] = defaultdict(float)  # the test's and its running processes' CPU
    wall: dict[str, float] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            phases = tests[row["test"]]
            phases[row["phase"]] = phases.get(row["phase"], 0.0) + row["cpu"]
            # a server or browser ending in the phase moves what it took into "cpu" (or
            # loses it): "other" below 0 counts as none
            busy[row["test"]] += row["cpu"] + max(0.0, row.get("other", 0.0))
            if "wall" in row:
                wall[row["test"]] = wall.get(row["test"], 0.0) + row["wall"]
    total = {t: sum(p.values()) for t, p in tests.items()}
    files: dict[str, float] = defaultdict(float)
    for test, seconds in total.items():
        files[test.split("::")[0]] += seconds
    setup = sum(p.get("setup", 0.0) for p in tests.values())
    print(f"cpu: {len(tests)} tests, {sum(total.values()):.0f} CPU s, {setup:.0f} of it in setups")
    print("  the files that took most:")
    for name in sorted(files, key=files.__getitem__, reverse=True)[:top]:
        print(f"  {files[name]:8.1f} s  {name}")
    print("  the slowest tests:")
    for test in sorted(total, key=total.__getitem__, reverse=True)[:top]:
        print(f"  {total[test]:8.1f} s  (setup {tests[test].get('setup', 0.0):6.1f})  {test}")
    if wall:
        idle(wall, busy, top)
    return 0


def idle(wall: dict[str, float], busy: dict[str, float], top: int) -> None:
    """The tests that waited most: wall seconds that neither the test's process and the
    processes it waited for (``cpu``) nor those it started that still run (``other``:
    servers, Chromium) spent on a core (sleeps, timeouts, page loads, locks, or the
    machine's other work)."""
    waited = {t: max(0.0, w - busy[t]) for t, w in wall.items()}
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for test, w in wall.items():
        row = files[test.split("::")[0]]
        row[0] += w
        row[1] += busy[test]
        row[2] += waited[test]
    print(f"idle: {sum(wall.values()):.0f} wall s, {sum(waited.values()):.0f} of it waiting")
    print("  the files that waited most:        wall       busy       idle")
    for name in sorted(files, key=lambda n: files[n][2], reverse=True)[:top]:
        w, b, i = files[name]
        print(f"  {w:8.1f} s {b:8.1f} s {i:8.1f} s  {name}")
    print("  the tests that waited most:        wall       busy       idle")
    for test in sorted(waited, key=waited.__getitem__, reverse=True)[:top]:
        print(f"  {wall[test]:8.1f} s {busy[test]:8.1f} s {waited[test]:8.1f} s  {test}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--cpu"] and len(argv) in (2, 3):
        return cpu(argv[1], int(argv[2]) if len(argv) > 2 else 25)
    if not argv or len(argv) > 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8", errors="replace") as f:
        found = runs(f.read().splitlines())
    top = int(argv[1]) if len(argv) > 1 else 25
    if not found:
        print(f"{argv[0]}: no pytest durations found (run pytest with --durations=N)")
        return 1
    for closing, tests in found:
        total = {t: sum(p.values()) for t, p in tests.items()}
        setup = sum(p.get("setup", 0.0) for p in tests.values())
        listed = sum(total.values())
        print(f"run: {closing}")
        print(f"  {len(tests)} tests listed, {listed:.0f} s in all, {setup:.0f} s of it in setups")
        for test in sorted(total, key=total.__getitem__, reverse=True)[:top]:
            p = tests[test]
            print(f"  {total[test]:8.1f} s  (setup {p.get('setup', 0.0):6.1f})  {test}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
