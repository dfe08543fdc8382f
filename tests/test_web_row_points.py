"""A showdown pair's points row by row (issue 53, item 6), through POST /api/table: each
row's units as the oracle (tests/reference.py) pays that row, and the rows with what the
pair adds beyond them (scoop, majority, dealt cards, cap, foul, home run, code card)
summing to the pair's units as the oracle settles the table, across the royalty modes,
on random tables."""

from __future__ import annotations

import numpy as np
import pytest

import evaluator as ev
from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.strategy.hands.deal import random_hands
from tests import reference as ref
from tests.test_web_showdown import (
    client,  # noqa: F401 - the fixture
    entry,
    random_setting,
    rules_from_toml,
    table,
)

ALWAYS = 'base = "chinese-1-6"\nroyalty_mode = "always"\none_royalty_per_hand = true\n'
#: The royalty modes and the rest of what a pair may pay, each on a table of its own:
#: the ruleset, and what its 16 random tables pay beyond the rows.
TABLES = {
    "chinese-1-6": ("chinese-1-6", {"scoop"}),  # winner, the scoop's 3
    "cancel": ('base = "chinese-1-6"\nroyalty_mode = "cancel"\n', {"scoop"}),
    "always": (ALWAYS, {"scoop"}),
    "dealt": ('base = "chinese-2-4"\nroyalties_dealt = true\n', {"dealt", "majority"}),
    "pusoy": ("pusoy", {"majority"}),
    "shisanshui": ("shisanshui", {"scoop"}),  # a royalty is the row's whole value, 打枪 x2
    "mau-binh": ("mau-binh", {"foul", "scoop"}),  # the flat foul payment
    "code-card": ('base = "shisanshui"\ncode_card = "8h"\n', {"code_card", "scoop"}),
    "banker": ("shisanshui-banker", {"scoop"}),  # the scoop's added unit
}


def greedy(hand: np.ndarray, cr) -> str:
    """The hand set as the greedy opponents set theirs (strongest back, then middle)."""
    from solver.strategy.field_model.policy import set_sorted_hands, settings_of

    split, *_ = set_sorted_hands(hand[None], cr, "greedy", None)
    cards = [ev.format_card(int(c)) for c in settings_of(hand[None], split)[0]]
    return " | ".join(" ".join(cards[a:b]) for a, b in ((0, 3), (3, 8), (8, 13)))


def oracle_rows(a, b, rules) -> list[float]:
    """Each row's units from A's side, from the oracle's summaries: the row's result, and
    the royalty the mode pays on it (a fouled hand loses every row and collects none)."""
    sa, sb = ref._hand_summary(a, rules), ref._hand_summary(b, rules)
    results = ref.ref_row_results(a, b, rules)
    roy_a = sa[2] if sa[0] else (0.0, 0.0, 0.0)
    roy_b = sb[2] if sb[0] else (0.0, 0.0, 0.0)
    out = []
    for i, w in enumerate(results):
        if rules.royalty_mode == "always":
            out.append(w + roy_a[i] - roy_b[i])
            continue
        if w == 0 or (rules.royalty_mode == "cancel" and roy_a[i] > 0 and roy_b[i] > 0):
            out.append(float(w))
            continue
        mine = roy_a[i] if w == 1 else roy_b[i]
        if getattr(rules, "royalty_replaces_row", False):
            out.append(w * (mine if mine > 0 else 1.0))
        else:
            out.append(w * (1.0 + mine))
    return out


@pytest.mark.parametrize("name", list(TABLES))
def test_each_rows_points_and_the_rest_add_up_to_the_pair(client, name):  # noqa: F811
    text, paid = TABLES[name]
    rules = load_rules(text) if "=" not in text else rules_from_toml(text)
    cr = compile_rules(rules)
    rng = np.random.default_rng(53)
    kinds: set[str] = set()
    for i, hand in enumerate(random_hands(rng, 16)):
        played = random_setting(hand, rng)
        if i % 2:  # the greedy setting: legal, and scoops now and then
            played = greedy(hand, cr)
        d = table(client, hand=ev.format_cards(hand), played=played, rules=text, seed=i,
                  players=2 + i % 3, opponents="greedy")  # fmt: skip
        entries = [entry(s, rules) for s in d["seats"]]
        units = ref.ref_table_units(entries, rules, banker=d["banker"] or 0)
        for p in d["pairs"]:
            j = p["seat"]
            kinds.update(e["kind"] for e in p["extras"])
            rows = p["row_units"] or []
            total = sum(rows) + sum(e["units"] for e in p["extras"])
            assert total == pytest.approx(units[0][j], abs=1e-9), (name, i, p)
            assert p["units"] == pytest.approx(units[0][j], abs=1e-9)
            if p["row_units"] is not None:
                a, b = entries[0], entries[j]
                assert p["row_units"] == pytest.approx(oracle_rows(a, b, rules), abs=1e-9)
    assert paid <= kinds, (name, kinds)


def test_a_scoop_is_paid_beside_its_rows(client):  # noqa: F811
    """十三水: a royal flush, a full house and queens' trips scoop two dealt opponents:
    each pair's rows pay what the oracle pays them (trips' 3 as the front's whole value,
    the middle's full house 2), 打枪 doubles the pair (the scoop's extra is the rows' sum
    again), then 全垒打 doubles it again (the home run's extra is the pair so far)."""
    rules = load_rules("shisanshui")
    strong = "Qh Qd Qc | Ah Ad Ac Kh Kd | As Ks Qs Js Ts"
    for seed in range(200):
        d = table(client, hand=strong.replace("|", ""), played=strong, rules="shisanshui",
                  seed=seed, players=3)  # fmt: skip
        if d["home_run"] == 0:
            break
    else:
        pytest.fail("no table of 200 where the hand scoops both opponents")
    for p in d["pairs"]:
        a, b = entry(d["seats"][0], rules), entry(d["seats"][p["seat"]], rules)
        rows = p["row_units"]
        assert rows == pytest.approx(oracle_rows(a, b, rules)) and rows[:2] == [3, 2]
        assert [e["kind"] for e in p["extras"]] == ["scoop", "home_run"]
        assert p["extras"][0]["units"] == pytest.approx(sum(rows))
        assert p["extras"][1]["units"] == pytest.approx(2 * sum(rows))
        assert p["units"] == pytest.approx(4 * sum(rows))


@pytest.mark.parametrize("mode", ["winner", "cancel", "always"])
def test_a_row_both_sides_earn_a_royalty_on(mode):
    """Both middles a full house, the backs a straight flush and four of a kind: each
    row's royalty paid by its loser (winner), by nobody (cancel) or each side's own
    (always), row by row as the oracle pays it (random tables seldom deal two royalties
    in one row)."""
    from solver.apps.web.row_points import pair_points
    from solver.engine.settlement import summarize

    rules = rules_from_toml(f'base = "chinese-1-6"\nroyalty_mode = "{mode}"\n')
    cr = compile_rules(rules)
    mine = "2h 3d 4c | Kh Kd Kc 5s 5d | As Ks Qs Js Ts"
    theirs = "7h 8d Tc | Qh Qd Qc 6s 6d | 9s 9h 9d 9c 2s"
    seats = [[ev.as_cards(r).tolist() for r in s.split("|")] for s in (mine, theirs)]
    flat = [np.array([c for row in s for c in row], np.uint8) for s in seats]
    sums = [summarize(s, cr) for s in flat]
    a, b = (tuple(tuple(row) for row in s) for s in seats)
    units = ref.ref_settle(a, b, rules)
    p = pair_points(0, 1, (flat, sums, np.zeros(2, bool), None), cr, units)
    assert p["rows"] == pytest.approx(oracle_rows(a, b, rules))
    assert sum(p["rows"]) + sum(e["units"] for e in p["extras"]) == pytest.approx(units)
