"""Start-up: a fresh `capsa solve` process against a fresh `import numba` (issue: start-up)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("name", ["startup", "startup_field"])
def test_startup(measure, name):
    result = measure(name)
    # the ratio to a bare `import numba` timed in the same rounds is the figure to keep
    assert result.extra["ratio"] > 0 and result.extra["import_numba"] > 0
