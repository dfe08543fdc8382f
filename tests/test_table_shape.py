"""The table's shape is written once (solver/engine/table_shape.py,
docs/architecture.md#the-tables-shape): a scan of solver/ for a literal 52, a 2-to-4
player bound or a 64-bit card mask anywhere else, and the fronts (the CLI's bounds, the
checks, the web API and the page) read from the module."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest
import typer

import evaluator as ev
from evaluator.cards import RANKS, SUITS
from solver.apps.web.api import _styles
from solver.cli import app as cli_app
from solver.engine import layout
from solver.engine.errors import InputError, RulesError
from solver.engine.options import SolveOptions
from solver.engine.rule_values import check_min_opponents, check_players
from solver.engine.rules import Rules
from solver.engine.settlement import settle_table
from solver.engine.table_shape import (
    DECKS,
    HAND_SIZE,
    MASK_BITS,
    MAX_OPPONENTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_SIZES,
    STANDARD_DECK,
    TABLE_MAX_PLAYERS,
    Deck,
    deck_of,
    table_shape,
)
from solver.strategy.solving.solve import _players_against

ROOT = Path(__file__).resolve().parent.parent
SOLVER = ROOT / "solver"
STATIC = SOLVER / "apps" / "web" / "static"

#: Where the shape may be written down besides table_shape.py: the kernels, whose numba
#: code reads compile-time constants and card-id bit tricks
#: (docs/architecture.md#kernels-and-their-oracles).
KERNELS = {"solver/engine/_kernels.py", "solver/strategy/_kernels.py"}
#: Lines whose 52 is not the deck: the naturals' payouts in units (docs/rules.md).
NOT_THE_DECK = {
    ("solver/engine/rule_values.py", '("dragon", 52),'),
    ("solver/engine/rule_values.py", '("four_trips", 52),'),
    ("solver/engine/rule_values.py", '("three_quads", 52),'),
}
_BOUND_NAMES = re.compile(r"player|opp|\bk\b", re.IGNORECASE)
#: A card id's rank or suit by four suits: ``c >> 2``, ``c & 3``, ``c // 4``, ``c % 4``.
_SUIT_TRICKS = {(ast.RShift, 2), (ast.BitAnd, 3), (ast.FloorDiv, 4), (ast.Mod, 4)}


def _int(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def shape_literals(source: str, rel: str = "<snippet>") -> list[str]:
    """Every place in ``source`` that writes the table's shape down: a literal 52, a
    2-to-4 player bound (a chained ``2 <= k <= 4``, ``min=2, max=4``, ``f(x, 2, 4)``, or
    a comparison of players, opponents or seats with 2, 3 or 4), a 64-bit card mask
    (``np.uint64``, ``"uint64"``, ``"<u8"``) or a card-id bit trick that assumes four
    suits (``c >> 2``, ``c & 3``, ``c // 4``, ``c % 4``: ``Deck.rank`` and ``Deck.suit``)."""
    lines = source.splitlines()
    found = []

    def flag(node: ast.AST, why: str) -> None:
        line = lines[node.lineno - 1].strip()
        if (rel, line) not in NOT_THE_DECK:
            found.append(f"{rel}:{node.lineno}: {why}: {line}")

    for node in ast.walk(ast.parse(source)):
        if _int(node) == 52:
            flag(node, "a literal 52")
        elif isinstance(node, ast.Attribute) and node.attr == "uint64":
            flag(node, "a 64-bit mask type")
        elif isinstance(node, ast.Constant) and node.value in ("uint64", "<u8"):
            flag(node, "a 64-bit mask type")
        elif isinstance(node, ast.BinOp) and (type(node.op), _int(node.right)) in _SUIT_TRICKS:
            flag(node, "a card-id bit trick")
        elif isinstance(node, ast.Compare):
            ints = {_int(n) for n in [node.left, *node.comparators]} - {None}
            if {2, 4} <= ints:
                flag(node, "a 2-to-4 bound")
            elif (
                ints & {2, 3, 4}
                and not any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops)
                and _BOUND_NAMES.search(ast.unparse(node))
            ):
                flag(node, "a player or opponent bound")
        elif isinstance(node, ast.Call):
            kw = {k.arg: _int(k.value) for k in node.keywords}
            args = [_int(a) for a in node.args]
            if (kw.get("min"), kw.get("max")) == (2, 4) or any(
                pair == (2, 4) for pair in zip(args, args[1:], strict=False)
            ):
                flag(node, "a 2-to-4 bound")
    return found


def test_the_scan_finds_each_kind_of_shape_literal():
    snippets = {
        "deck = np.arange(52)": "a literal 52",
        "full = (1 << 52) - 1": "a literal 52",
        "if not 2 <= k <= 4: pass": "a 2-to-4 bound",
        'o = typer.Option("--players", min=2, max=4)': "a 2-to-4 bound",
        'p = _whole(players, "players", 2, 4)': "a 2-to-4 bound",
        "if n_opp > 3: pass": "a player or opponent bound",
        "if len(opponents) > 3: pass": "a player or opponent bound",
        "m = np.asarray(masks, np.uint64)": "a 64-bit mask type",
        'a = ("masks", "<u8", 0)': "a 64-bit mask type",
        "r = c >> 2": "a card-id bit trick",
        "s = cards & 3": "a card-id bit trick",
        "ranks = cards[:, :3] // 4": "a card-id bit trick",
        "suit = face % 4": "a card-id bit trick",
    }
    for source, why in snippets.items():
        found = shape_literals(source)
        assert len(found) == 1 and why in found[0], (source, found)
    assert shape_literals("x = MAX_PLAYERS\nsplit = np.empty((n, 3))\nif a > 4: pass") == []
    assert shape_literals("if len(parts) == 3 or n_opp == 2: pass") == []


def test_no_shape_literal_outside_the_module_and_the_kernels():
    found = []
    for path in sorted(SOLVER.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in KERNELS or rel == "solver/engine/table_shape.py":
            continue
        found += shape_literals(path.read_text(encoding="utf-8"), rel)
    assert found == [], "write the table's shape from solver.engine.table_shape:\n" + "\n".join(
        found
    )


def test_the_allow_list_is_still_needed():
    """Each line the scan lets pass is still in its file (a stale entry would hide one)."""
    for rel, line in NOT_THE_DECK:
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert any(ln.strip() == line for ln in text.splitlines()), (rel, line)
    for rel in KERNELS:
        assert (ROOT / rel).is_file(), rel


# ---- the module ----------------------------------------------------------------------


def test_the_standard_deck_is_the_evaluators_cards():
    d = STANDARD_DECK
    assert (d.ranks, d.suits, d.copies, d.extra_suits) == (len(RANKS), len(SUITS), 1, ())
    assert d.size == len(RANKS) * len(SUITS) == len(list(d.cards())) == ev.FACES
    assert d.full_mask == sum(1 << c for c in d.cards()) == (1 << d.size) - 1
    for c in d.cards():
        assert ev.card_id(d.rank(c), d.suit(c)) == c == d.face(c)
        assert ev.format_card(c) == RANKS[d.rank(c)] + SUITS[d.suit(c)]
    assert HAND_SIZE == sum(ROW_SIZES) and len(ROW_SIZES) == 3
    assert layout.ROW_SIZES == ROW_SIZES  # the kernels' copy (a registered kernel source)
    assert MAX_PLAYERS == d.size // HAND_SIZE and MAX_OPPONENTS == MAX_PLAYERS - 1
    assert MIN_PLAYERS == 2


def test_the_added_suit_decks_and_their_ids():
    """加一色 deals the hearts twice (65 cards, 5 players), 加二色 hearts and clubs (78, 6);
    a second copy's id is its face's + 52, the same ids as the evaluator's."""
    assert list(DECKS) == list(ev.EXTRA_SUITS) == ["", "h", "hc"]
    assert [(d.size, d.most_players()) for d in DECKS.values()] == [(52, 4), (65, 5), (78, 6)]
    assert TABLE_MAX_PLAYERS == 6 and DECKS[""] is not None and DECKS[""] == STANDARD_DECK
    for extra, d in DECKS.items():
        assert d.extra_letters == extra and deck_of(extra) is d
        ids = d.cards()
        assert ids == sorted(set(ids)) == ev.deck_ids(extra).tolist() and len(ids) == d.size
        assert d.fits_mask == (extra == "")  # a 65- or 78-card hand is past a 64-bit mask
        for c in ids:
            face = d.face(c)
            assert face < d.faces and (c == face or c == face + d.faces)
            assert (d.rank(c), d.suit(c)) == (d.rank(face), d.suit(face))
            assert d.copies_of(face) == sum(d.face(x) == face for x in ids)
        assert {d.suit(c) for c in ids if c >= d.faces} == {SUITS.index(s) for s in extra}
    assert DECKS["h"].cards()[52:54] == [52 + 2, 52 + 6] and DECKS["h"].copies == 2


def test_a_deck_is_checked():
    for bad in ({"ranks": 0}, {"extra_suits": (2, 2)}, {"extra_suits": (4,)}):
        with pytest.raises(ValueError, match="deck"):
            Deck(**bad)
    assert Deck(suits=2).most_players() == 2 and MASK_BITS >= STANDARD_DECK.size


def test_rules_carry_the_deck_of_extra_suits():
    r = Rules()
    assert r.deck == STANDARD_DECK and r.extra_suits == ""
    assert "deck" not in r.to_dict() and "extra_suits" not in r.to_dict()
    five = Rules(extra_suits="h", players=5)
    assert five.deck == DECKS["h"] and five.to_dict()["extra_suits"] == "h"
    assert Rules(extra_suits="HC", players=6).deck.size == 78
    assert Rules(extra_suits="hc").digest() != r.digest() != five.digest()
    from solver.engine.rules import rules_from_dict
    from solver.engine.ruleset_files import ruleset_data, to_toml

    back = rules_from_dict(ruleset_data(to_toml(replace(five, name="five"))), name="x")
    assert back == replace(five, name="five")  # the TOML a ruleset writes reads back
    with pytest.raises(TypeError):
        Rules(deck=Deck(suits=2))  # type: ignore[call-arg]  # the deck is extra_suits'


@pytest.mark.parametrize(
    "extra, players, fits",
    [("", 4, True), ("", 5, False), ("h", 5, True), ("h", 6, False), ("hc", 6, True)],
)
def test_a_deck_too_small_for_its_players_names_both_keys(extra, players, fits):
    if fits:
        assert Rules(extra_suits=extra, players=players).deck.most_players() >= players
        return
    with pytest.raises(RulesError) as err:
        Rules(extra_suits=extra, players=players)
    text = str(err.value)
    assert "\n" not in text and "players = " in text and "extra_suits = " in text
    assert f'"{extra}" ({DECKS[extra].size} cards' in text


def test_extra_suits_takes_up_to_two_of_clubs_hearts_spades():
    """docs/rules.md#added-suits: in the order the app adds them; not the diamonds (the
    jokers' ids are their second copies), no suit twice, two at most."""
    assert [Rules(extra_suits=e).extra_suits for e in ("c", "CH", " sc ")] == ["c", "ch", "sc"]
    for bad in ("d", "hd", "hh", "hcs", 1, True):
        with pytest.raises(RulesError, match="extra_suits must be"):
            Rules(extra_suits=bad)  # type: ignore[arg-type]
    assert Rules(extra_suits="none").extra_suits == "" == Rules(extra_suits=False).extra_suits  # type: ignore[arg-type]


def test_a_bigger_deck_plays_with_field_tables_of_its_own(tmp_path):
    """Added suits compile on the copies scale and read field tables of their own deck:
    the shisanshui preset's at five and six players are shipped (row keys on the copies
    scale, the rank shift counting up to five and six cards of a rank); another ruleset
    of such a deck has none until ``ensure_field`` trains them (a solve does). A ruleset
    file with added suits reads (tests/test_big_tables.py plays these tables)."""
    from typer.testing import CliRunner

    from solver.engine.compiled import compile_rules
    from solver.engine.rules import PRESETS
    from solver.engine.seating import seated
    from solver.strategy.field_model.trained import find_field

    for extra, players in (("h", 5), ("hc", 6)):
        cr = compile_rules(seated(PRESETS["shisanshui"], players))
        assert len(cr.arrays.remap) == 11_648 and cr.rules.extra_suits == extra  # copies
        found = find_field(cr)
        assert found is not None and found.dist.shape == (3, cr.nkey)
        assert found.rank.shape[2] == cr.rules.deck.of_a_rank + 1 == 4 + len(extra) + 1
        assert find_field(compile_rules(Rules(extra_suits=extra, players=players))) is None
    path = tmp_path / "five.toml"
    path.write_text('base = "shisanshui"\nextra_suits = "h"\nplayers = 5\n', encoding="utf-8")
    shown = CliRunner().invoke(cli_app, ["rules", str(path)])
    assert shown.exit_code == 0 and "65 cards" in shown.output


# ---- the checks and the fronts read it -------------------------------------------------


def test_every_player_check_takes_the_bounds_from_the_module():
    for n in (MIN_PLAYERS, MAX_PLAYERS):
        assert check_players(n) == n and Rules(players=n).players == n
        assert SolveOptions(players=n).check().players == n
    # a ruleset seats up to the biggest deck's players (the deck it needs is checked apart)
    assert check_players(TABLE_MAX_PLAYERS) == TABLE_MAX_PLAYERS
    for n in (MIN_PLAYERS - 1, TABLE_MAX_PLAYERS + 1):
        with pytest.raises(RulesError, match=f"from {MIN_PLAYERS} to {TABLE_MAX_PLAYERS}"):
            check_players(n)
    # a solve asks up to the biggest deck's players too: the ruleset's deck decides
    assert SolveOptions(players=TABLE_MAX_PLAYERS).check().players == TABLE_MAX_PLAYERS
    for n in (MIN_PLAYERS - 1, TABLE_MAX_PLAYERS + 1):
        bound = f"players must be from {MIN_PLAYERS} to {TABLE_MAX_PLAYERS},"
        with pytest.raises(InputError, match=bound):
            SolveOptions(players=n).check()
    for n in (MIN_PLAYERS - 1, MAX_PLAYERS + 1):
        with pytest.raises(InputError, match=f"{MIN_PLAYERS} to {MAX_PLAYERS} players"):
            settle_table(["As Ks Qs | 9h 9d 9c 3d 2s | Js Ts 7d 5h 4c"] * n)
    assert check_min_opponents(MAX_OPPONENTS) == MAX_OPPONENTS
    with pytest.raises(RulesError, match=f"1 to {MAX_OPPONENTS}"):
        check_min_opponents(MAX_OPPONENTS + 1)
    assert _players_against(MAX_OPPONENTS, None) == MAX_PLAYERS
    with pytest.raises(InputError, match=f"at most {MAX_OPPONENTS} opponents"):
        _players_against(MAX_OPPONENTS + 1, None)


def test_the_cli_players_bounds_are_the_modules():
    command = typer.main.get_command(cli_app)
    for name in ("solve", "batch", "strength", "duel", "train"):  # each seats 5 and 6
        (players,) = [p for p in command.commands[name].params if p.name == "players"]
        assert (players.type.min, players.type.max) == (MIN_PLAYERS, TABLE_MAX_PLAYERS), name


def test_the_web_api_gives_the_shape_and_bounds_the_opponents():
    from starlette.testclient import TestClient

    from solver.apps.web import create_app

    assert _styles(",".join(["field"] * MAX_OPPONENTS)) == ",".join(["field"] * MAX_OPPONENTS)
    with pytest.raises(InputError, match=f"{MAX_OPPONENTS} at most"):
        _styles(["field"] * (MAX_OPPONENTS + 1))
    with TestClient(create_app()) as client:
        table = client.get("/api/rules").json()["table"]
    assert table == table_shape()
    assert (table["min_players"], table["max_players"]) == (MIN_PLAYERS, MAX_PLAYERS)
    assert table["deck"]["cards"] == STANDARD_DECK.size and table["row_sizes"] == [3, 5, 5]


def test_the_page_builds_its_players_menu_from_the_api():
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    (select,) = re.findall(r'<select id="players"[^>]*>(.*?)</select>', html, re.S)
    assert select.strip() == "", "the players menu comes from /api/rules, not the page"
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    assert "state.shape = data.table;" in js  # the bounds: the table's shape
    assert re.search(r"const least = state\.shape\.min_players;", js)
    # each ruleset's most (GET /api/rules: max_players, 6 under shisanshui)
    assert re.search(r"const most = \(d && d\.max_players\) \|\| state\.shape\.max_players;", js)
    assert re.search(r"for \(let n = least; n <= most; n\+\+\)", js)
    assert '$("#players").replaceChildren(' in js
