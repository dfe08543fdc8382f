"""mypy in strict mode over evaluator/ and solver/engine/ (pyproject's [tool.mypy], the
configuration .ci/run uses) reports no error."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _mypy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("mypy", path=str(Path(sys.executable).parent))
    assert exe, "mypy is in the test extra: pip install -e '.[test]'"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [exe, "--no-incremental", *args], cwd=cwd, capture_output=True, text=True, env=env
    )


def test_the_configuration_is_strict_over_evaluator_and_engine():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert conf["strict"] is True
    assert sorted(conf["files"]) == ["evaluator", "solver/engine"]
    assert re.search(r"^\.venv/bin/mypy$", (ROOT / ".ci" / "run").read_text(), re.M)


def test_mypy_strict_is_clean():
    run = _mypy()
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "Success: no issues found" in run.stdout


def test_mypy_finds_a_type_error(tmp_path):
    """The check can fail: the same configuration rejects an untyped function and a bad
    call, in a module of the checked packages' kind."""
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x):\n    return x\n\n\ndef g() -> int:\n    return 'one'\n")
    run = _mypy(str(bad), cwd=tmp_path)
    assert run.returncode == 1, run.stdout
    assert "[no-untyped-def]" in run.stdout and "[return-value]" in run.stdout
