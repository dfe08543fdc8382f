"""`capsa serve` under load, through its ASGI app: clients told apart (a proxy's word
taken only from a trusted proxy), a flooding client answered 429 with Retry-After while
another client's quick answers all come back, /healthz, /metrics and the public mode
(docs/serve.md: limits, observing it; docs/deploy.md)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading

import httpx2 as httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from solver.apps.web import Limits, create_app, warm
from solver.apps.web.fair import client_of, parse_proxies
from tests.helpers import run_async

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
OTHER = "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c"
SETTING = "7d 5h 4c | 9h 9d 9c 3d 2s | As Ks Qs Js Ts"
OTHER_SET = "2c 3h 4d | 5s 6c 7h 9d 9s | Ah Kd Qc Jd Ts"
MC = {"hand": HAND, "samples": 3000}


@pytest.fixture(scope="module", autouse=True)
def warmed():
    """Compile or load the kernels once, outside any request's time limit."""
    warm(create_app())


def _scope(peer: str, *headers: tuple[str, str]) -> dict:
    return {"client": (peer, 5000), "headers": [(k.encode(), v.encode()) for k, v in headers]}


def test_a_proxy_is_believed_only_when_trusted():
    proxies = parse_proxies(["10.0.0.0/8", "::1"])
    xff = ("X-Forwarded-For", "203.0.113.7, 10.1.2.3")
    assert client_of(_scope("10.0.0.1", xff), proxies) == "203.0.113.7"
    assert client_of(_scope("192.0.2.5", xff), proxies) == "192.0.2.5"  # not a proxy of ours
    assert client_of(_scope("10.0.0.1", xff), ()) == "10.0.0.1"  # no proxy trusted
    # A client's own X-Forwarded-For before the proxy's: the proxy's word counts.
    spoof = ("X-Forwarded-For", "1.2.3.4, 198.51.100.9")
    assert client_of(_scope("10.0.0.1", spoof), proxies) == "198.51.100.9"
    fwd = ("Forwarded", 'for="[2001:db8::1]:4711";proto=https, for=10.0.0.2')
    assert client_of(_scope("::1", fwd), proxies) == "2001:db8::1"
    assert client_of(_scope("::1", ("Forwarded", "for=192.0.2.60:80")), proxies) == "192.0.2.60"
    with pytest.raises(ValueError, match="--trusted-proxy 'proxy.example' is not an address"):
        parse_proxies(["proxy.example"])


async def _flood_and_play(app, flood: list[dict], quick: list[tuple[str, dict]], players=1):
    """The flood (one client, 127.0.0.9) and quick requests from other clients
    (127.0.0.2, ...) sent at once: the flood's answers, the players' answers."""

    def client(address: str) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=app, client=(address, 4000))
        return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", timeout=120)

    flooder = client("127.0.0.9")
    others = [client(f"127.0.0.{2 + i}") for i in range(players)]
    try:
        sent = [flooder.post("/api/solve", json=b) for b in flood]
        sent += [others[i % players].post(p, json=b) for i, (p, b) in enumerate(quick)]
        answers = await asyncio.gather(*sent)
    finally:
        for c in (flooder, *others):
            await c.aclose()
    return answers[: len(flood)], answers[len(flood) :]


QUICK = [
    ("/api/solve", {"hand": HAND, "policy": "field"}),
    ("/api/rows", {"settings": [SETTING]}),
    ("/api/check", {"hand": OTHER, "policy": "field", "played": OTHER_SET}),
    ("/api/table", {"hand": HAND, "played": SETTING, "seed": 1}),
    ("/api/natural", {"hand": HAND}),
    ("/api/deal", {"seed": 5, "rules": "capsa"}),
]  # fmt: skip


def test_a_flooding_client_is_told_to_slow_down_and_the_others_are_answered():
    app = create_app(limits=Limits(workers=1, pending=8))  # each client: 4 places a lane
    flood, played = run_async(_flood_and_play(app, [MC] * 12, QUICK, players=3))
    codes = [a.status_code for a in flood]
    assert codes.count(429) >= 8 and codes.count(200) >= 1, codes
    assert set(codes) <= {200, 429}
    for a in flood:
        if a.status_code == 429:
            assert int(a.headers["retry-after"]) >= 1
            assert a.json()["error"].startswith("slow down: 4 of your answers of this kind")
    assert [a.status_code for a in played] == [200] * len(played), [a.text for a in played]


def test_a_full_server_answers_503_with_retry_after():
    app = create_app(limits=Limits(workers=1, pending=2, per_client=2))
    flood, played = run_async(_flood_and_play(app, [], [("/api/solve", MC)] * 6, players=6))
    codes = sorted(a.status_code for a in played)
    assert codes == [200, 200, 503, 503, 503, 503]
    assert all(int(a.headers["retry-after"]) >= 1 for a in played if a.status_code == 503)


def _metrics(c: TestClient) -> dict[tuple[str, tuple], float]:
    out = {}
    for family in text_string_to_metric_families(c.get("/metrics").text):
        for s in family.samples:
            out[s.name, tuple(sorted(s.labels.items()))] = s.value
    return out


def test_healthz_and_metrics():
    app = create_app(limits=Limits(workers=1, pending=4))
    with TestClient(app) as c:
        before = c.get("/healthz")
        assert before.status_code == 503 and before.json() == {"status": "starting"}
        assert int(before.headers["retry-after"]) >= 1
        assert _metrics(c)["capsa_ready", ()] == 0
        warm(app)
        assert c.get("/healthz").json() == {"status": "ready"}
        assert c.post("/api/rows", json={"settings": [SETTING]}).status_code == 200
        flood, _ = run_async(_flood_and_play(app, [MC] * 6, []))
        m = _metrics(c)
    assert 429 in [a.status_code for a in flood], [a.text for a in flood]
    assert m["capsa_ready", ()] == 1
    rows = (("endpoint", "/api/rows"), ("status", "200"))
    assert m["capsa_requests_total", rows] == 1
    refused = m["capsa_refused_total", (("lane", "slow"), ("status", "429"))]
    solved = m["capsa_requests_total", (("endpoint", "/api/solve"), ("status", "200"))]
    assert refused >= 1 and refused + solved == 6
    lat = (("endpoint", "/api/rows"), ("lane", "quick"))
    assert m["capsa_request_seconds_count", lat] == 1
    assert m["capsa_lane_held", (("lane", "slow"),)] == 0
    assert m["capsa_lane_limit", (("lane", "quick"),)] == 8 * 4  # QUICK_PLACES times


def test_the_public_mode(caplog):
    app = create_app(public=True, host_names=["capsa.example"])
    host = {"Host": "capsa.example"}
    with (
        TestClient(app, base_url="http://capsa.example") as c,
        caplog.at_level(logging.INFO, logger="capsa.access"),
    ):
        assert c.get("/api/rules").json()["training"] is None  # the page offers no training
        assert c.post("/api/train", json={"rules": "capsa"}).status_code == 403
        assert "training is off" in c.post("/api/train", json={"rules": "capsa"}).json()["error"]
        big = {"rules": "# " + "x" * 20_000}
        assert c.post("/api/rules", json=big).status_code == 413
        assert c.get("/api/rules", headers={"Host": "other.example"}).status_code == 400
        assert c.get("/api/rules", headers={"Host": "127.0.0.1"}).status_code == 400
        assert c.get("/metrics", headers=host).status_code == 404  # a test client: not local
        res = c.post("/api/rows", json={"settings": [SETTING]})
        assert res.status_code == 200
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "capsa.access"]
    assert len(lines) == 8
    assert lines[-1]["path"] == "/api/rows" and lines[-1]["status"] == 200
    assert lines[-1]["lane"] == "quick" and lines[-1]["client"] == "testclient"
    assert all("9h" not in r.getMessage() for r in caplog.records)


def test_behind_a_tls_proxy_the_page_s_https_origin_is_its_own():
    """A trusted proxy's X-Forwarded-Proto makes the page's https origin its own (else
    a browser's request through the proxy is refused as from another origin); from any
    other address the header is not believed."""
    from solver.apps.web.fair import forwarded_scheme

    proxies = parse_proxies(["127.0.0.1"])
    proto = ("X-Forwarded-Proto", "https")
    assert forwarded_scheme(_scope("127.0.0.1", proto), proxies) == "https"
    assert forwarded_scheme(_scope("127.0.0.5", proto), proxies) is None
    fwd = ("Forwarded", "for=192.0.2.1;proto=https")
    assert forwarded_scheme(_scope("127.0.0.1", fwd), proxies) == "https"
    app = create_app(host_names=["capsa.example"], proxies=proxies)
    headers = {
        "Host": "capsa.example",
        "Origin": "https://capsa.example",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-For": "198.51.100.4",
    }

    async def ask(peer: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(peer, 4000))
        async with httpx.AsyncClient(transport=transport, base_url="http://capsa.example") as c:
            return await c.post("/api/rows", json={"settings": [SETTING]}, headers=headers)

    assert run_async(ask("127.0.0.1")).status_code == 200
    assert run_async(ask("127.0.0.5")).status_code == 403


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no thread priorities here")
def test_capsa_serve_runs_the_monte_carlo_lane_below_the_quick_one():
    from solver.apps.web.state import SLOW_NICE

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    own = nice()
    served = create_app(serving=True).state.web.lanes
    quick = served["quick"].executor.submit(nice).result()
    slow = served["slow"].executor.submit(nice).result()
    assert quick == own and slow == min(19, own + SLOW_NICE) and slow > quick or own == 19
    plain = create_app().state.web.lanes  # an app made for tests: one priority
    assert plain["slow"].executor.submit(nice).result() == own
