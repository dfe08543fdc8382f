"""`.ci/durations.py --cpu` and what tests/conftest.py records for it (issue #55): the
tests that waited most are those whose wall time is furthest above their CPU time, the
test's own and its running processes' (``other``); and ``-n auto``'s worker count."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import conftest

SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "durations.py"


def test_the_tests_that_waited_most_are_listed_first(tmp_path):
    rows = [  # a sleeper, a worker, a page test whose browser did the work
        ("t.py::sleeps", "call", 0.1, 0.0, 20.0),
        ("t.py::computes", "call", 9.5, 0.0, 10.0),
        ("t.py::page", "setup", 0.2, 4.0, 5.0),
        ("t.py::page", "call", 0.1, 2.0, 3.0),
        ("t.py::page", "teardown", 0.3, -6.0, 0.5),  # the browser ends: below 0 is none
    ]
    cpu = tmp_path / "cpu.jsonl"
    cpu.write_text("".join(
        json.dumps({"test": t, "phase": p, "cpu": c, "other": o, "wall": w}) + "\n"
        for t, p, c, o, w in rows
    ))  # fmt: skip
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--cpu", str(cpu)], capture_output=True, text=True
    ).stdout
    listed = out.split("the tests that waited most:")[1].splitlines()[1:]
    assert [line.split()[-1] for line in listed] == ["t.py::sleeps", "t.py::page", "t.py::computes"]
    idle = {line.split()[-1]: float(line.split()[-3]) for line in listed}
    # the page: 8.5 s of wall, 6.6 of CPU (its browser's 6.0 in setup and call)
    assert idle == pytest.approx({"t.py::sleeps": 19.9, "t.py::page": 1.9, "t.py::computes": 0.5})


def test_the_recorder_counts_a_running_child_as_other(tmp_path):
    """``_descendants_cpu`` sees the CPU of a process this one started that still runs."""
    spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass\n"
    before = conftest._descendants_cpu()
    child = subprocess.Popen([sys.executable, "-c", spin + "input()"], stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while conftest._descendants_cpu() - before < 0.4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert conftest._descendants_cpu() - before >= 0.4
    finally:
        child.communicate(b"\n", timeout=60)


def test_the_worker_count_of_n_auto(monkeypatch):
    monkeypatch.delenv(conftest.WORKERS, raising=False)
    assert conftest.pytest_xdist_auto_num_workers(None) is None  # xdist's: one a core
    monkeypatch.setenv(conftest.WORKERS, "3")
    assert conftest.pytest_xdist_auto_num_workers(None) == 3
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(conftest.WORKERS, bad)
        with pytest.raises(pytest.UsageError, match="CAPSA_TESTS_WORKERS must be a whole"):
            conftest.pytest_xdist_auto_num_workers(None)
