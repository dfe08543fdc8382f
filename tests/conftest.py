"""Every test run starts with no opponent pool: the pools live in a folder of this run's
own (``CAPSA_POOL_DIR``, inherited by the processes the tests start), so a pool cached on
the machine never changes what a test sees. Tests that want a pool build one there
(tests/test_pool.py)."""

from __future__ import annotations

import os
import shutil
import tempfile

_FOLDER: list[str] = []


def pytest_configure(config) -> None:  # noqa: ANN001, ARG001 - pytest's hook
    folder = tempfile.mkdtemp(prefix="capsa-test-pools-")
    _FOLDER.append(folder)
    os.environ["CAPSA_POOL_DIR"] = folder


def pytest_unconfigure(config) -> None:  # noqa: ANN001, ARG001 - pytest's hook
    for folder in _FOLDER:
        shutil.rmtree(folder, ignore_errors=True)
