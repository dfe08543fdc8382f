"""The tests never touch the user's cache or config.

Every test process (the run, or each pytest-xdist worker) gets folders of its own before
any test is collected, and the processes the tests start inherit them (every subprocess a
test starts gets an environment built from ``os.environ``, never a bare one:
tests/test_first_hour.py checks the test files for it):

- ``CAPSA_CACHE_DIR``: the evaluator's tables and trained field tables of house rulesets;
- ``CAPSA_POOL_DIR``: opponent pools, so every run starts with none (a pool cached on the
  machine never changes what a test sees; tests that want one build it there);
- ``XDG_CONFIG_HOME``: any configuration;
- ``NUMBA_CACHE_DIR``: the compiled kernels, in a folder of the tests' own under the
  system's temporary folder that later runs reuse (compiling them all again would cost
  minutes a run), unless the user names one; the kernels the user's capsa compiled from
  this checkout already (the README's first command) are copied there first, read and
  never written (``seed_kernels``);
- ``PYTHONPYCACHEPREFIX``: Python's bytecode, likewise in a folder of the tests' own,
  unless the user names one, and written even where ``PYTHONDONTWRITEBYTECODE`` is set
  (``_bytecode_kept``);
- ``HOME``, ``XDG_CACHE_HOME``, ``XDG_DATA_HOME``, ``XDG_STATE_HOME``, ``MPLCONFIGDIR``:
  a home of the run's own, shared by its workers, so that what the tests run besides
  capsa (matplotlib's font cache, Chromium's dconf and fontconfig files; Playwright
  gives Chromium an empty profile of its own too) writes there, never in the user's home;
- ``CAPSA_TESTS_SHARED``: a folder of the run's home where what several tests need (the
  opponent pools they read) is built once a run and shared by its workers
  (tests/shared.py);
- ``CAPSA_WORKERS``: 1, so that a batch that names no ``--workers`` runs in process (the
  tests of a pool of workers or of Dask name theirs);
- ``CAPSA_PROGRESS_SECONDS``: an hour, so that the progress lines a long command prints
  in a pipe do not mix with the lines the tests count (the tests of progress ask for them).

Ctrl-C is Ctrl-C in the processes the tests start, even when the run itself was started
with it ignored (``pytest &`` from a script, ``nohup``): an ignored SIGINT is inherited
through every exec, and the tests that press Ctrl-C on a ``capsa`` would fail for it.

At the end the run fails if a file appeared in, or changed in, a folder of the user's a
run could write (``_guarded``): capsa's own cache and config folders, compiled kernels
included, whole; in the user's cache, config, data and state folders, any new entry, and
any new or changed file of the tools the tests start (``TOOLS``). That is the check that
the isolation holds (another program at work on the machine during the run, a capsa
compiling into the user's cache or a first ``top`` making its config folder, fails it
too: the message says so).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile

import pytest

from tests.sampling import mark_sampled
from tests.web_fixtures import browser, server  # noqa: F401 - the page tests', one a process

#: Set by the first process of a run for the workers it starts: the user's own folders
#: (``{folder: depth}``, see ``snapshot``).
_REAL = "CAPSA_TESTS_GUARDED"
_FOLDER: list[str] = []
_SNAPSHOT: dict[str, tuple[int, int]] = {}
_CHECKED: list[bool] = []  # whether this process checks the folders at the end
#: What the tests start besides capsa writes in the user's cache and config folders
#: when it finds no home of the run's own: checked whole there.
TOOLS = ("matplotlib", "dconf", "fontconfig")


def _home_folders() -> list[str]:
    """The user's cache, config, data and state folders (XDG's, or HOME's defaults)."""
    home = os.path.expanduser("~")
    return [
        os.environ.get(name) or os.path.join(home, *default)
        for name, default in (("XDG_CACHE_HOME", (".cache",)), ("XDG_CONFIG_HOME", (".config",)),
                              ("XDG_DATA_HOME", (".local", "share")),
                              ("XDG_STATE_HOME", (".local", "state")))
    ]  # fmt: skip


def _guarded() -> dict[str, int | None]:
    """The user's folders a run could write, as the environment named them before the
    tests changed it, each with how deep it is checked (``None``: whole): capsa's own
    cache (compiled kernels included), config and pool folders, whole; the user's cache,
    config, data and state folders, their entries (a new file or folder there, whatever
    wrote it), and the folders of the tools the tests start, whole."""
    import platformdirs

    folders: dict[str, int | None] = {}
    for folder in _home_folders():
        folders[folder] = 1
        for tool in TOOLS:
            folders[os.path.join(folder, tool)] = None
    folders[os.environ.get("CAPSA_CACHE_DIR") or platformdirs.user_cache_dir("capsa")] = None
    folders[platformdirs.user_config_dir("capsa")] = None
    if os.environ.get("CAPSA_POOL_DIR"):
        folders[os.environ["CAPSA_POOL_DIR"]] = None
    return dict(sorted(folders.items()))


def snapshot(
    folders: list[str] | dict[str, int | None], depth: int | None = None
) -> dict[str, tuple[int, int]]:
    """Every file under ``folders``: its size and modification time. ``folders`` may map
    each folder to how deep it is looked at (``depth`` for all of them otherwise; ``None``:
    whole); a folder at that depth is listed, with ``(-1, -1)``: that it is there."""
    depths = folders if isinstance(folders, dict) else dict.fromkeys(folders, depth)
    files: dict[str, tuple[int, int]] = {}

    def walk(folder: str, left: int | None) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:  # not there, or gone while listed
            return
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if left is None or left > 1:
                        walk(entry.path, None if left is None else left - 1)
                    else:
                        files[entry.path] = (-1, -1)
                else:
                    st = entry.stat()
                    files[entry.path] = (st.st_size, st.st_mtime_ns)
            except OSError:  # gone while listed
                continue

    for folder, limit in depths.items():
        walk(folder, limit)
    return files


def new_files(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """The files of ``after`` that were not in ``before``, or changed (compiled kernels
    too: the tests compile only into their own folder, ``kernel_folder``); a new folder
    only where no file in it is named."""
    found = sorted(p for p, stat in after.items() if before.get(p) != stat)
    return [
        p for p in found if after[p] != (-1, -1) or not any(q.startswith(p + os.sep) for q in found)
    ]


def kernel_folder() -> str:
    """The tests' own compiled-kernel cache (kept between runs)."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"capsa-test-kernels-{uid}")


def _checkout_kernel_folders(root: str) -> set[str]:
    """The names numba gives the kernel caches of this checkout's source folders: each
    folder's name and the SHA-1 of its absolute path (``numba.core.caching``'s
    ``get_suitable_cache_subpath``)."""
    names = set()
    for top in ("evaluator", "solver"):
        for folder, subs, _ in os.walk(os.path.join(root, top)):
            subs[:] = [d for d in subs if d != "__pycache__"]
            for path in {os.path.abspath(folder), os.path.realpath(folder)}:
                digest = hashlib.sha1(path.encode()).hexdigest()  # noqa: S324 - numba's name
                names.add(f"{os.path.basename(path)}_{digest}")
    return names


def seed_kernels(user: str, folder: str, root: str) -> list[str]:
    """The kernels the user's capsa compiled already from this checkout (the README's
    first command solves a hand: it compiles a solve's kernels into the user's cache),
    copied into the tests' own kernel folder ``folder`` where it lacks them, so that the
    test processes that meet them first load them instead of each compiling them again.
    Only this checkout's kernels are read (``_checkout_kernel_folders``) and the markers
    of groups compiled (``warm-*``); nothing in ``user`` is written, no file in
    ``folder`` replaced. Best effort: a folder that cannot be read is left. Returns the
    files copied."""
    names = _checkout_kernel_folders(root)
    copied: list[str] = []

    def copy_new(src: str, dst: str) -> None:
        if not os.path.exists(dst):
            shutil.copy2(src, dst)
            copied.append(dst)

    try:
        versions = [d for d in os.scandir(user) if d.name.startswith("capsa-kernels-")]
        for version in versions:
            target = os.path.join(folder, version.name)
            for entry in os.scandir(version.path):
                if entry.is_dir(follow_symlinks=False) and entry.name in names:
                    shutil.copytree(entry.path, os.path.join(target, entry.name),
                                    copy_function=copy_new, dirs_exist_ok=True)  # fmt: skip
                elif entry.is_file(follow_symlinks=False) and entry.name.startswith("warm-"):
                    os.makedirs(target, exist_ok=True)
                    copy_new(entry.path, os.path.join(target, entry.name))
    except (OSError, shutil.Error):
        pass  # what was copied stays: numba compiles the rest
    return copied


def bytecode_folder() -> str:
    """The tests' own folder of Python's compiled bytecode (kept between runs)."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"capsa-test-bytecode-{uid}")


def _bytecode_kept() -> None:
    """Python's compiled bytecode goes to the tests' own folder (``bytecode_folder``,
    or the user's ``PYTHONPYCACHEPREFIX``), never beside the sources, and is written
    there even where ``PYTHONDONTWRITEBYTECODE`` is set: each of the hundreds of Python
    processes a run starts would otherwise compile capsa's modules again, and each
    worker rewrite the test files' assertions again."""
    os.environ.setdefault("PYTHONPYCACHEPREFIX", bytecode_folder())
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False


def _own_home(folder: str) -> None:
    """Point HOME and the XDG and matplotlib folders at ``folder`` (the run's home)."""
    for name, sub in (("HOME", ""), ("XDG_CACHE_HOME", ".cache"),
                      ("XDG_DATA_HOME", ".local/share"), ("XDG_STATE_HOME", ".local/state"),
                      ("MPLCONFIGDIR", ".config/matplotlib")):  # fmt: skip
        os.environ[name] = os.path.join(folder, sub) if sub else folder
        os.makedirs(os.environ[name], exist_ok=True)


def pytest_configure(config) -> None:  # noqa: ANN001 - pytest's hook
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:  # a background run's: see above
        signal.signal(signal.SIGINT, signal.default_int_handler)
    first = _REAL not in os.environ
    if first:
        os.environ[_REAL] = json.dumps(_guarded())
        if "NUMBA_CACHE_DIR" not in os.environ:  # the user names none: the tests' own
            import platformdirs

            os.environ["NUMBA_CACHE_DIR"] = kernel_folder()
            seed_kernels(platformdirs.user_cache_dir("capsa"), kernel_folder(),
                         os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # fmt: skip
        _bytecode_kept()
        home = tempfile.mkdtemp(prefix="capsa-tests-home-")
        _FOLDER.append(home)
        _own_home(home)
        # what the run's processes build once and share (tests/shared.py)
        os.environ["CAPSA_TESTS_SHARED"] = os.path.join(home, "shared")
    guarded = json.loads(os.environ[_REAL])
    folder = tempfile.mkdtemp(prefix="capsa-tests-")
    _FOLDER.append(folder)
    # progress lines in a pipe only where a test asks for them (tests/test_first_hour.py):
    # the others count what stderr says
    os.environ.setdefault("CAPSA_PROGRESS_SECONDS", "3600")
    # the tests' servers solve Monte Carlo answers on their threads: in processes of their
    # own (as shipped) each server would warm two more processes, and at SCHED_IDLE on a
    # machine the tests keep busy their answers would wait; the tests of those processes
    # start their servers without it (tests.web_server.as_shipped)
    os.environ.setdefault("CAPSA_SERVE_MC", "threads")
    # a batch that names no --workers runs in the test's process (or the command's), not
    # on a pool of processes that each load the kernels again (about a CPU second a
    # process); the tests of the pool, the workers and Dask name theirs
    os.environ.setdefault("CAPSA_WORKERS", "1")
    for name, sub in (("CAPSA_CACHE_DIR", "cache"), ("CAPSA_POOL_DIR", "pools"),
                      ("XDG_CONFIG_HOME", "config")):  # fmt: skip
        os.environ[name] = os.path.join(folder, sub)
        os.makedirs(os.environ[name])
    if first and not hasattr(config, "workerinput"):
        _SNAPSHOT.update(snapshot(guarded))
        _CHECKED.append(True)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by the marks it adds
def pytest_collection_modifyitems(items) -> None:  # noqa: ANN001 - pytest's hook
    """A ``sampled`` sweep runs its sample by default, the rest under ``-m slow``
    (tests/sampling.py)."""
    mark_sampled(items)


#: ``pytest -n auto``'s worker count when set (a whole number of at least 1).
WORKERS = "CAPSA_TESTS_WORKERS"


def pytest_xdist_auto_num_workers(config):  # noqa: ANN001, ANN201, ARG001 - xdist's hook
    """``-n auto``: ``CAPSA_TESTS_WORKERS`` workers when set, else xdist's count (one a
    core): more workers than cores were not shown faster on an idle machine, and the
    tests whose servers solve at the lowest priority (``SCHED_IDLE``) starve on cores the
    tests keep busier (docs/architecture.md#tests: workers)."""
    text = os.environ.get(WORKERS, "").strip()
    if not text:
        return None  # xdist's own hook decides
    if not text.isdigit() or int(text) < 1:
        import pytest

        raise pytest.UsageError(f"{WORKERS} must be a whole number of at least 1, got {text!r}")
    return int(text)


def _cpu() -> float:
    """CPU seconds of this process (every thread) and of the processes it has waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _descendants_cpu() -> float:
    """CPU seconds of the processes this one started that are still running (a server,
    Playwright's driver and Chromium), with what their own finished children took: what
    ``_cpu`` leaves out until they end (Linux's ``/proc``; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:  # gone while listed
            continue
        parents[pid] = int(fields[1])  # after the name: state, ppid, ..., utime at 12
        times[pid] = sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    own: set[int] = {os.getpid()}
    grew = True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in own} - own
        own |= found
        grew = bool(found)
    own.discard(os.getpid())
    return sum(times[pid] for pid in own) / tick


def _measured(phase: str):  # noqa: ANN202 - a pytest hook wrapper
    """``CAPSA_TESTS_CPU=FILE``: each test's phase appends a line to FILE: its CPU seconds
    (the subprocesses it ran included), which the load of the machine does not change as
    it changes wall time; ``other``, the CPU seconds in that time of the processes it had
    started that still run (servers, Chromium; below 0 in the phase where one ends and is
    waited for, as what it took moves into ``cpu``); and ``wall``, its wall seconds. What wall
    time is neither is time the test waited: sleeps, timeouts, a page's load, a lock, or
    the machine's other work (.ci/durations.py --cpu FILE sums them up)."""
    import time

    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def hook(item):  # noqa: ANN001, ANN202
        where = os.environ.get("CAPSA_TESTS_CPU")
        start = (_cpu(), _descendants_cpu(), time.perf_counter()) if where else (0.0, 0.0, 0.0)
        yield
        if where:
            row = {"test": item.nodeid, "phase": phase, "cpu": _cpu() - start[0],
                   "other": _descendants_cpu() - start[1],
                   "wall": time.perf_counter() - start[2]}  # fmt: skip
            with open(where, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")  # one short write: lines of workers do not mix

    return hook


pytest_runtest_setup = _measured("setup")
pytest_runtest_call = _measured("call")
pytest_runtest_teardown = _measured("teardown")


def pytest_sessionfinish(session, exitstatus) -> None:  # noqa: ANN001, ARG001 - pytest's hook
    if not _CHECKED:
        return
    appeared = new_files(_SNAPSHOT, snapshot(json.loads(os.environ[_REAL])))
    if appeared:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        lines = "\n".join(f"  {p}" for p in appeared[:20])
        message = (
            "the tests wrote into the user's own folders (or another program at work on the"
            f" machine did, during the run):\n{lines}"
        )
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = 1


def pytest_unconfigure(config) -> None:  # noqa: ANN001, ARG001 - pytest's hook
    for folder in _FOLDER:
        shutil.rmtree(folder, ignore_errors=True)
