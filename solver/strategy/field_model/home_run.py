"""The field at a table of its players: the home run (docs/rules.md#the-field-and-the-home-run).

The field's tables are trained pair by pair, and a ruleset shares them with the same
ruleset at any number of players and without the home run (the play digest leaves both
out). Where the home run is played, what a setting is worth depends on the table: it
collects the multiplier on every pair when it scoops all m opponents, and pays it when
an opponent scoops the table. ``at_table(cr, tables)`` gives the tables with
``FieldModel.hr`` set for the ruleset's players, which the kernels add
(``solver.strategy._kernels._home_run``):

- the multiplier less 1 (0: no home run at this table: off, too few opponents, or a
  banker's table);
- m, the opponents: the setting scoops them all with its chance of scooping one (``pw``,
  the field's, its joint correction included) to the power m, since the opponents' hands
  are drawn independently of one another given the setting's;
- the chance that none of them declares a natural (which stops the home run);
- the chance that an opponent who scooped the setting scoops the m - 1 others too, and
  that none of them declares: E[pw^m, no natural] / E[pw] over the field's own settings
  (an opponent is weighed by its chance of scooping one player), times the chance the
  others declare none.

The last two are measured once per ruleset and tables on ``SAMPLE`` hands dealt from the
table's deck with a fixed seed and set by the pairwise field (a few tenths of a second),
so every process finds the same factors.
"""

from __future__ import annotations

import numpy as np

from solver.engine.caches import Cache
from solver.engine.compiled import CompiledRules
from solver.engine.rules import Rules
from solver.engine.settlement import find_naturals
from solver.strategy.field_model.field import NO_HOME_RUN, FieldTables, scoop_chances
from solver.strategy.field_model.policy import set_sorted_hands
from solver.strategy.hands.deal import random_hands

__all__ = ["SAMPLE", "at_table", "home_run_factors", "pairwise"]

#: Hands the factors are measured on, and their seed.
SAMPLE = 4000
SEED = 20261206
#: (id of the tables, ruleset) -> (those tables, the same at the table).
_AT: Cache[tuple[int, Rules], tuple[FieldTables, FieldTables]] = Cache("the field at a table", 16)


def at_table(cr: CompiledRules, tables: FieldTables) -> FieldTables:
    """``tables`` with the home run at the ruleset's table (the module docstring); the
    same tables where none is played. Worked out once per process per tables and ruleset."""
    key = (id(tables), cr.rules)
    got = _AT.get(key)
    if got is not None and got[0] is tables:
        return got[1]
    hr = home_run_factors(cr, tables)
    out = tables if np.array_equal(hr, tables.model.hr) else _with(tables, hr)
    _AT.put(key, (tables, out))
    return out


def pairwise(tables: FieldTables) -> FieldTables:
    """``tables`` without the home run (how training and learned models value a setting)."""
    return tables if not tables.model.hr.any() else _with(tables, NO_HOME_RUN)


def home_run_factors(cr: CompiledRules, tables: FieldTables) -> np.ndarray:
    """float64[4]: ``FieldModel.hr`` at the ruleset's table (the module docstring)."""
    rules = cr.rules
    m = rules.players - 1
    if rules.home_run_multiplier == 1 or m < rules.home_run_min_opponents or rules.banker:
        return NO_HOME_RUN
    field = pairwise(tables)
    hands = random_hands(np.random.default_rng(SEED), SAMPLE, rules.deck)
    _, keys, roy, _ = set_sorted_hands(hands, cr, "field", field)
    pw = np.clip(scoop_chances(keys, roy, hands, cr, field)[:, 0], 0.0, 1.0)
    shows = find_naturals(hands, cr)[0] < 0  # the hands that declare no natural
    clear = float(shows.mean())
    others = float((pw**m * shows).mean() / pw.mean()) if pw.mean() > 0.0 else 0.0
    hr = np.array([float(rules.home_run_multiplier) - 1.0, m, clear**m, others * clear ** (m - 1)])
    hr.setflags(write=False)
    return hr


def _with(tables: FieldTables, hr: np.ndarray) -> FieldTables:
    return tables._replace(model=tables.model._replace(hr=hr))
