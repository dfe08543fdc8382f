"""`capsa strength` at every table capsa offers (issue #54; docs/strength.md#at-every-table).

``python -m benchmarks.strength_tables [--hands N] [--samples N] [--eval-deals N]
[--pool-size N] [--seed S] [--only PATTERN ...] [--redo] [--results FILE] [--doc FILE]
[--render] [--holding K]``

The tables are the ones the page's menus and the CLI's ``--rules``, ``--players`` and
``--jokers`` offer: each ruleset ``GET /api/rules`` lists (``RulesCatalog.rulesets``), at 2
players up to its ``max_players``, with 0 up to its ``max_jokers`` jokers
(``RulesCatalog.describe``, as tests/test_shipped_tables.py reads them). At each, ``mc``
(a best response to field opponents, ``--samples`` opponent hands a hand) is compared
with ``field`` over ``--hands`` random hands, each setting meeting the same
``--eval-deals`` fresh deals of field opponents (``solver.apps.strength.compare_policies``,
what ``capsa strength --rules P --players N --jokers J --against field`` runs): the gain
of ``mc`` over ``field`` is the field's exploitability, in units per opponent per hand.

Each table's row is written to ``--results`` (JSON) as soon as it is measured, so a run
that is killed continues where it stopped; a table already there at the same sizes is
skipped (``--redo`` measures it again). After each row the table of figures is written
into ``--doc`` between its markers (``--render``: only that, from the results). A table is
named ``PRESET/PLAYERS/JOKERS``; ``--only`` takes such names or shell patterns
(``shisanshui/*/2``, ``mau-binh/*/*``), in the order given.

Each row also splits the gain by the jokers the hands held (``by_jokers_held``);
``--holding K`` measures mc's gain on random hands that hold K jokers at the tables
``--only`` names, kept beside their rows (``holding``), which is how the two-joker
tables' gain was traced to the hands holding both (docs/strength.md#at-every-table).
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "strength_tables.json"
DOC = ROOT / "docs" / "strength.md"
BEGIN = "<!-- strength-tables: begin (python -m benchmarks.strength_tables) -->"
END = "<!-- strength-tables: end -->"
TARGET = 0.01  # units per opponent per hand: the 95% interval's upper end stays below it
SIZES = ("hands", "samples", "eval_deals", "pool_size", "seed")


@dataclass(frozen=True)
class Table:
    preset: str
    players: int
    jokers: int

    @property
    def key(self) -> str:
        return f"{self.preset}/{self.players}/{self.jokers}"


def offered_tables() -> list[Table]:
    """Every table the page's menus offer (``GET /api/rules``'s rulesets, players and
    jokers), in its order: each ruleset, its players, then its jokers."""
    from solver.apps.web.api import RulesCatalog
    from solver.engine.rules import load_rules
    from solver.engine.table_shape import MIN_PLAYERS

    catalog = RulesCatalog(load_rules(None))
    out = []
    for r in catalog.rulesets():
        d = catalog.describe(r)
        for players in range(MIN_PLAYERS, d["max_players"] + 1):
            out += [Table(r.name, players, j) for j in range(d["max_jokers"] + 1)]
    return out


def chosen(tables: list[Table], only: list[str] | None) -> list[Table]:
    """The tables ``--only`` names (names or patterns, in their order), else all."""
    if not only:
        return tables
    out: list[Table] = []
    for pattern in only:
        hits = [t for t in tables if fnmatch.fnmatchcase(t.key, pattern) or t.preset == pattern]
        if not hits:
            keys = ", ".join(t.key for t in tables[:3])
            raise SystemExit(f"--only {pattern!r} names no offered table (they are {keys}, ...)")
        out += [t for t in hits if t not in out]
    return out


def measure(
    table: Table, hands: int, samples: int, eval_deals: int, pool_size: int, seed: int
) -> dict[str, Any]:
    """One table's row: ``capsa strength`` of mc against field, in process. ``mc`` draws
    its opponents from the table's cached opponent pool, as ``capsa strength`` does; one
    of ``pool_size`` hands is built first (on one thread) when none is cached (0: none,
    ``mc`` deals them)."""
    from solver.apps.strength import compare_policies
    from solver.engine.compiled import compile_rules
    from solver.engine.options import SolveOptions
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table
    from solver.strategy.field_model.field import play_digest
    from solver.strategy.opposition.pool import build_pool, cached_pool

    cr = compile_rules(at_table(load_rules(table.preset), table.players, table.jokers))
    start = time.monotonic()
    pool = cached_pool(cr)
    if pool is None and pool_size:
        pool = build_pool(cr, pool_size, threads=1)
    options = SolveOptions(players=table.players, samples=samples, top=0, pool=bool(pool_size))
    held: list[tuple[int, float]] = []
    with _recording(held):
        report = compare_policies(hands, cr, options, ("mc", "field"), eval_deals, seed)
    report_d = report.to_dict()
    gain = report_d["gains"]["mc-field"]
    assert len(held) == hands and math.isclose(sum(d for _, d in held) / hands, gain["mean"],
                                               abs_tol=1e-12)  # fmt: skip
    return {
        "table": table.key,
        "rules": report_d["rules"],
        "hands": hands,
        "samples": samples,
        "eval_deals": eval_deals,
        "pool_size": pool.size if pool_size and pool is not None else 0,
        "seed": seed,
        "gain": gain["mean"],
        "stderr": gain["stderr"],
        "ci95": gain["ci95"],
        "differ": gain["differ"],
        "policies": report_d["policies"],
        "by_jokers_held": _split(held),
        "play_digest": play_digest(cr.rules),
        "commit": _commit(),
        "seconds": round(time.monotonic() - start, 1),
    }


def holding(table: Table, held: int, hands: int, samples: int, eval_deals: int,
            seed: int) -> dict[str, Any]:  # fmt: skip
    """mc's gain over field at one table on random hands that hold ``held`` jokers (the
    rest of the hand random), played as ``compare_policies`` plays each hand: both
    settings meet the same ``eval_deals`` fresh deals of field opponents; mc deals its
    own."""
    import numpy as np

    from solver.apps.strength import _play_hand
    from solver.engine.compiled import compile_rules
    from solver.engine.options import SolveOptions
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table
    from solver.engine.table_shape import JOKER_FACE
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.hands.deal import deck_faces
    from solver.strategy.opposition.opponents import resolve_opponents

    cr = compile_rules(at_table(load_rules(table.preset), table.players, table.jokers))
    ensure_field(cr)
    opts = SolveOptions(players=table.players, samples=samples, top=0, pool=False).check()
    models = resolve_opponents(None, cr, table.players - 1)
    faces = deck_faces(cr.rules.deck)
    rest = faces[faces != JOKER_FACE]
    rng, gains = np.random.default_rng(seed), []
    for _ in range(hands):
        cards = [*rng.choice(rest, 13 - held, replace=False), *[JOKER_FACE] * held]
        hand = np.sort(np.array(cards, np.uint8))
        values, _ = _play_hand(hand, cr, opts, ("mc", "field"), eval_deals, {}, rng,
                               (models, {"mc": None, "field": None}))  # fmt: skip
        gains.append(float(values[0] - values[1]))
    d = np.array(gains)
    se = float(d.std(ddof=1) / math.sqrt(len(d)))
    return {"hands": hands, "samples": samples, "eval_deals": eval_deals, "seed": seed,
            "gain": float(d.mean()), "stderr": se}  # fmt: skip


@contextlib.contextmanager
def _recording(into: list[tuple[int, float]]) -> Iterator[None]:
    """Within: each hand ``compare_policies`` plays, (the jokers it holds, mc's value less
    field's) appended to ``into``: its per-hand values, which its report sums up."""

    from solver.apps import strength
    from solver.engine.table_shape import JOKER_FACE

    play = strength._play_hand

    def recorded(hand: Any, *args: Any, **kw: Any) -> Any:
        values, settings = play(hand, *args, **kw)
        into.append((int((hand == JOKER_FACE).sum()), float(values[0] - values[1])))
        return values, settings

    strength._play_hand = recorded
    try:
        yield
    finally:
        strength._play_hand = play


def _split(held: list[tuple[int, float]]) -> dict[str, dict[str, float | int | None]]:
    """mc's gain over field among the hands holding 0, 1, 2 jokers: hands, mean, its
    standard error (None under 2 hands)."""
    out: dict[str, dict[str, float | int | None]] = {}
    for count in sorted({k for k, _ in held}):
        d = [x for k, x in held if k == count]
        mean = sum(d) / len(d)
        var = sum((x - mean) ** 2 for x in d) / (len(d) - 1) if len(d) > 1 else None
        se = None if var is None else math.sqrt(var / len(d))
        out[str(count)] = {"hands": len(d), "gain": mean, "stderr": se}
    return out


def _commit() -> str:
    """The short commit that last changed the code and the shipped tables (``solver/``),
    with a "+" when the work tree changes them."""
    git = ["git", "-C", str(ROOT)]
    log = subprocess.run([*git, "log", "-1", "--format=%h", "--", "solver"], capture_output=True,
                         text=True)  # fmt: skip
    dirty = subprocess.run([*git, "status", "--porcelain", "solver"], capture_output=True,
                           text=True)  # fmt: skip
    return log.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def load_results(path: Path) -> dict[str, dict[str, Any]]:
    """The rows measured so far, by table name."""
    if not path.exists():
        return {}
    return {row["table"]: row for row in json.loads(path.read_text())["tables"]}


def save_results(path: Path, rows: dict[str, dict[str, Any]], order: list[Table]) -> None:
    """The rows, in the offered tables' order, written whole (a killed write leaves the old)."""
    rank = {t.key: i for i, t in enumerate(order)}
    ordered = sorted(rows.values(), key=lambda r: rank.get(r["table"], len(rank)))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"tables": ordered}, indent=1) + "\n")
    os.replace(tmp, path)


def _num(x: float, digits: int = 4) -> str:
    """``+0.0012``, with a true minus sign."""
    return f"{x:+.{digits}f}".replace("-", "−")


def needed(row: dict[str, Any]) -> int | None:
    """The hands at which the 95% upper end would fall below the target if the gain and
    its spread were as measured (the gain taken as 0 when below); None when the gain
    itself is at or above the target."""
    gain = max(row["gain"], 0.0)
    if gain >= TARGET:
        return None
    return math.ceil(row["hands"] * (1.96 * row["stderr"] / (TARGET - gain)) ** 2)


def commands(rows: list[dict[str, Any]]) -> list[str]:
    """The commands that make the rows again, in order: every table at the sizes most
    were measured at, then each other set of sizes at its tables (``--only``; a table
    measured at other sizes is measured again)."""
    groups: dict[tuple[Any, ...], list[str]] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in SIZES), []).append(r["table"])
    out = []  # the most tables' sizes at every table, then the others' at theirs
    for i, (sizes, keys) in enumerate(sorted(groups.items(), key=lambda g: -len(g[1]))):
        args = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in zip(SIZES, sizes, strict=True))
        only = f" --only {' '.join(keys)}" if i else ""
        out.append(f"python -m benchmarks.strength_tables {args}{only}")
    return out


def render(rows: list[dict[str, Any]]) -> str:
    """The markdown between the markers: the command, then a row a table."""
    lines = ["```bash", *commands(rows), "```", "",
             "| table | players | jokers | hands | samples | gain of `mc` over `field` ± se "
             "| 95% upper end | below 0.01 | hands it would take | set differently | code and "
             "tables at |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        preset, players, jokers = r["table"].split("/")
        upper, more = r["ci95"][1], needed(r)
        take = "—" if upper < TARGET else "gain above" if more is None else f"{more:,}"
        lines.append(
            f"| `{preset}` | {players} | {jokers} | {r['hands']:,} | {r['samples']:,} | "
            f"{_num(r['gain'])} ± {r['stderr']:.4f} | {_num(upper)} | "
            f"{'yes' if upper < TARGET else '**no**'} | {take} | {r['differ']:.0%} | "
            f"{r['commit']} |"
        )
    return "\n".join([*lines, "", *pooled(rows)])


def pooled(rows: list[dict[str, Any]]) -> list[str]:
    """The gain over all the tables of each joker count and each player count, and over
    the hands holding 0, 1 or 2 jokers at the tables with jokers: the mean over their
    hands (each table's mean weighed by its hands), its standard error and the normal 95%
    upper end."""
    lines = ["| over | tables | hands | gain of `mc` over `field` ± se | 95% upper end |",
             "|---|---|---|---|---|"]  # fmt: skip
    jokers = lambda v: f"{v} joker{'' if v == '1' else 's'}"  # noqa: E731
    for label, field in ((lambda v: f"the tables with {jokers(v)}", 2),
                         (lambda v: f"the tables of {v} players", 1)):  # fmt: skip
        groups: dict[str, list[tuple[int, float, float]]] = {}
        for r in rows:
            part = r["table"].split("/")[field]
            groups.setdefault(part, []).append((r["hands"], r["gain"], r["stderr"]))
        lines += [_pooled(label(v), parts) for v, parts in sorted(groups.items())]
    held: dict[str, list[tuple[int, float, float]]] = {}
    for r in rows:
        if r["table"].split("/")[2] != "0":
            for count, g in r.get("by_jokers_held", {}).items():
                held.setdefault(count, []).append((g["hands"], g["gain"], g["stderr"] or 0.0))
    for v, parts in sorted(held.items()):
        lines.append(_union(f"the hands holding {jokers(v)}, at the tables with jokers", parts))
    return lines


def _union(what: str, parts: list[tuple[int, float, float]]) -> str:
    """A line of ``pooled`` over the hands of the parts taken as one sample (a part of
    one hand has no standard error of its own): (hands, mean, stderr) of each part give
    its sum of squares, n (n - 1) se^2 + n mean^2."""
    n = sum(h for h, _, _ in parts)
    gain = sum(h * g for h, g, _ in parts) / n
    squares = sum(h * (h - 1) * s * s + h * g * g for h, g, s in parts)
    se = math.sqrt(max(squares - n * gain * gain, 0.0) / (n - 1) / n) if n > 1 else math.nan
    return f"| {what} | {len(parts)} | {n:,} | {_num(gain)} ± {se:.4f} | {_num(gain + 1.96 * se)} |"


def _pooled(what: str, parts: list[tuple[int, float, float]]) -> str:
    """One line of ``pooled``: (hands, gain, stderr) of each part, pooled."""
    n = sum(h for h, _, _ in parts)
    gain = sum(h * g for h, g, _ in parts) / n
    se = math.sqrt(sum((h * s) ** 2 for h, _, s in parts)) / n
    return f"| {what} | {len(parts)} | {n:,} | {_num(gain)} ± {se:.4f} | {_num(gain + 1.96 * se)} |"


def write_doc(path: Path, rows: list[dict[str, Any]]) -> None:
    """Replace what stands between the markers in ``path`` with ``render(rows)``."""
    if not path.is_file():
        raise SystemExit(f"{path}: no such file")
    text = path.read_text()
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not (sep and sep2):
        raise SystemExit(f"{path}: no {BEGIN!r} ... {END!r} markers")
    path.write_text(f"{head}{BEGIN}\n{render(rows)}\n{END}{tail}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.strength_tables",
                                description=__doc__.split("\n\n")[0])  # fmt: skip
    p.add_argument("--hands", type=int, default=200)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--eval-deals", type=int, default=100)
    p.add_argument(
        "--pool-size",
        type=int,
        default=0,
        help="hands of the opponent pool built for a table without one (0: none, mc deals;"
        " mc draws from it only when it holds its samples: 2,000,000 at 4 players)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", nargs="+", metavar="PATTERN")
    p.add_argument("--redo", action="store_true", help="measure tables already in --results")
    p.add_argument("--results", type=Path, default=RESULTS)
    p.add_argument("--doc", type=Path, default=DOC)
    p.add_argument("--render", action="store_true", help="only write --doc from --results")
    p.add_argument(
        "--holding",
        type=int,
        metavar="K",
        help="only measure hands holding K jokers, kept as the row's holding[K]",
    )
    a = p.parse_args(argv)
    tables = offered_tables()
    rows = load_results(a.results)
    if a.holding is not None:
        for t in chosen(tables, a.only):
            got = holding(t, a.holding, a.hands, a.samples, a.eval_deals, a.seed)
            rows[t.key].setdefault("holding", {})[str(a.holding)] = got
            print(f"{t.key}, hands holding {a.holding}: {_num(got['gain'])} ± "
                  f"{got['stderr']:.4f}", file=sys.stderr, flush=True)  # fmt: skip
            save_results(a.results, rows, tables)
        return
    want = dict(hands=a.hands, samples=a.samples, eval_deals=a.eval_deals,
                pool_size=a.pool_size, seed=a.seed)  # fmt: skip
    for t in [] if a.render else chosen(tables, a.only):
        old = rows.get(t.key)
        if old and not a.redo and all(old[k] == v for k, v in want.items()):
            continue
        print(f"{t.key}: {a.hands} hands ...", file=sys.stderr, flush=True)
        rows[t.key] = row = measure(t, *want.values())
        print(f"{t.key}: {_num(row['gain'])} ± {row['stderr']:.4f}, upper {_num(row['ci95'][1])}"
              f" ({row['seconds']} s)", file=sys.stderr, flush=True)  # fmt: skip
        save_results(a.results, rows, tables)
        write_doc(a.doc, list(load_results(a.results).values()))
    if a.render:
        write_doc(a.doc, list(rows.values()))


if __name__ == "__main__":
    main()
