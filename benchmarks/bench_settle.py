"""Settlement throughput: the pairwise settle kernel, setting summaries, natural detection.

``pytest benchmarks/bench_settle.py --benchmark-only``. Inputs are built and every kernel
is compiled (or loaded from numba's cache) before timing: the ``warm`` fixture calls each
one once and records that first call apart, as ``first_call_s``. The rate of each
measurement is in ``extra_info`` (``per_s``) and printed with ``-s``.

* ``settle_pairs``: 1,000,000 random pairs of summarised settings (about 90% involve a
  fouled hand, as random splits do), one ``_settle`` each;
* ``settle_legal_pairs``: 1,000,000 pairs of legal settings (what a Monte Carlo solve
  settles: its candidates and the field's opponents are legal);
* ``settle_against``: 1,000,000 settings against one opponent (``_settle_against``);
* ``summarize``: 1,000,000 settings summarised (two 5-card and one 3-card lookups, row
  keys with suits, royalties);
* ``find_naturals``: 100,000 random hands (naturals are rare; the cheap count checks
  decide almost every hand);
* ``find_all_naturals``: the same hands under the preset with every natural of
  docs/rules.md#special-hands listed (the 十三水 apps' order): what detecting all
  fourteen costs.
* ``find_natural_one``: 2,000 random hands one call each (``find_natural``, what solve
  calls for one hand): the wrapper's cost per hand beside the batch's. It was a wall-clock
  bound inside the unit tests (50 µs a hand), which a loaded machine broke.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from solver.engine import _kernels as k
from solver.engine import settlement as S
from solver.engine.compiled import compile_rules
from solver.engine.rules import NATURAL_NAMES, PRESETS, load_rules

N = 1_000_000
N_HANDS = 100_000
PRESET_NAMES = ["chinese-1-6", "shisanshui"]


def _settings(rng: np.random.Generator, n: int) -> np.ndarray:
    """n random settings (rows of random 13-card hands cut 3/5/5), disjoint in pairs."""
    return rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (n, 1)), axis=1)[:, :26]


@pytest.fixture(scope="module")
def warm() -> dict[str, float]:
    """Compile or load every kernel once; the seconds it took."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(1)
    for rules in PRESETS.values():
        deals = _settings(rng, 4)
        a = S.summarize_batch(deals[:, :13], compile_rules(load_rules(rules)))
        b = S.summarize_batch(deals[:, 13:], compile_rules(load_rules(rules)))
        S.settle_pairs(a, b, compile_rules(load_rules(rules)))
        k._settle_against(*a, a[0][0], a[1][0], a[2][0], S.compile_rules(load_rules(rules)).params,
                          np.empty(4))  # fmt: skip
    return {"first_call_s": time.perf_counter() - t0}


@pytest.fixture(scope="module", params=PRESET_NAMES)
def data(request, warm):
    """Summaries of N random pairs and of N legal pairs under a preset."""
    rules = PRESETS[request.param]
    rng = np.random.default_rng(0)
    deals = _settings(rng, N)
    a = S.summarize_batch(deals[:, :13], compile_rules(load_rules(rules)))
    b = S.summarize_batch(deals[:, 13:], compile_rules(load_rules(rules)))
    legal: list = [[], [], []]
    while sum(len(x) for x in legal[0]) < 2 * N:
        more = _settings(rng, N)
        for half in (more[:, :13], more[:, 13:]):
            keys, roys, fouls = S.summarize_batch(half, compile_rules(load_rules(rules)))
            legal[0].append(keys[~fouls])
            legal[1].append(roys[~fouls])
            legal[2].append(fouls[~fouls])
    la = tuple(np.ascontiguousarray(np.concatenate(x)[:N]) for x in legal)
    lb = tuple(np.ascontiguousarray(np.concatenate(x)[N : 2 * N]) for x in legal)
    return {
        "name": request.param,
        "rules": rules,
        "params": S.compile_rules(load_rules(rules)).params,
        "a": a,
        "b": b,
        "legal_a": la,
        "legal_b": lb,
        "deals": deals,
    }


def _time(benchmark, fn, items: int, rounds: int, warm: dict, label: str) -> float:
    """Time fn through benchmark.pedantic; record and print the rate (items/s)."""
    times: list[float] = []

    def timed() -> None:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)

    fn()  # one more untimed call: caches warm
    benchmark.pedantic(timed, rounds=rounds, iterations=1, warmup_rounds=0)
    median = float(np.median(times))
    rate = items / median
    benchmark.extra_info.update(
        {"items": items, "per_s": rate, "ns_per_item": 1e9 * median / items, **warm}
    )
    print(f"\n{label}: {rate / 1e6:.1f} M/s ({1e9 * median / items:.1f} ns each)")
    return rate


def test_settle_pairs(benchmark, data, warm):
    benchmark.group = "settle"
    out = np.empty(N)
    args = (*data["a"], *data["b"], data["params"], out)
    rate = _time(
        benchmark,
        lambda: k._settle_pairs(*args),
        N,
        7,
        warm,
        f"settle random pairs [{data['name']}]",
    )
    assert rate > 0 and np.isfinite(out).all()


def test_settle_legal_pairs(benchmark, data, warm):
    benchmark.group = "settle"
    out = np.empty(N)
    args = (*data["legal_a"], *data["legal_b"], data["params"], out)
    rate = _time(
        benchmark,
        lambda: k._settle_pairs(*args),
        N,
        7,
        warm,
        f"settle legal pairs [{data['name']}]",
    )
    assert rate > 0


def test_settle_against(benchmark, data, warm):
    benchmark.group = "settle"
    out = np.empty(N)
    keys, roys, fouls = data["legal_a"]
    kb, rb, fb = (x[0] for x in data["legal_b"])
    args = (keys, roys, fouls, kb, rb, fb, data["params"], out)
    rate = _time(
        benchmark,
        lambda: k._settle_against(*args),
        N,
        7,
        warm,
        f"settle against one opponent [{data['name']}]",
    )
    assert rate > 0


def test_summarize(benchmark, data, warm):
    benchmark.group = "summarize"
    cr = S.compile_rules(load_rules(data["rules"]))
    settings = np.ascontiguousarray(data["deals"][:, :13])
    keys = np.empty((N, 3), np.int64)
    roys = np.empty((N, 3), np.float64)
    fouls = np.empty(N, np.bool_)
    args = (settings, cr.lookup, cr.arrays, keys, roys, fouls)
    rate = _time(
        benchmark,
        lambda: k._summarize_batch(*args),
        N,
        5,
        warm,
        f"summarize settings [{data['name']}]",
    )
    assert rate > 0


def test_find_naturals(benchmark, data, warm):
    benchmark.group = "naturals"
    hands = np.ascontiguousarray(data["deals"][:N_HANDS, :13])
    rate = _time(
        benchmark,
        lambda: S.find_naturals(hands, compile_rules(load_rules(data["rules"]))),
        N_HANDS,
        5,
        warm,
        f"find naturals [{data['name']}]",
    )
    assert rate > 0


def test_find_all_naturals(benchmark, data, warm):
    import dataclasses

    benchmark.group = "naturals"
    hands = np.ascontiguousarray(data["deals"][:N_HANDS, :13])
    every = dataclasses.replace(
        data["rules"], name="every", naturals=tuple((n, 1) for n in NATURAL_NAMES)
    )
    S.find_naturals(hands[:10], compile_rules(load_rules(every)))
    rate = _time(
        benchmark,
        lambda: S.find_naturals(hands, compile_rules(load_rules(every))),
        N_HANDS,
        5,
        warm,
        f"find all 14 naturals [{data['name']}]",
    )
    assert rate > 0


def test_find_natural_one(benchmark, data, warm):
    benchmark.group = "naturals"
    hands = np.ascontiguousarray(data["deals"][:2_000, :13])
    rules = load_rules(data["rules"])
    S.find_natural(hands[0], rules)

    def each() -> None:
        for h in hands:
            S.find_natural(h, rules)

    rate = _time(
        benchmark, each, len(hands), 5, warm, f"find_natural, one hand a call [{data['name']}]"
    )
    assert rate > 0
