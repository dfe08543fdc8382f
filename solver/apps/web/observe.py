"""Watching ``capsa serve``: who asks, what it costs, whether it is ready.

- ``Front``, the outermost ASGI middleware: it names the request's client
  (``fair.client_of``: the address, or the one a trusted proxy forwarded) in
  ``scope["capsa"]`` for the lanes' shares, takes the scheme a trusted proxy forwarded
  (``https``: the origin check then compares the page's own origin), times the
  request, counts it in the metrics, and, when asked (``--public``), logs one JSON line
  per request (time, client, method, path, status, milliseconds, lane; never a body,
  so never a hand).
- ``GET /healthz``: 200 ``{"status": "ready"}`` once the kernels and field tables are
  loaded (``app.warm``), 503 ``{"status": "starting"}`` with ``Retry-After`` before.
- ``GET /metrics``: Prometheus' text format (``prometheus-client``): requests by
  endpoint and status, latencies by endpoint and lane, each lane's requests held and
  its limits, refusals (429, 503) by lane, the in-memory caches' sizes. On a public
  server it answers only clients on this machine (404 to the rest).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from solver.apps.web.fair import Network, client_of, forwarded_scheme
from solver.apps.web.guard import ASGIApp, Message, Receive, Scope, Send, parse_ip

if TYPE_CHECKING:
    from solver.apps.web.state import WebState

access_log = logging.getLogger("capsa.access")

#: The paths the metrics name (any other: ``other``), so a client cannot make labels.
KNOWN = (
    "/",
    "/healthz",
    "/metrics",
    "/rules",
    "/api/solve",
    "/api/check",
    "/api/natural",
    "/api/rows",
    "/api/table",
    "/api/deal",
    "/api/rules",
    "/api/train",
)
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30)


def endpoint_of(path: str) -> str:
    if path in KNOWN:
        return path
    for prefix, name in (
        ("/api/train/", "/api/train/{job}"),
        ("/rules/", "/rules/{game}"),
        ("/static/", "/static"),
    ):
        if path.startswith(prefix):
            return name
    return "other"


class Metrics:
    """The app's own Prometheus registry (one per app, so tests and workers never share)."""

    def __init__(self, state: WebState) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self.registry = CollectorRegistry()
        self.requests = Counter(
            "capsa_requests",
            "Requests answered, by endpoint and status",
            ["endpoint", "status"],
            registry=self.registry,
        )
        self.seconds = Histogram(
            "capsa_request_seconds",
            "Time from a request's arrival to its answer, by endpoint and lane",
            ["endpoint", "lane"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.refused = Counter(
            "capsa_refused",
            "Requests refused for load: 429 (a client over its share), 503 (full), by lane",
            ["status", "lane"],
            registry=self.registry,
        )
        self.registry.register(_LaneCollector(state))

    def observe(self, endpoint: str, lane: str, status: int, seconds: float) -> None:
        self.requests.labels(endpoint, str(status)).inc()
        self.seconds.labels(endpoint, lane).observe(seconds)
        if status in (429, 503) and endpoint.startswith("/api/"):
            self.refused.labels(str(status), lane).inc()

    def text(self) -> bytes:
        from prometheus_client import generate_latest

        return generate_latest(self.registry)


class _LaneCollector:
    """Each lane's requests held (its queue, solving or waiting), clients holding a
    place, and limits, read when scraped; the in-memory caches' sizes."""

    def __init__(self, state: WebState) -> None:
        self.state = state

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        from solver.engine.caches import caches

        held = GaugeMetricFamily(
            "capsa_lane_held", "Requests a lane holds, solving or waiting", labels=["lane"]
        )
        clients = GaugeMetricFamily(
            "capsa_lane_clients", "Clients holding a place in a lane", labels=["lane"]
        )
        most = GaugeMetricFamily("capsa_lane_limit", "Most requests a lane holds", labels=["lane"])
        for name, lane in self.state.lanes.items():
            held.add_metric([name], lane.held)
            clients.add_metric([name], len(lane.by_client))
            most.add_metric([name], lane.most)
        yield from (held, clients, most)
        ready = GaugeMetricFamily("capsa_ready", "1 once the kernels and tables are loaded")
        ready.add_metric([], 1 if self.state.ready else 0)
        yield ready
        sizes = GaugeMetricFamily("capsa_cache_entries", "Entries in a cache", labels=["cache"])
        for name, cache in caches().items():
            sizes.add_metric([name], len(cache))
        yield sizes


class Front:
    """The outermost middleware (see the module docstring)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        state: WebState,
        proxies: Sequence[Network] = (),
        log_requests: bool = False,
    ) -> None:
        self.app = app
        self.state = state
        self.proxies = tuple(proxies)
        self.log_requests = log_requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        who: dict[str, Any] = {"client": client_of(scope, self.proxies), "lane": "none"}
        scope["capsa"] = who
        scheme = forwarded_scheme(scope, self.proxies)
        if scheme in ("http", "https"):  # the page's origin behind a TLS proxy: https
            scope["scheme"] = scheme
        status = [500]

        async def sender(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sender)
        finally:
            seconds = time.perf_counter() - t0
            endpoint = endpoint_of(scope["path"])
            metrics = self.state.metrics
            if metrics is not None:
                metrics.observe(endpoint, who["lane"], status[0], seconds)
            if self.log_requests:
                access_log.info(
                    json.dumps(
                        {
                            "time": round(time.time(), 3),
                            "client": who["client"],
                            "method": scope["method"],
                            "path": endpoint,
                            "status": status[0],
                            "ms": round(seconds * 1000, 1),
                            "lane": who["lane"],
                        }
                    )
                )


async def healthz(request: Request) -> Response:
    state: WebState = request.app.state.web
    if state.ready and not state.closing:
        return JSONResponse({"status": "ready"})
    status = "stopping" if state.closing else "starting"
    return JSONResponse({"status": status}, status_code=503, headers={"Retry-After": "5"})


async def metrics(request: Request) -> Response:
    state: WebState = request.app.state.web
    who = request.scope.get("capsa") or {}
    ip = parse_ip(str(who.get("client", "")))
    if state.metrics is None or (state.public and (ip is None or not ip.is_loopback)):
        return JSONResponse({"error": "no such page: /metrics"}, status_code=404)
    return Response(state.metrics.text(), media_type="text/plain; version=0.0.4; charset=utf-8")


def log_requests_to_stderr() -> None:
    """Send the request log (``capsa.access``, one JSON line a request) to stderr."""
    if not access_log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        access_log.addHandler(handler)
        access_log.setLevel(logging.INFO)
        access_log.propagate = False
