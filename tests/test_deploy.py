"""docs/deploy.md's recipe, run: `capsa serve --public` behind Caddy with TLS, with the
repository's docs/deploy/Caddyfile (skipped where Caddy is not installed: it is not a
Python package, and the project installs none of the system's)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time

import httpx2 as httpx
import pytest

from tests.web_server import serve

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CADDYFILE = os.path.join(ROOT, "docs", "deploy", "Caddyfile")
SETTING = "7d 5h 4c | 9h 9d 9c 3d 2s | As Ks Qs Js Ts"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.skipif(shutil.which("caddy") is None, reason="Caddy is not installed")
def test_behind_caddy_with_tls(tmp_path):
    s = serve("--public", "--host-name", "localhost", "--trusted-proxy", "127.0.0.1",
              "--workers", "2")  # fmt: skip
    https = _free_port()
    env = dict(os.environ)
    env.update(
        CAPSA_SITE=f"localhost:{https}",
        CAPSA_HTTPS_PORT=str(https),
        CAPSA_HTTP_PORT=str(_free_port()),
        CAPSA_UPSTREAM=s.url.removeprefix("http://").strip("/"),
        CAPSA_CADDY_ADMIN="off",
        HOME=str(tmp_path),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    log = open(tmp_path / "caddy.log", "w")  # noqa: SIM115 - closed with the process
    caddy = subprocess.Popen(
        ["caddy", "run", "--config", CADDYFILE, "--adapter", "caddyfile"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    site = f"https://localhost:{https}"
    transport = httpx.HTTPTransport(local_address="127.0.0.7", verify=False)
    try:
        with httpx.Client(transport=transport, base_url=site, timeout=300) as c:
            deadline = time.monotonic() + 300
            while True:
                try:
                    ready = c.get("/healthz")
                    if ready.status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, (tmp_path / "caddy.log").read_text()
                time.sleep(0.5)
            assert ready.json() == {"status": "ready"}
            # A browser's request from the page's own https origin is served: the proxy
            # said https (X-Forwarded-Proto) and capsa believes its proxy.
            own = {"Origin": site}
            rows = c.post("/api/rows", json={"settings": [SETTING]}, headers=own)
            assert rows.status_code == 200, rows.text
            assert c.get("/metrics").status_code == 404  # stopped at the proxy
            assert c.post("/api/train", json={"rules": "capsa"}).status_code == 403
            assert c.post("/api/rules", json={"rules": "#" * 20_000}).status_code == 413
    finally:
        caddy.terminate()
        caddy.wait(30)
        log.close()
        code, said = s.stop()
    # capsa's own log: one JSON line a request, the client the proxy forwarded.
    lines = [json.loads(x) for x in said.splitlines() if x.startswith("{")]
    rows_line = next(x for x in lines if x["path"] == "/api/rows")
    assert rows_line["client"] == "127.0.0.7" and rows_line["status"] == 200
    assert SETTING.split()[0] not in said.split("serving on")[1]
