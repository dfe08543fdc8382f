"""A ruleset's field tables: shipped, else cached (``get_field``).

``get_field(cr)`` is the one place that finds them, and it never trains: it sits on the field
model's store (``solver.strategy.field_model.field``) and below the trainer
(``solver.strategy.field_model.train``), whose ``ensure_field`` trains the tables of a ruleset
that has none (minutes) and puts them here. The front ends (``solve``, ``set_hands``, every
command) call ``ensure_field`` once; what they call below reads the tables with ``get_field``,
so the modules that read tables never import the trainer (docs/architecture.md, "Floors").
Tables are held in memory per ruleset (``FIELDS``; ``forget_fields`` drops them);
``field_override`` puts other tables in a ruleset's place for a while (``capsa strength
--tables``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path

from solver.engine.caches import Cache
from solver.engine.compiled import CompiledRules
from solver.engine.rules import Rules
from solver.strategy.field_model.field import (
    FieldTables,
    field_cache_path,
    load_field_file,
    play_digest,
    shipped_index,
)

__all__ = [
    "FieldNotReady",
    "field_file",
    "field_override",
    "field_ready",
    "find_field",
    "forget_fields",
    "get_field",
    "keep_field",
]

log = logging.getLogger("capsa")

#: play digest -> tables that replace the shipped ones for a while (``field_override``).
_OVERRIDES: dict[str, FieldTables] = {}
#: The tables found, by ruleset (at most 16; the oldest goes first).
FIELDS: Cache[Rules, FieldTables] = Cache("field tables", 16)


class FieldNotReady(LookupError):
    """A ruleset's field tables were read before anything trained them: its front end did
    not call ``solver.strategy.field_model.train.ensure_field`` (a bug of the caller)."""


def get_field(cr: CompiledRules) -> FieldTables:
    """Field tables for a ruleset: shipped, else cached (held in memory once found).
    ``FieldNotReady`` when it has none: ``ensure_field`` (the trainer's) trains them."""
    tables = find_field(cr)
    if tables is None:
        raise FieldNotReady(
            f"no field tables for ruleset {cr.rules.name!r} yet: "
            "solver.strategy.field_model.train.ensure_field trains them"
        )
    return tables


def find_field(cr: CompiledRules) -> FieldTables | None:
    """``get_field``'s tables, or None when the ruleset has none shipped or cached."""
    if _OVERRIDES:
        override = _OVERRIDES.get(play_digest(cr.rules))
        if override is not None:
            return override
    tables = FIELDS.get(cr.rules)
    if tables is None:
        found = _find(cr)
        if found is None:
            return None
        tables = FIELDS.put(cr.rules, found)
    return tables


def keep_field(cr: CompiledRules, tables: FieldTables) -> FieldTables:
    """Hold tables just trained for a ruleset, as ``get_field`` finds them from now on."""
    return FIELDS.put(cr.rules, tables)


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


def field_file(cr: CompiledRules) -> Path | None:
    """The file ``get_field`` reads the ruleset's tables from: the shipped one, else the
    cached one when there is one (None: neither), to name them in a message."""
    shipped = shipped_index().get(play_digest(cr.rules))
    if shipped is not None:
        return shipped
    cached = field_cache_path(cr)
    return cached if cached.exists() else None


def forget_fields() -> None:
    """Drop the field tables held in memory (after new ones are written)."""
    FIELDS.clear()


def _find(cr: CompiledRules) -> FieldTables | None:
    shipped = shipped_index().get(play_digest(cr.rules))
    if shipped is not None:
        return load_field_file(shipped, cr)
    cached = field_cache_path(cr)
    if cached.exists():
        try:
            return load_field_file(cached, cr)
        except Exception as exc:  # noqa: BLE001 - a bad cache is retrained
            log.warning("field table cache %s unreadable (%s); retraining", cached, exc)
    return None
