"""Start-up: what a fresh `capsa solve` process loads, and that loading less changes nothing.

Cached kernels load without refreshing numba's whole target context
(``evaluator._jit._lean_cache_loads``); ``CAPSA_NUMBA_FULL_REFRESH=1`` is numba's own way.
Every test here runs fresh processes, since what a process imports is the point.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
#: Modules only numba's full context refresh imports (its lowerings for typed
#: containers, polynomials, datetimes and complex math): no kernel of ours needs them.
REFRESH_ONLY = (
    "numba.typed.dictimpl",
    "numba.np.polynomial.polynomial_functions",
    "numba.np.npdatetime",
    "numba.cpython.cmathimpl",
)


def _python(code: str, full_refresh: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CAPSA_NUMBA_FULL_REFRESH"}
    if full_refresh:
        env["CAPSA_NUMBA_FULL_REFRESH"] = "1"
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


SOLVE = f"""
    import json, sys
    from solver import solve
    sol = solve({HAND!r}, seed=1, samples=600)
    print(json.dumps({{"solution": sol.to_dict(),
                       "refresh_only": [m for m in {REFRESH_ONLY!r} if m in sys.modules]}}))
"""


def test_a_warm_solve_skips_numbas_full_refresh_and_answers_the_same():
    first = _python(SOLVE)  # compiles what is not cached yet (numba's full path)
    assert first.returncode == 0, first.stderr
    lean = _python(SOLVE)
    full = _python(SOLVE, full_refresh=True)
    assert lean.returncode == 0, lean.stderr
    assert full.returncode == 0, full.stderr
    lean_out, full_out = json.loads(lean.stdout), json.loads(full.stdout)
    assert lean_out["refresh_only"] == []
    assert full_out["refresh_only"] == list(REFRESH_ONLY)  # the control: numba's way
    assert lean_out["solution"] == full_out["solution"]
    assert lean_out["solution"] == json.loads(first.stdout)["solution"]


LOAD_ALL = """
    import sys
    import evaluator._kernels, solver.engine._kernels, solver.strategy._kernels
    from numba.core.registry import cpu_target

    loaded = failed = 0
    for mod in (evaluator._kernels, solver.engine._kernels, solver.strategy._kernels):
        for name, disp in sorted(vars(mod).items()):
            cache = getattr(disp, "_cache", None)
            if cache is None or getattr(disp, "py_func", None) is None:
                continue
            if disp.py_func.__module__ != mod.__name__:
                continue  # imported from another kernel module: counted there
            codegen = cpu_target.target_context.codegen()
            for key in cache._cache_file._load_index():
                sig = key[0]
                if cache._index_key(sig, codegen) != key:
                    continue  # made for another machine or another version of the code
                cres = cache.load_overload(sig, cpu_target.target_context)
                if cres is None:
                    failed += 1
                    print("not loaded:", name, sig, file=sys.stderr)
                else:
                    loaded += 1
    print(loaded, failed)
"""


def test_every_cached_kernel_loads_without_the_full_refresh():
    """Each signature of each kernel in the cache links and loads with only numba's
    runtime initialised: a kernel needing a symbol that only the full refresh registers
    would abort this process (LLVM cannot resolve it), and one that failed to load
    would be recompiled on every run."""
    warm = _python(SOLVE)
    assert warm.returncode == 0, warm.stderr
    res = _python(LOAD_ALL)
    assert res.returncode == 0, res.stderr
    loaded, failed = map(int, res.stdout.split())
    assert failed == 0, res.stderr
    # at least what the solve above ran: candidates, hand setting, naturals, settlement
    assert loaded >= 4


COLD = [sys.executable, "-m", "solver", "solve", HAND, "--seed", "1", "--samples", "300",
        "--format", "json"]  # fmt: skip


def _says_once_then_nothing(cache: str) -> None:
    """The first solve with the kernel cache ``cache`` says in one line that it compiles
    (the opponents are dealt and set on another thread, inside the solve's notice); the
    next is silent and gives the same answer."""
    env = {k: v for k, v in os.environ.items() if k != "CAPSA_NUMBA_FULL_REFRESH"}
    env["NUMBA_CACHE_DIR"] = cache
    cold = subprocess.run(COLD, capture_output=True, text=True, env=env, timeout=900)
    assert cold.returncode == 0, cold.stderr
    notices = [x for x in cold.stderr.splitlines() if x.startswith("capsa: compiling")]
    assert len(notices) == 1 and "solver kernels" in notices[0], cold.stderr
    warm = subprocess.run(COLD, capture_output=True, text=True, env=env, timeout=600)
    assert warm.returncode == 0 and warm.stderr == "", warm.stderr
    assert json.loads(warm.stdout) == json.loads(cold.stdout)


@pytest.mark.slow  # numba compiles every kernel a solve runs: half a minute of CPU
def test_a_cold_solve_says_once_what_compiles_and_a_warm_one_says_nothing(tmp_path):
    """An empty kernel cache: the first solve compiles and says so once; the next says
    nothing (``_says_once_then_nothing``)."""
    _says_once_then_nothing(str(tmp_path))


def _copy_if_there(src: str, dst: str) -> None:
    """A file of the run's kernel cache, unless another worker's numba replaced it while
    the folder was copied."""
    with contextlib.suppress(FileNotFoundError):
        shutil.copy2(src, dst)


def test_a_first_solve_says_once_what_compiles_and_a_warm_one_says_nothing(tmp_path):
    """The notice is the cache's markers' (``evaluator._jit.compiling``): the run's
    compiled kernels copied without their markers make a solve that loads every kernel
    but says, once, what it would compile, as a cold one does; the next says nothing.
    The compile from nothing is the slow test above (CI runs it)."""
    warm = subprocess.run(COLD, capture_output=True, text=True, timeout=900)
    assert warm.returncode == 0, warm.stderr  # the run's kernel cache holds the solve's
    kernels = os.environ["NUMBA_CACHE_DIR"]
    shutil.copytree(kernels, tmp_path / "kernels", ignore=shutil.ignore_patterns("warm-*"),
                    copy_function=_copy_if_there)  # fmt: skip
    _says_once_then_nothing(str(tmp_path / "kernels"))


def test_the_command_skips_pythons_last_collections():
    """``capsa`` freezes the objects it made before the process ends (Python's final
    garbage collections over numba's objects were a tenth of a second of a solve) and
    collects young objects less often; what it printed is all there."""
    code = """
        import gc, sys
        from solver.cli import main
        sys.argv = ["capsa", "solve", "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d", "--policy",
                    "field", "--format", "json"]
        try:
            main()
        except SystemExit as exc:
            assert exc.code == 0, exc.code
        print(gc.get_freeze_count() > 1000, gc.get_threshold()[0])
    """
    res = _python(code)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert json.loads(lines[0])["front"] == "7d 5h 4c"
    assert lines[1] == "True 20000"


def test_a_run_too_large_for_memory_is_refused_without_setting_its_opponents(monkeypatch):
    """The Monte Carlo matrix's memory check comes as soon as the candidates are known:
    the opponents being set in the background are stopped, not waited for."""
    from solver import solve
    from solver.engine.errors import InputError
    from solver.strategy.field_model import policy
    from solver.strategy.solving import scoring

    outcome: list[str] = []
    real = policy.set_sorted_hands

    def watched(hands, *args, **kwargs):
        try:
            out = real(hands, *args, **kwargs)
        except BaseException as exc:
            outcome.append(type(exc).__name__)
            raise
        if len(hands):
            outcome.append("finished")
        return out

    monkeypatch.setattr(scoring, "set_sorted_hands", watched)
    monkeypatch.setattr(scoring, "MC_MEMORY", 1000)
    with pytest.raises(InputError, match="too many samples"):
        solve(HAND, seed=1, samples=200_000)
    assert outcome == ["Stopped"]
