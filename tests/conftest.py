"""The tests never touch the user's cache or config.

Every test process (the run, or each pytest-xdist worker) gets folders of its own before
any test is collected, and the processes the tests start inherit them:

- ``CAPSA_CACHE_DIR``: the evaluator's tables and trained field tables of house rulesets;
- ``CAPSA_POOL_DIR``: opponent pools, so every run starts with none (a pool cached on the
  machine never changes what a test sees; tests that want one build it there);
- ``XDG_CONFIG_HOME``: any configuration;
- ``NUMBA_CACHE_DIR``: the compiled kernels, in a folder of the tests' own under the
  system's temporary folder that later runs reuse (compiling them all again would cost
  minutes a run), unless the user names one;
- ``CAPSA_PROGRESS_SECONDS``: an hour, so that the progress lines a long command prints
  in a pipe do not mix with the lines the tests count (the tests of progress ask for them).

At the end the run fails if a file appeared in, or changed in, the user's own cache or
config folders of capsa (``_guarded``; compiled kernels aside, see ``new_files``): the
check that the isolation holds.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

#: Set by the first process of a run for the workers it starts: the user's own folders.
_REAL = "CAPSA_TESTS_GUARDED"
_FOLDER: list[str] = []
_SNAPSHOT: dict[str, tuple[int, int]] = {}
_CHECKED: list[bool] = []  # whether this process checks the folders at the end


def _guarded() -> list[str]:
    """The user's own cache and config folders of capsa (where capsa run outside the
    tests would write), as the environment named them before the tests changed it."""
    import platformdirs

    folders = {
        os.environ.get("CAPSA_CACHE_DIR") or platformdirs.user_cache_dir("capsa"),
        platformdirs.user_config_dir("capsa"),
    }
    if os.environ.get("CAPSA_POOL_DIR"):
        folders.add(os.environ["CAPSA_POOL_DIR"])
    return sorted(folders)


def snapshot(folders: list[str]) -> dict[str, tuple[int, int]]:
    """Every file under ``folders``: its size and modification time."""
    files = {}
    for folder in folders:
        for path in Path(folder).rglob("*"):
            try:
                st = path.stat()
            except OSError:  # gone while listed
                continue
            if path.is_file():
                files[str(path)] = (st.st_size, st.st_mtime_ns)
    return files


def new_files(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """The files of ``after`` that were not in ``before``, or changed. Compiled kernels
    (``capsa-kernels-DIGEST`` folders) are left out: any copy of capsa at work on the
    machine compiles there, and the tests' own kernel folder is checked by
    tests/test_first_hour.py instead."""
    return sorted(
        p for p, stat in after.items()
        if before.get(p) != stat and not any(
            part.startswith("capsa-kernels-") for part in Path(p).parts)
    )  # fmt: skip


def kernel_folder() -> str:
    """The tests' own compiled-kernel cache (kept between runs)."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"capsa-test-kernels-{uid}")


def pytest_configure(config) -> None:  # noqa: ANN001 - pytest's hook
    first = _REAL not in os.environ
    if first:
        os.environ[_REAL] = json.dumps(_guarded())
        os.environ.setdefault("NUMBA_CACHE_DIR", kernel_folder())
    guarded = json.loads(os.environ[_REAL])
    folder = tempfile.mkdtemp(prefix="capsa-tests-")
    _FOLDER.append(folder)
    # progress lines in a pipe only where a test asks for them (tests/test_first_hour.py):
    # the others count what stderr says
    os.environ.setdefault("CAPSA_PROGRESS_SECONDS", "3600")
    for name, sub in (("CAPSA_CACHE_DIR", "cache"), ("CAPSA_POOL_DIR", "pools"),
                      ("XDG_CONFIG_HOME", "config")):  # fmt: skip
        os.environ[name] = os.path.join(folder, sub)
        os.makedirs(os.environ[name])
    if first and not hasattr(config, "workerinput"):
        _SNAPSHOT.update(snapshot(guarded))
        _CHECKED.append(True)


def pytest_sessionfinish(session, exitstatus) -> None:  # noqa: ANN001, ARG001 - pytest's hook
    if not _CHECKED:
        return
    appeared = new_files(_SNAPSHOT, snapshot(json.loads(os.environ[_REAL])))
    if appeared:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        lines = "\n".join(f"  {p}" for p in appeared[:20])
        message = f"the tests wrote into the user's own capsa folders:\n{lines}"
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = 1


def pytest_unconfigure(config) -> None:  # noqa: ANN001, ARG001 - pytest's hook
    for folder in _FOLDER:
        shutil.rmtree(folder, ignore_errors=True)
