"""What the jokers in the field's card removal change in play (issue #54, item 3).

``python -m benchmarks.joker_shift [--hands 2000] [--seed 5] [--before 7607c2b]
[--only PRESET/PLAYERS/JOKERS ...]``: at each shipped table with jokers, deal ``--hands``
random hands from its deck and, with two jokers, ``--hands / 5`` holding both (the rest
random), set each with the field strategy under the table shipped at ``--before`` (read from git: 13
ranks of card-removal shift, the jokers left out; the jokers' row added as zeros, which
the kernels then add as nothing: the values of then) and under the table shipped now, and
print the share of hands set differently, among all, by the jokers they hold, and among
the hands holding both (docs/strength.md#the-jokers-in-the-card-removal).

``--before 795ff19`` compares, in the same way, the tables before the opponents'
royalties were taken given the jokers the hand holds: their jokers' row of the shift
as trained, their royalties the distribution's own whatever the hand holds
(docs/strength.md#the-jokers-in-the-opponents-royalties).
"""

from __future__ import annotations

import argparse
import io
import subprocess
from pathlib import Path

import numpy as np

from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.engine.seating import at_table
from solver.engine.table_shape import JOKER_FACE
from solver.strategy.field_model.field import DATA_DIR, field_tables, load_field_file
from solver.strategy.field_model.policy import set_sorted_hands
from solver.strategy.hands.deal import deck_faces, random_hands

ROOT = Path(__file__).resolve().parent.parent
#: The last commit whose joker tables left the jokers out of the card removal.
BEFORE = "7607c2b"
#: The tables with jokers: one per play digest (the players of one deck share it).
TABLES = [f"{p}/4/{j}" for j in (2, 1) for p in
          ("shisanshui", "chinese-2-4", "chinese-1-6", "mau-binh", "mau-binh-rules",
           "per-row", "shisanshui-banker")] + [
          f"shisanshui/{n}/{j}" for j in (2, 1) for n in (5, 6)]  # fmt: skip


def _file(table: str) -> str:
    preset, players, jokers = table.split("/")
    return f"field-{preset}{'' if players == '4' else '-' + players}-jokers-{jokers}.npz"


def _before(table: str, commit: str, cr):
    """The table shipped at ``commit``, its rank shift given the jokers' row as zeros
    when it has none, its royalties the same whatever the hand holds."""
    blob = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:solver/data/{_file(table)}"],
                          capture_output=True, check=True).stdout  # fmt: skip
    with np.load(io.BytesIO(blob), allow_pickle=False) as z:
        dist, rank, suit, cop = (z[k] for k in ("dist", "rank", "suit", "cop"))
    if rank.shape[1] == 13:
        rank = np.concatenate([rank, np.zeros((3, 1, *rank.shape[2:]), rank.dtype)], axis=1)
    return field_tables(dist, cr, rank, suit, cop)


def changed(table: str, hands: int, seed: int, commit: str) -> dict[str, tuple[int, int]]:
    """(set differently, hands) among all the hands, by the jokers held, and ``both``."""
    preset, players, jokers = table.split("/")
    cr = compile_rules(at_table(load_rules(preset), int(players), int(jokers)))
    old, new = _before(table, commit, cr), load_field_file(DATA_DIR / _file(table), cr)
    rng = np.random.default_rng(seed)
    dealt = random_hands(rng, hands, cr.rules.deck)
    faces = deck_faces(cr.rules.deck)
    rest = faces[faces != JOKER_FACE]
    both = np.sort([np.concatenate([rng.choice(rest, 11, replace=False), [JOKER_FACE] * 2])
                    for _ in range(hands // 5)], axis=1).astype(np.uint8)  # fmt: skip
    out = {}
    for label, hs in (("dealt", dealt), ("both", both))[: 1 + (int(jokers) > 1)]:
        a = set_sorted_hands(hs, cr, "field", field=old)[0]
        b = set_sorted_hands(hs, cr, "field", field=new)[0]
        diff = (a != b).any(axis=1)
        held = (hs == JOKER_FACE).sum(axis=1)
        if label == "both":
            out["both"] = (int(diff.sum()), len(hs))
            continue
        out["all"] = (int(diff.sum()), len(hs))
        for k in range(int(jokers) + 1):
            out[str(k)] = (int(diff[held == k].sum()), int((held == k).sum()))
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.joker_shift",
                                description=__doc__.split("\n\n")[0])  # fmt: skip
    p.add_argument("--hands", type=int, default=2000)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--before", default=BEFORE)
    p.add_argument("--only", nargs="+", metavar="TABLE")
    a = p.parse_args(argv)
    share = lambda d: f"{d[0] / d[1]:.0%}" if d[1] else "—"  # noqa: E731
    print("| table | hands set differently | holding 0 | holding 1 | holding 2 | "
          "hands holding both |\n|---|---|---|---|---|---|")  # fmt: skip
    for table in a.only or TABLES:
        d = changed(table, a.hands, a.seed, a.before)
        cells = [share(d.get(k, (0, 0))) for k in ("all", "0", "1", "2", "both")]
        print(f"| `{table}` | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
