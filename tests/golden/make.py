"""Regenerate the golden outputs (run from the repository root: python -m tests.golden.make).

``python -m tests.golden.make NAME`` regenerates only the runs whose name holds NAME (a
ruleset whose answers were meant to change, e.g. ``shisanshui``): its batch files, and
its records in ``solve.gz``, every other line of which is kept as it was.

The golden files pin what capsa answers today for fixed inputs and seeds: a batch of
hands under several policies and rulesets, and single solves (Monte Carlo, field,
greedy and exact ``against``). ``tests/test_golden.py`` checks that the code still gives
the same records. Regenerate only when an answer is meant to change (new field tables,
a fixed bug), and say so in the commit.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
HANDS = HERE / "hands.txt"

#: (name, batch options). Every policy, several rulesets and table sizes.
BATCH_RUNS: tuple[tuple[str, dict], ...] = (
    ("field-chinese-1-6", {"policy": "field", "rules": "chinese-1-6"}),
    ("field-chinese-2-4", {"policy": "field", "rules": "chinese-2-4", "players": 2}),
    ("field-capsa", {"policy": "field", "rules": "capsa"}),
    ("field-shisanshui", {"policy": "field", "rules": "shisanshui", "players": 3}),
    ("greedy-per-row", {"policy": "greedy", "rules": "per-row"}),
    ("greedy-chinese-1-6-csv", {"policy": "greedy", "rules": "chinese-1-6", "fmt": "csv"}),
    ("mc-chinese-1-6", {"policy": "mc", "rules": "chinese-1-6", "samples": 120, "seed": 7}),
    ("mc-shisanshui", {"policy": "mc", "rules": "shisanshui", "samples": 90, "players": 2}),
    ("mc-capsa-csv", {"policy": "mc", "rules": "capsa", "samples": 60, "fmt": "csv"}),
    ("field-mau-binh", {"policy": "field", "rules": "mau-binh"}),
    ("mc-pusoy", {"policy": "mc", "rules": "pusoy", "samples": 60, "players": 3}),
)

SOLVE_HANDS = (
    "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d",
    "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c",
    "Ah Ad Ac As Kd Kc 7h 7d 2c 3d 4h 9s Js",
    "9h Th Jh Qh Kh 2c 2d 5s 6s 8c Ad 4d 3c",
    "2c 2d 5h 5s 7c 7d 9h 9s Jc Jd Kh Ks Ac",
    "2h 5h 9h 3s 6s 8s Ts Qs 4c 7c Jc Kc Ac",
    "2c 4d 5h 6s 8c 9d Tc Jh 2h 3s 7d 4c Ks",
    "Ac Ad Ah Kc Kd Kh Qc Qd Qh Jc Jd Jh 2s",
)
#: (name, solve keyword arguments) for every SOLVE_HANDS hand.
SOLVE_RUNS: tuple[tuple[str, dict], ...] = (
    ("mc-1-6", {"rules": "chinese-1-6", "samples": 400, "seed": 3, "top": 3}),
    ("mc-capsa-2p", {"rules": "capsa", "players": 2, "samples": 300, "seed": 5, "top": 2}),
    ("field-shisanshui", {"rules": "shisanshui", "policy": "field", "top": 3}),
    ("greedy-2-4", {"rules": "chinese-2-4", "policy": "greedy", "top": 1}),
)
#: Rulesets for the exact ``against`` solves (custom ones need no field tables).
AGAINST_RULES: tuple[tuple[str, dict], ...] = (
    ("chinese-1-6", {}),
    ("shisanshui", {}),
    ("one-per-hand", {"base": "chinese-2-4", "one_royalty_per_hand": True}),
    ("always-x2", {"royalty_mode": "always", "scoop_multiplier": 2}),
    ("cancel", {"base": "capsa", "royalty_mode": "cancel", "royalties": True}),
)


def make_hands(path: Path = HANDS) -> None:
    rng = np.random.default_rng(20261201)
    from evaluator import format_cards

    lines = ["# golden hands: random, then special ones, then bad lines", ""]
    for i in range(150):
        hand = rng.permutation(52)[:13]
        cards = format_cards(hand)
        lines.append(f"g{i}: {cards}" if i % 3 else cards)
    lines += [f"special{i}\t{h}" for i, h in enumerate(SOLVE_HANDS)]
    lines += ["bad1: As Ks", "bad2: As As Kd Qd Jd Td 9d 8d 7d 6d 5d 4d 3d"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def against_opponents(hand_text: str, n: int, seed: int) -> list[str]:
    """n opponent settings from the unseen cards, set greedily then shuffled a little."""
    from evaluator import format_cards, parse_hand

    rng = np.random.default_rng(seed)
    unseen = np.setdiff1d(np.arange(52), parse_hand(hand_text))
    cards = rng.permutation(unseen)[: 13 * n].reshape(n, 13)
    out = []
    for j, c in enumerate(cards):
        c = np.sort(c)[::-1]
        if j % 2:  # a fouling opponent now and then
            c = c[::-1]
        out.append(f"{format_cards(c[:3])} | {format_cards(c[3:8])} | {format_cards(c[8:])}")
    return out


def batch_records(opts: dict, pool: bool | None = False) -> tuple[str, list[str]]:
    """The output text of a batch run of HANDS, and its bad-line messages. The golden
    answers are dealt ones: ``pool=False`` (``--no-pool``) whatever pool is cached."""
    from solver.apps.batch import run_batch

    buf = io.StringIO()
    bad: list[str] = []
    run_batch(str(HANDS), buf, workers=1, on_bad=lambda b: bad.append(b.message()), pool=pool,
              **opts)  # fmt: skip
    return buf.getvalue(), bad


def solve_records(only: str | None = None, old: list[str] | None = None, pool: bool = False) -> str:
    """The text of ``solve.gz`` (dealt: ``pool=False``, as batch_records); with ``only``,
    the records of the runs whose name does not hold it are the lines of ``old`` (in the
    same places) instead of new solves."""
    from solver import solve
    from solver.engine.rules import rules_from_dict

    out = []

    def add(run: str, make: Callable[[], dict]) -> None:
        if only is not None and only not in run:
            assert old is not None
            out.append(old[len(out)])
        else:
            out.append(json.dumps({"run": run, **make()}, separators=(",", ":")))

    for name, kw in SOLVE_RUNS:
        for hand in SOLVE_HANDS:
            add(name, lambda hand=hand, kw=kw: solve(hand, **kw, pool=pool).to_dict())
    for name, data in AGAINST_RULES:
        rules = rules_from_dict(data, name=name) if data else name
        for i, hand in enumerate(SOLVE_HANDS):
            opp = against_opponents(hand, 1 + i % 3, seed=i)
            add(
                f"against-{name}",
                lambda hand=hand, rules=rules, opp=opp: solve(
                    hand, rules=rules, against=opp, top=2
                ).to_dict(),
            )
    return "\n".join(out) + "\n"


def write_gz(path: Path, text: str) -> None:
    # mtime=0: the same text gives the same bytes.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(text.encode("utf-8"))


def read_gz(path: Path) -> str:
    with gzip.open(path, "rb") as gz:
        return gz.read().decode("utf-8")


def main(only: str | None = None) -> None:
    if not HANDS.exists():
        make_hands()
    bad_lines = set()
    for name, opts in BATCH_RUNS:
        if only is not None and only not in name:
            continue
        text, bad = batch_records(opts)
        write_gz(HERE / f"batch-{name}.gz", text)
        bad_lines.add(tuple(bad))
    assert len(bad_lines) == 1, "every run reports the same bad lines"
    bad_path = HERE / "bad-lines.json"
    if only is None:
        bad_path.write_text(json.dumps(list(bad_lines.pop()), indent=1) + "\n")
    else:
        assert list(bad_lines.pop()) == json.loads(bad_path.read_text())
    old = read_gz(HERE / "solve.gz").splitlines() if only is not None else None
    write_gz(HERE / "solve.gz", solve_records(only, old))


if __name__ == "__main__":
    import sys

    main(sys.argv[1] if len(sys.argv) > 1 else None)
