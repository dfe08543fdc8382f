"""What many test files share: the command line run as a user runs it, and hands dealt.

- ``capsa(*args, ...)``: ``python -m solver ARGS`` in a subprocess, this tree's code
  (its root first on ``PYTHONPATH``, whatever the working directory), stdout and
  stderr captured; text (UTF-8) unless ``input`` is bytes or ``text=False``;
- ``capsa_in(*args, ...)``: the same command run inside the test's process (the Typer
  app through ``typer.testing.CliRunner``), the same answer (a ``CompletedProcess``: the
  exit code, stdout and stderr apart, the same text); for a test whose claim is not the
  process itself (docs/architecture.md#tests). ``CAPSA_TESTS_INPROC=check`` also runs
  each such command as a subprocess, after it, and fails where the two differ but for
  the times taken (a command that writes files meets what the first run wrote);
- ``random_hands(n, seed)``: ``n`` random 13-card hands, each sorted, uint8[n, 13]
  (the same hands for the same seed in every file that deals them); ``dealt=True``:
  unsorted, as dealt;
- ``batch_job(**kw)``: a batch ``Job`` from flat keywords, its solve options checked;
- ``cpu_seconds(pid)``: the CPU seconds a process (every thread) has used, read from
  ``/proc`` (a process that ended but is not yet waited for still answers): a test of a
  signal waits for work done and bounds the work after it, which a loaded machine does
  not stretch as it stretches wall time.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: The command line as a subprocess runs it.
CAPSA = [sys.executable, "-m", "solver"]

__all__ = ["CAPSA", "ROOT", "batch_job", "capsa", "capsa_in", "cpu_seconds", "in_thread",
           "random_hands", "run_async"]  # fmt: skip


def in_thread(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` on a thread of its own: its answer, or its exception raised
    here. For what runs an event loop of its own (``asyncio.run``: the server's tests,
    `capsa bench`'s load on the page's server): the test process's own thread holds
    Playwright's event loop, running, while the worker's browser is open
    (tests/web_fixtures.py), and ``asyncio.run`` refuses to start inside a running loop."""
    box: dict[str, Any] = {}

    def main() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - raised again in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=main, name=getattr(fn, "__name__", "in_thread"))
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def run_async(coroutine: Any) -> Any:
    """``asyncio.run(coroutine)`` on a thread of its own (``in_thread``)."""
    import asyncio

    return in_thread(asyncio.run, coroutine)


def capsa(
    *args: str,
    input: str | bytes | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    text: bool | None = None,
    timeout: float = 900,
    **run: Any,
) -> subprocess.CompletedProcess:
    """``capsa ARGS`` in a subprocess (module docstring). ``env`` is added to this
    process's environment; other keywords (``stdout``, ``stdin``, ``encoding``) go to
    ``subprocess.run``."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    run.setdefault("stdout", subprocess.PIPE)
    run.setdefault("stderr", subprocess.PIPE)
    text = not isinstance(input, bytes) if text is None else text
    if text:
        run.setdefault("encoding", "utf-8")
    return subprocess.run(
        [*CAPSA, *args],
        input=input,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": path, **(env or {})},
        text=text,
        timeout=timeout,
        **run,
    )


def capsa_in(
    *args: str,
    input: str | bytes | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    text: bool | None = None,
    timeout: float = 900,
) -> subprocess.CompletedProcess:
    """``capsa ARGS`` run in this process, answered as ``capsa`` answers (module
    docstring): ``env`` is added to ``os.environ`` and ``cwd`` entered for the run, and
    both put back after it, as is the ``capsa`` logger (the CLI points it at the stderr of
    its run); the program's caches (``solver.engine.caches``) are emptied before and after,
    as a new process starts without them; Python's warnings are printed on its stderr as
    a process prints them (not pytest's ``error``). Click's help is as wide as a process's
    terminal, not the test runner's 80 columns. Text is read back as a subprocess's (UTF-8,
    universal newlines). A run past ``timeout`` seconds raises ``subprocess.TimeoutExpired``
    as ``capsa`` does (a liveness bound; on the main thread, where a signal can stop it)."""
    try:  # typer >= 0.20 vendors click (solver/cli/app.py)
        from typer._click import formatting
    except ImportError:  # pragma: no cover - older typer on click
        from click import formatting
    from typer.main import get_command
    from typer.testing import CliRunner

    from solver.cli import app
    from solver.engine.caches import caches

    text = not isinstance(input, bytes) if text is None else text
    log = logging.getLogger("capsa")
    kept = (log.handlers[:], log.level, log.propagate)
    log.handlers.clear()
    here = os.getcwd()
    for cache in caches().values():
        cache.clear()
    code = 0
    try:
        with CliRunner().isolation(input=input, env=env) as (out, err, _both):
            formatting.FORCED_WIDTH = None  # put back by the isolation's end
            if cwd is not None:
                os.chdir(cwd)
            try:
                with _deadline(timeout), _warnings_as_a_process():
                    get_command(app).main(list(args), prog_name="capsa")
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            except _TimedOut:
                raise subprocess.TimeoutExpired([*CAPSA, *args], timeout) from None
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                stdout, stderr = out.getvalue(), err.getvalue()
    finally:
        os.chdir(here)
        log.handlers[:], log.propagate = kept[0], kept[2]
        log.setLevel(kept[1])
        for cache in caches().values():
            cache.clear()
    if text:
        stdout, stderr = (io.TextIOWrapper(io.BytesIO(b), "utf-8").read() for b in (stdout, stderr))
    res = subprocess.CompletedProcess([*CAPSA, *args], code, stdout, stderr)
    if os.environ.get("CAPSA_TESTS_INPROC") == "check":
        _same(res, capsa(*args, input=input, cwd=cwd, env=env, text=text))
    return res


@contextlib.contextmanager
def _warnings_as_a_process() -> Iterator[None]:
    """Python's warnings as a new ``capsa`` process has them: printed on its stderr
    (not pytest's ``error``, nor kept by pytest), each place once, the categories Python
    leaves out by default left out; put back after."""
    import warnings

    with warnings.catch_warnings():
        warnings.resetwarnings()
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning,
                         ResourceWarning):  # fmt: skip
            warnings.simplefilter("ignore", category)
        warnings.showwarning = getattr(warnings, "_showwarning_orig", warnings.showwarning)
        yield


class _TimedOut(BaseException):
    """Past ``capsa_in``'s timeout: a ``BaseException``, which the CLI's mapping of every
    ``Exception`` to an exit code lets through."""


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise ``_TimedOut`` in this thread after ``seconds`` (the main thread only)."""
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def late(signum: int, frame: object) -> None:
        raise _TimedOut

    before = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


#: What only a cold process says on stderr (numba compiling, lookup tables built).
_NOTICES = ("capsa: compiling ", "capsa: building lookup tables")
#: Times and rates, which differ from run to run (``0.8 s``, ``1 min 05 s``, ``12 hands/s``,
#: JSON's ``"seconds": ...``).
_TIMES = r"[0-9][0-9.,]*(?: h| min| s| ms| µs|\b \w+/s)\b|\"seconds\": (?:\{[^}]*\}|[^,}]*)"


def _same(inproc: subprocess.CompletedProcess, sub: subprocess.CompletedProcess) -> None:
    """``CAPSA_TESTS_INPROC=check``: the in-process answer is the subprocess's, but for
    a cold process's notices and the times taken."""
    import re

    def seen(text: str | bytes) -> list[str]:
        text = text if isinstance(text, str) else text.decode("utf-8", "backslashreplace")
        return [re.sub(_TIMES, "T", ln) for ln in text.splitlines() if not ln.startswith(_NOTICES)]

    got = (inproc.returncode, seen(inproc.stdout), seen(inproc.stderr))
    assert got == (sub.returncode, seen(sub.stdout), seen(sub.stderr)), (inproc.args, got, sub)


def random_hands(n: int, seed: int = 0, *, dealt: bool = False) -> np.ndarray:
    """``n`` random hands, each sorted (uint8[n, 13]): a shuffled deck a hand; ``dealt``:
    in the order dealt (not sorted), from a stream of their own."""
    rng = np.random.default_rng(seed)
    if dealt:
        return np.argsort(rng.random((n, 52)), axis=1)[:, :13].astype(np.uint8)
    return np.sort(
        rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (n, 1)), axis=1)[:, :13], axis=1
    )


#: The fields of a batch ``Job`` that are its solve options (``Job.options``).
_JOB_SOLVE_KEYS = ("policy", "samples", "seed", "players", "stakes")


def batch_job(**kw: Any) -> Any:
    """A batch ``Job`` from flat keywords (``policy``, ``samples``, ``seed``, ``players``
    and ``stakes`` go into its checked ``SolveOptions``, as ``run_batch`` makes them)."""
    from solver.apps.batch.work import Job
    from solver.engine.options import SolveOptions

    solve = {k: kw.pop(k) for k in _JOB_SOLVE_KEYS if k in kw}
    kw.setdefault("csv_spec", None)
    kw.setdefault("skip_upto", 0)
    options = SolveOptions(top=0, pool=False, **solve).check()
    return Job(options=options, **kw)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid``, all its threads (``/proc/PID/stat``:
    fields 14 and 15, after the command's closing parenthesis)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
