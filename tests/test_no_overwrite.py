"""Issue 51: no command replaces a file it did not write without ``--force``, through the
real CLI (in the test's process, ``helpers.capsa_in``, but for a write cut short by the
file size limit and SIGTERM on stdin). A file already at an output path is replaced when it is one
capsa wrote of the same kind (field tables by field tables, a report by a report, bad
lines by bad lines), and otherwise refused in one line, exit 2, the file left as it was;
``--force`` replaces it. (``capsa batch -o`` keeps its own rule: a file holding records
is refused, ``--resume`` or ``--force``; tests/test_batch_resume.py.)"""

from __future__ import annotations

import json
import zipfile

import pytest

from tests.helpers import capsa_in

HANDS = "a: As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d\nb: 2c 3c 4c 5d 6d 7h 8h 9h Ts Js Qs Kd Ad\n"
NOTES = "my notes: do not lose them\n"
TRAIN = ["--rounds", "1", "--min-rounds", "1", "--hands", "200"]


def refused(res, path) -> str:
    assert res.returncode == 2, res.stdout + res.stderr
    errors = [x for x in res.stderr.splitlines() if x.startswith("capsa: error: ")]
    assert len(errors) == 1 and "Traceback" not in res.stderr, res.stderr
    line = errors[0]
    assert f"'{path}' is already there and is not " in line and "--force replaces it" in line
    return line


def notes(path):
    path.write_text(NOTES, encoding="utf-8")
    return path


def kept(path) -> bool:
    return path.read_text(encoding="utf-8") == NOTES


@pytest.fixture
def played(tmp_path):
    (tmp_path / "hands.txt").write_text(HANDS + "bad line\n", encoding="utf-8")
    res = capsa_in("batch", "hands.txt", "-o", "played.jsonl", "--policy", "greedy", cwd=tmp_path)
    assert res.returncode == 1, res.stderr  # the bad line
    return tmp_path


def test_train_does_not_replace_a_file_that_is_not_field_tables(tmp_path):
    note = notes(tmp_path / "notes.txt")
    line = refused(capsa_in("train", "-o", "notes.txt", *TRAIN, cwd=tmp_path), "notes.txt")
    assert "a field tables file" in line, line
    assert kept(note)
    # field tables it wrote are replaced by a new training, and --force replaces the rest
    first = capsa_in("train", "-o", "tables.npz", *TRAIN, cwd=tmp_path)
    assert first.returncode in (0, 1), first.stderr  # 1: not converged in one round
    again = capsa_in("train", "-o", "tables.npz", *TRAIN, "--seed", "7", cwd=tmp_path)
    assert again.returncode in (0, 1), again.stderr
    forced = capsa_in("train", "-o", "notes.txt", *TRAIN, "--force", cwd=tmp_path)
    assert forced.returncode in (0, 1), forced.stderr
    assert zipfile.is_zipfile(note)


def test_train_from_does_not_replace_a_file_that_is_not_a_model(tmp_path):
    (tmp_path / "seen.txt").write_text("a: 2s 3d 4c | 5h 7d 9c Ts Js | Qs Ks As 9h 9d\n")
    note = notes(tmp_path / "seen.npz")  # the default -o: FILE with .npz
    line = refused(capsa_in("train", "--from", "seen.txt", cwd=tmp_path), "seen.npz")
    assert "an opponent model" in line, line
    assert kept(note)


def test_report_does_not_replace_a_file_that_is_not_a_report(played):
    for name in ("notes.html", "notes.json", "notes.txt"):
        note = notes(played / name)
        line = refused(capsa_in("report", "played.jsonl", "-o", name, cwd=played), name)
        assert "a report" in line, line
        assert kept(note)
    # a report it wrote, in each format, is replaced by the next one
    for name, fmt in (("r.html", "html"), ("r.json", "json"), ("r.txt", "table")):
        for _ in range(2):
            res = capsa_in("report", "played.jsonl", "-o", name, "-f", fmt, cwd=played)
            assert res.returncode == 0, res.stderr
    assert json.loads((played / "r.json").read_text())["hands"] == 2
    res = capsa_in("report", "played.jsonl", "-o", "notes.html", "--force", cwd=played)
    assert res.returncode == 0, res.stderr
    assert "<!DOCTYPE html>" in (played / "notes.html").read_text(encoding="utf-8")


def test_batch_does_not_replace_an_errors_file_or_a_run_file_it_did_not_write(played):
    note = notes(played / "notes.txt")
    args = ["batch", "hands.txt", "-o", "out.jsonl", "--policy", "greedy"]
    line = refused(capsa_in(*args, "--errors", "notes.txt", cwd=played), "notes.txt")
    assert "a file of bad lines" in line, line
    assert kept(note) and not (played / "out.jsonl").exists()
    # the run file beside -o is capsa's name, but a file there may be the user's
    run = notes(played / "new.jsonl.capsa-run.json")
    res = capsa_in("batch", "hands.txt", "-o", "new.jsonl", "--policy", "greedy", cwd=played)
    refused(res, "new.jsonl.capsa-run.json")
    assert kept(run)
    # bad lines it wrote are replaced by the next run's
    for out in ("one.jsonl", "two.jsonl"):
        res = capsa_in("batch", "hands.txt", "-o", out, "--policy", "greedy", "--errors",
                       "bad.jsonl", cwd=played)  # fmt: skip
        assert res.returncode == 1, res.stderr
    assert json.loads((played / "bad.jsonl").read_text())["line"] == 3
    res = capsa_in(*args, "--errors", "notes.txt", "--force", cwd=played)
    assert res.returncode == 1, res.stderr
    assert json.loads(note.read_text())["reason"]


# ---------------------------------------------------------------- noted: after a full disk


def _limit_file_size() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, 30_000))


def test_a_write_that_fails_part_way_says_the_records_written_are_kept(tmp_path):
    """The first chunk's write fails part way (the file size limit, as a full disk):
    the records before it are in the file, and --resume continues from them; the line
    says so (it said "no record is kept")."""
    import subprocess
    import sys

    from tests.helpers import ROOT

    lines = HANDS.splitlines() * 150  # 300 hands: one chunk of the field policy
    (tmp_path / "hands.txt").write_text("".join(f"h{i}{x[1:]}\n" for i, x in enumerate(lines)))
    args = ["hands.txt", "-o", "out.jsonl", "--policy", "field", "-w", "1"]
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-m", "solver", "batch", *args], capture_output=True,
                         text=True, cwd=tmp_path, env=env, timeout=600,
                         preexec_fn=_limit_file_size)  # fmt: skip
    assert res.returncode == 1, res.stderr
    errors = [x for x in res.stderr.splitlines() if x.startswith("capsa: error: ")]
    assert len(errors) == 1 and "File too large" in errors[0], res.stderr
    whole = (tmp_path / "out.jsonl").read_text().splitlines()[:-1]  # the last may be cut
    assert whole and all(json.loads(x)["id"] for x in whole)  # records were kept ...
    assert "no record is kept" not in errors[0]  # ... and the line does not deny it
    assert "the records written are kept; run again with --resume" in errors[0], errors[0]
    again = capsa_in("batch", *args, "--resume", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    done = [json.loads(x)["id"] for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert done == [f"h{i}" for i in range(300)]


# ---------------------------------------------------------------- noted: SIGTERM on stdin


def test_sigterm_stops_a_batch_waiting_on_its_standard_input(tmp_path):
    """``capsa batch -`` on a pipe nobody writes to any more: SIGTERM stops it at once
    (exit 143, one line), not when the read returns."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.helpers import ROOT

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "solver", "batch", "-", "-o", "out.jsonl", "--policy",
           "greedy", "-w", "1"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp_path, env=env)  # fmt: skip
    try:
        assert proc.stdin is not None
        proc.stdin.write(HANDS.encode())
        proc.stdin.flush()  # the pipe stays open: the batch waits for more hands
        run_file = tmp_path / "out.jsonl.capsa-run.json"
        deadline = time.monotonic() + 300
        while not run_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert run_file.exists(), "the batch never opened its output"
        time.sleep(3)  # into the read that waits
        assert proc.poll() is None
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pytest.fail("SIGTERM did not stop a batch waiting on its standard input")
        assert time.monotonic() - sent < 15
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
    stderr = proc.stderr.read().decode()
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert "Traceback" not in stderr and "interrupted" in stderr, stderr
