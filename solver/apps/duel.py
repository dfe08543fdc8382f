"""Duplicate duels between two hand-setting strategies.

``duel(a, b, deals, rules, players, seed)`` deals ``deals`` random deals of ``players``
hands and plays each one ``players`` times, once with strategy A in each seat and
strategy B in every other seat, so the luck of the cards cancels.

Duplicate rotation. A strategy sets a hand from its own cards only, so over the ``k``
games of a deal (A in seat ``g`` = 0..k-1, B in the others), A holds every hand once, B
holds every hand ``k - 1`` times, and every ordered pair of hands (A holds ``H_i``, B
holds ``H_j``, ``i != j``) meets exactly once. For two players this is the usual swap:
the deal is played again with the hands exchanged. Each strategy sets each hand once per
duel.

A deal's value is A's units per game against the whole table (the ``k - 1`` B players),
averaged over the ``k`` games: ``x = (1/k) * sum_g table_g[g]``, where ``table_g`` is the
settlement of game g's whole table (``solver.engine.settlement.settle_tables``), so a
home run counts (docs/rules.md#home-run). With the home run off a table is the sum of
its pairs and ``x = (1/k) * sum_{i != j} settle(A(H_i), B(H_j))``. When A and B are the
same (deterministic) strategy, ``x`` is exactly 0 for every deal (a table sums to 0).
The result is the mean of ``x`` over the deals with a 95% confidence interval
(Student's t, the deals as independent units), the share of hands the two strategies
set differently, and how many settings each fouled.

Hands are played as set: nobody declares a natural or surrenders, so the duel measures
setting skill alone. (A natural's payout does not depend on the other player's setting,
so two strategies that both declare would cancel in duplicate play.) The ``mc``
strategy solves under the ruleset without naturals, so its answer is always the best
setting to play.

Strategies (``resolve``): ``greedy``, ``field``, ``mc``, ``mc:SAMPLES``, or
``cmd:PROGRAM`` (a command line, split like a shell does). Each resolves to a
:class:`Strategy`, whose ``set_hands(hands uint8[n, 13], rules, seed)`` returns settings
``uint8[n, 13]`` laid out front 3 + middle 5 + back 5. A returned row that is not a
setting of its hand (the external bot's bad or missing answers come back as ``255``s)
counts as a bad answer and is scored as a fouled setting.

The external program protocol: the program is started once per duel and reads one hand
per line on stdin (``2c 7d Th ...``, 13 cards, sorted low to high); it writes one setting
per line on stdout, in the same order: ``front | middle | back``, cards separated by
spaces (any spelling ``evaluator.parse_cards`` accepts). Environment: ``CAPSA_RULES``
(ruleset name), ``CAPSA_PLAYERS``, ``CAPSA_SEED``. The program gets ``timeout`` seconds
for the whole stream; it is killed when they run out, and the answers it did not give
are scored as fouls. Unparseable lines, wrong row sizes and cards that are not the
hand's are fouls too; the duel never fails because of the program's answers.

The program runs in a process group (a session) of its own, and the whole group is
killed when the time runs out, when the duel is interrupted, and when the program is
done, so no child it starts outlives its turn. capsa reads only what the hands need:
the first ``n`` lines of its output, each cut at ``LINE_MAX`` bytes, and the last
``STDERR_TAIL`` bytes of its standard error; it never waits for the pipes to close (a
child holding them open cannot stall the duel). A program still running
``EXIT_GRACE`` seconds after its last answer is killed; its answers count. POSIX only
(the process-group handling); elsewhere the program runs without it.
"""

from __future__ import annotations

import math
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solver.engine.errors import InputError
from solver.engine.layout import MAX_DEALS, MAX_TIMEOUT
from solver.engine.rules import Rules, load_rules

__all__ = [
    "BAD",
    "DuelError",
    "DuelResult",
    "Strategy",
    "confidence_interval",
    "deal_hands",
    "duel",
    "check_timeout",
    "parse_setting",
    "resolve",
    "score_duplicate",
    "t_quantile",
]

#: A card id no hand holds: a strategy row full of it means "no valid answer".
BAD = 255
#: Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom.
_T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)  # fmt: skip
_Z975 = 1.959963984540054


class DuelError(InputError):
    """A duel that cannot be run (bad strategy name or option, program that cannot start)."""


#: Bytes of one answer line kept (a setting is about 45; the rest of a longer line is
#: dropped, and the line is then no setting).
LINE_MAX = 1024
#: Bytes of the program's standard error kept (the end of it, for the notes).
STDERR_TAIL = 4096
#: Seconds a program may take to exit after its last answer before it is killed.
EXIT_GRACE = 2.0


SetHands = Callable[[np.ndarray, Rules, int], np.ndarray]


@dataclass
class Strategy:
    """A named hand-setting strategy: ``set_hands(hands, rules, seed) -> settings``.

    ``chunk``: hands per call (progress is reported between calls); 0 = all at once.
    ``notes`` collects what went wrong with an external program's answers.
    """

    name: str
    set_hands: SetHands
    chunk: int = 0
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------ statistics


def t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (95% two-sided).

    Exact to 4 decimals up to 30 degrees of freedom (a table), then the Cornish-Fisher
    expansion (Abramowitz & Stegun 26.7.5), good to 1e-5 beyond.
    """
    if df < 1:
        raise ValueError("t_quantile needs at least one degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z, n = _Z975, float(df)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / n + g2 / n**2 + g3 / n**3 + g4 / n**4


def confidence_interval(values: np.ndarray) -> tuple[float, float | None, float | None]:
    """(mean, standard error, 95% half-width) of independent values.

    ``stderr = std(values, ddof=1) / sqrt(n)``; the interval is ``mean ± t * stderr`` with
    ``t`` the 97.5% quantile of Student's t with ``n - 1`` degrees of freedom. With fewer
    than two values the error and the interval are ``None``.
    """
    x = np.asarray(values, np.float64)
    if x.size == 0:
        raise ValueError("no values")
    mean = float(x.mean())
    if x.size < 2:
        return mean, None, None
    se = float(x.std(ddof=1) / math.sqrt(x.size))
    return mean, se, t_quantile(x.size - 1) * se


# ------------------------------------------------------------------------- dealing


def deal_hands(deals: int, players: int, seed: int) -> np.ndarray:
    """uint8[deals, players, 13]: each deal the first 13 * players cards of a shuffle,
    every hand sorted low to high."""
    rng = np.random.default_rng(seed)
    out = np.empty((deals, players, 13), np.uint8)
    deck = np.arange(52, dtype=np.uint8)
    step = 32768
    for lo in range(0, deals, step):
        m = min(step, deals - lo)
        shuffled = rng.permuted(np.tile(deck, (m, 1)), axis=1)[:, : 13 * players]
        out[lo : lo + m] = np.sort(shuffled.reshape(m, players, 13), axis=2)
    return out


# ---------------------------------------------------------------------- strategies


def _policy(name: str) -> SetHands:
    def set_hands(hands: np.ndarray, rules: Rules, seed: int) -> np.ndarray:
        from solver.strategy.policy import set_hands as policy_set_hands

        return policy_set_hands(hands, rules, name)

    return set_hands


def _hand_seed(seed: int, hand: np.ndarray) -> int:
    """A seed from the duel's seed and the hand's cards (the same hand, the same seed)."""
    return int(np.random.SeedSequence([seed, *hand.tolist()]).generate_state(1)[0])


def _mc(samples: int | None, players: int) -> SetHands:
    """``solver.solve`` hand by hand. The duel scores settings only, so it solves under
    the ruleset without naturals: the answer is then always the best setting to *play*
    (a declared natural would show the natural's split instead). Opponents' naturals are
    worth the same whatever this hand's setting, so the choice is otherwise unchanged."""

    def set_hands(hands: np.ndarray, rules: Rules, seed: int) -> np.ndarray:
        from dataclasses import replace

        from evaluator import as_cards
        from solver.strategy.solve import solve

        play = replace(rules, naturals=()) if rules.naturals else rules
        out = np.empty((len(hands), 13), np.uint8)
        for i, hand in enumerate(hands):
            sol = solve(
                hand,
                rules=play,
                players=players,
                policy="mc",
                samples=samples,
                seed=_hand_seed(seed, hand),
                top=0,
            )
            out[i] = np.concatenate([as_cards(sol.front), as_cards(sol.middle), as_cards(sol.back)])
        return out

    return set_hands


def parse_setting(line: str, hand: np.ndarray) -> np.ndarray | None:
    """``front | middle | back`` -> uint8[13] (front 3, middle 5, back 5), or None when
    the line is not a setting of ``hand`` (rows of the wrong size, bad or foreign cards)."""
    from solver.engine.settlement import parse_setting

    if "|" not in line:
        return None
    try:
        flat = parse_setting(line)
    except ValueError:
        return None
    if not np.array_equal(np.sort(flat), np.sort(hand)):
        return None
    return flat


def check_timeout(timeout: float | None) -> float | None:
    """``timeout`` as a float of seconds, finite, above 0 and at most ``MAX_TIMEOUT``."""
    if timeout is None:
        return None
    try:
        t = float(timeout)
    except (TypeError, ValueError):
        raise DuelError(f"timeout must be a number of seconds, got {timeout!r}") from None
    if not (math.isfinite(t) and 0 < t <= MAX_TIMEOUT):
        raise DuelError(
            f"timeout must be more than 0 and at most {MAX_TIMEOUT:,.0f} seconds, got {timeout!r}"
        )
    return t


class _Output:
    """The first ``n`` lines of a stream fed in chunks; a line longer than ``LINE_MAX``
    bytes is kept as ``None`` (not a setting), so memory stays at ``n * LINE_MAX``."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.lines: list[bytes | None] = []
        self.partial = bytearray()
        self.long = False  # the line being read is longer than LINE_MAX
        self.cut = 0  # lines longer than LINE_MAX
        self.extra = False  # output beyond the n-th line was seen

    @property
    def full(self) -> bool:
        return len(self.lines) >= self.n

    def feed(self, chunk: bytes) -> None:
        start = 0
        while start < len(chunk):
            if self.full:
                self.extra = True
                return
            nl = chunk.find(b"\n", start)
            stop = len(chunk) if nl < 0 else nl
            take = min(stop - start, LINE_MAX - len(self.partial))
            self.partial += chunk[start : start + take]
            self.long = self.long or take < stop - start
            if nl < 0:
                return
            self._end_line()
            start = nl + 1

    def close(self) -> None:
        """The stream has ended: a last line without its newline counts too."""
        if (self.partial or self.long) and not self.full:
            self._end_line()

    def _end_line(self) -> None:
        self.lines.append(None if self.long else bytes(self.partial))
        self.cut += self.long
        self.partial.clear()
        self.long = False


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the program's whole process group (its session), then reap it."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _exchange(
    proc: subprocess.Popen, data: bytes, n: int, limit: float
) -> tuple[_Output, bytes, bool, bool]:
    """Write ``data`` to the program and read its first ``n`` lines within ``limit``
    seconds: (output, the end of its stderr, timed out, still running after its output
    ended). One thread, one ``select`` loop, no wait on a pipe's end. The program's group
    is always killed before this returns (also on KeyboardInterrupt)."""
    out = _Output(n)
    err = bytearray()
    deadline = time.monotonic() + limit
    timed_out = lingered = False
    sel = selectors.DefaultSelector()
    pos = 0
    try:
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            os.set_blocking(pipe.fileno(), False)
        if data:
            sel.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        reading = True
        while reading and not out.full:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                pipe = key.fileobj
                if pipe is proc.stdin:
                    try:
                        pos += os.write(proc.stdin.fileno(), data[pos : pos + 65536])
                    except BlockingIOError:
                        continue
                    except OSError:  # the program closed its stdin, or exited
                        pos = len(data)
                    if pos >= len(data):
                        sel.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                try:
                    chunk = os.read(pipe.fileno(), 65536)
                except BlockingIOError:
                    continue
                if pipe is proc.stdout:
                    if chunk:
                        out.feed(chunk)
                    else:
                        reading = False
                        out.close()
                        sel.unregister(proc.stdout)
                elif chunk:
                    err += chunk
                    del err[:-STDERR_TAIL]
                else:
                    sel.unregister(proc.stderr)
        if not timed_out:  # every answer is in, or the output ended: let it exit
            try:
                proc.wait(min(EXIT_GRACE, max(0.0, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                lingered = True
    finally:
        sel.close()
        _kill_group(proc)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            try:
                pipe.close()
            except OSError:
                pass
    return out, bytes(err), timed_out, lingered


def _command(program: str, timeout: float | None, players: int) -> Strategy:
    try:
        argv = shlex.split(program)
    except ValueError as exc:
        raise DuelError(f"cmd:{program}: {exc}") from None
    if not argv:
        raise DuelError("cmd: needs a program, e.g. cmd:'python bot.py'")
    if os.name != "posix":
        raise DuelError("cmd: strategies need a POSIX system (process groups, select on pipes)")
    timeout = check_timeout(timeout)
    strategy = Strategy(f"cmd:{program}", lambda h, r, s: h)

    def set_hands(hands: np.ndarray, rules: Rules, seed: int) -> np.ndarray:
        from evaluator import format_cards

        n = len(hands)
        data = "".join(format_cards(h) + "\n" for h in hands).encode()
        limit = timeout if timeout is not None else 60.0 + 0.01 * n
        env = {
            **os.environ,
            "CAPSA_RULES": rules.name,
            "CAPSA_PLAYERS": str(players),
            "CAPSA_SEED": str(seed),
        }
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,  # a process group of its own, killed whole
            )
        except OSError as exc:
            raise DuelError(f"cannot run {program!r}: {exc.strerror or exc}") from None
        output, stderr, timed_out, lingered = _exchange(proc, data, n, limit)
        lines = [b.decode("utf-8", errors="replace") if b is not None else "" for b in output.lines]
        out = np.full((n, 13), BAD, np.uint8)
        bad = 0
        for i in range(n):
            flat = parse_setting(lines[i], hands[i]) if i < len(lines) else None
            if flat is None:
                bad += i < len(lines)
            else:
                out[i] = flat
        missing = max(0, n - len(lines))
        who = strategy.name
        status = proc.returncode
        if timed_out:
            strategy.notes.append(f"{who}: timed out after {limit:g} s and was killed")
        elif lingered:
            strategy.notes.append(
                f"{who}: still running {EXIT_GRACE:g} s after its output ended; killed"
            )
        elif status:
            strategy.notes.append(f"{who}: exited with status {status}")
        if missing:
            strategy.notes.append(f"{who}: {missing} of {n} answers missing (scored as fouls)")
        if bad:
            strategy.notes.append(f"{who}: {bad} of {n} answers not a setting of the hand")
        if output.cut:
            strategy.notes.append(
                f"{who}: {output.cut} lines longer than {LINE_MAX} bytes (cut; not settings)"
            )
        if output.extra:
            strategy.notes.append(f"{who}: wrote more than {n} lines; the rest was not read")
        last = stderr.decode("utf-8", errors="replace").strip().splitlines()
        if (timed_out or status or missing or bad) and last:
            strategy.notes.append(f"{who} stderr: {last[-1][:200]}")
        return out

    strategy.set_hands = set_hands
    return strategy


def resolve(spec: str | Strategy, players: int = 2, timeout: float | None = None) -> Strategy:
    """A strategy from its name: ``greedy``, ``field``, ``mc``, ``mc:SAMPLES``,
    ``cmd:PROGRAM``. A :class:`Strategy` passes through."""
    if isinstance(spec, Strategy):
        return spec
    text = spec.strip()
    if text in ("greedy", "field"):
        return Strategy(text, _policy(text))
    if text == "mc" or text.startswith("mc:"):
        samples = None
        if text != "mc":
            raw = text[3:]
            try:
                samples = int(raw)
            except ValueError:
                raise DuelError(f"mc:SAMPLES needs a whole number, got {raw!r}") from None
            if samples < 1:
                raise DuelError(f"mc:SAMPLES must be at least 1, got {samples}")
        return Strategy(text, _mc(samples, players), chunk=8)
    if text.startswith("cmd:"):
        return _command(text[4:].strip(), timeout, players)
    raise DuelError(f"unknown strategy {spec!r}: use mc, mc:SAMPLES, field, greedy or cmd:PROGRAM")


# ------------------------------------------------------------------------- scoring


def _valid(settings: np.ndarray, hands: np.ndarray) -> np.ndarray:
    """bool[n]: row i holds exactly the cards of hand i."""
    if settings.shape != hands.shape:
        return np.zeros(len(hands), bool)
    return (np.sort(settings, axis=1) == np.sort(hands, axis=1)).all(axis=1)


def _summaries(
    settings: np.ndarray, hands: np.ndarray, rules: Rules
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(keys, royalties, fouls, bad) for settings of hands; a bad row is scored fouled."""
    from solver.engine.settlement import summarize_batch

    bad = ~_valid(settings, hands)
    safe = np.where(bad[:, None], hands, settings).astype(np.uint8)
    keys, roys, fouls = summarize_batch(safe, rules)
    fouls = fouls | bad
    return keys, roys, fouls, bad


def score_duplicate(
    settings_a: np.ndarray, settings_b: np.ndarray, hands: np.ndarray, rules: Rules
) -> dict[str, np.ndarray]:
    """Duplicate scores of two strategies' settings of the same deals.

    hands uint8[deals, k, 13]; settings_a / settings_b uint8[deals * k, 13] (the hands
    in the same order). Returns per-deal values ``x`` float64[deals] (A's units per game
    against the whole table, averaged over the k seatings) and per-hand ``foul_a``,
    ``foul_b``, ``bad_a``, ``bad_b``, ``differ`` (bool[deals * k]).
    """
    from solver.engine.settlement import settle_tables

    deals, k, _ = hands.shape
    flat = hands.reshape(deals * k, 13)
    ka, ra, fa, bad_a = _summaries(np.asarray(settings_a, np.uint8), flat, rules)
    kb, rb, fb, bad_b = _summaries(np.asarray(settings_b, np.uint8), flat, rules)
    # game g of deal d is table d * k + g: seat j holds hand j, set by A when j == g
    hand = ((np.arange(deals) * k)[:, None, None] + np.arange(k)[None, None, :]).repeat(k, 1)
    by_a = np.broadcast_to(np.eye(k, dtype=bool), hand.shape).ravel()
    hand = hand.ravel()
    keys = np.where(by_a[:, None], ka[hand], kb[hand])
    roys = np.where(by_a[:, None], ra[hand], rb[hand])
    fouls = np.where(by_a, fa[hand], fb[hand])
    out = settle_tables((keys, roys, fouls), k, rules).reshape(deals, k, k)
    x = np.trace(out, axis1=1, axis2=2) / k

    def canon(s: np.ndarray) -> np.ndarray:
        s = np.asarray(s, np.uint8)
        return np.concatenate(
            [np.sort(s[:, :3], axis=1), np.sort(s[:, 3:8], axis=1), np.sort(s[:, 8:], axis=1)],
            axis=1,
        )

    ca, cb = canon(settings_a), canon(settings_b)
    ca[bad_a], cb[bad_b] = BAD, BAD
    differ = (ca != cb).any(axis=1)
    return {"x": x, "foul_a": fa, "foul_b": fb, "bad_a": bad_a, "bad_b": bad_b, "differ": differ}


# ---------------------------------------------------------------------------- duel


@dataclass
class DuelResult:
    """What ``duel`` found; ``to_dict()`` is the JSON shape ``capsa duel`` prints."""

    a: str
    b: str
    rules: str
    players: int
    deals: int
    seed: int
    mean: float  # A's units per deal (per game against the whole table)
    stderr: float | None
    ci95: tuple[float, float] | None
    differ: float  # share of hands the two strategies set differently
    fouls_a: int
    fouls_b: int
    bad_a: int  # answers that were not a setting of the hand (counted in fouls_a)
    bad_b: int
    seconds_a: float
    seconds_b: float
    notes: list[str] = field(default_factory=list)

    @property
    def hands(self) -> int:
        """Hands each strategy set."""
        return self.deals * self.players

    @property
    def games(self) -> int:
        return self.deals * self.players

    def to_dict(self) -> dict[str, Any]:
        per_opp = self.players - 1
        return {
            "a": self.a,
            "b": self.b,
            "rules": self.rules,
            "players": self.players,
            "deals": self.deals,
            "games": self.games,
            "seed": self.seed,
            "mean": self.mean,
            "stderr": self.stderr,
            "ci95": list(self.ci95) if self.ci95 is not None else None,
            "mean_per_opponent": self.mean / per_opp,
            "differ": self.differ,
            "hands": self.hands,
            "fouls": {
                "a": {
                    "fouls": self.fouls_a,
                    "rate": self.fouls_a / self.hands,
                    "bad_answers": self.bad_a,
                },
                "b": {
                    "fouls": self.fouls_b,
                    "rate": self.fouls_b / self.hands,
                    "bad_answers": self.bad_b,
                },
            },
            "seconds": {"a": self.seconds_a, "b": self.seconds_b},
            "notes": self.notes,
        }


Progress = Callable[[str, int, int], None]


def _play(
    strategy: Strategy,
    hands: np.ndarray,
    rules: Rules,
    seed: int,
    progress: Progress | None,
) -> tuple[np.ndarray, float]:
    """All hands set by one strategy, in chunks; (settings, seconds). Never raises for a
    strategy's wrong output shape: such rows come back as bad answers."""
    n = len(hands)
    step = strategy.chunk or n or 1
    out = np.full((n, 13), BAD, np.uint8)
    t0 = time.perf_counter()
    if progress:
        progress(strategy.name, 0, n)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        got = np.asarray(strategy.set_hands(hands[lo:hi], rules, seed))
        if got.shape == (hi - lo, 13) and got.dtype.kind in "iu":
            ok = (got >= 0).all(axis=1) & (got <= 51).all(axis=1)
            out[lo:hi][ok] = got[ok].astype(np.uint8)
        else:
            strategy.notes.append(
                f"{strategy.name}: returned shape {got.shape} for {hi - lo} hands"
            )
        if progress:
            progress(strategy.name, hi, n)
    return out, time.perf_counter() - t0


def duel(
    a: str | Strategy,
    b: str | Strategy,
    deals: int = 1000,
    rules: Rules | str | None = None,
    players: int | None = None,
    seed: int | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> DuelResult:
    """Play strategy ``a`` against ``b`` over ``deals`` duplicate deals (module docstring).

    ``players`` defaults to the ruleset's; ``seed`` None draws one (reported in the
    result). ``timeout`` is an external program's time for the whole stream (default
    60 s plus 10 ms a hand). ``progress(name, done, total)`` follows the setting of hands.
    """
    r = load_rules(rules)
    k = r.players if players is None else int(players)
    if not 2 <= k <= 4:
        raise DuelError(f"players must be 2 to 4, got {k}")
    if not 1 <= deals <= MAX_DEALS:
        raise DuelError(f"deals must be from 1 to {MAX_DEALS:,}, got {deals:,}")
    timeout = check_timeout(timeout)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    if seed < 0:
        raise DuelError(f"seed must be zero or more, got {seed}")
    sa = resolve(a, k, timeout)
    sb = resolve(b, k, timeout)
    hands = deal_hands(deals, k, seed)
    flat = hands.reshape(deals * k, 13)
    set_a, secs_a = _play(sa, flat, r, seed, progress)
    set_b, secs_b = _play(sb, flat, r, seed, progress)
    s = score_duplicate(set_a, set_b, hands, r)
    mean, se, half = confidence_interval(s["x"])
    notes = list(dict.fromkeys(sa.notes + sb.notes))
    if deals < 30:
        notes.append(f"only {deals} deals: the interval is rough")
    return DuelResult(
        a=sa.name,
        b=sb.name,
        rules=r.name,
        players=k,
        deals=deals,
        seed=seed,
        mean=mean,
        stderr=se,
        ci95=(mean - half, mean + half) if half is not None else None,
        differ=float(s["differ"].mean()),
        fouls_a=int(s["foul_a"].sum()),
        fouls_b=int(s["foul_b"].sum()),
        bad_a=int(s["bad_a"].sum()),
        bad_b=int(s["bad_b"].sum()),
        seconds_a=secs_a,
        seconds_b=secs_b,
        notes=notes,
    )
