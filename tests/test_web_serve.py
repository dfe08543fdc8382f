"""`capsa serve` as a user starts it: a real process on a real port."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys

import httpx2 as httpx
import pytest

from tests.web_server import capsa_command, serve

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


def capsa(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*capsa_command(), *args], capture_output=True, text=True, timeout=600)


@pytest.fixture
def served(server):  # noqa: ANN001, ANN201 - the run's server fixture (tests/conftest.py)
    """The test process's `capsa serve` (tests/web_fixtures.py), started as a test of its
    own would start it: what it said when it started and how it answers."""
    return server


def test_it_says_where_it_listens_and_answers_as_the_cli_does(served):
    assert served.url.startswith("http://127.0.0.1:")
    said = "".join(served.lines)
    assert "capsa: warming up (kernels and field tables)\n" in said
    assert f"capsa: serving on {served.url} (Ctrl-C stops)\n" in said
    assert httpx.get(served.url).status_code == 200
    body = {
        "hand": HAND,
        "seed": 4,
        "samples": 800,
        "played": "7d 5h 4c | 9h 9d 9c 3d 2s | As Ks Qs Js Ts",
    }
    got = httpx.post(served.url + "api/solve", json=body, timeout=120)
    cli = capsa("solve", HAND, "--seed", "4", "--samples", "800", "--played", body["played"],
                "--format", "json")  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert got.status_code == 200 and got.json() == json.loads(cli.stdout)
    bad = httpx.post(served.url + "api/solve", json={"hand": HAND[:-3]})
    cli_bad = capsa("solve", HAND[:-3])
    assert cli_bad.returncode == 2
    assert bad.status_code == 422
    assert f"capsa: error: {bad.json()['error']}" == cli_bad.stderr.strip()


def test_on_localhost_it_answers_only_requests_for_localhost(served):
    port = served.url.rsplit(":", 1)[1].strip("/")
    assert httpx.get(served.url + "api/rules").status_code == 200
    assert httpx.get(f"http://localhost:{port}/api/rules").status_code == 200
    rebound = httpx.get(served.url + "api/rules", headers={"Host": f"evil.example:{port}"})
    assert rebound.status_code == 400


def test_ctrl_c_stops_it():
    s = serve()
    code, said = s.stop(signal.SIGINT)
    assert code == 130, said
    assert said.strip().endswith("capsa: interrupted") and "Traceback" not in said


def test_a_busy_port_is_a_one_line_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        res = capsa("serve", "--port", str(port))
    assert res.returncode == 2
    assert (
        res.stderr
        == f"capsa: error: cannot listen on 127.0.0.1 port {port}: Address already in use\n"
    )


def test_a_bad_ruleset_is_a_one_line_error():
    res = capsa("serve", "--rules", "chinse-1-6")
    assert res.returncode == 2
    assert res.stderr.startswith("capsa: error: unknown preset 'chinse-1-6' (did you mean")
    assert len(res.stderr.strip().splitlines()) == 1


def test_without_the_web_extra_it_says_what_to_install():
    code = (
        "import sys; sys.modules['starlette'] = None; sys.argv = ['capsa', 'serve'];"
        "from solver.cli import main; main()"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.startswith(
        "capsa: error: capsa serve needs the web extra: pip install 'capsa[web]'"
    )


def test_help_names_every_option_and_imports_no_web_code():
    res = capsa("serve", "--help")
    assert res.returncode == 0
    for opt in ("--host", "--port", "--rules", "--open"):
        assert opt in res.stdout
    code = "import sys; from solver.cli import app; assert 'starlette' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
