"""capsa: optimal hand-setting for 13-card Chinese poker. Keep this module light (no numba)."""

from solver.engine.options import SolveOptions
from solver.engine.rules import PRESETS, Rules, RulesError, load_rules

__all__ = [
    "PRESETS",
    "Rules",
    "Solution",
    "RulesError",
    "SolveOptions",
    "compile_rules",
    "find_natural",
    "load_rules",
    "settle",
    "settle_natural",
    "settle_table",
    "set_hand",
    "set_hands",
    "solve",
]

# Loaded on first use, so that `import solver` (and `capsa --help`) never imports numba.
_LAZY = {
    "settle": "solver.engine.settlement",
    "settle_natural": "solver.engine.settlement",
    "settle_table": "solver.engine.settlement",
    "compile_rules": "solver.engine.settlement",
    "find_natural": "solver.engine.settlement",
    "solve": "solver.strategy.solving.solve",
    "Solution": "solver.strategy.solving.solve",
    "set_hand": "solver.strategy.field_model.setting",
    "set_hands": "solver.strategy.field_model.setting",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'solver' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
