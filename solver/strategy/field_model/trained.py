"""A ruleset's field tables: shipped, else cached, else trained now (and cached).

``get_field(cr)`` is the one place that finds them; it sits above the trainer
(``solver.strategy.field_model.train``), which sits above the policies and the field model's store
(``solver.strategy.field_model.field``), so the store never imports the trainer. Tables are held in
memory per ruleset (``FIELDS``; ``forget_fields`` drops them); ``field_override`` puts other tables
in a ruleset's place for a while (``capsa strength --tables``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from solver.engine.caches import Cache
from solver.engine.compiled import CompiledRules
from solver.engine.rules import Rules
from solver.strategy.field_model.field import (
    FieldTables,
    field_cache_path,
    load_field_file,
    play_digest,
    save_field,
    shipped_index,
)

__all__ = ["field_override", "field_ready", "forget_fields", "get_field"]

log = logging.getLogger("capsa")

#: play digest -> tables that replace the shipped ones for a while (``field_override``).
_OVERRIDES: dict[str, FieldTables] = {}
#: The tables found, by ruleset (at most 16; the oldest goes first).
FIELDS: Cache[Rules, FieldTables] = Cache("field tables", 16)


def get_field(cr: CompiledRules) -> FieldTables:
    """Field tables for a ruleset: shipped, else cached, else trained now (and cached)."""
    if _OVERRIDES:
        override = _OVERRIDES.get(play_digest(cr.rules))
        if override is not None:
            return override
    tables = FIELDS.get(cr.rules)
    if tables is None:
        tables = FIELDS.put(cr.rules, _find(cr))
    return tables


@contextlib.contextmanager
def field_override(cr: CompiledRules, tables: FieldTables) -> Iterator[None]:
    """Within the block, ``get_field`` gives ``tables`` for this ruleset (every policy,
    opponent dealing included): how ``capsa strength --tables`` plays other tables.
    Not thread-safe: meant for one comparison at a time."""
    digest = play_digest(cr.rules)
    before = _OVERRIDES.get(digest)
    _OVERRIDES[digest] = tables
    try:
        yield
    finally:
        if before is None:
            del _OVERRIDES[digest]
        else:
            _OVERRIDES[digest] = before


def field_ready(cr: CompiledRules) -> bool:
    """Whether the ruleset's field tables are shipped or cached, so that ``get_field``
    will not have to train them (which takes minutes)."""
    return play_digest(cr.rules) in shipped_index() or field_cache_path(cr).exists()


def forget_fields() -> None:
    """Drop the field tables held in memory (after new ones are written)."""
    FIELDS.clear()


def _find(cr: CompiledRules) -> FieldTables:
    rules = cr.rules
    shipped = shipped_index().get(play_digest(rules))
    if shipped is not None:
        return load_field_file(shipped, cr)
    cached = field_cache_path(cr)
    if cached.exists():
        try:
            return load_field_file(cached, cr)
        except Exception as exc:  # noqa: BLE001 - a bad cache is retrained
            log.warning("field table cache %s unreadable (%s); retraining", cached, exc)
    from solver.strategy.field_model.train import train

    log.warning(
        "no field tables for ruleset %r yet: training them now (first use only, cached in %s)",
        rules.name,
        cached.parent,
    )
    tables = train(cr)
    try:
        save_field(tables, cached)
    except OSError as exc:
        log.warning("could not cache field tables in %s: %s", cached, exc)
    return tables
