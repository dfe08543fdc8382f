"""A ruleset compiled once into what the kernels take, and handed down whole.

``compile_rules(rules)`` (cached per ``Rules``) gives a :class:`CompiledRules`: the
``Rules`` themselves, the evaluator's lookup tables and the ruleset's kernel arrays
(:class:`RuleArrays`, a NamedTuple that numba receives as one argument), plus the facts
about the ruleset that the solver asks again and again (is the Pareto front safe, the
royalty of a row by key). Every function below the public wrappers takes the compiled
bundle; none compiles a ruleset again. See docs/architecture.md.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from evaluator import get_deck_tables, get_joker_tables, get_tables
from evaluator.decks import FIVE_OF_A_KIND, DeckTables
from evaluator.tables import Tables
from solver.engine.layout import (
    MODE_CODES,
    NATURAL_CODES,
    NKEY,
    NPARAMS,
    NSTRENGTH,
    P_CAP,
    P_CODE,
    P_CODE_BOTH,
    P_EQ_FOUL,
    P_FOUL,
    P_FOUL_NAT,
    P_FOUL_ON,
    P_HR_MIN,
    P_HR_MULT,
    P_MODE,
    P_MULT,
    P_NAT_PAYOUT,
    P_ONE,
    P_ROY,
    P_RR,
    P_SCOOP_ADD,
    P_SCORING,
    P_XX_FOUL,
    P_XX_KEY,
    P_XX_ROY,
    ROWS,
    SCORING_CODES,
    SPLIT_CODES,
)
from solver.engine.rules import Rules

# Royalty hand of each evaluator category (a royal flush is looked up apart; five of a
# kind is on the copies scale only, docs/rules.md#added-suits).
_ROYALTY_HAND = {
    3: "three_of_a_kind",
    6: "full_house",
    7: "four_of_a_kind",
    8: "straight_flush",
    FIVE_OF_A_KIND: "five_of_a_kind",
}
# Categories paid for the dealt cards, not the rows, under royalties_dealt.
_DEALT_CATEGORIES = (7, 8)


class Lookup(NamedTuple):
    """The evaluator's small lookup tables, as one kernel argument (see evaluator._kernels)."""

    multi5: np.ndarray  # int16[6188] non-flush 5-card strength by rank-multiset index
    flush5: np.ndarray  # int16[6188] flush strength by rank-multiset index
    multi3: np.ndarray  # int16[455] 3-card strength by rank-multiset index


class RuleArrays(NamedTuple):
    """A ruleset as one kernel argument (read-only arrays; layout in solver.engine.layout)."""

    # [S]: one entry a strength of the deck's scale (7,917 on 52 cards, 11,648 with copies)
    remap: np.ndarray  # int16[S] strength -> strength under the ruleset's wheel
    decisive: np.ndarray  # int8[S] rank of the card whose suit breaks ties
    suit_rank: np.ndarray  # int64[4] rank 0..3 of each suit id (3 strongest; all 0 if none)
    roy: np.ndarray  # float64[3, S] royalty of a front/middle/back row by ORIGINAL strength
    params: np.ndarray  # float64[NPARAMS]: the P_* of layout
    nat_units: np.ndarray  # float64[k] natural payouts, strongest first (index = natural id)
    nat_codes: np.ndarray  # int64[k] NATURAL_CODES of the ruleset's naturals, same order
    #: float64[3] royalties_dealt: the back line for four of a kind, straight flush and
    #: royal flush among the dealt cards (all 0 when royalties_dealt is off)
    dealt_units: np.ndarray
    #: int64[S] by strength under the wheel (strength'): a row of strength' x fouls
    #: against the next row when that row's strength' is <= eq_top[x]
    #: (docs/rules.md#equal-rows-foul); x - 1 everywhere when equal_rows_foul is off
    eq_top: np.ndarray


@dataclass(frozen=True, eq=False)
class CompiledRules:
    """A ruleset ready for the kernels. Build it with :func:`compile_rules`."""

    rules: Rules
    #: the deck's strength scale (category, royal, wheel remap...): the 52-card tables,
    #: or the copies scale of a deck with added suits (evaluator.decks)
    tables: Tables | DeckTables
    lookup: Lookup  # the three small tables the kernels evaluate rows with
    arrays: RuleArrays
    #: Whether a split at least as strong in every row is never worth less (so only the
    #: Pareto front of the legal splits need be scored); see :func:`_pareto_safe`.
    pareto_safe: bool
    #: When only the order of the royalties makes it unsafe (five of a kind, which a
    #: joker makes, paying less than a straight flush): each row's lowest key whose
    #: royalty is below a weaker key's. The front is then safe for a hand whose rows
    #: all stay below these (``solver.strategy.hands.splits.candidates``); else None.
    pareto_below: tuple[int, int, int] | None = None

    @property
    def params(self) -> np.ndarray:
        return self.arrays.params

    @property
    def nkey(self) -> int:
        """Row keys on the deck's scale (``strength' * 4 + suit component``): 31,668 on
        52 cards, 46,592 with copies; the field tables' length."""
        return len(self.arrays.remap) * 4

    def home_run_at(self, n_opp: int) -> bool:
        """Whether the home run can happen at a table of ``n_opp`` opponents (the test the
        Monte Carlo kernel makes): a solve then needs whole tables
        (solver.strategy.solving.home_run draws them from the pool)."""
        p = self.arrays.params
        return bool(p[P_HR_MULT] != 1.0 and n_opp >= p[P_HR_MIN])

    def fouls(self, keys: np.ndarray, fronts: np.ndarray | None = None) -> np.ndarray:
        """bool[n]: which settings of row keys int64[n, 3] foul (``_fouled`` of the
        kernels: a row above the next, or under equal_rows_foul one the next does not beat).
        ``fronts`` int64[n]: the fronts' keys in the foul check where they are not their
        keys (a front of both jokers under ``two_jokers_foul = "third_card"``:
        ``solver.strategy.hands.splits.foul_fronts``)."""
        k = np.asarray(keys, np.int64).reshape(-1, 3)
        if fronts is not None:
            k = np.column_stack([np.asarray(fronts, np.int64).reshape(-1), k[:, 1:]])
        bad = ~((k[:, 0] <= k[:, 1]) & (k[:, 1] <= k[:, 2]))
        if self.rules.equal_rows_foul:
            top = self.arrays.eq_top
            strength = k // KEY_STEP  # a key's strength' (its suit part dropped)
            bad |= strength[:, 1] <= top[strength[:, 0]]
            bad |= strength[:, 2] <= top[strength[:, 1]]
        return bad

    @functools.cached_property
    def third_card_keys(self) -> np.ndarray | None:
        """int64[13]: under ``two_jokers_foul = "third_card"`` (``Rules.two_jokers_third``)
        the key of three of a kind of each rank as a front, what the foul check takes a
        front of both jokers for by its third card's rank (the kernels'
        ``_third_card_trips``, docs/rules.md#jokers); None for every other ruleset."""
        if not self.rules.two_jokers_third:
            return None
        from evaluator import card_id, evaluate3

        trips = [[card_id(r, s) for s in range(3)] for r in range(13)]
        s = np.asarray(evaluate3(trips, self.rules.deck_code), np.int64)
        return _readonly(self.arrays.remap[s].astype(np.int64) * KEY_STEP)

    @functools.cached_property
    def royalty_by_key(self) -> np.ndarray:
        """float64[3, nkey]: a row's royalty by row key (royalty depends on strength only)."""
        n = len(self.arrays.remap)
        inv = np.empty(n, np.int64)
        inv[self.arrays.remap.astype(np.int64)] = np.arange(n)
        by_strength = self.arrays.roy[:, inv]  # [row, strength'] with strength' the remapped
        by_key = np.repeat(by_strength, 4, axis=1)
        if self.params[P_XX_KEY] >= 0:  # a front holding both jokers (docs/rules.md#jokers)
            by_key[0, int(self.params[P_XX_KEY])] = self.params[P_XX_ROY]
        return _readonly(by_key)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _two_jokers(rules: Rules, t: Tables | DeckTables, remap: np.ndarray) -> tuple[float, float]:
    """(key, royalty) of a front holding both jokers where the ruleset pays it (a
    ``front.two_jokers`` line and two jokers: 对鬼冲前, docs/rules.md#jokers): the key
    just above three aces as a front (its suit part 1, which no front has without a suit
    order, and jokers play without), so it beats every other front and needs a middle
    above three aces; (-1, 0) otherwise."""
    line = [u for r, h, u in rules.royalties if (r, h) == ("front", "two_jokers")]
    if rules.jokers < 2 or not line:
        return -1.0, 0.0
    top_front = int(np.flatnonzero(~np.asarray(t.is_five, bool))[-1])
    return float(int(remap[top_front]) * 4 + 1), float(line[0])


def _arrays(rules: Rules, t: Tables | DeckTables) -> RuleArrays:
    n = len(t.category)  # the deck's scale
    if rules.wheel == "second":
        remap = np.array(t.wheel_second, dtype=np.int16)
    else:
        remap = np.arange(n, dtype=np.int16)
    decisive = np.array(t.decisive_rank, dtype=np.int8)
    suit_rank = np.zeros(4, np.int64)
    if rules.suit_order:
        for pos, letter in enumerate(rules.suit_order):
            suit_rank["cdhs".index(letter)] = 3 - pos
    roy = np.zeros((3, n), np.float64)
    dealt = rules.royalties_dealt and bool(rules.royalties)
    if rules.royalties:
        five = np.asarray(t.is_five, bool)
        royal = np.asarray(t.royal, bool)
        category = np.asarray(t.category)
        for row_index, row in enumerate(ROWS):
            # a front is a 3-card class, middle and back 5-card classes
            paid = five if row != "front" else ~five
            if dealt:  # paid for the dealt cards instead (royalties_dealt)
                paid = paid & ~np.isin(category, _DEALT_CATEGORIES)
            for cat, hand in _ROYALTY_HAND.items():
                roy[row_index, paid & ~royal & (category == cat)] = rules.royalty(row, hand)
            roy[row_index, paid & royal] = rules.royalty(row, "royal_flush")
    params = np.zeros(NPARAMS, np.float64)
    params[P_SCORING] = SCORING_CODES[rules.scoring]
    params[P_MULT] = float(rules.scoop_multiplier)
    params[P_MODE] = MODE_CODES[rules.royalty_mode]
    params[P_ONE] = 1.0 if rules.one_royalty_per_hand else 0.0
    params[P_ROY] = 1.0 if rules.royalties else 0.0
    params[P_HR_MULT] = float(rules.home_run_multiplier)
    params[P_HR_MIN] = float(rules.home_run_min_opponents)
    params[P_RR] = 1.0 if rules.royalty_replaces_row else 0.0
    params[P_FOUL_ON] = 1.0 if rules.foul_penalty is not None else 0.0
    params[P_FOUL] = float(rules.foul_penalty or 0.0)
    params[P_NAT_PAYOUT] = {"order": 0.0, "payout": 1.0, "difference": 2.0}[rules.natural_ties]
    params[P_EQ_FOUL] = 1.0 if rules.equal_rows_foul else 0.0
    params[P_FOUL_NAT] = float(rules.foul_pays_naturals and rules.foul_penalty is not None)
    params[P_CODE] = rules.code_factor
    params[P_CODE_BOTH] = rules.code_factor_both
    params[P_XX_KEY], params[P_XX_ROY] = _two_jokers(rules, t, remap)
    params[P_XX_FOUL] = 1.0 if rules.two_jokers_third else 0.0
    params[P_SCOOP_ADD] = float(rules.scoop_bonus)
    params[P_CAP] = np.inf if rules.pair_cap is None else float(rules.pair_cap)
    nat_units = np.array([float(u) for _, u in rules.naturals], dtype=np.float64)
    codes = [NATURAL_CODES[n] for n, _ in rules.naturals]
    if rules.splits_ranks:  # docs/rules.md#ranks-held-six-times
        codes = [SPLIT_CODES.get(c, c) for c in codes]
    nat_codes = np.array(codes, dtype=np.int64)
    dealt_units = np.zeros(3, np.float64)
    if dealt:
        dealt_units[:] = [
            rules.royalty("back", "four_of_a_kind"),
            rules.royalty("back", "straight_flush"),
            rules.royalty("back", "royal_flush"),
        ]
    eq_top = _eq_top(rules, t, remap)
    arrays = (remap, decisive, suit_rank, roy, params, nat_units, nat_codes, dealt_units, eq_top)
    return RuleArrays(*(_readonly(a) for a in arrays))


#: Categories whose equal rows are ordered, not equal, under equal_rows_foul: gameBinh
#: compares two straights (straight flushes) of one height as the second one higher.
_EQUAL_STRAIGHTS = (4, 8)


def _eq_top(rules: Rules, t: Tables | DeckTables, remap: np.ndarray) -> np.ndarray:
    """``RuleArrays.eq_top`` (docs/rules.md#equal-rows-foul). Off: x - 1 (a row fouls
    against a weaker next row). On: a five-card row of strength' x fouls against an
    equal next row too (x; a straight or straight flush x - 1); a front against a middle
    of its category whose first ranks are the front's (the five-card classes of that
    category between the front and the next front up: the highest of them)."""
    n = len(remap)
    top = np.arange(n, dtype=np.int64) - 1
    if not rules.equal_rows_foul:
        return top
    category = np.asarray(t.category)
    is_five = np.asarray(t.is_five, bool)
    order = np.argsort(remap)  # original strengths, weakest first under the wheel
    cat_o, five_o = category[order], is_five[order]
    for pos in range(n):
        x = int(remap[order[pos]])
        if five_o[pos]:
            top[x] = x - 1 if cat_o[pos] in _EQUAL_STRAIGHTS else x
            continue
        hi = x
        nxt = pos + 1
        while nxt < n and five_o[nxt] and cat_o[nxt] == cat_o[pos]:
            hi = int(remap[order[nxt]])
            nxt += 1
        top[x] = hi
    return top


def _pareto_safe(rules: Rules, ra: RuleArrays, t: Tables | DeckTables) -> bool:
    """Whether a split that is at least as strong in every row is never worth less.

    True when each row's royalty (under ``royalty_replaces_row``, what it adds to the
    row's unit, R - 1: a value below 1 is worth less than a plain row) never decreases
    with strength, royalties are not cut
    to one per hand (the kept royalty could move to a row that loses), and neither a
    scoop multiplier nor a home run multiplier is combined with royalties paid whoever
    wins ("always", or the dealt cards' royalties: being scooped can then be worth more
    than not, and scooping less).

    The home run keeps the front safe otherwise (docs/architecture.md#the-pareto-front):
    with royalties paid only to a row's winner, a pair settlement is never negative for
    the player who scoops and never positive for the one scooped, and it does not
    decrease as a row grows stronger. A stronger setting wins every row the weaker one
    wins, so it scoops every opponent the weaker one scoops (its own home run is kept,
    and a gained one multiplies settlements that are not negative) and is scooped by no
    opponent that does not scoop the weaker one (an opponent's home run against it is
    lost or kept, and a lost one was multiplying a settlement that is not positive).
    """
    if not _pareto_safe_but_for_order(rules):
        return False
    roy = _row_royalties(rules, ra)
    return all(b is None for b in _royalties_fall(roy, ra, t))


#: A row's ``pareto_below`` where its royalties never fall: above every key.
_NO_LIMIT = 1 << 62
#: Keys of one strength (its suit part): a row's key is its strength in the ruleset's
#: order times this, plus the suit part.
KEY_STEP = NKEY // NSTRENGTH


def _royalties_fall(roy: np.ndarray, ra: RuleArrays, t: Tables | DeckTables) -> list[int | None]:
    """Each row's lowest key whose royalty (``roy``) is below that of a weaker key of its
    kind (three or five cards), None where the royalties never fall as rows grow."""
    order = np.argsort(ra.remap)  # original strengths in ruleset order
    out: list[int | None] = []
    for row, five in ((0, False), (1, True), (2, True)):
        sel = order[t.is_five[order] == five]
        r = roy[row, sel]
        fall = np.flatnonzero(r < np.maximum.accumulate(r))
        out.append(None if not len(fall) else int(ra.remap[sel[fall[0]]]) * KEY_STEP)
    return out


def _pareto_below(
    rules: Rules, ra: RuleArrays, t: Tables | DeckTables
) -> tuple[int, int, int] | None:
    """``CompiledRules.pareto_below``: where the royalties fall, when nothing else makes
    the front unsafe (``_pareto_safe``' other conditions hold) and they do fall. A split
    at least as strong in every row, each below these keys, is never worth less: on the
    keys below its row's, a royalty never falls."""
    if not _pareto_safe_but_for_order(rules):
        return None
    falls = _royalties_fall(_row_royalties(rules, ra), ra, t)
    if all(b is None for b in falls):
        return None  # safe for every hand
    return tuple(_NO_LIMIT if b is None else b for b in falls)  # type: ignore[return-value]


def _row_royalties(rules: Rules, ra: RuleArrays) -> np.ndarray:
    """What each row's royalty adds to the row's unit (under ``royalty_replaces_row``,
    R - 1: a value below 1 is worth less than a plain row)."""
    if rules.royalty_replaces_row:
        return np.where(ra.roy > 0.0, ra.roy - 1.0, ra.roy)
    return ra.roy


def _pareto_safe_but_for_order(rules: Rules) -> bool:
    """``_pareto_safe``' conditions on the rules alone (not the royalties' order)."""
    if rules.one_royalty_per_hand:
        return False
    paid_anyway = rules.royalty_mode == "always" or rules.royalties_dealt
    multiplied = rules.scoop_multiplier != 1 or rules.home_run_multiplier != 1
    return not (paid_anyway and multiplied and rules.royalties)


@functools.lru_cache(maxsize=64)
def _compile(rules: Rules) -> CompiledRules:
    t: Tables | DeckTables = get_deck_tables() if rules.deck.wild else get_tables()
    ra = _arrays(rules, t)
    # with jokers, the lookups widened by the joker's rank, for the ruleset's wheel
    lk = get_joker_tables(rules.wheel) if rules.jokers else t
    return CompiledRules(
        rules=rules,
        tables=t,
        lookup=Lookup(lk.multi5, lk.flush5, lk.multi3),
        arrays=ra,
        pareto_safe=_pareto_safe(rules, ra, t),
        pareto_below=_pareto_below(rules, ra, t),
    )


def compile_rules(rules: Rules | CompiledRules) -> CompiledRules:
    """The compiled ruleset (cached per ``Rules``); a ``CompiledRules`` is returned as it
    is. A preset's name or a file is read first, once, by ``rules.load_rules``:
    ``compile_rules(load_rules(name))``; anything else is a TypeError. A deck with added
    suits or jokers compiles on its copies scale (jokers: evaluator.jokers' lookups)."""
    if isinstance(rules, CompiledRules):
        return rules
    if not isinstance(rules, Rules):
        raise TypeError(
            "compile_rules takes Rules or CompiledRules (read a name or a file with "
            f"load_rules first), got {type(rules).__name__}"
        )
    return _compile(rules)
