"""Serving the app with uvicorn: bind first (a busy port fails at once), warm up, serve.

One process (``--workers 1``, the default) serves the app made here, warmed before it
listens. ``--workers N`` runs uvicorn's own supervisor (``uvicorn.supervisors.
Multiprocess``): N worker processes share the one bound socket (the kernel hands each
connection to one of them), a worker that dies is replaced, SIGTERM reaches every
worker, which drains. Each worker makes its app from ``CAPSA_SERVE_WORKER`` (``worker``)
and warms it before it serves; the parent warms first, so the kernels and field tables
are compiled and trained once, on disk, before any worker reads them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
from dataclasses import dataclass

from solver.apps.web.api import Limits
from solver.apps.web.app import create_app, warm
from solver.apps.web.guard import parse_ip
from solver.apps.web.observe import log_requests_to_stderr
from solver.engine.rules import Rules

#: The environment variable that tells each worker of ``--workers`` its settings.
WORKER_ENV = "CAPSA_SERVE_WORKER"


@dataclass(frozen=True)
class ServeOptions:
    """``workers``: processes (see the module docstring); ``rules_source``: the
    ``--rules`` text, which each worker reads again; ``public``, ``host_names``,
    ``proxies`` (``--trusted-proxy`` values): as ``create_app`` takes them."""

    workers: int = 1
    rules_source: str | None = None
    public: bool = False
    host_names: tuple[str, ...] = ()
    proxies: tuple[str, ...] = ()


class Server:
    """``capsa serve``: a bound socket, the app, and uvicorn to run it.

    ``port`` 0 takes any free port (``url`` says which). Whether the server is on this
    machine only is decided by the address it is bound to, not by how ``host`` is spelt;
    such a server answers only requests addressed to this machine (``create_app``'s
    ``local``), and its ``url`` names it so that they are. ``options``: see
    :class:`ServeOptions`.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        rules: Rules | str | None = None,
        limits: Limits | None = None,
        options: ServeOptions | None = None,
    ) -> None:
        from solver.apps.web.fair import parse_proxies

        self.host = host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(infos[0][4])
            sock.listen(1024)
        except OSError:
            sock.close()
            raise
        self.socket = sock
        bound, self.port = sock.getsockname()[:2]
        self.address = parse_ip(str(bound).split("%")[0])
        local = self.address is not None and self.address.is_loopback
        self.limits = limits or Limits()
        o = options or ServeOptions()
        self.workers = o.workers
        self.log_requests = o.public
        self.settings = {
            "rules": o.rules_source,
            "limits": dataclasses.asdict(self.limits),
            "local": local,
            "public": o.public,
            "host_names": list(o.host_names),
            "proxies": list(o.proxies),
        }
        self.app = create_app(
            rules,
            self.limits,
            local=local,
            public=o.public,
            host_names=o.host_names,
            proxies=parse_proxies(o.proxies),
            serving=True,
        )
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
        """Load the kernels and field tables (see ``solver.apps.web.app.warm``); with one
        worker, start its Monte Carlo processes too (``solver.apps.web.slow``), so that
        it serves at once when it says where it listens."""
        warm(self.app)
        pool = self.app.state.web.pool
        if self.workers <= 1 and pool is not None:
            pool.start()

    def run(self) -> None:
        """Serve until Ctrl-C or SIGTERM. Ctrl-C stops the running solves, then it
        returns and the signal is raised again (KeyboardInterrupt); SIGTERM refuses new
        answers (503) and lets the running ones finish (at most the time limit) first."""
        import uvicorn

        if self.log_requests:
            log_requests_to_stderr()
        options = {
            "log_level": "warning",
            "access_log": False,
            "lifespan": "on",
            "proxy_headers": False,  # the app reads them, from --trusted-proxy only
            "timeout_graceful_shutdown": int(self.limits.seconds) + 2,
        }
        try:
            if self.workers <= 1:
                uvicorn.Server(uvicorn.Config(self.app, **options)).run(sockets=[self.socket])
                return
            from uvicorn.supervisors import Multiprocess

            os.environ[WORKER_ENV] = json.dumps(self.settings)
            config = uvicorn.Config(
                "solver.apps.web.worker:make_app", factory=True, workers=self.workers, **options
            )
            Multiprocess(config, sockets=[self.socket]).run()
        finally:
            self.socket.close()
