"""The evaluator: parsing, exhaustive class counts, the one scale, kernels vs the oracle."""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import evaluator as ev
from evaluator import tables as tb
from tests import reference as ref

FIVE_DIGEST = "6d18b4e52b65fbae18ffd88dd70de48d6f804fc73d2d0b91d6b9f3224f36a413"
THREE_DIGEST = "97adb0aaef58790c0524ee22f9ad7ff188a0a875b98c6179937079df34c7647c"
# High card .. straight flush, as docs/rules.md#five-card-rows counts them.
CATEGORY_COUNTS = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]
CLASS_COUNTS = [1277, 2860, 858, 858, 10, 1277, 156, 156, 10]


@pytest.fixture(scope="module")
def t() -> ev.Tables:
    return ev.get_tables()


def sorted_ids(rows: np.ndarray) -> np.ndarray:
    return np.sort(rows, axis=1).astype(np.int64)


# ---------------------------------------------------------------- exhaustive facts


def test_five_card_exhaustive_counts(t):
    assert t.five.shape == (2_598_960,)
    assert len(np.unique(t.five)) == 7462
    cats = t.category[t.five]
    assert np.bincount(cats, minlength=9).tolist() == CATEGORY_COUNTS
    classes = [len(np.unique(t.five[cats == c])) for c in range(9)]
    assert classes == CLASS_COUNTS
    assert t.is_five[t.five].all()


def test_three_card_exhaustive_counts(t):
    assert t.three.shape == (22_100,)
    assert len(np.unique(t.three)) == 455
    assert not t.is_five[t.three].any()
    cats = t.category[t.three]
    assert sorted(set(cats.tolist())) == [0, 1, 3]  # no straights or flushes in front
    assert np.bincount(cats, minlength=4).tolist() == [18304, 3744, 0, 52]


def test_scale_is_dense_and_shared(t):
    both = np.union1d(np.unique(t.five), np.unique(t.three))
    assert both.tolist() == list(range(ev.NSTRENGTH))


def test_pinned_digests(t):
    assert hashlib.sha256(t.five.astype("<i2").tobytes()).hexdigest() == FIVE_DIGEST
    assert hashlib.sha256(t.three.astype("<i2").tobytes()).hexdigest() == THREE_DIGEST


def test_full_table_is_colex_indexed(t):
    rng = np.random.default_rng(7)
    hands = np.sort(rng.permuted(np.tile(np.arange(52), (2000, 1)), axis=1)[:, :5], axis=1)
    idx = tb._colex(hands.astype(np.int64))
    expect = [sum(math.comb(int(c), i + 1) for i, c in enumerate(h)) for h in hands]
    assert idx.tolist() == expect
    assert sorted(set(tb._colex(np.array(list(itertools.combinations(range(52), 3)))))) == list(
        range(22100)
    )


# ---------------------------------------------------------------- against the oracle


def class_representatives(t) -> dict[int, tuple[int, ...]]:
    """One hand of every 5- and 3-card class, by strength."""
    reps: dict[int, tuple[int, ...]] = {}
    for k, table in ((5, t.five), (3, t.three)):
        _, first = np.unique(table, return_index=True)
        combos = list(itertools.combinations(range(52), k))
        # table is colex-indexed; map colex index -> combination
        cidx = tb._colex(np.array(combos, dtype=np.int64))
        by_colex = np.empty(len(combos), np.int64)
        by_colex[cidx] = np.arange(len(combos))
        for f in first:
            reps[int(table[f])] = combos[int(by_colex[f])]
    return reps


def ref_key(cards) -> tuple:
    return ref.ref_key5(cards) if len(cards) == 5 else ref.ref_key3(cards)


def test_whole_scale_orders_like_the_oracle(t):
    """Every one of the 7,917 classes, ordered by strength, is in the oracle's order."""
    reps = class_representatives(t)
    assert len(reps) == ev.NSTRENGTH
    keys = [ref_key(reps[s]) for s in range(ev.NSTRENGTH)]
    for s in range(ev.NSTRENGTH - 1):
        assert keys[s] < keys[s + 1], (reps[s], reps[s + 1])
    for s in range(ev.NSTRENGTH):
        cards = reps[s]
        name = ref.ref_category5(cards) if len(cards) == 5 else ref.ref_category3(cards)
        assert ev.CATEGORY_NAMES[t.category[s]] == name
        assert int(t.decisive_rank[s]) == ref.ref_decisive_card(cards) >> 2


def test_wheel_second_orders_like_the_oracle(t):
    reps = class_representatives(t)
    order = sorted(range(ev.NSTRENGTH), key=lambda s: t.wheel_second[s])
    keys = [
        ref.ref_key5(reps[s], wheel="second") if len(reps[s]) == 5 else ref.ref_key3(reps[s])
        for s in order
    ]
    assert all(a < b for a, b in zip(keys, keys[1:], strict=False))
    assert sorted(t.wheel_second.tolist()) == list(range(ev.NSTRENGTH))


def test_random_hands_match_the_oracle(t):
    """200,000 random hands: the kernel's strength is the strength of the oracle's class."""
    reps = class_representatives(t)
    strength_of_key = {ref_key(c): s for s, c in reps.items()}
    rng = np.random.default_rng(2026)
    hands = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (200_000, 1)), axis=1)
    five = ev.evaluate5(hands[:, :5])
    three = ev.evaluate3(hands[:, 5:8])
    for i in range(0, len(hands), 20):  # the oracle is slow: every 20th hand
        assert five[i] == strength_of_key[ref.ref_key5(hands[i, :5].tolist())]
        assert three[i] == strength_of_key[ref.ref_key3(hands[i, 5:8].tolist())]
    # and every hand against the full colex table
    assert (five == t.five[tb._colex(sorted_ids(hands[:, :5]))]).all()
    assert (three == t.three[tb._colex(sorted_ids(hands[:, 5:8]))]).all()


@pytest.mark.slow
def test_every_five_card_hand_through_the_kernel(t):
    combos = tb._combos(52, 5)
    shuffled = np.random.default_rng(1).permuted(combos, axis=1)
    out = ev.evaluate5(shuffled)
    assert (out == t.five[tb._colex(combos.astype(np.int64))]).all()


@pytest.mark.parametrize(
    "front, middle, relation",
    [
        ("Kh Kd 5c", "Ks Kc 5d 3c 2c", "<"),
        ("Kh Kd Qc", "Ks Kc Jd 3c 2c", ">"),
        ("Ah Ad Ac", "As Ac Ad 3c 2c", "<"),
        ("Ah Kd Qc", "Ad Kc Qd 3c 2h", "<"),
        ("2h 2d 2c", "As Ac Kd Kc 2s", ">"),
        ("Ah Ad Kc", "Ac As Kd 2c 3h", "<"),
    ],
)
def test_front_against_middle_examples(front, middle, relation):
    f, m = ev.evaluate3(front), ev.evaluate5(middle)
    assert (f < m) if relation == "<" else (f > m)


def test_subset_pass_matches_direct_evaluation():
    rng = np.random.default_rng(3)
    for _ in range(50):
        hand = rng.permutation(52)[:13].astype(np.uint8)
        h, s5, s3 = ev.subset_strengths(hand)
        assert (h == np.sort(hand)).all()
        assert (s5 == ev.evaluate5(h[ev.COMB5])).all()
        assert (s3 == ev.evaluate3(h[ev.COMB3])).all()
    assert ev.COMB5.shape == (1287, 5) and ev.COMB3.shape == (286, 3)


def test_categories_and_royal():
    assert ev.category_name(ev.evaluate5("As Ks Qs Js Ts")) == "straight flush"
    assert ev.is_royal(ev.evaluate5("As Ks Qs Js Ts"))
    assert not ev.is_royal(ev.evaluate5("Ks Qs Js Ts 9s"))
    assert ev.category_name(ev.evaluate5("5d 4c 3h 2s Ac")) == "straight"
    assert ev.evaluate5("5d 4c 3h 2s Ac") < ev.evaluate5("6d 5c 4h 3s 2c")
    assert ev.category_name(ev.evaluate3("Qs Qd 2c")) == "pair"
    assert ev.category_name(ev.evaluate5("Qs Qd 2c 2d 3h")) == "two pair"
    with pytest.raises(ValueError, match="out of range"):
        ev.category_name(ev.NSTRENGTH)


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "text",
    [
        "As Kd Th",
        "as kd th",
        "AS KD TH",
        "As,Kd,Th",
        "AsKdTh",
        "A♠ K♦ 10♥",
        "A♠K♦10♥",
        "as, kd  10h",
    ],
)
def test_parse_spellings(text):
    assert ev.format_cards(ev.parse_cards(text)) == "As Kd Th"


def test_parse_ids():
    assert ev.parse_cards("2c As").tolist() == [0, 51]
    assert ev.parse_cards("2c As").dtype == np.uint8


@pytest.mark.parametrize(
    "text, message",
    [
        ("As Ax Kd", "bad card 'Ax' at position 2: suit must be one of c d h s"),
        ("As 1d", "bad card '1d' at position 2: rank must be one of"),
        ("As Kd As", "duplicate card 'As'"),
        ("AsKdQ", "bad card 'Q' at position 3"),
        ("As Kd! Qh", "bad card 'Kd!' at position 2"),
    ],
)
def test_parse_errors_name_the_token(text, message):
    with pytest.raises(ev.CardParseError, match=message.replace("(", r"\(")):
        ev.parse_cards(text)


def test_hand_must_have_13_distinct_cards():
    with pytest.raises(ev.CardParseError, match="expected 13 cards, got 12"):
        ev.parse_hand("As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s")
    with pytest.raises(ev.CardParseError, match="duplicate card 'Kd'"):
        ev.parse_hand(list(range(11)) + [45, 45])
    with pytest.raises(ev.CardParseError, match="bad card id 52"):
        ev.parse_hand(list(range(12)) + [52])
    assert len(ev.parse_hand(list(range(13)))) == 13


def test_evaluate_rejects_bad_shapes_and_duplicates():
    with pytest.raises(ev.CardParseError, match="expected 5 cards, got 4"):
        ev.evaluate5("As Ks Qs Js")
    with pytest.raises(ev.CardParseError, match="duplicate card in row 1"):
        ev.evaluate5(np.array([[0, 1, 2, 3, 4], [0, 0, 2, 3, 4]]))
    with pytest.raises(ev.CardParseError, match="shape"):
        ev.evaluate3(np.zeros((2, 5), np.uint8))


cards_st = st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True)


@settings(deadline=None, max_examples=300)
@given(cards_st, st.permutations(range(4)), st.randoms(use_true_random=False))
def test_order_and_suit_permutation_never_change_strength(cards, perm, rnd):
    base5 = ev.evaluate5(cards)
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    assert ev.evaluate5(shuffled) == base5
    relabelled = [(c >> 2) * 4 + perm[c & 3] for c in cards]
    assert ev.evaluate5(relabelled) == base5
    base3 = ev.evaluate3(cards[:3])
    assert ev.evaluate3([(c >> 2) * 4 + perm[c & 3] for c in cards[2::-1]]) == base3


@settings(deadline=None, max_examples=300)
@given(
    st.lists(st.integers(0, 51), min_size=0, max_size=13, unique=True),
    st.sampled_from([" ", ",", ", ", ""]),
    st.booleans(),
    st.booleans(),
)
def test_parse_round_trip(ids, sep, symbols, lower):
    parts = []
    for c in ids:
        r, s = ev.RANKS[c >> 2], (ev.SUIT_SYMBOLS if symbols else ev.SUITS)[c & 3]
        if r == "T" and lower:
            r = "10"
        parts.append((r + s).lower() if lower else r + s)
    assert ev.parse_cards(sep.join(parts)).tolist() == ids
    assert ev.parse_cards(ev.format_cards(ids)).tolist() == ids


@settings(deadline=None, max_examples=500)
@given(st.text(max_size=40))
@example("x")  # a joker written as the text has it, not as 'X' (Hypothesis found it)
@example("As 🃏")
def test_malformed_input_raises_only_card_parse_error(text):
    try:
        ids = ev.parse_cards(text)
    except ev.CardParseError as exc:
        msg = str(exc)
        assert msg.startswith(("bad card", "duplicate card"))
        assert exc.token and exc.token in text and exc.position >= 1
        if msg.startswith("bad card"):
            assert repr(exc.token) in msg
    else:
        assert ids.dtype == np.uint8 and len(set(ids.tolist())) == len(ids)


# ---------------------------------------------------------------- cache


def test_cache_is_rebuilt_when_missing_truncated_or_corrupted(tmp_path, monkeypatch):
    monkeypatch.setenv("CAPSA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tb, "_tables", None)
    t1 = tb.get_tables()
    path = tb.cache_path()
    assert path.exists()
    good = tb.tables_digest(t1)

    data = path.read_bytes()
    for damaged in (data[: len(data) // 2], data[:100] + b"\x00" * 64 + data[164:], b""):
        path.write_bytes(damaged)
        monkeypatch.setattr(tb, "_tables", None)
        t2 = tb.get_tables()
        assert tb.tables_digest(t2) == good
        assert tb._load_cached(path) is not None  # rewritten, now valid
    monkeypatch.setattr(tb, "_tables", None)
    # flip one strength inside the cached file: the digest catches it
    t = tb._load_cached(path)
    bad = t._replace(five=t.five.copy())
    bad.five[12345] ^= 1
    tb._save(bad, path)
    with open(path, "rb") as fh, np.load(fh) as z:
        stored = str(z["digest"])
    assert stored == tb.tables_digest(bad)
    # _save writes a matching digest, so forge a mismatch by hand
    arrays = {f: getattr(bad, f) for f in bad._fields}
    with open(path, "wb") as fh:
        np.savez(fh, digest=np.array(good), **arrays)
    assert tb._load_cached(path) is None
    assert tb.tables_digest(tb.get_tables()) == good
    assert not list(tmp_path.glob("*.tmp"))
    monkeypatch.setattr(tb, "_tables", None)


def test_saved_tables_load_back_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("CAPSA_CACHE_DIR", str(tmp_path))
    built = tb.build_tables()
    tb._save(built, tb.cache_path())
    loaded = tb._load_cached(tb.cache_path())
    assert loaded is not None
    for f in built._fields:
        assert np.array_equal(getattr(built, f), getattr(loaded, f)), f


# ---------------------------------------------------------------- checked batch kernels


def two_pass_error(arr: np.ndarray) -> str | None:
    """The message of the check the public evaluator made before it moved into the
    kernel (numpy, two passes: any id out of range first, then the first row with a
    card twice); None for valid rows. The oracle of the in-kernel check."""
    if arr.size and (arr.min() < 0 or arr.max() > 51):
        return "bad card id: ids run from 0 (2c) to 51 (As)"
    srt = np.sort(arr, axis=1)
    dup = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        return f"duplicate card in row {row}: {ev.format_cards(arr[row].astype(np.int64))}"
    return None


@settings(deadline=None, max_examples=300)
@given(
    st.sampled_from([3, 5]),
    st.integers(1, 40),
    st.sampled_from([np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64, np.uint64]),
    st.lists(
        st.tuples(
            st.integers(0, 10_000), st.integers(0, 4), st.sampled_from([-1, 52, 255, 300, "dup"])
        ),
        max_size=3,
    ),
    st.integers(0, 2**32 - 1),
)
def test_checked_kernels_match_the_two_pass_check(width, n, dtype, faults, seed):
    """Out-of-range ids (negative ones too, in every integer dtype) and duplicates are
    found in the kernel's pass with exactly the messages and precedence of the old check,
    and valid rows give the oracle's strengths."""
    rng = np.random.default_rng(seed)
    arr = np.argsort(rng.random((n, 52)), axis=1)[:, :width].astype(np.int64)
    info = np.iinfo(dtype)
    for row, col, what in faults:
        row, col = row % n, col % width
        if what == "dup":
            arr[row, col] = arr[row, (col + 1) % width]
        elif info.min <= what <= info.max:
            arr[row, col] = what
    typed = arr.astype(dtype)
    expect = two_pass_error(typed.astype(np.int64) if info.min < 0 else typed)
    evaluate = ev.evaluate5 if width == 5 else ev.evaluate3
    if expect is None:  # the full tables (checked against the oracle above) agree
        t = ev.get_tables()
        full = t.five if width == 5 else t.three
        idx = tb._colex(np.sort(typed.astype(np.int64), axis=1))
        assert evaluate(typed).tolist() == full[idx].tolist()
    else:
        with pytest.raises(ev.CardParseError) as info_:
            evaluate(typed)
        assert str(info_.value) == expect


def test_checked_kernels_on_views_and_empty_batches():
    rows = np.array([[51, 47, 43, 39, 35], [0, 4, 8, 12, 49]], np.int64)
    assert ev.evaluate5(rows[:, ::-1]).tolist() == ev.evaluate5(rows).tolist()
    assert ev.evaluate5(np.zeros((0, 5), np.uint8)).shape == (0,)
    assert ev.evaluate3(np.zeros((0, 3), np.int64)).shape == (0,)


# ---------------------------------------------------------------- ids are integers 0..51


@pytest.mark.parametrize("bad", [300, -1, 52, 0.9, 1.5, True, "3"])
def test_formatting_rejects_what_is_not_a_card_id(bad):
    with pytest.raises(ev.CardParseError):
        ev.format_card(bad)
    with pytest.raises(ev.CardParseError):
        ev.format_cards([5, bad])
    if not isinstance(bad, str | bool):  # numpy makes [5, True] the integers [5, 1]
        with pytest.raises(ev.CardParseError):
            ev.format_cards(np.array([5, bad]))


def test_format_cards_of_arrays_and_lists_agree():
    ids = np.arange(52, dtype=np.uint8)
    text = ev.format_cards(ids)
    assert text == ev.format_cards(ids.tolist()) == ev.format_cards(ids.astype(np.int64))
    assert text.split() == [r + s for r in ev.RANKS for s in ev.SUITS]


@pytest.mark.parametrize("rank, suit", [(13, 0), (0, 4), (-1, 0), (0.5, 1), (1, True)])
def test_card_id_rejects_what_is_not_a_rank_and_a_suit(rank, suit):
    with pytest.raises(ev.CardParseError):
        ev.card_id(rank, suit)


def test_strength_queries_reject_non_integers():
    assert ev.category_name(np.int32(7916)) == "straight flush"
    for bad in (0.9, 7916.0, True, "5"):
        with pytest.raises(ValueError):
            ev.category(bad)
        with pytest.raises(ValueError):
            ev.is_royal(bad)


# ---------------------------------------------------------------- long texts


def test_parsing_stops_at_the_first_error(monkeypatch):
    """The tokens of a text are made as the parser asks for them: a duplicate at the
    second card stops it, however long the text (no token list of the whole text)."""
    from evaluator import cards

    calls = []
    real = cards._CARD

    class Counting:
        def match(self, text, pos=0):
            calls.append(pos)
            return real.match(text, pos)

    monkeypatch.setattr(cards, "_CARD", Counting())
    with pytest.raises(ev.CardParseError, match="duplicate card 'As'"):
        ev.parse_cards("AsAs" + "Kd" * 100_000)
    assert len(calls) <= 3


def test_a_long_token_is_shortened_in_the_message():
    with pytest.raises(ev.CardParseError) as info:
        ev.parse_cards("As Kd" + "!" * 10_000)
    msg = str(info.value)
    assert len(msg) < 200 and "10,002 characters" in msg and "\n" not in msg


# ---------------------------------------------------------------- cache tied to the builder


def test_the_builder_makes_the_pinned_tables():
    assert tb.tables_digest(tb.build_tables()) == tb.BUILT_DIGEST


def test_cache_from_another_build_or_edited_is_rebuilt(tmp_path, monkeypatch):
    """A cached file is trusted only when this code built it: another builder's stamp,
    or tables edited and saved with their digest recomputed, are rebuilt."""
    monkeypatch.setenv("CAPSA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tb, "_tables", None)
    good = tb.get_tables()
    path = tb.cache_path()
    assert tb.builder_digest() in path.name and tb._load_cached(path) is not None
    arrays = good._asdict()

    def write(builder: str | None, tables: dict) -> None:
        extra = {} if builder is None else {"builder": np.array(builder)}
        digest = tb.tables_digest(tb.Tables(**tables))
        with open(path, "wb") as fh:
            np.savez(fh, digest=np.array(digest), **extra, **tables)

    write("0123456789abcdef", arrays)  # the same tables, stamped by another build
    assert tb._load_cached(path) is None
    write(None, arrays)  # a cache written before builders were stamped
    assert tb._load_cached(path) is None
    edited = dict(arrays, five=arrays["five"].copy())
    edited["five"][12345] ^= 1
    write(tb.builder_digest(), edited)  # edited, digest recomputed, right stamp
    assert tb._load_cached(path) is None
    monkeypatch.setattr(tb, "_tables", None)
    rebuilt = tb.get_tables()
    assert tb.tables_digest(rebuilt) == tb.BUILT_DIGEST
    assert tb._load_cached(path) is not None  # rewritten by this builder
    monkeypatch.setattr(tb, "_tables", None)
