"""`capsa bench` and solver.apps.bench: every measurement runs and reports sane numbers.

No wall-clock bound is asserted anywhere: speed is the benchmarks' business.
"""

from __future__ import annotations

import json
import os
import tempfile

import numpy as np
import pytest
from typer.testing import CliRunner

from solver.apps import bench
from solver.cli import app
from tests.helpers import in_thread

EVALUATOR = {"eval5", "eval3", "subset_pass"}


#: The measurements that build and draw from opponent pools (they share the pools one
#: ``run`` builds), measured apart from the others in ``test_bench_quick_json_reports_
#: every_measurement``: four parts, the pooled ones and the others cut at ``STARTS``
#: (below). The pooled part builds a 300,000-hand pool for each preset (250 s
#: of the slow run's 405, and the other half waited behind it on the same worker): it is
#: ``-m long``, run by hand; what covers it in the slow run and the default one: each
#: pooled measurement's own test at small sizes below, and the sizes ``--quick`` passes
#: bound to each measurement's function (docs/architecture.md#tests).
POOLED = {"mc_pool", "mc_presets", "pool_build", "batch_mc", "batch_mc_home_run"}
#: The first measurement of each part after the first (the others: the evaluator and
#: one hand's solves; the solves at other tables; the applications: batch, report,
#: start-up, the web server's load). The solves were one part of 182 s in the slow run
#: while its other worker had finished: two halves share the two workers.
STARTS = {"tables": "mc_opponents", "apps": "batch"}
PARTS = ("pooled", "solving", "tables", "apps")


def _part(part: str) -> list[str]:
    """The measurements of one part of the quick run, in their registered order."""
    names = [m.name for m in bench.MEASUREMENTS]
    if part == "pooled":
        return [n for n in names if n in POOLED]
    bounds = [0, *(names.index(STARTS[p]) for p in PARTS[2:]), len(names)]
    at = PARTS.index(part) - 1
    return [n for n in names[bounds[at] : bounds[at + 1]] if n not in POOLED]


def test_the_parts_of_the_quick_run_are_every_measurement():
    parts = [_part(p) for p in PARTS]
    assert all(parts) and set(parts[0]) == POOLED
    assert sorted(sum(parts, [])) == sorted(m.name for m in bench.MEASUREMENTS)


@pytest.mark.slow
@pytest.mark.parametrize(
    "part", [pytest.param("pooled", marks=pytest.mark.long), "solving", "tables", "apps"]
)
def test_bench_quick_json_reports_every_measurement(part):
    """`capsa bench --quick` measures everything: a measurement skipped (its code
    missing or refusing to run, as a broken batch would) fails this test. In four
    parts (``--only`` each measurement of the part; together they are every
    measurement, the test above), so that the slow run's two workers share them."""
    only = [a for name in _part(part) for a in ("--only", name)]
    # on a thread of its own: the load on the page's server runs asyncio (tests.helpers)
    res = in_thread(CliRunner().invoke, app, ["bench", "--quick", "--format", "json", *only])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["skipped"] == [] and d["failed"] == []
    names = [r["name"] for r in d["measurements"]]
    assert names == _part(part)
    assert d["quick"] is True and d["compare"] == []
    for r in d["measurements"]:
        assert r["rate"] > 0 and r["median"] > 0 and r["first_call"] > 0, r["name"]
        assert r["items"] > 0 and r["rounds"] >= 1 and r["threads"] >= 1
        assert r["per_item"] == pytest.approx(r["median"] / r["items"])
        assert r["rate"] == pytest.approx(r["items"] / r["median"])
        assert (r["target"] is None) == (r["ok"] is None) == (r["target_rate"] is None)
        if r["ok"] is not None:
            assert r["ok"] == (r["rate"] >= r["target_rate"])
    assert d["machine"]["numba_threads"] >= 1
    if part == "solving":
        assert EVALUATOR <= set(names)
        eval5 = next(r for r in d["measurements"] if r["name"] == "eval5")
        assert eval5["target"] == "≥ 80 M/s" and eval5["items"] == 1_000_000
    if part != "pooled":
        return
    by = {r["name"]: r for r in d["measurements"]}
    # the pooled measurements drew every hand's opponents from a pool (none dealt)
    assert by["mc_pool"]["extra"]["pooled_hands"] == by["mc_pool"]["items"]
    assert set(by["mc_presets"]["extra"]["pooled_hands"].values()) == {by["mc_presets"]["items"]}
    # the pools' sizes are said, and a pool smaller than the default is named (the
    # home-run presets measure slower with fewer partners in their pool)
    from solver.engine.options import DEFAULT_POOL_SIZE

    sizes = by["mc_presets"]["extra"]["pool_size"]
    assert set(sizes) == set(by["mc_presets"]["extra"]["ms_per_hand"]) and min(sizes.values()) > 0
    small = sorted(n for n, v in sizes.items() if v < DEFAULT_POOL_SIZE)
    said = by["mc_presets"]["description"]
    assert (f"for {', '.join(small)} (smaller than the default" in said) == bool(small)


def test_bench_table_and_only():
    res = CliRunner().invoke(app, ["bench", "--quick", "--only", "eval3"])
    assert res.exit_code == 0, res.output
    rows = [line.split()[0] for line in res.stdout.splitlines() if line.strip()]
    assert "eval3" in rows and "eval5" not in rows
    res = CliRunner().invoke(app, ["bench", "--quick", "--only", "nonsense"])
    assert res.exit_code == 2
    assert "unknown measurement" in res.stderr


def test_runner_decides_the_timings():
    """The same measurement through another runner (as benchmarks/ does): median of its
    timings, rate = items / median; the first call is timed apart."""
    seen = []

    def runner(fn, rounds):
        for _ in range(rounds):
            fn()
        seen.append(rounds)
        return [0.5, 2.0, 1.0]

    r = bench.eval3(n=1000, rounds=3, runner=runner)
    assert seen == [3]
    assert r.median == 1.0 and r.rate == 1000.0 and r.per_item == 1e-3 and r.rounds == 3
    assert r.first_call > 0


def test_target_flag():
    def runner(fn, rounds):
        return [1.0]

    slow = bench.eval5(n=1000, rounds=1, runner=runner)
    assert slow.rate == 1000.0 and slow.ok is False and slow.target_rate == 80e6


def test_random_rows_are_distinct_and_unsorted():
    rows = bench.random_rows(20_000, 5, seed=1)
    assert rows.shape == (20_000, 5) and rows.dtype == np.uint8 and rows.max() <= 51
    srt = np.sort(rows, axis=1)
    assert (srt[:, 1:] != srt[:, :-1]).all()
    assert not (np.diff(rows.astype(int), axis=1) > 0).all(axis=1).all()
    hands = bench.seeded_hands(100, seed=1)
    assert all(len(set(h.tolist())) == 13 for h in hands)


@pytest.mark.parametrize("library", bench.COMPARE_LIBRARIES)
def test_compare_library_agrees_on_order(library):
    pytest.importorskip(library)

    def once(fn, rounds):
        fn()
        return [1.0]

    ref = bench.eval5(n=2000, rounds=1, runner=once)
    r = bench.compare(library, n=2000, rounds=1, reference=ref, runner=once, population=2000)
    assert r.extra["same_order"] is True
    assert r.extra["ratio"] == pytest.approx(ref.rate / r.rate)
    assert r.rate > 0


def test_compare_unknown_library():
    with pytest.raises(ValueError):
        bench.compare("nope", n=10, rounds=1)


def test_batch_measurement_runs():
    """The batch measurement runs the real batch (a broken one raises or is skipped)."""

    def once(fn, rounds):
        fn()
        return [1.0]

    r = bench.batch(n=200, rounds=1, runner=once)
    assert r.name == "batch" and r.items == 200 and r.rate == 200.0


@pytest.mark.parametrize("name", ["evaluate5", "evaluate3"])
def test_public_evaluator_measured_against_its_kernel(name):
    """The public call and the bare kernel are timed in the same rounds; the target is
    PUBLIC_RATIO times the kernel's rate, and `ok` says whether the public rate meets it."""
    calls = []

    def runner(fn, rounds):
        for _ in range(rounds):
            fn()
        calls.append(rounds)
        return [0.0] * rounds

    r = getattr(bench, name)(n=5000, rounds=4, runner=runner)
    assert calls == [4] and r.rounds == 4 and r.items == 5000
    kernel = r.extra["kernel_rate"]
    assert r.target_rate == pytest.approx(bench.PUBLIC_RATIO * kernel)
    assert r.extra["ratio"] == pytest.approx(r.rate / kernel)
    assert r.ok == (r.rate >= r.target_rate) and r.target == "≥ 0.8× kernel"
    assert r.rate == pytest.approx(r.items / r.median)


def test_measurement_names_are_unique_and_listed():
    names = [m.name for m in bench.MEASUREMENTS]
    assert len(names) == len(set(names))
    assert {"eval5", "eval3", "evaluate5", "evaluate3", "batch"} <= set(names)


def _once(fn, rounds):
    fn()
    return [1.0]


def test_mc_pool_measurement_against_field_in_the_same_rounds(tmp_path, monkeypatch):
    """mc from the pool (a temporary one when none is cached) on one core, field in the
    same rounds: the target is the stricter of 20 ms a hand and 250x field's time."""
    seen = []

    def runner(fn, rounds):
        for _ in range(rounds):
            fn()
        seen.append(rounds)
        return [0.01] * rounds

    # 150 opponent hands: a 20,000-hand pool holds some 256 that share no card with a hand
    r = bench.mc_pool(opponents=150, hands=2, rounds=2, runner=runner, pool_size=20_000)
    assert seen == [2] and r.name == "mc_pool" and r.items == 2 and r.threads == 1
    assert r.extra["pooled_hands"] == 2  # drawn from the pool, not dealt
    f = r.extra["field_per_hand"]
    assert r.target_rate == pytest.approx(max(1 / 0.02, 1 / (250 * f)))
    assert r.ok == (r.rate >= r.target_rate)
    assert r.extra["ratio"] == pytest.approx(r.per_item / f)
    assert r.extra["pool_size"] == 20_000 and r.extra["pool_built_seconds"] > 0
    assert not os.environ.get("CAPSA_POOL_DIR", "").startswith(
        tempfile.gettempdir() + "/capsa-bench"
    )


def test_pool_build_measurement_reports_the_pools_size():
    r = bench.pool_build(n=2_000, runner=_once)
    assert r.name == "pool_build" and r.items == 2_000 and r.rate == 2_000.0
    assert 20 < r.extra["bytes_per_hand"] < 40
    assert r.extra["default_bytes"] == round(r.extra["bytes_per_hand"] * 2_000_000)
    assert r.target_rate == pytest.approx(2_000_000 / 120)


def test_batch_mc_measurement_runs():
    # a pool of 5,000 hands: about 64 share no card with a hand, for its 40 opponents
    r = bench.batch_mc(n=30, runner=_once, pool_size=5_000, samples=40)
    assert r.name == "batch_mc" and r.items == 30 and r.rate == 30.0
    assert r.target == "≥ 100 hands/s" and r.extra["pool_size"] == 5_000
    assert "(40 opponent hands from the pool)" in r.description


def test_batch_mc_home_run_measurement_runs():
    r = bench.batch_mc_home_run(n=20, runner=_once, pool_size=5_000, samples=40)
    assert r.name == "batch_mc_home_run" and r.items == 20 and r.rate == 20.0
    assert r.extra["pool_size"] == 5_000
    assert "(40 opponent hands and whole tables from the pool)" in r.description


@pytest.mark.parametrize("size", ["full", "quick"])
def test_every_measurements_sizes_are_its_arguments(size):
    """What ``capsa bench`` (``--quick``) passes each measurement is what its function
    takes: the quick run's pooled part (``-m long``, minutes of pools) calls them with
    no other arguments than these."""
    import inspect

    for m in bench.MEASUREMENTS:
        kw = m.full if size == "full" else m.quick
        inspect.signature(m.fn).bind(**kw, runner=None)


def test_a_run_builds_each_rulesets_pool_once(tmp_path, monkeypatch):
    """Within ``shared_pools`` (``bench.run``), a pool one measurement built serves the
    next of that ruleset when it is big enough; a bigger one is built beside it; the
    folder goes when the run ends, and ``CAPSA_POOL_DIR`` is what it was."""
    from solver.apps.bench.pooled import _a_pool, shared_pools
    from solver.engine.compiled import compile_rules
    from solver.engine.rules import load_rules

    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))  # no pool cached
    cr = compile_rules(load_rules("chinese-1-6"))
    with shared_pools() as folder:
        with _a_pool(cr, 2_000) as (first, built_first):
            assert os.environ["CAPSA_POOL_DIR"] == folder
        with _a_pool(cr, 2_000) as (again, built_again):
            pass
        with _a_pool(cr, 3_000) as (bigger, built_bigger):
            pass
        with _a_pool(cr, 2_000) as (last, built_last):
            pass
        assert built_first > 0 and built_again == 0.0 and again.path == first.path
        assert built_bigger > 0 and bigger.size == 3_000 and bigger.path != first.path
        assert built_last == 0.0 and last.size == 3_000  # the newest, big enough
        assert os.environ["CAPSA_POOL_DIR"] == str(tmp_path)
    assert not os.path.exists(folder) and os.listdir(tmp_path) == []
    with _a_pool(cr, 2_000) as (alone, built_alone):  # no run open: its own, built again
        assert built_alone > 0 and not str(alone.path).startswith(folder)
    assert os.listdir(tmp_path) == []


def _disjoint_share(cards: int = 52) -> float:
    """The chance that a random 13-card hand of a deck of ``cards`` card ids shares no
    card with a given one."""
    from math import comb

    return comb(cards - 13, 13) / comb(cards, 13)


def _smallest_deck(name: str) -> int:
    """The fewest card ids of the decks measurement ``name`` solves at (the fewer, the
    fewer hands of a pool share no card with a hand): the presets' 52, ``mc_tables``'s
    tables of 4, 5 and 6 players and ``mc_jokers``'s with both jokers and without."""
    from solver.apps.bench.tables import BIG_PRESET
    from solver.engine.rules import PRESETS
    from solver.engine.seating import at_table

    seats = {"mc_tables": [(4, 0), (5, 0), (6, 0)], "mc_jokers": [(4, 0), (4, 2)]}
    tables = seats.get(name, [(4, 0)])
    return min(at_table(PRESETS[BIG_PRESET], p, j).deck.size for p, j in tables)


@pytest.mark.parametrize("size", ["full", "quick"])
def test_every_pooled_measurement_has_a_pool_that_can_serve_it(size):
    """A pool that holds fewer hands sharing no card with a hand than a solve draws is
    not used: the solve deals (``OpponentPool.pick``), and the measurement times dealing
    under the pool's name. Each pooled measurement's pool (its own ``pool_size`` or
    ``BENCH_POOL_SIZE``) must hold its opponent hands with room: five standard
    deviations under the mean count, at the measurement's deck with the fewest cards
    (``mc_tables`` and ``mc_jokers`` build one pool a table, of one size)."""
    from solver.apps.bench.timing import BENCH_POOL_SIZE

    pooled = {"mc_pool", "mc_presets", "batch_mc", "batch_mc_home_run", "mc_tables", "mc_jokers"}
    seen = set()
    for m in bench.MEASUREMENTS:
        if m.name not in pooled:
            continue
        seen.add(m.name)
        p = _disjoint_share(_smallest_deck(m.name))
        kw = m.full if size == "full" else m.quick
        pool = kw.get("pool_size") or BENCH_POOL_SIZE
        wanted = kw.get("opponents") or kw.get("samples") or 3_000
        mean, sd = pool * p, (pool * p * (1 - p)) ** 0.5
        assert mean - 5 * sd >= wanted, (m.name, size, pool, wanted)
    assert seen == pooled


def test_mc_opponents_measurement_against_field_in_the_same_rounds():
    """mc against a learned model's opponents and against the field's, dealt, one core,
    back to back in every round: the target is the model's time at most 1.1x field's."""
    seen = []

    def runner(fn, rounds):
        for _ in range(rounds):
            fn()
        seen.append(rounds)
        return [0.01] * rounds

    r = bench.mc_opponents(opponents=200, hands=2, rounds=2, runner=runner, learn_from=100)
    assert seen == [2] and r.name == "mc_opponents" and r.items == 2 and r.threads == 1
    f = r.extra["field_per_hand"]
    assert r.target_rate == pytest.approx(1 / (1.1 * f))
    assert r.ok == (r.per_item <= 1.1 * f)
    assert r.extra["ratio"] == pytest.approx(r.per_item / f)


def test_mc_tables_times_the_tables_of_four_five_and_six_in_the_same_rounds():
    """mc_tables: the 十三水 table at 4, 5 and 6 players back to back in every round, each
    hand of its own deck (the 65- and 78-card hands hold copies at times); the target is
    the slower of 5 and 6 at most 1.5x the four-player table, the same opponent hands."""
    seen = []

    def runner(fn, rounds):
        for _ in range(rounds):
            fn()
        seen.append(rounds)
        return [0.01] * rounds

    from solver.engine.options import MIN_POOL_SIZE

    # the smallest pools (built in seconds): what is tested is the rounds and the target
    r = bench.mc_tables(opponents=200, hands=2, rounds=2, runner=runner, pool_size=MIN_POOL_SIZE)
    assert seen == [2] and r.name == "mc_tables" and r.items == 2 and r.threads == 1
    ms = r.extra["ms_per_hand"]
    assert set(ms) == {"4", "5", "6"} and r.extra["samples"] == 200
    assert r.per_item * 1e3 == pytest.approx(max(ms["5"], ms["6"]))
    assert r.target_rate == pytest.approx(1e3 / (1.5 * ms["4"]))
    assert r.ok == (max(ms["5"], ms["6"]) <= 1.5 * ms["4"])
    assert r.extra["ratio"]["5"] == pytest.approx(ms["5"] / ms["4"])


def test_mc_jokers_times_the_table_with_and_without_jokers_in_the_same_rounds():
    """mc_jokers: the 十三水 table of 4 with both jokers and without, back to back in every
    round, each hand of its own deck and from its own pool; the target is the jokers'
    table at most 1.2x the other."""
    seen = []

    def runner(fn, rounds):
        for _ in range(rounds):
            fn()
        seen.append(rounds)
        return [0.01] * rounds

    # pools of 5,000 hands hold the 30 opponent hands a hand needs (about 64 and 80 of
    # their hands share no card with a hand, without jokers and with two)
    r = bench.mc_jokers(opponents=30, hands=2, rounds=2, runner=runner, pool_size=5_000)
    assert seen == [2] and r.name == "mc_jokers" and r.items == 2 and r.threads == 1
    assert r.rounds == 2
    ms = r.extra["ms_per_hand"]
    assert set(ms) == {"0", "2"} and r.extra["samples"] == 30
    assert r.extra["pooled_hands"] == {"0": 2, "2": 2}  # each from its own pool
    assert r.per_item * 1e3 == pytest.approx(ms["2"])
    assert r.target_rate == pytest.approx(1e3 / (1.2 * ms["0"]))
    assert r.ok == (ms["2"] <= 1.2 * ms["0"])
    assert r.extra["ratio"]["2"] == pytest.approx(ms["2"] / ms["0"])


def test_eval5_jokers_times_rows_with_and_without_jokers_in_the_same_rounds():
    """Issue 32's measurement: rows holding jokers (one in every row, two in a fifth)
    against the same rows without, each round the two calls back to back; the target is
    the rate without over JOKER_RATIO."""
    calls = []

    def runner(fn, rounds):
        for _ in range(rounds):
            fn()
        calls.append(rounds)
        return [0.0] * rounds

    r = bench.eval5_jokers(n=5000, rounds=3, runner=runner)
    assert calls == [3] and r.rounds == 3 and r.items == 5000 and r.name == "eval5_jokers"
    plain = r.extra["plain_rate"]
    assert r.target_rate == pytest.approx(plain / bench.JOKER_RATIO)
    assert r.extra["ratio"] == pytest.approx(plain / r.rate)
    assert r.ok == (r.rate >= r.target_rate)


def test_mc_presets_uses_every_cached_pool(tmp_path, monkeypatch):
    """A preset's cached pool is used even when a preset before it has none: the pool
    built for that one points CAPSA_POOL_DIR at a temporary folder meanwhile, where the
    cached pool was not found (a 300,000-hand pool was built instead and timed)."""
    from solver.engine.compiled import compile_rules
    from solver.engine.rules import PRESETS
    from solver.strategy.opposition import pool as pools

    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    later = list(PRESETS)[-2]  # after presets with no pool here
    pools.build_pool(compile_rules(PRESETS[later]), 2_000)
    r = bench.mc_presets(opponents=10, hands=1, rounds=1, pool_size=1_000)
    sizes = r.extra["pool_size"]
    assert sizes[later] == 2_000
    assert {v for n, v in sizes.items() if n != later} == {1_000}
