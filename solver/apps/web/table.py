"""POST /api/table: a practice showdown, as the apps play it (issue 34, item 2).

The player's hand and what they did with it (a setting, ``"declare"`` or
``"surrender"``) meet opponents dealt from the rest of the deck (``seed`` deals them
again) and set by an opponent style (``field``, ``greedy``, ``safe``; an opponent who
holds a natural declares it, as the Monte Carlo opponents do). The table is settled by
the engine's ``settle_table`` (the home run, the code card and surrender included): its
figure for the player is the answer's ``units``. At a banker's table
(docs/rules.md#the-bankers-table) the deal's number seats the banker (``banker``: the
seed modulo the players), every other seat settles with it alone (a pair without it
pays 0), each at a multiple of 1. Each pair is shown row by row (won,
tied, lost, and what each row pays), with what the player wins from that opponent; the
pairs add up to ``units``. Every row shown is named as ``POST /api/rows`` names it. With
``jokers`` (0 to 2) the table's deck holds them (``add_jokers``): the opponents are dealt
from it, and a joker is written ``X``.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from evaluator import CardParseError, format_cards
from solver.apps.web.api import (
    _cards_text,
    _styles,
    add_jokers,
    check_keys,
    check_seed,
    joker_count,
    natural_names,
)
from solver.apps.web.hands import ROW_SIZES, _name_one
from solver.apps.web.row_points import pair_points
from solver.engine.code_card import holds_code_card
from solver.engine.errors import InputError
from solver.engine.inputs import quote
from solver.engine.table_shape import MIN_PLAYERS, TABLE_MAX_PLAYERS

TABLE_KEYS: tuple[str, ...] = ("hand", "played", "rules", "players", "jokers", "opponents",
                               "seed")  # fmt: skip
#: The actions a player may take besides setting the hand.
ACTIONS = ("declare", "surrender")

__all__ = ["TABLE_KEYS", "play_table"]


def _players(value: Any, default: int) -> int:
    """2 to 6 players (more than four: the preset's bigger table, ``seated``)."""
    if value is None:
        return default
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not whole or not MIN_PLAYERS <= value <= TABLE_MAX_PLAYERS:
        bounds = f"from {MIN_PLAYERS} to {TABLE_MAX_PLAYERS}"
        raise InputError(f"players must be a whole number {bounds}, got {quote(value)}")
    return int(value)


def _seed(value: Any) -> int:
    return check_seed(value)


def _mine(played: Any, hand: np.ndarray, cr: Any) -> Any:
    """What the player shows: a setting uint8[13], ``"surrender"`` or a natural
    ``(id, key, name)``; an InputError / CardParseError names what is wrong."""
    from solver.engine.settlement import natural_of, parse_setting

    if played is None:
        raise InputError("played is missing: give the setting as 'front | middle | back'")
    word = played.strip().lower() if isinstance(played, str) else None
    if word == "surrender":
        if cr.rules.surrender_cost is None:
            raise InputError(f"played: ruleset '{cr.rules.name}' has no surrender")
        return "surrender"
    if word == "declare":
        found = natural_of(hand, cr)
        if found is None:
            raise InputError(f"played: this hand holds no natural under '{cr.rules.name}'")
        return found
    if isinstance(played, Mapping):
        played = [_cards_text(played.get(r), f"played {r}") for r in ROW_SIZES]
    setting = parse_setting(played, "played", cr.rules.deck_code)
    if sorted(setting.tolist()) != sorted(hand.tolist()):
        each = "each as often as the hand holds it" if cr.rules.deck_code else "each once"
        raise CardParseError(f"played: the setting must hold the hand's 13 cards, {each}")
    return setting


def _opponents(hand: np.ndarray, n: int, seed: int, style: str, cr: Any) -> tuple[list, Any]:
    """The opponents' hands (uint8[n, 13], faces), dealt from the cards of the table's
    deck the player does not hold,
    and what each shows: set by ``style`` (a setting uint8[13]), or the natural it holds,
    declared."""
    from solver.engine.settlement import find_naturals
    from solver.strategy.field_model.policy import set_sorted_hands, settings_of
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.hands.deal import deal_hands
    from solver.strategy.opposition.opponents import resolve_opponents

    rng = np.random.default_rng(seed)
    dealt = deal_hands(rng, 1, n, exclude=hand, deck=cr.rules.deck)[0]
    models = resolve_opponents(style, cr, n)
    out: list[Any] = []
    nat, natkey = find_naturals(dealt, cr)
    for i, m in enumerate(models):
        if nat[i] >= 0:
            out.append((int(nat[i]), int(natkey[i]), cr.rules.naturals[int(nat[i])][0]))
            continue
        tables = m.tables
        if tables is None and m.policy != "greedy":
            tables = ensure_field(cr)
        split, *_ = set_sorted_hands(dealt[i : i + 1], cr, m.policy, tables)
        out.append(settings_of(dealt[i : i + 1], split)[0])
    return out, dealt


def _row_signs(a: tuple, b: tuple) -> list[int]:
    """Each row from A's side: 1 won, 0 tied, -1 lost (a fouled hand loses every row)."""
    (ka, _, fa), (kb, _, fb) = a, b
    if fa or fb:
        return [0] * 3 if fa and fb else ([-1] * 3 if fa else [1] * 3)
    return [int(np.sign(int(x) - int(y))) for x, y in zip(ka, kb, strict=True)]


def _scoops(a: tuple, b: tuple) -> bool:
    """A scoops B for the home run: A legal, B fouled or beaten in all three rows."""
    return not a[2] and (b[2] or all(s == 1 for s in _row_signs(a, b)))


def _home_run(seats: list[Any], sums: list[tuple | None], cr: Any) -> int | None:
    """The seat with the home run (docs/rules.md#home-run), or None: ``sums`` the
    summaries of the hands shown (None: surrendered or a natural declared)."""
    rules = cr.rules
    if not rules.home_run:
        return None
    inside = [i for i, s in enumerate(seats) if not isinstance(s, str)]  # not surrendered
    if any(sums[i] is None for i in inside) or len(inside) - 1 < rules.home_run_min_opponents:
        return None  # a natural declared stops the home run
    for h in inside:
        if all(_scoops(sums[h], sums[j]) for j in inside if j != h):
            return h
    return None


def _pair(i: int, j: int, seats: list[Any], sums: list, hold: np.ndarray, h: Any, cr: Any,
          banker: int | None = None):  # fmt: skip
    """What seat i wins from seat j, as ``settle_table`` settles the pair (at a banker's
    table, 0 unless one of them is the banker)."""
    from solver.engine.settlement import settle_declared, settle_pairs

    if banker is not None and banker not in (i, j):
        return 0.0
    a, b = seats[i], seats[j]
    cost = float(cr.rules.surrender_cost or 0.0)
    if isinstance(a, str) and isinstance(b, str):  # two surrenders: nothing
        v = 0.0
    elif isinstance(a, str):  # a surrender pays its cost to a player still in the hand
        v = -cost
    elif isinstance(b, str):
        v = cost
    elif sums[i] is None or sums[j] is None:
        v = settle_declared(a if sums[i] is None else None, b if sums[j] is None else None, cr)
        if cr.rules.foul_pays_naturals and cr.rules.foul_penalty is not None:
            # a fouled hand pays a declared natural its flat penalty too
            # (docs/rules.md#flat-foul-penalty)
            if sums[j] is not None and sums[j][2] and sums[i] is None:
                v += float(cr.rules.foul_penalty)
            elif sums[i] is not None and sums[i][2] and sums[j] is None:
                v -= float(cr.rules.foul_penalty)
    else:
        pack = lambda s: (s[0][None], s[1][None], np.array([s[2]]))  # noqa: E731
        v = float(settle_pairs(pack(sums[i]), pack(sums[j]), cr)[0])
        if h in (i, j):
            v *= cr.rules.home_run_multiplier
    v *= cr.rules.pair_code_factor(bool(hold[i]), bool(hold[j]))
    return float(v)


def _showdown(
    j: int, seats: list, sums: list, hold: np.ndarray, h: Any, cr: Any, banker: int | None
) -> dict:
    """The player against seat j: the rows from the player's side (None when either
    showed no rows), who scooped whom, what the player wins from that seat."""
    rows = None if sums[0] is None or sums[j] is None else _row_signs(sums[0], sums[j])
    scoop = None
    if rows is not None and len(set(rows)) == 1 and rows[0] != 0:
        scoop = "you" if rows[0] == 1 else "them"
    units = _pair(0, j, seats, sums, hold, h, cr, banker)
    points = pair_points(0, j, (seats, sums, hold, h), cr, units, banker)
    return {"seat": j, "units": units, "rows": rows, "scoop": scoop,
            "row_units": points["rows"], "extras": points["extras"]}  # fmt: skip


def _seat(entry: Any, cards: np.ndarray, total: float, cr: Any) -> dict[str, Any]:
    """A seat at the table: its 13 cards, what it did (``play``, ``declare``,
    ``surrender``), its rows named (when it played), its natural, its units."""
    out: dict[str, Any] = {
        "cards": format_cards(sorted(cards.tolist(), reverse=True)),
        "units": total,
        "action": "play",
        "rows": None,
        "natural": None,
    }
    if isinstance(entry, str):
        out["action"] = "surrender"
    elif isinstance(entry, tuple):
        out["action"] = "declare"
        out["natural"] = {**natural_names(entry[2]), "units": dict(cr.rules.naturals)[entry[2]]}
    else:
        rows = {"front": entry[:3], "middle": entry[3:8], "back": entry[8:]}
        out["rows"] = _name_one({r: np.sort(v)[::-1] for r, v in rows.items()}, cr)
    return out


def play_table(body: Any, catalog: Any) -> dict[str, Any]:
    """POST /api/table: ``{"rules", "players", "jokers", "seed", "opponents", "units", "home_run":
    seat or null, "banker": seat or null, "seats": [{"units", "action", "rows", "natural"},
    ...] (seat 0 the player), "pairs": [{"seat", "units", "rows": [1|0|-1 front, middle,
    back] or null, "scoop": "you" | "them" | null, "row_units": [front, middle, back] or
    null, "extras": [{"kind", "units"}, ...]}, ...]}``: ``row_units`` and ``extras`` the
    pair's units row by row and beyond its rows (``row_points.pair_points``)."""
    from solver.engine.compiled import compile_rules
    from solver.engine.seating import seated
    from solver.engine.setting_cards import hand_faces
    from solver.engine.settlement import settle_table, summarize

    opts = check_keys(body, TABLE_KEYS, '{"hand": "As Kd ...", "played": "... | ... | ..."}')
    if opts.get("hand") is None:
        raise InputError("hand is missing: give 13 cards, e.g. 'As Kd Qh ...'")
    jokers = joker_count(opts.get("jokers"))
    given = catalog.resolve(opts.get("rules"))
    players = _players(opts.get("players"), given.players)
    rules = add_jokers(seated(given, players), jokers)  # five and six: the bigger table
    hand = hand_faces(_cards_text(opts["hand"], "hand"), rules.deck_code)
    style = _styles(opts["opponents"]) if opts.get("opponents") is not None else "field"
    if "," in style:
        raise InputError("opponents: one style for the table here (field, greedy or safe)")
    if style != "greedy":
        catalog.require_ready(rules)
    seed = _seed(opts.get("seed"))
    cr = compile_rules(rules)
    others, dealt = _opponents(hand, players - 1, seed, style, cr)
    seats = [_mine(opts.get("played"), hand, cr), *others]
    cards = [hand, *dealt]
    banker = seed % players if rules.banker else None
    totals = settle_table(seats, cr, banker=banker or 0)
    shown = np.array([isinstance(s, np.ndarray) for s in seats])
    sums = [summarize(s, cr) if ok else None for s, ok in zip(seats, shown, strict=True)]
    flats = np.zeros((players, 13), np.uint8)
    flats[shown] = [s for s, ok in zip(seats, shown, strict=True) if ok]
    hold = holds_code_card(flats, cr) & shown
    h = _home_run(seats, sums, cr)
    pairs = [_showdown(j, seats, sums, hold, h, cr, banker) for j in range(1, players)]
    return {
        "hand": format_cards(sorted(hand.tolist(), reverse=True)),
        "rules": rules.name,
        "players": players,
        "jokers": rules.jokers,
        "seed": seed,
        "opponents": style,
        "units": totals[0],
        "home_run": h,
        "banker": banker,
        "seats": [_seat(s, cards[i], totals[i], cr) for i, s in enumerate(seats)],
        "pairs": pairs,
    }
