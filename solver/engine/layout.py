"""Every layout constant of the solver, in one place.

Kernels and wrappers both read these names; nothing else writes the numbers down. The
kernels read them as compile-time constants, so ``evaluator._jit`` ties the numba cache
to this file's contents (a change here recompiles every kernel). Only the standard
library and ``evaluator.tables`` are imported: ``capsa --help`` imports this module.

See docs/architecture.md for where each array with this layout is built and read.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from evaluator.tables import NSTRENGTH as NSTRENGTH  # re-exported: the kernels read it here
from solver.engine.options import (  # noqa: F401 - re-exported: one place to look
    MAX_DEALS,
    MAX_SAMPLES,
    MAX_TIMEOUT,
    MAX_UNITS,
    POLICIES,
    Policy,
)
from solver.engine.rules import ROWS as ROWS  # the rows, in the order of every array

#: The files solver's kernels are built from (their modules, and this one, whose constants
#: they read as compile-time values): registered with the evaluator's kernel cache, so
#: that a change to any of them starts a fresh cache (``evaluator._jit``).
KERNEL_SOURCES: dict[str, Path] = {
    "solver/engine/layout.py": Path(__file__),
    "solver/engine/_kernels.py": Path(__file__).with_name("_kernels.py"),
    "solver/strategy/_kernels.py": Path(__file__).parent.parent / "strategy" / "_kernels.py",
}

# ----------------------------------------------------------------------- rows and keys

ROW_SIZES: tuple[int, int, int] = (3, 5, 5)
#: Row keys are ``strength' * 4 + suit component`` (see solver.engine.settlement).
NKEY = NSTRENGTH * 4
#: Subsets of a sorted 13-card hand, and the partitions into front + two fives.
NSUB5 = 1287
NSUB3 = 286
NPART = 36036

# ----------------------------------------------------------------------- ruleset params
# ``CompiledRules.params`` (float64[NPARAMS]) carries the scalar settings to the kernels.

P_SCORING = 0  # a SCORING_* code
P_MULT = 1  # scoop multiplier
P_MODE = 2  # a MODE_* code
P_ONE = 3  # one royalty per hand (0/1)
P_ROY = 4  # royalties on (0/1)
P_HR_MULT = 5  # home run multiplier (1: off; docs/rules.md#home-run)
P_HR_MIN = 6  # opponents a home run needs (1..3)
P_RR = 7  # royalty replaces the row's unit (0/1; docs/rules.md#a-bonus-row-is-its-whole-value)
P_FOUL_ON = 8  # a flat foul penalty (0/1; docs/rules.md#flat-foul-penalty)
P_FOUL = 9  # the flat foul penalty's units
P_NAT_PAYOUT = 10  # natural ties: 0 order, 1 payout, 2 difference (docs/rules.md#natural-ties)
P_CODE = 11  # the code card's multiplier (1: no code card; docs/rules.md#the-code-card)
P_XX_KEY = 12  # the key of a front holding both jokers (-1: no such line; docs/rules.md#jokers)
P_XX_ROY = 13  # that front's royalty (the ``front.two_jokers`` line)
P_EQ_FOUL = 14  # equal rows foul (0/1; RuleArrays.eq_top, docs/rules.md#equal-rows-foul)
P_FOUL_NAT = 15  # a fouled hand pays its flat penalty to a natural too (0/1)
P_CODE_BOTH = 16  # a pair whose players both hold the code card is multiplied by this
#: the foul check takes a front of both jokers for three of its third card (0/1:
#: ``two_jokers_foul = "third_card"``, docs/rules.md#jokers); its key is P_XX_KEY still
P_XX_FOUL = 17
P_SCOOP_ADD = 18  # units a scoop adds after the multiplier (docs/rules.md#the-bankers-table)
P_CAP = 19  # the most a pair settles for either way (inf: no cap)
NPARAMS = 20

SCORING_PER_ROW, SCORING_16, SCORING_24 = 0, 1, 2
SCORING_CODES: dict[str, int] = {"per-row": SCORING_PER_ROW, "1-6": SCORING_16, "2-4": SCORING_24}
MODE_WINNER, MODE_CANCEL, MODE_ALWAYS = 0, 1, 2
MODE_CODES: dict[str, int] = {"winner": MODE_WINNER, "cancel": MODE_CANCEL, "always": MODE_ALWAYS}

# ----------------------------------------------------------------------- naturals
# A ruleset's naturals become kernel codes (strongest first, in the ruleset's order).
# docs/rules.md#naturals has every one of them. The codes live only in the kernels (a
# ruleset and its digest name naturals by name); the first four keep their old numbers.

DRAGON, THREE_STRAIGHTS, SIX_PAIRS, THREE_FLUSHES = 0, 1, 2, 3
ROYAL_DRAGON, TWELVE_ROYALS, THREE_STRAIGHT_FLUSHES, THREE_QUADS = 4, 5, 6, 7
ALL_HIGH, ALL_LOW, ONE_COLOUR, TWELVE_ONE_COLOUR = 8, 9, 10, 11
FOUR_TRIPS, FIVE_PAIRS_TRIPS, TWELVE_ROYALS_AND_ONE = 12, 13, 14
# Only decks with added suits (and jokers, issue #32) make these (docs/rules.md#added-suits).
SIX_OF_A_KIND, SEVEN_OF_A_KIND, EIGHT_OF_A_KIND, TWO_FIVES_TRIPS = 15, 16, 17, 18
# Four trips and three quads counting a rank once for every three (four) cards of it:
# what ``four_trips`` and ``three_quads`` compile to under ``split_ranks``
# (docs/rules.md#ranks-held-six-times); no ruleset names them.
FOUR_TRIPS_SPLIT, THREE_QUADS_SPLIT = 19, 20
#: The codes ``split_ranks`` compiles the naturals to.
SPLIT_CODES: dict[int, int] = {FOUR_TRIPS: FOUR_TRIPS_SPLIT, THREE_QUADS: THREE_QUADS_SPLIT}
#: Every natural a ruleset may list, by its ``[naturals]`` name, in the order of
#: docs/rules.md's table (``solver.engine.rules.NATURAL_NAMES`` is the same order).
NATURAL_CODES: dict[str, int] = {
    "royal_dragon": ROYAL_DRAGON,
    "dragon": DRAGON,
    "twelve_royals": TWELVE_ROYALS,
    "twelve_royals_and_one": TWELVE_ROYALS_AND_ONE,
    "three_straight_flushes": THREE_STRAIGHT_FLUSHES,
    "three_quads": THREE_QUADS,
    "all_high": ALL_HIGH,
    "all_low": ALL_LOW,
    "one_colour": ONE_COLOUR,
    "twelve_one_colour": TWELVE_ONE_COLOUR,
    "four_trips": FOUR_TRIPS,
    "five_pairs_trips": FIVE_PAIRS_TRIPS,
    "six_pairs": SIX_PAIRS,
    "three_flushes": THREE_FLUSHES,
    "three_straights": THREE_STRAIGHTS,
    "eight_of_a_kind": EIGHT_OF_A_KIND,
    "seven_of_a_kind": SEVEN_OF_A_KIND,
    "two_fives_trips": TWO_FIVES_TRIPS,
    "six_of_a_kind": SIX_OF_A_KIND,
}

#: What every row of a split must be for three straights, three flushes and three
#: straight flushes (the kernel that finds their best split takes one of these).
ROWS_STRAIGHT, ROWS_FLUSH, ROWS_STRAIGHT_FLUSH = 0, 1, 2


class NaturalName(NamedTuple):
    """A natural as players call it: the English name capsa shows, and the name at
    十三水 tables (Chinese) and at Mậu Binh tables (Vietnamese), None where capsa knows
    of none (docs/rules.md#natural-names)."""

    english: str
    chinese: str | None
    vietnamese: str | None

    @property
    def local(self) -> tuple[str, ...]:
        """The local names capsa knows, Chinese first."""
        return tuple(n for n in (self.chinese, self.vietnamese) if n)

    def label(self) -> str:
        """``English (local, local)``, e.g. ``Dragon (一条龙, sảnh rồng)``."""
        return f"{self.english} ({', '.join(self.local)})" if self.local else self.english


#: Each natural's names (docs/rules.md#natural-names), beside its kernel code.
NATURAL_NAMES_SHOWN: dict[str, NaturalName] = {
    "royal_dragon": NaturalName("Royal dragon", "至尊清龙", "rồng cuốn"),
    "dragon": NaturalName("Dragon", "一条龙", "sảnh rồng"),
    "twelve_royals": NaturalName("Twelve royals", None, None),
    "twelve_royals_and_one": NaturalName("Twelve royals and one", "十二皇族", None),
    "three_straight_flushes": NaturalName("Three straight flushes", "三同花顺", None),
    "three_quads": NaturalName("Three quads", "三分天下", None),
    "all_high": NaturalName("All high", "全大", None),
    "all_low": NaturalName("All low", "全小", None),
    "one_colour": NaturalName("One colour", "凑一色", "13 lá đồng màu"),
    "twelve_one_colour": NaturalName("Twelve of one colour", None, "12 lá đồng màu"),
    "four_trips": NaturalName("Four trips", "四套三条", None),
    "five_pairs_trips": NaturalName("Five pairs and trips", "五对三条", "năm đôi một sám"),
    "six_pairs": NaturalName("Six pairs", "六对半", "lục phé bôn"),
    "three_flushes": NaturalName("Three flushes", "三同花", "ba thùng"),
    "three_straights": NaturalName("Three straights", "三顺子", "ba sảnh"),
    "eight_of_a_kind": NaturalName("Eight of a kind", "八同", None),
    "seven_of_a_kind": NaturalName("Seven of a kind", "七同", None),
    "two_fives_trips": NaturalName("Two fives and trips", "三皇五帝", None),
    "six_of_a_kind": NaturalName("Six of a kind", "六六大顺", None),
}


def natural_label(name: str) -> str:
    """How capsa shows natural ``name`` to people: ``Six pairs (六对半, lục phé bôn)``;
    an unknown name is shown as it is."""
    shown = NATURAL_NAMES_SHOWN.get(name)
    return shown.label() if shown is not None else name.replace("_", " ")


# ----------------------------------------------------------------------- policies


#: Kernel codes of the policies that set hands without sampling (``safe``: an opponent
#: style, docs/opponents.md#safe).
POLICY_GREEDY, POLICY_FIELD, POLICY_SAFE = 0, 1, 2
