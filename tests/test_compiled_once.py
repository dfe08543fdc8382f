"""A ruleset is compiled once, by a public entry point, and handed down compiled.

Below the public entry points (``solve``, ``settle``, ``settle_natural``,
``find_natural``, ``set_hands``, a batch, a duel, a strength comparison, training, the
web API), functions take a ``CompiledRules`` only: none calls ``compile_rules`` again,
and none takes ``Rules | CompiledRules``. Checked twice: every call of ``compile_rules``
during real runs is counted, and the source is read for who calls it and how rules are
typed.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import numpy as np
import pytest

from solver.engine import compiled
from solver.engine.rules import load_rules

ROOT = Path(__file__).resolve().parent.parent
HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
OPPONENTS = ["2c 3c 4d | 5s 6s 7h 8h Jd | Qc Qd Kc Kh Ad"]

#: The functions that may call ``compile_rules``: the public entry points, each once.
ENTRY_POINTS = {
    "solver/strategy/solving/solve.py": {"solve"},
    "solver/strategy/field_model/setting.py": {"set_hands"},
    # settle, settle_table, settle_natural and find_natural compile through _compile
    "solver/engine/settlement.py": {"_compile"},
    "solver/apps/strength.py": {"compare_policies"},
    "solver/apps/duel/play.py": {"duel"},
    "solver/apps/training.py": {"prepare"},
    "solver/apps/batch/records.py": {"fast_records"},  # a batch worker's chunk
    "solver/apps/web/api.py": {"ready", "_used"},  # _used: a trained table answered
    "solver/apps/bench/solving.py": {"splits", "_settle_seconds"},
    "solver/apps/bench/pooled.py": {"mc_pool", "pool_build", "batch_mc"},
    "solver/apps/batch/pooling.py": {"plan_pool"},  # the batch's parent: which pool
    "solver/apps/batch/run.py": {"_opponents", "_with_field"},  # the parent: models, field
    "solver/apps/learning.py": {"learn_from"},  # capsa train --from
    "solver/apps/bench/opponents.py": {"mc_opponents"},
    "solver/apps/bench/presets.py": {"mc_presets"},  # every preset in the same rounds
    "solver/apps/bench/tables.py": {"_table"},  # the 十三水 tables of 4, 5 and 6 players
    "solver/apps/batch/pinned.py": {"run_models", "run_field"},  # a worker: models, field
    "solver/apps/web/hands.py": {"name_rows"},  # POST /api/rows
    "solver/apps/web/table.py": {"play_table"},  # POST /api/table
    "solver/apps/web/training.py": {"start", "_bound"},  # POST /api/train; its cache bounded
    "solver/cli/commands/strength.py": {"strength"},
    "solver/cli/commands/pool.py": {"pool"},
}


@pytest.fixture
def count_compiles(monkeypatch):
    """Every module of solver that holds ``compile_rules`` gets one that counts its calls."""
    import solver.apps.duel.play
    import solver.apps.strength
    import solver.strategy.field_model.setting
    import solver.strategy.solving.solve  # noqa: F401 - loaded, so that their bindings are patched

    calls: list[object] = []
    real = compiled.compile_rules

    def counting(rules=None):
        calls.append(rules)
        return real(rules)

    for name, module in list(sys.modules.items()):
        if name.startswith("solver") and getattr(module, "compile_rules", None) is real:
            monkeypatch.setattr(module, "compile_rules", counting)
    return calls


@pytest.mark.parametrize(
    "options",
    [
        {"samples": 200, "seed": 1},
        {"policy": "field", "played": "2s 3d 4c | 9h 9d 9c 5h 7d | As Ks Qs Js Ts"},
        {"policy": "greedy"},
        {"against": OPPONENTS, "stakes": [2.0]},
    ],
    ids=["mc", "field-played", "greedy", "against"],
)
def test_one_solve_compiles_the_ruleset_once(count_compiles, options):
    from solver.strategy.solving import solve as S

    S.solve(HAND, rules="capsa", **options)
    assert len(count_compiles) == 1 and count_compiles[0] is load_rules("capsa")


def test_set_hands_and_a_duel_compile_once(count_compiles):
    from solver.apps.duel import duel
    from solver.strategy.field_model import setting

    setting.set_hands(np.arange(13, dtype=np.uint8).reshape(1, 13), "per-row", "field")
    assert len(count_compiles) == 1
    duel("field", "greedy", deals=20, rules="per-row", players=2, seed=1)
    assert len(count_compiles) == 2


def test_below_the_entry_points_the_ruleset_comes_compiled():
    from solver.engine import settlement

    r = compiled.compile_rules(load_rules("capsa"))
    with pytest.raises(TypeError, match="summarize takes a CompiledRules"):
        settlement.summarize(("2c 3c 4c", "5d 6d 7d 8d 9h", "Tc Jc Qc Kc As"), r.rules)
    assert settlement.summarize(("2c 3c 4c", "5d 6d 7d 8d 9h", "Tc Jc Qc Kc As"), r)[2] is False


def _functions(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def test_only_the_entry_points_call_compile_rules():
    callers: dict[str, set[str]] = {}
    for path in sorted((ROOT / "solver").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "solver/engine/compiled.py":
            continue
        for fn in _functions(path):
            for node in ast.walk(fn):
                if (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", getattr(node.func, "attr", None))
                    == "compile_rules"
                ):
                    callers.setdefault(rel, set()).add(fn.name)
    assert callers == ENTRY_POINTS


def test_below_the_entry_points_no_function_takes_rules_or_compiled_rules():
    """The type ``Rules | CompiledRules`` (a function that may have to compile) is an
    entry point's alone (it compiles, once); everything below takes ``CompiledRules``."""
    found = []
    for path in sorted((ROOT / "solver").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for fn in _functions(path):
            if fn.name in ENTRY_POINTS.get(rel, ()) or fn.name == "compile_rules":
                continue
            for arg in [*fn.args.args, *fn.args.kwonlyargs]:
                text = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                members = {part.strip() for part in text.split("|")}
                if "CompiledRules" in members and members & {"Rules", "RulesLike", "str"}:
                    found.append(f"{path.relative_to(ROOT)}:{fn.name}({arg.arg}: {text})")
    assert found == []
