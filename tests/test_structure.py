"""The shape of the code: every package and data file under solver/ and evaluator/ is
shipped."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
