"""Rulesets: presets, TOML files, validation messages, digests (solver/engine/rules.py)."""

from __future__ import annotations

import dataclasses
import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from solver.engine.rules import (
    DEFAULT_PRESET,
    PRESETS,
    Rules,
    RulesError,
    load_rules,
    rules_from_dict,
)
from solver.engine.ruleset_files import to_toml
from solver.engine.ruleset_text import describe_rules
from solver.engine.table_shape import STANDARD_DECK
from tests.earlier_presets import DIGESTS as EARLIER_DIGESTS
from tests.earlier_presets import earlier

DEFAULT_ROYALTIES = (
    ("front", "three_of_a_kind", 3),
    ("middle", "full_house", 2),
    ("middle", "four_of_a_kind", 8),
    ("middle", "straight_flush", 10),
    ("back", "four_of_a_kind", 4),
    ("back", "straight_flush", 5),
)
#: The royal flush lines of docs/rules.md's full example file (no preset has them).
ROYAL_LINES = (
    ("front", "three_of_a_kind", 3),
    ("middle", "full_house", 2),
    ("middle", "four_of_a_kind", 8),
    ("middle", "straight_flush", 10),
    ("middle", "royal_flush", 14),
    ("back", "four_of_a_kind", 4),
    ("back", "straight_flush", 5),
    ("back", "royal_flush", 7),
)
#: Mậu Binh's row values as cuongcanpro/capsaSusunNew's gameBinh pays them (each the
#: row's whole value): the default table's numbers (docs/rules.md#the-mau-binh-preset).
MAU_BINH_ROYALTIES = DEFAULT_ROYALTIES
#: gameBinh's live getNumEatChi (BinhGameLogic.cpp:482-556): 6, 4, 16, 20, 8, 10 in place of 1.
GAMEBINH_ROYALTIES = (
    ("front", "three_of_a_kind", 6),
    ("middle", "full_house", 4),
    ("middle", "four_of_a_kind", 16),
    ("middle", "straight_flush", 20),
    ("back", "four_of_a_kind", 8),
    ("back", "straight_flush", 10),
)
#: gameBinh's live getNumEatBinh (BinhGameLogic.cpp:1390-1401): sảnh rồng 64, the others 32.
GAMEBINH_NATURALS = (
    ("dragon", 64), ("three_flushes", 32), ("three_straights", 32), ("six_pairs", 32)
)  # fmt: skip
DEFAULT_NATURALS = (("dragon", 13), ("three_straights", 3), ("six_pairs", 3), ("three_flushes", 3))
SHISANSHUI_NATURALS = (
    ("royal_dragon", 104), ("dragon", 52), ("four_trips", 52), ("three_quads", 52),
    ("twelve_royals_and_one", 26), ("three_straight_flushes", 26), ("all_high", 6), ("all_low", 6),
    ("one_colour", 6), ("five_pairs_trips", 6), ("six_pairs", 6), ("three_straights", 6),
    ("three_flushes", 6),
)  # fmt: skip
MAU_BINH_NATURALS = (
    ("dragon", 3), ("one_colour", 3), ("twelve_one_colour", 3), ("three_flushes", 3),
    ("three_straights", 3), ("six_pairs", 3),
)  # fmt: skip
EXPECTED = {
    "chinese-1-6": dict(
        scoring="1-6",
        scoop_multiplier=1,
        royalty_mode="winner",
        one_royalty_per_hand=False,
        suit_order=None,
        wheel="low",
        surrender_cost=3,
        players=4,
        royalties=DEFAULT_ROYALTIES,
        naturals=DEFAULT_NATURALS,
        royalties_dealt=False,
    ),
    "chinese-2-4": dict(
        scoring="2-4",
        scoop_multiplier=1,
        royalty_mode="winner",
        one_royalty_per_hand=False,
        suit_order=None,
        wheel="low",
        surrender_cost=2,
        players=4,
        royalties=DEFAULT_ROYALTIES,
        naturals=DEFAULT_NATURALS,
        royalties_dealt=False,
    ),
    "per-row": dict(
        scoring="per-row",
        scoop_multiplier=1,
        royalty_mode="winner",
        one_royalty_per_hand=False,
        suit_order=None,
        wheel="low",
        surrender_cost=None,
        players=4,
        royalties=(),
        naturals=(),
        royalties_dealt=False,
    ),
    "capsa": dict(
        scoring="1-6",
        scoop_multiplier=1,
        royalty_mode="winner",
        one_royalty_per_hand=False,
        suit_order="shcd",
        wheel="low",
        surrender_cost=3,
        players=4,
        royalties=(),
        naturals=DEFAULT_NATURALS,
        royalties_dealt=False,
    ),
    "shisanshui": dict(
        scoring="per-row",
        scoop_multiplier=2,
        royalty_mode="winner",
        one_royalty_per_hand=False,
        suit_order=None,
        wheel="second",
        surrender_cost=None,
        players=4,
        royalties=DEFAULT_ROYALTIES,
        naturals=SHISANSHUI_NATURALS,
        royalties_dealt=False,
        home_run_multiplier=2,
        home_run_min_opponents=2,
        royalty_replaces_row=True,
        natural_ties="payout",
        code_card_both="neither",  # lib_game.lua: only one holder multiplies
        split_ranks=True,  # lib_sp_card_logic.lua: six of a rank, two trips
        two_jokers_foul="third_card",  # core/player.lua: X X 5c fouls as three fives
    ),
    "mau-binh": dict(  # gameBinh's live code (docs/rules.md#the-mau-binh-preset)
        scoring="per-row",
        scoop_multiplier=2,
        royalty_mode="winner",
        one_royalty_per_hand=False,
        suit_order=None,
        wheel="low",
        surrender_cost=None,
        players=4,
        royalties=GAMEBINH_ROYALTIES,
        naturals=GAMEBINH_NATURALS,
        royalties_dealt=False,
        royalty_replaces_row=True,
        natural_ties="difference",
        foul_penalty=6,
        equal_rows_foul=True,
        foul_pays_naturals=True,
    ),
    "mau-binh-rules": dict(
        scoring="per-row",
        scoop_multiplier=2,
        royalty_mode="winner",
        one_royalty_per_hand=False,
        suit_order=None,
        wheel="second",
        surrender_cost=None,
        players=4,
        royalties=MAU_BINH_ROYALTIES,
        naturals=MAU_BINH_NATURALS,
        royalties_dealt=False,
        home_run_multiplier=2,
        home_run_min_opponents=2,
        royalty_replaces_row=True,
        natural_ties="payout",
        foul_penalty=3,
    ),
    "pusoy": dict(
        scoring="2-4",
        scoop_multiplier=1,
        royalty_mode="winner",
        one_royalty_per_hand=False,
        suit_order="dchs",
        wheel="low",
        surrender_cost=2,
        players=4,
        royalties=DEFAULT_ROYALTIES,
        naturals=DEFAULT_NATURALS,
        royalties_dealt=False,
    ),
}
# The home run (docs/rules.md#home-run): x2 where a preset has it (from 2 opponents in
# the apps' presets), else its keys keep their defaults; so do the keys of
# docs/rules.md#tables-as-the-apps-pay-them outside shisanshui and mau-binh.
for _fields in EXPECTED.values():
    _fields.setdefault("home_run_multiplier", 1)
    _fields.setdefault("home_run_min_opponents", 3)
    _fields.setdefault("royalty_replaces_row", False)
    _fields.setdefault("natural_ties", "order")
    _fields.setdefault("foul_penalty", None)
    _fields.setdefault("code_card", None)  # docs/rules.md#the-code-card: off in every preset
    _fields.setdefault("code_card_multiplier", 2)
    _fields.setdefault("extra_suits", "")  # docs/rules.md#added-suits: no preset adds a suit
    _fields.setdefault("jokers", 0)  # docs/rules.md#jokers: no preset deals a joker
    _fields.setdefault("equal_rows_foul", False)  # docs/rules.md#equal-rows-foul: mau-binh only
    _fields.setdefault("foul_pays_naturals", False)  # docs/rules.md#flat-foul-penalty: mau-binh
    # docs/rules.md#ranks-held-six-times and #the-code-card: the server's values in
    # shisanshui, the defaults elsewhere
    _fields.setdefault("code_card_both", "once")
    _fields.setdefault("split_ranks", False)
    _fields.setdefault("two_jokers_foul", "above_aces")  # docs/rules.md#jokers
    # docs/rules.md#the-bankers-table: every preset but shisanshui-banker seats no banker
    _fields.setdefault("banker", False)
    _fields.setdefault("scoop_bonus", 0)
    _fields.setdefault("pair_cap", None)
# 水庄 (docs/rules.md#the-shisanshui-banker-preset): shisanshui at a banker's table
EXPECTED["shisanshui-banker"] = {
    **EXPECTED["shisanshui"],
    "banker": True,
    "scoop_multiplier": 1,  # lib_game.lua CompareTwoPlayerWater: 打枪 + 1, not x 2
    "scoop_bonus": 1,
    "pair_cap": 8,  # |nFinalScore| > 8: 8
    "home_run_multiplier": 1,  # CompareResultWater: no 全垒打
    "home_run_min_opponents": 3,
}


def write(tmp_path: Path, text: str, name: str = "house.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def fields_of(rules: Rules) -> dict:
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules) if f.name != "name"}


# ---- presets ---------------------------------------------------------------------------


def test_preset_names_exactly():
    assert list(PRESETS) == [
        "chinese-1-6", "chinese-2-4", "per-row", "capsa", "shisanshui", "mau-binh",
        "mau-binh-rules", "pusoy", "shisanshui-banker",
    ]  # fmt: skip
    assert DEFAULT_PRESET == "chinese-1-6"


@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_values(name):
    rules = load_rules(name)
    assert rules is PRESETS[name]
    assert rules.name == name
    assert fields_of(rules) == EXPECTED[name]
    assert rules.deck == STANDARD_DECK  # the 52-card deck: no preset adds a suit
    # exact types, not just equal values: ints stay ints
    assert type(rules.scoop_multiplier) is int
    assert rules.surrender_cost is None or type(rules.surrender_cost) is int


def test_default_is_chinese_1_6():
    assert load_rules() is PRESETS["chinese-1-6"]
    assert load_rules(None).name == "chinese-1-6"
    assert Rules() == PRESETS["chinese-1-6"]


def test_rules_pass_through_and_case_insensitive_names():
    custom = dataclasses.replace(PRESETS["capsa"], players=2, name="mine")
    assert load_rules(custom) is custom
    assert load_rules("CAPSA") is PRESETS["capsa"]
    assert load_rules(" Shisanshui ") is PRESETS["shisanshui"]


def test_package_exports():
    assert solver.load_rules is load_rules
    assert solver.Rules is Rules
    assert solver.RulesError is RulesError
    assert solver.PRESETS is PRESETS
    assert issubclass(RulesError, ValueError)


def test_importing_rules_stays_light():
    code = (
        "import sys, solver, solver.engine.rules; "
        "print('numba' in sys.modules, 'typer' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_rules_are_hashable_cache_keys():
    calls = []

    @functools.lru_cache
    def cached(rules: Rules) -> str:
        calls.append(rules)
        return rules.name

    for name in PRESETS:
        assert cached(load_rules(name)) == name
        assert cached(rules_from_dict({"base": name}, name=name)) == name
    assert len(calls) == len(PRESETS)
    assert len({hash(r) for r in PRESETS.values()}) == len(PRESETS)
    with pytest.raises(dataclasses.FrozenInstanceError):
        PRESETS["capsa"].players = 2  # type: ignore[misc]


def test_royalty_lookup():
    r = PRESETS["chinese-1-6"]
    assert r.royalty("front", "three_of_a_kind") == 3.0
    assert r.royalty("middle", "full_house") == 2.0
    assert r.royalty("middle", "four_of_a_kind") == 8.0
    assert r.royalty("middle", "straight_flush") == 10.0
    assert r.royalty("back", "four_of_a_kind") == 4.0
    assert r.royalty("back", "straight_flush") == 5.0
    assert r.royalty("back", "full_house") == 0.0
    assert r.royalty("front", "pair") == 0.0
    assert r.royalty("middle", "full house") == 2.0  # evaluator category names work
    # no royal flush line: a royal gets the straight flush line
    assert r.royalty("middle", "royal_flush") == 10.0
    assert r.royalty("back", "royal_flush") == 5.0
    s = dataclasses.replace(PRESETS["shisanshui"], royalties=ROYAL_LINES)
    assert s.royalty("middle", "royal_flush") == 14.0
    assert s.royalty("back", "royal_flush") == 7.0
    assert s.royalty("back", "straight_flush") == 5.0
    for row in ("front", "middle", "back"):
        assert PRESETS["capsa"].royalty(row, "royal_flush") == 0.0
    assert isinstance(r.royalty("front", "three_of_a_kind"), float)
    assert r.royalty_table("middle") == {"full_house": 2, "four_of_a_kind": 8, "straight_flush": 10}


def test_natural_units_and_flags():
    r = PRESETS["chinese-1-6"]
    assert r.natural_units("dragon") == 13.0
    assert r.natural_units("six_pairs") == 3.0
    assert PRESETS["per-row"].natural_units("dragon") is None
    assert (r.has_royalties, r.has_naturals, r.has_surrender) == (True, True, True)
    p = PRESETS["per-row"]
    assert (p.has_royalties, p.has_naturals, p.has_surrender) == (False, False, False)


# ---- TOML files ------------------------------------------------------------------------


def test_file_overrides_keys_and_takes_stem_as_name(tmp_path):
    path = write(
        tmp_path,
        """
        base = "chinese-1-6"
        scoop_multiplier = 1.5
        royalty_mode = "cancel"
        one_royalty_per_hand = true
        suit_order = "SHCD"
        wheel = "second"
        surrender_cost = 2.5
        players = 3
        """,
        name="my-table.toml",
    )
    rules = load_rules(path)
    assert rules.name == "my-table"
    assert rules.scoring == "1-6"
    assert rules.scoop_multiplier == 1.5
    assert rules.royalty_mode == "cancel"
    assert rules.one_royalty_per_hand is True
    assert rules.suit_order == "shcd"
    assert rules.wheel == "second"
    assert rules.surrender_cost == 2.5
    assert rules.players == 3
    assert rules.royalties == DEFAULT_ROYALTIES
    assert rules.naturals == DEFAULT_NATURALS
    assert load_rules(str(path)) == rules


def test_file_name_key_wins_over_stem(tmp_path):
    path = write(tmp_path, 'name = "Friday game"\n')
    assert load_rules(path).name == "Friday game"


def test_empty_file_is_the_default_preset(tmp_path):
    rules = load_rules(write(tmp_path, ""))
    assert rules.name == "house"
    assert fields_of(rules) == EXPECTED["chinese-1-6"]
    assert rules.digest() == PRESETS["chinese-1-6"].digest()


@pytest.mark.parametrize("base", list(EXPECTED))
def test_base_preset_only(tmp_path, base):
    rules = load_rules(write(tmp_path, f'base = "{base}"\n'))
    assert fields_of(rules) == EXPECTED[base]
    assert rules.name == "house"


def test_base_with_override(tmp_path):
    rules = load_rules(write(tmp_path, 'base = "capsa"\nplayers = 2\nwheel = "second"\n'))
    assert rules.suit_order == "shcd"
    assert rules.royalties == ()
    assert rules.naturals == DEFAULT_NATURALS
    assert rules.players == 2
    assert rules.wheel == "second"
    assert rules.surrender_cost == 3


def test_royalty_row_replaces_whole_row_only(tmp_path):
    path = write(
        tmp_path,
        """
        [royalties.middle]
        full_house = 1
        royal_flush = 20
        """,
    )
    rules = load_rules(path)
    assert rules.royalties == (
        ("front", "three_of_a_kind", 3),
        ("middle", "full_house", 1),
        ("middle", "royal_flush", 20),
        ("back", "four_of_a_kind", 4),
        ("back", "straight_flush", 5),
    )
    assert rules.royalty("middle", "four_of_a_kind") == 0.0  # replaced, not merged
    assert rules.royalty("middle", "straight_flush") == 0.0
    assert rules.royalty("middle", "royal_flush") == 20.0
    assert rules.royalty("back", "straight_flush") == 5.0


def test_royalty_row_on_base_without_royalties(tmp_path):
    path = write(tmp_path, 'base = "per-row"\n[royalties.back]\nfour_of_a_kind = 4\n')
    assert load_rules(path).royalties == (("back", "four_of_a_kind", 4),)


def test_royalty_row_order_in_file_does_not_matter(tmp_path):
    a = load_rules(write(tmp_path, "[royalties.back]\nstraight_flush = 5\nfour_of_a_kind = 4\n"))
    assert a.royalties == PRESETS["chinese-1-6"].royalties
    assert a == dataclasses.replace(PRESETS["chinese-1-6"], name="house")


def test_empty_row_table_clears_that_row(tmp_path):
    rules = load_rules(write(tmp_path, "[royalties.front]\n"))
    assert rules.royalties == DEFAULT_ROYALTIES[1:]
    assert rules.royalty("front", "three_of_a_kind") == 0.0


def test_royal_flush_zero_is_not_absent(tmp_path):
    rules = load_rules(write(tmp_path, "[royalties.back]\nstraight_flush = 5\nroyal_flush = 0\n"))
    assert rules.royalty("back", "royal_flush") == 0.0
    assert rules.royalty("back", "straight_flush") == 5.0
    assert ("back", "royal_flush", 0) in rules.royalties


def test_royalties_off(tmp_path):
    rules = load_rules(write(tmp_path, 'base = "shisanshui"\nroyalties = false\n'))
    assert rules.royalties == ()
    assert rules.royalty("middle", "royal_flush") == 0.0
    assert rules.naturals == SHISANSHUI_NATURALS


def test_royalties_true_is_default_table(tmp_path):
    rules = load_rules(write(tmp_path, 'base = "per-row"\nroyalties = true\n'))
    assert rules.royalties == DEFAULT_ROYALTIES


def test_naturals_replacement_keeps_file_order(tmp_path):
    path = write(tmp_path, "[naturals]\nsix_pairs = 4\ndragon = 26\n")
    rules = load_rules(path)
    assert rules.naturals == (("six_pairs", 4), ("dragon", 26))
    assert rules.natural_units("three_flushes") is None


def test_naturals_off(tmp_path):
    rules = load_rules(write(tmp_path, "naturals = false\n"))
    assert rules.naturals == ()
    assert rules.royalties == DEFAULT_ROYALTIES


def test_naturals_on_over_base_without(tmp_path):
    rules = load_rules(write(tmp_path, 'base = "per-row"\nnaturals = true\n'))
    assert rules.naturals == DEFAULT_NATURALS


@pytest.mark.parametrize(
    ("base", "scoring", "expected"),
    [
        ("chinese-1-6", "2-4", 2),
        ("chinese-1-6", "per-row", None),
        ("chinese-2-4", "1-6", 3),
        ("per-row", "1-6", 3),
        ("per-row", "2-4", 2),
        ("shisanshui", "2-4", 2),
        ("capsa", "1-6", 3),
    ],
)
def test_surrender_default_follows_scoring(tmp_path, base, scoring, expected):
    rules = load_rules(write(tmp_path, f'base = "{base}"\nscoring = "{scoring}"\n'))
    assert rules.scoring == scoring
    assert rules.surrender_cost == expected


def test_surrender_set_explicitly_wins_over_scoring_default(tmp_path):
    rules = load_rules(write(tmp_path, 'scoring = "2-4"\nsurrender_cost = 5\n'))
    assert (rules.scoring, rules.surrender_cost) == ("2-4", 5)
    rules = load_rules(write(tmp_path, 'base = "per-row"\nsurrender_cost = 1\n'))
    assert (rules.scoring, rules.surrender_cost) == ("per-row", 1)


@pytest.mark.parametrize("off", ["false", '"none"', '"None"'])
def test_surrender_off(tmp_path, off):
    rules = load_rules(write(tmp_path, f"surrender_cost = {off}\n"))
    assert rules.surrender_cost is None


def test_full_example_from_rules_md(tmp_path):
    path = write(
        tmp_path,
        """
base = "chinese-1-6"
scoring = "1-6"              # "per-row", "1-6" or "2-4"
scoop_multiplier = 1
royalty_mode = "winner"      # "winner", "cancel" or "always"
one_royalty_per_hand = false
suit_order = "none"          # "none", or four suit letters strongest first: "shcd"
wheel = "low"                # "low" or "second"
surrender_cost = 3           # units per opponent, or false for no surrender
players = 4

[royalties.front]            # `royalties = false` turns them all off
three_of_a_kind = 3
[royalties.middle]
full_house = 2
four_of_a_kind = 8
straight_flush = 10
royal_flush = 14             # a royal flush is paid this instead of the straight flush line
[royalties.back]
four_of_a_kind = 4
straight_flush = 5
royal_flush = 7

[naturals]                   # strongest first; units; `naturals = false` turns them off
dragon = 13
three_straights = 3
six_pairs = 3
three_flushes = 3
""",
    )
    rules = load_rules(path)
    expected = dict(EXPECTED["chinese-1-6"], royalties=ROYAL_LINES)
    assert fields_of(rules) == expected


def test_to_toml_round_trips_through_a_file(tmp_path):
    for rules in PRESETS.values():
        path = write(tmp_path, to_toml(rules), name="x.toml")
        assert load_rules(path) == rules


def test_rules_from_dict_without_file():
    rules = rules_from_dict({"base": "capsa", "players": 2}, name="two")
    assert rules.name == "two"
    assert rules.players == 2
    assert rules.suit_order == "shcd"
    assert rules_from_dict({}, name="chinese-1-6") == PRESETS["chinese-1-6"]


# ---- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ('scorin = "1-6"', ["unknown key 'scorin'", "did you mean 'scoring'"]),
        ("player = 3", ["unknown key 'player'", "did you mean 'players'"]),
        ("[royaltes.front]\nthree_of_a_kind = 3", ["'royaltes'", "did you mean 'royalties'"]),
        ("colour = 1", ["unknown key 'colour'", "valid keys are"]),
        ('scoring = "1-7"', ["scoring", "'per-row', '1-6', '2-4'", "'1-7'"]),
        ("scoring = 16", ["scoring", "'per-row', '1-6', '2-4'"]),
        ('royalty_mode = "winer"', ["royalty_mode", "'winner', 'cancel', 'always'", "'winer'"]),
        ('wheel = "high"', ["wheel", "'low', 'second'"]),
        ('one_royalty_per_hand = "yes"', ["one_royalty_per_hand", "true or false"]),
        ('royalties_dealt = "yes"', ["royalties_dealt must be true or false", "'yes'"]),
        ("royalties_dealt = 1", ["royalties_dealt must be true or false", "got 1"]),
        (
            "royalties_delt = true",
            ["unknown key 'royalties_delt'", "did you mean 'royalties_dealt'"],
        ),
        ("scoop_multiplier = 0.5", ["scoop_multiplier", ">= 1", "0.5"]),
        ('scoop_multiplier = "2"', ["scoop_multiplier", ">= 1"]),
        ("scoop_multiplier = true", ["scoop_multiplier", ">= 1"]),
        ("scoop_multiplier = nan", ["scoop_multiplier"]),
        ("players = 5", ["players = 5", "extra_suits", "52 cards"]),
        ("players = 7", ["players", "2 to 6", "7"]),
        ("players = 1", ["players", "2 to 6"]),
        ('players = "4"', ["players", "2 to 6"]),
        ("players = 2.5", ["players", "2 to 6"]),
        ('suit_order = "shc"', ["suit_order", "c d h s", "'shc'"]),
        ('suit_order = "sshc"', ["suit_order", "four distinct"]),
        ('suit_order = "shcx"', ["suit_order", "c d h s"]),
        ("suit_order = 4", ["suit_order", '"none"']),
        ("surrender_cost = -1", ["surrender_cost", ">= 0", "-1"]),
        ('surrender_cost = "cheap"', ["surrender_cost", ">= 0"]),
        ('base = "per-row"\nsurrender_cost = true', ["surrender_cost", "per-row"]),
        (
            'base = "chinese-16"',
            [
                "unknown preset base 'chinese-16'",
                "did you mean 'chinese-1-6'",
                "chinese-1-6, chinese-2-4, per-row, capsa, shisanshui",
            ],
        ),
        ("base = 3", ["unknown preset base", "presets are"]),
        ("royalties = 3", ["royalties must be", "'front', 'middle', 'back'"]),
        ('royalties = "default"', ["royalties must be"]),
        ("[royalties.frnt]\nthree_of_a_kind = 3", ["royalties.frnt", "did you mean 'front'"]),
        (
            "[royalties.middle]\nfull_hose = 2",
            ["royalties.middle.full_hose", "did you mean 'full_house'"],
        ),
        ("[royalties.middle]\nflush = 1", ["royalties.middle.flush", "full_house"]),
        (
            "[royalties.middle]\nthree_of_a_kind = 2",
            ["royalties.middle.three_of_a_kind", "front row only"],
        ),
        (
            "[royalties.front]\nfull_house = 2",
            ["royalties.front.full_house", "only 'three_of_a_kind'"],
        ),
        ("[royalties.back]\nfour_of_a_kind = -4", ["royalties.back.four_of_a_kind", ">= 0"]),
        ('[royalties.back]\nfour_of_a_kind = "4"', ["royalties.back.four_of_a_kind", ">= 0"]),
        ("[royalties]\nback = 4", ["royalties.back must be a table", "four_of_a_kind"]),
        ("naturals = 3", ["naturals must be", "dragon"]),
        ("[naturals]\ndragn = 13", ["naturals.dragn", "did you mean 'dragon'"]),
        ("[naturals]\nfive_pairs = 3", ["naturals.five_pairs", "six_pairs"]),
        ("[naturals]\ndragon = -13", ["naturals.dragon", ">= 0"]),
        ("[naturals]\ndragon = true", ["naturals.dragon", ">= 0"]),
        ("name = 7", ["name must be a non-empty string"]),
    ],
)
def test_file_errors_name_the_key(tmp_path, text, needles):
    path = write(tmp_path, text + "\n")
    with pytest.raises(RulesError) as info:
        load_rules(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("house.toml: ")
    for needle in needles:
        assert needle in message, (needle, message)


def test_invalid_toml_says_the_line(tmp_path):
    path = write(tmp_path, 'scoring = "1-6"\nplayers = 4\nwheel = low\n')
    with pytest.raises(RulesError) as info:
        load_rules(path)
    message = str(info.value)
    assert "house.toml" in message
    assert "not valid TOML" in message
    assert "line 3" in message
    assert "\n" not in message


def test_duplicate_key_is_invalid_toml(tmp_path):
    with pytest.raises(RulesError, match="line 2"):
        load_rules(write(tmp_path, "players = 2\nplayers = 3\n"))


def test_not_utf8(tmp_path):
    path = tmp_path / "bin.toml"
    path.write_bytes(b"players = \xff\n")
    with pytest.raises(RulesError, match="bin.toml"):
        load_rules(path)


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(RulesError, match="ruleset file not found") as info:
        load_rules(missing)
    assert "nope.toml" in str(info.value)
    with pytest.raises(RulesError, match="ruleset file not found"):
        load_rules(str(missing))
    with pytest.raises(RulesError, match="ruleset file not found"):
        load_rules("rules/nothing-here")


def test_directory_is_not_a_file(tmp_path):
    with pytest.raises(RulesError, match="directory"):
        load_rules(tmp_path)


def test_unknown_preset_lists_presets():
    with pytest.raises(RulesError) as info:
        load_rules("capsa-susun")
    message = str(info.value)
    assert "unknown preset 'capsa-susun'" in message
    assert "chinese-1-6, chinese-2-4, per-row, capsa, shisanshui" in message
    with pytest.raises(RulesError, match="did you mean 'shisanshui'"):
        load_rules("shisansui")


def test_bad_argument_type():
    with pytest.raises(RulesError, match="preset name"):
        load_rules(42)  # type: ignore[arg-type]


def test_rules_from_dict_errors():
    with pytest.raises(RulesError, match="table of settings"):
        rules_from_dict(["scoring"], name="x")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="unknown key 'wheels'.*did you mean 'wheel'"):
        rules_from_dict({"wheels": "low"}, name="x")


def test_direct_construction_is_validated_and_normalised():
    r = Rules(
        name="x",
        scoop_multiplier=2.0,
        surrender_cost="none",
        suit_order="SHCD",
        royalties=[("back", "straight_flush", 5.0), ("front", "three_of_a_kind", 3)],
        naturals=[("six_pairs", 3.0)],
    )
    assert r.scoop_multiplier == 2 and type(r.scoop_multiplier) is int
    assert r.surrender_cost is None
    assert r.suit_order == "shcd"
    assert r.royalties == (("front", "three_of_a_kind", 3), ("back", "straight_flush", 5))
    assert r.naturals == (("six_pairs", 3),)
    hash(r)
    with pytest.raises(RulesError, match="duplicate royalty 'royalties.back.straight_flush'"):
        Rules(royalties=(("back", "straight_flush", 5), ("back", "straight_flush", 6)))
    with pytest.raises(RulesError, match="duplicate natural 'naturals.dragon'"):
        Rules(naturals=(("dragon", 13), ("dragon", 10)))
    with pytest.raises(RulesError, match="players"):
        dataclasses.replace(PRESETS["capsa"], players=7)
    with pytest.raises(RulesError, match="royalties must"):
        Rules(royalties={"front": {"three_of_a_kind": 3}})  # type: ignore[arg-type]


# ---- digest, dict, display ---------------------------------------------------------------


def test_digest_stable_and_distinct():
    digests = {name: r.digest() for name, r in PRESETS.items()}
    assert len(set(digests.values())) == len(PRESETS)
    for name, d in digests.items():
        assert len(d) == 16
        int(d, 16)
        assert load_rules(name).digest() == d
        assert rules_from_dict(PRESETS[name].to_dict(), name="other").digest() == d
    # pinned: changing a preset or the digest recipe must be a deliberate change here
    assert digests == {
        "chinese-1-6": "c501d667fffdb581",
        "chinese-2-4": "cd90afe5299ac6bc",
        "per-row": "f537cbd8fe73e078",
        "capsa": "caac13519e5b9be7",
        "shisanshui": "a1b0b178459e5f5a",  # docs/rules.md#twelve-royals-and-one
        "mau-binh": "3c4f9e44c4d6938a",  # gameBinh's live code (docs/rules.md#the-mau-binh-preset)
        "mau-binh-rules": "d009086b3bae6cbd",  # mau-binh as it was: its field tables kept
        "pusoy": "dd0462f56dabec23",
        "shisanshui-banker": "70821470bfdd9448",  # docs/rules.md#the-bankers-table
    }


def test_digest_ignores_name_but_not_settings():
    base = PRESETS["chinese-1-6"]
    assert dataclasses.replace(base, name="anything").digest() == base.digest()
    assert dataclasses.replace(base, scoop_multiplier=1.0).digest() == base.digest()
    changed = [
        dataclasses.replace(base, players=3),
        dataclasses.replace(base, surrender_cost=None),
        dataclasses.replace(base, wheel="second"),
        dataclasses.replace(base, suit_order="shcd"),
        dataclasses.replace(base, royalty_mode="always"),
        dataclasses.replace(base, one_royalty_per_hand=True),
        dataclasses.replace(base, royalties_dealt=True),
        dataclasses.replace(base, scoop_multiplier=2),
        dataclasses.replace(base, home_run_multiplier=2),
        dataclasses.replace(base, naturals=tuple(reversed(base.naturals))),
        dataclasses.replace(base, royalties=base.royalties[1:]),
        dataclasses.replace(base, royalty_replaces_row=True),
        dataclasses.replace(base, natural_ties="payout"),
        dataclasses.replace(base, foul_penalty=3),
        dataclasses.replace(base, foul_penalty=0),
        dataclasses.replace(base, natural_ties="difference"),
        dataclasses.replace(base, equal_rows_foul=True),
        dataclasses.replace(base, foul_pays_naturals=True),
        dataclasses.replace(base, code_card="8h"),
        dataclasses.replace(base, code_card="8h", code_card_multiplier=3),
        dataclasses.replace(base, code_card="9h"),
    ]
    digests = {r.digest() for r in changed} | {base.digest()}
    assert len(digests) == len(changed) + 1


def test_digest_is_stable_across_processes():
    code = "from solver.engine.rules import PRESETS; print(PRESETS['shisanshui'].digest())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == PRESETS["shisanshui"].digest()


def test_royalties_dealt_key(tmp_path):
    """docs/rules.md#royalties-for-dealt-cards: a flag, off in every preset, on by file."""
    assert all(r.royalties_dealt is False for r in PRESETS.values())
    assert Rules().royalties_dealt is False
    on = load_rules(write(tmp_path, 'base = "pusoy"\nroyalties_dealt = true\n'))
    assert on.royalties_dealt is True
    assert fields_of(on) == dict(EXPECTED["pusoy"], royalties_dealt=True)
    off = load_rules(write(tmp_path, "royalties_dealt = false\n", name="off.toml"))
    assert off == dataclasses.replace(PRESETS["chinese-1-6"], name="off")
    # the digest moves only when the key is true: the presets' digests (pinned above,
    # and the key of the shipped field tables) are those from before the key existed
    assert off.digest() == PRESETS["chinese-1-6"].digest()
    assert on.digest() != PRESETS["pusoy"].digest()
    assert on.digest() == dataclasses.replace(PRESETS["pusoy"], royalties_dealt=True).digest()
    # the dict, the TOML text and a file carry it both ways
    assert on.to_dict()["royalties_dealt"] is True
    assert rules_from_dict(on.to_dict(), name="ignored") == on
    assert "\nroyalties_dealt = true\n" in to_toml(on)
    assert "\nroyalties_dealt = false\n" in to_toml(off)
    path = write(tmp_path, to_toml(on), name="again.toml")
    assert load_rules(path) == on
    assert dict(describe_rules(on))["royalties_dealt"].startswith("yes")
    assert dict(describe_rules(off))["royalties_dealt"].startswith("no")
    # validated like the other flags, on construction too
    for bad in ("yes", 1, 0, None):
        with pytest.raises(RulesError, match="^royalties_dealt must be true or false"):
            Rules(royalties_dealt=bad)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="royalties_dealt"):
        dataclasses.replace(PRESETS["capsa"], royalties_dealt="true")


def test_to_dict_shape():
    d = PRESETS["chinese-1-6"].to_dict()
    assert d == {
        "name": "chinese-1-6",
        "scoring": "1-6",
        "scoop_multiplier": 1,
        "royalty_mode": "winner",
        "one_royalty_per_hand": False,
        "royalties_dealt": False,
        "suit_order": "none",
        "wheel": "low",
        "surrender_cost": 3,
        "players": 4,
        "home_run_multiplier": 1,
        "home_run_min_opponents": 3,
        "royalty_replaces_row": False,
        "natural_ties": "order",
        "foul_penalty": False,
        "code_card": False,
        "code_card_multiplier": 2,
        "code_card_both": "once",
        "split_ranks": False,
        "two_jokers_foul": "above_aces",
        "royalties": {
            "front": {"three_of_a_kind": 3},
            "middle": {"full_house": 2, "four_of_a_kind": 8, "straight_flush": 10},
            "back": {"four_of_a_kind": 4, "straight_flush": 5},
        },
        "naturals": {"dragon": 13, "three_straights": 3, "six_pairs": 3, "three_flushes": 3},
    }
    p = PRESETS["per-row"].to_dict()
    assert (p["royalties"], p["naturals"], p["surrender_cost"]) == (False, False, False)
    assert PRESETS["capsa"].to_dict()["suit_order"] == "shcd"
    for rules in PRESETS.values():
        json.dumps(rules.to_dict(), allow_nan=False)


def test_describe_rules():
    rows = describe_rules(PRESETS["chinese-1-6"])
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in rows)
    table = dict(rows)
    assert table["name"] == "chinese-1-6"
    assert table["scoring"].startswith("1-6")
    assert table["royalties"] == (
        "front three_of_a_kind 3; middle full_house 2, four_of_a_kind 8, straight_flush 10; "
        "back four_of_a_kind 4, straight_flush 5"
    )
    assert table["naturals"].startswith(
        "dragon 13, three_straights 3, six_pairs 3, three_flushes 3"
    )
    assert table["surrender_cost"] == "3 per opponent"
    assert table["suit_order"].startswith("none")
    assert table["players"].startswith("4")
    assert table["royalties_dealt"].startswith("no")
    assert table["digest"] == PRESETS["chinese-1-6"].digest()
    capsa = dict(describe_rules(PRESETS["capsa"]))
    assert capsa["royalties"] == "off"
    assert capsa["suit_order"].startswith("s > h > c > d")
    shss = dict(describe_rules(PRESETS["shisanshui"]))
    assert shss["scoop_multiplier"] == "2"
    assert shss["surrender_cost"] == "off"
    assert shss["wheel"].startswith("second")
    assert shss["game"] == "十三水" and shss["suit_order"].startswith("none")
    assert "royal_flush" not in shss["royalties"] and "royal_dragon 104" in shss["naturals"]
    assert shss["home_run"].startswith("x2: a player who scoops every opponent (at least 2)")
    mau = dict(describe_rules(PRESETS["mau-binh"]))
    assert mau["game"] == "Mậu Binh" and mau["royalties"].startswith("front three_of_a_kind wins 6")
    assert mau["equal_rows_foul"].startswith("yes") and mau["natural_ties"].startswith("by diff")
    old = dict(describe_rules(PRESETS["mau-binh-rules"]))
    assert old["royalties"].startswith("front three_of_a_kind wins 3")
    assert dict(describe_rules(PRESETS["pusoy"]))["suit_order"].startswith("d > c > h > s")
    assert "game" not in dict(describe_rules(dataclasses.replace(PRESETS["pusoy"], name="x")))
    assert dict(describe_rules(PRESETS["per-row"]))["naturals"] == "off"


# ---- round trip (Hypothesis) -----------------------------------------------------------

units = st.one_of(st.integers(0, 50), st.floats(0, 50, allow_nan=False).map(lambda x: round(x, 3)))
row_tables = {
    "front": st.dictionaries(st.just("three_of_a_kind"), units),
    "middle": st.dictionaries(
        st.sampled_from(["full_house", "four_of_a_kind", "straight_flush", "royal_flush"]), units
    ),
    "back": st.dictionaries(
        st.sampled_from(["full_house", "four_of_a_kind", "straight_flush", "royal_flush"]), units
    ),
}
royalty_values = st.one_of(
    st.just(False),
    st.just(True),
    st.fixed_dictionaries({}, optional=row_tables),
)
natural_values = st.one_of(
    st.just(False),
    st.just(True),
    st.permutations(["dragon", "three_straights", "six_pairs", "three_flushes"]).flatmap(
        lambda names: st.integers(0, 4).flatmap(
            lambda k: st.tuples(*[units] * k).map(lambda us: dict(zip(names[:k], us, strict=True)))
        )
    ),
)
suit_orders = st.one_of(st.just("none"), st.permutations("cdhs").map("".join))
settings_dicts = st.fixed_dictionaries(
    {},
    optional={
        "base": st.sampled_from(list(PRESETS)),
        # a name, never a path (docs/rules.md#how-a-file-is-read): no / \\ or NUL, not . or ..
        # and text (no lone surrogate: test_a_name_that_is_not_text_is_refused)
        "name": st.text(
            st.characters(exclude_characters="/\\\0", exclude_categories=["Cs"]),
            min_size=1,
            max_size=12,
        )
        .filter(lambda n: n.strip() and n.strip().lower() not in PRESETS)
        .filter(lambda n: n.strip() not in (".", "..")),
        "scoring": st.sampled_from(["per-row", "1-6", "2-4"]),
        "scoop_multiplier": st.one_of(
            st.integers(1, 4), st.floats(1, 4).map(lambda x: round(x, 2))
        ),
        "royalty_mode": st.sampled_from(["winner", "cancel", "always"]),
        "one_royalty_per_hand": st.booleans(),
        "royalties_dealt": st.booleans(),
        "suit_order": suit_orders,
        "wheel": st.sampled_from(["low", "second"]),
        "surrender_cost": st.one_of(st.just(False), st.just("none"), units),
        "players": st.integers(2, 4),
        "royalty_replaces_row": st.booleans(),
        "natural_ties": st.sampled_from(["order", "payout"]),
        "foul_penalty": st.one_of(st.just(False), st.just("none"), units),
        "code_card": st.sampled_from([False, "8h", "8H", "As", "10c", "2♦"]),
        "code_card_multiplier": st.one_of(
            st.integers(1, 4), st.floats(0.25, 4).map(lambda x: round(x, 2))
        ),
        "royalties": royalty_values,
        "naturals": natural_values,
    },
).filter(lambda d: _replaces_ok(d))


def _replaces_ok(data) -> bool:
    """Whether a settings dict keeps royalty_replaces_row with the modes it allows."""
    base = PRESETS[data.get("base", "chinese-1-6")]
    if not data.get("royalty_replaces_row", base.royalty_replaces_row):
        return True
    mode = data.get("royalty_mode", base.royalty_mode)
    return mode != "always" and not data.get("royalties_dealt", base.royalties_dealt)


@settings(max_examples=300, deadline=None)
@given(settings_dicts)
def test_to_dict_round_trips(data):
    rules = rules_from_dict(data, name="random")
    as_dict = rules.to_dict()
    json.dumps(as_dict, allow_nan=False)
    again = rules_from_dict(as_dict, name="ignored")
    assert again == rules
    assert hash(again) == hash(rules)
    assert again.digest() == rules.digest()
    assert again.to_dict() == as_dict
    # a dict that names any base gives the same rules: to_dict is complete
    for base in ("per-row", "shisanshui"):
        assert rules_from_dict({**as_dict, "base": base}, name="x") == rules


def test_a_name_that_is_not_text_is_refused():
    """A lone surrogate (a Python string can hold one; a TOML file, a file name and UTF-8
    cannot) is refused where the name is read, not when the ruleset is written."""
    with pytest.raises(RulesError, match=r"name 'a\\ud800' is not text: .* lone surrogate"):
        rules_from_dict({"name": "a\ud800"})
    with pytest.raises(RulesError, match="lone surrogate"):
        rules_from_dict({}, name="\udcff")  # a byte that was not UTF-8, as Python decodes it


@settings(max_examples=100, deadline=None)
@given(settings_dicts)
def test_file_round_trips(tmp_path_factory, data):
    rules = rules_from_dict(data, name="random")
    path = tmp_path_factory.mktemp("rt") / "r.toml"
    path.write_text(to_toml(rules), encoding="utf-8")
    assert load_rules(path) == rules


@settings(max_examples=200, deadline=None)
@given(settings_dicts)
def test_settings_match_the_dict(data):
    """Each given key lands in its field; keys left out keep the base's values."""
    rules = rules_from_dict(data, name="random")
    base = PRESETS[data.get("base", "chinese-1-6")]
    for key in (
        "scoring",
        "royalty_mode",
        "one_royalty_per_hand",
        "royalties_dealt",
        "wheel",
        "players",
        "royalty_replaces_row",
        "natural_ties",
    ):
        assert getattr(rules, key) == data.get(key, getattr(base, key))
    assert rules.scoop_multiplier == data.get("scoop_multiplier", base.scoop_multiplier)
    order = data.get("suit_order", base.suit_order or "none")
    assert rules.suit_order == (None if order == "none" else order)
    if "surrender_cost" in data:
        cost = data["surrender_cost"]
        assert rules.surrender_cost == (None if cost is False or cost == "none" else cost)
    elif "scoring" in data:
        assert rules.surrender_cost == {"1-6": 3, "2-4": 2, "per-row": None}[data["scoring"]]
    else:
        assert rules.surrender_cost == base.surrender_cost
    foul = data.get("foul_penalty", base.foul_penalty)
    assert rules.foul_penalty == (None if foul is False or foul == "none" else foul)
    card = data.get("code_card", base.code_card)
    want = {False: None, None: None, "8H": "8h", "10c": "Tc", "2♦": "2d"}.get(card, card)
    assert rules.code_card == want
    assert rules.code_card_multiplier == data.get("code_card_multiplier", 2)
    nat = data.get("naturals")
    if nat is None:
        assert rules.naturals == base.naturals
    elif nat is True:
        assert rules.naturals == DEFAULT_NATURALS
    elif nat is False:
        assert rules.naturals == ()
    else:
        assert rules.naturals == tuple(nat.items())
    roy = data.get("royalties")
    for row in ("front", "middle", "back"):
        got = {h: u for r, h, u in rules.royalties if r == row}
        if roy is None:
            want = {h: u for r, h, u in base.royalties if r == row}
        elif roy is True:
            want = {h: u for r, h, u in DEFAULT_ROYALTIES if r == row}
        elif roy is False:
            want = {}
        elif row in roy:
            want = roy[row]
        else:
            want = {h: u for r, h, u in base.royalties if r == row}
        assert got == want


# ---- limits and labels ---------------------------------------------------------------


@pytest.mark.parametrize(
    "body, key",
    [
        ("[naturals]\ndragon = 1" + "0" * 400, "naturals.dragon"),  # a 401-digit integer
        ("[naturals]\ndragon = 1e308", "naturals.dragon"),
        ("[royalties.back]\nfour_of_a_kind = 1000001", "royalties.back.four_of_a_kind"),
        ("surrender_cost = 2e6", "surrender_cost"),
        ("scoop_multiplier = 1e7", "scoop_multiplier"),
    ],
)
def test_payouts_above_the_limit_are_one_line_errors_naming_the_key(tmp_path, body, key):
    from solver.engine.layout import MAX_UNITS

    with pytest.raises(RulesError) as info:
        load_rules(write(tmp_path, body))
    message = str(info.value)
    assert key in message and f"{MAX_UNITS:,}" in message
    assert "\n" not in message and len(message) < 200


def test_payouts_at_the_limit_are_accepted_and_stay_finite():
    from solver.engine.layout import MAX_UNITS

    rules = rules_from_dict(
        {"scoop_multiplier": MAX_UNITS, "naturals": {"dragon": float(MAX_UNITS)}}, name="big"
    )
    assert rules.scoop_multiplier == MAX_UNITS and rules.natural_units("dragon") == MAX_UNITS
    with pytest.raises(RulesError, match="dragon"):
        dataclasses.replace(rules, naturals=(("dragon", MAX_UNITS + 1),))


def test_a_file_cannot_pass_for_a_preset(tmp_path):
    """A ruleset named like a preset (by its name key or its file's name, in any case)
    must be that preset exactly, and then it is the preset; otherwise it is an error."""
    with pytest.raises(RulesError, match="name 'capsa' is a preset's"):
        load_rules(write(tmp_path, 'name = "capsa"\nbase = "capsa"\nplayers = 2\n'))
    with pytest.raises(RulesError, match="capsa.toml: name 'Capsa' is a preset's"):
        load_rules(write(tmp_path, 'name = "Capsa"\nscoring = "2-4"\n', name="capsa.toml"))
    with pytest.raises(RulesError, match="per-row.toml: name 'per-row' is a preset's"):
        load_rules(write(tmp_path, 'base = "per-row"\nwheel = "second"\n', name="per-row.toml"))
    same = load_rules(write(tmp_path, 'base = "capsa"\nname = "CAPSA"\n'))
    assert same is PRESETS["capsa"]
    assert load_rules(write(tmp_path, 'base = "capsa"\nplayers = 2\n')).name == "house"


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_toml_reads_back_as_the_preset(tmp_path, name):
    assert load_rules(write(tmp_path, to_toml(PRESETS[name]), name="x.toml")) is PRESETS[name]


# ---- the keys of docs/rules.md#tables-as-the-apps-pay-them --------------------------------


@pytest.mark.parametrize(
    "body, value",
    [
        ("royalty_replaces_row = true", {"royalty_replaces_row": True}),
        ('natural_ties = "payout"', {"natural_ties": "payout"}),
        ("foul_penalty = 3", {"foul_penalty": 3}),
        ("foul_penalty = 0.5", {"foul_penalty": 0.5}),
        ("foul_penalty = false", {"foul_penalty": None}),
        ('code_card = "8h"', {"code_card": "8h"}),
        (
            'code_card = "Qs"\ncode_card_multiplier = 3',
            {"code_card": "Qs", "code_card_multiplier": 3},
        ),
    ],
)
def test_apps_keys_read_write_and_digest(tmp_path, body, value):
    """Each key lands in its field, comes back through to_dict, the TOML text and a file,
    and moves the digest only away from its default."""
    rules = load_rules(write(tmp_path, body + "\n"))
    assert fields_of(rules) == dict(EXPECTED["chinese-1-6"], **value)
    assert rules_from_dict(rules.to_dict(), name="ignored") == rules
    assert load_rules(write(tmp_path, to_toml(rules), name="again.toml")) == rules
    default = fields_of(rules) == EXPECTED["chinese-1-6"]
    assert (rules.digest() == PRESETS["chinese-1-6"].digest()) is default


def test_apps_keys_at_default_keep_every_digest():
    """Today's rulesets keep their digests (the shipped field tables are keyed by them):
    the new keys at their defaults add nothing to the digest, so every other preset's is
    the one pinned before they existed, and shisanshui and mau-binh as they stood then
    (tests/earlier_presets.py: their old values, the new keys at default) give their old
    digests too."""
    for name, rules in PRESETS.items():
        if name == "mau-binh-rules":  # today's mau-binh renamed: the digest it had
            assert rules.digest() == "d009086b3bae6cbd"
        elif name == "shisanshui-banker":  # new with the banker's keys
            assert rules.digest() == "70821470bfdd9448"
        elif name in EARLIER_DIGESTS:
            assert earlier(name).digest() == EARLIER_DIGESTS[name] != rules.digest()
        else:
            assert rules.digest() == PINNED_BEFORE_THE_APPS_KEYS[name]


PINNED_BEFORE_THE_APPS_KEYS = {
    "chinese-1-6": "c501d667fffdb581",
    "chinese-2-4": "cd90afe5299ac6bc",
    "per-row": "f537cbd8fe73e078",
    "capsa": "caac13519e5b9be7",
    "pusoy": "dd0462f56dabec23",
}


@pytest.mark.parametrize(
    "body, needles",
    [
        ("royalty_replaces_row = 1", ["royalty_replaces_row must be true or false"]),
        ('natural_ties = "first"', ["natural_ties must be one of 'order', 'payout', 'difference'"]),
        ("equal_rows_foul = 1", ["equal_rows_foul must be true or false"]),
        ('foul_pays_naturals = "yes"', ["foul_pays_naturals must be true or false"]),
        ("foul_penalty = -1", ["foul_penalty must be"]),
        ('foul_penalty = "three"', ["foul_penalty must be"]),
        (
            'royalty_replaces_row = true\nroyalty_mode = "always"',
            ["royalty_replaces_row", "royalty_mode"],
        ),
        (
            "royalty_replaces_row = true\nroyalties_dealt = true",
            ["royalty_replaces_row", "royalties_dealt"],
        ),
        ('base = "shisanshui"\nroyalty_mode = "always"', ["royalty_replaces_row", "royalty_mode"]),
    ],
)
def test_apps_keys_errors_name_the_keys(tmp_path, body, needles):
    with pytest.raises(RulesError) as info:
        load_rules(write(tmp_path, body + "\n"))
    message = str(info.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message


def test_capsa_rules_says_the_apps_keys_in_players_words():
    table = dict(describe_rules(PRESETS["shisanshui"]))
    assert table["royalties"].startswith("front three_of_a_kind wins 3; middle full_house wins 2")
    assert table["natural_ties"].startswith("by payout")
    assert "fouls" not in table  # scooped, as by default
    mau = dict(describe_rules(PRESETS["mau-binh"]))
    assert mau["fouls"].startswith("a fouled hand pays 6 to each")
    old = dict(describe_rules(PRESETS["mau-binh-rules"]))
    assert old["fouls"].startswith("a fouled hand pays 3")
    plain = dict(describe_rules(PRESETS["chinese-1-6"]))
    assert plain["royalties"].startswith("front three_of_a_kind 3;")  # on top of the row
    assert "natural_ties" not in plain and "fouls" not in plain


# ---- jokers (docs/rules.md#jokers) ----------------------------------------------------


@pytest.mark.parametrize("jokers", [1, 2])
def test_jokers_key_reads_writes_and_enters_the_digest(tmp_path, jokers):
    rules = load_rules(write(tmp_path, f'base = "shisanshui"\njokers = {jokers}\n'))
    assert rules.jokers == jokers
    assert rules.deck.jokers == jokers and rules.deck.size == 52 + jokers
    assert rules.deck_code == "X" * jokers
    assert rules.digest() != PRESETS["shisanshui"].digest()
    assert rules_from_dict(rules.to_dict(), name="ignored") == rules
    assert load_rules(write(tmp_path, to_toml(rules), name="again.toml")) == rules
    # zero jokers leaves the ruleset (and the shipped tables' digest) as it was
    zero = load_rules(write(tmp_path, 'base = "shisanshui"\njokers = 0\n', name="zero.toml"))
    assert zero.digest() == PRESETS["shisanshui"].digest()


@pytest.mark.parametrize(
    "body, words",
    [
        ("jokers = 3", ["jokers must be 0, 1 or 2", "3"]),
        ('jokers = "two"', ["jokers must be 0, 1 or 2"]),
        ("jokers = true", ["jokers must be 0, 1 or 2"]),
        ('base = "capsa"\njokers = 1', ["jokers = 1", "suit_order", "jokers = 0"]),
        ("royalties_dealt = true\njokers = 2", ["jokers = 2", "royalties_dealt"]),
    ],
)
def test_jokers_key_errors_name_the_keys(tmp_path, body, words):
    with pytest.raises(RulesError) as err:
        load_rules(write(tmp_path, body + "\n"))
    message = str(err.value)
    assert "\n" not in message
    for word in words:
        assert word in message
