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
) -> None:
    """Serve a local web page to solve, check and practise hands (and its JSON API).

    --rules sets the page's default ruleset. It listens on this machine only unless
    --host says otherwise, and says where on stderr.
    """
    try:
        from solver.apps.web import Server
    except ImportError as exc:
        fail(f"capsa serve needs the web extra: pip install 'capsa[web]' ({exc})")
    from solver.engine.rules import load_rules

    err = consoles(ctx).err
    ruleset = load_rules(rules)
    try:
        server = Server(host, port, rules=ruleset)
    except OSError as exc:
        fail(f"cannot listen on {host} port {port}: {exc.strerror or exc}")
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
