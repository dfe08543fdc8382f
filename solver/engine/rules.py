"""Rulesets: the ``Rules`` dataclass, the presets, and TOML ruleset files.

A ruleset is every setting that varies between tables (docs/rules.md: settling two
players, naturals, surrender, table size, presets; every key is in
docs/rules.md#ruleset-files). ``Rules`` is a frozen, hashable dataclass (tuples
only, no dicts), so it can key an ``functools.lru_cache``. It validates and normalises
itself on construction, so ``Rules(...)``, ``dataclasses.replace(...)``,
``rules_from_dict(...)`` and ``load_rules(...)`` all give checked values.

This module only uses the standard library: it is imported by ``capsa --help``.

Normal forms (so that equal rulesets compare, hash and digest equal):

* numbers: ``bool`` is rejected, integral floats become ``int`` (``2.0`` -> ``2``),
  NaN and infinities are rejected; a payout (royalty line, natural, surrender cost,
  scoop or home run multiplier) above ``solver.engine.layout.MAX_UNITS`` is rejected;
* ``suit_order``: ``None`` or four distinct lower-case suit letters, strongest first;
* ``royalties``: ``(row, hand, units)`` sorted front, middle, back and, within a row, in
  the order of ``ROYALTY_HANDS``; a zero line is kept (``royal_flush = 0`` is not the
  same as no royal flush line, which falls back to the straight flush line);
* ``naturals``: ``(name, units)`` in strength order, strongest first (the order given).
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import math
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.engine.errors import InputError
from solver.engine.inputs import TooLarge, quote, read_bounded, visible
from solver.engine.options import MAX_RULESET_BYTES, MAX_RULESET_DEPTH, MAX_RULESET_KEYS

__all__ = [
    "DEFAULT_NATURALS",
    "DEFAULT_PRESET",
    "DEFAULT_ROYALTIES",
    "NATURAL_NAMES",
    "MAU_BINH_NATURALS",
    "PRESETS",
    "PRESET_GAMES",
    "ROWS",
    "ROYALTY_HANDS",
    "Rules",
    "RulesError",
    "SHISANSHUI_NATURALS",
    "SURRENDER_DEFAULTS",
    "default_surrender_cost",
    "describe_rules",
    "load_rules",
    "preset",
    "rules_from_dict",
    "rules_summary",
    "to_toml",
]


class RulesError(InputError):
    """A ruleset that cannot be built: the message is one line and names the key."""


# --------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------

SCORINGS: tuple[str, ...] = ("per-row", "1-6", "2-4")
ROYALTY_MODES: tuple[str, ...] = ("winner", "cancel", "always")
WHEELS: tuple[str, ...] = ("low", "second")
ROWS: tuple[str, ...] = ("front", "middle", "back")
ROYALTY_HANDS: tuple[str, ...] = (
    "three_of_a_kind",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
#: Hands that may carry a royalty in each row: the front only makes three of a kind.
ROW_HANDS: dict[str, tuple[str, ...]] = {
    "front": ("three_of_a_kind",),
    "middle": ROYALTY_HANDS[1:],
    "back": ROYALTY_HANDS[1:],
}
#: Every natural a ruleset may list in ``[naturals]`` (docs/rules.md#naturals), in the
#: order of that page's table; a ruleset's own order is its strength order.
NATURAL_NAMES: tuple[str, ...] = (
    "royal_dragon",
    "dragon",
    "twelve_royals",
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
)
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
#: The special hands of the common 十三水 apps, strongest first, with their payouts
#: (docs/rules.md#the-shisanshui-preset).
SHISANSHUI_NATURALS: tuple[tuple[str, int], ...] = (
    ("royal_dragon", 108),
    ("dragon", 36),
    ("twelve_royals", 24),
    ("three_straight_flushes", 22),
    ("three_quads", 20),
    ("all_high", 15),
    ("all_low", 12),
    ("one_colour", 10),
    ("four_trips", 6),
    ("five_pairs_trips", 5),
    ("six_pairs", 4),
    ("three_flushes", 3),
    ("three_straights", 3),
)
#: The tới trắng of Mậu Binh, strongest first (docs/rules.md#the-mau-binh-preset).
MAU_BINH_NATURALS: tuple[tuple[str, int], ...] = (
    ("royal_dragon", 100),
    ("dragon", 50),
    ("five_pairs_trips", 10),
    ("six_pairs", 8),
    ("three_flushes", 8),
    ("three_straights", 8),
)
#: Mậu Binh's row bonuses ("ăn chi", docs/rules.md#the-mau-binh-preset): twice the
#: default table's.
MAU_BINH_ROYALTIES: tuple[tuple[str, str, int], ...] = tuple(
    (row, hand, 2 * units) for row, hand, units in DEFAULT_ROYALTIES
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
    "home_run_multiplier",
    "home_run_min_opponents",
    "royalties",
    "naturals",
)

#: The keys a file sets by value (the others are handled one by one below).
_PLAIN_KEYS: tuple[str, ...] = tuple(
    k for k in FILE_KEYS if k not in ("base", "name", "surrender_cost", "royalties", "naturals")
)

_DIGEST_VERSION = "capsa-rules-1"


def default_surrender_cost(scoring: str) -> int | None:
    """The surrender cost a ruleset gets when it does not set one (docs/rules.md#surrender)."""
    return SURRENDER_DEFAULTS[scoring]


# --------------------------------------------------------------------------------------
# Value checks (each raises RulesError naming the key)
# --------------------------------------------------------------------------------------


def _suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a likely typo, else ``""``."""
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _choices(choices: Iterable[str]) -> str:
    return ", ".join(f"'{c}'" for c in choices)


def _show(value: Any) -> str:
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


def _number(
    value: Any, key: str, *, minimum: float = 0.0, what: str = "", units: bool = False
) -> int | float:
    """A finite real number >= minimum; integral floats become int. ``units``: a payout,
    at most ``layout.MAX_UNITS`` (so that every sum of payouts stays finite and exact)."""
    need = what or f"a number >= {minimum:g}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RulesError(f"{key} must be {need}, got {_show(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise RulesError(f"{key} must be {need}, got {_show(value)}")
    if value < minimum:
        raise RulesError(f"{key} must be {need}, got {_show(value)}")
    if units and value > _max_units():
        raise RulesError(
            f"{key} must be at most {_max_units():,} (capsa's limit on payouts), got {_show(value)}"
        )
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value


def _choice(value: Any, key: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise RulesError(f"{key} must be one of {_choices(choices)}, got {_show(value)}")
    if value not in choices:
        raise RulesError(
            f"{key} must be one of {_choices(choices)}, got {_show(value)}"
            + _suggest(value, choices)
        )
    return value


def _flag(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{key} must be true or false, got {_show(value)}")
    return value


def _suit_order(value: Any) -> str | None:
    key = "suit_order"
    need = '"none" or four distinct suit letters from c d h s, strongest first (e.g. "shcd")'
    if value is None or value is False:
        return None
    if not isinstance(value, str):
        raise RulesError(f"{key} must be {need}, got {_show(value)}")
    text = value.strip().lower()
    if text == "none":
        return None
    if len(text) != 4 or set(text) != set(SUIT_LETTERS):
        raise RulesError(f"{key} must be {need}, got {_show(value)}")
    return text


def _players(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= 4:
        raise RulesError(f"players must be an integer from 2 to 4, got {_show(value)}")
    return value


def _min_opponents(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 3:
        raise RulesError(
            f"home_run_min_opponents must be a whole number from 1 to 3, got {_show(value)}"
        )
    return value


def _surrender(value: Any, scoring: str) -> int | float | None:
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
    return _number(
        value,
        key,
        what='a number of units >= 0, or false (or "none") for no surrender',
        units=True,
    )


def _royalty_line(row: Any, hand: Any, units: Any) -> tuple[str, str, int | float]:
    if not isinstance(row, str) or row not in ROWS:
        raise RulesError(
            f"unknown royalty row 'royalties.{row}': rows are {_choices(ROWS)}"
            + _suggest(row, ROWS)
        )
    key = f"royalties.{row}.{hand}"
    if not isinstance(hand, str) or hand not in ROYALTY_HANDS:
        raise RulesError(
            f"unknown royalty hand '{key}': hands are {_choices(ROW_HANDS[row])}"
            + _suggest(hand, ROYALTY_HANDS)
        )
    if hand not in ROW_HANDS[row]:
        if hand == "three_of_a_kind":
            why = "three_of_a_kind is paid in the front row only"
        else:
            why = f"the front row pays only 'three_of_a_kind', not '{hand}'"
        raise RulesError(f"bad royalty '{key}': {why}")
    return row, hand, _number(units, key, what="a number of units >= 0", units=True)


def _natural_line(name: Any, units: Any) -> tuple[str, int | float]:
    if not isinstance(name, str) or name not in NATURAL_NAMES:
        raise RulesError(
            f"unknown natural 'naturals.{name}'"
            + _suggest(name, NATURAL_NAMES)
            + f"; valid names are {', '.join(NATURAL_NAMES)}"
        )
    return name, _number(units, f"naturals.{name}", what="a number of units >= 0", units=True)


def _fmt(x: float | int | None) -> str:
    if x is None:
        return "none"
    return f"{x:g}" if isinstance(x, float) else str(x)


# --------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """One table's rules. Frozen and hashable; build with ``load_rules``.

    Field meanings follow docs/rules.md; see the module docstring for the normal forms.
    ``royalties`` lines are ``(row, hand, units)``; a ``royal_flush`` line is paid to a
    royal flush *instead of* the ``straight_flush`` line of that row, and without one a
    royal flush earns the straight flush line. ``naturals`` are ``(name, units)``,
    strongest first; ``()`` turns royalties or naturals off. ``royalties_dealt`` pays
    four of a kind and straight flushes for the 13 cards dealt rather than for the rows
    (docs/rules.md#royalties-for-dealt-cards). ``home_run_multiplier`` (1: off) and
    ``home_run_min_opponents`` are the home run (docs/rules.md#home-run), the one rule
    settled per table rather than per pair. The newer fields come last, so that
    positional construction of the older fields is unchanged.
    """

    name: str = DEFAULT_PRESET
    scoring: str = "1-6"
    scoop_multiplier: float = 1
    royalty_mode: str = "winner"
    one_royalty_per_hand: bool = False
    suit_order: str | None = None
    wheel: str = "low"
    surrender_cost: float | None = 3
    players: int = 4
    royalties: tuple[tuple[str, str, float], ...] = DEFAULT_ROYALTIES
    naturals: tuple[tuple[str, float], ...] = DEFAULT_NATURALS
    royalties_dealt: bool = False
    home_run_multiplier: float = 1
    home_run_min_opponents: int = 3

    def __post_init__(self) -> None:
        def put(field: str, value: Any) -> None:
            object.__setattr__(self, field, value)

        if not isinstance(self.name, str) or not self.name.strip():
            raise RulesError(f"name must be a non-empty string, got {_show(self.name)}")
        put("scoring", _choice(self.scoring, "scoring", SCORINGS))
        put(
            "scoop_multiplier",
            _number(
                self.scoop_multiplier,
                "scoop_multiplier",
                minimum=1,
                what="a number >= 1",
                units=True,
            ),
        )
        put("royalty_mode", _choice(self.royalty_mode, "royalty_mode", ROYALTY_MODES))
        put("one_royalty_per_hand", _flag(self.one_royalty_per_hand, "one_royalty_per_hand"))
        put("royalties_dealt", _flag(self.royalties_dealt, "royalties_dealt"))
        put("suit_order", _suit_order(self.suit_order))
        put("wheel", _choice(self.wheel, "wheel", WHEELS))
        put("surrender_cost", _surrender(self.surrender_cost, self.scoring))
        put("players", _players(self.players))
        put(
            "home_run_multiplier",
            _number(
                self.home_run_multiplier,
                "home_run_multiplier",
                minimum=1,
                what="a number >= 1 (1: no home run)",
                units=True,
            ),
        )
        put("home_run_min_opponents", _min_opponents(self.home_run_min_opponents))

        if isinstance(self.royalties, Mapping | str) or not isinstance(self.royalties, Iterable):
            raise RulesError(
                "royalties must be a tuple of (row, hand, units) lines, "
                f"got {_show(self.royalties)}"
            )
        lines: dict[tuple[str, str], int | float] = {}
        for line in self.royalties:
            if not isinstance(line, tuple | list) or len(line) != 3:
                raise RulesError(f"royalties must hold (row, hand, units) lines, got {_show(line)}")
            row, hand, units = _royalty_line(*line)
            if (row, hand) in lines:
                raise RulesError(f"duplicate royalty 'royalties.{row}.{hand}'")
            lines[row, hand] = units
        order = {(r, h): (ROWS.index(r), ROYALTY_HANDS.index(h)) for r, h in lines}
        put(
            "royalties",
            tuple((r, h, lines[r, h]) for r, h in sorted(lines, key=order.__getitem__)),
        )

        if isinstance(self.naturals, Mapping | str) or not isinstance(self.naturals, Iterable):
            raise RulesError(
                f"naturals must be a tuple of (name, units) lines, got {_show(self.naturals)}"
            )
        nats: list[tuple[str, int | float]] = []
        for line in self.naturals:
            if not isinstance(line, tuple | list) or len(line) != 2:
                raise RulesError(f"naturals must hold (name, units) lines, got {_show(line)}")
            name, units = _natural_line(*line)
            if any(name == n for n, _ in nats):
                raise RulesError(f"duplicate natural 'naturals.{name}'")
            nats.append((name, units))
        put("naturals", tuple(nats))

    # ---- queries -----------------------------------------------------------------

    def royalty(self, row: str, hand: str) -> float:
        """Units a row of this hand earns (0.0 when the table has no line for it).

        ``hand`` is a royalty hand name; spaces are read as underscores, so evaluator
        category names ("full house") work too. A ``royal_flush`` with no royal flush
        line in that row earns the ``straight_flush`` line.
        """
        hand = hand.replace(" ", "_")
        for r, h, units in self.royalties:
            if r == row and h == hand:
                return float(units)
        if hand == "royal_flush":
            return self.royalty(row, "straight_flush")
        return 0.0

    def royalty_table(self, row: str) -> dict[str, float]:
        """The royalty lines of one row as ``{hand: units}`` (a fresh dict)."""
        return {h: float(u) for r, h, u in self.royalties if r == row}

    def natural_units(self, name: str) -> float | None:
        """Payout of a natural, or None when this ruleset does not have it."""
        for n, units in self.naturals:
            if n == name:
                return float(units)
        return None

    @property
    def has_royalties(self) -> bool:
        return bool(self.royalties)

    @property
    def has_naturals(self) -> bool:
        return bool(self.naturals)

    @property
    def has_surrender(self) -> bool:
        return self.surrender_cost is not None

    @property
    def home_run(self) -> bool:
        """Whether the home run is on (docs/rules.md#home-run): a multiplier above 1."""
        return self.home_run_multiplier != 1

    # ---- serialisation -----------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """TOML-shaped, JSON-serialisable dict; ``rules_from_dict`` reads it back.

        Every key is present, so the dict does not depend on a base preset: off
        switches are ``false`` (TOML has no null), ``suit_order`` ``"none"``, and all
        three royalty rows are given (an empty row table means no royalties there).
        """
        royalties: dict[str, dict[str, float]] | bool
        if self.royalties:
            royalties = {row: {} for row in ROWS}
            for row, hand, units in self.royalties:
                royalties[row][hand] = units
        else:
            royalties = False
        return {
            "name": self.name,
            "scoring": self.scoring,
            "scoop_multiplier": self.scoop_multiplier,
            "royalty_mode": self.royalty_mode,
            "one_royalty_per_hand": self.one_royalty_per_hand,
            "royalties_dealt": self.royalties_dealt,
            "suit_order": self.suit_order if self.suit_order is not None else "none",
            "wheel": self.wheel,
            "surrender_cost": self.surrender_cost if self.surrender_cost is not None else False,
            "players": self.players,
            "home_run_multiplier": self.home_run_multiplier,
            "home_run_min_opponents": self.home_run_min_opponents,
            "royalties": royalties,
            "naturals": dict(self.naturals) if self.naturals else False,
        }

    def digest(self) -> str:
        """Stable 16-hex-digit digest of the game-defining settings (all but ``name``).

        Equal settings give equal digests whatever the name, field order in a file, or
        int/float spelling of a number; naturals' order is part of the game.
        ``royalties_dealt`` enters the payload only when it is true, so every ruleset
        without it keeps the digest it had before the key existed (the shipped field
        tables are keyed by digest). The home run enters it the same way, only when it
        is on (``home_run_multiplier`` above 1), with its minimum of opponents; off, the
        minimum changes nothing and is left out too.
        """
        payload = [
            _DIGEST_VERSION,
            self.scoring,
            self.scoop_multiplier,
            self.royalty_mode,
            self.one_royalty_per_hand,
            self.suit_order,
            self.wheel,
            self.surrender_cost,
            self.players,
            [list(line) for line in self.royalties],
            [list(line) for line in self.naturals],
        ]
        if self.royalties_dealt:
            payload.append({"royalties_dealt": True})
        if self.home_run:
            payload.append({"home_run": [self.home_run_multiplier, self.home_run_min_opponents]})
        text = json.dumps(payload, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _preset(name: str, **fields: Any) -> Rules:
    return Rules(name=name, **fields)


PRESETS: dict[str, Rules] = {
    "chinese-1-6": _preset("chinese-1-6", scoring="1-6", surrender_cost=3),
    "chinese-2-4": _preset("chinese-2-4", scoring="2-4", surrender_cost=2),
    "per-row": _preset(
        "per-row", scoring="per-row", surrender_cost=None, royalties=(), naturals=()
    ),
    "capsa": _preset("capsa", scoring="1-6", surrender_cost=3, royalties=(), suit_order="shcd"),
    "shisanshui": _preset(
        "shisanshui",
        scoring="per-row",
        scoop_multiplier=2,
        surrender_cost=None,
        naturals=SHISANSHUI_NATURALS,
        wheel="second",
        home_run_multiplier=2,
        home_run_min_opponents=3,
    ),
    "mau-binh": _preset(
        "mau-binh",
        scoring="per-row",
        scoop_multiplier=2,
        surrender_cost=None,
        royalties=MAU_BINH_ROYALTIES,
        naturals=MAU_BINH_NATURALS,
        wheel="second",
        home_run_multiplier=2,
        home_run_min_opponents=3,
    ),
    "pusoy": _preset("pusoy", scoring="2-4", surrender_cost=2, suit_order="dchs"),
}

#: What players call the game each preset plays (the page's presets menu, ``capsa rules``).
PRESET_GAMES: dict[str, str] = {
    "chinese-1-6": "Chinese poker, 1-6",
    "chinese-2-4": "Chinese poker, 2-4",
    "per-row": "Chinese poker, a unit a row",
    "capsa": "Capsa Susun",
    "shisanshui": "十三水",
    "mau-binh": "Mậu Binh",
    "pusoy": "Pusoy",
}


def _preset_error(value: Any, key: str | None = None) -> RulesError:
    where = f"{key} " if key else ""
    return RulesError(
        f"unknown preset {where}{_show(value)}"
        + _suggest(str(value), PRESETS)
        + f"; presets are {', '.join(PRESETS)}"
    )


def _get_preset(value: Any, key: str | None = None) -> Rules:
    if isinstance(value, str) and value.strip().lower() in PRESETS:
        return PRESETS[value.strip().lower()]
    raise _preset_error(value, key)


# --------------------------------------------------------------------------------------
# Building from a dict / a file
# --------------------------------------------------------------------------------------


def _royalties_from(value: Any, base: Rules) -> tuple[tuple[str, str, Any], ...]:
    if value is False:
        return ()
    if value is True:
        return DEFAULT_ROYALTIES
    if not isinstance(value, Mapping):
        raise RulesError(
            "royalties must be false, true (the default table) or a table of rows "
            f"{_choices(ROWS)}, got {_show(value)}"
        )
    rows: dict[str, list[tuple[str, str, Any]]] = {row: [] for row in ROWS}
    for row, hand, units in base.royalties:
        rows[row].append((row, hand, units))
    for row, table in value.items():
        if row not in ROWS:
            raise RulesError(
                f"unknown royalty row 'royalties.{row}': rows are {_choices(ROWS)}"
                + _suggest(row, ROWS)
            )
        if table is False:
            rows[row] = []
        elif isinstance(table, Mapping):
            rows[row] = [_royalty_line(row, hand, units) for hand, units in table.items()]
        else:
            raise RulesError(
                f"royalties.{row} must be a table of hand = units (hands: "
                f"{', '.join(ROW_HANDS[row])}) or false, got {_show(table)}"
            )
    return tuple(line for row in ROWS for line in rows[row])


def _naturals_from(value: Any) -> tuple[tuple[str, Any], ...]:
    if value is False:
        return ()
    if value is True:
        return DEFAULT_NATURALS
    if not isinstance(value, Mapping):
        raise RulesError(
            "naturals must be false, true (the default list) or a table of name = units "
            f"(names: {', '.join(NATURAL_NAMES)}), got {_show(value)}"
        )
    return tuple(_natural_line(name, units) for name, units in value.items())


def rules_from_dict(data: Mapping[str, Any], name: str = "custom") -> Rules:
    """Build Rules from a TOML-shaped mapping (the body of a ruleset file).

    ``base`` names the preset to start from (default ``chinese-1-6``); every other key
    overrides it. A ``name`` key, when present, wins over the ``name`` argument.

    A ruleset never passes for a preset it is not: when its name is a preset's (in any
    case), its rules must be exactly that preset's, and the preset itself is returned;
    otherwise it is a ``RulesError`` asking for another name. When
    ``scoring`` is given without ``surrender_cost``, the surrender cost becomes the
    default of the new scoring. A ``royalties`` row table replaces that row's whole
    table (other rows keep the base's); ``naturals`` replaces the whole list, in order.
    """
    if not isinstance(data, Mapping):
        raise RulesError(f"a ruleset must be a table of settings, got {_show(data)}")
    _check_shape(data)
    for key in data:
        if key not in FILE_KEYS:
            raise RulesError(
                f"unknown key '{key}'"
                + _suggest(key, FILE_KEYS)
                + f"; valid keys are {', '.join(FILE_KEYS)}"
            )
    base = _get_preset(data.get("base", DEFAULT_PRESET), "base")
    fields: dict[str, Any] = {f.name: getattr(base, f.name) for f in dataclasses.fields(Rules)}
    fields["name"] = data.get("name", name)
    for key in _PLAIN_KEYS:
        if key in data:
            fields[key] = data[key]
    # Check scoring first: the surrender default depends on it.
    scoring = _choice(fields["scoring"], "scoring", SCORINGS)
    if "surrender_cost" in data:
        fields["surrender_cost"] = data["surrender_cost"]
    elif "scoring" in data:
        fields["surrender_cost"] = SURRENDER_DEFAULTS[scoring]
    if "royalties" in data:
        fields["royalties"] = _royalties_from(data["royalties"], base)
    if "naturals" in data:
        fields["naturals"] = _naturals_from(data["naturals"])
    return _not_a_false_preset(Rules(**fields))


def _not_a_false_preset(rules: Rules) -> Rules:
    """``rules``, or the preset when it is one; a preset's name on other rules is an error."""
    preset = PRESETS.get(rules.name.strip().lower())
    if preset is None:
        return rules
    if rules.digest() != preset.digest():
        raise RulesError(
            f"name {rules.name!r} is a preset's, but these rules are not that preset's; "
            'give the ruleset its own name (name = "...")'
        )
    return preset


def _looks_like_path(text: str) -> bool:
    return (
        text.lower().endswith(".toml")
        or os.sep in text
        or (os.altsep is not None and os.altsep in text)
        or text.startswith(".")
    )


def preset(name: str) -> Rules:
    """The preset called ``name`` (case-insensitive), never a file: for callers that must
    not read paths they are given (the web API). RulesError as ``load_rules`` words it."""
    if isinstance(name, str) and name.strip().lower() in PRESETS:
        return PRESETS[name.strip().lower()]
    raise RulesError(
        f"unknown preset {_show(name)}"
        + _suggest(str(name), PRESETS)
        + f"; presets are {', '.join(PRESETS)}, or give a .toml ruleset file"
    )


def load_rules(name_or_path: Rules | str | os.PathLike[str] | None = None) -> Rules:
    """The ruleset for a preset name, a TOML ruleset file, or a Rules (returned as is).

    ``None`` gives the default preset (``chinese-1-6``). A string is a preset name
    (case-insensitive) if it is one, else a path; a file's Rules is named after the
    file's stem unless the file sets ``name``, and may not take a preset's name unless
    its rules are that preset's (see ``rules_from_dict``). Errors are ``RulesError`` with one line;
    errors from a file start with the file name.
    """
    if name_or_path is None:
        return PRESETS[DEFAULT_PRESET]
    if isinstance(name_or_path, Rules):
        return name_or_path
    if isinstance(name_or_path, str):
        if name_or_path.strip().lower() in PRESETS:
            return PRESETS[name_or_path.strip().lower()]
        if not _looks_like_path(name_or_path) and not os.path.exists(name_or_path):
            return preset(name_or_path)
    elif not isinstance(name_or_path, os.PathLike):
        raise RulesError(
            f"rules must be a preset name, a ruleset file path or Rules, got {name_or_path!r}"
        )
    path = Path(name_or_path)
    try:
        raw = read_bounded(path, MAX_RULESET_BYTES, f"ruleset file '{path}'", _TOO_BIG)
    except TooLarge as exc:
        raise RulesError(str(exc)) from None
    except FileNotFoundError:
        raise RulesError(f"ruleset file not found: '{path}'") from None
    except IsADirectoryError:
        raise RulesError(f"ruleset path is a directory, not a file: '{path}'") from None
    except OSError as exc:
        raise RulesError(f"cannot read ruleset file '{path}': {exc.strerror}") from None
    try:
        data = ruleset_data(raw.decode("utf-8"))
        return rules_from_dict(data, name=path.stem or path.name)
    except UnicodeDecodeError as exc:
        raise RulesError(
            f"{path.name}: not a UTF-8 text file (bad byte at offset {exc.start})"
        ) from None
    except RulesError as exc:
        raise RulesError(f"{path.name}: {exc}") from None


_TOO_BIG = "a ruleset is a few hundred bytes"


def ruleset_data(text: str) -> dict[str, Any]:
    """The table the text of a TOML ruleset holds, read within bounds (README "Limits"):
    at most ``MAX_RULESET_BYTES`` bytes (Python's TOML parser takes time that grows with
    the square of some inputs' size), tables and arrays nested at most
    ``MAX_RULESET_DEPTH`` deep, and at most ``MAX_RULESET_KEYS`` keys and items in all.
    ``RulesError`` (one line, no location: callers add theirs) otherwise, or when it is
    not TOML, or not text (a lone surrogate, as a JSON string may hold)."""
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end]
        raise RulesError(f"not text: holds a lone surrogate ({visible(bad)})") from None
    if size > MAX_RULESET_BYTES:
        raise RulesError(f"larger than {MAX_RULESET_BYTES:,} bytes: {_TOO_BIG}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise RulesError(_too_deep()) from None
    _check_shape(data)
    return data


#: The longest key a ruleset may hold (its keys are names such as three_of_a_kind).
_MAX_KEY = 64


def _check_shape(data: Any) -> None:
    """RulesError when ``data`` nests deeper than ``MAX_RULESET_DEPTH``, holds more than
    ``MAX_RULESET_KEYS`` keys and items, or a key longer than any ruleset's."""
    keys = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            for key in value:
                if not isinstance(key, str) or len(key) > _MAX_KEY:
                    raise RulesError(f"unknown key {quote(key)}: ruleset keys are short names")
            items = list(value.values())
        elif isinstance(value, list | tuple):
            items = list(value)
        else:
            continue
        if depth > MAX_RULESET_DEPTH:
            raise RulesError(_too_deep())
        keys += len(items)
        if keys > MAX_RULESET_KEYS:
            raise RulesError(
                f"more than {MAX_RULESET_KEYS} keys and items: a ruleset holds about 30"
            )
        stack.extend((v, depth + 1) for v in items)


def _too_deep() -> str:
    return (
        f"tables or arrays nested more than {MAX_RULESET_DEPTH} deep: a ruleset nests "
        "2 deep (royalties.front)"
    )


# --------------------------------------------------------------------------------------
# Display and export
# --------------------------------------------------------------------------------------

_SCORING_TEXT = {
    "per-row": "per-row (1 unit a row)",
    "1-6": "1-6 (1 unit a row, 3 more for a scoop)",
    "2-4": "2-4 (1 unit a row, 1 more for winning more rows)",
}
_WHEEL_TEXT = {
    "low": "low (A-2-3-4-5 is the lowest straight)",
    "second": "second (A-2-3-4-5 ranks just below T-J-Q-K-A)",
}
_MODE_TEXT = {
    "winner": "winner (paid by the loser of the row)",
    "cancel": "cancel (as winner; none when both rows earn one)",
    "always": "always (paid whoever wins the row)",
}


def rules_summary(r: Rules) -> str:
    """One line about a ruleset, as ``capsa rules`` lists the presets."""
    parts = [f"{r.scoring} scoring"]
    if r.scoop_multiplier != 1:
        parts.append(f"scoop x{r.scoop_multiplier:g}")
    if r.royalties:
        royal = " + royal flush" if any(h == "royal_flush" for _, h, _ in r.royalties) else ""
        parts.append(f"royalties{royal} ({r.royalty_mode})")
    else:
        parts.append("no royalties")
    parts.append("naturals" if r.naturals else "no naturals")
    parts.append("suits " + ">".join(r.suit_order) if r.suit_order else "no suit order")
    parts.append(f"wheel {r.wheel}")
    if r.home_run:
        parts.append(f"home run x{r.home_run_multiplier:g} ({r.home_run_min_opponents}+ opponents)")
    return ", ".join(parts)


def _home_run_text(rules: Rules) -> str:
    """The home run's two keys in one line (``home_run`` in ``describe_rules``)."""
    if not rules.home_run:
        return "off"
    m, low = _fmt(rules.home_run_multiplier), rules.home_run_min_opponents
    return f"x{m}: a player who scoops every opponent (at least {low}) collects {m}x from each"


def describe_rules(rules: Rules) -> list[tuple[str, str]]:
    """Human-readable ``(setting, value)`` rows for display (the CLI renders them).

    With naturals, a ``natural names`` row follows ``naturals``: one line a natural, its
    ruleset name and how players call it (docs/rules.md#natural-names). A preset has a
    ``game`` row after its name: what players call the game it plays (``PRESET_GAMES``).
    """
    if rules.royalties:
        parts = []
        for row in ROWS:
            lines = [f"{h} {_fmt(u)}" for r, h, u in rules.royalties if r == row]
            if lines:
                parts.append(f"{row} " + ", ".join(lines))
        royalties = "; ".join(parts)
    else:
        royalties = "off"
    if rules.suit_order:
        suits = (
            " > ".join(rules.suit_order)
            + " ("
            + ", ".join(SUIT_NAMES[s] for s in rules.suit_order)
            + ")"
        )
    else:
        suits = "none (equal rows tie)"
    naturals = (
        ", ".join(f"{n} {_fmt(u)}" for n, u in rules.naturals) + " (strongest first)"
        if rules.naturals
        else "off"
    )
    surrender = (
        f"{_fmt(rules.surrender_cost)} per opponent" if rules.surrender_cost is not None else "off"
    )
    names: list[tuple[str, str]] = []
    if rules.naturals:
        from solver.engine.layout import natural_label  # layout imports this module

        names = [
            ("natural names", "\n".join(f"{n}: {natural_label(n)}" for n, _ in rules.naturals))
        ]
    game = [("game", PRESET_GAMES[rules.name])] if PRESETS.get(rules.name) == rules else []
    return [
        ("name", rules.name),
        *game,
        ("scoring", _SCORING_TEXT[rules.scoring]),
        ("scoop_multiplier", _fmt(rules.scoop_multiplier)),
        ("royalties", royalties),
        ("royalty_mode", _MODE_TEXT[rules.royalty_mode]),
        ("one_royalty_per_hand", "yes" if rules.one_royalty_per_hand else "no"),
        (
            "royalties_dealt",
            "yes (four of a kind and straight flushes paid for the dealt 13 cards)"
            if rules.royalties_dealt
            else "no (paid for the rows)",
        ),
        ("naturals", naturals),
        *names,
        ("suit_order", suits),
        ("wheel", _WHEEL_TEXT[rules.wheel]),
        ("surrender_cost", surrender),
        ("players", f"{rules.players} ({rules.players - 1} opponents)"),
        ("home_run", _home_run_text(rules)),
        ("digest", rules.digest()),
    ]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    # JSON string escapes are TOML basic-string escapes; TOML also wants DEL escaped.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def to_toml(rules: Rules) -> str:
    """The ruleset as a complete TOML file; ``load_rules`` on it gives ``rules`` back."""
    data = rules.to_dict()
    out = [f"# capsa ruleset (digest {rules.digest()})"]
    tables = []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        else:
            out.append(f"{key} = {_toml_value(value)}")
    for key, value in tables:
        if key == "royalties":
            for row, table in value.items():
                out.append(f"\n[royalties.{row}]")
                out.extend(f"{h} = {_toml_value(u)}" for h, u in table.items())
        else:
            out.append(f"\n[{key}]")
            out.extend(f"{n} = {_toml_value(u)}" for n, u in value.items())
    return "\n".join(out) + "\n"
