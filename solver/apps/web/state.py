"""What ``capsa serve``'s app keeps between requests (``WebState``): the rulesets, the
limits, the two lanes of threads (``fair.Lane``), the running answers' stops, the
trainings asked from the page, whether it is ready, its metrics."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from solver.apps.web.api import Limits, RulesCatalog
from solver.apps.web.fair import Lane
from solver.apps.web.training import Trainer, TrainSize

if TYPE_CHECKING:
    from solver.apps.web.observe import Metrics
    from solver.apps.web.slow import SolvePool

__all__ = ["SLOW_NICE", "WebState"]

#: The quick lane holds this many times the places of the slow one (``Limits.pending``):
#: its answers take milliseconds, so a burst waits a little rather than being refused.
QUICK_PLACES = 8
#: How far below the server the slow lane's threads run (``fair.Lane``'s ``nice``) in
#: ``capsa serve`` (``create_app(serving=True)``; an app made for tests keeps one priority).
SLOW_NICE = 10


class WebState:
    """What the app keeps between requests: rulesets, limits, lanes, running stops, and
    the trainings asked from the page."""

    def __init__(
        self,
        catalog: RulesCatalog,
        limits: Limits,
        training: TrainSize | None = None,
        slow_nice: int = 0,
    ) -> None:
        self.catalog = catalog
        self.trainer = Trainer(training or TrainSize())
        self.limits = limits.resolved()
        workers, most = self.limits.workers or 1, self.limits.pending or 1
        share = self.limits.per_client or workers
        self.lanes = {
            "quick": Lane("quick", workers, QUICK_PLACES * most, QUICK_PLACES * share),
            "slow": Lane("slow", workers, most, share, nice=slow_nice),
        }
        #: Set once the kernels and field tables are loaded (``warm``): /healthz.
        self.ready = False
        #: A public server (``--public``): no training from the page, /metrics local only.
        self.public = False
        self.metrics: Metrics | None = None
        #: ``capsa serve``'s Monte Carlo solves, in processes of their own (``slow``).
        self.pool: SolvePool | None = None
        self._stops: set[threading.Event] = set()
        self._lock = threading.Lock()
        #: Set when the server is shutting down: the answers stopped say so.
        self.closing = False

    async def run(
        self,
        lane_name: str,
        fn: Callable[[threading.Event], Any],
        deadline: float,
        who: dict[str, Any] | None = None,
    ):
        """``fn(stop)`` on a lane's thread: ``(result, seconds)``; ``stop`` is set at the
        deadline (a Monte Carlo run then raises Stopped). ``who``: the request's
        ``scope["capsa"]`` (``solver.apps.web.observe``): its client is held to its
        share of the lane (429), and the lane is noted there. 503 when the lane is full
        or the server is shutting down. Work that cannot be stopped (parsing a ruleset) is
        waited for until the deadline (and a tenth of a second), then answered as stopped; it
        holds its place in the lane until it ends."""
        from solver.strategy.threads import Stopped

        lane = self.lanes[lane_name]
        if self.closing:
            raise Stopped
        client = who.get("client") if who is not None else None
        if who is not None:
            who["lane"] = lane_name
        lane.admit(client)  # Refused: 503 the lane is full, 429 this client over its share
        stop = threading.Event()
        t_start = time.monotonic()

        def work() -> tuple[Any, float]:
            from solver.strategy.threads import Stopped

            left = deadline - time.monotonic()
            if left <= 0:
                raise Stopped
            timer = threading.Timer(left, stop.set)
            timer.daemon = True
            timer.start()
            t0 = time.perf_counter()
            try:
                return fn(stop), time.perf_counter() - t0
            finally:
                timer.cancel()

        def release(done: asyncio.Future) -> None:  # on the event loop, when fn ends
            lane.release(client, time.monotonic() - t_start)
            with self._lock:
                self._stops.discard(stop)
            if not done.cancelled():
                done.exception()  # retrieved: an answer given up on logs nothing

        with self._lock:
            self._stops.add(stop)
        future = asyncio.wrap_future(lane.executor.submit(work))
        future.add_done_callback(release)
        wait = max(0.0, deadline - time.monotonic()) + 0.1  # a run stopped says so itself
        try:
            return await asyncio.wait_for(asyncio.shield(future), wait)
        except TimeoutError:
            stop.set()
            raise Stopped from None

    def stop_all(self) -> None:
        """Stop every running solve: the server is shutting down (their answers say so)."""
        self.closing = True
        with self._lock:
            for stop in self._stops:
                stop.set()
        if self.pool is not None:
            self.pool.close()

    def on_signals(self) -> None:
        """Chain the server's own SIGINT and SIGTERM handlers (uvicorn's, in place when
        the app starts): SIGTERM drains (new answers are refused, 503, while the running
        ones finish within uvicorn's graceful time), SIGINT (Ctrl-C) stops the running
        answers too. Only on the main thread, where signals are handled."""
        import signal

        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            prev = signal.getsignal(sig)

            def handler(got: int, frame: Any, prev: Any = prev) -> None:
                if got == signal.SIGINT:
                    self.stop_all()
                else:
                    self.closing = True
                if callable(prev):
                    prev(got, frame)

            signal.signal(sig, handler)

    def close(self) -> None:
        self.stop_all()
        self.trainer.close()
        for lane in self.lanes.values():
            lane.executor.shutdown(wait=False, cancel_futures=True)
