"""The code card (马牌, docs/rules.md#the-code-card): the ruleset keys, and every pair of
its holder multiplied, through ``settle``, ``settle_table``, ``--against`` and the Monte
Carlo, each against the oracle tests/reference.py (``ref_settle``, ``ref_settle_table``).

In a 52-card deck only one player holds the code card, so "both hold a copy" (multiplied
once) cannot be dealt here; the oracle and the kernel both write it as "either holds"."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import solver
from evaluator import parse_hand
from solver.engine import settlement as S
from solver.engine.compiled import compile_rules
from solver.engine.rules import PRESETS, Rules, RulesError, load_rules
from solver.strategy.hands.splits import candidates, split_cards
from solver.strategy.solving.against import parse_against
from solver.strategy.solving.scoring import Opponents, score_against, score_exact
from solver.strategy.solving.solve import solve
from tests import reference as R
from tests.helpers import capsa, capsa_in
from tests.test_home_run import RULESETS, crafted_opponents, random_tables, some_candidates, triple
from tests.test_settlement import arrange

CARD = 4 * 6 + 2  # "8h": rank 8 (index 6), hearts (suit 2)


def with_card(r: Rules, card: str = "8h", m: float = 2) -> Rules:
    return dataclasses.replace(r, name=f"{r.name}-code", code_card=card, code_card_multiplier=m)


#: Every scoring system, royalty modes, the home run, flat fouls, and multipliers 2, 3, 0.5.
CODE_RULESETS = {
    "1-6": with_card(PRESETS["chinese-1-6"]),
    "2-4 x3": with_card(PRESETS["chinese-2-4"], m=3),
    "shisanshui": with_card(PRESETS["shisanshui"]),
    "mau-binh x0.5": with_card(PRESETS["mau-binh-rules"], m=0.5),
    "1-6 x2 min3 home run": with_card(RULESETS["1-6 x2 min3"]),
    "always dealt one x2.5 min2": with_card(RULESETS["always dealt one x2.5 min2"], "As", 3),
}


# ------------------------------------------------------------------------- the keys


def test_default_off_and_every_preset_keeps_its_digest():
    for name, r in PRESETS.items():
        assert r.code_card is None and r.code_card_multiplier == 2
        assert r.code_factor == 1.0
        # the multiplier alone changes nothing, nor the digest
        assert dataclasses.replace(r, name="x", code_card_multiplier=3).digest() == r.digest()
        on = dataclasses.replace(r, name="x", code_card="8h")
        assert on.digest() != r.digest(), name
        assert dataclasses.replace(on, code_card_multiplier=3).digest() != on.digest()
        assert compile_rules(load_rules(r)).arrays.params[11] == 1.0


@pytest.mark.parametrize(
    "value, card",
    [
        ("8h", "8h"),
        ("8H", "8h"),
        ("8♥", "8h"),
        ("10s", "Ts"),
        (True, "8h"),
        ("as", "As"),
        (False, None),
        ("none", None),
    ],  # fmt: skip
)
def test_card_texts(value, card):
    assert dataclasses.replace(PRESETS["chinese-1-6"], name="x", code_card=value).code_card == card


@pytest.mark.parametrize(
    "line, key",
    [
        ('code_card = "8x"', "code_card"),
        ('code_card = "8h 9h"', "code_card"),
        ("code_card = 8", "code_card"),
        ('code_card = "8h"\ncode_card_multiplier = 0', "code_card_multiplier"),
        ('code_card = "8h"\ncode_card_multiplier = -2', "code_card_multiplier"),
        ('code_card = "8h"\ncode_card_multiplier = inf', "code_card_multiplier"),
        ('code_card = "8h"\ncode_card_multiplier = nan', "code_card_multiplier"),
        ('code_card = "8h"\ncode_card_multiplier = "2"', "code_card_multiplier"),
    ],
)
def test_bad_values_are_one_line_exit_2(tmp_path, line, key):
    path = tmp_path / "bad.toml"
    path.write_text(f'name = "bad"\n{line}\n', encoding="utf-8")
    done = capsa_in("rules", str(path))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and key in lines[0] and "Traceback" not in done.stderr
    with pytest.raises(RulesError, match=key):
        load_rules(path)


def test_capsa_rules_in_players_words_and_round_trip(tmp_path):
    path = tmp_path / "mapai.toml"
    path.write_text('base = "shisanshui"\nname = "mapai"\ncode_card = "8h"\n', encoding="utf-8")
    shown = capsa_in("rules", str(path))
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "the 8♥ doubles its holder's scores (马牌)" in text
    toml = capsa_in("rules", str(path), "--format", "toml")
    assert 'code_card = "8h"' in toml.stdout and "code_card_multiplier = 2" in toml.stdout
    back = tmp_path / "back.toml"
    back.write_text(toml.stdout, encoding="utf-8")
    assert load_rules(back) == load_rules(path)
    as_json = json.loads(capsa_in("rules", str(path), "--format", "json").stdout)
    assert json.dumps(as_json).count("code_card") >= 2
    three = tmp_path / "three.toml"
    three.write_text('name = "t"\ncode_card = "Qs"\ncode_card_multiplier = 3\n', encoding="utf-8")
    text = " ".join(capsa_in("rules", str(three)).stdout.split())
    assert "the Q♠ multiplies by 3 its holder's scores" in text
    # a preset's file says the key is off, and reads back to the preset
    off = tmp_path / "off.toml"
    off.write_text(capsa_in("rules", "chinese-1-6", "--format", "toml").stdout, encoding="utf-8")
    assert "code_card = false" in off.read_text(encoding="utf-8")
    assert load_rules(off).digest() == PRESETS["chinese-1-6"].digest()


# ------------------------------------------------------------------------- settlement


def pairs_with_card(rng: np.random.Generator, n: int) -> list[tuple]:
    """n pairs of settings (disjoint), the code card in one of them most of the time."""
    out = []
    for _ in range(n):
        deck = rng.permutation(52).astype(np.uint8)
        if rng.random() < 0.8:  # put the 8h among the 26 cards dealt
            at = int(np.flatnonzero(deck == CARD)[0])
            to = int(rng.integers(26))
            deck[[at, to]] = deck[[to, at]]
        a, b = arrange(rng, deck[:26].reshape(2, 13))
        out.append((triple(a), triple(b)))
    return out


@pytest.mark.parametrize("name", list(CODE_RULESETS))
def test_settle_equals_the_oracle(name):
    r = CODE_RULESETS[name]
    plain = dataclasses.replace(r, name="plain", code_card=None)
    rng = np.random.default_rng(len(name))
    held = 0
    card = R._code_card(r)
    for a, b in pairs_with_card(rng, 600):
        got = solver.settle(a, b, r)
        assert got == R.ref_settle(a, b, r), (a, b)
        holds = any(card in row for row in (*a, *b))
        held += holds
        factor = r.code_card_multiplier if holds else 1
        assert got == pytest.approx(factor * solver.settle(a, b, plain), abs=1e-12)
    assert held > 100


@pytest.mark.parametrize("name", list(CODE_RULESETS))
def test_settle_table_equals_the_oracle(name):
    """Random tables of 2 to 4 (naturals declared, surrenders): the holder a player who
    shows the card, or (``holder``) one who declared or surrendered."""
    r = CODE_RULESETS[name]
    card = R._code_card(r)
    rng = np.random.default_rng(7)
    seen = {"shown": 0, "holder": 0}
    for mine, ref in random_tables(800, seed=len(name) + 1, r=r):
        shown = [i for i, e in enumerate(ref) if isinstance(e[0], tuple)]
        hidden = [i for i in range(len(ref)) if i not in shown]
        holder = None
        if not any(card in row for i in shown for row in ref[i]) and hidden:
            if rng.random() < 0.7:
                holder = int(rng.choice(hidden))
        got = solver.settle_table(mine, r, holder=holder)
        want = R.ref_settle_table(ref, r, holder)
        assert got == pytest.approx(want, abs=1e-9), (mine, holder)
        assert sum(got) == pytest.approx(0.0, abs=1e-9)
        seen["shown"] += any(card in row for i in shown for row in ref[i])
        seen["holder"] += holder is not None
    assert seen["shown"] > 100 and seen["holder"] > 10, seen


def test_holder_validation():
    r = CODE_RULESETS["1-6"]
    a = ("Kh Kd Ks", "4c 5d 6h 7s 8h", "2h 7h 9h Th Jh")
    b = ("Qh Qd 4s", "2d 3d 9d Td Jd", "Ac Ad As 6c 6d")
    with pytest.raises(S.InputError, match="holder"):
        solver.settle_table([a, "surrender"], r, holder=0)  # seat 0 shows its cards
    with pytest.raises(S.InputError, match="holder"):
        solver.settle_table([a, "surrender"], r, holder=1)  # the 8h is shown by seat 0
    with pytest.raises(S.InputError, match="holder"):
        solver.settle_table([b, "surrender"], r, holder=5)
    # a surrender pays its cost times the multiplier when the surrendering seat holds it
    assert solver.settle_table([b, "surrender"], r, holder=1) == [6.0, -6.0]
    assert solver.settle_table([b, "surrender"], r) == [3.0, -3.0]


# ------------------------------------------------------------------------- solving


def test_solve_against_equals_the_oracle():
    """``--against`` known opponents: the opponent holding the 8h weighs twice; each
    candidate's value is the oracle's whole table, per opponent."""
    r = CODE_RULESETS["1-6 x2 min3 home run"]
    cr = compile_rules(load_rules(r))
    rng = np.random.default_rng(3)
    for _ in range(3):
        deck = rng.permutation(52).astype(np.uint8)
        deck = deck[deck != CARD]
        hand = np.sort(deck[:13])
        opp_hands = np.concatenate([deck[13:25], [CARD], deck[25:51]]).reshape(3, 13)
        opps = [triple(s) for s in arrange(rng, opp_hands)]
        sol = solve(hand, rules=r, against=opps)
        mine = tuple(R.ref_cards(x) for x in sol.setting)
        assert sol.ev == pytest.approx(R.ref_settle_table([mine, *opps], r)[0] / 3, abs=1e-9)
        cands = candidates(hand, cr)
        okeys, oroy, ofoul, hold = parse_against(opps, hand, cr)
        assert hold.tolist() == [any(CARD in row for row in o) for o in opps]
        scores = score_exact(cands, cr, okeys, oroy, ofoul, None, hold)
        for c in range(0, len(cands), max(1, len(cands) // 15)):
            cs = tuple(tuple(int(x) for x in row) for row in split_cards(hand, cands.split[c]))
            units = R.ref_table_units([cs, *opps], r)[0][1:]
            assert scores.value[c] == pytest.approx(sum(units) / 3, abs=1e-9)
            np.testing.assert_allclose(scores.by_opponent(c), units, atol=1e-9)
            assert scores.parts(c).sum() == pytest.approx(sum(units) / 3, abs=1e-9)
        assert sol.ev == pytest.approx(scores.value.max(), abs=1e-9)


def test_capsa_solve_against_in_a_subprocess(tmp_path):
    """``capsa solve --against`` with a house file: the opponent who holds the 8h pays
    (and collects) twice; the value printed is the oracle's for the setting printed, and
    with the 8h in the hand every value doubles."""
    house = tmp_path / "house.toml"
    house.write_text('name = "house"\ncode_card = "8h"\n', encoding="utf-8")
    b = ("Qh Qd 4s", "2d 3d 9d Td Jd", "Ac Ad As 6c 6d")
    c = ("2c 3c 5c", "4d 7d 8d 8h 8s", "9c Tc Jc Qc Kc")  # holds the 8h
    against = tmp_path / "against.txt"
    against.write_text(" | ".join(b) + "\n" + " | ".join(c) + "\n", encoding="utf-8")
    r = load_rules(house)
    hand = "Kh Kd Ks 4c 5d 6h 7s 8c 2h 7h 9h Th Jh"
    res = capsa("solve", hand, "--rules", str(house), "--against", str(against),
                "--format", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["policy"] == "exact"
    best = tuple(R.ref_cards(out[row]) for row in ("front", "middle", "back"))
    opps = [tuple(R.ref_cards(x) for x in o) for o in (b, c)]
    units = R.ref_table_units([best, *opps], r)[0][1:]
    assert out["ev"] == pytest.approx(sum(units) / 2, abs=1e-6)
    plain = R.ref_table_units([best, *opps], PRESETS["chinese-1-6"])[0][1:]
    assert units == [plain[0], 2 * plain[1]]


@pytest.mark.parametrize("name", ["1-6", "always dealt one x2.5 min2", "mau-binh x0.5"])
def test_mc_values_equal_the_oracle_with_a_seat_holding_it(name):
    """``score_against`` on crafted opponents (fouls, naturals): deal by deal, each deal's
    seat that holds the code card weighs the multiplier (oracle: ``ref_table_units``)."""
    r = CODE_RULESETS[name]
    card = R._code_card(r)
    cr = compile_rules(load_rules(r))
    rng = np.random.default_rng(5)
    stakes = np.array([1.0, 10.0, 0.5])
    held = 0
    for h in range(2):
        hand = np.sort(np.setdiff1d(rng.permutation(52)[:14], [card])[:13].astype(np.uint8))
        cands = some_candidates(hand, r, rng, extra=10)
        opp, entries = crafted_opponents(hand, r, 3, deals=25, seed=h + 40)
        cards = _crafted_cards(hand, r, 3, 25, h + 40)
        hold = (cards == card).any(axis=1)
        opp = Opponents(3, opp.keys, opp.roy, opp.nat, opp.nat_key, opp.foul, hold)
        plain = score_against(cands, cr, opp)
        staked = score_against(cands, cr, opp, stakes=stakes)
        for c in range(len(cands)):
            mine = tuple(tuple(int(x) for x in row) for row in split_cards(hand, cands.split[c]))
            per_seat = np.zeros(3)
            for d, deal in enumerate(entries):
                seats = hold[3 * d : 3 * d + 3]
                holder = 1 + int(np.flatnonzero(seats)[0]) if seats.any() else None
                declared = holder is not None and deal[holder - 1][0] == "declare"
                units = R.ref_table_units([mine, *deal], r, holder if declared else None)[0][1:]
                held += holder is not None
                assert plain.per_unit[c, d] * 3 == pytest.approx(sum(units), abs=1e-9)
                assert staked.per_unit[c, d] == pytest.approx(float(stakes @ units), abs=1e-9)
                per_seat += units
            if c % 7 == 0:
                np.testing.assert_allclose(plain.by_opponent(c), per_seat / 25, atol=1e-9)
                assert plain.parts(c).sum() == pytest.approx(plain.value[c], abs=1e-9)
        # declaring a natural: what each seat pays it, the holder's seat twice
        name = r.naturals[0][0]
        by_seat = np.zeros(3)
        for d, deal in enumerate(entries):
            seats = hold[3 * d : 3 * d + 3]
            holder = 1 + int(np.flatnonzero(seats)[0]) if seats.any() else None
            declared = holder is not None and deal[holder - 1][0] == "declare"
            table = [R.ref_declare((name, 0)), *deal]
            by_seat += R.ref_table_units(table, r, holder if declared else None)[0][1:]
        got = plain.declare_by_opponent((0, 0, name))
        np.testing.assert_allclose(got, by_seat / 25, atol=1e-9)
    assert held > 40


def _crafted_cards(hand, r, n_opp, deals, seed) -> np.ndarray:
    """The cards ``crafted_opponents`` deals (the same draws), uint8[deals * n_opp, 13]."""
    rng = np.random.default_rng(seed)
    rest = np.setdiff1d(np.arange(52, dtype=np.uint8), hand)
    out = []
    for _ in range(deals):
        deck = rng.permutation(rest).astype(np.uint8)
        dealt = arrange(rng, deck[: 13 * n_opp].reshape(n_opp, 13))
        for _s in dealt:
            out.append(_s)
            if r.naturals and rng.random() < 0.05:
                rng.integers(len(r.naturals)), rng.integers(3)
    return np.array(out)


def test_mc_with_the_card_in_the_hand_is_m_times_the_value_without_the_key():
    """The hand holds the 8h: under the same seed every value is the multiplier times the
    value without the key (the same opponents: the field ignores the code card), and the
    setting chosen is the same; the field model's value too."""
    base = PRESETS["chinese-1-6"]
    r = with_card(base, m=3)
    hand = parse_hand("8h 9d Tc Jh Qs 2c 2d 5s 5h Ac Kd 3c 7h")
    off = solve(hand, rules=base, policy="mc", samples=600, seed=12, pool=False)
    on = solve(hand, rules=r, policy="mc", samples=600, seed=12, pool=False)
    assert on.setting == off.setting
    assert on.ev == pytest.approx(3 * off.ev, abs=1e-6)
    assert on.stderr == pytest.approx(3 * off.stderr, abs=1e-6)
    field_off = solve(hand, rules=base, policy="field")
    field_on = solve(hand, rules=r, policy="field")
    assert field_on.setting == field_off.setting
    assert field_on.ev == pytest.approx(3 * field_off.ev, abs=1e-6)


def test_mc_without_the_card_weighs_the_seat_that_holds_it():
    """Dealt opponents set by the field (the pair-by-pair kernel): every deal has one
    seat holding the 8h, and each deal's value is the oracle's, that seat's pair twice."""
    from solver.strategy.field_model.setting import set_hands
    from solver.strategy.hands.deal import deal_hands
    from solver.strategy.solving.scoring import deal_opponents

    r = with_card(PRESETS["chinese-1-6"])
    cr = compile_rules(load_rules(r))
    hand = np.sort(parse_hand("9d Tc Jh Qs 2c 2d 5s 5h Ac Kd 3c 7h 4d"))
    cands = candidates(hand, cr)
    deals = 40
    opp = deal_opponents(hand, cr, 3, deals, seed=4)
    assert opp.hold.reshape(deals, 3).sum(axis=1).tolist() == [1] * deals
    scores = score_against(cands, cr, opp)
    hands = deal_hands(np.random.default_rng(4), deals, 3, exclude=hand).reshape(deals * 3, 13)
    settings = set_hands(hands, r, "field")
    for c in range(0, len(cands), max(1, len(cands) // 8)):
        mine = tuple(tuple(int(x) for x in row) for row in split_cards(hand, cands.split[c]))
        for d in range(deals):
            deal, holder = [], None
            for o in range(3):
                j = d * 3 + o
                nat = R.ref_best_natural(hands[j].tolist(), r)
                deal.append(R.ref_declare(nat) if nat else triple(settings[j]))
                if nat and CARD in hands[j].tolist():
                    holder = 1 + o
            units = R.ref_table_units([mine, *deal], r, holder)[0][1:]
            assert scores.per_unit[c, d] * 3 == pytest.approx(sum(units), abs=1e-9)


def test_declaring_and_surrendering_with_the_card_in_the_hand():
    """A hand that holds the 8h (x3): a surrender pays 3 x its cost to every opponent and
    declaring its natural collects 3 x the payout, in the advice and beside a played
    surrender, with the loss and its error three times those without the key."""
    base = PRESETS["chinese-1-6"]
    r = with_card(base, m=3)
    hand = "2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8h"  # six pairs
    off = solve(hand, rules=base, policy="field")
    on = solve(hand, rules=r, policy="field")
    assert (off.natural["ev_declare"], on.natural["ev_declare"]) == (3.0, 9.0)
    kw = {"policy": "mc", "samples": 300, "seed": 1, "pool": False, "played": "surrender"}
    off, on = solve(hand, rules=base, **kw), solve(hand, rules=r, **kw)
    assert (off.played["ev"], on.played["ev"]) == (-3.0, -9.0)
    assert on.played["loss"] == pytest.approx(3 * off.played["loss"], abs=1e-6)
    assert on.played["loss_stderr"] == pytest.approx(3 * off.played["loss_stderr"], abs=1e-5)
