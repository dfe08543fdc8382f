"""The commands of ``capsa``, a module each: the command (parse, call the library) and
its renderer (a function of the JSON answer and the console it prints on).

A command imports the library inside its body, so that ``capsa --help`` imports no
numba; command modules do not import one another (``pyproject.toml``'s contracts).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from solver.cli.commands import (
    batch,
    bench,
    duel,
    pool,
    rank,
    report,
    rules,
    serve,
    solve,
    strength,
    train,
)

__all__ = ["COMMANDS"]

#: ``(name, function)`` of every command, in the order ``capsa --help`` lists them.
#: ``solve`` first: what most people come for; then the other everyday commands, and the
#: researcher's and developer's last.
COMMANDS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("solve", solve.solve),
    ("batch", batch.batch),
    ("report", report.report),
    ("serve", serve.serve),
    ("rules", rules.rules),
    ("rank", rank.rank),
    ("duel", duel.duel),
    ("strength", strength.strength),
    ("pool", pool.pool),
    ("train", train.train),
    ("bench", bench.bench),
)
