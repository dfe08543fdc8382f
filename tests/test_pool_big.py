"""The opponent pool of the bigger decks (issue #31): ``shisanshui`` at 5 and 6 players,
65 and 78 cards, a card held twice at times (docs/pool.md#bigger-decks).

A pool hand keeps its card ids as two masks over the faces, the first copies and the
second copies; a solve's hand gives each face's first appearance the first copy and its
second appearance the second, and a pool hand fits beside it when they share no card id.
The fit kernels against a count of card ids, the drawn hands uniform over the unseen card
ids (and a test on faces alone biased), no face past the deck's copies at a table, the
values of a pooled solve the oracle's settlement, pooled against dealt values. Pools of
``SIZE`` hands are built once for the module, in a folder of its own.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from evaluator.cards import copies_of
from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.engine.seating import seated
from solver.engine.setting_cards import hand_faces
from solver.strategy import _kernels as K
from solver.strategy.hands.deal import random_hands
from solver.strategy.hands.splits import candidates, split_cards
from solver.strategy.opposition import pool as PL
from solver.strategy.opposition.pool_file import check_values
from solver.strategy.solving import home_run as HR
from solver.strategy.solving import scoring as SC
from solver.strategy.solving.drawn import pool_opponents
from solver.strategy.solving.solve import solve
from tests import reference as ref
from tests import shared

SIZE = 30_000
STRONG = "Ah Ah Ad Ac As Kh Kd Kc Ks Qs Qd Jc 2c"  # both copies of Ah; it scoops at times
U64 = np.uint64


def _rules(players: int):
    return seated(load_rules("shisanshui"), players)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A folder holding a pool of ``SIZE`` hands for shisanshui at 5 and at 6 players."""
    where = tmp_path_factory.mktemp("pools")
    for n in (5, 6):
        cr = compile_rules(_rules(n))
        shared.pool(cr, SIZE, where)  # built once a run
    return where


@pytest.fixture(scope="module")
def pools(folder) -> dict[int, PL.OpponentPool]:
    return {n: PL.open_pool(next(folder.glob(f"pool-*-{PL._family(compile_rules(_rules(n)))}-*")))
            for n in (5, 6)}  # fmt: skip


def _words(ids) -> tuple[int, int]:
    """A hand's card ids (0 .. 77) as the pool's two masks over the faces."""
    first = sum(1 << i for i in ids if i < 52)
    second = sum(1 << (i - 52) for i in ids if i >= 52)
    return first, second


def _id_hands(rng, n: int, cards: np.ndarray) -> np.ndarray:
    return rng.permuted(np.tile(cards, (n, 1)), axis=1)[:, :13]


def test_the_fit_kernels_are_a_count_of_card_ids():
    """``_pool_pick_copies`` and ``_pool_partners_copies`` take exactly the hands that,
    with the cards already taken, hold no card id twice (a plain count), on hands drawn
    from few cards (both copies of the hearts and clubs, a few ranks), so both outcomes
    are common; and what fits never holds a face more often than the deck does, while
    some hands that fit by faces alone are refused (they hold the same copy)."""
    deck = _rules(6).deck
    rng = np.random.default_rng(7)
    cards = np.array([c for c in deck.cards() if deck.rank(c) >= 4], np.int64)  # 54 ids
    hands = _id_hands(rng, 3000, cards)
    words = np.array([_words(h.tolist()) for h in hands], np.uint64)
    firsts, seconds = np.ascontiguousarray(words[:, 0]), np.ascontiguousarray(words[:, 1])
    copies = np.array(deck.face_copies())
    faces_only = 0
    for h in _id_hands(rng, 20, cards):
        mine = h.tolist()
        want = [i for i, b in enumerate(hands.tolist()) if not set(b) & set(mine)]
        out = np.empty(len(hands), np.int64)
        h1, h2 = _words(mine)
        got = K._pool_pick_copies(firsts, seconds, U64(h1), U64(h2), 0, len(hands), out)
        assert out[:got].tolist() == want
        assert 0 < len(want) < len(hands) / 2
        for i in want:
            counts = np.bincount(np.concatenate([h, hands[i]]) % deck.faces, minlength=52)
            assert (counts <= copies).all()
        fits_by_faces = [
            i for i, b in enumerate(hands.tolist())
            if (np.bincount(np.array(b + mine) % deck.faces, minlength=52) <= copies).all()
        ]  # fmt: skip
        faces_only += len(set(fits_by_faces) - set(want))
        part = np.empty(len(hands), np.int64)
        taken1 = np.full(len(hands), h1, np.uint64)
        taken2 = np.full(len(hands), h2, np.uint64)
        starts = rng.integers(len(hands), size=len(hands))
        K._pool_partners_copies(firsts, seconds, taken1, taken2, starts, part)
        for s, p in zip(starts.tolist(), part.tolist(), strict=True):
            ahead = [i for i in want if i >= s] or want
            assert p == ahead[0]
    assert faces_only > 0


def test_drawn_hands_are_uniform_over_the_unseen_card_ids():
    """Rejection on card ids is exact: over 200,000 independent random hands of the
    65-card deck, those that fit beside a hand holding one Ah, both Kh and no Qh hold
    each face as often as a hand dealt from the 52 cards left: 13/52 of the copies left
    (Ah 0.25, Kh 0, Qh 0.5, As 0.25). Fitting by faces alone (a face no more often than
    the deck holds it) is not exact: it takes hands with the other Ah too often."""
    deck = _rules(5).deck
    rng = np.random.default_rng(3)
    ids = np.concatenate([_id_hands(rng, 100_000, np.array(deck.cards())) for _ in range(2)])
    words = np.array([_words(h) for h in ids.tolist()], np.uint64)
    hand = hand_faces("Ah Kh Kh 2c 3d 4s 5c 6d 7s 8c 9d Ts Jc", "h")
    h1, h2 = PL.hand_masks(hand)
    out = np.empty(len(ids), np.int64)
    got = K._pool_pick_copies(np.ascontiguousarray(words[:, 0]), np.ascontiguousarray(words[:, 1]),
                              U64(h1), U64(h2), 0, len(ids), out)  # fmt: skip
    faces = ids[out[:got]] % deck.faces
    left = np.array(deck.face_copies()) - np.bincount(hand, minlength=52)
    mean = np.stack([(faces == f).sum(axis=1) for f in range(52)], axis=1).mean(axis=0)
    want = left * 13 / 52
    se = np.sqrt(want * (1 - want / np.maximum(left, 1)) / got) + 1e-12
    assert got > 6000
    assert (np.abs(mean - want) < 5 * se).all()
    ah = 50
    assert want[ah] == 0.25
    allowed = np.array(deck.face_copies()) - np.bincount(hand, minlength=52)
    counts = np.stack([(ids % deck.faces == f).sum(axis=1) for f in range(52)], axis=1)
    naive = (counts <= allowed).all(axis=1)
    assert counts[naive, ah].mean() - 0.25 > 10 * se[ah]  # faces alone: biased


def _face_counts(*hands) -> np.ndarray:
    return np.bincount(np.concatenate(hands).astype(np.int64), minlength=52)


@pytest.mark.parametrize("players", [5, 6])
def test_drawn_hands_hold_no_card_past_the_deck(pools, players):
    """Every hand drawn holds no face more often than the deck does with the hand
    (pairwise deals); every whole table holds the whole deck, each face exactly as often
    as the deck (the hand, the pool seats disjoint from it and one another, the last
    seats dealt from the card ids left); the tables' seats are set by the field."""
    from solver.strategy.field_model.policy import set_sorted_hands
    from solver.strategy.field_model.trained import get_field

    cr = compile_rules(_rules(players))
    pool, n_opp = pools[players], players - 1
    copies = np.array(cr.rules.deck.face_copies())
    hands = [hand_faces(STRONG, cr.rules.deck.extra_letters),
             *random_hands(np.random.default_rng(1), 5, cr.rules.deck)]  # fmt: skip
    drawn_seats = 0
    for i, hand in enumerate(hands):
        idx = pool.pick(hand, 200, seed=i)
        assert idx is not None
        for h in pool.hands(idx):
            assert (_face_counts(hand, h) <= copies).all()
        got = HR.pool_tables(pool, hand, cr, n_opp, 80, seed=i)
        assert got is not None and got.n_tables == 10
        for t in range(got.n_tables):
            seats = got.cards[t * n_opp : (t + 1) * n_opp]
            assert np.array_equal(_face_counts(hand, *seats), copies)
        drawn_seats += int(got.drawn.sum())
        _, keys, _, _ = set_sorted_hands(got.cards, cr, "field", get_field(cr))
        assert np.array_equal(got.tables.keys, keys)
    assert drawn_seats >= len(hands) * 10 * 2  # the first and mostly the second


def _setting(cards: np.ndarray, split: np.ndarray) -> list[int]:
    return [int(c) for row in split_cards(cards, split.astype(np.int32)) for c in row]


def test_pooled_values_at_five_are_the_oracles_settlement(pools):
    """A pooled solve at 5 players (the home run on): each pairwise deal's value is the
    oracle's settlement of the hand with its four pool hands, pair by pair; each table's
    column is the mean of its deals plus the oracle's home run at that whole table (its
    settlement minus the pairwise one), for a sample of candidates and the best."""
    rules = _rules(5)
    cr = compile_rules(rules)
    extra, n_opp = rules.deck.extra_letters, 4
    pool = pools[5]
    hand = hand_faces(STRONG, extra)
    drawn = HR.pool_tables(pool, hand, cr, n_opp, 64, seed=5)
    c = candidates(hand, cr)
    s = HR.score_tables(c, cr, drawn)
    off = replace(rules, home_run_multiplier=1)
    pairs = SC.score_against(c, HR.without_home_run(cr), drawn.pairs)
    idx = pool.pick(hand, 64 * n_opp, seed=5)
    pcards, psplit = pool.hands(idx), pool.split[idx]

    def as_ids(faces) -> list[int]:
        return copies_of([int(x) for x in faces], extra)

    def entry(cards, split, nat_id) -> tuple:
        nat = ref.ref_best_natural(as_ids(cards), rules)
        assert (nat is not None) == (nat_id >= 0)
        if nat is not None:
            return ref.ref_declare(nat)
        ids = as_ids(_setting(cards, split))
        return (ids[:3], ids[3:8], ids[8:])

    deals = range(0, 64, 4)
    seats = {j: entry(pcards[j], psplit[j], drawn.pairs.nat[j])
             for d in deals for j in range(d * n_opp, (d + 1) * n_opp)}  # fmt: skip
    t_split, t_nat = drawn.split, drawn.tables.nat
    at_tables = [entry(drawn.cards[j], t_split[j], t_nat[j]) for j in range(len(t_nat))]
    seen = 0
    for ci in [*range(0, len(c), max(1, len(c) // 4)), int(s.value.argmax())]:
        m = as_ids(np.concatenate(split_cards(hand, c.split[ci])))
        mine = (m[:3], m[3:8], m[8:])
        for d in deals:
            units = sum(ref.ref_settle_table([mine, seats[j]], off)[0]
                        for j in range(d * n_opp, (d + 1) * n_opp))  # fmt: skip
            assert pairs.per_unit[ci, d] * n_opp == pytest.approx(units, abs=1e-9)
        for t in range(drawn.n_tables):
            table = [mine, *at_tables[t * n_opp : (t + 1) * n_opp]]
            whole, pairwise = (ref.ref_settle_table(table, r)[0] for r in (rules, off))
            extra_units = whole - pairwise
            seen += extra_units != 0
            g = HR.DEALS_PER_TABLE
            want = pairs.per_unit[ci, g * t : g * (t + 1)].mean() + extra_units / n_opp
            assert s.per_unit[ci, t] == pytest.approx(want, abs=1e-9)
    assert seen > 0  # the home run happened at some table


def test_pooled_and_dealt_values_agree_at_five(pools):
    """Three hands at 5 players: 1,000 opponent hands from the pool (whole tables for the
    home run) against 4,000 dealt; the five best settings' values within four standard
    errors of one another."""
    cr = compile_rules(_rules(5))
    for i, hand in enumerate(random_hands(np.random.default_rng(11), 3, cr.rules.deck)):
        c = candidates(hand, cr)
        drawn = HR.pool_tables(pools[5], hand, cr, 4, 250, seed=2 * i)
        assert drawn is not None
        a = HR.score_tables(c, cr, drawn)
        b = SC.score_against(c, cr, SC.deal_opponents(hand, cr, 4, 1000, 2 * i + 1))
        for j in np.argsort(b.value)[-5:]:
            assert abs(a.value[j] - b.value[j]) < 4 * np.hypot(a.stderr(j), b.stderr(j))


def test_solve_batch_and_the_command_draw_from_the_pool(pools, folder, monkeypatch, tmp_path):
    """solve at 5 and 6 players draws from the deck's cached pool (and says so), the same
    answer for the same seed, ``pool=False`` deals; the plain pairwise draw without the
    home run; batch's plan takes the pool; ``capsa pool --players 5`` builds it."""
    from typer.testing import CliRunner

    from solver.apps.batch.pooling import plan_pool
    from solver.cli import app

    monkeypatch.setenv("CAPSA_POOL_DIR", str(folder))
    for n in (5, 6):
        a = solve(STRONG, rules="shisanshui", players=n, samples=400, seed=3)
        assert a.pooled
        assert a.to_dict() == solve(STRONG, rules="shisanshui", players=n, samples=400,
                                    seed=3).to_dict()  # fmt: skip
        b = solve(STRONG, rules="shisanshui", players=n, samples=400, seed=3, pool=False)
        assert not b.pooled
    cr = compile_rules(_rules(5))
    hand = hand_faces(STRONG, "h")
    plain = pool_opponents(pools[5], hand, 4, 50, seed=1, cr=cr)
    assert plain is not None and plain.deals == 50
    plan = plan_pool(_rules(5), "mc", 5, None, None, 10, None)
    assert plan is not None and plan.cached and plan.size == SIZE
    folder = tmp_path / "built"
    monkeypatch.setenv("CAPSA_POOL_DIR", str(folder))
    got = CliRunner().invoke(app, ["pool", "--rules", "shisanshui", "--players", "5",
                                   "--size", "2000", "--format", "json"])  # fmt: skip
    assert got.exit_code == 0, got.output
    built = PL.cached_pool(cr)
    assert built is not None and built.size == 2000 and built.seconds is not None


def test_a_pool_of_copies_is_checked():
    """``check_values``: a second copy of a face the deck holds once, or a hand of 12 or
    14 cards, is refused; a 52-card pool (no second masks) is checked as before."""
    deck = _rules(5).deck
    rng = np.random.default_rng(2)
    ids = _id_hands(rng, 50, np.array(deck.cards()))
    words = np.array([_words(h) for h in ids.tolist()], np.uint64)
    base = {"keys": np.zeros((50, 3), np.uint16), "split": np.zeros((50, 3), np.uint16),
            "roy_id": np.zeros(50, np.uint16), "nat": np.full(50, -1, np.int8),
            "foul": np.zeros(50, np.bool_), "roy_table": np.zeros((1, 4)),
            "nat_at": np.zeros(0, np.int64), "nat_key": np.zeros(0, np.int64)}  # fmt: skip
    good = {**base, "masks": words[:, 0].copy(), "seconds": words[:, 1].copy()}
    assert check_values(good, deck) is None
    bad = {**good, "seconds": good["seconds"].copy()}
    bad["seconds"][0] |= U64(1)  # a second 2c: clubs are dealt once at 5 players
    assert "not 13" in check_values(bad, deck)
    short = {**good, "masks": good["masks"].copy()}
    short["masks"][3] &= short["masks"][3] - U64(1)  # 12 cards
    assert "not 13" in check_values(short, deck)


@pytest.mark.parametrize("players", [5, 6])
def test_the_screen_keeps_every_table_with_a_home_run_at_five_and_six(pools, players):
    """With two and three seats dealt a table (the pool rarely fits a third seat),
    ``home_run_possible`` is False only where no candidate's correction, every seat set,
    differs from 0; it leaves tables unset; and the solve's columns are the mean of their
    pairwise deals plus every table's correction."""
    from solver.strategy import _kernels as k

    cr = compile_rules(_rules(players))
    n_opp = players - 1
    skipped = kept = 0
    hands = [hand_faces(STRONG, cr.rules.deck.extra_letters),
             *random_hands(np.random.default_rng(4), 7, cr.rules.deck)]  # fmt: skip
    for i, hand in enumerate(hands):
        drawn = HR.pool_tables(pools[players], hand, cr, n_opp, 160, seed=i)
        c = candidates(hand, cr)
        need = HR.home_run_possible(c, drawn)
        s = HR.score_tables(c, cr, drawn)
        assert drawn.done.sum() == need.sum()
        assert (~drawn.drawn.reshape(-1, n_opp)).sum(axis=1).max() >= 2
        opp, out = drawn.tables, []
        for params in (cr.arrays.params, HR.without_home_run(cr).arrays.params):
            v = np.zeros((len(c), opp.deals))
            k._mc_values(c.keys, c.roy, c.fouls, opp.keys, opp.roy, opp.foul, opp.nat,
                         opp.nat_key, np.ones(n_opp), params, cr.arrays.nat_units, 0,
                         opp.deals, v)  # fmt: skip
            out.append(v)
        corr = out[0] - out[1]
        assert not corr[:, ~need].any()
        kept += int((corr[:, need] != 0).any(axis=0).sum())
        skipped += int((~need).sum())
        pairs = SC.score_against(c, HR.without_home_run(cr), drawn.pairs)
        want = pairs.per_unit.reshape(len(c), -1, HR.DEALS_PER_TABLE).mean(axis=2) + corr / n_opp
        assert np.allclose(s.per_unit, want, rtol=0, atol=1e-12)
    assert kept > 0 and skipped > 0
