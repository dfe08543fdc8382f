"""A ruleset as a TOML-shaped dict (``Rules.to_dict``) and its digest (``Rules.digest``):
kept apart from solver/engine/rules.py, whose ``Rules`` calls them. Standard library only."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from solver.engine.rule_values import DIGEST_VERSION, ROWS

if TYPE_CHECKING:
    from solver.engine.rules import Rules

__all__ = ["rules_digest", "rules_to_dict"]


def rules_to_dict(r: Rules) -> dict[str, Any]:
    """TOML-shaped, JSON-serialisable dict; ``rules_from_dict`` reads it back.

    Every key is present, so the dict does not depend on a base preset: off
    switches are ``false`` (TOML has no null), ``suit_order`` ``"none"``, and all
    three royalty rows are given (an empty row table means no royalties there);
    ``extra_suits`` only when it adds a suit (no preset does).
    """
    royalties: dict[str, dict[str, float]] | bool
    if r.royalties:
        royalties = {row: {} for row in ROWS}
        for row, hand, units in r.royalties:
            royalties[row][hand] = units
    else:
        royalties = False
    return {
        "name": r.name,
        "scoring": r.scoring,
        "scoop_multiplier": r.scoop_multiplier,
        "royalty_mode": r.royalty_mode,
        "one_royalty_per_hand": r.one_royalty_per_hand,
        "royalties_dealt": r.royalties_dealt,
        "suit_order": r.suit_order if r.suit_order is not None else "none",
        "wheel": r.wheel,
        "surrender_cost": r.surrender_cost if r.surrender_cost is not None else False,
        "players": r.players,
        **({"extra_suits": r.extra_suits} if r.extra_suits else {}),
        **({"jokers": r.jokers} if r.jokers else {}),
        "home_run_multiplier": r.home_run_multiplier,
        "home_run_min_opponents": r.home_run_min_opponents,
        "royalty_replaces_row": r.royalty_replaces_row,
        "natural_ties": r.natural_ties,
        "foul_penalty": r.foul_penalty if r.foul_penalty is not None else False,
        **({"equal_rows_foul": True} if r.equal_rows_foul else {}),
        **({"foul_pays_naturals": True} if r.foul_pays_naturals else {}),
        "code_card": r.code_card if r.code_card is not None else False,
        "code_card_multiplier": r.code_card_multiplier,
        "code_card_both": r.code_card_both,
        "split_ranks": r.split_ranks,
        "two_jokers_foul": r.two_jokers_foul,
        **({"banker": True} if r.banker else {}),
        **({"scoop_bonus": r.scoop_bonus} if r.scoop_bonus else {}),
        **({"pair_cap": r.pair_cap} if r.pair_cap is not None else {}),
        "royalties": royalties,
        "naturals": dict(r.naturals) if r.naturals else False,
    }


def rules_digest(r: Rules) -> str:
    """Stable 16-hex-digit digest of the game-defining settings (all but ``name``).

    Equal settings give equal digests whatever the name, field order in a file, or
    int/float spelling of a number; naturals' order is part of the game.
    ``royalties_dealt`` enters the payload only when it is true, so every ruleset
    without it keeps the digest it had before the key existed (the shipped field
    tables are keyed by digest). The home run enters it the same way, only when it
    is on (``home_run_multiplier`` above 1), with its minimum of opponents; off, the
    minimum changes nothing and is left out too. ``royalty_replaces_row``,
    ``natural_ties`` and ``foul_penalty`` enter it only when not at their defaults;
    the code card with its multiplier only when there is one (without it the
    multiplier changes nothing), and ``code_card_both`` with it when not ``"once"``;
    ``extra_suits`` only when it adds a suit, ``jokers`` only when there are some;
    ``equal_rows_foul`` and ``foul_pays_naturals`` only when on; ``split_ranks`` only
    when it can change a natural (``splits_ranks``); ``two_jokers_foul`` only when it can
    change a foul check (``two_jokers_third``); ``banker``, ``scoop_bonus`` and
    ``pair_cap`` only when set.
    """
    payload = [
        DIGEST_VERSION,
        r.scoring,
        r.scoop_multiplier,
        r.royalty_mode,
        r.one_royalty_per_hand,
        r.suit_order,
        r.wheel,
        r.surrender_cost,
        r.players,
        [list(line) for line in r.royalties],
        [list(line) for line in r.naturals],
    ]
    if r.royalties_dealt:
        payload.append({"royalties_dealt": True})
    if r.home_run:
        payload.append({"home_run": [r.home_run_multiplier, r.home_run_min_opponents]})
    if r.royalty_replaces_row:
        payload.append({"royalty_replaces_row": True})
    if r.natural_ties != "order":
        payload.append({"natural_ties": r.natural_ties})
    if r.foul_penalty is not None:
        payload.append({"foul_penalty": r.foul_penalty})
    if r.code_card is not None:
        payload.append({"code_card": [r.code_card, r.code_card_multiplier]})
        if r.code_card_both != "once":
            payload.append({"code_card_both": r.code_card_both})
    if r.extra_suits:
        payload.append({"extra_suits": r.extra_suits})
    if r.jokers:
        payload.append({"jokers": r.jokers})
    if r.equal_rows_foul:
        payload.append({"equal_rows_foul": True})
    if r.foul_pays_naturals:
        payload.append({"foul_pays_naturals": True})
    if r.splits_ranks:
        payload.append({"split_ranks": True})
    if r.two_jokers_third:
        payload.append({"two_jokers_foul": r.two_jokers_foul})
    if r.banker:
        payload.append({"banker": True})
    if r.scoop_bonus:
        payload.append({"scoop_bonus": r.scoop_bonus})
    if r.pair_cap is not None:
        payload.append({"pair_cap": r.pair_cap})
    text = json.dumps(payload, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
