"""Serving the app with uvicorn: bind first (a busy port fails at once), warm up, serve."""

from __future__ import annotations

import ipaddress
import socket

from solver.apps.web.api import Limits
from solver.apps.web.app import create_app, warm
from solver.engine.rules import Rules

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Server:
    """``capsa serve``: a bound socket, the app, and uvicorn to run it.

    ``port`` 0 takes any free port (``url`` says which). A server on a loopback address
    answers only requests addressed to localhost (see ``create_app``'s
    ``allowed_hosts``).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        rules: Rules | str | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.host = host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(infos[0][4])
            sock.listen(128)
        except OSError:
            sock.close()
            raise
        self.socket = sock
        self.port = sock.getsockname()[1]
        local = is_loopback(host)
        hosts = ["localhost", "127.0.0.1", "[::1]", "::1"] if local else None
        self.app = create_app(rules, limits, allowed_hosts=hosts)
        self.public = not local

    @property
    def url(self) -> str:
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = "localhost"
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def warm(self) -> None:
        """Load the kernels and field tables (see ``solver.apps.web.app.warm``)."""
        warm(self.app)

    def run(self) -> None:
        """Serve until Ctrl-C (or SIGTERM): running solves are stopped, then it returns
        and the signal is raised again (KeyboardInterrupt for Ctrl-C)."""
        import uvicorn

        state = self.app.state.web

        class _Uvicorn(uvicorn.Server):
            def handle_exit(self, sig, frame):  # noqa: ANN001, ANN202 - uvicorn's signature
                state.stop_all()
                super().handle_exit(sig, frame)

        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=5,
        )
        try:
            _Uvicorn(config).run(sockets=[self.socket])
        finally:
            self.socket.close()
