"""What re-deriving shisanshui and mau-binh from the shipped programs changes in play.

``python -m benchmarks.play_change [--hands 1000] [--seed 29]``: deal random hands, set
each with the field strategy under the preset as it stood at fb7223b (its rules and its
shipped field tables, read from git) and under the preset as it is now, and report how
often the setting changes, and the mean field value (per opponent, under the new rules
and tables) that the old setting gives up against the new one. The field model, not a
Monte Carlo answer: a measure of what the rules change, not of the field's own error.
(mau-binh's table of then is ``mau-binh-rules`` today: ``earlier_presets.TODAY``.)

``--old PRESET --new PRESET`` compares two of today's presets the same way, each set with
its own shipped field tables: ``--old mau-binh-rules --new mau-binh`` is what following
gameBinh's live code changed (docs/rules.md#the-mau-binh-preset).

``--two-jokers [--players P]``: ``shisanshui`` with two jokers at P players (4, 5 or 6),
as it was with ``two_jokers_foul = "above_aces"`` (its rules, and its shipped field
tables as of ``TWO_JOKERS_BEFORE``, read from git) against today's ``"third_card"``, on
hands dealt from its deck; also among the hands holding both jokers
(docs/rules.md#jokers).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from evaluator.cards import JOKER_FACE
from solver.engine import settlement as S
from solver.engine.compiled import compile_rules
from solver.engine.rules import PRESETS, load_rules
from solver.engine.seating import at_table
from solver.strategy.field_model.field import field_values, load_field_file
from solver.strategy.field_model.policy import set_sorted_hands, settings_of
from solver.strategy.field_model.setting import set_hands
from solver.strategy.field_model.trained import field_override, get_field
from solver.strategy.hands.deal import deal_hands
from tests.earlier_presets import BEFORE, TODAY, VALUES, earlier


def measure(name: str, hands: np.ndarray, folder: Path, old_preset: str | None = None) -> dict:
    """The earlier preset ``name`` (at BEFORE) against today's, or, with ``old_preset``,
    today's preset ``old_preset`` against today's ``name``."""
    if old_preset is not None:
        new, old = PRESETS[name], PRESETS[old_preset]
        before = set_hands(hands, old, "field")
    else:
        new, old = PRESETS[TODAY[name]], earlier(name)
        path = folder / f"field-{name}.npz"
        blob = subprocess.run(
            ["git", "show", f"{BEFORE}:solver/data/field-{name}.npz"],
            capture_output=True,
            check=True,
        ).stdout
        path.write_bytes(blob)
        cr_old = compile_rules(load_rules(old))
        with field_override(cr_old, load_field_file(path, cr_old)):
            before = set_hands(hands, old, "field")
    cr_new = compile_rules(load_rules(new))
    after = set_hands(hands, new, "field")
    rows = lambda s: [frozenset(s[:3]), frozenset(s[3:8]), frozenset(s[8:])]  # noqa: E731
    changed = np.array([rows(a) != rows(b) for a, b in zip(before, after, strict=True)])
    f = get_field(cr_new)
    sorted_hands = np.sort(hands, axis=1)
    v = {}
    for label, sets in (("old", before), ("new", after)):
        keys, roy, _ = S.summarize_batch(sets, cr_new)
        v[label], _ = field_values(keys, roy, sorted_hands, cr_new, f)
    loss = v["new"] - v["old"]
    return {
        "preset": f"{old.name} -> {new.name}",
        "hands": len(hands),
        "setting changed": int(changed.sum()),
        "share changed": float(changed.mean()),
        "mean loss of the old setting": float(loss.mean()),
        "mean loss where it changed": float(loss[changed].mean()) if changed.any() else 0.0,
        "largest loss": float(loss.max()),
        "loss < 0 (field value favours the old)": int((loss < -1e-9).sum()),
    }


#: The commit whose shipped tables of two jokers checked that front as above three aces.
TWO_JOKERS_BEFORE = "5e525e3"


def measure_two_jokers(n: int, seed: int, players: int, folder: Path) -> list[dict]:
    """``--two-jokers``: what ``two_jokers_foul = "third_card"`` changed (its rules and
    its retrained tables), over all hands dealt and over those holding both jokers."""
    new = at_table(PRESETS["shisanshui"], players, 2)
    old = replace(new, two_jokers_foul="above_aces")
    cr_new, cr_old = compile_rules(new), compile_rules(old)
    hands = deal_hands(np.random.default_rng(seed), n, 1, deck=new.deck).reshape(-1, 13)
    path = folder / f"field-{new.name}.npz"
    blob = subprocess.run(
        ["git", "show", f"{TWO_JOKERS_BEFORE}:solver/data/field-{new.name}.npz"],
        capture_output=True,
        check=True,
    ).stdout
    path.write_bytes(blob)
    with field_override(cr_old, load_field_file(path, cr_old)):
        split_old, _, _, _ = set_sorted_hands(hands, cr_old, "field", get_field(cr_old))
    f = get_field(cr_new)
    split_new, _, _, _ = set_sorted_hands(hands, cr_new, "field", f)
    before, after = settings_of(hands, split_old), settings_of(hands, split_new)
    rows = lambda s: [sorted(s[:3]), sorted(s[3:8]), sorted(s[8:])]  # noqa: E731
    changed = np.array([rows(a) != rows(b) for a, b in zip(before, after, strict=True)])
    v = {}
    for label, sets in (("old", before), ("new", after)):
        keys, roy, foul = S.summarize_batch(sets, cr_new)
        v[label], _ = field_values(keys, roy, hands, cr_new, f)
        v[label] = np.where(foul, np.nan, v[label])
        v[label + " fouls"] = foul
    loss = v["new"] - v["old"]
    both = (hands == JOKER_FACE).sum(axis=1) == 2
    out = []
    for what, sel in (("all hands", np.ones(len(hands), bool)), ("both jokers", both)):
        c, lo = changed[sel], loss[sel]
        out.append({
            "table": f"{old.name} above_aces -> third_card, {what}",
            "hands": int(sel.sum()),
            "setting changed": int(c.sum()),
            "share changed": float(c.mean()),
            "old setting fouls under third_card": int(v["old fouls"][sel].sum()),
            "mean loss of the old setting (legal ones)": float(np.nanmean(lo)),
            "mean loss where it changed (legal ones)": float(np.nanmean(lo[c]))
            if c.any() else 0.0,
            "largest loss": float(np.nanmax(lo)),
        })  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--old", choices=list(PRESETS), help="a preset of today, set as before")
    ap.add_argument("--new", choices=list(PRESETS), help="the preset it became")
    ap.add_argument("--two-jokers", action="store_true", help="two_jokers_foul's change")
    ap.add_argument("--players", type=int, default=4, help="with --two-jokers: 4, 5 or 6")
    args = ap.parse_args()
    if args.two_jokers:
        with tempfile.TemporaryDirectory() as tmp:
            for out in measure_two_jokers(args.hands, args.seed, args.players, Path(tmp)):
                print(", ".join(f"{k}: {v:.4f}" if isinstance(v, float) else f"{k}: {v}"
                                for k, v in out.items()))  # fmt: skip
        return
    if (args.old is None) != (args.new is None):
        ap.error("--old and --new go together")
    hands = deal_hands(np.random.default_rng(args.seed), args.hands, 1).reshape(-1, 13)
    pairs = [(args.new, args.old)] if args.new else [(name, None) for name in VALUES]
    with tempfile.TemporaryDirectory() as tmp:
        for name, old_preset in pairs:
            out = measure(name, hands, Path(tmp), old_preset)
            print(", ".join(f"{k}: {v:.4f}" if isinstance(v, float) else f"{k}: {v}"
                            for k, v in out.items()))  # fmt: skip


if __name__ == "__main__":
    main()
