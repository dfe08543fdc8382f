"""A worker process of ``capsa serve --workers N``: its app, from the settings the
parent put in ``CAPSA_SERVE_WORKER`` (``server.Server``). The app warms itself in its
lifespan before the worker serves (``create_app(serving=True)``)."""

from __future__ import annotations

import json
import os

from starlette.applications import Starlette

from solver.apps.web.api import Limits
from solver.apps.web.app import create_app
from solver.apps.web.fair import parse_proxies
from solver.apps.web.observe import log_requests_to_stderr
from solver.engine.rules import load_rules


def make_app() -> Starlette:
    """uvicorn's app factory for a worker (``solver.apps.web.worker:make_app``)."""
    from solver.apps.web.server import WORKER_ENV

    settings = json.loads(os.environ[WORKER_ENV])
    if settings["public"]:
        log_requests_to_stderr()
    return create_app(
        load_rules(settings["rules"]),
        Limits(**settings["limits"]),
        local=settings["local"],
        public=settings["public"],
        host_names=settings["host_names"],
        proxies=parse_proxies(settings["proxies"]),
        serving=True,
    )
