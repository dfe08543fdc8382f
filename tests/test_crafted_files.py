"""Crafted pool and model files never reach a traceback, a hang or a wrong answer: every
loaded table is checked as the kernels read it, every failure is one line and exit 2
(a cached pool that fails is said once and not used), and no file opened for reading
blocks. The real CLI, in a subprocess where a FIFO could block it, else in the test's
process (``helpers.capsa_in``)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.strategy.opposition import pool as PL
from solver.strategy.opposition import pool_file as PF
from tests import shared
from tests.helpers import capsa, capsa_in
from tests.test_run_identity import make_model

DATA_FIELD = Path(__file__).resolve().parent.parent / "solver" / "data" / "field-chinese-1-6.npz"
ROYAL = "As Ks Qs Js Ts 2h 3d 4c 6h 7d 8c 9h Jd"
HAND = "As Kd Qh Jc 9s 8d 7h 6c 5s 4d 3h 2c 2s"
#: Every command that reads a model file, as a user runs it.
MODEL_COMMANDS = (
    ("solve", HAND, "-n", "60"),
    ("strength", "--hands", "2", "-n", "60"),
    ("duel", "mc:60", "greedy", "-d", "2"),
)


def one_line(res: subprocess.CompletedProcess, code: int = 2) -> str:
    assert res.returncode == code, res.stderr
    assert res.stderr.count("\n") == 1, res.stderr
    assert "Traceback" not in res.stderr and "bug in capsa" not in res.stderr, res.stderr
    return res.stderr


# ---------------------------------------------------------------- pools


@pytest.fixture(scope="module", autouse=True)
def _tables_built() -> None:
    """The evaluator's lookup tables in the test process's cache before any ``capsa``
    here starts: a first one would say it builds them, a line more than ``one_line``
    allows (this file run alone, or first on its worker)."""
    import evaluator

    evaluator.get_tables()


@pytest.fixture(scope="module")
def pool_file(tmp_path_factory) -> Path:
    # built once a run: tests/test_pool.py's
    return shared.pool(compile_rules(load_rules("chinese-1-6")), 40_000,
                       tmp_path_factory.mktemp("pool"))  # fmt: skip


def _crafted(pool_file: Path, folder: Path, name: str, how) -> Path:
    """The pool rewritten with one array changed, sound by its checksums."""
    pool = PL.open_pool(pool_file)
    arrays = {a: np.array(getattr(pool, a)) for a, _, _ in PF.ARRAYS}
    how(arrays)
    folder.mkdir(exist_ok=True)
    target = folder / pool_file.name
    PF.write_pool_file(target, pool.key, pool.size, arrays, {})
    return target


def _keys_past(a):
    a["keys"][:, 2] = 65535
    a["foul"][:] = ~((a["keys"][:, 0] <= a["keys"][:, 1]) & (a["keys"][:, 1] <= a["keys"][:, 2]))


@pytest.mark.parametrize(
    ("name", "how", "said"),
    [
        ("keys", _keys_past, "a row key past the table"),
        ("roy_id", lambda a: a["roy_id"].__setitem__(slice(None), 60000), "a royalty row past"),
        ("split", lambda a: a["split"].__setitem__((slice(None), 1), 5000), "a split past"),
        ("nat", lambda a: a["nat"].__setitem__(slice(0, 5), 90), "naturals"),
        ("masks", lambda a: a["masks"].__setitem__(slice(0, 5), 7), "13 of the 52 cards"),
        ("roy_table", lambda a: a["roy_table"].__setitem__((0, 0), np.nan), "not finite"),
    ],
)
def test_a_pool_sound_by_its_checksums_but_out_of_its_tables_is_not_used(
    pool_file, tmp_path, name, how, said
):
    """Probe 4: keys past the table gave -3.000 for a royal flush (+5.430 with the real
    pool) and read out of bounds; roy_id past its table was an IndexError. Now the
    pool is refused, said once, and the solve deals: the answer is --no-pool's."""
    folder = tmp_path / "pools"
    _crafted(pool_file, folder, name, how)
    env = {**os.environ, "CAPSA_POOL_DIR": str(folder)}
    got = capsa_in("solve", ROYAL, "-n", "200", "-s", "1", "-f", "json", cwd=tmp_path, env=env)
    assert got.returncode == 0, got.stderr
    assert said in got.stderr and "not used" in got.stderr and "bug" not in got.stderr
    dealt = capsa_in("solve", ROYAL, "-n", "200", "-s", "1", "-f", "json", "--no-pool",
                     cwd=tmp_path, env=env)  # fmt: skip
    assert json.loads(got.stdout) == json.loads(dealt.stdout)
    assert json.loads(got.stdout)["ev"] > 0


def test_a_fifo_at_the_pool_path_never_blocks(tmp_path):
    """Probe 9: a FIFO where the pool would be: the solve does not wait on it (it deals,
    saying the pool is not a regular file); the model loader refuses one the same way."""
    folder = tmp_path / "pools"
    folder.mkdir()
    env = {**os.environ, "CAPSA_POOL_DIR": str(folder)}
    # the path as the CLI computes it (the key depends on this checkout's code)
    name = subprocess.run(
        [sys.executable, "-c", "from solver.strategy.opposition.pool import pool_path; "
         "from solver.engine.compiled import compile_rules; "
         "from solver.engine.rules import load_rules; "
         "print(pool_path(compile_rules(load_rules('chinese-1-6'))).name)"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout.strip()  # fmt: skip
    fifo = folder / name
    os.mkfifo(fifo)
    res = capsa("solve", HAND, "-n", "60", "-s", "1", "-f", "json", cwd=tmp_path, env=env,
                timeout=120)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "not a regular file" in res.stderr
    dealt = capsa("solve", HAND, "-n", "60", "-s", "1", "-f", "json", "--no-pool", cwd=tmp_path,
                  env=env, timeout=120)  # fmt: skip
    assert json.loads(res.stdout) == json.loads(dealt.stdout)
    os.mkfifo(tmp_path / "m.npz")
    said = one_line(capsa("solve", HAND, "--opponents", "m.npz", cwd=tmp_path, timeout=120))
    assert "is not a file" in said


# ---------------------------------------------------------------- models


def _npz(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, raw in members.items():
            zf.writestr(f"{name}.npy", raw)
    return path


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {i.filename[:-4]: zf.read(i) for i in zf.infolist()}


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return make_model(tmp_path_factory.mktemp("model") / "good.npz", rules="chinese-1-6")


def _with(model: Path, folder: Path, **arrays: np.ndarray | bytes) -> Path:
    members = _members(model)
    for name, a in arrays.items():
        members[name] = a if isinstance(a, bytes) else _npy(a)
    return _npz(folder / "m.npz", members)


def _huge_header() -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f8", "fortran_order": False, "shape": (10**13,)}
    )
    return buf.getvalue() + b"\0" * 64


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("dist 1e39", "damaged"),  # probe 5: inf as float32
        ("dist 1e-50", "empty"),  # probe 5: 0 as float32
        ("util 1e39", "corrections are damaged"),  # probe 5
        ("shape 10^13", "declares"),  # probe 6: MemoryError
        ("dist text", "dist holds"),  # probe 7: TypeError
        ("dist structured", "dist holds"),  # probe 7
        ("meta nested", "metadata is not JSON"),  # probe 8: RecursionError
    ],
)
def test_a_crafted_model_is_one_line_and_exit_2_in_every_command(model, tmp_path, case, said):
    with np.load(model, allow_pickle=False) as z:
        dist, util = z["dist"].astype(np.float64), z["util"].astype(np.float64)
    change: dict[str, np.ndarray | bytes] = {
        "dist 1e39": {"dist": np.where(np.arange(dist.shape[1]) == 7, 1e39, dist)},
        "dist 1e-50": {"dist": np.full(dist.shape, 1e-50)},
        "util 1e39": {"util": np.full(util.shape, 1e39)},
        "shape 10^13": {"dist": _huge_header()},
        "dist text": {"dist": np.full(dist.shape, "x")},
        "dist structured": {"dist": np.zeros(dist.shape, [("a", "<f4"), ("b", "<i4")])},
        "meta nested": {"meta": np.array("[" * 100_000 + "]" * 100_000)},
    }[case]
    _with(model, tmp_path, **change)
    for cmd in MODEL_COMMANDS:
        res = capsa_in(*cmd, "--opponents", "m.npz", cwd=tmp_path)
        assert said in one_line(res), (cmd, res.stderr)
        assert "Warning" not in res.stderr
    (tmp_path / "h.txt").write_text(HAND + "\n")
    res = capsa_in("batch", "h.txt", "-n", "60", "--opponents", "m.npz", cwd=tmp_path)
    assert said in one_line(res)


def test_a_good_model_still_loads(model, tmp_path):
    res = capsa_in("solve", HAND, "-n", "60", "--opponents", str(model), "-f", "json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["opponents"] == "good.npz"


def test_a_deeply_nested_json_line_in_train_from_is_a_bad_line(tmp_path):
    """Probe 8: a ``train --from`` line nested 2,000 deep was a RecursionError."""
    from tests.helpers import random_hands
    from tests.test_learn import write_settings

    write_settings(tmp_path / "s.txt", random_hands(40, 3), "greedy",
                   extra='{"a":' + "[" * 2000 + "]" * 2000 + "}\n")  # fmt: skip
    res = capsa_in("train", "--rules", "chinese-2-4", "--from", "s.txt", "-o", "m.npz",
                   "-f", "json", cwd=tmp_path)  # fmt: skip
    assert "Traceback" not in res.stderr and "bug in capsa" not in res.stderr, res.stderr
    assert res.returncode in (0, 1), res.stderr
    assert "line 41" in res.stderr + res.stdout


def test_strength_tables_that_are_a_fifo_or_not_finite_are_one_line(tmp_path):
    """``strength --tables``, the other table loader: a FIFO is refused unread, and tables
    whose values become inf as float32 are one line, exit 2, no numpy warning."""
    os.mkfifo(tmp_path / "fifo.npz")
    said = one_line(capsa("strength", "--hands", "2", "--tables", "fifo.npz", cwd=tmp_path,
                          timeout=120))  # fmt: skip
    assert "is not a file" in said
    with np.load(DATA_FIELD, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["rank"] = np.full(arrays["rank"].shape, 1e39)
    np.savez_compressed(tmp_path / "inf.npz", **arrays)
    res = capsa_in("strength", "--hands", "2", "--tables", "inf.npz", cwd=tmp_path)
    assert "not finite once converted" in one_line(res) and "Warning" not in res.stderr
