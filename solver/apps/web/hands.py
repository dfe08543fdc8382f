"""POST /api/rows: what each row of a setting is, as players say it, under a ruleset.

The page names every hand it shows (the answer, the runners-up, Check, the board while
the player sets it) from this one answer, so that the names, the royalties and the foul
warning come from the evaluator and the compiled ruleset, never from a second copy of the
rules in the page. A setting's rows may be incomplete (the board while it is being set):
a row is named once it holds its 3 or 5 cards, and a foul is told as soon as two
neighbouring rows are complete and out of order. At a table with jokers a complete row
holding one also says what it stands for (``jokers``: solver.apps.web.jokers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from evaluator import (
    CATEGORY_NAMES_COPIES,
    JOKER_FACE,
    CardParseError,
    as_cards,
    evaluate3,
    evaluate5,
    faces_of,
    format_cards,
    parse_cards,
)
from evaluator.cards import copies_of
from solver.apps.web.api import check_keys
from solver.apps.web.jokers import joker_row
from solver.engine.errors import InputError

ROWS_KEYS: tuple[str, ...] = ("rules", "players", "jokers", "settings")
ROW_SIZES = {"front": 3, "middle": 5, "back": 5}
#: At most this many settings a request (an answer, its runners-up and the player's own).
MOST_SETTINGS = 32
#: The names of the hand classes, as the catalogues key them (``hand.<class>``): the
#: categories of the copies scale (five of a kind above the straight flush, at a table
#: with added suits or jokers), then the royal flush, and a front of both jokers where
#: the ruleset pays it (对鬼冲前, docs/rules.md#jokers).
CLASSES: tuple[str, ...] = (
    *(n.replace(" ", "_") for n in CATEGORY_NAMES_COPIES),
    "royal_flush",
    "two_jokers",
)

__all__ = ["CLASSES", "MOST_SETTINGS", "ROWS_KEYS", "name_rows"]


def _rows_of(setting: Any, i: int, extra_suits: str = "") -> dict[str, Any]:
    """A setting's rows as card ids: ``"front | middle | back"`` text (rows may be short)
    or ``{"front": ..., "middle": ..., "back": ...}``; with ``extra_suits`` (a deck code)
    as faces, a card twice where the deck holds it twice (``Ah`` in two rows, or ``Ah
    Ah``), and a joker ``X`` as often as the deck holds one."""
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
            if not text.strip():
                ids = as_cards([])
            elif extra_suits:  # faces (a joker's is JOKER_FACE), as often as the deck holds them
                ids = faces_of(parse_cards(text, extra_suits=extra_suits))
            else:
                ids = as_cards(text)
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


def _foul(order: dict[str, float]) -> dict[str, str] | None:
    """The first pair of complete neighbouring rows out of order (``order``: each full
    row's place in the ruleset's order): ``{"row", "over"}``."""
    for low, high in (("front", "middle"), ("middle", "back")):
        if low in order and high in order and order[low] > order[high]:
            return {"row": low, "over": high}
    return None


def _named_row(faces: np.ndarray, index: int, size: int, cr: Any) -> tuple[dict, float | None]:
    """A row named (``{cards, class, royalty}``, and ``jokers`` at a table with jokers:
    what they stand for) and, once it is full, its place in the ruleset's order."""
    from solver.engine.layout import P_XX_KEY, P_XX_ROY

    extra = cr.rules.deck_code
    # faces: a row's second copy of a card is that card's second id, a second joker too
    ids = np.array(copies_of(faces.tolist(), extra), np.uint8) if extra else faces
    entry: dict[str, Any] = {"cards": format_cards(ids.tolist(), extra), "class": None,
                             "royalty": 0.0}  # fmt: skip
    if cr.rules.jokers:
        entry["jokers"] = None
    if len(ids) != size:
        return entry, None
    if index == 0 and cr.params[P_XX_KEY] >= 0 and int(np.sum(faces == JOKER_FACE)) == 2:
        # a front of both jokers where the ruleset pays it (对鬼冲前): above every front;
        # in the foul check three of its third card under two_jokers_foul = "third_card"
        entry.update({"class": "two_jokers", "royalty": float(cr.params[P_XX_ROY])})
        by_rank = cr.third_card_keys
        if by_rank is not None:
            third = int(faces[faces != JOKER_FACE][0])
            return entry, float(np.repeat(by_rank, 4)[third]) / 4
        return entry, float(cr.params[P_XX_KEY]) / 4
    s = int(evaluate3(ids, extra) if size == 3 else evaluate5(ids, extra))
    found = joker_row(faces.tolist(), extra, cr.rules.wheel) if cr.rules.jokers else None
    if found is not None:  # the card each joker stands for, at the ruleset's wheel
        entry["jokers"], s = found
    entry["class"] = _class(s, cr.tables)
    entry["royalty"] = float(cr.arrays.roy[index, s])
    return entry, float(cr.arrays.remap[s])


def _name_one(rows: dict[str, Any], cr: Any) -> dict[str, Any]:
    from solver.engine.settlement import summarize

    order: dict[str, float] = {}
    out: dict[str, Any] = {}
    for index, (row, size) in enumerate(ROW_SIZES.items()):
        out[row], place = _named_row(rows[row], index, size, cr)
        if place is not None:
            order[row] = place
    out["dealt"] = 0.0
    out["foul"] = _foul(order)
    if len(order) == 3:  # the whole setting: the settlement's own summary decides
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
    ``dealt`` the dealt cards' royalty, ``foul`` the first row that beats the one above;
    at a table with jokers (``jokers``: 0 to 2, ``rules`` then ``NAME-jokers-N``) each row
    also says what its jokers stand for (``jokers``: card text, null when it holds none
    or is not complete)."""
    from solver.engine.compiled import compile_rules

    opts = check_keys(body, ROWS_KEYS, '{"settings": ["As Ks Qs | ... | ..."]}')
    settings = opts.get("settings")
    if not isinstance(settings, list) or not settings:
        raise InputError("settings must be a list of settings, e.g. ['As Ks Qs | ... | ...']")
    if len(settings) > MOST_SETTINGS:
        raise InputError(f"settings: at most {MOST_SETTINGS} a request, got {len(settings)}")
    rules = catalog.seat(opts.get("rules"), opts.get("players"), opts.get("jokers"))
    cr = compile_rules(rules)
    parsed = [_rows_of(s, i, rules.deck_code) for i, s in enumerate(settings)]
    return {"rules": rules.name, "settings": [_name_one(rows, cr) for rows in parsed]}
