"""``web_load``: the real ``capsa serve`` under a load of simulated players, with and
without one client flooding it (docs/serve.md: Measured; issue: capsa serve for a club).

The server is started as a user starts it (``capsa serve --port 0 --workers N``, a
subprocess). Each simulated player is its own client, on its own loopback address
(``127.0.x.y``: the server tells clients apart by address), and plays what a player
does on the page: one request every ``think`` seconds, going round ``deal``, a
``field`` solve, ``rows``, ``check`` and the practice ``showdown``, with now and then
(one request in ``mc_every``, at random) a Monte Carlo solve of 1,000 opponent hands.
Two phases of ``seconds`` each: the players alone, then the players and a flooding
client (a process of its own) that keeps ``flood`` Monte Carlo solves in flight
(asking again at once after each answer, and 0.2 s after a refusal, never heeding
``Retry-After``). The figures: the quick requests' p50, p95 and p99 by kind, the
refusals (429, 503, and why) and errors of each, the flood ratio (the players' quick
p95 with the flood over without), and the memory of each worker.

The client is asyncio and httpx (what the tests already install) rather than locust: a
few hundred players need one event loop, not locust's gevent workers and their own
process on a 2-core machine that the server shares; the requests, addresses and
timings are this module's own, so the suite runs a short version of the same code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solver.apps.bench.timing import Result, Runner, Unavailable

__all__ = ["LoadRun", "Outcome", "run_load", "web_load"]

QUICK = ("deal", "field", "rows", "check", "showdown")
HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
SETTING = "7d 5h 4c | 9h 9d 9c 3d 2s | As Ks Qs Js Ts"
FLOOD_ADDRESS = "127.1.0.1"
TARGETS = "quick p95 ≤ 100 ms, p99 ≤ 500 ms, none refused; flood p95 ≤ 1.5× without"


@dataclass
class Outcome:
    """What one kind of request got: latencies (s) of answers, and counts by status."""

    seconds: list[float] = field(default_factory=list)
    codes: dict[int, int] = field(default_factory=dict)
    no_retry_after: int = 0  # 429/503 without a Retry-After: an error
    errors: int = 0  # anything but 200, 429 and 503, and failed connections
    failures: dict[str, int] = field(default_factory=dict)  # what each error was

    def add(self, status: int, seconds: float, retry_after: str | None, why: str = "") -> None:
        self.codes[status] = self.codes.get(status, 0) + 1
        if status == 200:
            self.seconds.append(seconds)
        elif status in (429, 503):
            if retry_after is None or not retry_after.isdigit():
                self.no_retry_after += 1
            if status == 503:  # why: busy, past the time limit, shutting down
                self.failures[why] = self.failures.get(why, 0) + 1
        else:
            self.fail(str(status))

    def fail(self, what: str) -> None:
        self.errors += 1
        self.failures[what] = self.failures.get(what, 0) + 1


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * len(s) + 0.5) - 1))]


def address(i: int) -> str:
    """Player ``i``'s loopback address: 127.0.0.2, 127.0.0.3, ... 127.0.1.2, ..."""
    return f"127.0.{i // 250}.{2 + i % 250}"


def _request(kind: str, n: int) -> tuple[str, str, dict[str, Any] | None]:
    """(method, path, body) of a player's ``n``-th request of ``kind``."""
    if kind == "deal":
        return "GET", f"/api/deal?seed={n}", None
    if kind == "field":
        return "POST", "/api/solve", {"hand": HAND, "policy": "field"}
    if kind == "rows":
        return "POST", "/api/rows", {"settings": [SETTING]}
    if kind == "check":
        return "POST", "/api/check", {"hand": HAND, "policy": "field", "played": SETTING}
    if kind == "showdown":
        return "POST", "/api/table", {"hand": HAND, "played": SETTING, "seed": n}
    return "POST", "/api/solve", {"hand": HAND, "samples": 1000, "seed": n}  # mc


@dataclass
class LoadRun:
    """One phase: each kind's outcome, for the players and for the flood."""

    players: dict[str, Outcome] = field(default_factory=dict)
    flood: Outcome = field(default_factory=Outcome)

    def kind(self, name: str) -> Outcome:
        return self.players.setdefault(name, Outcome())

    def quick_seconds(self) -> list[float]:
        return [s for k in QUICK for s in self.kind(k).seconds]

    def quick_refused(self) -> int:
        return sum(self.kind(k).codes.get(c, 0) for k in QUICK for c in (429, 503))

    def errors(self) -> int:
        outs = [*self.players.values(), self.flood]
        return sum(o.errors + o.no_retry_after for o in outs)


async def _send(client: Any, method: str, path: str, body: Any, out: Outcome) -> int:
    t0 = time.perf_counter()
    try:
        res = await client.request(method, path, json=body)
    except Exception as exc:  # noqa: BLE001 - a failed connection is counted, not raised
        out.fail(type(exc).__name__)
        return 0
    why = ""
    if res.status_code == 503:
        with contextlib.suppress(ValueError):
            why = f"503 {str(res.json().get('error', ''))[:40]}"
    out.add(res.status_code, time.perf_counter() - t0, res.headers.get("retry-after"), why)
    return int(res.status_code)


def _client(url: str, local: str) -> Any:
    import httpx2 as httpx

    # A new connection a request (none kept alive): the costlier case for the server,
    # and no race with its keep-alive timeout (5 s, a player's think time).
    # No TLS on loopback: verify=False skips loading the certificates, 47 ms a client,
    # which for 500 players took the first minute of a phase before the first request.
    limits = httpx.Limits(max_keepalive_connections=0)
    transport = httpx.AsyncHTTPTransport(local_address=local, limits=limits, verify=False)
    return httpx.AsyncClient(transport=transport, base_url=url, timeout=60, verify=False)


async def _player(url: str, i: int, until: float, think: float, mc_every: int, run: LoadRun):
    rng = random.Random(i)
    async with _client(url, address(i)) as client:
        await asyncio.sleep(rng.uniform(0, think))
        n = q = 0
        while time.monotonic() < until:
            if mc_every and rng.random() < 1 / mc_every:
                kind = "mc"
            else:
                kind, q = QUICK[q % len(QUICK)], q + 1
            method, path, body = _request(kind, i * 100_000 + n)
            t0 = time.monotonic()
            await _send(client, method, path, body, run.kind(kind))
            n += 1
            await asyncio.sleep(max(0.0, think - (time.monotonic() - t0)))


async def _flooder(url: str, until: float, flood: int, run: LoadRun) -> None:
    async with _client(url, FLOOD_ADDRESS) as client:

        async def one(j: int) -> None:
            n = 0
            while time.monotonic() < until:
                _, path, body = _request("mc", j * 100_000 + n)
                code = await _send(client, "POST", path, body, run.flood)
                n += 1
                if code != 200:
                    await asyncio.sleep(0.2)

        await asyncio.gather(*(one(j) for j in range(flood)))


def _flood_process(url: str, seconds: float, flood: int, out: Any) -> None:
    """The flood, in a process of its own at the lowest priority, standing in for a
    client on another machine: its own work (making some 150 connections a second) is
    not the server's, and on the server's cores it would otherwise take the players'
    client's and the server's turn. Its answers' codes and errors go back through ``out``."""
    with contextlib.suppress(OSError):
        os.nice(19)
    run = LoadRun()
    asyncio.run(_flooder(url, time.monotonic() + seconds, flood, run))
    out.put((run.flood.codes, run.flood.errors, run.flood.no_retry_after))


async def run_load(
    url: str,
    players: int,
    seconds: float,
    think: float,
    flood: int,
    mc_every: int,
    run: LoadRun | None = None,
) -> LoadRun:
    """One phase against the server at ``url``: ``players`` for ``seconds`` (and a flood
    of ``flood`` requests in flight, from another process, when ``flood``), counted into
    ``run`` (a new one by default)."""
    import multiprocessing

    run = run if run is not None else LoadRun()
    until = time.monotonic() + seconds
    proc = None
    if flood:
        ctx = multiprocessing.get_context("spawn")
        out = ctx.Queue()
        proc = ctx.Process(target=_flood_process, args=(url, seconds, flood, out), daemon=True)
        proc.start()
    await asyncio.gather(*(_player(url, i, until, think, mc_every, run) for i in range(players)))
    if proc is not None:
        codes, errors, no_retry = await asyncio.to_thread(out.get, True, seconds + 120)
        for code, n in codes.items():
            run.flood.codes[code] = run.flood.codes.get(code, 0) + n
        run.flood.errors += errors
        run.flood.no_retry_after += no_retry
        proc.join(30)
    return run


def _serve(workers: int) -> tuple[subprocess.Popen[str], str]:
    """``capsa serve --port 0 --workers N`` and its URL, once it says where it listens."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "serve", "--port", "0", "--workers", str(workers)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert proc.stderr is not None
    said = []
    for line in proc.stderr:
        said.append(line)
        m = re.search(r"serving on (http://\S+/)", line)
        if m:  # the rest is read (and dropped) so that the server never blocks on it
            threading.Thread(target=proc.stderr.read, daemon=True, name="drain").start()
            return proc, m.group(1)
    proc.wait()
    raise RuntimeError(f"capsa serve exited {proc.returncode}: {''.join(said).strip()}")


def _ready(url: str, workers: int) -> None:
    """Wait until the workers answer /healthz (each warms before it serves)."""
    import httpx2 as httpx

    for _ in range(2 * workers):
        httpx.get(url + "healthz", timeout=600).raise_for_status()


def _rss(pid: int) -> float:
    """Resident memory (MB) of process ``pid`` (0 once it has gone)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0.0
    return next((int(x.split()[1]) / 1024 for x in lines if x.startswith("VmRSS:")), 0.0)


def _spawned(pid: int) -> list[int]:
    """The processes ``pid`` started with multiprocessing (uvicorn's workers, a worker's
    Monte Carlo processes), not its resource tracker."""
    out = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                with contextlib.suppress(OSError):
                    if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                        out.append(int(child))
    return out


def _workers(pid: int, workers: int) -> list[int]:
    """The worker processes of the server ``pid``: uvicorn's, or with one worker the
    server itself (whose own processes are its Monte Carlo pool)."""
    return _spawned(pid) if workers > 1 else [pid]


def _worker_memory(pid: int, workers: int) -> dict[int, tuple[float, float]]:
    """Each worker of the server ``pid``: its resident memory and that of its Monte
    Carlo processes in all (MB), by its id."""
    return {w: (_rss(w), sum(_rss(c) for c in _spawned(w))) for w in _workers(pid, workers)}


def _cpu_seconds(pid: int) -> float:
    """CPU time (user and system, s) process ``pid`` has used (0 once it has gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _server_cpu(pid: int, workers: int) -> tuple[float, float]:
    """CPU seconds used so far by the server ``pid`` and its workers, and by their
    Monte Carlo processes, each in all."""
    ws = _workers(pid, workers)
    mc = sum(_cpu_seconds(c) for w in ws for c in _spawned(w))
    return _cpu_seconds(pid) + sum(_cpu_seconds(w) for w in ws if w != pid), mc


class MemoryWatch:
    """Samples each worker's memory every ``every`` seconds on a thread of its own, for
    as long as the run lasts (``samples``: (seconds since the start, ``_worker_memory``))."""

    def __init__(self, pid: int, workers: int, every: float) -> None:
        self.pid, self.workers, self.every = pid, workers, every
        self.samples: list[tuple[float, dict[int, tuple[float, float]]]] = []
        self._halt = threading.Event()
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._watch, daemon=True, name="memory")
        self._thread.start()

    def _sample(self) -> None:
        now = time.monotonic() - self._t0
        self.samples.append((now, _worker_memory(self.pid, self.workers)))

    def _watch(self) -> None:
        while True:
            self._sample()
            if self._halt.wait(self.every):
                return

    def stop(self) -> None:
        self._halt.set()
        self._thread.join()
        self._sample()

    def report(self, warm_up: float) -> dict[str, Any]:
        """Each worker's memory (its own, and with its Monte Carlo processes) at the end
        of ``warm_up`` seconds, at its most after it and at the end, and the growth from
        the first to the last (a fraction): flat is within 0.10."""
        out: dict[str, Any] = {}
        for w in self.samples[-1][1]:
            series = [(t, m[w]) for t, m in self.samples if w in m]
            after = [x for x in series if x[0] >= warm_up] or series[-1:]
            first, last = after[0][1], after[-1][1]
            total = [a + b for _, (a, b) in after]
            out[str(w)] = {
                "warm_mb": round(first[0], 1),
                "max_mb": round(max(a for _, (a, _) in after), 1),
                "end_mb": round(last[0], 1),
                "growth": round(last[0] / first[0] - 1, 3) if first[0] else None,
                "with_mc_warm_mb": round(total[0], 1),
                "with_mc_end_mb": round(total[-1], 1),
                "with_mc_growth": round(total[-1] / total[0] - 1, 3) if total[0] else None,
                "samples": len(after),
            }
        return out


def _cpu_report(cpu: list[float], run: LoadRun) -> dict[str, Any]:
    """A phase's CPU (workers', Monte Carlo processes') in seconds, and per answer (ms):
    the workers' per request the players and the flood sent, the processes' per Monte
    Carlo answer given."""
    sent = sum(sum(o.codes.values()) for o in run.players.values())
    sent += sum(run.flood.codes.values())
    mc = len(run.kind("mc").seconds) + run.flood.codes.get(200, 0)
    return {
        "workers_s": round(cpu[0], 1),
        "mc_s": round(cpu[1], 1),
        "workers_ms_per_request": round(1000 * cpu[0] / sent, 2) if sent else None,
        "mc_ms_per_answer": round(1000 * cpu[1] / mc, 1) if mc else None,
    }


def summary(run: LoadRun) -> dict[str, Any]:
    """The figures of a phase: per kind p50/p95/p99 (ms) and counts, and in all."""

    def ms(v: float | None) -> float | None:
        return None if v is None else round(v * 1000, 1)

    kinds = {}
    for name, o in sorted(run.players.items()):
        kinds[name] = {
            "n": sum(o.codes.values()),
            "p50": ms(percentile(o.seconds, 50)),
            "p95": ms(percentile(o.seconds, 95)),
            "p99": ms(percentile(o.seconds, 99)),
            "429": o.codes.get(429, 0),
            "503": o.codes.get(503, 0),
            "errors": o.errors + o.no_retry_after,
            "failures": o.failures,
        }
    quick = run.quick_seconds()
    return {
        "kinds": kinds,
        "quick_p50": ms(percentile(quick, 50)),
        "quick_p95": ms(percentile(quick, 95)),
        "quick_p99": ms(percentile(quick, 99)),
        "quick_refused": run.quick_refused(),
        "errors": run.errors(),
        "flood": {str(k): v for k, v in sorted(run.flood.codes.items())},
    }


def _phases(
    server: tuple[int, int],
    url: str,
    players: int,
    seconds: float,
    think: float,
    flood: int,
    mc_every: int,
    rounds: int,
) -> tuple[LoadRun, LoadRun, list[float], dict[str, list[float]]]:
    """The players alone and beside the flood, in turn, ``rounds`` times (the machine's
    other jobs then touch both alike): the two runs, the load average (1 min) at the
    start and after each phase, and the server's CPU seconds in each (its workers',
    their Monte Carlo processes'). ``server``: its process id and its workers."""
    alone, flooded = LoadRun(), LoadRun()
    load = [os.getloadavg()[0]]
    cpu = {"alone": [0.0, 0.0], "flooded": [0.0, 0.0]}
    for _ in range(rounds):
        for phase, run, n in (("alone", alone, 0), ("flooded", flooded, flood)):
            before = _server_cpu(*server)
            asyncio.run(run_load(url, players, seconds / rounds, think, n, mc_every, run))
            after = _server_cpu(*server)
            cpu[phase] = [c + b - a for c, a, b in zip(cpu[phase], before, after, strict=True)]
            load.append(os.getloadavg()[0])
    return alone, flooded, load, cpu


def _met(a: dict[str, Any], f: dict[str, Any], ratio: float | None) -> bool:
    """Whether the figures meet the targets (``TARGETS``)."""
    return bool(
        a["quick_p95"] is not None
        and a["quick_p95"] <= 100
        and (a["quick_p99"] or 0) <= 500
        and a["quick_refused"] == 0
        and f["quick_refused"] == 0
        and ratio is not None
        and ratio <= 1.5
        and a["errors"] == 0
        and f["errors"] == 0
    )


def web_load(
    players: int = 200,
    seconds: float = 60,
    think: float = 5.0,
    flood: int = 50,
    workers: int = 2,
    mc_every: int = 20,
    rounds: int = 1,
    runner: Runner | None = None,
) -> Result:
    """The two phases (see the module docstring) against a fresh ``capsa serve``, each
    ``seconds`` in all, taken in turn in ``rounds`` parts (alone, flooded, alone, ...)."""
    try:
        import httpx2  # noqa: F401
    except ImportError:
        raise Unavailable("web_load needs httpx2: pip install 'capsa[test]'") from None
    t0 = time.perf_counter()
    proc, url = _serve(workers)
    try:
        _ready(url, workers)
        started = time.perf_counter() - t0
        watch = MemoryWatch(proc.pid, workers, max(1.0, min(30.0, seconds / 10)))
        alone, flooded, load, cpu = _phases((proc.pid, workers), url, players, seconds,
                                            think, flood, mc_every, rounds)  # fmt: skip
        watch.stop()
        memory = watch.samples[-1][1]
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
    a, f = summary(alone), summary(flooded)
    ratio = f["quick_p95"] / a["quick_p95"] if a["quick_p95"] and f["quick_p95"] else None
    met = _met(a, f, ratio)
    n = max(1, sum(sum(o.codes.values()) for o in alone.players.values()))
    return Result(
        name="web_load",
        description=f"capsa serve --workers {workers}: {players} players (a request each "
        f"{think:g} s), {seconds:g} s alone, then {seconds:g} s beside a flood of {flood}",
        items=n,
        unit="request",
        median=seconds,
        rate=n / seconds,
        per_item=seconds / n,
        rounds=1,
        first_call=started,
        threads=workers,
        extra={
            "targets": TARGETS,
            "targets_met": met,
            "players": players,
            "workers": workers,
            "alone": a,
            "flooded": f,
            "flood_ratio": ratio,
            "load_average": [round(v, 2) for v in load],
            # the server's own cost, whatever the machine's load: CPU ms per request
            # answered (the workers), and per Monte Carlo answer (their processes)
            "cpu": {"alone": _cpu_report(cpu["alone"], alone)}
            | {"flooded": _cpu_report(cpu["flooded"], flooded)},
            "worker_memory_mb": [round(own, 1) for own, _ in memory.values()],
            "mc_memory_mb": [round(mc, 1) for _, mc in memory.values()],
            # flat after the first fifth of the run (at most a minute): its warm-up
            "memory": watch.report(min(60.0, 2 * seconds / 5)),
        },
    )
