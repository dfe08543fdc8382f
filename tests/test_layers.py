"""The layering contract of pyproject.toml ([tool.importlinter]) holds: imports flow one way."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_are_kept():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter is in the test extra: pip install -e '.[test]'"
    run = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


#: docs/architecture.md, "Floors": no chain of imports inside solver/strategy/ is longer.
STRATEGY_FLOORS = 6


def _longest_chain(imports: dict[str, set[str]]) -> list[str]:
    """The longest chain of imports m1 -> m2 -> ... in a graph without cycles."""
    memo: dict[str, list[str]] = {}

    def chain(m: str) -> list[str]:
        if m not in memo:
            memo[m] = [m]  # a cycle ends a chain (the contracts forbid them anyway)
            below = [chain(d) for d in imports.get(m, ()) if d != m]
            memo[m] = [m, *max(below, key=len, default=[])]
        return memo[m]

    return max((chain(m) for m in imports), key=len, default=[])


def test_the_longest_chain_is_measured():
    graph = {"a": {"b", "c"}, "b": {"d"}, "c": set(), "d": {"e"}, "e": set()}
    assert _longest_chain(graph) == ["a", "b", "d", "e"]


def test_the_strategy_is_at_most_six_floors_deep():
    """Every import counts, those inside functions too (grimp reads them all)."""
    import grimp

    g = grimp.build_graph("solver", include_external_packages=False)
    packages = {"solver.strategy"} | {
        m for m in g.modules if m.startswith("solver.strategy.") and (
            ROOT / (m.replace(".", "/")) / "__init__.py").exists()
    }  # fmt: skip
    mods = {m for m in g.modules if m.startswith("solver.strategy") and m not in packages}
    imports = {m: {d for d in g.find_modules_directly_imported_by(m) if d in mods} for m in mods}
    longest = _longest_chain(imports)
    assert len(mods) > 20 and len(longest) >= 5  # the graph was read
    assert len(longest) <= STRATEGY_FLOORS, " -> ".join(longest)
