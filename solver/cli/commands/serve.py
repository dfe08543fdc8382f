"""``capsa serve``: the local web page and its JSON API."""

from __future__ import annotations

from typing import Annotated

import typer

from solver.cli.options import RulesOpt
from solver.cli.output import consoles, fail


def serve(
    ctx: typer.Context,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (default: this machine only).")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free port).")
    ] = 8000,
    rules: RulesOpt = None,
    open_page: Annotated[
        bool, typer.Option("--open", help="Open the page in the web browser.")
    ] = False,
    workers: Annotated[
        int, typer.Option("--workers", min=1, help="Worker processes (uvicorn's workers).")
    ] = 1,
    public: Annotated[
        bool,
        typer.Option(
            "--public", help="A public server: no training from the page, small bodies, a log."
        ),
    ] = False,
    host_name: Annotated[
        list[str] | None,
        typer.Option("--host-name", help="A name the Host header may give (repeatable)."),
    ] = None,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            help="A reverse proxy (address or network) whose forwarded "
            "client address is believed (repeatable).",
        ),
    ] = None,
    per_client: Annotated[
        int | None,
        typer.Option("--per-client", min=1, help="Monte Carlo requests held from one client."),
    ] = None,
) -> None:
    """Serve a local web page to solve, check and practise hands (and its JSON API).

    --rules sets the page's default ruleset. It listens on this machine only unless
    --host says otherwise, and says where on stderr.
    """
    try:
        from solver.apps.web import Limits, ServeOptions, Server
        from solver.apps.web.fair import parse_proxies
    except ImportError as exc:
        fail(f"capsa serve needs the web extra: pip install 'capsa[web]' ({exc})")
    from solver.engine.rules import load_rules

    err = consoles(ctx).err
    if workers > 1 and rules == "-":
        fail("--rules - (stdin) cannot be read again by each worker of --workers: give a file")
    ruleset = load_rules(rules)
    try:
        parse_proxies(trusted_proxy or ())
    except ValueError as exc:
        fail(str(exc))
    options = ServeOptions(
        workers, rules, public, tuple(host_name or ()), tuple(trusted_proxy or ())
    )
    try:
        server = Server(host, port, ruleset, Limits(per_client=per_client), options)
    except OSError as exc:
        fail(f"cannot listen on {host} port {port}: {exc.strerror or exc}")
    if public and server.public and not host_name:
        fail("--public on an address others can reach needs --host-name NAME (the names "
             "the server answers to)")  # fmt: skip
    err.print("capsa: warming up (kernels and field tables)", markup=False)
    server.warm()
    if server.public:
        err.print(f"capsa: listening on {host}: anyone who can reach it can use it", markup=False)
    err.print(f"capsa: serving on {server.url} (Ctrl-C stops)", markup=False)
    if open_page:
        import webbrowser

        webbrowser.open(server.url)
    server.run()
    err.print("capsa: stopped", markup=False)
