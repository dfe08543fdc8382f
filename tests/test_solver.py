"""The solver: splits, the Pareto front, policies, Monte Carlo and exact modes vs the oracle."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import evaluator as ev
from solver.engine.compiled import compile_rules
from solver.engine.errors import InputError
from solver.engine.layout import NKEY
from solver.engine.rules import load_rules, rules_from_dict
from solver.engine.settlement import settle
from solver.strategy import _kernels as K
from solver.strategy.field_model import field as FT
from solver.strategy.field_model import setting as P
from solver.strategy.field_model import trained as TR
from solver.strategy.hands import splits as SP
from solver.strategy.hands.splits import candidates, prepare_hand
from solver.strategy.solving.solve import solve
from tests import reference as ref
from tests.helpers import random_hands

PRESETS = ["chinese-1-6", "chinese-2-4", "per-row", "capsa", "shisanshui"]

# Hands with quads, straight flushes, naturals, six pairs, few legal settings.
SPECIAL_HANDS = {
    "quads": "Ah Ad Ac As Kd Kc 7h 7d 2c 3d 4h 9s Js",
    "straight flush": "9h Th Jh Qh Kh 2c 2d 5s 6s 8c Ad 4d 3c",
    "two straight flushes": "2s 3s 4s 5s 6s 8h 9h Th Jh Qh Ac Kd Kc",
    "six pairs": "2c 2d 5h 5s 7c 7d 9h 9s Jc Jd Kh Ks Ac",
    "dragon": "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ad",
    "three flushes": "2h 5h 9h 3s 6s 8s Ts Qs 4c 7c Jc Kc Ac",
    "few legal (all quads)": "Ac Ad Ah As Kc Kd Kh Ks Qc Qd Qh Qs 2c",
    "trips everywhere": "Ac Ad Ah Kc Kd Kh Qc Qd Qh Jc Jd Jh 2s",
    "junk": "2c 4d 5h 6s 8c 9d Tc Jh 2h 3s 7d 4c Ks",
}


def sorted_hand(text: str) -> np.ndarray:
    return np.sort(ev.parse_hand(text))


def prepared(hand: np.ndarray, rules):
    return prepare_hand(hand, compile_rules(load_rules(rules)))


def pareto_safe(rules) -> bool:
    return compile_rules(load_rules(rules)).pareto_safe


# ---------------------------------------------------------------- structure and splits


def test_partition_structure():
    st = SP.structure()
    assert st.part.shape == (36036, 3)
    seen = set()
    for f, a, b in st.part.tolist():
        masks = (int(st.mask3[f]), int(st.mask5[a]), int(st.mask5[b]))
        assert masks[0] | masks[1] | masks[2] == 0x1FFF
        assert masks[0] & masks[1] == 0 and masks[1] & masks[2] == 0 and masks[0] & masks[2] == 0
        seen.add((masks[0], frozenset(masks[1:])))
    assert len(seen) == 36036  # every partition once: 72,072 ordered splits / 2


def test_every_back_lists_the_splits_of_the_cards_it_leaves():
    """``Structure.under[b]`` (what the field's branch and bound expands under back b):
    56 (middle, front) pairs, each splitting the 8 positions the back leaves, all
    different, so with the back they are the 1,287 x 56 = 72,072 ordered splits."""
    st = SP.structure()
    assert st.under.shape == (1287, 56, 2)
    ordered = set()
    for b in range(1287):
        rest = 0x1FFF ^ int(st.mask5[b])
        pairs = {(int(m), int(f)) for m, f in st.under[b].tolist()}
        assert len(pairs) == 56
        for m, f in pairs:
            assert int(st.mask5[m]) | int(st.mask3[f]) == rest
            assert int(st.mask5[m]) & int(st.mask3[f]) == 0
            ordered.add((f, m, b))
    assert len(ordered) == 72072


def test_legal_split_counts_match_the_oracle():
    """The legal partitions ``_legal_partitions`` keeps are the oracle's legal splits (a
    partition of two equal fives is legal both ways round)."""
    rules = load_rules("chinese-1-6")
    st = SP.structure()
    for hand in random_hands(2, 11):
        k5, k3, _, _, _ = prepared(hand, rules)
        legal = np.empty((36036, 3), np.int32)
        n = K._legal_partitions(k3, k5, st.part, legal)
        mine = n + int((k5[legal[:n, 1]] == k5[legal[:n, 2]]).sum())
        oracle = sum(ref.ref_is_legal(*s) for s in ref.ref_all_splits(hand.tolist()))
        assert mine == oracle
        assert 15_000 < mine < 33_000


@pytest.mark.parametrize("preset", ["chinese-1-6", "capsa", "shisanshui"])
def test_pareto_front_is_exact(preset):
    """Every legal split not on the front is dominated; none on it is (brute force)."""
    rules = load_rules(preset)
    st = SP.structure()
    legal = np.empty((36036, 3), np.int32)
    for hand in random_hands(12, 5):
        k5, k3, _, _, _ = prepared(hand, rules)
        n = K._legal_partitions(k3, k5, st.part, legal)
        keep = np.zeros(n, np.bool_)
        K._pareto(k3, k5, legal, n, keep)
        pts = np.stack([k3[legal[:n, 0]], k5[legal[:n, 1]], k5[legal[:n, 2]]], axis=1)
        front = pts[keep]
        assert len({tuple(p) for p in front}) == len(front)  # identical triples kept once
        for p in pts[~keep][::7]:
            assert ((front >= p).all(axis=1)).any()
        for p in front:
            ge = (pts >= p).all(axis=1) & (pts > p).any(axis=1)
            assert not ge.any()


#: Royalties paid whoever wins, on shisanshui's other settings (its rows at their whole
#: value need the winner to be paid: docs/rules.md#a-bonus-row-is-its-whole-value).
ALWAYS = {"royalty_mode": "always", "royalty_replaces_row": False}


#: 十三水's 水庄 (docs/rules.md#the-bankers-table) on 十三水's field tables.
WATER = {"banker": True, "scoop_multiplier": 1, "scoop_bonus": 1, "pair_cap": 8,
         "home_run_multiplier": 1}  # fmt: skip


def _field_configs():
    """(rules, field tables) pairs covering every term of the field value: shipped tables,
    royalty mode "always", and random corrections (card removal and joint grids) under
    2-4, a scoop multiplier with royalties (winner and always) and per-row; two with
    corrections ten times too large, so that the branch and bound's allowance for them
    decides which backs it may skip; three with a learned model's row utility."""
    out = []
    for preset, mode in (("chinese-1-6", "winner"), ("chinese-2-4", "winner"),
                         ("shisanshui", "winner"), ("chinese-1-6", "always")):  # fmt: skip
        rules = load_rules(preset)
        shipped = TR.get_field(compile_rules(load_rules(rules)))
        if mode != rules.royalty_mode:
            rules = rules_from_dict(
                {**rules.to_dict(), "royalty_mode": mode, "royalty_replaces_row": False,
                 "name": "x"}, "x",
            )  # fmt: skip
        cr = compile_rules(load_rules(rules))
        out.append((rules, FT.field_tables(shipped.dist, cr, shipped.rank, shipped.suit,
                                           shipped.cop)))  # fmt: skip
    rng = np.random.default_rng(11)
    for preset, change, size in (("chinese-2-4", {}, 0.05), ("shisanshui", {}, 0.05),
                                 ("shisanshui", ALWAYS, 0.05),
                                 ("per-row", {"scoop_multiplier": 2}, 0.05),
                                 ("chinese-2-4", {}, 0.5), ("shisanshui", {}, 0.5),
                                 ("shisanshui", ALWAYS, 0.5),
                                 ("shisanshui", WATER, 0.05),  # a scoop's +1, the cap
                                 ("per-row", {"scoop_multiplier": 2, "scoop_bonus": 1.5},
                                  0.5)):  # fmt: skip
        base = load_rules(preset)
        rules = rules_from_dict({**base.to_dict(), **change, "name": "x"}, "x") if change else base
        dist, cr = TR.get_field(compile_rules(base)).dist, compile_rules(rules)
        out.append((rules, FT.field_tables(
            dist, cr, rng.normal(0, size / 2, (3, 13, 5, 9)),
            rng.normal(0, size / 2, (3, 14, 9)), rng.normal(0, size, (3, 5, 5, 5)),
        )))  # fmt: skip
    # a learned model's row utility (fx[..., 3]) beside the tables, where a scoop
    # multiplier multiplies royalties, in mode always, and under 2-4
    for preset, change in (("shisanshui", {}), ("shisanshui", ALWAYS), ("chinese-2-4", {})):
        base = load_rules(preset)
        rules = rules_from_dict({**base.to_dict(), **change, "name": "x"}, "x") if change else base
        shipped, cr = TR.get_field(compile_rules(base)), compile_rules(rules)
        util = np.cumsum(rng.exponential(3.0 / NKEY, (3, NKEY)), axis=1)
        out.append((rules, FT.field_tables(shipped.dist, cr, shipped.rank, shipped.suit,
                                           shipped.cop, util=util)))  # fmt: skip
    # the home run at the table (docs/rules.md#the-field-and-the-home-run): the shipped
    # 十三水 tables at three players, as get_field gives them, and random factors on random
    # corrections under a multiplier with royalties (winner, always), 1-6 (factors of six
    # players), 2-4 and per-row (no multiplier: its scoop chances corrected for the home run alone)
    three = rules_from_dict({**load_rules("shisanshui").to_dict(), "players": 3, "name": "x"}, "x")
    out.append((three, TR.get_field(compile_rules(three))))
    for preset, change, hr in (
        ("shisanshui", {}, (1.0, 2, 0.97, 0.26)),
        ("shisanshui", ALWAYS, (2.0, 3, 0.9, 0.4)),
        ("chinese-1-6", {"home_run_multiplier": 2}, (1.0, 5, 0.8, 0.3)),
        ("chinese-2-4", {"home_run_multiplier": 3}, (2.0, 3, 0.95, 0.5)),
        ("per-row", {"home_run_multiplier": 2, "home_run_min_opponents": 1}, (1.0, 1, 1.0, 1.0)),
    ):
        base = load_rules(preset)
        rules = rules_from_dict({**base.to_dict(), **change, "name": "x"}, "x") if change else base
        shipped, cr = TR.get_field(compile_rules(base)), compile_rules(rules)
        f = FT.field_tables(shipped.dist, cr, shipped.rank, shipped.suit,
                            rng.normal(0, 0.5, (3, 5, 5, 5)))  # fmt: skip
        out.append((rules, f._replace(model=f.model._replace(hr=np.array(hr, float)))))
    return out


def test_field_values_match_the_oracle():
    """The field value of settings (``field_values``: card-removal shift, independent rows,
    joint correction, multiplied royalties) is the oracle's (tests/reference.py), term
    for term, on random legal splits of random hands."""
    rng = np.random.default_rng(4)
    for rules, f in _field_configs():
        cr = compile_rules(load_rules(rules))
        for hand in random_hands(3, 8):
            every = candidates(hand, cr, prune=False)
            pick = rng.choice(len(every), 60, replace=False)
            vals, wt = FT.field_values(every.keys[pick], every.roy[pick], hand, cr, f)
            for v, i in zip(vals, pick, strict=True):
                oracle = ref.ref_field_model_value(hand, every.keys[i], every.roy[i], f, rules)
                # relative too: the corrections ten times too large can make an opponent's
                # P(lose a row) tiny, and the scoop's royalty term (divided by it) reach
                # 1e15, where two doubles a rounding apart differ by 0.5
                assert v == pytest.approx(oracle, rel=1e-12, abs=1e-9)
            assert ((wt[..., 0] >= 0) & (wt[..., 0] + wt[..., 1] <= 1 + 1e-12)).all()


def test_field_best_is_the_best_legal_split_by_field_value():
    """``_field_best`` (branch and bound over backs) finds the legal split of highest field
    value among all legal splits (each valued by ``field_values``, checked against the
    oracle above), whatever the corrections do to the bound; random hands and hands rich
    in royalties (the multiplied royalties' allowance)."""
    st = SP.structure()
    hands = [*random_hands(8, 3), *(sorted_hand(h) for h in SPECIAL_HANDS.values())]
    for rules, f in _field_configs():
        cr = compile_rules(load_rules(rules))
        for hand in hands:
            k5, k3, r5, r3, f3 = prepared(hand, rules)
            fb, mb, bb, value = K._field_best(hand, k3, k5, r3, r5, st, f.model, cr.params, f3)
            every = candidates(hand, cr, prune=False)
            vals, _ = FT.field_values(every.keys, every.roy, hand, cr, f)
            assert value == pytest.approx(vals.max(), abs=1e-12)
            chosen = (k3[fb], k5[mb], k5[bb])
            assert chosen[0] <= chosen[1] <= chosen[2]  # legal
            hit = np.flatnonzero((every.keys == chosen).all(axis=1))
            assert vals[hit].max() == pytest.approx(value, abs=1e-12)


def test_greedy_is_best_back_then_best_middle():
    rules = load_rules("chinese-1-6")
    hands = random_hands(40, 9)
    out = P.set_hands(hands, rules, "greedy")
    for hand, row in zip(hands, out, strict=True):
        assert sorted(row.tolist()) == hand.tolist()
        front, middle, back = row[:3], row[3:8], row[8:]
        best_back = max(ev.evaluate5(np.array(c)) for c in itertools.combinations(hand, 5))
        assert ev.evaluate5(back) == best_back
        rest = [c for c in hand if c not in back]
        best_mid = max(ev.evaluate5(np.array(c)) for c in itertools.combinations(rest, 5))
        assert ev.evaluate5(middle) == best_mid
        assert ref.ref_is_legal(front.tolist(), middle.tolist(), back.tolist())


@pytest.mark.parametrize("policy", ["field", "greedy"])
def test_policies_never_foul_and_use_the_hands_cards(policy):
    for preset in ("chinese-1-6", "capsa", "shisanshui"):
        rules = load_rules(preset)
        hands = random_hands(200, 21)
        out = P.set_hands(hands, rules, policy)
        assert (np.sort(out, axis=1) == hands).all()
        for row in out[::10]:
            assert ref.ref_is_legal(
                row[:3].tolist(), row[3:8].tolist(), row[8:].tolist(), rules.wheel, rules.suit_order
            )


def test_pareto_safety_rules():
    assert pareto_safe(load_rules("chinese-1-6"))
    assert pareto_safe(load_rules("shisanshui"))
    base = load_rules("chinese-1-6").to_dict()
    del base["name"]  # these rules are not the preset: they take the name given
    assert not pareto_safe(rules_from_dict({**base, "one_royalty_per_hand": True}, "x"))
    odd = {
        **base,
        "royalties": {
            "front": {},
            "middle": {"four_of_a_kind": 8, "straight_flush": 2},
            "back": {},
        },
    }
    assert not pareto_safe(rules_from_dict(odd, "odd"))
    always = {**base, "royalty_mode": "always", "scoop_multiplier": 2}
    assert not pareto_safe(rules_from_dict(always, "always2"))


# ---------------------------------------------------------------- exact mode vs brute force


def opponents_for(hand: np.ndarray, n: int, seed: int, rules, foul_one: bool = False):
    rng = np.random.default_rng(seed)
    rest = rng.permutation(np.setdiff1d(np.arange(52), hand)).astype(np.uint8)
    opps = []
    for i in range(n):
        cards = np.sort(rest[13 * i : 13 * i + 13])
        row = P.set_hands(cards.reshape(1, 13), rules, "field")[0]
        setting = (row[:3].tolist(), row[3:8].tolist(), row[8:].tolist())
        if foul_one and i == 0:
            setting = (setting[2][:3], setting[1], setting[0] + setting[2][3:])  # strong front
        opps.append(setting)
    return opps


#: The rulesets the brute force is compared under.
BRUTE_PRESETS = ("chinese-1-6", "chinese-2-4", "shisanshui")
#: Every hand under every one of them (about half a CPU second each, the oracle's 72,072
#: splits): the default run takes each hand under one of them in turn, so every hand and
#: every ruleset is there (each ruleset three times); the slow run takes the rest.
BRUTE_CASES = [
    pytest.param(name, preset, id=f"{preset}-{name}",
                 marks=() if i % len(BRUTE_PRESETS) == j else pytest.mark.slow)
    for i, name in enumerate(SPECIAL_HANDS) for j, preset in enumerate(BRUTE_PRESETS)
]  # fmt: skip


@pytest.mark.parametrize(("name", "preset"), BRUTE_CASES)
def test_exact_mode_equals_brute_force(name, preset):
    rules = load_rules(preset)
    hand = sorted_hand(SPECIAL_HANDS[name])
    opps = opponents_for(hand, 3, seed=len(name), rules=rules, foul_one=(name == "junk"))
    sol = solve(hand, rules=rules, against=opps, top=2)
    value, setting, _ = ref.ref_best_setting(hand.tolist(), opps, rules)
    assert sol.ev_play * 3 == pytest.approx(value, abs=1e-9)
    chosen = tuple(ev.parse_cards(getattr(sol, r)).tolist() for r in ("front", "middle", "back"))
    if sol.action != "declare":
        assert sorted(sum(chosen, [])) == hand.tolist()
        assert ref.ref_is_legal(*chosen, rules.wheel, rules.suit_order)
        # the whole table's settlement (shisanshui has the home run: docs/rules.md#home-run)
        mine = ref.ref_settle_table([chosen, *opps], rules)[0]
        assert mine == pytest.approx(value)
        if not rules.home_run:
            assert sum(ref.ref_settle(chosen, o, rules) for o in opps) == pytest.approx(value)


@pytest.mark.slow  # every legal split of a hand scored against the oracle's brute force
def test_exact_mode_with_unsafe_pareto_scores_every_legal_split():
    """The opponents' settings are given (``against``): any two settings of their cards
    serve the claim, so the shipped ``chinese-1-6`` field sets them; under the rules
    themselves, which ship no field tables, setting them trained tables first (the test
    took 43 CPU seconds, 2 without). What the solve and the oracle score is under the
    rules themselves."""
    base = load_rules("chinese-1-6").to_dict()
    del base["name"]  # these rules are not the preset: they take the name given
    rules = rules_from_dict({**base, "one_royalty_per_hand": True}, "one")
    hand = sorted_hand(SPECIAL_HANDS["trips everywhere"])
    opps = opponents_for(hand, 2, seed=4, rules=load_rules("chinese-1-6"))
    sol = solve(hand, rules=rules, against=opps)
    value, _, _ = ref.ref_best_setting(hand.tolist(), opps, rules)
    assert sol.ev_play * 2 == pytest.approx(value)
    assert sol.candidates == candidates(hand, compile_rules(load_rules(rules))).legal


def test_against_rejects_clashing_or_bad_opponents():
    hand = sorted_hand(SPECIAL_HANDS["junk"])
    with pytest.raises(ev.CardParseError, match="opponent 1: card '2c' is already dealt"):
        solve(hand, against=["2c 3c 4c | 5d 6d 7d 8d 9d | Tc Jc Qc Kc As"])
    # one splitter for every 'front | middle | back' (settlement.parse_setting): the same
    # words for an opponent as for a played setting, naming who
    with pytest.raises(ev.CardParseError) as exc:
        solve(hand, against=["3c 4c 5d"])
    assert str(exc.value) == "opponent 1: a setting is 13 cards (front 3, middle 5, back 5), got 3"
    with pytest.raises(ev.CardParseError) as exc:
        solve(hand, against=["3c 4c 5d | 6d 7d 8d 9d Td"])
    assert str(exc.value) == "opponent 1: a setting is 'front | middle | back' (3 rows), got 2 rows"
    with pytest.raises(ev.CardParseError) as exc:
        solve(hand, played="3c 4c 5d | 6d 7d 8d 9d Td")
    assert str(exc.value) == "played: a setting is 'front | middle | back' (3 rows), got 2 rows"


# ---------------------------------------------------------------- Monte Carlo


def test_mc_values_equal_the_oracle_against_the_dealt_opponents():
    """The MC scorer's per-deal values are exact settlements against the field's opponent
    settings (opponents' declared naturals included), checked with the oracle."""
    from solver.strategy.solving.scoring import deal_opponents, score_against

    rules = load_rules("chinese-1-6")
    cr = compile_rules(load_rules(rules))
    hand = sorted_hand("As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d")
    c = candidates(hand, cr)
    opp = deal_opponents(hand, cr, 3, 6, seed=5)
    scores = score_against(c, cr, opp)
    from solver.strategy.hands.deal import deal_hands

    hands = deal_hands(np.random.default_rng(5), 6, 3, exclude=hand).reshape(18, 13)
    settings = P.set_hands(hands, rules, "field")
    for ci in range(0, len(c.keys), max(1, len(c.keys) // 5)):
        f, m, b = SP.split_cards(hand, c.split[ci])
        mine = (f.tolist(), m.tolist(), b.tolist())
        for d in range(6):
            total = 0.0
            for o in range(3):
                row = settings[3 * d + o]
                nat = ref.ref_best_natural(hands[3 * d + o].tolist(), rules)
                assert (opp.nat[3 * d + o] >= 0) == (nat is not None)
                if nat is not None:
                    total += ref.ref_settle_natural(None, nat, rules)
                    continue
                total += ref.ref_settle(
                    mine, (row[:3].tolist(), row[3:8].tolist(), row[8:].tolist()), rules
                )
            assert scores.per_unit[ci, d] * 3 == pytest.approx(total)


def test_same_seed_same_answer_whatever_the_thread_count(monkeypatch):
    hand = "Ah Kd Qc 9s 9d 7h 6c 5s 4d 3h 2c Jd Ts"
    answers = []
    for threads in ("1", "2", "3"):
        monkeypatch.setenv("CAPSA_THREADS", threads)
        answers.append(solve(hand, samples=600, seed=42).to_dict())
    assert answers[0] == answers[1] == answers[2]
    monkeypatch.setenv("CAPSA_THREADS", "2")
    other = solve(hand, samples=600, seed=43).to_dict()
    assert other["ev"] != answers[0]["ev"]


def test_mc_solution_shape_and_invariants():
    for preset in ("chinese-1-6", "capsa"):
        for seed, hand in enumerate(random_hands(4, 77)):
            sol = solve(hand, rules=preset, samples=300, seed=seed, players=3)
            rows = [ev.parse_cards(getattr(sol, r)) for r in ("front", "middle", "back")]
            if sol.action == "declare":
                continue
            assert sorted(np.concatenate(rows).tolist()) == hand.tolist()
            rules = load_rules(preset)
            assert ref.ref_is_legal(*(r.tolist() for r in rows), rules.wheel, rules.suit_order)
            assert sol.players == 3 and sol.ev_total == pytest.approx(sol.ev * 2)
            assert sol.stderr > 0
            d = sol.to_dict()
            assert set(d["row_stats"]) == {"front", "middle", "back"}
            for st in d["row_stats"].values():
                assert st["win"] + st["tie"] + st["loss"] == pytest.approx(1, abs=2e-4)
            assert all(a["diff"] <= 0 for a in d["alternatives"])


def test_naturals_are_declared_when_worth_more():
    dragon = solve(SPECIAL_HANDS["dragon"], samples=300, seed=1)
    assert dragon.natural["name"] == "dragon" and dragon.natural["declared"]
    assert dragon.action == "declare" and dragon.ev == pytest.approx(13, abs=0.5)
    no_nat = load_rules("per-row")  # naturals off
    assert solve(SPECIAL_HANDS["dragon"], rules=no_nat, policy="field").natural is None


def test_surrender_is_recommended_below_minus_its_cost():
    base = load_rules("chinese-1-6").to_dict()
    del base["name"]  # these rules are not the preset: they take the name given
    cheap = rules_from_dict({**base, "surrender_cost": 0}, "cheap")
    junk = solve(SPECIAL_HANDS["junk"], rules=cheap, samples=600, seed=2)
    assert junk.ev_play < 0 and junk.surrender["recommended"] and junk.action == "surrender"
    assert junk.ev == 0
    strong = solve(SPECIAL_HANDS["quads"], rules=cheap, samples=300, seed=2)
    assert not strong.surrender["recommended"] and strong.action == "play"


def test_solve_validates_its_input():
    with pytest.raises(ev.CardParseError, match="expected 13 cards, got 12"):
        solve("As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s")
    with pytest.raises(ValueError, match="policy must be one of"):
        solve(SPECIAL_HANDS["junk"], policy="best")
    with pytest.raises(ValueError, match="players must be from 2 to 6, got 7"):
        solve(SPECIAL_HANDS["junk"], players=7)
    with pytest.raises(ValueError, match='players = 5 needs a bigger deck than extra_suits = ""'):
        solve(SPECIAL_HANDS["junk"], players=5)
    with pytest.raises(InputError, match="samples must be from 1 to 1,000,000"):
        solve(SPECIAL_HANDS["junk"], samples=100_000_000_000)
    with pytest.raises(InputError, match="against gives 1 opponent, so 2 players, but players"):
        solve(SPECIAL_HANDS["junk"], players=4, against=["Ac Ad Ah | Kc Kd Kh 3d 5c | "
                                                          "Qc Qd Qh Qs Jc"])  # fmt: skip


def test_settle_agrees_with_solution_rows():
    """The chosen setting settled with solver.settle gives the same as the oracle."""
    rules = load_rules("chinese-1-6")
    hand = sorted_hand(SPECIAL_HANDS["straight flush"])
    opps = opponents_for(hand, 1, seed=8, rules=rules)
    sol = solve(hand, rules=rules, against=opps)
    mine = (sol.front, sol.middle, sol.back)
    assert settle(mine, opps[0], rules) == pytest.approx(sol.ev_play)


@pytest.mark.parametrize("policy", ["mc", "field"])
def test_solve_trains_a_new_rulesets_tables_itself(tmp_path, monkeypatch, policy):
    """The front end trains what the readers below it need: a first solve under a ruleset
    with no tables (mc sets its opponents with them, field values with them)."""
    import solver.strategy.field_model.train as T

    monkeypatch.setenv("CAPSA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    real_train = T.train
    calls = []

    def small_train(cr, **kw):
        calls.append(cr.rules.name)
        return real_train(cr, rounds=2, hands_per_round=300, tol=1.0)

    monkeypatch.setattr(T, "train", small_train)
    base = load_rules("chinese-1-6").to_dict()
    house = rules_from_dict({**base, "name": "house-first", "scoop_multiplier": 3}, "house-first")
    TR.forget_fields()
    try:
        sol = solve(SPECIAL_HANDS["quads"], rules=house, policy=policy, samples=200, seed=1)
        assert calls == ["house-first"] and sol.policy == policy
    finally:
        TR.forget_fields()


def test_custom_ruleset_trains_on_first_use_then_uses_the_cache(tmp_path, monkeypatch, caplog):
    """A ruleset with no shipped tables is trained once (with a notice), cached, reused."""
    import solver.strategy.field_model.train as T

    monkeypatch.setenv("CAPSA_CACHE_DIR", str(tmp_path))
    calls = []
    real_train = T.train

    def small_train(cr, **kw):
        calls.append(cr.rules.name)
        return real_train(cr, rounds=3, hands_per_round=400, tol=1.0)

    monkeypatch.setattr(T, "train", small_train)
    base = load_rules("chinese-2-4").to_dict()
    house = rules_from_dict(
        {**base, "name": "house", "royalty_mode": "cancel", "scoop_multiplier": 3}, "house"
    )
    TR.forget_fields()
    try:
        with pytest.raises(TR.FieldNotReady, match="house"):  # the readers never train
            TR.get_field(compile_rules(load_rules(house)))
        assert calls == []
        with caplog.at_level("WARNING", logger="capsa"):
            first = T.ensure_field(compile_rules(load_rules(house)))
        assert calls == ["house"]
        assert any("training them now" in r.getMessage() for r in caplog.records)
        assert FT.field_cache_path(compile_rules(load_rules(house))).exists()
        assert first.meta["play_digest"] == FT.play_digest(house)
        TR.forget_fields()
        again = T.ensure_field(compile_rules(load_rules(house)))  # the cache: no second training
        assert calls == ["house"]
        assert np.allclose(again.fw, first.fw, atol=1e-6)
        sol = solve(SPECIAL_HANDS["quads"], rules=house, policy="field")
        assert sol.policy == "field" and calls == ["house"]
        TR.forget_fields()
        assert TR.get_field(compile_rules(load_rules(house))).meta == first.meta  # cached
    finally:
        TR.forget_fields()
