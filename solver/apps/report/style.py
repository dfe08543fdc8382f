"""Your style against the field's: the settings a player chose beside the advice's for
the same hands (docs/report.md, "Your style").

Over the hands whose record has both a played setting and an advised one (the advice
and the play both settings, not a declare or a surrender), ``Style`` counts, for the
player and for the advice alike: the front's hand class (high card, pair, trips) and
the rank of a front pair, the back's hand class, each row's mean win rate (the record's
``row_stats`` and ``played.rows``), how often each row is the stronger of the two, and
the fouls. The advice is the record's own setting: with ``--policy field`` the field's
setting of the hand, with ``mc`` the best response to field opponents, with
``greedy`` greedy's; ``against`` names it.

Hand classes and "stronger" are by rank on the evaluator's one scale (the default rules:
no suit order, the wheel the lowest straight); a record of a table of five or six, whose
deck adds suits, or of a deck with jokers (``records.record_deck``), is read with that
deck (a card of an added suit may be written twice, a joker is ``X``) and ranked on the
copies scale, which orders rows as the one scale does and adds five of a kind to the
backs (a joker stands for the card its row needs most, and a front pair with a joker is
of its highest other card's rank); the player's fouls are the record's
(``played.fouled``, under the record's rules); the advice never fouls (the solver
advises legal settings only). Memory stays bounded: the cards of at most ``CHUNK`` hands
wait to be ranked together.
"""

from __future__ import annotations

import functools
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from solver.apps.report.records import Hand, record_deck
from solver.apps.report.translations import N_, _, ngettext
from solver.engine.table_shape import STANDARD_DECK

__all__ = ["BACK_CLASSES", "CHUNK", "FRONT_CLASSES", "Style", "StyleRow", "style_rows"]

ROWS = ("front", "middle", "back")
SIDES = ("played", "advice")
#: The hand classes of a front (the evaluator's categories 0, 1 and 3) and of a back
#: (all nine, ``evaluator.CATEGORY_NAMES``), as JSON keys.
FRONT_CLASSES = ("high_card", "pair", "three_of_a_kind")
BACK_CLASSES = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
)
#: A back of a deck with added suits may also be five of a kind (the copies scale's
#: category 9); the report names it only when such a deck was read.
FIVE_OF_A_KIND = "five_of_a_kind"
_BACKS = (*BACK_CLASSES, FIVE_OF_A_KIND)
_FRONT_INDEX = {0: 0, 1: 1, 3: 2}  # evaluator category -> FRONT_CLASSES index
_NAN = float("nan")
#: How many of the advice's policies are named (the rest count as "others").
MAX_POLICIES = 8
#: How many hands' cards wait before they are ranked together.
CHUNK = 4096
_WIDTHS = (3, 5, 5, 3, 5, 5)  # the rows of the two settings
#: A hand's six rows written as capsa writes them ("As Kd Qh"), joined by "|": 77
#: characters, a card's rank and suit at these offsets.
_TEXT = 3 * sum(_WIDTHS) - 1
_OFFSETS = tuple(3 * i for i in range(sum(_WIDTHS)))


@functools.cache
def _lookups() -> tuple[Any, Any, Any]:
    """The rank and the suit of each byte (-1: none), and the separator expected at each
    of a joined hand's characters (0 where a card is)."""
    import numpy as np

    from evaluator import RANKS, SUITS

    rank = np.full(256, -1, np.int16)
    suit = np.full(256, -1, np.int16)
    rank[list(RANKS.encode())] = np.arange(13)
    suit[list(SUITS.encode())] = np.arange(4)
    template = "|".join(" ".join(["As"] * w) for w in _WIDTHS).encode()
    seps = np.frombuffer(template, np.uint8).copy()
    for at in _OFFSETS:
        seps[at : at + 2] = 0
    return rank, suit, seps


def _cards(texts: list[str]) -> tuple[Any, Any]:
    """The 26 card ids of each joined hand (played setting, then the advice's) and
    whether each hand is one: every card capsa's own spelling, no card twice in a
    setting. A hand in another spelling is parsed on its own (``setting_ids``)."""
    import numpy as np

    rank, suit, seps = _lookups()
    raw = np.frombuffer("".join(texts).encode("ascii", "replace"), np.uint8)
    raw = raw.reshape(len(texts), _TEXT)
    at = np.array(_OFFSETS)
    r, s = rank[raw[:, at]], suit[raw[:, at + 1]]
    ok = (r >= 0).all(axis=1) & (s >= 0).all(axis=1)
    ok &= ((raw == seps) | (seps == 0)).all(axis=1)
    ids = (r * 4 + s).astype(np.int16)
    for i in np.flatnonzero(~ok):  # another spelling ("10h", "a♠"), or not cards
        rows = texts[i].split("|")
        alone = setting_ids(tuple(rows[:3]), tuple(rows[3:]))  # type: ignore[arg-type]
        if alone is not None:
            ids[i], ok[i] = alone, True
    for half in (slice(0, 13), slice(13, 26)):  # no card twice in a setting
        sorted_ids = np.sort(ids[:, half], axis=1)
        ok &= (np.diff(sorted_ids, axis=1) != 0).all(axis=1)
    return ids[ok].astype(np.uint8), ok


def _row_ids(row: str, width: int) -> list[int] | None:
    import evaluator

    try:
        cards = [int(c) for c in evaluator.parse_cards(row)]
    except ValueError:
        return None
    return cards if len(cards) == width else None


def setting_ids(played: tuple[str, str, str], best: tuple[str, str, str]) -> list[int] | None:
    """The 26 card ids of the played setting then the advice's, front, middle, back, in
    any spelling ``evaluator.parse_cards`` reads; None when a row is not its number of
    cards (the report's own check that no card repeats is ``_cards``)."""
    out: list[int] = []
    for row, width in zip((*played, *best), _WIDTHS, strict=True):
        cards = _row_ids(row, width)
        if cards is None:
            return None
        out += cards
    return out


def copies_ids(
    played: tuple[str, str, str], best: tuple[str, str, str], extra_suits: str
) -> list[int] | None:
    """``setting_ids`` on the deck with ``extra_suits``: each setting's 13 cards read
    together (a card's second appearance is its second copy), so the ids are the deck's
    and a card more often than the deck holds it, or a row of the wrong size, is None."""
    import evaluator

    out: list[int] = []
    for rows in (played, best):
        try:
            ids = evaluator.parse_cards(" ".join(rows), extra_suits=extra_suits)
            sizes = [len(evaluator.parse_cards(r, extra_suits=extra_suits)) for r in rows]
        except ValueError:
            return None
        if sizes != [3, 5, 5] or len(ids) != 13:
            return None
        out += [int(c) for c in ids]
    return out


def _joined(ids: list[int]) -> str:
    """26 card ids as one joined hand, as capsa writes cards (``_cards`` reads it)."""
    from evaluator import format_card

    starts = (0, 3, 8, 13, 16, 21)
    return "|".join(
        " ".join(map(format_card, ids[at : at + w])) for at, w in zip(starts, _WIDTHS, strict=True)
    )


def _zeros(n: int) -> list[list[int]]:
    return [[0] * n for _ in SIDES]


def _pair_ranks(fronts: Any, paired: Any) -> int:
    """The sum of the ranks of the fronts' pairs (2 the deuce .. 14 the ace) over the
    fronts ``paired`` (card ids, ``(n, 3)``): the rank two cards share, or, for a front
    whose pair holds a joker, its highest other card's (the joker pairs with it)."""
    import numpy as np

    from evaluator.cards import faces_of, is_joker

    joker = np.asarray(is_joker(fronts))
    ranks = np.where(joker, -1, faces_of(fronts).astype(np.int16) // STANDARD_DECK.suits)
    same = np.where((ranks[:, 0] == ranks[:, 1]) | (ranks[:, 0] == ranks[:, 2]),
                    ranks[:, 0], ranks[:, 1])  # fmt: skip
    pair = np.where(joker.any(axis=1), ranks.max(axis=1), same)
    return int(pair[paired].sum()) + 2 * int(paired.sum())


@dataclass
class Style:
    """Running counts of the played settings and the advice's (see the module docstring).
    Index 0 of every pair is the player's, 1 the advice's. A hand waits (its rows as
    text, its fouled flag, its rows' win rates, the advice's policy) until ``CHUNK``
    hands are ranked together by ``flush``."""

    hands: int = 0
    against: Counter = field(default_factory=Counter)  # the advice's policy -> hands
    same_back: int = 0
    fouled: int = 0  # the player's (the advice never fouls)
    win_hands: int = 0  # hands whose record gives every row's win rate, both sides
    win_sum: list[list[float]] = field(default_factory=lambda: [[0.0] * 3 for _ in SIDES])
    front: list[list[int]] = field(default_factory=lambda: _zeros(len(FRONT_CLASSES)))
    back: list[list[int]] = field(default_factory=lambda: _zeros(len(_BACKS)))
    pair_rank_sum: list[int] = field(default_factory=lambda: [0, 0])  # ranks 2..14
    stronger: list[list[int]] = field(default_factory=lambda: _zeros(3))  # [side][row]
    _texts: list[str] = field(default_factory=list, repr=False)
    _policies: list[str] = field(default_factory=list, repr=False)
    _fouled: array = field(default_factory=lambda: array("B"), repr=False)
    _wins: array = field(default_factory=lambda: array("d"), repr=False)  # 6 a hand
    #: Hands of a deck with added suits wait apart, as the deck's ids (26 a hand), with
    #: their policies, fouls and win rates: (ids, policy, fouled, wins).
    _copies: list[tuple[list[int], str, bool, list[float]]] = field(
        default_factory=list, repr=False
    )
    copies: bool = False  # a hand of a deck with added suits was counted

    def add(self, h: Hand) -> None:
        """Count a record: only one whose advice and play are both settings."""
        p = h.played
        if p is None or h.action != "play" or p.action != "play":
            return
        extra = record_deck(h.setup[0], h.setup[2], h.hand)
        if extra:
            ids = copies_ids(p.rows, h.best, extra)
            if ids is not None:
                wins = [_NAN if w is None else w for w in (*p.wins, *h.wins)]
                self._copies.append((ids, h.setup[1], p.fouled, wins))
                if len(self._copies) >= CHUNK:
                    self.flush()
            return
        text = "|".join((*p.rows, *h.best))
        if len(text) != _TEXT or text.count("|") != 5:  # not as capsa writes cards
            ids = setting_ids(p.rows, h.best)
            if ids is None:
                return
            text = _joined(ids)
        self._texts.append(text)
        self._policies.append(h.setup[1])
        self._fouled.append(p.fouled)
        if None in p.wins or None in h.wins:
            self._wins.extend([_NAN if w is None else w for w in (*p.wins, *h.wins)])
        else:
            self._wins.extend(p.wins)
            self._wins.extend(h.wins)
        if len(self._texts) >= CHUNK:
            self.flush()

    def flush(self) -> None:
        """Rank the waiting hands' rows together and count them."""
        if self._copies:
            self._flush_copies()
        if not self._texts:
            return
        import numpy as np

        cards, ok = _cards(self._texts)
        wins = np.frombuffer(self._wins, np.float64).reshape(-1, 6)[ok]
        self._count(self._policies, ok, np.frombuffer(self._fouled, np.uint8), wins)
        self._texts, self._policies = [], []
        self._fouled, self._wins = array("B"), array("d")
        self._rank(cards)

    def _flush_copies(self) -> None:
        """Rank the waiting hands of a deck with added suits or jokers on the copies scale."""
        import numpy as np

        from evaluator.cards import is_joker

        ids, policies, fouled, wins = zip(*self._copies, strict=True)
        self._copies = []
        self.copies = True
        ok = np.ones(len(ids), np.bool_)
        self._count(list(policies), ok, np.array(fouled, np.uint8), np.array(wins, np.float64))
        cards = np.array(ids, np.int16)
        jokers = "XX" if is_joker(cards).any() else ""
        self._rank(cards, "hc" + jokers)  # both added suits (and jokers): every deck's ids

    def _count(self, policies: list[str], ok: Any, fouled: Any, wins: Any) -> None:
        """Count the hands ``ok`` of a flush: their advice's policies, fouls, win rates
        (``wins``: the ``ok`` hands' six a hand)."""
        import numpy as np

        self.hands += int(ok.sum())
        for pol, good in zip(policies, ok, strict=True):
            if good:  # bounded: at most MAX_POLICIES names, whatever the records say
                named = pol in self.against or len(self.against) < MAX_POLICIES
                self.against[pol if named else "others"] += 1
        self.fouled += int(fouled[ok].sum())
        known = ~np.isnan(wins).any(axis=1)
        self.win_hands += int(known.sum())
        for side in range(2):
            for j in range(3):
                self.win_sum[side][j] += float(wins[known, 3 * side + j].sum())

    def _rank(self, cards: Any, extra_suits: str = "") -> None:
        """Count the classes and the stronger rows of hands' cards (``(n, 26)`` ids; with
        ``extra_suits``, the deck's ids, ranked on the copies scale)."""
        import numpy as np

        import evaluator
        from evaluator.decks import get_deck_tables

        category = (get_deck_tables() if extra_suits else evaluator.get_tables()).category
        strengths = []
        for side in range(2):
            at = 13 * side
            front = np.asarray(evaluator.evaluate3(cards[:, at : at + 3], extra_suits))
            middle = np.asarray(evaluator.evaluate5(cards[:, at + 3 : at + 8], extra_suits))
            back = np.asarray(evaluator.evaluate5(cards[:, at + 8 : at + 13], extra_suits))
            strengths.append((front, middle, back))
            for cat, k in zip(*np.unique(category[front], return_counts=True), strict=True):
                self.front[side][_FRONT_INDEX[int(cat)]] += int(k)
            for cat, k in zip(*np.unique(category[back], return_counts=True), strict=True):
                self.back[side][int(cat)] += int(k)
            self.pair_rank_sum[side] += _pair_ranks(cards[:, at : at + 3], category[front] == 1)
        faces = evaluator.faces_of(cards)  # a copy: its face; a joker: the jokers' face
        backs = np.sort(faces[:, 8:13], axis=1), np.sort(faces[:, 21:26], axis=1)
        self.same_back += int((backs[0] == backs[1]).all(axis=1).sum())
        for j in range(3):
            self.stronger[0][j] += int((strengths[0][j] > strengths[1][j]).sum())
            self.stronger[1][j] += int((strengths[1][j] > strengths[0][j]).sum())

    def to_dict(self) -> dict[str, Any] | None:
        """The JSON shape of the report's ``style`` (docs/report.md, "Your style"), or
        None when no hand had both settings. Call ``flush`` first."""
        if not self.hands:
            return None
        return {
            "hands": self.hands,
            "against": ", ".join(pol for pol, _k in self.against.most_common()),
            "same_back": self.same_back,
            "win_hands": self.win_hands,
            **{name: self._side(side) for side, name in enumerate(SIDES)},
        }

    def _backs(self) -> tuple[str, ...]:
        """The back classes counted: five of a kind too once a deck with added suits was
        read (the JSON of a 52-card report is what it was)."""
        return _BACKS if self.copies else BACK_CLASSES

    def _side(self, side: int) -> dict[str, Any]:
        pairs = self.front[side][1]
        backs = self._backs()
        wins = [
            round(self.win_sum[side][j] / self.win_hands, 6) if self.win_hands else None
            for j in range(3)
        ]
        return {
            "front": {
                **dict(zip(FRONT_CLASSES, self.front[side], strict=True)),
                "pair_rank_mean": round(self.pair_rank_sum[side] / pairs, 6) if pairs else None,
                "win_mean": wins[0],
            },
            "middle": {"win_mean": wins[1]},
            "back": {
                **dict(zip(backs, self.back[side][: len(backs)], strict=True)),
                "win_mean": wins[2],
            },
            "stronger": dict(zip(ROWS, self.stronger[side], strict=True)),
            "fouled": self.fouled if side == 0 else 0,
        }


# --------------------------------------------------------------------------- the table


class StyleRow(NamedTuple):
    """One line of the style table: ``key`` (the page's ``data-key``), what it is, the
    player's value and the advice's, and both as shown."""

    key: str
    label: str
    played: float | int | None
    advice: float | int | None
    played_text: str
    advice_text: str


_CLASS_NAMES = {
    "high_card": N_("high card"),
    "pair": N_("pair"),
    "two_pair": N_("two pair"),
    "three_of_a_kind": N_("trips"),
    "straight": N_("straight"),
    "flush": N_("flush"),
    "full_house": N_("full house"),
    "four_of_a_kind": N_("four of a kind"),
    "straight_flush": N_("straight flush"),
    "five_of_a_kind": N_("five of a kind"),
}
_STRONGER = {
    "front": N_("the stronger front"),
    "middle": N_("the stronger middle"),
    "back": N_("the stronger back"),
}
_WINS = {
    "front": N_("front wins, mean"),
    "middle": N_("middle wins, mean"),
    "back": N_("back wins, mean"),
}


def against(s: dict[str, Any]) -> str:
    """What the player is compared with, in the language in use: "the field" when every
    advice was the field's own setting, else "the advice (mc)"."""
    if s["against"] == "field":
        return _("the field")
    return _("the advice ({policy})").format(policy=s["against"])


def _count(k: int, n: int) -> str:
    return f"{k:,} ({k / n:z.1%})"


def _value(x: float | None, spec: str) -> str:
    return "—" if x is None else format(x, spec)


def style_rows(s: dict[str, Any]) -> list[StyleRow]:
    """The lines of the style table (``Report.to_dict()["style"]``), in the order they
    are shown, for the terminal and the page alike: the front's classes, the rank of its
    pair and each row's mean win rate, the back's classes (those either side played),
    the stronger row, the fouls. Labels in the language in use."""
    n, you, them = s["hands"], s["played"], s["advice"]
    out: list[StyleRow] = []

    def counts(key: str, label: str, a: int, b: int) -> None:
        out.append(StyleRow(key, label, a, b, _count(a, n), _count(b, n)))

    def means(key: str, label: str, a: float | None, b: float | None, spec: str) -> None:
        out.append(StyleRow(key, label, a, b, _value(a, spec), _value(b, spec)))

    front_you, front_them = you["front"], them["front"]
    counts(
        "front_pair_or_better",
        _("front: pair or better"),
        front_you["pair"] + front_you["three_of_a_kind"],
        front_them["pair"] + front_them["three_of_a_kind"],
    )
    for cls in FRONT_CLASSES:
        label = _("front: {hand}").format(hand=_(_CLASS_NAMES[cls]))
        counts(f"front_{cls}", label, front_you[cls], front_them[cls])
    means(
        "front_pair_rank",
        _("front pair's rank, mean (ace 14)"),
        front_you["pair_rank_mean"],
        front_them["pair_rank_mean"],
        ".1f",
    )
    for row in ROWS:
        means(f"{row}_win", _(_WINS[row]), you[row]["win_mean"], them[row]["win_mean"], "z.1%")
    for cls in _BACKS:
        if you["back"].get(cls) or them["back"].get(cls):
            label = _("back: {hand}").format(hand=_(_CLASS_NAMES[cls]))
            counts(f"back_{cls}", label, you["back"][cls], them["back"][cls])
    for row in ROWS:
        counts(f"stronger_{row}", _(_STRONGER[row]), you["stronger"][row], them["stronger"][row])
    counts("fouled", _("fouled"), you["fouled"], them["fouled"])
    return out


def style_note(s: dict[str, Any]) -> str:
    """The sentences under the table: how many hands, and which way the player keeps the
    front (by how often each front was the stronger of the two on the same hands, with
    how often it was a pair or better)."""
    n = s["hands"]
    hands = ngettext(
        "{n} hand where the advice and the play were both settings; the same back in {same}.",
        "{n} hands where the advice and the play were both settings; the same back in {same}.",
        n,
    ).format(n=f"{n:,}", same=f"{s['same_back']:,}")
    you, them = s["played"], s["advice"]
    a, b = you["stronger"]["front"], them["stronger"]["front"]
    if a < b:
        verdict = _(
            "You keep your front weaker than {against}: yours the stronger in {you_stronger} "
            "of the hands, theirs in {them_stronger}; pair or better in {you} against {them}."
        )
    elif a > b:
        verdict = _(
            "You keep your front stronger than {against}: yours the stronger in {you_stronger} "
            "of the hands, theirs in {them_stronger}; pair or better in {you} against {them}."
        )
    else:
        verdict = _(
            "Your front and {against}'s were the stronger equally often ({you_stronger} and "
            "{them_stronger} of the hands); pair or better in {you} against {them}."
        )
    pairs = [side["front"]["pair"] + side["front"]["three_of_a_kind"] for side in (you, them)]
    return (
        hands
        + " "
        + verdict.format(
            against=against(s),
            you_stronger=f"{a / n:z.0%}",
            them_stronger=f"{b / n:z.0%}",
            you=f"{pairs[0] / n:z.0%}",
            them=f"{pairs[1] / n:z.0%}",
        )
    )
