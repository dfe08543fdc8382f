"""POST /api/rows: what each row of a setting is, as players say it, under a ruleset.

The page names every hand it shows (the answer, the runners-up, Check, the board while
the player sets it) from this one answer, so that the names, the royalties and the foul
warning come from the evaluator and the compiled ruleset, never from a second copy of the
rules in the page. A setting's rows may be incomplete (the board while it is being set):
a row is named once it holds its 3 or 5 cards, and a foul is told as soon as two
neighbouring rows are complete and out of order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from evaluator import (
    CATEGORY_NAMES_COPIES,
    CardParseError,
    as_cards,
    evaluate3,
    evaluate5,
    format_cards,
    parse_cards,
)
from evaluator.cards import copies_of
from solver.apps.web.api import check_keys
from solver.engine.errors import InputError

ROWS_KEYS: tuple[str, ...] = ("rules", "players", "settings")
ROW_SIZES = {"front": 3, "middle": 5, "back": 5}
#: At most this many settings a request (an answer, its runners-up and the player's own).
MOST_SETTINGS = 32
#: The names of the hand classes, as the catalogues key them (``hand.<class>``): the
#: categories of the copies scale (five of a kind above the straight flush, at a table
#: with added suits), then the royal flush.
CLASSES: tuple[str, ...] = (
    *(n.replace(" ", "_") for n in CATEGORY_NAMES_COPIES),
    "royal_flush",
)

__all__ = ["CLASSES", "MOST_SETTINGS", "ROWS_KEYS", "name_rows"]


def _rows_of(setting: Any, i: int, extra_suits: str = "") -> dict[str, Any]:
    """A setting's rows as card ids: ``"front | middle | back"`` text (rows may be short)
    or ``{"front": ..., "middle": ..., "back": ...}``; with ``extra_suits`` as faces, a
    card twice where the deck holds it twice (``Ah`` in two rows, or ``Ah Ah``)."""
    who = f"settings[{i}]"
    if isinstance(setting, str):
        parts = setting.split("|")
        if len(parts) != 3:
            raise InputError(f"{who}: a setting is 'front | middle | back', got {len(parts)} rows")
        setting = dict(zip(ROW_SIZES, parts, strict=True))
    if not isinstance(setting, Mapping) or set(setting) - set(ROW_SIZES):
        raise InputError(f"{who}: a setting is 'front | middle | back' or an object of rows")
    rows: dict[str, Any] = {}
    seen: set[int] = set()
    held: list[int] = []
    for row, size in ROW_SIZES.items():
        text = setting.get(row) or ""
        if not isinstance(text, str):
            raise InputError(f"{who} {row}: cards as text, e.g. 'As Kd Qh'")
        try:
            if extra_suits:
                ids = parse_cards(text, allow_duplicates=True) if text.strip() else as_cards([])
            else:
                ids = as_cards(text) if text.strip() else as_cards([])
        except CardParseError as exc:
            raise CardParseError(f"{who} {row}: {exc}") from None
        if len(ids) > size:
            raise InputError(f"{who} {row}: a {row} holds {size} cards, got {len(ids)}")
        if extra_suits:  # faces: each no more often than the deck holds it
            held.extend(ids.tolist())
            try:
                copies_of(held, extra_suits)
            except CardParseError as exc:
                raise CardParseError(f"{who} {row}: {exc}") from None
            rows[row] = ids
            continue
        dup = seen.intersection(ids.tolist())
        if dup or len(set(ids.tolist())) != len(ids):
            raise CardParseError(f"{who}: a card is in the setting twice")
        seen.update(ids.tolist())
        rows[row] = ids
    return rows


def _class(strength: int, tables: Any) -> str:
    if tables.royal[strength]:
        return "royal_flush"
    return CLASSES[int(tables.category[strength])]


def _foul(strengths: dict[str, int], cr: Any) -> dict[str, str] | None:
    """The first pair of complete neighbouring rows out of order: ``{"row", "over"}``."""
    remap = cr.arrays.remap
    for low, high in (("front", "middle"), ("middle", "back")):
        if low in strengths and high in strengths:
            if int(remap[strengths[low]]) > int(remap[strengths[high]]):
                return {"row": low, "over": high}
    return None


def _name_one(rows: dict[str, Any], cr: Any) -> dict[str, Any]:
    from solver.engine.settlement import summarize

    tables = cr.tables
    extra = cr.rules.deck_code
    strengths: dict[str, int] = {}
    out: dict[str, Any] = {}
    for index, (row, size) in enumerate(ROW_SIZES.items()):
        ids = rows[row]  # faces: a row's second copy of a card is that card's second id
        if extra:
            ids = np.array(copies_of(ids.tolist(), extra), np.uint8)
        entry: dict[str, Any] = {
            "cards": format_cards(ids.tolist(), extra),
            "class": None,
            "royalty": 0.0,
        }
        if len(ids) == size:
            s = int(evaluate3(ids, extra) if size == 3 else evaluate5(ids, extra))
            strengths[row] = s
            entry["class"] = _class(s, tables)
            entry["royalty"] = float(cr.arrays.roy[index, s])
        out[row] = entry
    out["dealt"] = 0.0
    out["foul"] = _foul(strengths, cr)
    if len(strengths) == 3:  # the whole setting: the settlement's own summary decides
        keys, roy, foul = summarize([rows[r] for r in ROW_SIZES], cr)
        for index, row in enumerate(ROW_SIZES):
            out[row]["royalty"] = float(roy[index])
        out["dealt"] = float(roy[3])
        if not foul:
            out["foul"] = None
        elif out["foul"] is None:
            low = "front" if keys[0] > keys[1] else "middle"
            out["foul"] = {"row": low, "over": "middle" if low == "front" else "back"}
    return out


def name_rows(body: Any, catalog: Any) -> dict[str, Any]:
    """POST /api/rows (``players``: at that table, ``rules`` its seated ruleset, e.g.
    ``shisanshui-5``): ``{"rules", "settings": [{front|middle|back: {cards, class,
    royalty}, dealt, foul: {row, over} or null}, ...]}``. ``class`` is a key of
    :data:`CLASSES` (null for a row not yet full), ``royalty`` the units that row's hand
    earns under the ruleset (after ``one_royalty_per_hand`` once the setting is whole),
    ``dealt`` the dealt cards' royalty, ``foul`` the first row that beats the one above."""
    from solver.engine.compiled import compile_rules

    opts = check_keys(body, ROWS_KEYS, '{"settings": ["As Ks Qs | ... | ..."]}')
    settings = opts.get("settings")
    if not isinstance(settings, list) or not settings:
        raise InputError("settings must be a list of settings, e.g. ['As Ks Qs | ... | ...']")
    if len(settings) > MOST_SETTINGS:
        raise InputError(f"settings: at most {MOST_SETTINGS} a request, got {len(settings)}")
    rules = catalog.seat(opts.get("rules"), opts.get("players"))
    cr = compile_rules(rules)
    parsed = [_rows_of(s, i, rules.deck_code) for i, s in enumerate(settings)]
    return {"rules": rules.name, "settings": [_name_one(rows, cr) for rows in parsed]}
