"""Opponent models at every deck (docs/opponents.md#every-table): ``capsa train --from`` at
十三水 with two jokers (settings written as capsa writes them, ``X`` a joker) and at five
players (the added suit; ``capsa batch`` records, a card of the added suit written twice
where a hand holds both copies), what the model predicts of the held-out settings, the
model played by ``solve``, ``batch`` and ``duel`` at its table, and refused in one line
at a table of another deck. The real CLI, in the test's process (``helpers.capsa_in``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evaluator import format_cards
from solver.engine.compiled import compile_rules
from solver.engine.rules import Rules, load_rules
from solver.engine.seating import at_table
from solver.strategy.field_model.field import field_values, foul_value
from solver.strategy.field_model.policy import set_sorted_hands, settings_of
from solver.strategy.field_model.trained import get_field
from solver.strategy.hands.deal import random_hands
from solver.strategy.hands.splits import candidates
from tests.helpers import capsa_in
from tests.test_crafted_files import _members, _npy, _npz
from tests.test_run_identity import make_model

JOKERS = ("--rules", "shisanshui", "--jokers", "2")
FIVE = ("--rules", "shisanshui", "--players", "5")
#: Settings each model is learned from (a fifth held out).
LEARN = 1000
JOKER_HAND = "As Kd Qh Jc 9s 8d 7h 6c 5s 4d 3h X X"
FIVE_HAND = "As Ah Ah Kd Qh Jc 9s 8d 7h 6c 5s 4d 3h"


def table(players: int | None, jokers: int | None) -> Rules:
    return at_table(load_rules("shisanshui"), players, jokers)


def dealt(rules: Rules, n: int, seed: int) -> np.ndarray:
    """n hands of the table's deck (faces, sorted)."""
    return random_hands(np.random.default_rng(seed), n, rules.deck)


def greedy_lines(rules: Rules, hands: np.ndarray) -> str:
    """Greedy's settings of the hands as played lines, the cards as capsa writes them."""
    split, _, _, _ = set_sorted_hands(hands, compile_rules(rules), "greedy", None)
    code = rules.deck_code
    return "".join(
        f"h{i}: {format_cards(r[:3], code)} | {format_cards(r[3:8], code)} | "
        f"{format_cards(r[8:], code)}\n"
        for i, r in enumerate(settings_of(hands, split))
    )


@pytest.fixture(scope="module")
def jokers_model(tmp_path_factory):
    """A model learned by ``capsa train --from`` from greedy's settings at 十三水 with two
    jokers (played lines)."""
    folder = tmp_path_factory.mktemp("jokers")
    text = greedy_lines(table(None, 2), dealt(table(None, 2), LEARN, 5))
    assert "X" in text  # the jokers as capsa writes them
    (folder / "g.txt").write_text(text)
    res = capsa_in("train", *JOKERS, "--from", "g.txt", "-f", "json", cwd=folder)
    return folder / "g.npz", res


@pytest.fixture(scope="module")
def five_model(tmp_path_factory):
    """A model learned by ``capsa train --from`` from ``capsa batch --policy greedy``'s
    records at five players (the deck with a suit dealt twice)."""
    folder = tmp_path_factory.mktemp("five")
    rules = table(5, None)
    hands = dealt(rules, LEARN, 6)
    assert (np.diff(hands.astype(int), axis=1) == 0).any()  # a card held twice
    (folder / "h.txt").write_text(
        "".join(f"h{i}: {format_cards(h, rules.deck_code)}\n" for i, h in enumerate(hands))
    )
    made = capsa_in("batch", "h.txt", *FIVE, "--policy", "greedy", "-w", "1", "-o", "g5.jsonl",
                    cwd=folder)  # fmt: skip
    assert made.returncode == 0, made.stderr
    res = capsa_in("train", *FIVE, "--from", "g5.jsonl", "-f", "json", cwd=folder)
    return folder / "g5.npz", res


def _learned(res, name: str) -> dict:
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    assert d["rules"] == name and d["fouled"] == 0 and d["bad_lines"] == 0
    assert d["held_out"] == d["settings"] // 5
    # far better than the field at predicting greedy's held-out settings
    assert d["agree"] >= 0.5 and d["agree"] > d["agree_field"] + 0.3, d
    assert d["loglik"] > d["loglik_field"] + 1.0, d
    return d


def test_train_from_at_shisanshui_with_two_jokers(jokers_model):
    model, res = jokers_model
    d = _learned(res, "shisanshui-jokers-2")
    assert d["settings"] == LEARN and d["skipped"] == 0
    with np.load(model, allow_pickle=False) as z:
        assert json.loads(str(z["meta"]))["deck"] == "XX"


def test_train_from_at_five_players_from_batch_records(five_model):
    model, res = five_model
    d = _learned(res, "shisanshui-5")
    assert d["settings"] + d["skipped"] == LEARN  # records that declare a natural: skipped
    with np.load(model, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        assert meta["deck"] == "h" and z["util"].shape == z["dist"].shape
        assert z["dist"].shape == (3, compile_rules(table(5, None)).nkey)  # the widened keys


def test_the_model_is_what_solve_assumes_at_its_table(jokers_model, five_model):
    for (model, _), args, hand in ((jokers_model, JOKERS, JOKER_HAND),
                                   (five_model, FIVE, FIVE_HAND)):  # fmt: skip
        got = {}
        for opp in (str(model), "field"):
            res = capsa_in("solve", hand, *args, "-n", "300", "-s", "1", "--opponents", opp,
                           "-f", "json")  # fmt: skip
            assert res.returncode == 0, res.stderr
            got[opp] = json.loads(res.stdout)
        assert got[str(model)]["opponents"] == model.name
        assert got[str(model)]["ev_play"] != got["field"]["ev_play"]  # other opponents


def test_batch_and_duel_play_the_model_at_five_players(five_model, tmp_path):
    model, _ = five_model
    (tmp_path / "h.txt").write_text(f"a: {FIVE_HAND}\n")
    res = capsa_in("batch", "h.txt", *FIVE, "-n", "60", "--opponents", str(model), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["opponents"] == model.name
    for a in ("mc:60", str(model)):  # mc assuming it, and the model as a strategy
        res = capsa_in("duel", a, "greedy", *FIVE, "-d", "2", "-s", "1", "--opponents", str(model),
                       "-f", "json", cwd=tmp_path)  # fmt: skip
        assert res.returncode == 0, res.stderr


def _refused(res) -> str:
    assert res.returncode == 2, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if not ln.startswith("capsa: compiling ")]
    assert len(lines) == 1, res.stderr
    return lines[0]


def test_a_model_of_one_deck_is_refused_at_another(jokers_model, five_model, tmp_path):
    jokers, five = jokers_model[0], five_model[0]
    plain = make_model(tmp_path / "plain.npz", rules="shisanshui")  # the 52 cards
    cases = [
        (jokers, ("--rules", "shisanshui"), "the 54-card deck with 2 jokers", "the 52-card deck"),
        (jokers, (*FIVE, "--jokers", "2"), "the 54-card deck", "the 67-card deck with 2 jokers"),
        (five, ("--rules", "shisanshui", "-p", "6"), "the 65-card deck", "the 78-card deck"),
        (five, JOKERS, "the 65-card deck", "the 54-card deck with 2 jokers"),
        (plain, JOKERS, "the 52-card deck", "the 54-card deck with 2 jokers"),
        (plain, FIVE, "the 52-card deck", "the 65-card deck"),
    ]
    for model, args, learned, here in cases:
        hand = JOKER_HAND if "--jokers" in args else FIVE_HAND if "-p" in " ".join(args) else None
        hand = hand or "As Kd Qh Jc 9s 8d 7h 6c 5s 4d 3h 2c 2s"
        said = _refused(capsa_in("solve", hand, *args, "-n", "60", "--opponents", str(model)))
        assert f"learned at {learned}" in said and f"not at {here}" in said, said


def test_crafted_deck_models_are_refused(five_model, tmp_path):
    """A model file whose deck is not one capsa deals, that claims the 52 cards, or whose
    tables are the 52 cards' shape at the five players' deck: one line, exit 2."""
    model, _ = five_model
    members = _members(model)
    with np.load(model, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        dist, util = z["dist"], z["util"]
    nkey52 = compile_rules(load_rules("shisanshui")).nkey
    cases = {
        "deck QQ": ({"meta": np.array(json.dumps({**meta, "deck": "QQ"}))}, "not a deck capsa"),
        "deck 52": ({"meta": np.array(json.dumps({**meta, "deck": ""}))}, "the 52-card deck"),
        "52 keys": ({"dist": dist[:, :nkey52], "util": util[:, :nkey52]}, "damaged"),
    }
    for name, (change, said) in cases.items():
        crafted = dict(members)
        crafted.update({k: _npy(v) for k, v in change.items()})
        _npz(tmp_path / "m.npz", crafted)
        got = _refused(capsa_in("solve", FIVE_HAND, *FIVE, "-n", "60", "--opponents", "m.npz",
                                cwd=tmp_path))  # fmt: skip
        assert said in got, (name, got)


@pytest.mark.parametrize(("players", "jokers"), [(5, None), (None, 2), (None, None)])
def test_no_setting_is_valued_below_a_foul_twice_over(players, jokers):
    """The field's value of every candidate setting of greedy's hands is above twice a
    foul's (what losing every row costs with the scoop's multiplier): a row the card
    removal made sure to win (its loss rounding, 1e-17) once divided the royalty an
    opponent collects by beating it, -1e9 units, which kept the field and every model
    from settings with a sure row (``_scoop_royalties``)."""
    rules = table(players, jokers)
    cr = compile_rules(rules)
    field = get_field(cr)
    floor = 2 * foul_value(cr, field)
    for hand in dealt(rules, 400, 7):
        c = candidates(hand, cr)
        vals, _ = field_values(c.keys, c.roy, hand, cr, field)
        assert vals.min() > floor, (hand, vals.min())


def test_old_model_files_are_of_the_52_cards(tmp_path):
    """A model written before models were learned at other decks (no ``deck`` in its
    metadata) loads at the 52 cards and is refused at a table with jokers."""
    model = make_model(tmp_path / "old.npz", rules="shisanshui")
    with np.load(model, allow_pickle=False) as z:
        assert "deck" not in json.loads(str(z["meta"]))
    hand = "As Kd Qh Jc 9s 8d 7h 6c 5s 4d 3h 2c 2s"
    assert capsa_in("solve", hand, "--rules", "shisanshui", "-n", "60", "--opponents",
                    str(model)).returncode == 0  # fmt: skip
    assert "the 52-card deck" in _refused(
        capsa_in("solve", JOKER_HAND, *JOKERS, "-n", "60", "--opponents", str(model))
    )
