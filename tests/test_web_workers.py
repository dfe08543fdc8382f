"""`capsa serve --workers N` as a user starts it: worker processes behind one socket,
a dead worker replaced, SIGTERM draining the answers under way, the public mode's
options checked (docs/serve.md, docs/deploy.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2 as httpx

from tests.web_server import as_shipped, capsa_command, serve

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


def _workers(pid: int) -> list[int]:
    """The worker processes of the server ``pid`` (uvicorn spawns them)."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in _read(task / "children").split():
            if "spawn_main" in _read(Path(f"/proc/{child}/cmdline")):
                out.append(int(child))
    return sorted(out)


def _read(path: Path) -> str:
    """A /proc file's text; empty once its thread or process has ended."""
    try:
        return path.read_text(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _until(check, seconds: float = 300):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_workers_serve_a_dead_one_is_replaced_and_sigterm_drains():
    s = serve("--workers", "2", env=as_shipped())
    try:
        ready = httpx.get(s.url + "healthz", timeout=300)
        assert ready.status_code == 200 and ready.json() == {"status": "ready"}
        first = _until(lambda: (w := _workers(s.proc.pid)) and len(w) == 2 and w)
        os.kill(first[0], signal.SIGKILL)
        again = _until(lambda: (w := _workers(s.proc.pid)) and len(w) == 2 and w != first and w)
        assert first[0] not in again and first[1] in again
        assert httpx.get(s.url + "healthz", timeout=300).status_code == 200
        answered: dict[str, object] = {}

        def ask() -> None:
            body = {"hand": HAND, "samples": 3_000, "seed": 1}
            res = httpx.post(s.url + "api/solve", json=body, timeout=120)
            answered["res"], answered["at"] = res, time.monotonic()

        def held() -> bool:  # a worker holds it (each scrape reaches one of the two)
            text = httpx.get(s.url + "metrics", timeout=60).text
            return 'capsa_lane_held{lane="slow"} 1.0' in text or "res" in answered

        asker = threading.Thread(target=ask)
        asker.start()
        _until(held, 60)  # SIGTERM while the answer is under way, however busy the machine
        s.proc.send_signal(signal.SIGTERM)
        termed = time.monotonic()
        asker.join(120)
        code = s.proc.wait(120)
    finally:
        s.stop(signal.SIGKILL)
    res = answered["res"]
    assert isinstance(res, httpx.Response)
    # Answered whole after SIGTERM, not stopped: the worker drained it.
    assert answered["at"] > termed
    assert res.status_code == 200, res.text
    assert res.json()["back"] and res.json()["samples"] == 3_000
    assert code in (0, -signal.SIGTERM), code


def _capsa(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*capsa_command(), *args], capture_output=True, text=True, timeout=600, env=dict(os.environ)
    )


def test_the_public_options_are_checked():
    res = _capsa("serve", "--public", "--host", "0.0.0.0", "--port", "0")
    assert res.returncode == 2
    assert res.stderr == (
        "capsa: error: --public on an address others can reach needs --host-name NAME "
        "(the names the server answers to)\n"
    )
    res = _capsa("serve", "--trusted-proxy", "proxy.example", "--port", "0")
    assert res.returncode == 2
    assert res.stderr == (
        "capsa: error: --trusted-proxy 'proxy.example' is not an address or a network "
        "(e.g. 10.0.0.1, 10.0.0.0/8, ::1)\n"
    )


def _nice(pid: int) -> int:
    """A process's nice value (field 19 of /proc/PID/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[16])


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return state[state.rindex(")") + 2] == "Z"


def test_monte_carlo_answers_come_from_processes_below_the_worker():
    from solver import solve

    s = serve(env=as_shipped())  # one worker: the server itself, its processes as shipped
    try:
        assert httpx.get(s.url + "healthz", timeout=300).status_code == 200
        pool = _workers(s.proc.pid)  # its Monte Carlo processes, started before it serves
        assert len(pool) == (os.cpu_count() or 1), pool
        assert all(_nice(p) == min(19, _nice(s.proc.pid) + 19) for p in pool)
        assert all(os.sched_getscheduler(p) == os.SCHED_IDLE for p in pool)
        body = {"hand": HAND, "samples": 500, "seed": 7}
        res = httpx.post(s.url + "api/solve", json=body, timeout=120)
        assert res.status_code == 200, res.text
        mine = solve(HAND, samples=500, seed=7).to_dict()
        assert {k: res.json()[k] for k in mine} == mine  # the same answer, from a process
        quick = httpx.post(s.url + "api/solve", json={**body, "policy": "field"}, timeout=60)
        assert quick.status_code == 200
        os.kill(pool[0], signal.SIGKILL)  # a process dies: the next answer has a new one
        _until(lambda: _gone(pool[0]))  # its first thread a zombie: its others may still end
        res = httpx.post(s.url + "api/solve", json=body, timeout=300)
        said = "".join(s.lines)  # the server's stderr: why a process of its pool ended
        assert res.status_code == 200 and res.json()["ev"] == mine["ev"], res.text + said
        again = _until(lambda: (w := _workers(s.proc.pid)) and pool[0] not in w and w)
        s.proc.send_signal(signal.SIGKILL)  # the worker dies: its processes end themselves
        s.proc.wait(30)
        _until(lambda: all(_gone(p) for p in again), 30)
    finally:
        s.stop(signal.SIGKILL)


def test_a_process_is_ending_once_its_first_thread_is_a_zombie():
    """``_ending`` (what ``SolvePool`` asks of each process before it gives it an answer)
    sees a process that has ended but is not reaped; a running one and a pid that is no
    process are not ending."""
    from solver.apps.web.slow import _ending

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not _ending(child.pid)
        child.kill()
        _until(lambda: _gone(child.pid), 30)  # a zombie until it is reaped below
        assert _ending(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not _ending(child.pid)  # reaped: no such process
    assert not _ending(None)
