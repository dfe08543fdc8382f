"""Settling two players under a ruleset, and naturals: validating wrappers over the kernels.

``compile_rules`` (solver.engine.compiled) turns a ``Rules`` into what the kernels take, once
per ruleset. A setting is summarised into row keys, row royalties and a foul flag
(``summarize``); two summaries settle with ``_settle``. The public entry points (``settle``,
``settle_table``, ``settle_natural``, ``find_natural``) take a ``Rules``, a preset name or a
file and compile it once; every other function takes the ``CompiledRules`` (else TypeError).

Row keys: ``strength' * 4 + suit component``, where ``strength'`` is the evaluator
strength under the ruleset's wheel and the suit component is the rank (0..3, 3 the
strongest) of the suit of the row's decisive card under the suit order (0 without one).
Higher is stronger, on one scale for 3- and 5-card rows, so a setting is legal when
``front <= middle <= back`` on keys.

Interpretations (docs/rules.md#interpretations; tests/reference.py is the oracle):

* ``one_royalty_per_hand``: a hand's row royalties are reduced, from the hand alone, to
  its largest one (equal values: back, then middle, then front); the royalty mode then
  decides whether it is paid (docs/rules.md#one-royalty-per-hand-from-the-hand-alone).
* ``cancel`` is decided row by row (docs/rules.md#cancel-is-row-by-row); a fouled hand's
  royalties are void: it collects nothing and cancels nothing
  (docs/rules.md#fouled-royalties-are-void).
* Natural tie keys use plain strengths on the ruleset's wheel; the suit order plays no
  part (two equal naturals tie). A straight flush counts as a straight for three
  straights and as a flush for three flushes (docs/rules.md#natural-tie-keys). Which
  hands hold the regional special hands: docs/rules.md#special-hands, with its
  interpretations (all high and all low both hold the 8, twelve of one colour holds
  thirteen, a royal dragon is also a dragon: docs/rules.md#overlapping-naturals).

The kernels are imported on first use, so importing this module does not compile them.
"""

from __future__ import annotations

import collections
import numbers
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from evaluator import CardParseError, format_card, parse_hand
from evaluator._jit import compiling
from solver.engine.banker import check_multiples
from solver.engine.code_card import code_card_of, holder_seat, holds_code_card
from solver.engine.compiled import CompiledRules, RuleArrays, compile_rules
from solver.engine.errors import InputError
from solver.engine.layout import NATURAL_CODES
from solver.engine.rules import Rules, RulesLike, load_rules
from solver.engine.setting_cards import check_copies, hand_faces, parse_setting
from solver.engine.table_shape import JOKER_FACE, MIN_PLAYERS, deck_of, players_text

__all__ = [
    "NATURAL_CODES",
    "CompiledRules",
    "RuleArrays",
    "compile_rules",
    "find_natural",
    "find_naturals",
    "natural_of",
    "natural_setting",
    "parse_setting",
    "settle",
    "settle_against",
    "settle_declared",
    "settle_natural",
    "settle_pairs",
    "settle_table",
    "settle_tables",
    "summarize",
    "summarize_batch",
]

#: What a public entry point takes for the rules: what ``load_rules`` reads (a ``Rules``, a
#: preset's name, a ruleset file, None: the default preset), or a ``CompiledRules`` made.
RulesOrCompiled = RulesLike | CompiledRules
Cards = str | Sequence[int] | np.ndarray


def _compile(rules: RulesOrCompiled) -> CompiledRules:
    """A public entry point's ruleset, compiled (read by ``load_rules`` unless compiled)."""
    return rules if isinstance(rules, CompiledRules) else compile_rules(load_rules(rules))


def _compiled(cr: Any, who: str) -> None:
    """``TypeError`` unless ``cr`` is a ``CompiledRules``: below the public entry points
    (``settle``, ``settle_natural``, ``find_natural``) the ruleset comes compiled."""
    if not isinstance(cr, CompiledRules):
        raise TypeError(
            f"{who} takes a CompiledRules (compile_rules(rules)), got {type(cr).__name__}"
        )


# --------------------------------------------------------------------------- settings


def _id_rows(rows: Any, what: str, extra_suits: str = "") -> np.ndarray:
    """Validated uint8[n, 13] rows of 13 distinct card ids (settings or hands); with
    ``extra_suits`` (a deck code), of 13 faces, each no more often than the deck holds
    it (a face of a doubled suit twice, the jokers' face as often as there are jokers)."""
    arr = np.asarray(rows)
    if arr.ndim != 2 or arr.shape[1] != 13:
        raise CardParseError(f"expected {what}s of shape (n, 13), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise CardParseError(f"card ids must be integers, got {arr.dtype}")
    deck = deck_of(extra_suits)
    top = JOKER_FACE if deck.jokers else deck.faces - 1
    if arr.size and (arr.min() < 0 or arr.max() > top):
        raise CardParseError("bad card id: ids run from 0 (2c) to 51 (As)")
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    allowed = np.zeros(top + 1, np.int64)
    allowed[: deck.faces] = deck.face_copies()
    if deck.jokers:
        allowed[JOKER_FACE] = deck.jokers
    width = top + 1
    flat = (np.arange(len(arr), dtype=np.int64)[:, None] * width + arr).ravel()
    counts = np.bincount(flat, minlength=len(arr) * width).reshape(len(arr), width)
    dup = (counts > allowed).any(axis=1)
    if dup.any():
        raise CardParseError(f"duplicate card in {what} {int(np.flatnonzero(dup)[0])}")
    return arr


def summarize(setting: Any, cr: CompiledRules) -> tuple[np.ndarray, np.ndarray, bool]:
    """(keys int64[3], royalties float64[4], foul) of a (front, middle, back) setting.

    Keys are the row keys under the ruleset (higher is stronger); royalties are the front,
    middle and back rows' and the dealt cards' (``royalties_dealt``), after
    ``one_royalty_per_hand``; ``foul`` is True unless ``front <= middle <= back``.
    """
    from solver.engine import _kernels as k

    _compiled(cr, "summarize")
    flat = parse_setting(setting, "setting", cr.rules.deck_code)
    keys = np.zeros(3, np.int64)
    roy = np.zeros(4, np.float64)
    with compiling("settle", "settlement kernels"):
        foul = k._summarize(flat, cr.lookup, cr.arrays, keys, roy)
    return keys, roy, bool(foul)


def summarize_batch(
    settings: np.ndarray, cr: CompiledRules
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Summaries of settings uint8[n, 13] (front 3 + middle 5 + back 5 each):
    (keys int64[n, 3], royalties float64[n, 4], fouls bool[n]). Rows must hold 13
    distinct valid ids (checked)."""
    from solver.engine import _kernels as k

    _compiled(cr, "summarize_batch")
    arr = _id_rows(settings, "setting", cr.rules.deck_code)
    n = len(arr)
    keys = np.zeros((n, 3), np.int64)
    roys = np.zeros((n, 4), np.float64)
    fouls = np.zeros(n, np.bool_)
    with compiling("settle-batch", "settlement kernels"):
        k._summarize_batch(arr, cr.lookup, cr.arrays, keys, roys, fouls)
    return keys, roys, fouls


def settle(a: Any, b: Any, rules: RulesOrCompiled = None) -> float:
    """Units player A wins from player B (negative: A pays).

    ``a`` and ``b`` are (front, middle, back) triples of card ids or text (or 13 cards in
    that order); fouled settings are allowed. ``rules`` is a ``Rules``, a preset name or a
    ruleset file (default ``chinese-1-6``). Raises ``CardParseError`` (a ``ValueError``)
    for a row of the wrong size, a bad card, a card twice in a setting, or a card held by
    both players. ``settle(a, b) == -settle(b, a)``. A public entry point: the ruleset
    is compiled here, once.
    """
    from solver.engine import _kernels as k

    cr = _compile(rules)
    extra = cr.rules.deck_code
    fa = parse_setting(a, "a", extra)
    fb = parse_setting(b, "b", extra)
    if extra:
        check_copies(np.concatenate([fa, fb]), extra, "a and b")
    shared = np.intersect1d(fa, fb)
    if shared.size and not extra:
        raise CardParseError(f"card {format_card(int(shared[0]))!r} is in both a and b")
    ka, kb = np.zeros(3, np.int64), np.zeros(3, np.int64)
    qa, qb = np.zeros(4, np.float64), np.zeros(4, np.float64)
    with compiling("settle", "settlement kernels"):
        foul_a = k._summarize(fa, cr.lookup, cr.arrays, ka, qa)
        foul_b = k._summarize(fb, cr.lookup, cr.arrays, kb, qb)
        value = float(k._settle(ka, qa, foul_a, kb, qb, foul_b, cr.params))
    card = code_card_of(cr)  # docs/rules.md#the-code-card
    value *= cr.rules.pair_code_factor(card in fa.tolist(), card in fb.tolist())
    return value


def settle_against(
    a: tuple[np.ndarray, np.ndarray, np.ndarray],
    b: tuple[np.ndarray, np.ndarray, bool],
    cr: CompiledRules,
) -> np.ndarray:
    """Units each of many players wins from one opponent: ``a`` summaries (keys int64[n, 3],
    royalties float64[n, 4], fouls bool[n]), ``b`` one summary (keys int64[3], royalties
    float64[4], foul)."""
    from solver.engine import _kernels as k

    _compiled(cr, "settle_against")
    (ka, ra, fa), (kb, rb, fb) = a, b
    out = np.empty(len(ka), np.float64)
    with compiling("settle-batch", "settlement kernels"):
        k._settle_against(ka, ra, fa, kb, rb, bool(fb), cr.params, out)
    return out


def settle_pairs(
    a: tuple[np.ndarray, np.ndarray, np.ndarray],
    b: tuple[np.ndarray, np.ndarray, np.ndarray],
    cr: CompiledRules,
) -> np.ndarray:
    """Units a[i] wins from b[i] for every i: ``a`` and ``b`` are summaries from
    ``summarize_batch`` (keys int64[n, 3], royalties float64[n, 4], fouls bool[n])."""
    from solver.engine import _kernels as k

    _compiled(cr, "settle_pairs")
    (ka, ra, fa), (kb, rb, fb) = a, b
    n = len(ka)
    if not (len(ra) == len(fa) == len(kb) == len(rb) == len(fb) == n):
        raise ValueError("settle_pairs: the summaries must have the same length")
    out = np.empty(n, np.float64)
    with compiling("settle-batch", "settlement kernels"):
        k._settle_pairs(ka, ra, fa, kb, rb, fb, cr.params, out)
    return out


# --------------------------------------------------------------------------- whole tables

#: The word a player's entry of ``settle_table`` gives for a surrender.
SURRENDER = "surrender"


def _is_natural(entry: Any) -> bool:
    """A declared natural as ``find_natural`` gives it: (id, key[, name]), integers first."""
    return (
        isinstance(entry, tuple | list)
        and len(entry) in (2, 3)
        and all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in entry[:2])
    )


def settle_table(
    settings: Sequence[Any], rules: RulesOrCompiled = None, *, holder: int | None = None,
    banker: int = 0, multiples: Sequence[float] | None = None,
) -> list[float]:  # fmt: skip
    """Each player's units at one table of 2 players to as many as the ruleset's deck
    deals (4 on 52 cards, 5 and 6 with added suits); the list sums to zero.

    ``settings[i]`` is what player i shows, one of:

    * a setting as ``settle`` takes it: a (front, middle, back) triple of card ids or
      text, 13 cards in that order, or ``"front | middle | back"`` (fouled allowed);
    * a natural declared, as ``find_natural`` returns it (``(id, key, name)``): the
      player shows no rows and settles with everyone as ``settle_natural`` says;
    * the word ``"surrender"``: the player pays the ruleset's surrender cost to every
      player who did not surrender and is out of the hand.

    Every pair settles as ``settle`` and ``settle_natural`` do, except the home run
    (docs/rules.md#home-run): a player who scoops every opponent still in the hand, at
    least ``home_run_min_opponents`` of them and none with a declared natural, collects
    ``home_run_multiplier`` times what each of them would pay. So with the home run off,
    ``settle_table(s)[i] == sum(settle(s[i], s[j]) for j != i)`` for shown settings. At a
    banker's table (docs/rules.md#the-bankers-table) the others settle with seat ``banker``
    alone, each times its ``multiples`` entry (one a seat, the banker's unused; default 1).

    Raises ``CardParseError`` for a bad setting or a card held by two players, and
    ``InputError`` for a bad natural, a surrender the ruleset does not allow, or a table
    of more players than the deck deals.
    """
    if isinstance(settings, str | bytes) or not isinstance(settings, Sequence | np.ndarray):
        raise InputError(f"settings must be a list of {players_text()} players, got {settings!r}")
    k = len(settings)
    cr = _compile(rules)
    most = cr.rules.deck.most_players()
    if not MIN_PLAYERS <= k <= most:
        raise InputError(f"a table has {MIN_PLAYERS} to {most} players, got {k}")
    extra = cr.rules.deck_code
    flats = np.zeros((k, 13), np.uint8)
    shown = np.zeros(k, np.bool_)
    nat = np.full(k, -1, np.int64)
    natkey = np.zeros(k, np.int64)
    surr = np.zeros(k, np.bool_)
    owner: dict[int, int] = {}
    for i, entry in enumerate(settings):
        who = f"player {i + 1}"
        if isinstance(entry, str) and entry.strip().lower() == SURRENDER:
            if cr.rules.surrender_cost is None:
                raise InputError(f"{who}: ruleset '{cr.rules.name}' has no surrender")
            surr[i] = True
        elif _is_natural(entry):
            try:
                nat[i], natkey[i] = _natural_id(entry, cr.rules, who)
            except ValueError as exc:
                raise InputError(str(exc)) from None
        else:
            flats[i] = parse_setting(entry, who, extra)
            shown[i] = True
            if extra:  # copies: a card no more often at the table than the deck holds it
                check_copies(flats[shown].ravel(), extra, who)
                continue
            for c in flats[i].tolist():
                if c in owner:
                    raise CardParseError(
                        f"card {format_card(c)!r} is held by player {owner[c] + 1} and {who}"
                    )
                owner[c] = i
    hold = holds_code_card(flats, cr) & shown
    if holder is not None:
        hold[holder_seat(holder, k, hold, shown)] = True
    seat, bets = _banker_seat(cr, banker, k, multiples)
    keys, roys, fouls = summarize_batch(flats[shown], cr)
    all_keys = np.zeros((k, 3), np.int64)
    all_roys = np.zeros((k, 4), np.float64)
    all_fouls = np.zeros(k, np.bool_)
    all_keys[shown], all_roys[shown], all_fouls[shown] = keys, roys, fouls
    out = settle_tables((all_keys, all_roys, all_fouls), k, cr, nat=nat, natkey=natkey,
                        surr=surr, hold=hold, banker=(seat, bets))  # fmt: skip
    return [float(x) for x in out]


def _banker_seat(
    cr: CompiledRules, banker: Any, k: int, multiples: Any
) -> tuple[int | None, np.ndarray]:
    """The banker's seat at a table of ``k`` under the ruleset (None: it seats no banker)
    and the multiples bet (1 each by default); InputError, one line, for a seat that is
    not one of the table's or multiples that are not one number above 0 a seat."""
    seat = None
    if not cr.rules.banker:
        if banker != 0:
            raise InputError(f"ruleset '{cr.rules.name}' seats no banker (banker = true)")
    elif isinstance(banker, bool) or not isinstance(banker, numbers.Integral) or not (
        0 <= int(banker) < k
    ):
        raise InputError(f"banker must be a seat from 0 to {k - 1}, got {banker!r}")
    else:
        seat = int(banker)
    bets = np.ones(k) if multiples is None else np.array(check_multiples(multiples, k, seat))
    return seat, bets


def settle_tables(
    summaries: tuple[np.ndarray, np.ndarray, np.ndarray],
    k: int,
    cr: CompiledRules,
    *,
    nat: np.ndarray | None = None,
    natkey: np.ndarray | None = None,
    surr: np.ndarray | None = None,
    hold: np.ndarray | None = None,
    banker: tuple[int | None, np.ndarray] | None = None,
) -> np.ndarray:
    """Many tables of ``k`` players at once: ``summaries`` (keys int64[n * k, 3],
    royalties float64[n * k, 4], fouls bool[n * k] from ``summarize_batch``) seat by
    seat, table t being rows t * k .. t * k + k - 1 -> each player's units float64[n * k].
    ``nat``/``natkey`` (int64[n * k], -1: no natural declared) and ``surr`` (bool[n * k])
    as ``settle_table`` takes its entries (default: every hand shown); ``hold``
    (bool[n * k]) the players who hold the code card (default: none); at a banker's
    table, ``banker`` the banker's seat at every table (None: the first) and the
    multiple each player bet, float64[n * k] (default: seat 0, 1 each)."""
    from solver.engine import _kernels as k_

    _compiled(cr, "settle_tables")
    keys = np.ascontiguousarray(summaries[0], np.int64)
    roys = np.ascontiguousarray(summaries[1], np.float64)
    fouls = np.ascontiguousarray(summaries[2], np.bool_)
    m = len(keys)
    shapes = keys.shape == (m, 3) and roys.shape == (m, 4) and fouls.shape == (m,)
    most = cr.rules.deck.most_players()
    if not MIN_PLAYERS <= k <= most or m % k or not shapes:
        raise ValueError(
            f"settle_tables: {m} summaries are not tables of {k} ({MIN_PLAYERS} to {most}) players"
        )
    nat = np.full(m, -1, np.int64) if nat is None else np.ascontiguousarray(nat, np.int64)
    natkey = np.zeros(m, np.int64) if natkey is None else np.ascontiguousarray(natkey, np.int64)
    surr = np.zeros(m, np.bool_) if surr is None else np.ascontiguousarray(surr, np.bool_)
    hold = np.zeros(m, np.bool_) if hold is None else np.ascontiguousarray(hold, np.bool_)
    at, bets = (None, np.ones(m)) if banker is None else banker
    bets = np.ascontiguousarray(bets, np.float64)
    seat = (at or 0) if cr.rules.banker else -1
    cost = float(cr.rules.surrender_cost or 0.0)
    out = np.empty(m, np.float64)
    with compiling("settle-table", "settlement kernels (tables)"):
        k_._settle_tables(keys, roys, fouls, nat, natkey, surr, hold, k, cr.params,
                          cr.arrays.nat_units, cost, seat, bets, out)  # fmt: skip
    return out


# --------------------------------------------------------------------------- naturals


def _hand(hand13: Cards, extra_suits: str = "") -> np.ndarray:
    # Fast path for the batch case: a uint8 array of 13 ids (checked, cheaply).
    if isinstance(hand13, np.ndarray) and hand13.dtype == np.uint8 and hand13.shape == (13,):
        if int(hand13.max()) <= 51 and len(set(hand13.tolist())) == 13:
            return np.ascontiguousarray(hand13)
    if extra_suits:  # the deck's cards, or faces as play holds them (setting_cards)
        return hand_faces(hand13, extra_suits)
    return parse_hand(hand13)


def find_natural(hand13: Cards, rules: RulesOrCompiled = None) -> tuple[int, int, str] | None:
    """The strongest natural the hand holds under ``rules`` (``natural_of``; a public
    entry point: the ruleset is compiled here)."""
    return natural_of(hand13, _compile(rules))


def natural_of(hand13: Cards, cr: CompiledRules) -> tuple[int, int, str] | None:
    """The strongest natural the hand holds under the ruleset: ``(id, key, name)``, or
    None (also when naturals are off).

    ``id`` is the natural's position in the ruleset's list (0 = strongest), the index of
    ``cr.arrays.nat_units``. ``key`` (int) breaks ties between two hands with
    the same natural, higher wins (docs/rules.md#natural-tie-keys): 0 for the naturals
    that always tie (royal dragon, dragon, twelve royals, all high, all low, one colour,
    twelve of one colour); six pairs the pair ranks highest first (in base 16); four
    trips the ranks held three or more times, three quads the quad ranks, highest first
    (base 16); five pairs and trips the rank of its trips; three straights / three
    flushes / three straight flushes the best qualifying split compared back, then
    middle, then front on plain strengths under the ruleset's wheel (no suit order).
    """
    from solver.engine import _kernels as k

    _compiled(cr, "natural_of")
    if not cr.rules.naturals:
        return None
    h = _hand(hand13, cr.rules.deck_code).reshape(1, 13)
    ids = np.empty(1, np.int64)
    keys = np.empty(1, np.int64)
    # The batch kernel for one hand too: one kernel to load, not two.
    with compiling("natural-batch", "natural detection"):
        k._find_natural_batch(h, cr.arrays.nat_codes, cr.lookup, cr.arrays.remap, ids, keys)
    nid = int(ids[0])
    if nid < 0:
        return None
    return nid, int(keys[0]), cr.rules.naturals[nid][0]


def find_naturals(hands: np.ndarray, cr: CompiledRules) -> tuple[np.ndarray, np.ndarray]:
    """Naturals of many hands, uint8[n, 13] -> (ids int64[n] (-1: none), keys int64[n])."""
    from solver.engine import _kernels as k

    _compiled(cr, "find_naturals")
    arr = _id_rows(hands, "hand", cr.rules.deck_code)
    n = len(arr)
    ids = np.full(n, -1, np.int64)
    keys = np.zeros(n, np.int64)
    if not cr.rules.naturals or n == 0:
        return ids, keys
    ra = cr.arrays
    with compiling("natural-batch", "natural detection (batch)"):
        k._find_natural_batch(arr, ra.nat_codes, cr.lookup, ra.remap, ids, keys)
    return ids, keys


#: Naturals whose best qualifying split is their tie key, shown as that split.
_SPLIT_NATURALS = ("three_straights", "three_flushes", "three_straight_flushes")


def natural_setting(
    hand13: Cards, cr: CompiledRules
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A (front, middle, back) split showing the hand's strongest natural, or None.

    Three straights / three flushes / three straight flushes: the best qualifying split
    (the one its key comes from). Dragon and royal dragon: the 13 ranks in order (front
    2-3-4 .. back T-A). Six pairs: the cards grouped by rank, highest first, back 5,
    middle 5, front 3. Every other natural is a property of the 13 cards, not of a split:
    the greedy split (the strongest five in the back, the strongest five of the rest in
    the middle) shows it (docs/rules.md#natural-settings). For display only; every split
    returned is legal under the ruleset.
    """
    from solver.engine import _kernels as k

    _compiled(cr, "natural_setting")
    h = _hand(hand13, cr.rules.deck_code)
    found = natural_of(h, cr)
    if found is None:
        return None
    _, _, name = found
    ids = h.tolist()
    rows: tuple[np.ndarray, ...]
    if name in _SPLIT_NATURALS:
        split = np.empty(13, np.int64)
        codes = np.array([NATURAL_CODES[name]], np.int64)
        with compiling("natural", "natural detection"):
            k._find_natural(h, codes, cr.lookup, cr.arrays.remap, split)
        cards = h[split]
        rows = cards[:3].copy(), cards[3:8].copy(), cards[8:].copy()
    elif name in ("dragon", "royal_dragon"):
        order = sorted(ids)
        rows = tuple(np.array(x, np.uint8) for x in (order[:3], order[3:8], order[8:]))
    elif name == "six_pairs":
        rank = cr.rules.deck.rank
        counts = collections.Counter(rank(c) for c in ids)
        # Jokers first (a joker left to the front would make trips of its lowest pair,
        # over the middle's two pair), then bigger rank groups, then higher ranks: back 5,
        # middle 5, front the last 3.
        order = sorted(ids, key=lambda c: (c != JOKER_FACE, -counts[rank(c)], -rank(c), -c))
        rows = (
            np.array(order[10:], np.uint8),
            np.array(order[5:10], np.uint8),
            np.array(order[:5], np.uint8),
        )
    else:
        rows = _greedy_rows(h, cr)
    front, middle, back = rows
    if summarize((front, middle, back), cr)[2]:
        # Equal-ranked rows split by the suit order: the stronger suit goes to the back.
        middle, back = back, middle
    return front, middle, back


def _greedy_rows(h: np.ndarray, cr: CompiledRules) -> tuple[np.ndarray, ...]:
    """The strongest five of ``h`` (on the ruleset's wheel; the first of equals), the
    strongest five of the other eight, and the last three: legal, since every five cards
    holding the front's three are at least as strong as the front
    (docs/rules.md#one-strength-scale), except that a suit order may rank two equal
    fives the other way (the caller swaps them)."""
    from itertools import combinations

    from evaluator import evaluate5
    from evaluator.cards import copies_of, faces_of

    remap = cr.arrays.remap
    extra = cr.rules.deck_code  # faces as the deck's ids (a second copy: face + FACES)
    ids = np.array(copies_of(np.sort(h).tolist(), extra), np.uint8) if extra else np.sort(h)
    cards = ids[::-1]
    fives = np.array(list(combinations(range(13), 5)), np.int64)
    back = fives[int(np.argmax(remap[evaluate5(cards[fives], extra)]))]
    rest = np.array([p for p in range(13) if p not in back.tolist()], np.int64)
    eights = rest[np.array(list(combinations(range(8), 5)), np.int64)]
    middle = eights[int(np.argmax(remap[evaluate5(cards[eights], extra)]))]
    front = np.array([p for p in rest.tolist() if p not in middle.tolist()], np.int64)
    return tuple(faces_of(cards[p]) for p in (front, middle, back))  # a joker's face is 53


def _natural_id(nat: Any, r: Rules, who: str) -> tuple[int, int]:
    if nat is None:
        return -1, 0
    if not isinstance(nat, tuple | list) or len(nat) not in (2, 3):
        raise ValueError(f"{who}: a natural is None or (id, key, name) from find_natural")
    try:  # integers only: 0.9 is not natural 0
        if isinstance(nat[0], bool) or isinstance(nat[1], bool):
            raise TypeError
        nid, key = operator.index(nat[0]), operator.index(nat[1])
    except TypeError:
        raise ValueError(
            f"{who}: a natural's id and key are integers, got {nat[0]!r} and {nat[1]!r}"
        ) from None
    if not 0 <= nid < len(r.naturals):
        raise ValueError(
            f"{who}: natural id {nid} out of range for {len(r.naturals)} naturals of '{r.name}'"
        )
    if len(nat) == 3 and nat[2] != r.naturals[nid][0]:
        raise ValueError(
            f"{who}: natural id {nid} is '{r.naturals[nid][0]}' under '{r.name}', not {nat[2]!r}"
        )
    return nid, key


def settle_natural(a_nat: Any, b_nat: Any, rules: RulesOrCompiled = None) -> float:
    """Units A wins from B when naturals are declared (``settle_declared``; a public entry
    point: the ruleset is compiled here)."""
    return settle_declared(a_nat, b_nat, _compile(rules))


def settle_declared(a_nat: Any, b_nat: Any, cr: CompiledRules) -> float:
    """Units A wins from B when naturals are declared: each of ``a_nat``/``b_nat`` is None
    (no natural declared) or ``(id, key, name)`` from ``find_natural``.

    A natural collects its payout from a player without one; the stronger natural
    collects its own payout from the weaker; the same natural compares keys (a full tie
    pays 0); under ``natural_ties = "payout"`` the larger payout collects and equal
    payouts tie (docs/rules.md#natural-ties). No multiplier, no royalties. Both None:
    0.0 (settle the hands with ``settle``).
    """
    from solver.engine import _kernels as k

    _compiled(cr, "settle_declared")
    na, ka = _natural_id(a_nat, cr.rules, "a")
    nb, kb = _natural_id(b_nat, cr.rules, "b")
    with compiling("settle", "settlement kernels"):
        return float(k._settle_naturals(na, ka, nb, kb, cr.arrays.nat_units, cr.params))
