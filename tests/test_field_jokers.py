"""The jokers in the field's card removal (issue #54, item 3; docs/rules.md#jokers).

At a deck with jokers the field model's rank shift has a fourteenth rank, the jokers the
hand holds (0, 1, 2), trained from the same dealt hands as the 13 others, and the
royalties the opponents collect are those of their rows given the jokers the hand holds
(docs/strength.md#the-jokers-in-the-opponents-royalties): a hand holding both jokers values
its rows against opponents who hold none. Checked three ways: the kernels' value against
the oracle (tests/reference.py) with the jokers' curves and royalty tables; the shipped
table's P(win) of the rows of hands holding both jokers, and the royalties it charges
them, against what dealt field opponents win and collect (Monte Carlo); a table trained
before, without the jokers' row or their royalty tables, refused.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.engine.seating import with_jokers
from solver.engine.table_shape import JOKER_FACE
from solver.strategy.field_model import field as FT
from solver.strategy.field_model import trained as TR
from solver.strategy.hands.deal import deck_faces
from solver.strategy.hands.splits import candidates
from solver.strategy.solving.scoring import deal_opponents
from tests import reference as ref


def _holding(rng: np.random.Generator, cr, jokers: int) -> np.ndarray:
    """A random sorted hand of ``cr``'s deck holding ``jokers`` jokers."""
    faces = deck_faces(cr.rules.deck)
    rest = faces[faces != JOKER_FACE]
    cards = [*rng.choice(rest, 13 - jokers, replace=False), *[JOKER_FACE] * jokers]
    return np.sort(np.array(cards, np.uint8))


def _best_against_dealt(cr, field, seed: int, deal_seed: int):
    """8 random hands holding both jokers: (hand, its candidates, the 5 best by the field
    tables ``field``, 3,000 field opponents dealt against it, who show rows: naturals off)."""
    rng = np.random.default_rng(seed)
    for i in range(8):
        hand = _holding(rng, cr, 2)
        cands = candidates(hand, cr)
        vals, _ = FT.field_values(cands.keys, cands.roy, hand, cr, field)
        opp = deal_opponents(hand, cr, 1, 3000, deal_seed + i)
        assert (opp.nat < 0).all() and not opp.foul.any()
        yield hand, cands, np.argsort(-vals)[:5], opp


@pytest.mark.parametrize("preset", ["shisanshui", "chinese-2-4"])
def test_the_jokers_shift_is_the_oracles(preset):
    """``field_values`` with random card-removal curves, the jokers' among them, and
    random row-key tables given 0, 1 and 2 jokers held, is the oracle's value on hands
    holding 0, 1 and 2 jokers: the kernels add the curve of the jokers the hand holds,
    give the jokers no suit, and charge the royalties of the table given the jokers held
    (十三水's scoop multiplies them: the royalties an opponent collects when it beats a
    row count there too)."""
    rng = np.random.default_rng(8)
    rules = with_jokers(load_rules(preset), 2)
    cr = compile_rules(rules)
    knots = 9
    f = FT.field_tables(
        rng.random((3, cr.nkey)), cr, rng.normal(0, 0.02, (3, 14, 5, knots)),
        rng.normal(0, 0.02, (3, 14, knots)), rng.normal(0, 0.05, (3, 5, 5, 5)),
        jdist=rng.random((3, 3, cr.nkey)) ** 4,
    )  # fmt: skip
    assert f.rank.shape[1] == 14 and np.abs(f.rank[:, 13]).max() > 0.01
    jx = f.model.jx  # the tables given 0, 1 and 2 jokers differ from each other
    assert np.abs(jx[2, ..., 0] - jx[0, ..., 0]).max() > 1e-3
    for jokers in (0, 1, 2, 2):
        hand = _holding(rng, cr, jokers)
        every = candidates(hand, cr, prune=False)
        pick = rng.choice(len(every), min(40, len(every)), replace=False)
        vals, _ = FT.field_values(every.keys[pick], every.roy[pick], hand, cr, f)
        for v, i in zip(vals, pick, strict=True):
            want = ref.ref_field_model_value(hand, every.keys[i], every.roy[i], f, rules)
            assert v == pytest.approx(want, rel=1e-12, abs=1e-9)


def test_a_hand_holding_both_jokers_wins_its_rows_as_against_dealt_opponents():
    """The shipped 十三水 table with two jokers, on 8 random hands holding both jokers: each
    row's P(win) the field gives the 5 best settings of each is what those rows win
    against 3,000 dealt field opponents (who hold no joker; naturals off, which the field
    leaves out, so that every opponent shows rows), within 0.02 on average (0.0077 when
    written), and less than half as far off as with the jokers' row of the shift left
    out (the model before it: 0.042, the back row's P(win) 0.093 too low)."""
    rules = replace(with_jokers(load_rules("shisanshui"), 2), naturals=())
    cr = compile_rules(rules)
    full = TR.get_field(cr)
    rank = full.rank.copy()
    rank[:, 13] = 0.0  # the jokers left out of the card removal
    left_out = FT.field_tables(full.dist, cr, rank, full.suit, full.cop)
    errors: dict[str, list[np.ndarray]] = {"full": [], "left_out": []}
    for hand, cands, best, opp in _best_against_dealt(cr, full, 11, 100):
        # no suit order: equal keys tie, a higher key wins the row
        won = (cands.keys[best][:, None, :] > opp.keys[None, :, :]).mean(axis=1)
        for name, f in (("full", full), ("left_out", left_out)):
            _, wt = FT.field_values(cands.keys[best], cands.roy[best], hand, cr, f)
            errors[name].append(np.abs(wt[..., 0] - won))
    off = {k: float(np.mean(e)) for k, e in errors.items()}
    assert off["full"] < 0.02, off
    assert off["full"] < off["left_out"] / 2, off


def test_a_joker_table_without_the_jokers_shift_is_refused(tmp_path):
    """A table file trained before the jokers counted (13 ranks of shift at a deck with
    jokers) does not load: one line naming the file and saying to train it again; the
    same table at the 52 cards loads."""
    cr52 = compile_rules(load_rules("shisanshui"))
    old = TR.get_field(cr52)
    cr = compile_rules(with_jokers(load_rules("shisanshui"), 2))
    stale = FT.field_tables(np.ones((3, cr.nkey)), cr)._replace(
        rank=old.rank, suit=old.suit, cop=old.cop, meta={"version": 2}
    )
    FT.save_field(stale, tmp_path / "old.npz")
    with pytest.raises(ValueError, match=r"old\.npz: .*leaves the jokers out.*train it again"):
        FT.load_field_file(tmp_path / "old.npz", cr)


def test_the_royalties_charged_a_hand_holding_both_jokers_are_what_dealt_opponents_collect():
    """The shipped 十三水 table with two jokers, on 8 random hands holding both jokers (their
    5 best settings each): what the field charges each row, the royalty an opponent
    collects by beating it (``opponents_royalties``), is what 3,000 dealt field opponents
    (who hold no joker) collect by beating it: on each row, over the 40 settings, the
    charge is off by less than 0.02 units on average (when written: 0.002 / 0.004 /
    0.011 too little on front / middle / back), a tenth of what the table's royalties
    over every hand are off, summed over the rows (+0.055 / +0.008 / +0.272: the charge
    before the royalties were taken given the jokers held). What is left on the back is
    first order: the hand's other cards change which royalty rows the opponents make.

    Power: a row's collected royalty per opponent is mostly 0 and a few units at most,
    its standard deviation under 1 unit; over 8 x 3,000 opponents a row's mean has a
    standard error under 1 / sqrt(24,000) = 0.0065, so 0.02 is three of them, and the
    old charge's sum, 0.335, is fifty."""
    rules = replace(with_jokers(load_rules("shisanshui"), 2), naturals=())
    cr = compile_rules(rules)
    full = TR.get_field(cr)
    unheld = FT.field_tables(full.dist, cr, full.rank, full.suit, full.cop)  # jokers not given
    replaces = float(cr.rules.royalty_replaces_row)
    errors: dict[str, list[np.ndarray]] = {"given": [], "any": []}
    for hand, cands, best, opp in _best_against_dealt(cr, full, 12, 200):
        paid = opp.roy[:, :3] - (opp.roy[:, :3] > 0.0) * replaces  # what a row adds
        beats = opp.keys[None, :, :] > cands.keys[best][:, None, :]
        dealt = (beats * paid[None, :, :]).mean(axis=1)  # [5, 3]
        for name, f in (("given", full), ("any", unheld)):
            charged, _ = FT.opponents_royalties(f, cands.keys[best], hand)
            errors[name].append(charged - dealt)
    # each row's error, averaged over the 40 settings: the model's bias on that row
    bias = {k: np.abs(np.mean(e, axis=(0, 1))) for k, e in errors.items()}
    assert bias["given"].max() < 0.02, bias
    assert bias["given"].sum() < bias["any"].sum() / 10, bias


def test_a_fouled_setting_of_a_hand_holding_both_jokers_pays_the_royalties_dealt_opponents_make():
    """A fouled setting is scooped and pays the opponent's royalties (``foul_value``): for
    a hand holding both jokers at 十三水 with two jokers, the royalties of opponents who hold
    none. What holding both saves against the table's royalties over every hand is what
    3,000 dealt field opponents' royalties save, within 0.15 units (the saving is about
    1.7 units, multiplied by the scoop's 2; the dealt mean's standard error, about 0.03,
    doubled, is a twentieth of the tolerance's width)."""
    rules = replace(with_jokers(load_rules("shisanshui"), 2), naturals=())
    cr = compile_rules(rules)
    f = TR.get_field(cr)
    hand = _holding(np.random.default_rng(13), cr, 2)
    opp = deal_opponents(hand, cr, 1, 3000, 300)
    paid = opp.roy[:, :3] - (opp.roy[:, :3] > 0.0) * float(cr.rules.royalty_replaces_row)
    mult = float(cr.rules.scoop_multiplier)
    saved_dealt = (float(f.fe.sum()) - float(paid.sum(axis=1).mean())) * mult
    saved = FT.foul_value(cr, f, hand) - FT.foul_value(cr, f)
    assert saved > 0.5
    assert saved == pytest.approx(saved_dealt, abs=0.15)
