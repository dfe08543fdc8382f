"""Serving the app with uvicorn: bind first (a busy port fails at once), warm up, serve."""

from __future__ import annotations

import socket

from solver.apps.web.api import Limits
from solver.apps.web.app import create_app, warm
from solver.apps.web.guard import parse_ip
from solver.engine.rules import Rules


class Server:
    """``capsa serve``: a bound socket, the app, and uvicorn to run it.

    ``port`` 0 takes any free port (``url`` says which). Whether the server is on this
    machine only is decided by the address it is bound to, not by how ``host`` is spelt;
    such a server answers only requests addressed to this machine (``create_app``'s
    ``local``), and its ``url`` names it so that they are.
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
        bound, self.port = sock.getsockname()[:2]
        self.address = parse_ip(str(bound).split("%")[0])
        local = self.address is not None and self.address.is_loopback
        self.app = create_app(rules, limits, local=local)
        self.public = not local

    @property
    def url(self) -> str:
        """Where the page is: ``localhost`` for a server on every address (or when
        ``--host localhost``), else the bound address itself (``127.1`` is printed
        ``127.0.0.1``), which the Host check accepts."""
        ip = self.address
        if ip is None or ip.is_unspecified or self.host.rstrip(".").lower() == "localhost":
            host = "localhost"
        elif ip.version == 6:
            host = f"[{ip}]"
        else:
            host = str(ip)
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
                state.stop_all()  # the running answers say the server is shutting down
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
