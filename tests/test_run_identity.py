"""A run's pool and models never change under it, and ``--resume`` reports what a
complete run reports (solver.apps.batch.pinned, pooling, resume): the real CLI, the pool
rebuilt and the model cut short while a batch runs in a subprocess (the batch stopped
with SIGSTOP meanwhile, so the change lands mid-run every time); the runs before and
after it, and the others, in the test's process (``helpers.capsa_in``), at one worker
(a batch's records are the same bytes for any number of workers: tests/test_batch.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from evaluator import format_cards
from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.strategy.field_model.field import play_digest
from solver.strategy.opposition.opponents import MODEL_KIND, MODEL_VERSION
from tests import shared
from tests.helpers import batch_job, capsa_in

HERE = Path(__file__).resolve().parent.parent
DATA = HERE / "solver" / "data"


#: The runs ``start`` started in this test (``_no_stopped_run_left`` ends them).
STARTED: list[subprocess.Popen] = []


def start(*args: str, cwd: Path, env: dict) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "solver", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    STARTED.append(proc)
    return proc


@pytest.fixture(autouse=True)
def _no_stopped_run_left():
    """A run that a test stopped (``stop_after``) and failed before letting go on is
    killed with its whole group (its workers), not left stopped on the machine."""
    yield
    while STARTED:
        proc = STARTED.pop()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # the run and its workers are gone
        proc.communicate()


def write_hands(path: Path, n: int, seed: int = 11, extra: dict[int, str] | None = None) -> Path:
    rng = np.random.default_rng(seed)
    lines = [format_cards(rng.permutation(52)[:13]) for _ in range(n)]
    for at, text in (extra or {}).items():
        lines[at - 1] = text
    path.write_text("".join(f"{x}\n" for x in lines))
    return path


def stop_after(proc: subprocess.Popen, out: Path, records: int) -> None:
    """Stop the batch (its whole process group) once ``records`` are written."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if out.exists() and out.read_bytes().count(b"\n") >= records:
            os.killpg(proc.pid, signal.SIGSTOP)
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.005)
    raise AssertionError("the batch wrote nothing")


def go_on(proc: subprocess.Popen) -> tuple[int, str]:
    os.killpg(proc.pid, signal.SIGCONT)
    _, err = proc.communicate(timeout=900)
    return proc.returncode, err


def make_model(path: Path, rules: str = "chinese-2-4", seed: int = 1) -> Path:
    """An opponent model file as ``capsa train --from`` writes one (the field's arrays, a
    row utility, the model's metadata), without the training."""
    with np.load(DATA / f"field-{rules}.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta.update(kind=MODEL_KIND, version=MODEL_VERSION, rules=rules,
                play_digest=play_digest(load_rules(rules)))  # fmt: skip
    util = np.random.default_rng(seed).normal(0, 0.05, arrays["dist"].shape)
    arrays.update(util=util.astype(np.float32), meta=np.array(json.dumps(meta)))
    with path.open("wb") as fh:
        np.savez_compressed(fh, **arrays)
    return path


@pytest.fixture
def env(tmp_path) -> dict:
    return {**os.environ, "CAPSA_POOL_DIR": str(tmp_path / "pools")}


def test_a_pool_rebuilt_while_a_batch_runs_never_reaches_it(tmp_path, env):
    """Probe 1: ``capsa pool --size 5000 --force`` while a batch draws from a pool of
    40,000 (the ruleset's cached pool, as ``capsa pool --size 40000`` builds it; built once
    a run, tests/shared.py, as tests/test_pool.py's is): the batch goes on with its own
    pool (the records are a clean run's, its run file names the pool it used) and the old
    pool stays beside the new one. The two-worker batch is stopped (SIGSTOP) after 6 of
    its 40 records while the pool is rebuilt, so some 30 hands are drawn after it (two
    hands a chunk, at most five chunks in flight)."""
    shared.pool(compile_rules(load_rules("chinese-1-6")), 40_000, tmp_path / "pools")
    write_hands(tmp_path / "h.txt", 40)
    opts = ("-n", "120", "-s", "3")
    clean = capsa_in("batch", "h.txt", "-o", "clean.jsonl", *opts, "-w", "1", cwd=tmp_path,
                     env=env)  # fmt: skip
    assert clean.returncode == 0, clean.stderr
    for attempt in range(3):  # a batch that ran past 20 records before it stopped (the
        # test's process kept off the cores that long) is killed, and another started
        out = tmp_path / f"out{attempt}.jsonl"
        proc = start("batch", "h.txt", "-o", out.name, *opts, "-w", "2", cwd=tmp_path, env=env)
        stop_after(proc, out, 6)
        if out.read_bytes().count(b"\n") <= 20:  # most drawn after the rebuild below
            break
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    else:
        raise AssertionError("the batch wrote more than 20 of 40 records before it stopped")
    rebuilt = capsa_in("pool", "--size", "5000", "--force", "-f", "json", cwd=tmp_path, env=env)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert out.read_bytes().count(b"\n") <= 20  # stopped: nothing written while it was built
    code, err = go_on(proc)
    assert code == 0, err
    assert out.read_bytes() == (tmp_path / "clean.jsonl").read_bytes()
    run = json.loads((tmp_path / f"{out.name}.capsa-run.json").read_text())
    assert run["pool"] == json.loads((tmp_path / "clean.jsonl.capsa-run.json").read_text())["pool"]
    assert run["pool"].split("/")[1] == "40000"
    pools = sorted(p.name for p in (tmp_path / "pools").iterdir())
    assert len(pools) == 2 and json.loads(rebuilt.stdout)["hands"] == 5000
    # the newest pool is the one later runs draw from
    write_hands(tmp_path / "few.txt", 2)
    again = capsa_in("batch", "few.txt", "-o", "new.jsonl", *opts, "-w", "1", cwd=tmp_path,
                     env=env)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "new.jsonl.capsa-run.json").read_text())["pool"].split("/")[1] \
        == "5000"  # fmt: skip


def test_resume_refuses_a_pool_that_is_not_the_one_the_run_drew_from(tmp_path, env):
    """A pool of the same key and size whose contents differ (a crafted file, sound by
    its checksums) is refused by --resume in one line, exit 2."""
    from solver.strategy.opposition import pool as PL
    from solver.strategy.opposition import pool_file as PF

    assert capsa_in("pool", "--size", "5000", cwd=tmp_path, env=env).returncode == 0
    write_hands(tmp_path / "h.txt", 40)
    res = capsa_in(
        "batch", "h.txt", "-o", "out.jsonl", "-n", "60", "-w", "1", cwd=tmp_path, env=env
    )
    assert res.returncode == 0, res.stderr
    (path,) = (tmp_path / "pools").iterdir()
    pool = PL.open_pool(path)
    arrays = {name: np.array(getattr(pool, name)) for name, _, _ in PF.ARRAYS}
    arrays["nat_key"] = arrays["nat_key"] + 1  # other tie keys: still a sound pool
    tmp = path.with_suffix(".new")
    PF.write_pool_file(tmp, pool.key, pool.size, arrays, {})
    os.replace(tmp, path)
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"".join(out.read_bytes().splitlines(keepends=True)[:10]))
    res = capsa_in("batch", "h.txt", "-o", "out.jsonl", "-n", "60", "-w", "1", "--resume",
                   cwd=tmp_path, env=env)  # fmt: skip
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1, res.stderr
    assert "is not the one the output was written with" in res.stderr


def test_a_model_cut_short_while_a_batch_runs_changes_nothing(tmp_path, env):
    """Probe 3: the model file replaced by a truncated copy mid-run: every worker keeps
    the model it loaded and checked, so the run ends as a clean run, exit 0, no bad
    line. Resuming after the model file changed is refused in one line. The two-worker
    batch is stopped (SIGSTOP) after 5 of its 30 records while the model is cut, so some
    15 hands are solved after it (two hands a chunk, at most five chunks in flight)."""
    model = make_model(tmp_path / "m.npz")
    write_hands(tmp_path / "h.txt", 30)
    opts = ("-r", "chinese-2-4", "-n", "60", "-s", "2", "--opponents", "m.npz")
    one = (*opts, "-w", "1")
    clean = capsa_in("batch", "h.txt", "-o", "clean.jsonl", *one, cwd=tmp_path, env=env)
    assert clean.returncode == 0, clean.stderr
    good = model.read_bytes()
    proc = start("batch", "h.txt", "-o", "out.jsonl", "--errors", "bad.jsonl", *opts, "-w", "2",
                 cwd=tmp_path, env=env)  # fmt: skip
    stop_after(proc, tmp_path / "out.jsonl", 5)
    model.write_bytes(good[: len(good) // 3])
    code, err = go_on(proc)
    assert code == 0, err
    assert (tmp_path / "bad.jsonl").read_text() == ""
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "clean.jsonl").read_bytes()
    # another model at the same path: --resume refuses it, in one line
    make_model(model, seed=2)
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"".join(out.read_bytes().splitlines(keepends=True)[:10]))
    res = capsa_in("batch", "h.txt", "-o", "out.jsonl", "--resume", *one, cwd=tmp_path, env=env)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "opponents_digest" in res.stderr and "Traceback" not in res.stderr
    model.write_bytes(good)  # the model restored: the run goes on to a clean run's end
    res = capsa_in("batch", "h.txt", "-o", "out.jsonl", "--resume", *one, cwd=tmp_path, env=env)
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == (tmp_path / "clean.jsonl").read_bytes()
    run = json.loads((tmp_path / "clean.jsonl.capsa-run.json").read_text())
    assert len(run["opponents_digest"]) == 3 and len(set(run["opponents_digest"])) == 1


def test_a_worker_given_another_model_or_pool_stops_the_run(tmp_path, monkeypatch):
    """What a worker that must open a changed file does (a new worker, a Dask worker):
    one line, the run failed (exit 1 from the CLI), never an answer from another model
    or pool."""
    import dataclasses

    from solver.apps.batch import BatchFailed, solve_chunk
    from solver.strategy.opposition import pool as PL

    make_model(tmp_path / "m.npz")
    job = batch_job(rules=load_rules("chinese-2-4"), policy="mc", samples=20, seed=0, players=4,
              fmt="jsonl", csv_spec=None, skip_upto=0, opponents=str(tmp_path / "m.npz"),
              opponent_digests=("0" * 32,) * 3)  # fmt: skip
    hand = [(1, b"As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d")]
    with pytest.raises(BatchFailed, match="the opponent model m.npz changed under the run"):
        solve_chunk(job, hand)
    (tmp_path / "m.npz").write_bytes(b"PK\x03\x04 cut")
    with pytest.raises(BatchFailed, match="model can no longer be read: .* is not a model file"):
        solve_chunk(dataclasses.replace(job, opponent_digests=None,
                                        options=job.options.evolve(seed=1)), hand)
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path / "pools"))
    from solver.engine.compiled import compile_rules

    pool = PL.build_pool(compile_rules(load_rules("chinese-1-6")), 1000)
    job = batch_job(rules=load_rules("chinese-1-6"), policy="mc", samples=20, seed=0, players=4,
              fmt="jsonl", csv_spec=None, skip_upto=0, pool=str(pool.path),
              pool_id=f"{pool.key}/2000/{pool.digest}")  # fmt: skip
    with pytest.raises(BatchFailed, match="the opponent pool changed under the run"):
        solve_chunk(job, hand)
    ok = solve_chunk(dataclasses.replace(job, pool_id=pool.ident), hand)
    assert ok.hands == 1


def test_resume_reports_every_bad_line_a_complete_run_reports(tmp_path, env):
    """Probe 2 and 10: a ``| declare`` for a hand with no natural is a bad line found
    while solving. A run cut short after it and resumed reports it again (the errors
    file, its text included, the exit status) and ends with a complete run's records."""
    no_natural = "As Kd Qh Jc 9s 8d 7h 6c 5s 4d 3h 2c 2s | declare"
    write_hands(tmp_path / "h.txt", 30, extra={4: "x: " + no_natural, 9: "As As"})
    opts = ("--policy", "field", "-w", "1")
    whole = capsa_in("batch", "h.txt", "-o", "whole.jsonl", "--errors", "whole.err", *opts,
                     cwd=tmp_path, env=env)  # fmt: skip
    assert whole.returncode == 1, whole.stderr
    errors = [json.loads(x) for x in (tmp_path / "whole.err").read_text().splitlines()]
    assert [(e["line"], e["id"]) for e in errors] == [(4, "x"), (9, None)]
    assert "2 bad lines" in whole.stderr
    records = (tmp_path / "whole.jsonl").read_bytes().splitlines(keepends=True)
    assert len(records) == 28
    for cut in (3, 12, 27, 28):  # resumed before, after the bad lines, and at the end
        out = tmp_path / f"cut{cut}.jsonl"
        out.write_bytes(b"".join(records[:cut]))
        (tmp_path / f"cut{cut}.jsonl.capsa-run.json").write_bytes(
            (tmp_path / "whole.jsonl.capsa-run.json").read_bytes()
        )
        res = capsa_in("batch", "h.txt", "-o", out.name, "--errors", f"cut{cut}.err", "--resume",
                       *opts, cwd=tmp_path, env=env)  # fmt: skip
        assert res.returncode == 1, (cut, res.stderr)
        assert "2 bad lines" in res.stderr, (cut, res.stderr)
        assert out.read_bytes() == (tmp_path / "whole.jsonl").read_bytes(), cut
        assert (tmp_path / f"cut{cut}.err").read_text() == (tmp_path / "whole.err").read_text()
    # a line rejected while solving keeps its text, as one rejected when read does
    assert errors[0]["text"] == "x: " + no_natural and errors[1]["text"] == "As As"


def test_a_pool_folder_that_cannot_be_written_fails_before_the_build(tmp_path):
    """Noted with the probes: ``batch --pool`` on a folder it cannot write built the pool
    for minutes and then failed. Now it fails at once, in one line, building nothing;
    ``capsa pool`` too."""
    (tmp_path / "file").write_text("not a folder")
    env = {**os.environ, "CAPSA_POOL_DIR": str(tmp_path / "file" / "pools")}
    write_hands(tmp_path / "h.txt", 3)
    res = capsa_in("batch", "h.txt", "-o", "out.jsonl", "-n", "30", "-w", "1", "--pool",
                   "--pool-size", "1000000", cwd=tmp_path, env=env)  # fmt: skip
    assert res.returncode == 1, res.stderr
    assert res.stderr.count("\n") == 1, res.stderr
    assert "cannot write the opponent pool in" in res.stderr and "building" not in res.stderr
    res = capsa_in("pool", "--size", "1000000", cwd=tmp_path, env=env)
    assert res.returncode == 1 and res.stderr.count("\n") == 1, res.stderr
    assert "hands/s" not in res.stderr and "Not a directory" in res.stderr
