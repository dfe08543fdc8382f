"""The opponent pool (solver.strategy.opposition.pool) and the vectorised pairwise settlement.

Small pools (tens of thousands of hands) are built once per module in a folder of their
own; each test that wants them points ``CAPSA_POOL_DIR`` there (tests/conftest.py gives
every other test an empty folder).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import evaluator as ev
from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules, rules_from_dict
from solver.engine.seating import seated
from solver.engine.settlement import find_naturals
from solver.strategy import _kernels as K
from solver.strategy.field_model.policy import set_sorted_hands
from solver.strategy.field_model.setting import set_hands
from solver.strategy.field_model.trained import get_field
from solver.strategy.hands.deal import deal_hands
from solver.strategy.hands.splits import candidates, split_cards, split_of
from solver.strategy.opposition import pool as PL
from solver.strategy.opposition import pool_file as PF
from solver.strategy.solving import scoring as SC
from solver.strategy.solving.drawn import pool_opponents
from solver.strategy.solving.solve import solve
from tests import reference as ref
from tests import shared
from tests.helpers import random_hands

#: Hands in the test pools: about 1.28% of them (512) share no card with a given hand.
SIZE = 40_000
#: Hands in the pools of other table sizes, which solves draw from at 150 samples (at
#: most 150 opponent hands and their 19 whole tables, of about 256 apart from a hand).
SEATED = 20_000
POOL_RULES = ("chinese-1-6", "shisanshui", "capsa")
HAND = "Ah Kd Qc 9s 9d 7h 6c 5s 4d 3h 2c Jd Ts"


def pools_in(tmp_path_factory, names: tuple[str, ...], size: int) -> Path:
    """A new folder holding a pool of ``size`` hands for each ruleset of ``names`` (built
    once a run, tests/shared.py)."""
    folder = tmp_path_factory.mktemp("pools")
    for name in names:
        shared.pool(compile_rules(load_rules(name)), size, folder)
    return folder


def seated_pool(rules, players: int, folder: Path, size: int = SEATED) -> Path:
    """A pool of ``size`` hands for ``rules`` (a name or Rules) at a table of ``players``,
    added to ``folder``: where the home run is played, the field values it over the
    table's opponents, so each table size has a pool of its own (docs/pool.md#table-size)."""
    rules = load_rules(rules) if isinstance(rules, str) else rules
    return shared.pool(compile_rules(seated(rules, players)), size, folder)


@pytest.fixture(scope="module")
def pools(tmp_path_factory) -> Path:
    """A folder holding a pool of SIZE hands for each of POOL_RULES."""
    return pools_in(tmp_path_factory, POOL_RULES, SIZE)


@pytest.fixture
def with_pools(pools, monkeypatch) -> Path:
    monkeypatch.setenv("CAPSA_POOL_DIR", str(pools))
    return pools


# ---------------------------------------------------------------- _mc_pairs


def _summaries(hands: np.ndarray, cr, rng) -> tuple[np.ndarray, ...]:
    """Legal settings of ``hands`` under ``cr`` picked at random among their candidates
    (no field tables needed), and a natural declared now and then."""
    keys, roy = [], []
    for h in hands:
        c = candidates(h, cr)
        i = int(rng.integers(len(c)))
        keys.append(c.keys[i])
        roy.append(c.roy[i])
    n = len(hands)
    n_nat = len(cr.arrays.nat_units)
    nat = np.where(rng.random(n) < 0.08, rng.integers(0, max(1, n_nat), n), -1) if n_nat else None
    nat = np.full(n, -1, np.int64) if nat is None else nat.astype(np.int64)
    return np.array(keys), np.array(roy), nat, rng.integers(0, 5, n).astype(np.int64)


CUSTOM = {
    "cancel x3": {"base": "capsa", "royalty_mode": "cancel", "royalties": True,
                  "scoop_multiplier": 3},
    "always x1.5": {"royalty_mode": "always", "scoop_multiplier": 1.5},
    "2-4 one royalty": {"base": "chinese-2-4", "one_royalty_per_hand": True},
    # shisanshui's home run settles whole tables (_mc_values then adds _mc_home_run): off
    "shisanshui, no home run": {"base": "shisanshui", "home_run_multiplier": 1},
    "mau-binh, no home run": {"base": "mau-binh", "home_run_multiplier": 1},
    "dealt royalties": {"base": "shisanshui", "royalties_dealt": True,
                        "royalty_replaces_row": False,
                        "home_run_multiplier": 1},
    "per-row x2": {"base": "per-row", "scoop_multiplier": 2},
    # docs/rules.md#the-bankers-table: a scoop's added units and the pair cap
    "water room": {"base": "shisanshui-banker"},
    "x2 +1.5 capped at 4": {"scoop_multiplier": 2, "scoop_bonus": 1.5, "pair_cap": 4},
}  # fmt: skip


@pytest.mark.parametrize("name", ["chinese-1-6", "chinese-2-4", "per-row", "capsa", "pusoy",
                                  *CUSTOM])  # fmt: skip
def test_mc_pairs_is_mc_values_bit_for_bit(name):
    """The vectorised pairwise kernel writes exactly what the whole-table kernel writes
    without the home run (which the oracle checks, tests/test_solver.py): every scoring,
    royalty mode, multiplier, one royalty per hand, dealt royalties, stakes, opponents'
    naturals, a fouled played setting, and a range of deals that starts inside."""
    rules = load_rules(name) if name not in CUSTOM else rules_from_dict(CUSTOM[name], name)
    cr = compile_rules(load_rules(rules))
    ra = cr.arrays
    rng = np.random.default_rng(len(name))
    for trial, hand in enumerate(random_hands(4, len(name))):
        n_opp = 1 + trial % 3
        deals = 70 + trial
        c = candidates(hand, cr)
        h = hand.tolist()
        tries = [(h[10:], h[5:10], h[:5]), (h[10:], h[:5], h[5:10]),
                 ([h[0], h[5], h[10]], h[6:10] + [h[11]], h[1:5] + [h[12]])]  # fmt: skip
        for rows in tries:  # a fouled setting, played
            split = split_of(hand, *(np.asarray(r, np.uint8) for r in rows))
            if c.with_split(split[None, :], cr).fouls[-1]:
                break
        c = c.with_split(split[None, :], cr)
        opp_hands = deal_hands(rng, deals, n_opp, exclude=hand).reshape(-1, 13)
        okeys, oroy, onat, onatkey = _summaries(opp_hands, cr, rng)
        w = np.array([1.0, 2.5, 0.7])[:n_opp]
        nofoul = np.zeros(len(okeys), np.bool_)
        lo, hi = 3, deals - 2
        old = np.zeros((len(c), deals))
        K._mc_values(c.keys, c.roy, c.fouls, okeys, oroy, nofoul, onat, onatkey, w, ra.params,
                     ra.nat_units, lo, hi, old)  # fmt: skip
        ob = np.ascontiguousarray(okeys.reshape(deals, n_opp, 3).transpose(2, 1, 0))
        orb = np.ascontiguousarray(oroy.reshape(deals, n_opp, 4).transpose(2, 1, 0))
        nat = np.ascontiguousarray((onat >= 0).reshape(deals, n_opp).T)
        nv = np.empty(len(onat))
        K._natural_values(-1, 0, onat, onatkey, nofoul, ra.nat_units, nv, ra.params)
        new = np.zeros((len(c), deals))
        K._mc_pairs(c.keys, c.roy, c.fouls, ob, orb, nat,
                    np.ascontiguousarray(nv.reshape(deals, n_opp).T), w, ra.params, lo, hi,
                    new)  # fmt: skip
        assert c.fouls[-1] and ((onat >= 0).any() or not len(ra.nat_units))
        assert old.tobytes() == new.tobytes()  # the same bits, zeros' signs included
        assert np.count_nonzero(old[:, lo:hi]) > 0.5 * old[:, lo:hi].size


def test_score_against_deals_whole_tables_for_fouled_opponents():
    """Opponents a pool or the field never gives (a fouled one) go through the whole-table
    kernel; the values are the same either way for legal ones."""
    cr = compile_rules(load_rules("chinese-1-6"))
    hand = np.sort(ev.parse_hand(HAND))
    c = candidates(hand, cr)
    opp = SC.deal_opponents(hand, cr, 3, 40, seed=3)
    fouled = replace(opp, foul=opp.foul.copy())
    fouled.foul[5] = True
    a = SC.score_against(c, cr, opp).per_unit
    b = SC.score_against(c, cr, fouled).per_unit
    ra = cr.arrays
    for o, got in ((opp, a), (fouled, b)):
        want = np.zeros((len(c), 40))
        K._mc_values(c.keys, c.roy, c.fouls, o.keys, o.roy, o.foul, o.nat, o.nat_key,
                     np.ones(3), ra.params, ra.nat_units, 0, 40, want)  # fmt: skip
        assert np.array_equal(got, want / 3)
    assert np.array_equal(a[:, 2:], b[:, 2:]) and (b[:, 1] >= a[:, 1]).all()


# ---------------------------------------------------------------- the pool's hands


def test_pool_pick_takes_the_first_disjoint_hands_from_the_start(with_pools):
    pool = PL.cached_pool(compile_rules(load_rules("chinese-1-6")))
    assert pool is not None and pool.size == SIZE
    for seed, hand in enumerate(random_hands(20, 5)):
        want = 50 + seed * 20
        idx = pool.pick(hand, want, seed)
        mask = np.uint64(sum(1 << int(c) for c in hand))
        start = int(np.random.default_rng(seed).integers(SIZE))
        order = np.r_[np.arange(start, SIZE), np.arange(start)]
        free = order[(pool.masks[order] & mask) == 0]
        assert np.array_equal(idx, free[:want])
        assert pool.pick(hand, len(free) + 1, seed) is None  # too few: the caller deals
    assert 0.010 < len(free) / SIZE < 0.016  # C(39,13) / C(52,13) = 1.28%


def test_pool_opponents_share_no_card_with_the_hand(with_pools):
    pool = PL.cached_pool(compile_rules(load_rules("shisanshui")))
    for players in (2, 3, 4):
        for seed, hand in enumerate(random_hands(10, players)):
            deals = 120 // (players - 1)
            idx = pool.pick(hand, deals * (players - 1), seed)
            cards = pool.hands(idx)
            assert cards.shape == (len(idx), 13)
            assert not np.isin(cards, hand).any()
            assert all(len(set(row)) == 13 for row in cards.tolist())


@pytest.mark.parametrize("name", POOL_RULES)
def test_pool_hands_are_set_as_the_field_sets_them(with_pools, name):
    """Every pool hand of a sample: the field's setting (``set_hands``), its row keys and
    royalties, and the natural it declares under the ruleset's own list."""
    cr = compile_rules(load_rules(name))
    pool = PL.cached_pool(cr)
    idx = np.r_[np.arange(0, SIZE, 97), pool.nat_at[:50]]
    cards = pool.hands(idx)
    rows = set_hands(cards, name)
    for i, (h, setting) in enumerate(zip(cards, rows, strict=True)):
        f, m, b = split_cards(h, pool.split[idx[i]].astype(np.int32))
        assert (sorted(f), sorted(m), sorted(b)) == (
            sorted(setting[:3]), sorted(setting[3:8]), sorted(setting[8:])
        )  # fmt: skip
    _, keys, roy, _ = set_sorted_hands(cards, cr, "field", get_field(cr))
    ids, nkeys = find_naturals(cards, cr)
    okeys, oroy, onat, onatkey, ofoul = pool.entries(idx)
    assert np.array_equal(okeys, keys) and np.array_equal(oroy, roy)
    assert np.array_equal(onat, ids) and np.array_equal(onatkey[ids >= 0], nkeys[ids >= 0])
    assert not ofoul.any() and (ids >= 0).sum() >= 50
    for i in range(0, len(idx), 40):  # the naturals, against the oracle
        got = ref.ref_best_natural(cards[i].tolist(), load_rules(name))
        names = [n for n, _ in load_rules(name).naturals]
        assert (got[0] if got else None) == (names[ids[i]] if ids[i] >= 0 else None)


def test_pool_values_are_settlements_against_the_pool_hands(with_pools):
    """A solve drawing from the pool: each deal's value is the oracle's settlement of the
    candidate against the pool hands it drew, as set by the field."""
    rules = load_rules("chinese-1-6")
    cr = compile_rules(load_rules(rules))
    hand = np.sort(ev.parse_hand(HAND))
    pool = PL.cached_pool(cr)
    opp = pool_opponents(pool, hand, 3, 6, seed=9)
    idx = pool.pick(hand, 18, 9)
    cards = pool.hands(idx)
    settings = set_hands(cards, rules)
    c = candidates(hand, cr)
    scores = SC.score_against(c, cr, opp)
    for ci in range(0, len(c), max(1, len(c) // 4)):
        mine = tuple(x.tolist() for x in split_cards(hand, c.split[ci]))
        for d in range(6):
            total = 0.0
            for o in range(3):
                row, j = settings[3 * d + o], 3 * d + o
                nat = ref.ref_best_natural(cards[j].tolist(), rules)
                if nat is not None:
                    total += ref.ref_settle_natural(None, nat, rules)
                else:
                    total += ref.ref_settle(mine, (row[:3].tolist(), row[3:8].tolist(),
                                                   row[8:].tolist()), rules)  # fmt: skip
            assert scores.per_unit[ci, d] * 3 == pytest.approx(total)


# ---------------------------------------------------------------- solve with a pool


def test_solve_draws_from_a_cached_pool_and_deals_without_one(with_pools, tmp_path, monkeypatch):
    assert solve(HAND, samples=300, seed=4).pooled
    assert not solve(HAND, samples=300, seed=4, pool=False).pooled
    dealt = solve(HAND, samples=300, seed=4, pool=False).to_dict()
    pooled = solve(HAND, samples=300, seed=4).to_dict()
    assert pooled != dealt and pooled["samples"] == dealt["samples"] == 300
    assert solve(HAND, samples=300, seed=4, pool=True).to_dict() == pooled
    path = PL.pool_path(compile_rules(load_rules("chinese-1-6")))
    assert solve(HAND, samples=300, seed=4, pool=str(path)).to_dict() == pooled
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))  # no pool there: dealt
    assert solve(HAND, samples=300, seed=4).to_dict() == dealt
    with pytest.raises(PL.PoolError, match="shisanshui|another ruleset"):
        solve(HAND, rules="capsa", samples=30, seed=1, pool=str(path))
    with pytest.raises(ValueError, match="pool must be true, false or a pool file"):
        solve(HAND, pool=3)


def test_too_few_pool_hands_deal_instead(with_pools):
    """More opponent hands than the pool holds apart from the hand's cards: dealt."""
    many = 3 * (SIZE // 60)
    assert not solve(HAND, samples=many, seed=2).pooled
    assert (
        solve(HAND, samples=many, seed=2).to_dict()
        == solve(HAND, samples=many, seed=2, pool=False).to_dict()
    )


def test_home_run_tables_are_drawn_and_no_pool_still_deals(with_pools):
    """With the home run at the table, a solve draws whole tables from the pool
    (solver.strategy.solving.home_run; tests/test_pool_tables.py checks them), and ``pool=False``
    deals them as before. Below its minimum of opponents the table settles pair by pair:
    the plain pool's answer. A pool is of one table size (the field values the home run
    over the table's opponents): the 4-player pool is not drawn at 3 or 2 players."""
    hr = rules_from_dict({"base": "shisanshui", "home_run_multiplier": 2,
                          "home_run_min_opponents": 2}, "shisanshui-hr")  # fmt: skip
    # the multiplier's own key sets no hand: the same table's pool
    plain = compile_rules(load_rules("shisanshui"))
    assert PL.pool_key(compile_rules(load_rules(hr))) == PL.pool_key(plain)
    for players in (3, 2):  # the 4-player pool is of another table
        assert not solve(HAND, rules=hr, players=players, samples=150, seed=1).pooled
        seated_pool(hr, players, with_pools)
    for players in (3, 4):
        a = solve(HAND, rules=hr, players=players, samples=150, seed=1)
        assert a.pooled
        b = solve(HAND, rules=hr, players=players, samples=150, seed=1, pool=False)
        assert not b.pooled and a.to_dict() != b.to_dict()
    two = solve(HAND, rules=hr, players=2, samples=150, seed=1).to_dict()
    assert two != solve(HAND, rules=hr, players=2, samples=150, seed=1, pool=False).to_dict()
    plain = solve(HAND, rules="shisanshui", players=2, samples=150, seed=1).to_dict()
    assert {k: v for k, v in two.items() if k != "rules"} == {
        k: v for k, v in plain.items() if k != "rules"
    }


def test_same_seed_same_answer_with_one_and_two_threads(with_pools, monkeypatch):
    monkeypatch.setattr(SC, "_MC_PAIRS_CHUNK_WORK", 5_000)  # many chunks a solve
    answers = []
    for threads in ("1", "2"):
        monkeypatch.setenv("CAPSA_THREADS", threads)
        answers.append(solve(HAND, samples=450, seed=42, stakes=[1, 2, 3]).to_dict())
    assert answers[0] == answers[1]
    assert answers[0] != solve(HAND, samples=450, seed=43, stakes=[1, 2, 3]).to_dict()


def test_no_pool_answers_are_the_golden_ones(with_pools):
    """With pools cached for every ruleset of the golden runs, ``pool=False`` still gives
    the recorded (dealt) answers, and the pool would have given others."""
    from tests.golden import make as G
    from tests.test_golden import _same_record

    old = [json.loads(x) for x in G.read_gz(G.HERE / "solve.gz").splitlines()]
    for pool, same in ((False, True), (True, False)):
        new = [json.loads(x) for x in G.solve_records(pool=pool).splitlines()]
        mc = [(o, n) for o, n in zip(old, new, strict=True) if o["run"].startswith("mc")]
        if same:
            for i, (o, n) in enumerate(zip(old, new, strict=True)):
                _same_record(o, n, f"solve record {i}")
        else:
            assert all(
                (o["ev_play"], o["row_stats"]) != (n["ev_play"], n["row_stats"]) for o, n in mc
            )
    name, opts = G.BATCH_RUNS[6]
    assert name == "mc-chinese-1-6"
    recorded = G.read_gz(G.HERE / f"batch-{name}.gz").splitlines()
    text, _ = G.batch_records(opts, pool=False)
    assert [json.loads(x)["ev"] for x in text.splitlines()] == [
        json.loads(x)["ev"] for x in recorded
    ]
    pooled, _ = G.batch_records(opts, pool=None)
    assert pooled != text


# ---------------------------------------------------------------- never trusted


def _copy_pool(pools: Path, folder: Path, name: str = "chinese-1-6") -> Path:
    src = pools / PL.pool_path(compile_rules(load_rules(name)), size=SIZE).name
    dst = folder / src.name
    dst.write_bytes(src.read_bytes())
    return dst


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    head_end = len(PF.MAGIC) + 8 + int.from_bytes(data[len(PF.MAGIC) : len(PF.MAGIC) + 8], "little")
    if how == "flip a bit":
        data[len(data) // 2] ^= 0x10
    elif how == "truncate":
        data = data[: len(data) - 4096]
    elif how == "grow":
        data += b"\0" * 64
    elif how == "magic":
        data[0:5] = b"CAPSB"
    elif how == "size":
        data[:head_end] = data[:head_end].replace(f'"size": {SIZE}'.encode(),
                                                  f'"size": {SIZE - 1}'.encode())  # fmt: skip
    elif how == "crc":
        i = data.index(b'"crc32": ') + 9
        data[i] = ord("1") if data[i] != ord("1") else ord("2")
    elif how == "last byte":
        data[-1] ^= 1
    elif how in ("not an object", "arrays not objects"):
        start = len(PF.MAGIC) + 8
        head = json.loads(bytes(data[start:head_end]))
        head = [1, 2] if how == "not an object" else {**head, "arrays": [1] * len(head["arrays"])}
        raw = json.dumps(head).encode()
        data[start:head_end] = raw + b" " * (head_end - start - len(raw))
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["flip a bit", "truncate", "grow", "magic", "size", "crc",
                                 "last byte", "not an object", "arrays not objects"])  # fmt: skip
def test_a_damaged_pool_is_never_used_and_is_built_again(pools, tmp_path, monkeypatch, caplog,
                                                         how):  # fmt: skip
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    path = _copy_pool(pools, tmp_path)
    good = solve(HAND, samples=240, seed=6).to_dict()
    _damage(path, how)
    with pytest.raises(PL.PoolError, match="damaged|format"):
        PL.open_pool(path)
    assert PL.cached_pool(compile_rules(load_rules("chinese-1-6"))) is None
    assert "not used (capsa pool builds it again)" in caplog.text
    assert solve(HAND, samples=240, seed=6).to_dict() == solve(
        HAND, samples=240, seed=6, pool=False
    ).to_dict()  # fmt: skip
    if how != "flip a bit":
        return  # building it again (5 CPU seconds) is the same whatever the damage was
    rebuilt = PL.build_pool(compile_rules(load_rules("chinese-1-6")), SIZE)
    again = PL.cached_pool(compile_rules(load_rules("chinese-1-6")))
    assert rebuilt.path == path and again is not None
    assert solve(HAND, samples=240, seed=6).to_dict() == good  # the same pool again


def test_a_pool_of_other_tables_or_another_ruleset_is_not_used(pools, tmp_path, monkeypatch):
    """The key covers the field tables: under other tables (``capsa strength --tables``)
    the cached pool is not theirs. A pool file renamed to another ruleset's name fails
    its key. Building removes the ruleset's stale pools."""
    from solver.strategy.field_model.field import tables_from_dist
    from solver.strategy.field_model.trained import field_override

    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    path = _copy_pool(pools, tmp_path)
    cr = compile_rules(load_rules("chinese-1-6"))
    other = tables_from_dist(get_field(cr).dist, cr)  # no corrections: other tables
    own = PL.pool_key(cr)
    assert PL.cached_pool(cr) is not None
    with field_override(cr, other):
        assert PL.pool_key(cr) != own
        assert PL.cached_pool(cr) is None
    wrong = PL.pool_path(compile_rules(load_rules("capsa")))
    path.rename(wrong)
    with pytest.raises(PL.PoolError, match="another ruleset"):
        PL.open_pool(wrong, PL.pool_key(compile_rules(load_rules("capsa"))))
    assert PL.cached_pool(compile_rules(load_rules("capsa"))) is None
    stale = tmp_path / path.name.replace(PL.pool_key(cr), "0" * 32)
    stale.write_bytes(b"an old pool")
    PL.build_pool(cr, 2_000)
    assert not stale.exists() and PL.pool_path(cr).exists()


def test_the_pool_key_follows_tables_naturals_and_rules_not_payouts():
    base = load_rules("chinese-1-6")
    key = PL.pool_key(compile_rules(load_rules(base)))
    pays = rules_from_dict({"naturals": {"dragon": 26, "three_straights": 3, "six_pairs": 3,
                                         "three_flushes": 3}}, "pays")  # fmt: skip
    order = rules_from_dict({"naturals": {"dragon": 13, "six_pairs": 3, "three_straights": 3,
                                          "three_flushes": 3}}, "order")  # fmt: skip
    assert PL.pool_key(compile_rules(load_rules(pays))) == key  # payouts set no hand
    assert PL.pool_key(compile_rules(replace(base, surrender_cost=None, players=2))) == key
    assert PL.pool_key(compile_rules(load_rules(order))) != key  # which natural a hand declares
    assert PL.pool_key(compile_rules(load_rules("chinese-2-4"))) != key
    assert PL.pool_key(compile_rules(load_rules("capsa"))) != key


def test_the_pool_key_does_not_depend_on_what_was_imported_before():
    """A fresh process that imports the pool module alone finds the key this one does
    (the kernel sources are registered before the key is worked out)."""
    code = (
        "from solver.engine.compiled import compile_rules\n"
        "from solver.engine.rules import load_rules\n"
        "from solver.strategy.opposition.pool import pool_key\n"
        "print(pool_key(compile_rules(load_rules('capsa'))))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == PL.pool_key(compile_rules(load_rules("capsa")))


def test_a_failed_write_leaves_no_pool(tmp_path, monkeypatch):
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(PL.os, "replace", boom)
    with pytest.raises(OSError, match="No space"):
        PL.build_pool(compile_rules(load_rules("chinese-1-6")), 2_000)
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_write_leaves_the_old_pool_whole(tmp_path, monkeypatch):
    """A pool write that fails part way (here after the header and two arrays) goes
    through ``atomic_write``: the pool at the path is the old one, byte for byte, still
    sound, and no partial file is left beside it; a first write leaves no file at all."""
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    old = PL.build_pool(compile_rules(load_rules("chinese-1-6")), 2_000)
    before = old.path.read_bytes()
    arrays = {name: np.array(getattr(old, name)) for name, _, _ in PF.ARRAYS}
    arrays["nat_key"] = arrays["nat_key"] + 1
    real = PF.atomic_write
    written: list[int] = []

    class Interrupted(Exception):
        pass

    def failing(path, write, **kw):
        def part(fh):
            class Half:
                def write(self, data):
                    if len(written) == 3:
                        raise Interrupted
                    written.append(len(data))
                    return fh.write(data)

                def tell(self):
                    return fh.tell()

            write(Half())

        real(path, part, **kw)

    monkeypatch.setattr(PF, "atomic_write", failing)
    for target in (old.path, tmp_path / "new.bin"):
        written.clear()
        with pytest.raises(Interrupted):
            PF.write_pool_file(target, old.key, old.size, dict(arrays), {})
        assert len(written) == 3  # the write was under way when it stopped
    assert sorted(p.name for p in tmp_path.iterdir()) == [old.path.name]
    assert old.path.read_bytes() == before
    PL.OPEN_POOLS.clear()
    assert PL.open_pool(old.path, old.key).digest == old.digest


def _build_script(size: int) -> list[str]:
    """A process building a ``chinese-1-6`` pool of ``size`` hands, printing on stdout how
    many hands it has set after each block."""
    code = (
        "from solver.engine.compiled import compile_rules\n"
        "from solver.engine.rules import load_rules\n"
        "from solver.strategy.opposition.pool import build_pool\n"
        f"build_pool(compile_rules(load_rules('chinese-1-6')), {size},\n"
        "           progress=lambda done, size: print(done, flush=True))"
    )
    return [sys.executable, "-c", code]


def test_a_killed_build_leaves_no_pool_that_is_later_trusted(tmp_path, monkeypatch):
    """SIGKILL part way through a build: no pool file (the build writes to a temporary
    name and renames it whole); a leftover temporary file is never read as a pool and
    the next build removes it once it is old."""
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    proc = subprocess.Popen(_build_script(400_000), env=os.environ.copy(),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
    done = proc.stdout.readline()
    while done.strip() == b"0":  # until its first block of hands is set: far from done
        done = proc.stdout.readline()
    assert 0 < int(done) < 400_000, done
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    cr = compile_rules(load_rules("chinese-1-6"))
    assert not PL.pool_path(cr).exists() and PL.cached_pool(cr) is None
    target = PL.pool_path(cr)
    half = tmp_path / f".{target.name}.abc123.tmp"  # what a writer killed mid-write leaves
    full = PL.build_pool(compile_rules(load_rules("chinese-1-6")), 2_000)
    half.write_bytes(full.path.read_bytes()[:5000])
    full.path.unlink()
    PL.OPEN_POOLS.clear()
    assert PL.cached_pool(compile_rules(load_rules("chinese-1-6"))) is None
    assert solve(HAND, samples=60, seed=1).to_dict() == solve(
        HAND, samples=60, seed=1, pool=False
    ).to_dict()  # fmt: skip
    old = time.time() - 3600
    os.utime(half, (old, old))
    PL.build_pool(compile_rules(load_rules("chinese-1-6")), 2_000)
    assert not half.exists()


def test_two_builds_at_once_give_one_sound_pool(tmp_path, monkeypatch):
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    """Two processes build the same pool at once (their blocks of hands interleave): one
    file is left, whole, the pool of that size."""
    procs = [subprocess.Popen(_build_script(10_000), env=os.environ.copy(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]  # fmt: skip
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err.decode()
        assert out.split()[-1] == b"10000", out  # every block set, the last at the size
    files = sorted(x.name for x in tmp_path.iterdir())
    assert files == [PL.pool_path(compile_rules(load_rules("chinese-1-6"))).name]
    pool = PL.open_pool(tmp_path / files[0], PL.pool_key(compile_rules(load_rules("chinese-1-6"))))
    assert pool.size == 10_000


def test_pool_sizes_are_checked():
    with pytest.raises(ValueError, match="pool size must be from 1,000 to"):
        PL.build_pool(compile_rules(load_rules("chinese-1-6")), 10)
    with pytest.raises(ValueError, match="whole number"):
        PL.build_pool(compile_rules(load_rules("chinese-1-6")), 2.5)  # type: ignore[arg-type]


def test_pool_pays_when_the_dealt_opponents_outnumber_its_hands():
    assert PL.pool_pays(667, 3000) and not PL.pool_pays(666, 3000)
    assert PL.pool_pays(20_000, 100) and not PL.pool_pays(None, 3000)
    assert PL.pool_pays(10, 300, size=3_000)


# ---------------------------------------------------------------- the estimator


@pytest.mark.slow
@pytest.mark.long
def test_pooled_and_dealt_values_agree_within_their_errors(tmp_path, monkeypatch):
    """On 1,000 random hands (chinese-1-6, 4 players, 3,000 opponent hands), each of two
    settings valued against pool opponents and against dealt ones (independent seeds):
    the field's setting (chosen without either sample) and the setting each ``mc``
    chooses (the best of its own sample, so both values carry the same optimiser's
    bias). The mean differences are within three standard errors of 0, and the field
    setting's differences over their standard errors spread like a standard normal.
    A pool of 500,000 hands (about 6,400 apart from each hand's cards) is built first."""
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    cr = compile_rules(load_rules("chinese-1-6"))
    pool = PL.build_pool(cr, 500_000)
    z, fixed, best = [], [], []
    for i, hand in enumerate(random_hands(1000, 2026)):
        f = solve(hand, policy="field", top=0)
        if f.action != "play":  # a natural declared: its rows are not a setting to value
            continue
        rows = [ev.parse_cards(x) for x in f.setting]
        c = candidates(hand, cr).with_split(split_of(hand, *rows)[None, :], cr)
        a = SC.score_against(c, cr, pool_opponents(pool, hand, 3, 1000, 2 * i))
        b = SC.score_against(c, cr, SC.deal_opponents(hand, cr, 3, 1000, 2 * i + 1))
        j = len(c) - 1
        fixed.append(a.value[j] - b.value[j])
        z.append(fixed[-1] / np.hypot(a.stderr(j), b.stderr(j)))
        best.append(a.value.max() - b.value.max())
    for d in (np.array(fixed), np.array(best)):
        assert abs(d.mean()) < 3 * d.std(ddof=1) / np.sqrt(len(d))
    assert len(z) > 950 and 0.9 < np.std(z) < 1.1
