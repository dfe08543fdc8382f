"""The opponent pool through the real command: `capsa pool`, `--no-pool` on solve, batch
and strength, `--pool` on batch, and the bench's pooled figure."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests import helpers
from tests.golden import make as G

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


def capsa(*args: str, folder: Path, **kw) -> subprocess.CompletedProcess:
    """The command with its pools in ``folder``, in the test's process (``helpers.capsa_in``:
    what is claimed is the answer and the pool files, not the process)."""
    return helpers.capsa_in(*args, env={"CAPSA_POOL_DIR": str(folder)}, **kw)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A pool of 40,000 hands for chinese-1-6 (tests/test_pool.py's and
    tests/test_opponents.py's, built once a run: tests/shared.py): what `capsa pool
    --size 40000` builds (``test_capsa_pool_builds_once_and_says_what_it_built``)."""
    from solver.engine.compiled import compile_rules
    from solver.engine.rules import load_rules
    from tests import shared

    folder = tmp_path_factory.mktemp("pools")
    shared.pool(compile_rules(load_rules("chinese-1-6")), 40_000, folder)
    return folder


def test_capsa_pool_builds_once_and_says_what_it_built(folder, tmp_path):
    """`capsa pool` finds the pool cached and says so; `--force` builds it again (a
    pool of 2,000 hands in a folder of its own, where a first `capsa pool` built it:
    building 40,000 again showed nothing more)."""
    res = capsa("pool", "--size", "40000", "--format", "json", folder=folder)
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    assert d["built"] is False and d["seconds"] is None and d["hands"] == 40_000
    assert "cached already (--force builds it again)" in res.stderr
    path = Path(d["path"])
    assert path.parent == folder and d["bytes"] == path.stat().st_size
    assert 20 * 40_000 < d["bytes"] < 30 * 40_000 and d["natural_hands"] > 300
    assert sorted(p.name for p in folder.iterdir()) == [path.name]
    small = tmp_path / "small"
    first = capsa("pool", "--size", "2000", "--format", "json", folder=small)
    assert first.returncode == 0 and json.loads(first.stdout)["built"] is True, first.stderr
    built = Path(json.loads(first.stdout)["path"]).read_bytes()
    again = capsa("pool", "--size", "2000", "--force", folder=small)
    assert again.returncode == 0, again.stderr
    assert "built  in" in again.stdout and "2,000" in again.stdout
    assert [p.name for p in small.iterdir()] == [Path(json.loads(first.stdout)["path"]).name]
    assert len(next(small.iterdir()).read_bytes()) == len(built)


def test_capsa_pool_refuses_bad_sizes_in_one_line(folder):
    for size in ("10", "60000000", "many"):
        res = capsa("pool", "--size", size, folder=folder)
        assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
        assert "--size" in res.stderr and "Traceback" not in res.stderr


def test_a_pool_under_the_home_run_is_drawn_from(folder, tmp_path):
    """The home run no longer keeps mc from the pool (solver.strategy.solving.home_run): the
    pool built under it says nothing of dealing, and a solve then draws from it."""
    rules = tmp_path / "hr.toml"
    rules.write_text('base = "capsa"\nhome_run_multiplier = 2\n')
    res = capsa("pool", "--rules", str(rules), "--size", "20000", folder=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "deals whole tables" not in res.stderr
    res = capsa("solve", HAND, "--rules", str(rules), "--samples", "150", folder=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "opponent hands from the pool" in res.stdout


def test_solve_no_pool_gives_the_golden_answer_byte_for_byte(folder):
    """With a pool cached, `capsa solve --no-pool` prints the recorded (dealt) answer, the
    same JSON text; without the flag the answer is drawn from the pool (and says so)."""
    from tests.test_golden import NEGATIVE_ZERO

    old = json.loads(NEGATIVE_ZERO.sub("0.0", G.read_gz(G.HERE / "solve.gz").splitlines()[0]))
    assert old.pop("run") == "mc-1-6"
    # a key added since the recording (issue 25: the opponents assumed), in its place
    keys = list(old)
    keys.insert(keys.index("seed") + 1, "opponents")
    old = {k: old.get(k, "field") for k in keys}
    args = ["solve", G.SOLVE_HANDS[0], "--rules", "chinese-1-6", "--samples", "400", "--seed",
            "3", "--top", "3", "--format", "json"]  # fmt: skip
    dealt = capsa(*args, "--no-pool", folder=folder)
    assert dealt.returncode == 0, dealt.stderr
    assert dealt.stdout == json.dumps(old) + "\n"
    pooled = capsa(*args, folder=folder)
    assert pooled.returncode == 0 and json.loads(pooled.stdout)["ev"] != old["ev"]
    shown = capsa(*args[:-2], folder=folder)
    assert "400 opponent hands from the pool, seed 3" in shown.stdout
    assert "from the pool" not in capsa(*args[:-2], "--no-pool", folder=folder).stdout


def test_batch_no_pool_gives_the_golden_bytes_and_pool_draws(folder, monkeypatch):
    name, opts = G.BATCH_RUNS[6]
    assert name == "mc-chinese-1-6" and opts["samples"] == 120
    args = ["batch", str(G.HANDS), "--samples", "120", "--seed", "7", "--workers", "2"]
    dealt = capsa(*args, "--no-pool", folder=folder)
    want, _ = G.batch_records(opts, pool=False)
    assert dealt.stdout == want
    old = [json.loads(x) for x in G.read_gz(G.HERE / f"batch-{name}.gz").splitlines()]
    assert [json.loads(x)["ev"] for x in dealt.stdout.splitlines()] == [r["ev"] for r in old]
    pooled = capsa(*args, folder=folder)  # 160 lines: too short to build, but one is cached
    monkeypatch.setenv("CAPSA_POOL_DIR", str(folder))
    assert pooled.stdout == G.batch_records(opts, pool=None)[0] != want
    assert "building the opponent pool" not in pooled.stderr


def test_batch_pool_builds_one_for_a_short_file(tmp_path):
    src = tmp_path / "h.txt"
    src.write_text(HAND + "\n")
    res = capsa("batch", str(src), "--samples", "30", "--pool", "--pool-size", "5000",
                folder=tmp_path / "pools")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "building the opponent pool for chinese-1-6 first (5,000 hands" in res.stderr
    assert len(list((tmp_path / "pools").iterdir())) == 1
    none = capsa("batch", str(src), "--samples", "30", folder=tmp_path / "empty")
    assert none.returncode == 0 and not (tmp_path / "empty").exists()


def test_strength_no_pool(folder):
    args = ["strength", "--hands", "3", "--samples", "60", "--eval-deals", "4", "--format",
            "json"]  # fmt: skip
    pooled = capsa(*args, folder=folder)
    dealt = capsa(*args, "--no-pool", folder=folder)
    assert pooled.returncode == dealt.returncode == 0, pooled.stderr + dealt.stderr
    a, b = json.loads(pooled.stdout), json.loads(dealt.stdout)
    assert a["policies"]["field"] == b["policies"]["field"]  # the same hands and deals


def test_bench_shows_the_pooled_solve_against_field():
    from rich.console import Console

    from solver.apps.bench import Result
    from solver.apps.bench.timing import Report
    from solver.cli.commands.bench import render_bench

    r = Result("mc_pool", "", 20, "hand", 0.07, 285.7, 0.0035, 5, 0.1, 1,
               "≤ 20 ms/hand, ≤ 250× field", 50.0, True, {"ratio": 41.3})  # fmt: skip
    report = Report([r], [], [], [], {"numba": "x", "numba_threads": 1, "cpus": 2}, False, 1.0)
    out = Console(record=True, width=140)
    render_bench(report, False, out)
    assert "286/s, 41× field" in out.export_text()
