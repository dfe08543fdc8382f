"""Measurements of the evaluator: its lookup kernels (timed directly: ``capsa bench``
is the one application allowed to call a kernel, an exception the layering contract
names), the public batch calls against them, and other libraries on the same rows."""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np

from evaluator import JOKER_FACE, get_joker_tables, get_tables
from evaluator import _kernels as k
from evaluator import evaluate3 as public_evaluate3
from evaluator import evaluate5 as public_evaluate5
from solver.apps.bench.timing import (
    PUBLIC_RATIO,
    TARGET_EVAL5,
    Label,
    Result,
    Runner,
    Unavailable,
    default_runner,
    measure,
    random_rows,
    seeded_hands,
    threads,
)
from solver.engine.table_shape import STANDARD_DECK

__all__ = [
    "COMPARE_LIBRARIES",
    "compare",
    "eval3",
    "eval5",
    "eval5_jokers",
    "evaluate3",
    "evaluate5",
    "subset_pass",
]

#: Issue 32's target: a row with jokers costs at most this many times a row without.
JOKER_RATIO = 2.0

#: The libraries ``capsa bench --compare`` times, as ``capsa[compare]`` installs them.
COMPARE_LIBRARIES = ("phevaluator", "treys", "eval7")


def eval5(
    n: int = 1_000_000, rounds: int = 7, seed: int = 0, runner: Runner | None = None
) -> Result:
    """5-card strength lookups, ``n`` random unsorted rows, one thread (``_eval5_batch``)."""

    t = get_tables()
    rows = random_rows(n, 5, seed)
    out = np.empty(n, np.int32)
    return measure(
        Label(
            "eval5",
            f"5-card strength, {n:,} random unsorted rows, one thread",
            "lookup",
            TARGET_EVAL5,
        ),
        lambda: k._eval5_batch(rows, t.multi5, t.flush5, out),
        n,
        rounds,
        runner,
    )


def eval3(
    n: int = 1_000_000, rounds: int = 7, seed: int = 0, runner: Runner | None = None
) -> Result:
    """3-card (front) strength lookups, ``n`` random unsorted rows, one thread."""

    t = get_tables()
    rows = random_rows(n, 3, seed)
    out = np.empty(n, np.int32)
    return measure(
        Label(
            "eval3",
            f"3-card strength, {n:,} random unsorted rows, one thread",
            "lookup",
        ),
        lambda: k._eval3_batch(rows, t.multi3, out),
        n,
        rounds,
        runner,
    )


def eval5_jokers(
    n: int = 1_000_000, rounds: int = 9, seed: int = 0, runner: Runner | None = None
) -> Result:
    """5-card strength of rows holding jokers (docs/rules.md#jokers: ``evaluator.jokers``'
    widened tables, the kernel ``_eval5_batch_wild``) against the same rows without, in
    the same rounds (each round the two calls back to back). The rows: ``n`` random
    unsorted rows of the 52 cards with a joker put in every row and a second in every
    fifth. Target: at most ``JOKER_RATIO`` times the time of a row without (issue 32)."""

    plain = random_rows(n, 5, seed)
    rows = plain.copy()
    rng = np.random.default_rng(seed + 1)
    at = rng.integers(0, 5, n)
    rows[np.arange(n), at] = JOKER_FACE
    rows[::5, (at[::5] + 1) % 5] = JOKER_FACE
    t, jt = get_tables(), get_joker_tables()
    out = np.empty(n, np.int32)
    plain_times: list[float] = []
    joker_times: list[float] = []

    def pair() -> None:
        t0 = time.perf_counter()
        k._eval5_batch(plain, t.multi5, t.flush5, out)
        t1 = time.perf_counter()
        k._eval5_batch_wild(rows, jt.multi5, jt.flush5, out)
        t2 = time.perf_counter()
        plain_times.append(t1 - t0)
        joker_times.append(t2 - t1)

    t0 = time.perf_counter()
    k._eval5_batch_wild(rows[:1], jt.multi5, jt.flush5, out)
    first_call = time.perf_counter() - t0
    (runner or default_runner)(pair, rounds)
    if not joker_times:
        raise ValueError("runner made no rounds for eval5_jokers")
    median = statistics.median(joker_times)
    plain_rate = n / statistics.median(plain_times)
    rate = n / median
    return Result(
        name="eval5_jokers",
        description=f"5-card strength, {n:,} random rows holding jokers (a fifth two), one "
        "thread, against the same rows without jokers in the same rounds",
        items=n,
        unit="lookup",
        median=median,
        rate=rate,
        per_item=median / n,
        rounds=len(joker_times),
        first_call=first_call,
        threads=threads(),
        target=f"≤ {JOKER_RATIO:g}× without",
        target_rate=plain_rate / JOKER_RATIO,
        ok=rate >= plain_rate / JOKER_RATIO,
        extra={"plain_rate": plain_rate, "ratio": plain_rate / rate},
    )


def _public(width: int, n: int, rounds: int, seed: int, runner: Runner | None) -> Result:
    """``evaluator.evaluate5``/``evaluate3`` on ``n`` random rows (the public call: ids
    checked in the kernel's pass, output allocated), next to the bare lookup kernel
    (``_eval5_batch``/``_eval3_batch``: no check) timed in the same rounds, each round
    the two calls back to back, so the two rates see the same machine; the bare call
    allocates its output as the public one does. Target: the public rate at least
    ``PUBLIC_RATIO`` times the kernel's. On the reference machine a lookup loop runs at
    about half speed for some placements of its arrays in memory (the bare 3-card
    kernel alone: 2.9 or 6.9 ms for the same 1,000,000 rows, by output array), which
    can strike either call of a run: compare more than one run."""

    t = get_tables()
    rows = random_rows(n, width, seed)
    if width == 5:
        name, public = "evaluate5", public_evaluate5

        def bare() -> np.ndarray:
            out = np.empty(n, np.int32)
            k._eval5_batch(rows, t.multi5, t.flush5, out)
            return out
    else:
        name, public = "evaluate3", public_evaluate3

        def bare() -> np.ndarray:
            out = np.empty(n, np.int32)
            k._eval3_batch(rows, t.multi3, out)
            return out

    t0 = time.perf_counter()
    public(rows)  # the first call: kernels compiled or loaded
    first_call = time.perf_counter() - t0
    if not np.array_equal(public(rows), bare()):
        raise RuntimeError(f"{name} and the bare kernel disagree")
    bare_times: list[float] = []
    public_times: list[float] = []

    def pair() -> None:
        t0 = time.perf_counter()
        bare()
        t1 = time.perf_counter()
        public(rows)
        t2 = time.perf_counter()
        bare_times.append(t1 - t0)
        public_times.append(t2 - t1)

    (runner or default_runner)(pair, rounds)
    if not public_times:
        raise ValueError(f"runner made no rounds for {name}")
    median = statistics.median(public_times)
    kernel_rate = n / statistics.median(bare_times)
    rate = n / median
    target_rate = PUBLIC_RATIO * kernel_rate
    return Result(
        name=name,
        description=f"evaluator.{name} on {n:,} random unsorted rows (ids checked), one "
        f"thread, against the bare lookup kernel in the same rounds",
        items=n,
        unit="lookup",
        median=median,
        rate=rate,
        per_item=median / n,
        rounds=len(public_times),
        first_call=first_call,
        threads=threads(),
        target=f"≥ {PUBLIC_RATIO:g}× kernel",
        target_rate=target_rate,
        ok=rate >= target_rate,
        extra={"kernel_rate": kernel_rate, "ratio": rate / kernel_rate},
    )


def evaluate5(
    n: int = 1_000_000, rounds: int = 15, seed: int = 0, runner: Runner | None = None
) -> Result:
    """The public ``evaluator.evaluate5`` batch call against the bare kernel (``_public``)."""
    return _public(5, n, rounds, seed, runner)


def evaluate3(
    n: int = 1_000_000, rounds: int = 15, seed: int = 0, runner: Runner | None = None
) -> Result:
    """The public ``evaluator.evaluate3`` batch call against the bare kernel (``_public``)."""
    return _public(3, n, rounds, seed, runner)


def subset_pass(
    n: int = 20_000, rounds: int = 7, seed: int = 0, runner: Runner | None = None
) -> Result:
    """Strengths of all 1,287 five-card and 286 three-card subsets of a hand, one thread."""

    t = get_tables()
    hands = seeded_hands(n, seed)
    out5 = np.empty((n, 1287), np.int16)
    out3 = np.empty((n, 286), np.int16)
    return measure(
        Label(
            "subset_pass",
            f"13-card subset pass (1,573 rows a hand), {n:,} hands, one thread",
            "hand",
        ),
        lambda: k._subset_pass_batch(hands, t.multi5, t.flush5, t.multi3, out5, out3),
        n,
        rounds,
        runner,
    )


def _compare_setup(library: str, rows: np.ndarray) -> tuple[Callable[[], object], Callable]:
    """(timed loop over the converted rows, function giving their strengths untimed)."""
    d = STANDARD_DECK

    def name(c: int) -> str:
        return "23456789TJQKA"[d.rank(c)] + "cdhs"[d.suit(c)]

    names = [[name(c) for c in row] for row in rows.tolist()]
    if library == "phevaluator":
        try:
            from phevaluator import evaluate_cards
        except ImportError as exc:
            raise Unavailable(f"phevaluator is not installed ({exc})") from None
        # phevaluator ids are ours (rank * 4 + suit, c d h s); lower is stronger.
        conv = [tuple(int(c) for c in row) for row in rows.tolist()]

        def loop() -> None:
            for h in conv:
                evaluate_cards(*h)

        return loop, lambda: [-evaluate_cards(*h) for h in conv]
    if library == "treys":
        try:
            from treys import Card, Evaluator
        except ImportError as exc:
            raise Unavailable(f"treys is not installed ({exc})") from None
        ev = Evaluator()
        # treys' public call is evaluate(hand, board); two cards + three make five.
        pairs = [([Card.new(s) for s in row[:2]], [Card.new(s) for s in row[2:]]) for row in names]

        def loop() -> None:
            for h, b in pairs:
                ev.evaluate(h, b)

        return loop, lambda: [-ev.evaluate(h, b) for h, b in pairs]
    if library == "eval7":
        try:
            with warnings.catch_warnings():  # eval7 builds its parsers with old pyparsing names
                warnings.simplefilter("ignore", DeprecationWarning)
                import eval7
        except ImportError as exc:
            raise Unavailable(f"eval7 is not installed ({exc})") from None
        hands = [[eval7.Card(s) for s in row] for row in names]
        evaluate = eval7.evaluate

        def loop() -> None:
            for h in hands:
                evaluate(h)

        return loop, lambda: [evaluate(h) for h in hands]  # higher is stronger
    raise ValueError(f"unknown comparison library {library!r}: one of {COMPARE_LIBRARIES}")


def _same_order(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """Whether two strength arrays (both higher-is-stronger) rank the rows the same way."""
    o = np.argsort(ours, kind="stable")
    a, b = ours[o], theirs[o]
    same_a, same_b = a[1:] == a[:-1], b[1:] == b[:-1]
    return bool(np.array_equal(same_a, same_b) and (b[1:] >= b[:-1]).all())


def compare(
    library: str,
    n: int = 200_000,
    rounds: int = 3,
    seed: int = 0,
    reference: Result | None = None,
    runner: Runner | None = None,
    population: int = 1_000_000,
) -> Result:
    """Time ``library``'s public 5-card evaluation on the first ``n`` rows of ``eval5``'s.

    ``population`` and ``seed`` must be ``eval5``'s ``n`` and ``seed`` for the rows to be
    the same.

    ``extra`` holds ``ratio`` (our ``eval5`` rate over theirs, with ``reference``) and
    ``same_order`` (their ranking of the rows agrees with ours).
    """

    rows = random_rows(max(n, population), 5, seed)[:n]  # the first n rows of eval5's
    loop, strengths = _compare_setup(library, rows)
    ours = np.asarray(public_evaluate5(rows), np.int64)
    same = _same_order(ours, np.asarray(strengths(), np.int64))
    version = _version(library)
    res = measure(
        Label(
            library,
            f"{library} {version}: public 5-card evaluation, {n:,} of the same rows, a Python loop",
            "lookup",
        ),
        loop,
        n,
        rounds,
        runner,
        extra={"version": version, "same_order": same},
    )
    if reference is not None:
        res.extra["ratio"] = reference.rate / res.rate
    return res


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"
