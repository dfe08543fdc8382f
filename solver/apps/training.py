"""``capsa train``: where the trained field tables go, checked before training, and the
run that trains and writes them.

The tables go to ``-o FILE`` when given, else to ``solver/data/field-NAME.npz`` with
``ship`` (the tables shipped for a preset), else to the user cache, where the field
strategy finds them. The destination is checked (never the ruleset file read, a file
that can be written) before minutes of training, not after.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solver.apps.files import (
    check_outputs,
    check_replace,
    field_tables_file,
    reads,
    writes,
)
from solver.engine.errors import InputError
from solver.engine.progress import Progress

if TYPE_CHECKING:
    from solver.engine.compiled import CompiledRules
    from solver.strategy.field_model.field import FieldTables

__all__ = ["check_writable", "destination", "prepare", "train_to_file"]


def destination(cr: CompiledRules, output: str | None, ship: bool) -> Path:
    """Where ``capsa train`` writes the tables of a ruleset (see the module docstring)."""
    from solver.strategy.field_model import field

    if output:
        return Path(output)
    if ship:
        return field.DATA_DIR / f"field-{cr.rules.name}.npz"
    return field.field_cache_path(cr)


def check_writable(path: Path) -> None:
    """``InputError`` unless a file can be written at ``path`` (checked by writing a
    temporary file beside it, in the folder that exists or would be made)."""
    if path.is_dir():
        raise InputError(f"cannot write '{path}': it is a directory")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"cannot write '{path}': '{folder}' is not a directory")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".capsa-probe-"):
            pass
    except OSError as exc:
        raise InputError(f"cannot write '{path}': {exc.strerror}") from None


def prepare(
    ruleset: str | None,
    output: str | None,
    ship: bool,
    players: int | None,
    jokers: int | None = None,
    force: bool = False,
    **options: Any,
) -> tuple[CompiledRules, Path]:
    """Check everything before training: the ``options`` of
    ``solver.strategy.field_model.train.train`` (rounds, hands_per_round, seed, tol,
    min_rounds), the ruleset (a preset or a TOML file; at ``players``, the table its
    preset seats them at, then with ``jokers``: solver.engine.seating.at_table; None:
    the ruleset's), and the destination (never the ruleset
    file, a file that can be written, and no file there but field tables unless
    ``force``: ``solver.apps.files.check_replace``). Returns the ruleset, compiled (once, here: the
    entry point of ``capsa train``), and where its tables go."""
    from solver.engine.compiled import compile_rules
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table
    from solver.strategy.field_model.train import check_train_options

    check_train_options(
        options["rounds"],
        options["hands_per_round"],
        options["seed"],
        options["tol"],
        options["min_rounds"],
    )
    rules = load_rules(ruleset)
    cr = compile_rules(at_table(rules, players, jokers))
    dest = destination(cr, output, ship)
    inputs = [reads(ruleset, "the ruleset file")] if ruleset is not None else []
    check_outputs(inputs, [writes(dest)], "capsa train")
    check_replace(dest, field_tables_file, "a field tables file", force)
    check_writable(dest)
    return cr, dest


def train_to_file(
    cr: CompiledRules, dest: Path, *, progress: Progress | None = None, **options: Any
) -> FieldTables:
    """Train the tables (``solver.strategy.field_model.train.train`` with ``options``), write them
    to ``dest`` and forget the tables loaded before, so the next use reads the new ones."""
    from solver.strategy.field_model.field import save_field
    from solver.strategy.field_model.train import train
    from solver.strategy.field_model.trained import forget_fields

    tables = train(cr, progress=progress, **options)
    save_field(tables, dest)
    forget_fields()
    return tables
