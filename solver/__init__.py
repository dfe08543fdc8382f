"""capsa: optimal hand-setting for 13-card Chinese poker. Keep this module light (no numba)."""

from solver.rules import PRESETS, Rules, RulesError, load_rules

__all__ = ["PRESETS", "Rules", "RulesError", "load_rules"]
