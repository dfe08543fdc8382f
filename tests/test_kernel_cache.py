"""The kernel cache follows the kernels' sources, and the evaluator names no other
package: solver registers the files its kernels are built from
(``evaluator._jit.register_kernel_sources``), and the cache folder's digest covers them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_evaluator_names_no_solver_file():
    """No string in the evaluator's code (docstrings apart) names a solver file."""
    for path in (ROOT / "evaluator").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        named = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and "solver" in node.value
        ]
        assert named == [], path.name


def test_solver_registers_its_kernel_sources_before_its_kernels():
    from evaluator import _jit
    from solver.engine import _kernels  # noqa: F401 - registers on import
    from solver.engine.layout import KERNEL_SOURCES

    sources = _jit.kernel_sources()
    assert list(sources)[:2] == ["evaluator/_jit.py", "evaluator/_kernels.py"]
    for name, path in KERNEL_SOURCES.items():
        assert sources[name] == path and path.is_file()
    assert set(KERNEL_SOURCES) == {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "solver").rglob("_kernels.py")
    } | {"solver/engine/layout.py"}


def test_the_digest_follows_every_registered_file(tmp_path):
    """A registered file's change gives another digest, and so another cache folder."""
    src = tmp_path / "k.py"
    src.write_text("X = 1\n")
    code = f"""
import os
from pathlib import Path
os.environ["NUMBA_CACHE_DIR"] = {str(tmp_path)!r}
from evaluator import _jit
before = _jit.sources_digest(), _jit.cache_dir()
_jit.register_kernel_sources({{"pkg/k.py": Path({str(src)!r})}})
one = _jit.sources_digest(), _jit.cache_dir()
Path({str(src)!r}).write_text("X = 2\\n")
two = _jit.sources_digest()
print(before[0] != one[0], one[0] != two, before[1] != one[1],
      one[1].name == "capsa-kernels-" + one[0])
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True", "True", "True"]
