"""Faults of `capsa batch`, met the way a user meets them: the real CLI, in subprocesses
where the claim is the process's (signals, workers killed, stdin and stdout, the file size
limit, the lock a second run meets), else in the test's process (``run_in``).

The runs a test signals or kills (a Monte Carlo run of 120 hands on two workers) are
stopped (SIGSTOP, their whole process group) once they have written some records, and
signalled while stopped, then let go on (SIGCONT): the signal lands mid-run, with chunks in
flight, whatever the machine's load, so the input can be short (the CPU of these tests is
the hands solved, before the signal and in the resumed run).

Issue 9's batch items: an output that is an input (or another output), two runs on one
output, classic Mac and mixed line endings, ids holding line breaks, the parent killed
(SIGKILL, SIGTERM, SIGHUP) with workers running, a second Ctrl-C, a worker killed, a
write that fails (file size limit, /dev/full), a corrupt resume sidecar, samples too
large. Each must end in one line on stderr and the right exit code, never a traceback,
and lose nothing already written.
"""

from __future__ import annotations

import csv
import io
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from evaluator import format_cards
from solver.engine.layout import MAX_SAMPLES
from tests import helpers

CAPSA = [sys.executable, "-m", "solver", "batch"]
MC = ["--policy", "mc", "--samples", "24"]
LINUX_PROC = Path("/proc/self/stat").exists()
needs_proc = pytest.mark.skipif(not LINUX_PROC, reason="reads /proc to find the workers")


def hands_text(n: int, seed: int = 0, *, ids: bool = True, end: str = "\n") -> str:
    rng = np.random.default_rng(seed)
    deals = np.argsort(rng.random((n, 52)), axis=1)[:, :13]
    return "".join((f"h{i}: " if ids else "") + format_cards(d) + end for i, d in enumerate(deals))


def run(*args: str, **kw) -> subprocess.CompletedProcess:
    kw.setdefault("capture_output", True)
    kw.setdefault("timeout", 300)
    return subprocess.run([*CAPSA, *args], text=True, **kw)


def run_in(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``capsa batch ARGS`` in the test's process (``helpers.capsa_in``): where the claim
    is what the command reads, writes and says, not the process (a signal, a pipe, a limit
    of the process, a second run holding the lock)."""
    return helpers.capsa_in("batch", *args, text=True, timeout=timeout)


def talk(stderr: str) -> list[str]:
    """stderr without the compile notices of a cold kernel cache."""
    notices = ("capsa: compiling", "capsa: building", "capsa: loading")
    return [x for x in stderr.splitlines() if x.strip() and not x.startswith(notices)]


def one_line_error(res: subprocess.CompletedProcess, code: int) -> str:
    assert "Traceback" not in res.stderr, res.stderr
    lines = talk(res.stderr)
    assert res.returncode == code, res.stderr
    assert len(lines) == 1 and lines[0].startswith("capsa: error: "), res.stderr
    return lines[0]


def records(text: str) -> list[dict]:
    return [json.loads(x) for x in text.splitlines()]


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> tuple[Path, bytes]:
    """40 hands and their field output (also warms the kernel cache for the runs below)."""
    d = tmp_path_factory.mktemp("small")
    src = d / "hands.txt"
    src.write_text(hands_text(40, 1))
    ref = d / "ref.jsonl"
    res = run_in(str(src), "-o", str(ref), "--policy", "field", "-w", "1")
    assert res.returncode == 0, res.stderr
    return src, ref.read_bytes()


#: Hands of the runs the tests signal: about 90 KB of records, of which a run has written
#: 20 KB (27 records) when it is stopped to be signalled.
SLOW_HANDS = 120


@pytest.fixture(scope="module")
def slow(tmp_path_factory) -> tuple[Path, bytes]:
    """120 hands and their Monte Carlo output at 24 deals (in the test's process, one
    worker: the same bytes as any number of workers, tests/test_batch.py): the runs the
    tests stop mid-way (``running_with_workers``) and the output they must resume to."""
    d = tmp_path_factory.mktemp("slow")
    src = d / "hands.txt"
    src.write_text(hands_text(SLOW_HANDS, 2))
    ref = d / "ref.jsonl"
    res = run_in(str(src), "-o", str(ref), *MC, "-w", "1")
    assert res.returncode == 0, res.stderr
    return src, ref.read_bytes()


# --------------------------------------------------------------------------------------
# Processes: finding the workers, waiting for them
# --------------------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def children(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit() and (st := _stat(int(name))) is not None and int(st[1]) == pid:
            out.append(int(name))
    return out


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")


def workers_of(pid: int) -> list[int]:
    return [c for c in children(pid) if "spawn_main" in cmdline(c)]


def wait_gone(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def start(args: list[str], **kw) -> subprocess.Popen:
    """``capsa batch ARGS`` in a process group of its own (``pause`` stops the group)."""
    return subprocess.Popen(
        [*CAPSA, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True, **kw,
    )  # fmt: skip


def pause(proc: subprocess.Popen) -> None:
    """Stop the run, its workers and helpers (SIGSTOP to its process group)."""
    os.killpg(proc.pid, signal.SIGSTOP)


def go_on(proc: subprocess.Popen) -> None:
    """Let a paused run go on (SIGCONT to its group, if any of it is left)."""
    try:
        os.killpg(proc.pid, signal.SIGCONT)
    except ProcessLookupError:
        pass


def wait_for(cond, seconds: float, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended first (exit {proc.returncode}): {proc.stderr.read()}")
        time.sleep(0.02)
    proc.kill()
    pytest.fail("timed out waiting for the run")


def running_with_workers(src: Path, out: Path, n: int = 2) -> tuple[subprocess.Popen, list[int]]:
    """A two-worker Monte Carlo run that has written some records, paused (``pause``):
    the caller signals it, then lets it go on (``go_on``)."""
    proc = start([str(src), "-o", str(out), *MC, "-w", str(n)])
    wait_for(lambda: out.exists() and out.stat().st_size > 20_000, 120, proc)
    pause(proc)
    wait_for(lambda: len(workers_of(proc.pid)) == n, 30, proc)
    return proc, workers_of(proc.pid)


def cleanup(proc: subprocess.Popen, pids: list[int]) -> None:
    """Kill what a failed test leaves behind (only the processes it started)."""
    go_on(proc)
    for pid in [proc.pid, *pids]:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    try:
        proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def whole_prefix(partial: bytes, ref: bytes) -> None:
    assert partial and partial.endswith(b"\n") and ref.startswith(partial) and partial != ref


# --------------------------------------------------------------------------------------
# Data loss: writing over what it reads
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        "errors-is-input",
        "output-is-stdin",
        "errors-is-output",
        "errors-is-sidecar",
        "input-is-sidecar",
        "errors-hard-link-to-input",
        "stdout-is-input",
    ],
)
def test_outputs_never_overwrite_inputs_or_each_other(small, tmp_path, case):
    src_text = small[0].read_text()
    src = tmp_path / "hands.txt"
    src.write_text(src_text)
    out = tmp_path / "out.jsonl"
    side = tmp_path / "out.jsonl.capsa-run.json"
    args = [str(src), "-o", str(out), "--policy", "field", "-w", "1"]
    kw: dict = {}
    names = [str(src)]
    if case == "errors-is-input":
        args += ["--errors", str(src)]
    elif case == "output-is-stdin":
        args = ["-", "-o", str(src), "--policy", "field", "-w", "1"]
        kw["stdin"] = src.open("rb")
        names = [str(src), "stdin"]
    elif case == "errors-is-output":
        args += ["--errors", str(out)]
        names = [str(out)]
    elif case == "errors-is-sidecar":
        args += ["--errors", str(side)]
        names = [str(side)]
    elif case == "input-is-sidecar":
        side.write_text(src_text)
        src.unlink()
        src = side
        args[0] = str(side)
        names = [str(side)]
    elif case == "errors-hard-link-to-input":
        link = tmp_path / "link.txt"
        os.link(src, link)
        args += ["--errors", str(link)]
        names = [str(src), str(link)]
    elif case == "stdout-is-input":
        args = ["-", "--policy", "field", "-w", "1"]
        kw["stdin"] = src.open("rb")
        kw["stdout"] = src.open("ab")
        kw["stderr"] = subprocess.PIPE
        kw["capture_output"] = False
        names = ["stdin", "stdout"]
    try:
        res = run(*args, **kw)
    finally:
        for k in ("stdin", "stdout"):
            if k in kw:
                kw[k].close()
    line = one_line_error(res, 2)
    for name in names:
        assert name in line, line
    assert src.read_text() == src_text  # the input is untouched
    if case not in ("output-is-stdin", "input-is-sidecar"):
        assert not out.exists() and not side.exists()  # nothing was opened for writing


# --------------------------------------------------------------------------------------
# Data loss: two writers on one output
# --------------------------------------------------------------------------------------


def test_second_run_on_the_same_output_is_refused(slow, tmp_path):
    src, ref = slow
    out = tmp_path / "out.jsonl"
    side = tmp_path / "out.jsonl.capsa-run.json"
    first = start([str(src), "-o", str(out), *MC, "-w", "2"])
    try:
        wait_for(lambda: out.exists() and out.stat().st_size > 2_000, 120, first)
        pause(first)  # still running, with its workers, while the second runs start
        for extra in ([], ["--resume"]):
            res = run(str(src), "-o", str(out), *MC, "-w", "1", *extra)
            line = one_line_error(res, 2)
            assert f"pid {first.pid}" in line and "started" in line, line
        assert json.loads(side.read_text())["seed"] == 0  # the first run's sidecar stands
        assert out.read_bytes() != ref  # the second runs met it mid-run
        go_on(first)
        _, stderr = first.communicate(timeout=240)
        assert first.returncode == 0, stderr
    finally:
        cleanup(first, [])
    assert out.read_bytes() == ref  # each hand once, in order
    res = run_in(str(src), "-o", str(out), *MC, "-w", "1", "--resume")  # the lock is gone
    assert res.returncode == 0 and "0 hands" in res.stderr, res.stderr


# --------------------------------------------------------------------------------------
# Data loss: line endings and ids holding line breaks
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_every_line_ending_ends_a_line(small, tmp_path, end):
    src = tmp_path / "hands.txt"
    src.write_bytes(small[0].read_text().replace("\n", end).encode())
    out = tmp_path / "out.jsonl"
    res = run_in(str(src), "-o", str(out), "--policy", "field", "-w", "1")
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == small[1]
    assert "capsa: 40 hands, 0 bad lines" in res.stderr


def test_line_numbers_count_physical_lines_of_mixed_endings(tmp_path):
    hands = hands_text(6, 3, ids=False).splitlines()
    raw = (
        f"a: {hands[0]}\r"  # 1
        f"b: {hands[1]}\r\n"  # 2
        "\r"  # 3 blank
        f"{hands[2]}\n"  # 4
        "# comment\r"  # 5
        f"c\t{hands[3]}\n"  # 6
        "\n"  # 7 blank
        "As Kd\r"  # 8 bad
        f"d: {hands[4]}\r\n"  # 9
        f"{hands[5]}"  # 10, no ending
    )
    res = run("-", "--policy", "field", "-w", "1", input=raw)
    assert res.returncode == 1, res.stderr
    recs = records(res.stdout)
    assert [(r["line"], r["id"]) for r in recs] == [
        (1, "a"),
        (2, "b"),
        (4, None),
        (6, "c"),
        (9, "d"),
        (10, None),
    ]
    assert "capsa: line 8: expected 13 cards, got 2" in res.stderr


#: Characters str.splitlines breaks a line at, besides \r and \n (which end input lines).
BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_ids_holding_line_breaks_read_back_and_resume(tmp_path, fmt):
    hands = hands_text(len(BREAKS) * 3, 4, ids=False).splitlines()
    ids = [f"id{i}{BREAKS[i % len(BREAKS)]}x" for i in range(len(hands))]
    src = tmp_path / "hands.csv"  # classic Mac endings, CSV with an id column
    rows = "".join(f'{i},"{h}"\r' for i, h in zip(ids, hands, strict=True))
    src.write_bytes(("id,hand\r" + rows).encode())
    full = tmp_path / f"full.{fmt}"
    res = run_in(str(src), "-o", str(full), "--policy", "field", "-w", "1")
    assert res.returncode == 0, res.stderr
    text = full.read_text(encoding="utf-8")
    body = text.splitlines()  # str.splitlines: one record a line, whatever it breaks on
    if fmt == "csv":
        assert len(body) == len(hands) + 1
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        assert [r["line"] for r in rows] == [str(n) for n in range(2, len(hands) + 2)]
        got = [r["id"] for r in rows]
        assert got == [i.translate({ord(c): f"\\u{ord(c):04x}" for c in BREAKS}) for i in ids]
    else:
        assert len(body) == len(hands)
        assert [json.loads(x)["id"] for x in body] == ids  # JSON escapes them: lossless
    whole = full.read_bytes()
    side = full.with_name(full.name + ".capsa-run.json").read_bytes()
    out = tmp_path / f"out.{fmt}"
    lines = whole.splitlines(keepends=True)
    for keep in (1, len(lines) // 2, len(lines) - 1):
        cut = b"".join(lines[:keep]) + lines[keep][:9]  # a partial record at the end
        out.write_bytes(cut)
        out.with_name(out.name + ".capsa-run.json").write_bytes(side)
        res = run_in(str(src), "-o", str(out), "--policy", "field", "-w", "1", "--resume")
        assert res.returncode == 0, res.stderr
        assert out.read_bytes() == whole, keep


# --------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------


@needs_proc
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM", "SIGHUP"])
def test_killing_the_parent_leaves_no_worker(slow, tmp_path, sig):
    src, ref = slow
    out = tmp_path / "out.jsonl"
    proc, workers = running_with_workers(src, out)
    helpers = [c for c in children(proc.pid) if c not in workers]  # resource tracker
    try:
        os.kill(proc.pid, getattr(signal, sig))  # mid-run: the run is paused
        go_on(proc)
        _, stderr = proc.communicate(timeout=30)  # the workers held the stderr pipe too
        left = wait_gone(workers + helpers, 5)
        assert not left, [cmdline(p) for p in left]
    finally:
        cleanup(proc, workers + helpers)
    partial = out.read_bytes()
    if sig == "SIGKILL":
        assert proc.returncode == -signal.SIGKILL
    else:
        code = 128 + getattr(signal, sig)
        assert proc.returncode == code, stderr
        assert "Traceback" not in stderr, stderr
        assert "hands, 0 bad lines" in stderr and "run again with --resume" in stderr, stderr
        whole_prefix(partial, ref)  # stopped like Ctrl-C: whole records only
    res = run_in(str(src), "-o", str(out), *MC, "-w", "1", "--resume")
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == ref


def test_second_ctrl_c_still_prints_the_summary(tmp_path):
    """In process (one worker), one chunk of 12 hands at 12,000 opponent hands (about 9 s
    on the reference machine, so that it outlasts the test's 6 s of waiting): the first
    Ctrl-C lets the chunk finish, the second stops at once and still says how to resume.

    CPython runs a Python signal handler only between bytecodes, so a signal that comes
    during a kernel call waits for it, and two that come during the same call count as
    one: the second is sent well after the first has been seen.
    """
    src = tmp_path / "hands.txt"
    src.write_text(hands_text(12, 5))
    out = tmp_path / "out.jsonl"
    args = [str(src), "-o", str(out), "--samples", "12000", "-w", "1", "--chunk-size", "12"]
    proc = start(args)
    try:
        wait_for(lambda: out.exists(), 60, proc)
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        time.sleep(4)
        assert proc.poll() is None, "the first Ctrl-C should let the chunk finish"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        cleanup(proc, [])
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    assert "capsa: 0 hands, 0 bad lines" in stderr, stderr
    assert "interrupted; run again with --resume to continue" in stderr, stderr


@needs_proc
def test_a_worker_killed_mid_batch_is_one_line(slow, tmp_path):
    src, ref = slow
    out = tmp_path / "out.jsonl"
    proc, workers = running_with_workers(src, out)
    try:
        os.kill(workers[0], signal.SIGKILL)  # mid-run: the run is paused
        go_on(proc)
        _, stderr = proc.communicate(timeout=60)
    finally:
        cleanup(proc, workers)
    res = subprocess.CompletedProcess(proc.args, proc.returncode, "", stderr)
    line = one_line_error(res, 1)
    assert "worker" in line and "--resume" in line, line
    whole_prefix(out.read_bytes(), ref)
    res = run_in(str(src), "-o", str(out), *MC, "-w", "1", "--resume")
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == ref


# --------------------------------------------------------------------------------------
# One line, never a traceback
# --------------------------------------------------------------------------------------


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, 30_000))


def test_output_over_the_file_size_limit(small, tmp_path):
    src = tmp_path / "hands.txt"
    src.write_text(hands_text(300, 6))
    out = tmp_path / "out.jsonl"
    res = run(str(src), "-o", str(out), "--policy", "field", "-w", "2", preexec_fn=_limit_file_size)
    line = one_line_error(res, 1)
    assert str(out) in line and "File too large" in line, line
    data = out.read_bytes()
    assert 0 < len(data) <= 30_000
    assert data.endswith(b"\n") or len(data) == 30_000


def test_stdout_on_a_full_disk(small):
    src, _ = small
    with open("/dev/full", "wb") as full:
        res = run(
            str(src),
            "--policy",
            "field",
            "-w",
            "1",
            stdout=full,
            stderr=subprocess.PIPE,
            capture_output=False,
        )
    line = one_line_error(res, 1)
    assert "stdout" in line and "No space left on device" in line, line


@pytest.mark.parametrize(
    "content",
    [b"not json {", b"[1, 2]", b"null", b'{"capsa_batch": "one"}', b"\xff\xfe", b"half"],
)
def test_corrupt_resume_sidecar_is_one_line(small, tmp_path, content):
    src, ref = small
    out = tmp_path / "out.jsonl"
    out.write_bytes(ref[: len(ref) // 2])
    side = tmp_path / "out.jsonl.capsa-run.json"
    assert (
        run_in(str(src), "-o", str(tmp_path / "x.jsonl"), "--policy", "field", "-w", "1").returncode
        == 0
    )
    good = (tmp_path / "x.jsonl.capsa-run.json").read_bytes()
    side.write_bytes(good[: len(good) // 2] if content == b"half" else content)
    res = run_in(str(src), "-o", str(out), "--policy", "field", "-w", "1", "--resume")
    line = one_line_error(res, 2)
    assert str(side) in line, line
    assert out.read_bytes() == ref[: len(ref) // 2]


def test_samples_above_the_limit_are_refused_before_any_work(small, tmp_path):
    src, _ = small
    out = tmp_path / "out.jsonl"
    started = time.monotonic()
    res = run_in(str(src), "-o", str(out), "--samples", "100000000000", "-w", "1", timeout=60)
    line = one_line_error(res, 2)
    assert str(MAX_SAMPLES) in line.replace(",", "") and "100000000000" in line, line
    assert not out.exists()
    assert time.monotonic() - started < 60


# --------------------------------------------------------------------------------------
# Issue 21: what a spreadsheet or a terminal would run
# --------------------------------------------------------------------------------------

FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)", "'=quoted"]


def test_csv_cells_never_start_a_formula_and_read_back(small, tmp_path):
    """Ids that a spreadsheet would run are written with a leading ' (OWASP); numbers,
    negative ones included, stay numbers; --resume reads the ids back."""
    hands = []
    for text in hands_text(len(FORMULAS) + 2, 9, ids=False).splitlines():
        cards = text.split()  # played as dealt: a poor setting, with negative numbers
        hands.append(" | ".join(" ".join(r) for r in (cards[:3], cards[3:8], cards[8:])))
    ids = [*FORMULAS, "-5", "plain"]
    src = tmp_path / "hands.csv"
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([["id", "hand"], *zip(ids, hands, strict=True)])
    src.write_text(buf.getvalue())
    out = tmp_path / "out.csv"
    res = run_in(str(src), "-o", str(out), "--policy", "field", "-w", "1")
    assert res.returncode == 0, res.stderr
    table = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"), newline="")))
    assert [r["id"] for r in table] == [*("'" + i for i in FORMULAS), "-5", "plain"]
    negative = 0
    for r in table:  # every other cell is capsa's text or a number, never a formula
        for col, cell in r.items():
            if col != "id" and cell[:1] in ("=", "+", "-", "@", "'", "\t", "\r"):
                assert float(cell) < 0 or cell.startswith("+"), (col, cell)
                negative += cell.startswith("-")
    assert negative > 0  # negative numbers are written as numbers, without a quote
    # --resume compares the last id written with the input's: it must match
    whole = out.read_bytes()
    lines = whole.splitlines(keepends=True)
    side = out.with_name(out.name + ".capsa-run.json").read_bytes()
    for keep in (2, 4, len(lines) - 1):
        out.write_bytes(b"".join(lines[:keep]) + lines[keep][:7])
        out.with_name(out.name + ".capsa-run.json").write_bytes(side)
        res = run_in(str(src), "-o", str(out), "--policy", "field", "-w", "1", "--resume")
        assert res.returncode == 0, res.stderr
        assert out.read_bytes() == whole, keep


def test_csv_ids_read_back_in_the_report(tmp_path):
    """capsa report gives an id back as it was read, not as CSV keeps it."""
    src = tmp_path / "hands.txt"
    fouled = "As Ks Qs | 9h 9d 9c 3d 2s | Js Ts 7d 5h 4c"
    src.write_text(f"=1+2: {fouled}\n")
    out = tmp_path / "out.csv"
    assert run_in(str(src), "-o", str(out), "--policy", "field", "-w", "1").returncode == 0
    assert "'=1+2" in out.read_text()
    rep = helpers.capsa_in("report", str(out), "-f", "json", timeout=300)
    assert rep.returncode == 0, rep.stderr
    assert [c["id"] for c in json.loads(rep.stdout)["costliest"]] == ["=1+2"]


def test_ids_reach_stderr_as_text(small, tmp_path):
    """An id holding an escape sequence is reported with it visible, never sent raw."""
    src = tmp_path / "hands.txt"
    src.write_bytes(b"bad\x1b[2Jid\xe2\x80\xae: 2c 2c\n[link=https://evil.example]x[/link]: 2c\n")
    res = run_in(str(src), "--policy", "field", "-w", "1")
    assert res.returncode == 1, res.stderr
    assert "\x1b" not in res.stderr and "\u202e" not in res.stderr, res.stderr
    said = talk(res.stderr)
    assert said[0] == "capsa: line 1 (id bad\\x1b[2Jid\\u202e): duplicate card '2c'", said
    assert said[1].startswith("capsa: line 2 (id [link=https://evil.example]x[/link]): "), said
