"""Measurements of whole runs: ``capsa batch`` (bare hands and hands with the setting
played), ``capsa report``, and the start-up of a fresh ``capsa solve`` process."""

from __future__ import annotations

import itertools
import os
import statistics
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from solver.apps.bench.timing import (
    STARTUP_HAND,
    STARTUP_RATIO,
    TARGET_BATCH,
    TARGET_REPORT,
    Label,
    Result,
    Runner,
    Unavailable,
    default_runner,
    load,
    measure,
    seeded_hands,
    threads,
)

if TYPE_CHECKING:
    from solver.engine.rules import Rules, RulesLike

__all__ = ["batch", "played", "report", "startup", "startup_field"]


def batch(
    n: int = 100_000,
    rounds: int = 3,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
    players: int | None = None,
) -> Result:
    """``capsa batch --policy field`` on ``n`` hands: ``solver.apps.batch.run_batch`` from a
    file of hands to JSON lines (written to the null device), worker processes on every
    core. Each round starts its workers afresh, as the command does; the first call (the
    kernels compiled or loaded) is a run on the first ``min(n, 1000)`` hands.
    ``players``: the table's (default the ruleset's); at more than the 52-card deck deals,
    the hands are of the bigger deck its preset seats (solver.engine.seating), both copies
    of a card written twice."""
    import tempfile

    from evaluator import format_cards
    from evaluator.cards import copies_of
    from solver.apps.batch import BatchError, run_batch
    from solver.engine.seating import seated

    r = load(rules)
    extra = seated(r, players).deck_code if players else r.deck_code
    hands = seeded_hands(n, seed, extra)
    tmp = tempfile.TemporaryDirectory(prefix="capsa-bench-")
    src = os.path.join(tmp.name, "hands.txt")
    warm = os.path.join(tmp.name, "warm.txt")
    for path, rows in ((src, hands), (warm, hands[:1000])):
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(format_cards(copies_of(h.tolist(), extra), extra) + "\n" for h in rows)

    def run(path: str, want: int) -> None:
        with open(os.devnull, "w", encoding="utf-8") as sink:
            res = run_batch(path, sink, fmt="jsonl", rules=r, policy="field", seed=seed,
                            players=players)  # fmt: skip
        if res.hands != want:
            raise RuntimeError(f"batch solved {res.hands} of {want} hands")

    try:
        t0 = time.perf_counter()
        try:
            run(warm, min(n, 1000))  # the first call: kernels compiled or loaded
        except BatchError as exc:
            raise Unavailable(f"solver.apps.batch.run_batch: {exc}") from None
        first = time.perf_counter() - t0
        return measure(
            Label(
                "batch",
                f"capsa batch --policy field, {n:,} hands ({r.name}), every core",
                "hand",
                TARGET_BATCH,
            ),
            lambda: run(src, n),
            n,
            rounds,
            runner,
            first_call=first,
        )
    finally:
        tmp.cleanup()


def _played_lines(hands: np.ndarray, rules: Rules) -> list[str]:
    """A setting played for each hand: the field setting, the greedy one, or the field one
    with the middle and the back swapped (mostly fouled), a third each."""
    from evaluator import format_cards
    from solver.strategy.field_model.setting import set_hands

    field_set = set_hands(hands, rules, "field")
    greedy_set = set_hands(hands, rules, "greedy")
    lines = []
    for i in range(len(hands)):
        s = (field_set, greedy_set, field_set)[i % 3][i]
        rows = [s[:3], s[3:8], s[8:]]
        if i % 3 == 2:
            rows[1], rows[2] = rows[2], rows[1]
        lines.append(" | ".join(format_cards(x) for x in rows))
    return lines


def _write_lines(folder: str, name: str, lines: list[str]) -> str:
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(x + "\n" for x in lines)
    return path


def _batch_seconds(
    path: str, rules: Rules, seed: int = 0, want: int | None = None, **options: Any
) -> float:
    """Seconds of ``run_batch --policy field`` from ``path`` to the null device (which
    must solve ``want`` hands, when given)."""
    from solver.apps.batch import run_batch

    t0 = time.perf_counter()
    with open(os.devnull, "w", encoding="utf-8") as sink:
        res = run_batch(path, sink, fmt="jsonl", rules=rules, policy="field", seed=seed, **options)
    if want is not None and res.hands != want:
        raise RuntimeError(f"batch solved {res.hands} of {want} hands")
    return time.perf_counter() - t0


def _mc_slowdown(hands: np.ndarray, lines: list[str], rules: Rules) -> tuple[float, float]:
    """(CPU seconds a hand of ``mc`` at 3,000 opponent hands with the setting played, that
    over the same hands bare): the best of two runs each, interleaved."""
    from evaluator import format_cards
    from solver.strategy.solving.solve import solve

    mc_set = [(format_cards(h), lines[i]) for i, h in enumerate(hands)]
    times = []
    for with_played in (False, True, False, True):
        t0 = time.process_time()
        for i, (h, p) in enumerate(mc_set):
            solve(h, rules=rules, samples=3000, seed=i, top=0, pool=False,
                  played=p if with_played else None)  # fmt: skip
        times.append(time.process_time() - t0)
    bare, with_played = min(times[0::2]), min(times[1::2])
    return with_played / len(mc_set), with_played / bare


def played(
    n: int = 100_000,
    rounds: int = 1,
    mc_hands: int = 4,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
) -> Result:
    """``capsa batch --policy field`` on ``n`` lines giving the setting played (the field
    setting, the greedy one, or the field one with the middle and the back swapped, a
    third each), every core. ``extra`` holds the same hands as bare lines (one timed
    run) and the slowdown; how much slower the first 2,000 played lines are through
    the per-hand ``solve`` than through the chunk path (one worker, in process); and
    the slowdown of ``mc`` at 3,000 opponent hands on ``mc_hands`` hands (CPU time)."""
    import tempfile

    from evaluator import format_cards

    r = load(rules)
    hands = seeded_hands(n, seed)
    lines = _played_lines(hands, r)
    tmp = tempfile.TemporaryDirectory(prefix="capsa-bench-")
    try:
        bare = _write_lines(tmp.name, "bare.txt", [format_cards(h) for h in hands])
        src = _write_lines(tmp.name, "played.txt", lines)
        warm = _write_lines(tmp.name, "warm.txt", lines[:1000])
        first = _batch_seconds(warm, r, seed, min(n, 1000))
        bare_s = _batch_seconds(bare, r, seed, n)
        res = measure(
            Label(
                "played",
                f"capsa batch --policy field, {n:,} lines with a setting played ({r.name}), "
                "every core",
                "hand",
            ),
            lambda: _batch_seconds(src, r, seed, n),
            n,
            rounds,
            runner,
            first_call=first,
        )
        # the played lines through the per-hand solve (fast=False) against the chunk
        # path, in process on one worker, on the first 2,000
        part = _write_lines(tmp.name, "part.txt", lines[:2000])
        paths = {fast: _batch_seconds(part, r, workers=1, fast=fast) for fast in (True, False)}
        mc_cpu, mc_slowdown = _mc_slowdown(hands[:mc_hands], lines, r)
        res.extra.update(
            bare_rate=n / bare_s,
            slowdown=res.median / bare_s,
            per_hand_path_slowdown=paths[False] / paths[True],
            mc3000_cpu_per_hand=mc_cpu,
            mc3000_slowdown=mc_slowdown,
        )
        return res
    finally:
        tmp.cleanup()


def _played_records(hands: int, seed: int, rules: Rules) -> list[str]:
    """JSON records of ``hands`` random hands, each played as the best setting, a runner-up
    or a fouled setting (``solve(..., policy="field", played=...)``), as batch writes them."""
    import json

    from evaluator import format_cards
    from solver.strategy.solving.solve import solve

    rng = np.random.default_rng(seed)
    out = []
    for i, h in enumerate(seeded_hands(hands, seed)):
        text = format_cards(np.sort(h)[::-1])
        best = solve(text, rules=rules, policy="field", top=4)
        options = [(best.front, best.middle, best.back), (best.front, best.back, best.middle)]
        options += [(a["front"], a["middle"], a["back"]) for a in best.alternatives]
        if best.action != "play":  # the natural's rows: play the hand as dealt instead
            rows = text.split()
            options = [(" ".join(rows[10:]), " ".join(rows[5:10]), " ".join(rows[:5]))]
        played = " | ".join(options[int(rng.integers(len(options)))])
        sol = solve(text, rules=rules, policy="field", top=0, played=played)
        rec = {"line": i + 1, "id": f"h{i + 1}", **sol.to_dict()}
        out.append(json.dumps(rec, separators=(",", ":")))
    return out


def report(
    n: int = 100_000,
    rounds: int = 3,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
) -> Result:
    """``capsa report`` on ``n`` batch records with a played setting:
    ``solver.apps.report.make_report`` reading a JSON-lines file once (the HTML page and
    its plots apart). The records are 200 field records of random hands (each played as
    the best setting, a runner-up or fouled) repeated with new line numbers; the first
    call reads the first ``min(n, 1000)``."""
    import tempfile

    from solver.apps.report import make_report

    r = load(rules)
    base = _played_records(200, seed, r)
    tmp = tempfile.TemporaryDirectory(prefix="capsa-bench-")
    src = os.path.join(tmp.name, "results.jsonl")
    warm = os.path.join(tmp.name, "warm.jsonl")
    try:
        with open(src, "w", encoding="utf-8") as fh:
            for i in range(n):
                rec = base[i % len(base)]
                fh.write(f'{{"line":{i + 1},"id":"h{i + 1}"' + rec[rec.index(',"hand"') :] + "\n")
        with open(src, encoding="utf-8") as fin, open(warm, "w", encoding="utf-8") as fout:
            fout.writelines(itertools.islice(fin, min(n, 1000)))

        def run(path: str, want: int) -> None:
            rep = make_report(path)
            if rep.played != want or rep.bad:
                raise RuntimeError(f"report read {rep.played} of {want} records, {rep.bad} bad")

        t0 = time.perf_counter()
        run(warm, min(n, 1000))
        first = time.perf_counter() - t0
        return measure(
            Label(
                "report",
                f"capsa report, {n:,} batch records with a played setting ({r.name})",
                "record",
                TARGET_REPORT,
            ),
            lambda: run(src, n),
            n,
            rounds,
            runner,
            first_call=first,
        )
    finally:
        tmp.cleanup()


def startup(rounds: int = 7, runner: Runner | None = None, policy: str = "mc") -> Result:
    """Wall time of a fresh ``capsa solve HAND --seed 1`` process (default ``mc``, 3,000
    opponent hands; kernels cached), each round back to back with a fresh
    ``python -c "import numba"`` process, so the two see the same machine: the ratio of
    the medians is a figure a noisy machine can keep. The first call (a solve that may
    compile the kernels and write bytecode, ``PYTHONDONTWRITEBYTECODE`` or not) is timed
    apart. Target: at most ``STARTUP_RATIO`` times the bare
    import (and under 1 s on a quiet machine)."""
    import subprocess
    import sys

    solve = [sys.executable, "-m", "solver", "solve", STARTUP_HAND, "--seed", "1",
             "--policy", policy, "--format", "json"]  # fmt: skip
    bare = [sys.executable, "-c", "import numba"]
    # A warm machine has its bytecode cached too: where writing it is turned off (some
    # sandboxes and containers), both processes would compile every module each time.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(cmd: list[str]) -> float:
        t0 = time.perf_counter()
        subprocess.run(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env
        )
        return time.perf_counter() - t0

    run(bare)  # untimed: bytecode
    first_call = run(solve)
    solve_times: list[float] = []
    bare_times: list[float] = []

    def pair() -> None:
        bare_times.append(run(bare))
        solve_times.append(run(solve))

    (runner or default_runner)(pair, rounds)
    if not solve_times:
        raise ValueError("runner made no rounds for startup")
    median = statistics.median(solve_times)
    numba_median = statistics.median(bare_times)
    target_rate = 1 / (STARTUP_RATIO * numba_median)
    return Result(
        name="startup" if policy == "mc" else f"startup_{policy}",
        description=f"a fresh `capsa solve --policy {policy}` process, wall clock, against a "
        "fresh `python -c 'import numba'` in the same rounds",
        items=1,
        unit="process",
        median=median,
        rate=1 / median,
        per_item=median,
        rounds=len(solve_times),
        first_call=first_call,
        threads=threads(),
        target=f"≤ {STARTUP_RATIO:g}× import numba",
        target_rate=target_rate,
        ok=median <= STARTUP_RATIO * numba_median,
        extra={"import_numba": numba_median, "ratio": median / numba_median},
    )


def startup_field(rounds: int = 7, runner: Runner | None = None) -> Result:
    """:func:`startup` with ``--policy field`` (no sampling)."""
    return startup(rounds, runner, policy="field")
