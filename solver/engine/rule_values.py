"""The vocabulary of a ruleset (its keys, rows, hands, naturals, suits, presets' defaults)
and the checks of each value, each raising ``RulesError`` naming the key.

Standard library only: ``capsa --help`` imports it (through ``solver.engine.rules``).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from typing import Any

from solver.engine.errors import RulesError
from solver.engine.inputs import quote
from solver.engine.table_shape import (
    DECKS,
    MAX_OPPONENTS,
    MIN_OPPONENTS,
    MIN_PLAYERS,
    TABLE_MAX_PLAYERS,
    Deck,
    deck_of,
    extra_suit_ids,
)

# --------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------

SCORINGS: tuple[str, ...] = ("per-row", "1-6", "2-4")
ROYALTY_MODES: tuple[str, ...] = ("winner", "cancel", "always")
WHEELS: tuple[str, ...] = ("low", "second")
#: How two declared naturals settle (docs/rules.md#natural-ties): the earlier in the
#: ruleset's list collects its payout, or the larger payout does (equal payouts tie), or
#: the larger payout collects the difference of the two.
NATURAL_TIES: tuple[str, ...] = ("order", "payout", "difference")
#: What the code card does to a pair whose two players both hold a copy (a deck that adds
#: the code card's suit, docs/rules.md#the-code-card): multiply it once, or not at all
#: (atom-chen/ShiSanShuiServer multiplies only when exactly one player holds it).
CODE_CARD_BOTH: tuple[str, ...] = ("once", "neither")
#: What the foul check takes a front of both jokers for (对鬼冲前, a ruleset paying
#: ``front.two_jokers`` with two jokers, docs/rules.md#jokers): a front just above three
#: aces, or three of a kind of its third card (atom-chen/ShiSanShuiServer).
TWO_JOKERS_FOUL: tuple[str, ...] = ("above_aces", "third_card")
ROWS: tuple[str, ...] = ("front", "middle", "back")
ROYALTY_HANDS: tuple[str, ...] = (
    "three_of_a_kind",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
    "five_of_a_kind",
    "two_jokers",
)
#: Hands that may carry a royalty in each row: the front only makes three of a kind, and
#: holds both jokers (``two_jokers``, 对鬼冲前: docs/rules.md#jokers). ``five_of_a_kind``
#: happens only with added suits or jokers (docs/rules.md#added-suits).
ROW_HANDS: dict[str, tuple[str, ...]] = {
    "front": ("three_of_a_kind", "two_jokers"),
    "middle": ROYALTY_HANDS[1:-1],
    "back": ROYALTY_HANDS[1:-1],
}
#: Every natural a ruleset may list in ``[naturals]`` (docs/rules.md#naturals), in the
#: order of that page's table; a ruleset's own order is its strength order.
NATURAL_NAMES: tuple[str, ...] = (
    "royal_dragon",
    "dragon",
    "twelve_royals",
    "twelve_royals_and_one",
    "three_straight_flushes",
    "three_quads",
    "all_high",
    "all_low",
    "one_colour",
    "twelve_one_colour",
    "four_trips",
    "five_pairs_trips",
    "six_pairs",
    "three_flushes",
    "three_straights",
    "eight_of_a_kind",
    "seven_of_a_kind",
    "two_fives_trips",
    "six_of_a_kind",
)
#: The naturals only decks with added suits make (six or more cards of one rank, two
#: five of a kinds; seven and eight of a kind with jokers too: docs/rules.md#added-suits).
BIG_DECK_NATURALS: tuple[str, ...] = NATURAL_NAMES[-4:]
SUIT_LETTERS = "cdhs"
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}

#: Surrender cost per opponent when a ruleset does not set one, by scoring system.
SURRENDER_DEFAULTS: dict[str, int | None] = {"1-6": 3, "2-4": 2, "per-row": None}

DEFAULT_ROYALTIES: tuple[tuple[str, str, int], ...] = (
    ("front", "three_of_a_kind", 3),
    ("middle", "full_house", 2),
    ("middle", "four_of_a_kind", 8),
    ("middle", "straight_flush", 10),
    ("back", "four_of_a_kind", 4),
    ("back", "straight_flush", 5),
)
ROYAL_FLUSH_ROYALTIES: tuple[tuple[str, str, int], ...] = (
    ("middle", "royal_flush", 14),
    ("back", "royal_flush", 7),
)
DEFAULT_NATURALS: tuple[tuple[str, int], ...] = (
    ("dragon", 13),
    ("three_straights", 3),
    ("six_pairs", 3),
    ("three_flushes", 3),
)
#: The special hands of 十三水 as atom-chen/ShiSanShuiServer pays them, strongest first:
#: by payout, then that server's own order (docs/rules.md#the-shisanshui-preset).
SHISANSHUI_NATURALS: tuple[tuple[str, int], ...] = (
    ("royal_dragon", 104),
    ("dragon", 52),
    ("four_trips", 52),
    ("three_quads", 52),
    ("twelve_royals_and_one", 26),
    ("three_straight_flushes", 26),
    ("all_high", 6),
    ("all_low", 6),
    ("one_colour", 6),
    ("five_pairs_trips", 6),
    ("six_pairs", 6),
    ("three_straights", 6),
    ("three_flushes", 6),
)
#: The tới trắng of Mậu Binh as the comment above gameBinh's ``soSanhBai`` pays them: 3
#: each, in its order (the ``mau-binh-rules`` preset, docs/rules.md#the-mau-binh-rules-preset).
MAU_BINH_NATURALS: tuple[tuple[str, int], ...] = (
    ("dragon", 3),
    ("one_colour", 3),
    ("twelve_one_colour", 3),
    ("three_flushes", 3),
    ("three_straights", 3),
    ("six_pairs", 3),
)
#: Mậu Binh's row bonuses ("ăn chi") as the comment above gameBinh's ``soSanhBai`` gives
#: them (the ``mau-binh-rules`` preset): each a row's whole value, the default table's numbers.
MAU_BINH_ROYALTIES: tuple[tuple[str, str, int], ...] = DEFAULT_ROYALTIES
#: The mậu binh (tới trắng) as gameBinh's live code pays them outside Tính Át rooms
#: (``getNumEatBinh``: sảnh rồng 64, the others 32), in its order
#: (docs/rules.md#the-mau-binh-preset).
GAMEBINH_NATURALS: tuple[tuple[str, int], ...] = (
    ("dragon", 64),
    ("three_flushes", 32),
    ("three_straights", 32),
    ("six_pairs", 32),
)
#: The rows' whole values as gameBinh's live code pays them (``getNumEatChi``): xám chi
#: cuối 6, cù lũ giữa 4, tứ quý 16 / 8, thùng phá sảnh 20 / 10 (middle / back).
GAMEBINH_ROYALTIES: tuple[tuple[str, str, int], ...] = (
    ("front", "three_of_a_kind", 6),
    ("middle", "full_house", 4),
    ("middle", "four_of_a_kind", 16),
    ("middle", "straight_flush", 20),
    ("back", "four_of_a_kind", 8),
    ("back", "straight_flush", 10),
)
DEFAULT_PRESET = "chinese-1-6"

#: Keys a ruleset file (or ``rules_from_dict``) accepts at the top level.
FILE_KEYS: tuple[str, ...] = (
    "base",
    "name",
    "scoring",
    "scoop_multiplier",
    "royalty_mode",
    "one_royalty_per_hand",
    "royalties_dealt",
    "suit_order",
    "wheel",
    "surrender_cost",
    "players",
    "extra_suits",
    "jokers",
    "home_run_multiplier",
    "home_run_min_opponents",
    "royalty_replaces_row",
    "natural_ties",
    "foul_penalty",
    "equal_rows_foul",
    "foul_pays_naturals",
    "code_card",
    "code_card_multiplier",
    "code_card_both",
    "split_ranks",
    "two_jokers_foul",
    "banker",
    "scoop_bonus",
    "pair_cap",
    "royalties",
    "naturals",
)

#: The keys a file sets by value (the others are handled one by one below).
PLAIN_KEYS: tuple[str, ...] = tuple(
    k for k in FILE_KEYS if k not in ("base", "name", "surrender_cost", "royalties", "naturals")
)

DIGEST_VERSION = "capsa-rules-1"


def default_surrender_cost(scoring: str) -> int | None:
    """The surrender cost a ruleset gets when it does not set one (docs/rules.md#surrender)."""
    return SURRENDER_DEFAULTS[scoring]


# --------------------------------------------------------------------------------------
# Value checks (each raises RulesError naming the key)
# --------------------------------------------------------------------------------------


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a likely typo, else ``""``."""
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def choices_text(choices: Iterable[str]) -> str:
    return ", ".join(f"'{c}'" for c in choices)


def show(value: Any) -> str:
    """A value as it would be written in TOML, for messages (one short line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) >= 10**15:
        return f"a {len(str(abs(value)))}-digit number"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list | tuple):
        return "an array"
    return repr(value)


def _max_units() -> int:
    from solver.engine.options import MAX_UNITS

    return MAX_UNITS


def check_number(
    value: Any, key: str, *, minimum: float = 0.0, what: str = "", units: bool = False
) -> int | float:
    """A finite real number >= minimum; integral floats become int. ``units``: a payout,
    at most ``layout.MAX_UNITS`` (so that every sum of payouts stays finite and exact)."""
    need = what or f"a number >= {minimum:g}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RulesError(f"{key} must be {need}, got {show(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise RulesError(f"{key} must be {need}, got {show(value)}")
    if value < minimum:
        raise RulesError(f"{key} must be {need}, got {show(value)}")
    if units and value > _max_units():
        raise RulesError(
            f"{key} must be at most {_max_units():,} (capsa's limit on payouts), got {show(value)}"
        )
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def check_choice(value: Any, key: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise RulesError(f"{key} must be one of {choices_text(choices)}, got {show(value)}")
    if value not in choices:
        raise RulesError(
            f"{key} must be one of {choices_text(choices)}, got {show(value)}"
            + suggest(value, choices)
        )
    return value


def check_flag(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{key} must be true or false, got {show(value)}")
    return value


def check_suit_order(value: Any) -> str | None:
    key = "suit_order"
    need = '"none" or four distinct suit letters from c d h s, strongest first (e.g. "shcd")'
    if value is None or value is False:
        return None
    if not isinstance(value, str):
        raise RulesError(f"{key} must be {need}, got {show(value)}")
    text = value.strip().lower()
    if text == "none":
        return None
    if len(text) != 4 or set(text) != set(SUIT_LETTERS):
        raise RulesError(f"{key} must be {need}, got {show(value)}")
    return text


#: What a ruleset's name may not hold: it names files (``capsa train --ship`` writes
#: ``solver/data/field-NAME.npz``), and a name is a name, never a path.
_NOT_IN_NAMES = ("/", "\\", "\0")


def check_name(value: Any) -> str:
    """``name``: a non-empty string that is a name, not a path (no ``/``, ``\\`` or NUL,
    and not ``.`` or ``..``), and text a file can hold (no lone surrogate: a ruleset
    given as a Python dict could carry one, which no TOML file or file name can)."""
    if not isinstance(value, str) or not value.strip():
        raise RulesError(f"name must be a non-empty string, got {show(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise RulesError(
            f"name {show(value)} is not text: it holds a lone surrogate, which no file can"
        ) from None
    if any(c in value for c in _NOT_IN_NAMES) or value.strip() in (".", ".."):
        raise RulesError(
            f"name {show(value)} is a path: a ruleset's name is a name, without / or \\ "
            "(it names the ruleset's files)"
        )
    return value


def check_players(value: Any) -> int:
    """``players``: 2 to 6 (the biggest deck's hands; ``check_deck`` asks for the deck)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not MIN_PLAYERS <= value <= TABLE_MAX_PLAYERS
    ):
        raise RulesError(
            f"players must be an integer from {MIN_PLAYERS} to {TABLE_MAX_PLAYERS}, "
            f"got {show(value)}"
        )
    return value


def check_extra_suits(value: Any) -> str:
    """``extra_suits``: the suits dealt twice, in the order the table's app adds them:
    ``""``, ``"h"`` (加一色) or ``"hc"`` (加二色) as atom-chen's script_thirteen deals
    them, ``"c"``, ``"ch"`` as another copy of it does, up to two of c, h and s
    (docs/rules.md#added-suits); ``false`` or ``"none"`` is ``""``."""
    if value is False or (isinstance(value, str) and value.strip().lower() == "none"):
        return ""
    text = value.strip().lower() if isinstance(value, str) else None
    if text is None or extra_suit_ids(text) is None:
        why = (
            " (the diamonds' second copies are the jokers' card ids: a deck adds c, h or s)"
            if text is not None and "d" in text
            else ""
        )
        raise RulesError(
            'extra_suits must be "" (52 cards), one suit dealt twice ("h": the hearts, 65 '
            'cards) or two ("hc": hearts and clubs, 78 cards), of c, h and s in the order '
            f"the app adds them, got {show(value)}{why}"
        )
    return text


def check_jokers(value: Any) -> int:
    """``jokers``: 0, 1 or 2 jokers (鬼牌) added to the deck (docs/rules.md#jokers)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2:
        raise RulesError(f"jokers must be 0, 1 or 2 (jokers added to the deck), got {show(value)}")
    return value


def check_wild(jokers: int, suit_order: str | None, royalties_dealt: bool) -> None:
    """Jokers play with neither a suit order nor royalties for the dealt cards: no source
    deals them together, and a joker's suit and the dealt combinations it would make are
    left undefined (docs/rules.md#jokers). One line naming both keys."""
    if jokers and suit_order is not None:
        raise RulesError(
            f"jokers = {jokers} with suit_order = {show(suit_order)}: capsa values jokers "
            'without a suit order only (set suit_order = "none" or jokers = 0)'
        )
    if jokers and royalties_dealt:
        raise RulesError(
            f"jokers = {jokers} with royalties_dealt = true: capsa pays jokers' rows, not "
            "the dealt cards (set royalties_dealt = false or jokers = 0)"
        )


def check_deck(extra_suits: str, players: int) -> Deck:
    """The deck of ``extra_suits`` when it deals ``players`` hands, else one line naming
    both keys."""
    deck = deck_of(extra_suits)
    if players > deck.most_players():
        fits = [k for k, d in DECKS.items() if d.most_players() >= players]
        bigger = [f'"{k}" ({DECKS[k].size} cards)' for k in fits]
        raise RulesError(
            f"players = {players} needs a bigger deck than extra_suits = \"{extra_suits}\" "
            f"({deck.size} cards, {deck.most_players()} players at most): set extra_suits = "
            + " or ".join(bigger)
        )
    return deck


def check_min_opponents(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not MIN_OPPONENTS <= value <= MAX_OPPONENTS
    ):
        raise RulesError(
            "home_run_min_opponents must be a whole number from "
            f"{MIN_OPPONENTS} to {MAX_OPPONENTS}, got {show(value)}"
        )
    return value


def check_foul_penalty(value: Any) -> int | float | None:
    """``foul_penalty``: false / "none" (a fouled hand is scooped) or a flat number of
    units a fouled hand pays each legal opponent (docs/rules.md#flat-foul-penalty)."""
    if value is None or value is False:
        return None
    if isinstance(value, str) and value.strip().lower() in ("none", "off", "false"):
        return None
    return check_number(
        value,
        "foul_penalty",
        what='a number of units >= 0, or false (or "none") for a fouled hand scooped',
        units=True,
    )


#: Card text as a ruleset names the code card: ranks and suits as cards are written
#: (docs/rules.md#the-code-card); the normal form is rank then suit letter, ``"8h"``.
_CODE_RANKS = "23456789TJQKA"
_CODE_SUITS = {"c": "c", "d": "d", "h": "h", "s": "s", "♣": "c", "♦": "d", "♥": "h", "♠": "s"}
#: The apps' code card (马牌), the eight of hearts.
DEFAULT_CODE_CARD = "8h"


def check_code_card(value: Any) -> str | None:
    """``code_card``: false / "none" (no code card), true (the apps' ``"8h"``) or one
    card's text (``"8h"``, ``"8H"``, ``"8♥"``, ``"10s"``) -> ``"8h"`` form, or None."""
    if value is None or value is False:
        return None
    if value is True:
        return DEFAULT_CODE_CARD
    need = 'one card, as "8h" (rank 2-9 T J Q K A, suit c d h s), true ("8h") or false'
    if not isinstance(value, str):
        raise RulesError(f"code_card must be {need}, got {show(value)}")
    text = value.strip()
    if text.lower() in ("none", "off", "false"):
        return None
    rank, suit = (text[:2], text[2:]) if text.startswith("10") else (text[:1], text[1:])
    rank = "T" if rank == "10" else rank.upper()
    suit = _CODE_SUITS.get(suit.replace("\ufe0f", "").lower(), "")
    if len(rank) != 1 or rank not in _CODE_RANKS or not suit:
        raise RulesError(f"code_card must be {need}, got {show(value)}")
    return rank + suit


def check_whole_rows(whole: bool, mode: str, dealt: bool) -> None:
    """``royalty_replaces_row`` with the royalty keys it cannot go with (one line naming
    both keys)."""
    if whole and mode == "always":
        raise RulesError(
            'royalty_replaces_row = true needs royalty_mode "winner" or "cancel", '
            "not \"always\" (a row's whole value goes to the row's winner)"
        )
    if whole and dealt:
        raise RulesError(
            "royalty_replaces_row = true cannot go with royalties_dealt = true "
            "(dealt cards are paid apart from the rows)"
        )


def check_code_multiplier(value: Any) -> int | float:
    """``code_card_multiplier``: a finite number above 0."""
    need = "a finite number > 0"
    multiplier = check_number(value, "code_card_multiplier", what=need, units=True)
    if multiplier == 0:
        raise RulesError(f"code_card_multiplier must be {need}, got 0")
    return multiplier


def code_card_id(card: str) -> int:
    """The card id (rank * 4 + suit, suits c d h s) of a ``check_code_card`` text."""
    return _CODE_RANKS.index(card[0]) * 4 + "cdhs".index(card[1])


def check_surrender(value: Any, scoring: str) -> int | float | None:
    key = "surrender_cost"
    if value is None or value is False:
        return None
    if isinstance(value, str) and value.strip().lower() in ("none", "off", "false"):
        return None
    if value is True:
        cost = SURRENDER_DEFAULTS[scoring]
        if cost is None:
            raise RulesError(
                f"{key} = true has no default under {scoring} scoring; give a number of units"
            )
        return cost
    return check_number(
        value,
        key,
        what='a number of units >= 0, or false (or "none") for no surrender',
        units=True,
    )


def royalty_line(row: Any, hand: Any, units: Any) -> tuple[str, str, int | float]:
    if not isinstance(row, str) or row not in ROWS:
        raise RulesError(
            f"unknown royalty row 'royalties.{row}': rows are {choices_text(ROWS)}"
            + suggest(row, ROWS)
        )
    key = f"royalties.{row}.{hand}"
    if not isinstance(hand, str) or hand not in ROYALTY_HANDS:
        raise RulesError(
            f"unknown royalty hand '{key}': hands are {choices_text(ROW_HANDS[row])}"
            + suggest(hand, ROYALTY_HANDS)
        )
    if hand not in ROW_HANDS[row]:
        if hand in ROW_HANDS["front"]:
            why = f"{hand} is paid in the front row only"
        else:
            why = f"the front row pays only 'three_of_a_kind' and 'two_jokers', not '{hand}'"
        raise RulesError(f"bad royalty '{key}': {why}")
    return row, hand, check_number(units, key, what="a number of units >= 0", units=True)


def natural_line(name: Any, units: Any) -> tuple[str, int | float]:
    if not isinstance(name, str) or name not in NATURAL_NAMES:
        raise RulesError(
            f"unknown natural 'naturals.{name}'"
            + suggest(name, NATURAL_NAMES)
            + f"; valid names are {', '.join(NATURAL_NAMES)}"
        )
    return name, check_number(units, f"naturals.{name}", what="a number of units >= 0", units=True)


def fmt_units(x: float | int | None) -> str:
    if x is None:
        return "none"
    return f"{x:g}" if isinstance(x, float) else str(x)


def royalty_lines(value: Any) -> tuple[tuple[str, str, int | float], ...]:
    """``royalties``: (row, hand, units) lines, each checked (``royalty_line``), none twice,
    in the order of the rows and of ``ROYALTY_HANDS``."""
    if isinstance(value, Mapping | str) or not isinstance(value, Iterable):
        raise RulesError(
            f"royalties must be a tuple of (row, hand, units) lines, got {show(value)}"
        )
    lines: dict[tuple[str, str], int | float] = {}
    for line in value:
        if not isinstance(line, tuple | list) or len(line) != 3:
            raise RulesError(f"royalties must hold (row, hand, units) lines, got {show(line)}")
        row, hand, units = royalty_line(*line)
        if (row, hand) in lines:
            raise RulesError(f"duplicate royalty 'royalties.{row}.{hand}'")
        lines[row, hand] = units
    order = {(r, h): (ROWS.index(r), ROYALTY_HANDS.index(h)) for r, h in lines}
    return tuple((r, h, lines[r, h]) for r, h in sorted(lines, key=order.__getitem__))


def natural_lines(value: Any) -> tuple[tuple[str, int | float], ...]:
    """``naturals``: (name, units) lines, each checked (``natural_line``), none twice, in
    the order given (a ruleset's order is its strength order)."""
    if isinstance(value, Mapping | str) or not isinstance(value, Iterable):
        raise RulesError(f"naturals must be a tuple of (name, units) lines, got {show(value)}")
    nats: list[tuple[str, int | float]] = []
    for nat in value:
        if not isinstance(nat, tuple | list) or len(nat) != 2:
            raise RulesError(f"naturals must hold (name, units) lines, got {show(nat)}")
        name, units = natural_line(*nat)
        if any(name == n for n, _ in nats):
            raise RulesError(f"duplicate natural 'naturals.{name}'")
        nats.append((name, units))
    return tuple(nats)
