"""The runners-up (the best setting of each other shape, or the next by value) and the
seed a solve picks when none is given."""

from __future__ import annotations

import json

import numpy as np
import pytest

import evaluator as ev
from solver import solve
from solver.strategy.hands.deal import random_hands
from tests import reference as ref
from tests.helpers import capsa_in

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
CLASSES = {"high card": 0, "pair": 1, "two pair": 2, "three of a kind": 3, "straight": 4,
           "flush": 5, "full house": 6, "four of a kind": 7, "straight flush": 8}  # fmt: skip


def shape(d: dict) -> tuple:
    """A setting's shape, from the oracle: each row's hand class, and the back's cards."""
    f, m, b = (tuple(ev.parse_cards(d[r]).tolist()) for r in ("front", "middle", "back"))
    return (ref.ref_category3(f), ref.ref_category5(m), ref.ref_category5(b), tuple(sorted(b)))


@pytest.mark.parametrize("policy", ["field", "mc"])
def test_runners_up_are_the_best_of_each_other_shape(policy):
    """By shape: each runner-up's shape differs from the best's and from the others', and
    it is the first of its shape in the order by value (the plain top-K, long enough)."""
    rng = np.random.default_rng(9)
    for hand in [HAND, *(ev.format_cards(h) for h in random_hands(rng, 4))]:
        kw = {"samples": 400, "seed": 1} if policy == "mc" else {}
        by_shape = solve(hand, policy=policy, top=4, **kw).to_dict()
        by_value = solve(hand, policy=policy, top=400, top_by="value", **kw).to_dict()
        seen = [shape(by_shape)]
        want = []
        for alt in by_value["alternatives"]:
            if shape(alt) not in seen:
                seen.append(shape(alt))
                want.append(alt)
        assert by_shape["alternatives"] == want[:4]
        shapes = [shape(a) for a in by_shape["alternatives"]]
        assert len(set(shapes)) == len(shapes) and shape(by_shape) not in shapes
        assert (by_shape["front"], by_shape["ev"]) == (by_value["front"], by_value["ev"])


def test_the_plain_top_k_is_the_next_by_value():
    d = solve(HAND, policy="field", top=3, top_by="value").to_dict()
    diffs = [a["diff"] for a in d["alternatives"]]
    assert diffs == sorted(diffs, reverse=True) and len(diffs) == 3
    # here the next three by value are kicker swaps: the same shape as the best
    assert all(shape(a) == shape(d) for a in d["alternatives"])
    shaped = solve(HAND, policy="field", top=3).to_dict()["alternatives"]
    assert all(shape(a) != shape(d) for a in shaped)


def test_top_by_is_checked_and_offered_by_the_cli():
    from solver.engine.errors import InputError

    with pytest.raises(InputError, match="top_by must be one of shape, value"):
        solve(HAND, policy="field", top_by="kickers")
    cmd = ["solve", HAND, "--policy", "field", "--format", "json"]
    ran = capsa_in(*cmd, "--top-by", "value")
    ran.check_returncode()
    a = json.loads(ran.stdout)
    assert (
        a["alternatives"] == solve(HAND, policy="field", top_by="value").to_dict()["alternatives"]
    )


# --------------------------------------------------------------------------- the seed


def test_a_solve_without_a_seed_picks_one_and_records_it():
    a = solve(HAND, samples=300).to_dict()
    assert isinstance(a["seed"], int) and 0 <= a["seed"] < 2**32
    again = solve(HAND, samples=300, seed=a["seed"]).to_dict()
    assert again == a
    b = solve(HAND, samples=300).to_dict()
    assert b["seed"] != a["seed"]  # picked afresh (a 1 in 2**32 chance of a false alarm)
    assert solve(HAND, policy="field").seed is None  # nothing random to repeat


def test_the_cli_shows_the_seed_it_picked():
    cmd = ["solve", HAND, "--samples", "300"]
    res = capsa_in(*cmd, "--format", "json")
    res.check_returncode()
    seed = json.loads(res.stdout)["seed"]
    table = capsa_in(*cmd, "--seed", str(seed))
    table.check_returncode()
    assert f"seed {seed}" in table.stdout
