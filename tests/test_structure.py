"""The shape of the code: modules and functions stay small enough to read (kernels
apart), and every package and data file under solver/ and evaluator/ is shipped."""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The most lines a module under solver/ may have (kernels, ``_kernels.py``, apart).
MAX_MODULE_LINES = 600
#: The most lines a function may have (its ``def`` to its last line; kernels apart).
MAX_FUNCTION_LINES = 80


def _sources(top: str) -> list[Path]:
    return sorted(p for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts)


def _long_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
            if lines > MAX_FUNCTION_LINES:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {lines} lines")
    return out


def test_no_module_under_solver_is_over_600_lines():
    long = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for p in _sources("solver")
        if p.name != "_kernels.py"
        and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert long == []


def test_no_function_outside_the_kernels_is_over_80_lines():
    long = [
        f
        for top in ("solver", "evaluator")
        for p in _sources(top)
        if p.name != "_kernels.py"
        for f in _long_functions(p)
    ]
    assert long == []


def test_the_checks_see_long_code():
    """The two checks above can fail: they find a long module and a long function."""
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    tmp = ROOT / "tests" / "_long_example.py"
    try:
        tmp.write_text(f"def long():\n{body}\n", encoding="utf-8")
        assert len(_long_functions(tmp)) == 1
    finally:
        tmp.unlink()


def test_every_package_and_its_data_are_shipped():
    """A non-editable install carries every package under solver/ and evaluator/ and
    their data files: pyproject lists them (a package found by its ``__init__.py``)."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    data = cfg["package-data"]
    for top in ("solver", "evaluator"):
        for init in (ROOT / top).rglob("__init__.py"):
            package = ".".join(init.parent.relative_to(ROOT).parts)
            assert package in listed, package
    for package in listed:
        folder = ROOT.joinpath(*package.split("."))
        for path in folder.iterdir():
            if path.is_file() and path.suffix not in (".py", ".pyc"):
                globs = data.get(package, [])
                assert any(fnmatch.fnmatch(path.name, g) for g in globs), path
