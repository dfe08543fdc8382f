"""A ruleset at more players than its deck deals: the table the apps deal for them.

The 52-card deck deals four hands. 十三水 apps seat five and six by adding a suit
(docs/rules.md#added-suits); at such a table they also pay what only that deck makes:
five of a kind in the middle and the back, and the special hands of many of a kind.
``seated(rules, players)`` gives the ruleset of that table, as the ``shisanshui`` preset
says (``BIG_TABLES``); any other ruleset at more players than its deck deals is one line
naming the key to set (``extra_suits``). A ruleset file that sets ``extra_suits`` itself
plays what the file says.

Jokers (``with_jokers``): atom-chen/ShiSanShuiServer ``core/card_define.lua``
(``GStars_Ghost_Cards``, two jokers; ``GStars_Ext_Score``: ``PT_THREE_GHOST``, a front
of both jokers 1 + 19) and ``lib/lib_game.lua:133-154`` (对鬼冲前: that front beats
every front without both jokers).

Sources: atom-chen/ShiSanShuiServer ``script_thirteen/lib/lib_hack_config.lua`` (at
least 加一色 for five players, 加二色 for six), ``core/card_define.lua``
(``GStars_Normal_Score`` / ``GStars_Ext_Score``: a five of a kind is worth 10 + 10 in the
middle and 10 + 0 in the back; ``GStars_Special_Score``: 六六大顺 20, 三皇五帝 26, 7同 40,
8同 80 a player), ``lib/lib_sp_card_logic.lua`` (``GetSpecialType``: their order among
the others, the first that holds wins).
"""

from __future__ import annotations

import dataclasses

from solver.engine.rule_values import check_deck
from solver.engine.rules import PRESETS, Rules

__all__ = ["BIG_TABLES", "at_table", "base_name", "seated", "with_jokers"]


@dataclasses.dataclass(frozen=True)
class BigTable:
    """What a preset changes at a table of more players than the 52-card deck deals:
    the deck by players, royalty lines added, and naturals each inserted before the
    natural named beside it (None: last)."""

    extra_suits: dict[int, str]
    royalties: tuple[tuple[str, str, float], ...]
    naturals: tuple[tuple[str, float, str | None], ...]
    #: what a front holding both jokers is paid (对鬼冲前; with two jokers only)
    two_jokers: tuple[tuple[str, str, float], ...] = ()


#: The presets that seat more players than 52 cards deal, and how.
BIG_TABLES: dict[str, BigTable] = {
    "shisanshui": BigTable(
        extra_suits={5: "h", 6: "hc"},
        royalties=(("middle", "five_of_a_kind", 20), ("back", "five_of_a_kind", 10)),
        naturals=(
            ("eight_of_a_kind", 80, "dragon"),
            ("seven_of_a_kind", 40, "twelve_royals_and_one"),
            ("two_fives_trips", 26, "twelve_royals_and_one"),
            ("six_of_a_kind", 20, "all_high"),
        ),
        two_jokers=(("front", "two_jokers", 20),),
    ),
}


#: Presets that play jokers as another preset's tables do (the same game at another table:
#: 十三水's 水庄 pays five of a kind and the hands of many of a kind as 十三水 does).
SAME_GAME: dict[str, str] = {"shisanshui-banker": "shisanshui"}


def seated(rules: Rules, players: int) -> Rules:
    """``rules`` at a table of ``players``: the same ruleset while its deck deals them
    (with ``players`` set to the table's where it plays the home run, whose value the
    field reckons at the table: docs/rules.md#the-field-and-the-home-run), else the bigger
    table its preset names (``BIG_TABLES``, named ``shisanshui-5``); RulesError, one line
    naming ``extra_suits``, for a ruleset that names none."""
    if players <= rules.deck.most_players():
        if rules.home_run_multiplier != 1 and rules.players != players:
            return dataclasses.replace(rules, players=players)
        return rules
    table = BIG_TABLES.get(rules.name)
    if table is None or PRESETS.get(rules.name) != rules or players not in table.extra_suits:
        _no_seat(rules, players)
    assert table is not None
    naturals = list(rules.naturals)
    for name, units, before in table.naturals:
        at = [n for n, _ in naturals].index(before) if before is not None else len(naturals)
        naturals.insert(at, (name, units))
    return dataclasses.replace(
        rules,
        name=f"{rules.name}-{players}",
        players=players,
        extra_suits=table.extra_suits[players],
        royalties=(*rules.royalties, *table.royalties),
        naturals=tuple(naturals),
    )


def _no_seat(rules: Rules, players: int) -> None:
    """RulesError: ``rules`` cannot seat ``players``: ``check_deck``'s line naming the
    ruleset file's key (``extra_suits``), with the presets that seat them first (the
    command line's way there, ``--rules shisanshui``)."""
    from solver.engine.errors import RulesError

    try:
        check_deck(rules.extra_suits, players)
    except RulesError as exc:
        seat = [name for name, table in BIG_TABLES.items() if players in table.extra_suits]
        head, _, keys = str(exc).partition(": set ")
        if not seat or not keys:
            raise
        names = " or ".join(seat)
        flags = ", ".join(f"--rules {name}" for name in seat)
        raise RulesError(
            f"{head}: the preset {names} seats {players} ({flags}: it adds a suit), "
            f"or set {keys} in a ruleset file"
        ) from None


def with_jokers(rules: Rules, jokers: int) -> Rules:
    """``rules`` with ``jokers`` jokers in the deck (docs/rules.md#jokers), named
    ``NAME-jokers-N`` (``NAME`` its ``base_name``: a table given jokers before, say a file
    ``capsa rules shisanshui --jokers 2 -f toml`` wrote, is named for its deck now, not
    ``shisanshui-jokers-2-jokers-1``, and a preset's table given jokers here is that
    preset's table again before it is given others); the same ruleset when it deals that
    many already. A preset of
    ``BIG_TABLES`` also pays what jokers make possible as its bigger tables do: five of a
    kind in the middle and back, and the special hands of many of a kind a rank can reach
    with the jokers (six of a kind with two; two fives and trips). RulesError, one line,
    for a ruleset jokers do not play with (a suit order, dealt royalties)."""
    from solver.engine.rule_values import check_jokers

    jokers = check_jokers(jokers)
    if jokers == rules.jokers:
        return rules
    rules = _without_jokers(rules)
    if jokers == rules.jokers:
        return rules
    name = rules.name.rsplit("-", 1)[0] if rules.extra_suits else rules.name
    table = BIG_TABLES.get(SAME_GAME.get(name, name))
    royalties = rules.royalties
    naturals = list(rules.naturals)
    if table is not None and jokers:
        have = {(r, h) for r, h, _ in royalties}
        lines = (*table.royalties, *(table.two_jokers if jokers == 2 else ()))
        royalties = (*royalties, *(line for line in lines if line[:2] not in have))
        most = rules.deck.of_a_rank + jokers  # the most cards of one rank a hand can hold
        reach = {"six_of_a_kind": 6, "seven_of_a_kind": 7, "eight_of_a_kind": 8}
        names = [n for n, _ in naturals]
        for name, units, before in table.naturals:
            if name in names or reach.get(name, 5) > most:
                continue
            at = names.index(before) if before in names else len(naturals)
            naturals.insert(at, (name, units))
            names.insert(at, name)
    base = base_name(rules)
    return dataclasses.replace(
        rules,
        name=f"{base}-jokers-{jokers}" if jokers else base,
        jokers=jokers,
        royalties=royalties,
        naturals=tuple(naturals),
    )


def base_name(rules: Rules) -> str:
    """The name of ``rules`` without the suffix ``with_jokers`` gives a table for its
    jokers (``-jokers-N``, N the jokers the ruleset deals): ``shisanshui-jokers-2`` at two
    jokers is ``shisanshui``, ``shisanshui-5-jokers-1`` ``shisanshui-5``; a name that
    ends so without dealing those jokers is a name of its own, kept whole."""
    suffix = f"-jokers-{rules.jokers}"
    if rules.jokers and rules.name.endswith(suffix) and len(rules.name) > len(suffix):
        return rules.name[: -len(suffix)]
    return rules.name


def _without_jokers(rules: Rules) -> Rules:
    """The preset's table (``PRESETS``, or ``seated`` at five or six) that ``with_jokers``
    made ``rules`` of, as a file ``capsa rules shisanshui --jokers 2 -f toml`` writes it
    keeps it; else ``rules`` itself (what it pays for its jokers is its own then)."""
    base = base_name(rules)
    if base == rules.name:
        return rules
    table = PRESETS.get(base)
    if table is None:
        name, _, players = base.rpartition("-")
        big = BIG_TABLES.get(name)
        if big is not None and players.isdigit() and int(players) in big.extra_suits:
            table = seated(PRESETS[name], int(players))
    if table is not None and table.jokers == 0 and with_jokers(table, rules.jokers) == rules:
        return table
    return rules


def at_table(rules: Rules, players: int | None = None, jokers: int | None = None) -> Rules:
    """The ruleset of the table a front end is asked for (``--players``, ``--jokers``):
    ``rules`` seated at ``players`` (``seated``), then with ``jokers`` jokers
    (``with_jokers``, named ``NAME-jokers-N`` or ``shisanshui-5-jokers-N``); None keeps
    the ruleset's own. RulesError, one line, for a table neither gives."""
    table = seated(rules, players) if players else rules
    return table if jokers is None else with_jokers(table, jokers)
