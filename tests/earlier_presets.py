"""shisanshui and mau-binh as they stood before docs/rules.md#tables-as-the-apps-pay-them
(at fb7223b): their values that changed, and those rulesets rebuilt. tests/test_rules.py
checks that they keep their old digests; benchmarks/play_change.py plays them."""

from __future__ import annotations

import dataclasses

from solver.engine.rules import DEFAULT_ROYALTIES, PRESETS, Rules

#: The commit the earlier presets are taken from (its field tables too).
BEFORE = "fb7223b"
#: Their digests then (the key of their shipped field tables).
DIGESTS = {"shisanshui": "bc41fcc685114064", "mau-binh": "0c5c2059d27a6058"}
#: What changed, by preset (every other value is the preset's today).
VALUES = {
    "shisanshui": dict(
        naturals=(
            ("royal_dragon", 108), ("dragon", 36), ("twelve_royals", 24),
            ("three_straight_flushes", 22), ("three_quads", 20), ("all_high", 15),
            ("all_low", 12), ("one_colour", 10), ("four_trips", 6), ("five_pairs_trips", 5),
            ("six_pairs", 4), ("three_flushes", 3), ("three_straights", 3),
        ),
        home_run_min_opponents=3,
    ),
    "mau-binh": dict(
        naturals=(
            ("royal_dragon", 100), ("dragon", 50), ("five_pairs_trips", 10), ("six_pairs", 8),
            ("three_flushes", 8), ("three_straights", 8),
        ),
        royalties=tuple((r, h, 2 * u) for r, h, u in DEFAULT_ROYALTIES),
        home_run_min_opponents=3,
    ),
}  # fmt: skip


#: Where each earlier preset's unchanged values are today: mau-binh's in mau-binh-rules,
#: the table it was until it followed gameBinh's live code (docs/rules.md#the-mau-binh-preset).
TODAY = {"shisanshui": "shisanshui", "mau-binh": "mau-binh-rules"}


def earlier(name: str, rename: str | None = None) -> Rules:
    """The preset ``name`` as it was at BEFORE (named ``rename``, default ``old-NAME``)."""
    return dataclasses.replace(
        PRESETS[TODAY[name]], name=rename or f"old-{name}", royalty_replaces_row=False,
        natural_ties="order", foul_penalty=None, **VALUES[name],
    )  # fmt: skip
