"""Rulesets: the ``Rules`` dataclass, the presets, and TOML ruleset files.

A ruleset is every setting that varies between tables (docs/rules.md#ruleset-files has every
key). ``Rules`` is frozen and hashable (tuples only, so it can key an ``lru_cache``) and checks
and normalises itself on construction: ``Rules(...)``, ``replace(...)``, ``rules_from_dict`` and
``load_rules`` all give checked values. Standard library only (``capsa --help`` imports it); the
vocabulary and value checks are in ``rule_values``, TOML in and out in ``ruleset_files``, the
ruleset for people in ``ruleset_text``.

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
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.engine.banker import check_banker, check_pair_cap
from solver.engine.errors import RulesError
from solver.engine.inputs import TooLarge, read_bounded
from solver.engine.options import MAX_RULESET_BYTES
from solver.engine.rule_values import (
    BIG_DECK_NATURALS,
    CODE_CARD_BOTH,
    DEFAULT_NATURALS,
    DEFAULT_PRESET,
    DEFAULT_ROYALTIES,
    FILE_KEYS,
    GAMEBINH_NATURALS,
    GAMEBINH_ROYALTIES,
    MAU_BINH_NATURALS,
    MAU_BINH_ROYALTIES,
    NATURAL_NAMES,
    NATURAL_TIES,
    PLAIN_KEYS,
    ROW_HANDS,
    ROWS,
    ROYAL_FLUSH_ROYALTIES,
    ROYALTY_HANDS,
    ROYALTY_MODES,
    SCORINGS,
    SHISANSHUI_NATURALS,
    SURRENDER_DEFAULTS,
    TWO_JOKERS_FOUL,
    WHEELS,
    check_choice,
    check_code_card,
    check_code_multiplier,
    check_deck,
    check_extra_suits,
    check_flag,
    check_foul_penalty,
    check_jokers,
    check_min_opponents,
    check_name,
    check_number,
    check_players,
    check_suit_order,
    check_surrender,
    check_whole_rows,
    check_wild,
    choices_text,
    default_surrender_cost,
    natural_line,
    natural_lines,
    royalty_line,
    royalty_lines,
    show,
    suggest,
)
from solver.engine.rules_serial import rules_digest, rules_to_dict
from solver.engine.ruleset_files import TOO_BIG, check_shape, ruleset_data, stdin_text
from solver.engine.table_shape import Deck, deck_of

__all__ = [
    "DEFAULT_NATURALS",
    "DEFAULT_PRESET",
    "DEFAULT_ROYALTIES",
    "FILE_KEYS",
    "MAU_BINH_NATURALS",
    "BIG_DECK_NATURALS",
    "NATURAL_NAMES",
    "PRESETS",
    "PRESET_GAMES",
    "ROWS",
    "ROYALTY_HANDS",
    "ROYAL_FLUSH_ROYALTIES",
    "Rules",
    "RulesError",
    "SHISANSHUI_NATURALS",
    "SURRENDER_DEFAULTS",
    "RulesLike",
    "default_surrender_cost",
    "load_rules",
    "preset",
    "rules_from_dict",
    "ruleset_data",
]


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
    royalty_replaces_row: bool = False
    natural_ties: str = "order"
    foul_penalty: float | None = None
    code_card: str | None = None
    code_card_multiplier: float = 2
    #: Suits dealt twice: "" (52 cards), "h" (65) or "hc" (78); see ``deck``.
    extra_suits: str = ""
    #: Jokers added to the deck: 0, 1 or 2 (docs/rules.md#jokers).
    jokers: int = 0
    #: A row equal to the next one fouls the hand (docs/rules.md#equal-rows-foul).
    equal_rows_foul: bool = False
    #: A fouled hand pays its flat foul penalty to a declared natural too
    #: (docs/rules.md#flat-foul-penalty).
    foul_pays_naturals: bool = False
    #: A pair whose players both hold the code card: multiplied "once" or "neither"
    #: (docs/rules.md#the-code-card).
    code_card_both: str = "once"
    #: A rank held six times or more counts as two three of a kinds in ``four_trips``
    #: (eight times: two quads in ``three_quads``; docs/rules.md#ranks-held-six-times).
    split_ranks: bool = False
    #: The foul check takes a front of both jokers for a front "above_aces" or for three
    #: of a kind of its "third_card" (docs/rules.md#jokers).
    two_jokers_foul: str = "above_aces"
    #: One seat is the banker; every other player settles with it only
    #: (docs/rules.md#the-bankers-table).
    banker: bool = False
    #: Units a scoop adds to the pair's result, after the scoop multiplier (水庄: 1).
    scoop_bonus: float = 0
    #: The most a pair's rows, scoop and naturals settle for either way (None: no cap).
    pair_cap: float | None = None

    def __post_init__(self) -> None:
        def put(field: str, value: Any) -> None:
            object.__setattr__(self, field, value)

        check_name(self.name)
        put("scoring", check_choice(self.scoring, "scoring", SCORINGS))
        multiplier = check_number(
            self.scoop_multiplier, "scoop_multiplier", minimum=1, what="a number >= 1", units=True
        )
        put("scoop_multiplier", multiplier)
        put("royalty_mode", check_choice(self.royalty_mode, "royalty_mode", ROYALTY_MODES))
        put("one_royalty_per_hand", check_flag(self.one_royalty_per_hand, "one_royalty_per_hand"))
        put("royalties_dealt", check_flag(self.royalties_dealt, "royalties_dealt"))
        put("suit_order", check_suit_order(self.suit_order))
        put("wheel", check_choice(self.wheel, "wheel", WHEELS))
        put("surrender_cost", check_surrender(self.surrender_cost, self.scoring))
        put("players", check_players(self.players))
        put("extra_suits", check_extra_suits(self.extra_suits))
        check_deck(self.extra_suits, self.players)
        put("jokers", check_jokers(self.jokers))
        check_wild(self.jokers, self.suit_order, self.royalties_dealt)
        need, hr = "a number >= 1 (1: no home run)", self.home_run_multiplier
        hr = check_number(hr, "home_run_multiplier", minimum=1, what=need, units=True)
        put("home_run_multiplier", hr)
        put("home_run_min_opponents", check_min_opponents(self.home_run_min_opponents))
        put("royalty_replaces_row", check_flag(self.royalty_replaces_row, "royalty_replaces_row"))
        put("natural_ties", check_choice(self.natural_ties, "natural_ties", NATURAL_TIES))
        put("foul_penalty", check_foul_penalty(self.foul_penalty))
        put("equal_rows_foul", check_flag(self.equal_rows_foul, "equal_rows_foul"))
        put("foul_pays_naturals", check_flag(self.foul_pays_naturals, "foul_pays_naturals"))
        put("code_card", check_code_card(self.code_card))
        put("code_card_multiplier", check_code_multiplier(self.code_card_multiplier))
        put("code_card_both", check_choice(self.code_card_both, "code_card_both", CODE_CARD_BOTH))
        put("split_ranks", check_flag(self.split_ranks, "split_ranks"))
        xx = check_choice(self.two_jokers_foul, "two_jokers_foul", TWO_JOKERS_FOUL)
        put("two_jokers_foul", xx)
        check_whole_rows(self.royalty_replaces_row, self.royalty_mode, self.royalties_dealt)
        put("banker", check_flag(self.banker, "banker"))
        put("scoop_bonus", check_number(self.scoop_bonus, "scoop_bonus", units=True))
        put("pair_cap", check_pair_cap(self.pair_cap))
        check_banker(self.banker, self.home_run, self.pair_cap, self.foul_pays_naturals)

        put("royalties", royalty_lines(self.royalties))
        put("naturals", natural_lines(self.naturals))

    # ---- queries -----------------------------------------------------------------

    @property
    def deck(self) -> Deck:
        """The deck ``extra_suits`` and ``jokers`` deal (solver.engine.table_shape)."""
        return deck_of(self.extra_suits, self.jokers)

    @property
    def deck_code(self) -> str:
        """The deck as the card functions name it (evaluator.cards): ``extra_suits`` and
        an ``X`` per joker; ``""`` for the 52-card deck."""
        return self.extra_suits + "X" * self.jokers

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
    def code_factor(self) -> float:
        """What a pair settlement of the code card's holder is multiplied by (1: none;
        docs/rules.md#the-code-card)."""
        return 1.0 if self.code_card is None else float(self.code_card_multiplier)

    @property
    def code_factor_both(self) -> float:
        """What a pair is multiplied by when both its players hold the code card (a copy
        each): ``code_factor`` under ``code_card_both = "once"``, 1 under ``"neither"``."""
        return self.code_factor if self.code_card_both == "once" else 1.0

    def pair_code_factor(self, holds_a: bool, holds_b: bool) -> float:
        """What the pair of two players is multiplied by, given who holds the code card."""
        if holds_a and holds_b:
            return self.code_factor_both
        return self.code_factor if holds_a or holds_b else 1.0

    @property
    def splits_ranks(self) -> bool:
        """Whether ``split_ranks`` can change anything: it is on and a hand can hold six
        cards of a rank (78 cards, or added suits and jokers)."""
        return self.split_ranks and self.deck.of_a_rank + self.jokers >= 6

    @property
    def two_jokers_third(self) -> bool:
        """Whether the foul check takes a front of both jokers for three of its third
        card: ``two_jokers_foul = "third_card"``, two jokers and a ``front.two_jokers``
        line (else no front is one, or it is checked as the row it makes)."""
        paid = any((r, h) == ("front", "two_jokers") for r, h, _ in self.royalties)
        return self.two_jokers_foul == "third_card" and self.jokers == 2 and paid

    @property
    def home_run(self) -> bool:
        """Whether the home run is on (docs/rules.md#home-run): a multiplier above 1."""
        return self.home_run_multiplier != 1

    # ---- serialisation -----------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """TOML-shaped, JSON-serialisable dict; ``rules_from_dict`` reads it back
        (``solver.engine.rules_serial.rules_to_dict`` says how)."""
        return rules_to_dict(self)

    def digest(self) -> str:
        """Stable 16-hex-digit digest of the game-defining settings (all but ``name``;
        ``solver.engine.rules_serial.rules_digest`` says which enter it, and when)."""
        return rules_digest(self)


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
        home_run_min_opponents=2,
        royalty_replaces_row=True,
        natural_ties="payout",
        code_card_both="neither",
        split_ranks=True,
        two_jokers_foul="third_card",
    ),
    "mau-binh": _preset(
        "mau-binh",
        scoring="per-row",
        scoop_multiplier=2,
        surrender_cost=None,
        royalties=GAMEBINH_ROYALTIES,
        naturals=GAMEBINH_NATURALS,
        wheel="low",
        royalty_replaces_row=True,
        natural_ties="difference",
        foul_penalty=6,
        equal_rows_foul=True,
        foul_pays_naturals=True,
    ),
    "mau-binh-rules": _preset(
        "mau-binh-rules",
        scoring="per-row",
        scoop_multiplier=2,
        surrender_cost=None,
        royalties=MAU_BINH_ROYALTIES,
        naturals=MAU_BINH_NATURALS,
        wheel="second",
        home_run_multiplier=2,
        home_run_min_opponents=2,
        royalty_replaces_row=True,
        natural_ties="payout",
        foul_penalty=3,
    ),
    "pusoy": _preset("pusoy", scoring="2-4", surrender_cost=2, suit_order="dchs"),
}
# 水庄 (docs/rules.md#the-shisanshui-banker-preset): 十三水 at a banker's table.
PRESETS["shisanshui-banker"] = dataclasses.replace(
    PRESETS["shisanshui"], name="shisanshui-banker", banker=True, scoop_multiplier=1,
    scoop_bonus=1, pair_cap=8, home_run_multiplier=1, home_run_min_opponents=3,
)  # fmt: skip

#: What players call the game each preset plays (the page's presets menu, ``capsa rules``).
PRESET_GAMES: dict[str, str] = {
    "chinese-1-6": "Chinese poker, 1-6",
    "chinese-2-4": "Chinese poker, 2-4",
    "per-row": "Chinese poker, a unit a row",
    "capsa": "Capsa Susun",
    "shisanshui": "十三水",
    "mau-binh": "Mậu Binh",
    "mau-binh-rules": "Mậu Binh (rule texts)",
    "pusoy": "Pusoy",
    "shisanshui-banker": "十三水, 水庄 (banker)",
}


def _preset_error(value: Any, key: str | None = None) -> RulesError:
    where = f"{key} " if key else ""
    return RulesError(
        f"unknown preset {where}{show(value)}"
        + suggest(str(value), PRESETS)
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
            f"{choices_text(ROWS)}, got {show(value)}"
        )
    rows: dict[str, list[tuple[str, str, Any]]] = {row: [] for row in ROWS}
    for row, hand, units in base.royalties:
        rows[row].append((row, hand, units))
    for row, table in value.items():
        if row not in ROWS:
            raise RulesError(
                f"unknown royalty row 'royalties.{row}': rows are {choices_text(ROWS)}"
                + suggest(row, ROWS)
            )
        if table is False:
            rows[row] = []
        elif isinstance(table, Mapping):
            rows[row] = [royalty_line(row, hand, units) for hand, units in table.items()]
        else:
            raise RulesError(
                f"royalties.{row} must be a table of hand = units (hands: "
                f"{', '.join(ROW_HANDS[row])}) or false, got {show(table)}"
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
            f"(names: {', '.join(NATURAL_NAMES)}), got {show(value)}"
        )
    return tuple(natural_line(name, units) for name, units in value.items())


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
        raise RulesError(f"a ruleset must be a table of settings, got {show(data)}")
    check_shape(data)
    for key in data:
        if key not in FILE_KEYS:
            raise RulesError(
                f"unknown key '{key}'"
                + suggest(key, FILE_KEYS)
                + f"; valid keys are {', '.join(FILE_KEYS)}"
            )
    base = _get_preset(data.get("base", DEFAULT_PRESET), "base")
    fields: dict[str, Any] = {f.name: getattr(base, f.name) for f in dataclasses.fields(Rules)}
    fields["name"] = data.get("name", name)
    for key in PLAIN_KEYS:
        if key in data:
            fields[key] = data[key]
    # Check scoring first: the surrender default depends on it.
    scoring = check_choice(fields["scoring"], "scoring", SCORINGS)
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
        f"unknown preset {show(name)}"
        + suggest(str(name), PRESETS)
        + f"; presets are {', '.join(PRESETS)}, or give a .toml ruleset file"
    )


#: What names a ruleset, for ``load_rules``: a ``Rules``, a preset's name, a TOML ruleset
#: file, ``-`` (a TOML ruleset on stdin), or None (the default preset).
RulesLike = Rules | str | os.PathLike[str] | None


def load_rules(name_or_path: RulesLike = None) -> Rules:
    """The ruleset for a preset name, a TOML ruleset file, ``-`` (a TOML ruleset on stdin,
    named ``stdin``, at most ``MAX_RULESET_BYTES``), or a Rules (returned as is): the one
    reader of rulesets, called once at each front end.

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
    if name_or_path == "-":
        try:
            return rules_from_dict(ruleset_data(stdin_text()), name="stdin")
        except RulesError as exc:
            raise RulesError(f"stdin: {exc}") from None
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
        raw = read_bounded(path, MAX_RULESET_BYTES, f"ruleset file '{path}'", TOO_BIG)
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

