"""solver.apps.batch.run: chunks, the pump (order, signals, dead workers), run_batch."""

from __future__ import annotations

import io
import os
import signal
from concurrent.futures import Future
from pathlib import Path

import pytest

from solver.apps.batch import run as U
from solver.apps.batch.errors import BatchError, BatchFailed
from solver.apps.batch.outputs import Output
from solver.apps.batch.reading import BadLine
from solver.apps.batch.work import ChunkResult
from solver.engine.layout import MAX_SAMPLES
from solver.engine.rules import load_rules
from tests.helpers import batch_job

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
JOB = batch_job(rules=load_rules("chinese-1-6"), policy="field", seed=0, players=4, fmt="jsonl")


class Died(Exception):
    pass


class Fake:
    """A backend whose chunks finish in the order ``order`` gives (by chunk index);
    ``die`` is the index of a chunk whose worker dies; ``signal_at`` sends this process
    a signal when that chunk is submitted."""

    died = (Died,)

    def __init__(self, order=None, die=None, signal_at=None, slots=2):
        self.slots = slots
        self.order, self.die, self.signal_at = order, die, signal_at
        self.futures: list[Future] = []
        self.closed: bool | None = None

    def submit(self, job, items):
        index = len(self.futures)
        fut: Future = Future()
        fut.index = index
        fut.items = items
        self.futures.append(fut)
        if self.signal_at is not None and index == self.signal_at[0]:
            os.kill(os.getpid(), self.signal_at[1])
        return fut

    def wait(self, futures, timeout):
        futures = list(futures)
        order = self.order or range(len(self.futures))
        for index in order:
            fut = self.futures[index] if index < len(self.futures) else None
            if fut is not None and fut in futures and not fut.done():
                if index == self.die:
                    fut.set_exception(Died())
                else:
                    line = fut.items[-1][0]
                    fut.set_result(ChunkResult(f"{line}\n", len(fut.items), [], line))
                return {fut}
        return set()

    def close(self, cancel):
        self.closed = cancel


def writer(sink=None, path: Path | None = None) -> U._Writer:
    sink = sink if sink is not None else io.StringIO()
    return U._Writer(Output(sink, path, ""), None, "", U.BatchResult(), None, None, None, 0.0)


def pieces(n: int):
    return ([(i, b"x")] for i in range(1, n + 1))


def test_chunks():
    lines = [(n, b"x") for n in range(1, 11)]
    assert [len(c) for c in U.chunks(iter(lines), 3)] == [3, 3, 3, 1]
    big = [(n, b"x") for n in range(1, 5001)]
    # lines a resumed run only re-checks go 4,096 at a time, then the usual size
    sizes = [len(c) for c in U.chunks(iter(big), 1000, skip_upto=4500)]
    assert sizes == [4096, 904]
    assert list(U.chunks(iter([]), 3)) == []


def test_pump_writes_in_input_order_whatever_finishes_first():
    w = writer()
    backend = Fake(order=[2, 0, 3, 1, 4, 5])
    assert U.pump(JOB, pieces(6), w, lambda: backend) is None
    assert w.out.sink.getvalue() == "1\n2\n3\n4\n5\n6\n"
    assert (w.result.hands, w.done_line, backend.closed) == (6, 6, False)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_stops_after_the_chunk_being_written(sig):
    number = getattr(signal, sig)
    before = signal.getsignal(number)
    w = writer()
    backend = Fake(signal_at=(2, number))
    assert U.pump(JOB, pieces(10), w, lambda: backend) == number
    assert w.out.sink.getvalue() == "1\n2\n3\n"  # whole records, in order
    assert backend.closed is False and signal.getsignal(number) is before


def test_a_second_signal_stops_at_once_and_still_returns():
    class Twice(Fake):
        def submit(self, job, items):
            if len(self.futures) == 1:
                os.kill(os.getpid(), signal.SIGTERM)
                os.kill(os.getpid(), signal.SIGINT)  # raises KeyboardInterrupt here
            return super().submit(job, items)

    w = writer()
    backend = Twice()
    assert U.pump(JOB, pieces(10), w, lambda: backend) == signal.SIGTERM
    assert backend.closed is True  # dropped what was in flight


def test_an_ignored_signal_stays_ignored():
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        w = writer()
        assert U.pump(JOB, pieces(4), w, lambda: Fake(signal_at=(1, signal.SIGHUP))) is None
        assert w.result.hands == 4
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_a_dead_worker_fails_the_run_keeping_what_is_written(tmp_path):
    w = writer(path=tmp_path / "out.jsonl")
    backend = Fake(die=2)
    with pytest.raises(BatchFailed) as info:
        U.pump(JOB, pieces(6), w, lambda: backend)
    assert str(info.value) == (
        "a worker process died mid-batch; the records up to line 2 are kept; "
        "run again with --resume to continue"
    )
    assert w.out.sink.getvalue() == "1\n2\n" and backend.closed is True


def test_a_failed_write_is_batch_failed(tmp_path):
    class Full(io.StringIO):
        def flush(self):
            raise OSError(28, "No space left on device")

    w = writer(Full(), tmp_path / "out.jsonl")
    with pytest.raises(BatchFailed, match=r"cannot write '.*out.jsonl': No space left"):
        U.pump(JOB, pieces(3), w, lambda: Fake())
    w = writer(Full())
    with pytest.raises(BatchFailed, match="^cannot write to stdout: No space left"):
        U.pump(JOB, pieces(3), w, lambda: Fake())


def test_writer_reports_bad_lines_and_progress():
    seen: list = []
    errs = io.StringIO()
    w = U._Writer(
        Output(io.StringIO(), None, ""),
        errs,
        "'e'",
        U.BatchResult(),
        seen.append,
        lambda done, total=None, **kw: seen.append((done, total, kw["detail"])),
        9,
        0.0,
    )
    w.write(ChunkResult("r\n", 1, [BadLine(2, "i", "why", "t")], 3))
    assert seen[0] == BadLine(2, "i", "why", "t")
    done, total, p = seen[1]
    assert (done, total) == (3, 9)
    assert isinstance(p, U.BatchProgress) and (p.line, p.bad) == (3, 1)
    assert errs.getvalue() == '{"line": 2, "id": "i", "reason": "why", "text": "t"}\n'


@pytest.mark.parametrize(
    ("kw", "why"),
    [
        ({"samples": MAX_SAMPLES + 1}, f"samples must be from 1 to {MAX_SAMPLES:,}"),
        ({"samples": 0}, "samples must be from 1"),
        ({"policy": "best"}, "policy must be one of mc, field, greedy, got 'best'"),
        ({"fmt": "xml"}, "unknown output format 'xml'"),
        ({"resume": True, "output": None}, "--resume needs an output file"),
    ],
)
def test_run_batch_refuses_before_any_work(tmp_path, kw, why):
    src = tmp_path / "in.txt"
    src.write_text(HAND + "\n")
    out = tmp_path / "out.jsonl"
    with pytest.raises(BatchError, match=why):
        U.run_batch(src, kw.pop("output", out), workers=1, **kw)
    assert not out.exists()


def test_run_batch_in_process(tmp_path):
    src = tmp_path / "in.txt"
    src.write_bytes(f"a: {HAND}\r\rb: As\r".encode())
    out = tmp_path / "out.jsonl"
    bad: list[BadLine] = []
    res = U.run_batch(src, out, policy="field", workers=1, on_bad=bad.append)
    assert (res.hands, res.bad, res.interrupted, res.stopped_by) == (1, 1, False, None)
    assert [b.line for b in bad] == [3] and out.read_text().startswith('{"line":1,"id":"a",')
