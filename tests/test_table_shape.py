"""The table's shape is written once (solver/engine/table_shape.py,
docs/architecture.md#the-tables-shape): a scan of solver/ for a literal 52, a 2-to-4
player bound or a 64-bit card mask anywhere else, and the fronts (the CLI's bounds, the
checks, the web API and the page) read from the module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import typer

import evaluator as ev
from evaluator.cards import RANKS, SUITS
from solver.apps.strength import _check as strength_check
from solver.apps.web.api import _styles
from solver.cli import app as cli_app
from solver.engine import layout
from solver.engine.errors import InputError, RulesError
from solver.engine.rule_values import check_min_opponents, check_players
from solver.engine.rules import Rules
from solver.engine.settlement import settle_table
from solver.engine.table_shape import (
    HAND_SIZE,
    MASK_BITS,
    MAX_OPPONENTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_SIZES,
    STANDARD_DECK,
    Deck,
    table_shape,
)
from solver.strategy.solve import _players_against

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


def _int(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def shape_literals(source: str, rel: str = "<snippet>") -> list[str]:
    """Every place in ``source`` that writes the table's shape down: a literal 52, a
    2-to-4 player bound (a chained ``2 <= k <= 4``, ``min=2, max=4``, ``f(x, 2, 4)``, or
    a comparison of players, opponents or seats with 2, 3 or 4) or a 64-bit card mask
    (``np.uint64``, ``"uint64"``, ``"<u8"``)."""
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
    assert (d.ranks, d.suits, d.copies) == (len(RANKS), len(SUITS), 1)
    assert d.size == len(RANKS) * len(SUITS) == len(list(d.cards()))
    assert d.full_mask == sum(1 << c for c in d.cards())
    for c in d.cards():
        assert ev.card_id(d.rank(c), d.suit(c)) == c
        assert ev.format_card(c) == RANKS[d.rank(c)] + SUITS[d.suit(c)]
    assert HAND_SIZE == sum(ROW_SIZES) and len(ROW_SIZES) == 3
    assert layout.ROW_SIZES == ROW_SIZES  # the kernels' copy (a registered kernel source)
    assert MAX_PLAYERS == d.size // HAND_SIZE and MAX_OPPONENTS == MAX_PLAYERS - 1
    assert MIN_PLAYERS == 2


def test_a_deck_fits_a_card_mask():
    with pytest.raises(ValueError, match="deck"):
        Deck(ranks=13, suits=5)  # 65 cards: past a 64-bit mask
    assert Deck(suits=2).most_players() == 2 and MASK_BITS >= STANDARD_DECK.size


def test_rules_carry_the_deck_outside_the_digest():
    r = Rules()
    assert r.deck == STANDARD_DECK
    assert "deck" not in r.to_dict()
    with pytest.raises(RulesError, match="deck"):
        Rules(deck=Deck(suits=2))


# ---- the checks and the fronts read it -------------------------------------------------


def test_every_player_check_takes_the_bounds_from_the_module():
    for n in (MIN_PLAYERS, MAX_PLAYERS):
        assert check_players(n) == n and Rules(players=n).players == n
        strength_check(10, n, ["field", "greedy"], 1, 10)
    for n in (MIN_PLAYERS - 1, MAX_PLAYERS + 1):
        with pytest.raises(RulesError, match=f"from {MIN_PLAYERS} to {MAX_PLAYERS}"):
            check_players(n)
        with pytest.raises(InputError, match=f"{MIN_PLAYERS} to {MAX_PLAYERS}"):
            strength_check(10, n, ["field", "greedy"], 1, 10)
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
    for name in ("solve", "batch", "strength", "duel"):
        (players,) = [p for p in command.commands[name].params if p.name == "players"]
        assert (players.type.min, players.type.max) == (MIN_PLAYERS, MAX_PLAYERS), name


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
    assert re.search(r"data\.table\.min_players;\s*n <= data\.table\.max_players", js)
    assert '$("#players").replaceChildren(' in js
