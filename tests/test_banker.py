"""The banker's table (坐庄, the 水庄 room; docs/rules.md#the-bankers-table): its keys,
and what ``settle``, ``settle_table`` and their parts pay, against the oracle
(tests/reference.py) on random deals and on deals made by hand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import solver
from evaluator import parse_cards
from solver.engine import settlement as S
from solver.engine.compiled import compile_rules
from solver.engine.errors import InputError, RulesError
from solver.engine.rules import PRESETS, Rules, load_rules, rules_from_dict
from solver.engine.ruleset_files import to_toml
from solver.strategy.field_model.field import play_digest
from tests import reference as R
from tests.helpers import capsa_in
from tests.test_home_run import random_tables, triple
from tests.test_settlement import arrange

BANKER = PRESETS["shisanshui-banker"]
#: Tables that stress each key: a scoop bonus beside a multiplier, a small cap under
#: royalties and 1-6's bonus, and the 水庄 preset with surrender allowed.
RULESETS = {
    "shisanshui-banker": BANKER,
    "bonus-x2-cap3": Rules(name="b1", scoring="1-6", scoop_multiplier=2, scoop_bonus=1.5,
                           pair_cap=3, banker=True),  # fmt: skip
    "cap-5-no-banker": Rules(name="b2", scoring="2-4", scoop_bonus=2, pair_cap=5),
    "banker-surrender": dataclasses.replace(BANKER, name="b3", surrender_cost=3, pair_cap=2.5),
}


def cards(row: str) -> tuple[int, ...]:
    return tuple(int(c) for c in parse_cards(row))


def setting(text: str) -> tuple[tuple[int, ...], ...]:
    f, m, b = (cards(x) for x in text.split("|"))
    return f, m, b


# ------------------------------------------------------------------------ the keys


def test_the_preset_is_the_water_room():
    """水庄 (lib_game.lua:410-506): 十三水's rows and naturals, a banker, a scoop +1
    (not x2), a pair's result held to 8, no home run."""
    r, base = BANKER, PRESETS["shisanshui"]
    assert (r.banker, r.scoop_multiplier, r.scoop_bonus, r.pair_cap) == (True, 1, 1, 8)
    assert not r.home_run and base.home_run
    assert (r.royalties, r.naturals, r.wheel) == (base.royalties, base.naturals, base.wheel)
    assert load_rules("shisanshui-banker") is r
    assert rules_from_dict(r.to_dict(), "x") is r  # the dict names it: the preset
    assert r.digest() != dataclasses.replace(r, banker=False).digest()
    assert r.digest() != dataclasses.replace(r, pair_cap=None).digest()
    # a ruleset without the keys keeps its digest and its TOML
    assert "banker" not in to_toml(PRESETS["shisanshui"])
    assert "pair_cap = 8\n" in to_toml(r) and "banker = true\n" in to_toml(r)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("banker = 1", "banker must be true or false, got 1"),
        ("scoop_bonus = -1", "scoop_bonus must be a number >= 0, got -1"),
        ("scoop_bonus = \"1\"", "scoop_bonus must be a number >= 0, got '1'"),
        ("pair_cap = 0", "pair_cap must be a number of units > 0, or false"),
        ("pair_cap = -8", "pair_cap must be a number of units > 0, or false"),
        ("pair_cap = true", "pair_cap must be a number of units > 0, or false"),
        ('base = "shisanshui"\nbanker = true',
         "banker = true cannot go with a home run (home_run_multiplier above 1)"),
        ('base = "mau-binh"\npair_cap = 8', "pair_cap cannot go with foul_pays_naturals"),
    ],
)  # fmt: skip
def test_bad_values_are_one_line_exit_2(tmp_path, text, message):
    """As a user meets it: ``capsa rules FILE`` (in the test's process), one line, exit 2."""
    path = tmp_path / "bad.toml"
    path.write_text(text + "\n")
    res = capsa_in("rules", str(path))
    assert res.returncode == 2 and res.stdout == "", res.stderr
    assert res.stderr.startswith(f"capsa: error: bad.toml: {message}"), res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    with pytest.raises(RulesError):
        load_rules(path)


def test_the_field_plays_the_pairs_not_the_seats():
    """The field's tables are pairwise (docs/rules.md#the-field-and-the-home-run): the banker
    and the cap leave its play as it is; the scoop's units do not."""
    r = BANKER
    assert play_digest(dataclasses.replace(r, banker=False, pair_cap=None)) == play_digest(r)
    assert play_digest(dataclasses.replace(r, scoop_bonus=0)) != play_digest(r)


# ------------------------------------------------------------------- against the oracle


def random_pairs(n: int, seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        deck = rng.permutation(52).astype(np.uint8)
        a, b = arrange(rng, deck[:26].reshape(2, 13))
        out.append((triple(a), triple(b)))
    return out


@pytest.mark.parametrize("name", list(RULESETS))
def test_settle_and_its_parts_equal_the_oracle(name):
    r = RULESETS[name]
    cr = compile_rules(r)
    capped = 0
    for a, b in random_pairs(1500, seed=len(name)):
        got = S.settle(a, b, cr)
        want = R.ref_settle(a, b, r)
        assert got == want, (a, b, got, want)
        parts = R.ref_settle_parts(a, b, r)
        ka, qa, fa = S.summarize(a, cr)
        kb, qb, fb = S.summarize(b, cr)
        from solver.engine import _kernels as k

        mine = k._settle_parts(*ka, *qa, fa, *kb, *qb, fb, cr.params)
        assert mine == pytest.approx((parts["rows"], parts["bonus"], parts["royalties"]))
        assert sum(mine) == pytest.approx(got)
        capped += abs(got) == r.pair_cap
    assert capped > 5  # the cap was met


@pytest.mark.parametrize("name", list(RULESETS))
def test_settle_table_equals_the_oracle(name):
    """Random tables of 2 to 4 with a random banker seat and random multiples:
    ``settle_table`` is the oracle's, sums to zero; players not the banker settle 0."""
    r = RULESETS[name]
    rng = np.random.default_rng(99)
    for mine, ref in random_tables(800, seed=len(name) + 1, r=r):
        k = len(mine)
        if r.banker:
            seat = int(rng.integers(k))
            bets = [float(x) for x in rng.choice([1, 2, 3, 5, 0.5], size=k)]
            got = solver.settle_table(mine, r, banker=seat, multiples=bets)
            want = R.ref_settle_table(ref, r, banker=seat, multiples=bets)
        else:
            got, want = solver.settle_table(mine, r), R.ref_settle_table(ref, r)
        assert got == pytest.approx(want, abs=1e-9), (mine, got, want)
        assert sum(got) == pytest.approx(0.0, abs=1e-9)


# ------------------------------------------------------------------- deals made by hand

#: A scoop of plain rows (3 rows to none): 十三水 doubles it, 水庄 adds 1.
WIN = "2c 3d 5h | 6c 6d 9h Jd Qs | 8c 8d 8h Ks 4d"
LOSE = "2d 3c 4h | 5c 5d 9c Jc Qh | 9s 9d Ts Kc 4s"
#: Four of a kind in the middle and a royal flush in the back, and a hand they scoop.
QUADS = "Ac Kd 5c | 2c 2d 2h 2s 3s | Ts Js Qs Ks As"
LOSE2 = "3c 4h 6s | 7c 7d 9c Jc Qh | 9s 9d Tc Kc 4s"


def test_a_scoop_adds_one_rather_than_doubling():
    lose, win = setting(LOSE), setting(WIN)
    assert R.ref_settle(lose, win, PRESETS["shisanshui"]) == -6  # (3 rows) x 2
    assert S.settle(lose, win, "shisanshui-banker") == -4 == R.ref_settle(lose, win, BANKER)
    assert S.settle(win, lose, "shisanshui-banker") == 4


def test_a_pair_is_capped_at_eight():
    quads, lose = setting(QUADS), setting(LOSE2)
    big = R.ref_settle(quads, lose, PRESETS["shisanshui"])
    assert big > 16  # 十三水 pays it whole, doubled
    assert S.settle(quads, lose, "shisanshui-banker") == 8 == R.ref_settle(quads, lose, BANKER)
    assert S.settle(lose, quads, "shisanshui-banker") == -8
    # a natural is held to the cap too: a dragon's 104 (docs/rules.md#the-bankers-table)
    nid = [n for n, _ in BANKER.naturals].index("dragon")
    assert R.ref_settle_natural(("dragon", ()), None, BANKER) == 8
    assert solver.settle_natural((nid, 0, "dragon"), None, BANKER) == 8


def test_no_home_run_and_the_players_multiples():
    """The banker scoops three players: 十三水 pays its home run, 水庄 none; each player
    settles with the banker alone, times the multiple it bet."""
    a = setting(QUADS)
    b = setting(LOSE2)
    c = setting("3d 4c 6c | 5d 5h 8c Qc Jd | Td Th 7s 8s Ad")
    d = setting("4d 5s 3h | 6d 6h 8d 9h Qd | 7h 8h Jh Kh Ah")
    table = [a, b, c, d]
    base = PRESETS["shisanshui"]
    pairs = sum(R.ref_settle(a, x, base) for x in table[1:])
    assert R.ref_settle_table(table, base)[0] == 2 * pairs  # 十三水's home run
    plain = solver.settle_table(table, BANKER)
    assert plain == R.ref_settle_table(table, BANKER)
    assert plain[0] == sum(S.settle(a, x, BANKER) for x in (b, c, d))  # no home run
    assert plain[1] == S.settle(b, a, BANKER)  # with the banker only
    bets = [1, 2, 3, 5]
    staked = solver.settle_table(table, BANKER, multiples=bets)
    assert staked == R.ref_settle_table(table, BANKER, multiples=bets)
    assert staked[1:] == [plain[i] * bets[i] for i in (1, 2, 3)]
    # another banker: seat 2 settles with everyone, seat 0 with seat 2 only
    other = solver.settle_table(table, BANKER, banker=2)
    assert other[0] == S.settle(a, c, BANKER)


def test_bad_banker_seats_and_multiples_are_one_line():
    t = [setting(WIN), setting(LOSE)]
    for kw, message in [
        ({"banker": 2}, "banker must be a seat from 0 to 1, got 2"),
        ({"multiples": [1]}, "multiples: 1 given for 2 players"),
        ({"multiples": [1, 0]}, "multiple of player 2 must be a number > 0, got 0"),
        ({"multiples": "1,2"}, "multiples must be a list of numbers"),
    ]:
        with pytest.raises(InputError, match=message):
            solver.settle_table(t, BANKER, **kw)
    with pytest.raises(InputError, match="seats no banker"):
        solver.settle_table(t, "shisanshui", banker=1)
    with pytest.raises(InputError, match="at a banker's table only"):
        solver.settle_table(t, "shisanshui", multiples=[1, 1])
