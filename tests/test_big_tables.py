"""Five and six players with added suits (issue #31): play at those tables, against the oracle.

A deck with added suits (docs/rules.md#added-suits) compiles on its copies scale; the
settlement of whole tables of 5 and 6 (the home run over 4 and 5 opponents), the
naturals and exact solves against given opponents (``--against``) play it, with a hand
holding both copies of a card; so do the field (its own tables for each deck) and Monte
Carlo, which deals the deck's own cards. Each is checked against tests/reference.py,
which plays these decks on its own (ids with copies, five of a kind, whole tables).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from evaluator import CardParseError, format_cards
from evaluator.cards import copies_of
from solver import settle_table, solve
from solver.engine.compiled import compile_rules
from solver.engine.errors import RulesError
from solver.engine.rules import rules_from_dict
from solver.engine.settlement import find_natural, summarize
from tests import reference as ref
from tests.helpers import capsa_in

#: (extra_suits, players): the apps' decks for five and six.
TABLES = [("h", 5), ("hc", 6)]
#: Five aces (both copies of the ace of hearts), four kings: no natural, a home run at times.
STRONG = "Ah Ah Ad Ac As Kh Kd Kc Ks Qs Qd Jc 2c"


def big_rules(extra: str, players: int, **over):
    """The shisanshui preset on a bigger deck, with five of a kind paid as atom-chen pays
    it (middle 20, back 10: the row's whole value, royalty_replaces_row)."""
    royalties = {
        "front": {"three_of_a_kind": 3},
        "middle": {"full_house": 2, "four_of_a_kind": 8, "straight_flush": 10,
                   "five_of_a_kind": 20},
        "back": {"four_of_a_kind": 4, "straight_flush": 5, "five_of_a_kind": 10},
    }  # fmt: skip
    body = {"base": "shisanshui", "extra_suits": extra, "players": players,
            "royalties": royalties, **over}  # fmt: skip
    return rules_from_dict(body, f"big-{extra}-{players}")


def deal(extra: str, players: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """``players`` hands of the deck (ids with copies), the first holding both copies of
    two cards and so as many copies as a table shows (rich in copies)."""
    deck = list(ref.RefDeck(extra).ids)
    second = [c for c in deck if c >= ref.FACES]
    pairs = rng.choice(second, size=2, replace=False).tolist()
    mine = [*pairs, *(c - ref.FACES for c in pairs)]
    rest = [c for c in deck if c not in mine]
    rng.shuffle(rest)
    mine += rest[:9]
    rest = rest[9:]
    return [tuple(sorted(mine))] + [
        tuple(sorted(rest[13 * i : 13 * i + 13])) for i in range(players - 1)
    ]


def some_setting(hand: tuple[int, ...], rng: np.random.Generator, rules, legal: bool = True):
    """A random setting of ``hand`` (a legal one when ``legal`` and one is found in 200
    tries; the back the stronger five)."""
    for _ in range(200):
        order = rng.permutation(13)
        f, m, b = (
            tuple(hand[p] for p in order[s]) for s in (slice(0, 3), slice(3, 8), slice(8, 13))
        )
        if ref.ref_key5(m) > ref.ref_key5(b):
            m, b = b, m
        if not legal or ref.ref_is_legal(f, m, b, rules.wheel, rules.suit_order):
            return f, m, b
    return f, m, b


@pytest.mark.parametrize(("extra", "players"), TABLES)
def test_whole_tables_settle_as_the_oracle_settles_them(extra, players):
    """Random tables of 5 and 6, legal and fouled settings, the home run over every
    opponent: ``settle_table`` equals ``ref_settle_table`` seat by seat."""
    rng = np.random.default_rng(31 + players)
    rules = big_rules(extra, players)
    homeruns = 0
    for t in range(60):
        hands = deal(extra, players, rng)
        settings = [
            some_setting(h, rng, rules, legal=(t + i) % 7 != 0) for i, h in enumerate(hands)
        ]
        got = settle_table(settings, rules)
        want = ref.ref_settle_table(settings, rules)
        assert got == pytest.approx(want, abs=1e-9)
        assert sum(got) == pytest.approx(0.0, abs=1e-9)
        entries = [("play", ref._hand_summary(s, rules)) for s in settings]
        homeruns += ref._home_run_player(entries, rules) is not None
    assert homeruns >= 3  # the home run over 4 and 5 opponents is among them


@pytest.mark.parametrize(("extra", "players"), TABLES)
def test_rows_with_copies_summarise_as_the_oracle_ranks_them(extra, players):
    """Five of a kind above a straight flush, flushes holding pairs, royalties on the
    copies scale: the order of ``summarize``'s keys is the oracle's order of rows."""
    rules = big_rules(extra, players)
    cr = compile_rules(rules)
    deck = ref.RefDeck(extra)
    five = deck.cards("Ah Ah Ad Ac As")
    flush_pair = deck.cards("Kh Kh Qh Jh 9h")
    sf = deck.cards("9s Ts Js Qs Ks")
    fronts = [deck.cards("2c 3d 4s"), deck.cards("Th Th 2c"), deck.cards("8h 8h 8d")]
    for front in fronts:
        for middle, back in itertools.permutations([five, flush_pair, sf], 2):
            setting = (front, middle, back)
            if len(set(setting[0] + setting[1] + setting[2])) < 13:
                continue  # a card more often than the deck holds it
            keys, roy, foul = summarize(setting, cr)
            assert foul == (
                not ref.ref_is_legal(front, middle, back, rules.wheel, rules.suit_order)
            )
            for r, row in enumerate(("front", "middle", "back")):
                want = ref.ref_row_royalty(row, setting[r], rules)
                assert roy[r] == pytest.approx(want if not foul else roy[r])
    k_five = summarize((fronts[0], flush_pair, five), cr)[0]
    k_sf = summarize((fronts[0], flush_pair, sf), cr)[0]
    assert k_five[2] > k_sf[2] > k_five[1]  # five of a kind > straight flush > the flush


@pytest.mark.parametrize(("extra", "players"), TABLES)
def test_an_exact_solve_at_five_and_six_equals_the_brute_force(extra, players):
    """A hand holding both copies of two cards, against 4 or 5 given opponents, the home
    run on: the solve's value is the oracle's best over all 72,072 splits, and the
    setting it gives is worth that at the whole table."""
    rng = np.random.default_rng(7 * players)
    rules = big_rules(extra, players)
    hands = deal(extra, players, rng)
    mine, opps = hands[0], [some_setting(h, rng, rules) for h in hands[1:]]
    sol = solve(format_cards(mine, extra), rules, against=[[list(r) for r in o] for o in opps])
    value, setting, _ = ref.ref_best_setting(mine, opps, rules)
    assert sol.players == players
    assert sol.ev_play * (players - 1) == pytest.approx(value, abs=1e-9)
    deck = ref.RefDeck(extra)
    chosen = tuple(deck.cards(getattr(sol, r)) for r in ("front", "middle", "back"))
    assert sorted(c % ref.FACES for c in sum(chosen, ())) == sorted(c % ref.FACES for c in mine)
    assert ref.ref_settle_table([chosen, *opps], rules)[0] == pytest.approx(value)


def test_a_card_no_more_often_at_the_table_than_the_deck_holds_it():
    rules = big_rules("h", 5)
    hand = "Ah Ah Kh Qh Jh 9c 9d 9s 2c 3d 4s 5c 7d"
    with pytest.raises(CardParseError) as err:
        solve(hand, rules, against=["2h 3h 4h | 5d 6d 8d Td 7c | Js Qs Ks As Ah"])
    assert str(err.value) == "opponent 1: 3 times the card 'Ah': extra_suits = 'h' holds two Ah"
    with pytest.raises(CardParseError, match="opponent 1: duplicate card '9c'"):
        solve(hand, rules, against=["2h 3h 4h | 5d 6d 8d Td 9c | Js Qs Ks As Ts"])
    with pytest.raises(CardParseError, match="player 2: duplicate card 'Kc'"):
        settle_table(["Kc 2c 3c | 4c 5c 6c 7c 8c | 9c Tc Jc Qc Ac",
                      "Kc 2d 3d | 4d 5d 6d 7d 8d | 9d Td Jd Qd Ad"], rules)  # fmt: skip


def test_naturals_count_copies_as_the_oracle_counts_them():
    """Six pairs with a five of a kind among them, four trips, a dragon held twice over:
    ``find_natural`` names what the oracle names."""
    rules = big_rules("hc", 6)
    deck = ref.RefDeck("hc")
    hands = [
        "Ah Ah Ac Ac As Kh Kh Qc Qc 2d 2s 3h 4h",  # five aces, two pairs more, ...
        "Ah Ah Ac Kh Kh Kc Qc Qc Qd Jh Jh Js 2d",  # four trips
        "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah",  # a royal dragon
        "2h 2h 3c 3c 4d 4s 5h 5h 6c 6c 7d 7s 9h",  # six pairs of copies and one
    ]
    for text in hands:
        ids = deck.cards(text)
        want = ref.ref_best_natural(ids, rules)
        got = find_natural(text, rules)
        assert (got[2] if got else None) == (want[0] if want else None), text


@pytest.mark.parametrize(("extra", "players"), TABLES)
def test_monte_carlo_at_five_and_six_equals_the_oracle_deal_by_deal(extra, players):
    """solve's Monte Carlo at a table of 5 and 6: the opponents are dealt from the cards
    the hand leaves (each face no more often than the deck holds it, both copies of a
    card among them), set by the field tables of the deck, their naturals declared, and
    every candidate's value at every deal is the oracle's whole-table settlement (the
    home run over 4 and 5 opponents included)."""
    from solver.engine.setting_cards import hand_faces
    from solver.strategy.field_model.policy import set_sorted_hands, settings_of
    from solver.strategy.field_model.trained import get_field
    from solver.strategy.hands.deal import deal_hands
    from solver.strategy.hands.splits import candidates, split_cards
    from solver.strategy.solving.scoring import deal_opponents, score_against

    rules = big_rules(extra, players)
    cr = compile_rules(rules)
    n_opp, deals = players - 1, 8
    copies = np.array(cr.rules.deck.face_copies())
    hand = hand_faces(STRONG, extra)  # both copies of a card; it scoops every seat at times
    cands = candidates(hand, cr)
    opp = deal_opponents(hand, cr, n_opp, deals, seed=players)
    scores = score_against(cands, cr, opp)
    hands = deal_hands(np.random.default_rng(players), deals, n_opp, exclude=hand,
                       deck=cr.rules.deck).reshape(deals * n_opp, 13)  # fmt: skip
    doubled = 0
    for d in range(deals):
        counts = np.bincount(np.concatenate([hand, *hands[d * n_opp : (d + 1) * n_opp]]))
        assert counts.sum() == 13 * players and (counts <= copies[: len(counts)]).all()
        doubled += int((counts[: len(counts)] == 2).sum())
    assert doubled > 0
    split, _, _, _ = set_sorted_hands(hands, cr, "field", get_field(cr))
    settings = settings_of(hands, split)
    def as_ids(faces) -> list[int]:  # the oracle's ids: a face's second appearance, its copy
        return copies_of([int(x) for x in faces], extra)

    tables = []  # each deal's opponents as the oracle seats them: once, not once a candidate
    for d in range(deals):
        table = []
        for j in range(d * n_opp, (d + 1) * n_opp):
            nat = ref.ref_best_natural(as_ids(hands[j]), rules)
            assert (opp.nat[j] >= 0) == (nat is not None)
            s = as_ids(settings[j])
            table.append(ref.ref_declare(nat) if nat else (s[:3], s[3:8], s[8:]))
        tables.append(table)
    homeruns = 0
    for c in range(len(cands)):
        m = as_ids(np.concatenate(split_cards(hand, cands.split[c])))
        mine = (tuple(m[:3]), tuple(m[3:8]), tuple(m[8:]))
        for d in range(deals):
            players_at = [mine, *tables[d]]
            entries = [ref._table_entry(p, rules) for p in players_at]
            homeruns += ref._home_run_player(entries, rules) is not None
            units = ref.ref_table_units(players_at, rules)[0][1:]
            assert scores.per_unit[c, d] * n_opp == pytest.approx(sum(units), abs=1e-9)
    assert homeruns > 0  # the home run over every opponent is among the tables checked


@pytest.mark.parametrize(("extra", "players"), TABLES)
def test_the_field_sets_hands_of_the_bigger_deck_legally(extra, players):
    """The field of the deck (its own tables: five of a kind, flushes with pairs, the
    card-removal shift counting up to six of a rank) sets every hand of it legally, with
    its own cards, and values a setting as the oracle's model value does."""
    from solver.strategy.field_model.field import field_values
    from solver.strategy.field_model.policy import set_sorted_hands, settings_of
    from solver.strategy.field_model.trained import get_field
    from solver.strategy.hands.deal import random_hands
    from solver.strategy.hands.splits import candidates

    rules = big_rules(extra, players)
    cr = compile_rules(rules)
    field = get_field(cr)
    assert field.rank.shape[2] == cr.rules.deck.of_a_rank + 1
    hands = random_hands(np.random.default_rng(3), 300, cr.rules.deck)
    assert any(len(set(h.tolist())) < 13 for h in hands)
    split, _, _, _ = set_sorted_hands(hands, cr, "field", field)
    settings = settings_of(hands, split)
    for h, s in zip(hands, settings, strict=True):
        assert sorted(s.tolist()) == h.tolist()
        ids = copies_of(s.tolist(), extra)  # the oracle's ids: the copies told apart
        assert ref.ref_is_legal(ids[:3], ids[3:8], ids[8:], rules.wheel, rules.suit_order)
    for h in hands[:4]:
        cands = candidates(h, cr)
        vals, _ = field_values(cands.keys, cands.roy, h, cr, field)
        for i in range(0, len(cands), max(1, len(cands) // 4)):
            ids = copies_of(h.tolist(), extra)
            want = ref.ref_field_model_value(ids, cands.keys[i], cands.roy[i], field, rules)
            assert vals[i] == pytest.approx(want, abs=1e-9)


def test_capsa_solve_against_four_opponents_at_a_five_player_table(tmp_path):
    """The user's way: a ruleset file with ``extra_suits = "h"`` and five players, the
    hand and four opponents on the command line, the answer as JSON; without them, one
    line and exit code 2."""
    path = tmp_path / "five.toml"
    path.write_text('base = "shisanshui"\nextra_suits = "h"\nplayers = 5\n', encoding="utf-8")
    rng = np.random.default_rng(5)
    rules = big_rules("h", 5)
    hands = deal("h", 5, rng)
    hand = format_cards(hands[0], "h")
    opps = [
        " | ".join(format_cards(r, "h") for r in some_setting(h, rng, rules)) for h in hands[1:]
    ]
    against = tmp_path / "opponents.txt"
    against.write_text("\n".join(opps) + "\n", encoding="utf-8")
    args = ["solve", hand, "--rules", str(path), "--format", "json"]
    args += ["--against", str(against)]
    done = capsa_in(*args, timeout=300)
    assert done.returncode == 0, done.stderr
    import json

    answer = json.loads(done.stdout)
    assert answer["players"] == 5 and answer["policy"] == "exact"
    rows = " ".join(answer[r] for r in ("front", "middle", "back")).split()
    assert sorted(rows) == sorted(hand.split())
    refused = capsa_in(*args[:2], "--rules", "mau-binh", "--players", "5", timeout=300)
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "set extra_suits" in lines[0]


@pytest.mark.parametrize(("extra", "players"), TABLES)
def test_a_hand_holding_copies_offers_each_setting_once(extra, players):
    """Two splits that only swap the copies of a card are one setting: every legal
    split (unpruned) is there once as rows of faces, exactly the oracle's distinct legal
    settings (the two fives unordered: of two equal fives one orientation is kept)."""
    from solver.engine.setting_cards import hand_faces
    from solver.strategy.hands.splits import candidates

    rng = np.random.default_rng(3 * players)
    rules = big_rules(extra, players)
    cr = compile_rules(rules)

    def shown(f, m, b):
        face = lambda row: tuple(sorted(c % ref.FACES for c in row))  # noqa: E731
        return face(f), frozenset((face(m), face(b)))

    for _ in range(2):
        hand = deal(extra, players, rng)[0]
        cands = candidates(hand_faces(format_cards(hand, extra), extra), cr, prune=False)
        got = [
            shown(*(cands.hand[ix] for ix in _positions(cands.split[i]))) for i in range(len(cands))
        ]
        assert len(set(got)) == len(got)
        want = {shown(*s) for s in ref.ref_all_splits(hand)
                if ref.ref_is_legal(*s, rules.wheel, rules.suit_order)}  # fmt: skip
        assert set(got) == want


def _positions(split) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from evaluator import COMB3, COMB5

    return COMB3[split[0]], COMB5[split[1]], COMB5[split[2]]


def rich_hand(extra: str, rng: np.random.Generator) -> tuple[int, ...]:
    """13 cards of the deck from a few ranks only (three to seven): many of a kind."""
    deck = ref.RefDeck(extra).ids
    ranks = rng.choice(13, size=int(rng.integers(3, 8)), replace=False)
    cards = [c for c in deck if ref.rank_of(c) in ranks]
    return tuple(sorted(rng.choice(cards, size=13, replace=False).tolist()))


@pytest.mark.parametrize("extra", ["h", "hc"])
def test_every_natural_on_hands_rich_in_copies_is_the_oracles(extra):
    """Each natural on its own (a ruleset listing it alone), then all of them in one
    list: ``find_natural`` holds what the oracle holds, on 400 hands of few ranks (five
    and six of a kind, 5 + 5 + 3, six pairs of copies) of the deck."""
    from solver.engine.rules import NATURAL_NAMES

    rng = np.random.default_rng(len(extra))
    hands = [rich_hand(extra, rng) for _ in range(400)]
    alone = {n: big_rules(extra, 4, naturals={n: 1}) for n in NATURAL_NAMES}
    every = big_rules(extra, 4, naturals={n: i + 1 for i, n in enumerate(NATURAL_NAMES)})
    held = {n: 0 for n in NATURAL_NAMES}
    for hand in hands:
        text = format_cards(hand, extra)
        for name, rules in alone.items():
            want = ref._natural_key(name, hand, rules) is not None
            assert (find_natural(text, rules) is not None) == want, (name, text)
            held[name] += want
        got, want = find_natural(text, every), ref.ref_best_natural(hand, every)
        assert (got[2] if got else None) == (want[0] if want else None), text
    # the hands make the naturals only these decks make
    assert held["two_fives_trips"] > 0 and held["five_pairs_trips"] > 0
    if extra == "hc":
        assert held["six_of_a_kind"] > 0
    assert held["seven_of_a_kind"] == held["eight_of_a_kind"] == 0  # jokers: issue #32


def test_the_shisanshui_preset_seats_five_and_six_as_the_apps_deal_them():
    """At five and six players the preset plays 加一色 and 加二色 (atom-chen's
    lib_hack_config.lua), pays five of a kind (middle 20, back 10 as row totals) and
    the special hands of many of a kind in the server's order; other rulesets name the
    key to set."""
    from solver.engine.rules import PRESETS
    from solver.engine.seating import seated

    base = PRESETS["shisanshui"]
    assert seated(base, 4) is base
    five, six = seated(base, 5), seated(base, 6)
    assert (five.extra_suits, five.players, five.name) == ("h", 5, "shisanshui-5")
    assert (six.extra_suits, six.players) == ("hc", 6)
    assert five.royalty("middle", "five_of_a_kind") == 20
    assert five.royalty("back", "five_of_a_kind") == 10
    names = [n for n, _ in six.naturals]
    assert names[:3] == ["royal_dragon", "eight_of_a_kind", "dragon"]
    assert names.index("seven_of_a_kind") == names.index("three_quads") + 1
    assert names.index("two_fives_trips") == names.index("seven_of_a_kind") + 1
    assert names.index("six_of_a_kind") == names.index("three_straight_flushes") + 1
    units = [u for _, u in six.naturals]
    assert units == sorted(units, reverse=True)  # strongest first: by payout
    assert dict(six.naturals) == {**dict(base.naturals), "eight_of_a_kind": 80,
                                  "seven_of_a_kind": 40, "two_fives_trips": 26,
                                  "six_of_a_kind": 20}  # fmt: skip
    with pytest.raises(RulesError, match='players = 5 needs a bigger deck than extra_suits = ""'):
        seated(PRESETS["chinese-1-6"], 5)
    with pytest.raises(RulesError, match="set extra_suits"):
        solve("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac", "mau-binh", players=6)


def test_six_of_a_kind_at_six_players_is_declared_for_its_payout():
    """Six aces (加二色 deals six) against five given opponents under the preset seated
    at six: declared, 20 from each opponent, as the oracle settles the naturals."""
    from solver.engine.rules import PRESETS
    from solver.engine.seating import seated

    rules = seated(PRESETS["shisanshui"], 6)
    rng = np.random.default_rng(11)
    deck = ref.RefDeck("hc")
    hand = deck.cards("Ac Ad Ah As Ah Ac 2d 3s 5h 7c 9d Jh Kc")
    rest = [c for c in deck.ids if c not in hand]
    rng.shuffle(rest)
    opps = [some_setting(tuple(sorted(rest[13 * i : 13 * i + 13])), rng, rules) for i in range(5)]
    text = [" | ".join(format_cards(r, "hc") for r in o) for o in opps]
    sol = solve(format_cards(hand, "hc"), "shisanshui", against=text)
    assert sol.rules == "shisanshui-6" and sol.players == 6
    assert sol.natural["name"] == "six_of_a_kind" and sol.action == "declare"
    mine = ref.ref_best_natural(hand, rules)
    assert mine[0] == "six_of_a_kind"
    want = ref.ref_settle_table([ref.ref_declare(mine), *opps], rules)[0]
    assert want == 5 * 20  # no opponent shows a natural
    assert sol.ev * 5 == pytest.approx(want)


def _shapes(cap: int):
    """Every multiset of rank counts of a 13-card hand whose ranks each have ``cap``
    copies in the deck (5 with "h", 6 with "hc"): as the counts, high first, and the
    number of hands of that shape, multinomial(13 ranks) x prod C(cap, count)."""
    from math import comb, factorial

    def parts(left: int, most: int, k: int):
        if left == 0:
            yield ()
            return
        if k == 0:
            return
        for c in range(min(most, left), 0, -1):
            for rest in parts(left - c, c, k - 1):
                yield (c, *rest)

    for counts in parts(13, cap, 13):
        ranks = factorial(13) // factorial(13 - len(counts))
        for c in set(counts):
            ranks //= factorial(counts.count(c))
        ways = ranks
        for c in counts:
            ways *= comb(cap, c)
        yield counts, ways


@pytest.mark.parametrize(("extra", "cap"), [("h", 5), ("hc", 6)])
def test_the_rank_naturals_count_every_hand_of_the_deck(extra, cap):
    """Every hand of 13 of the 65 or 78 cards, by the shape of its rank counts (each
    natural of ranks alone depends on that shape only): the kernel's answer on one hand
    of each shape equals the oracle's, and the hands holding the two new ones equal the
    count by formula."""
    from math import comb

    deck = ref.RefDeck(extra)
    order = [s for s in range(4)] + sorted(deck.extra, reverse=True)  # a rank's copies
    names = ("six_of_a_kind", "two_fives_trips", "five_pairs_trips", "six_pairs",
             "four_trips", "three_quads", "dragon")  # fmt: skip
    alone = {n: big_rules(extra, 4, naturals={n: 1}) for n in names}
    held = dict.fromkeys(names, 0)
    total = 0
    for counts, ways in _shapes(cap):
        hand = []
        for rank, c in enumerate(counts):
            seen: list[int] = []
            for s in order[:c]:
                face = rank * 4 + s
                hand.append(face + ref.FACES if face in seen else face)
                seen.append(face)
        total += ways
        text = format_cards(sorted(hand), extra)
        for name, rules in alone.items():
            want = ref._natural_key(name, tuple(hand), rules) is not None
            assert (find_natural(text, rules) is not None) == want, (name, counts)
            held[name] += ways * want
    assert total == comb(13 * cap, 13)
    assert held["two_fives_trips"] == comb(13, 2) * comb(cap, 5) ** 2 * 11 * comb(cap, 3)
    six = 13 * comb(78 - 6, 7) - comb(13, 2) * comb(78 - 12, 1) if cap == 6 else 0
    assert held["six_of_a_kind"] == six
    assert held["dragon"] == cap**13
    pinned = {  # docs/rules.md#added-suits shows them
        5: (16_421_073_515_280, 0, 8_580),
        6: (220_495_674_290_430, 19_150_421_004, 617_760),
    }
    assert (total, held["six_of_a_kind"], held["two_fives_trips"]) == pinned[cap]


def test_the_web_api_and_a_played_setting_at_a_five_player_table():
    """POST /api/solve with the preset and four opponents' settings: the exact answer at
    the seated table; a played setting holding both copies of a card is ranked against
    the best (its value the oracle's at the whole table); one copy too many is refused;
    Monte Carlo and the field solve at five, with the hand's own cards."""
    from starlette.testclient import TestClient

    from solver.apps.web import create_app
    from solver.engine.rules import PRESETS
    from solver.engine.seating import seated

    rules = seated(PRESETS["shisanshui"], 5)
    rng = np.random.default_rng(17)
    hands = deal("h", 5, rng)
    mine = hands[0]
    opps = [some_setting(h, rng, rules) for h in hands[1:]]
    text = "\n".join(" | ".join(format_cards(r, "h") for r in o) for o in opps)
    hand = format_cards(mine, "h")
    played = some_setting(mine, rng, rules)
    played_text = " | ".join(format_cards(r, "h") for r in played)
    with TestClient(create_app()) as client:
        body = {"hand": hand, "rules": "shisanshui", "against": text, "played": played_text}
        answer = client.post("/api/solve", json=body)
        assert answer.status_code == 200, answer.text
        got = answer.json()
        assert (got["rules"], got["players"], got["policy"]) == ("shisanshui-5", 5, "exact")
        value, _, _ = ref.ref_best_setting(mine, opps, rules)
        assert got["ev_play"] * 4 == pytest.approx(value)
        want = ref.ref_settle_table([played, *opps], rules)[0]
        assert got["played"]["ev"] * 4 == pytest.approx(want)
        assert got["played"]["loss"] == pytest.approx(
            got["ev_play"] - got["played"]["ev"], abs=1e-9
        )
        face = format_cards([mine[0]], "h")
        bad = played_text.replace(format_cards([mine[1]], "h"), face, 1)
        assert bad != played_text  # the two lowest cards are two faces (first copies)
        refused = client.post("/api/solve", json={"hand": hand, "rules": "shisanshui",
                                                  "against": text, "played": bad})  # fmt: skip
        assert refused.status_code == 422 and "played" in refused.json()["error"]
        for policy in ("mc", "field"):  # the deck's own field, Monte Carlo dealing its cards
            body = {"hand": hand, "rules": "shisanshui", "players": 5, "policy": policy,
                    "samples": 400, "seed": 3}  # fmt: skip
            got = client.post("/api/solve", json=body)
            assert got.status_code == 200, got.text
            one = got.json()
            assert (one["rules"], one["players"], one["policy"]) == ("shisanshui-5", 5, policy)
            rows = " ".join(one[r] for r in ("front", "middle", "back")).split()
            assert sorted(rows) == sorted(hand.split())
