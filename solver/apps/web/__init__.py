"""``capsa serve``: a local web page to solve, check and practise hands, and its JSON API.

Needs the ``web`` extra (``pip install "capsa[web]"``: Starlette and uvicorn). The page
is plain HTML, CSS and JavaScript in ``static/`` (no build step, nothing fetched from
elsewhere); ``app`` holds the ASGI app and its endpoints, ``api`` the request handling
without the framework, ``server`` the socket and uvicorn. docs/serve.md documents
the API and its limits.
"""

from solver.apps.web.api import Limits, RequestError, RulesCatalog
from solver.apps.web.app import create_app, warm
from solver.apps.web.server import ServeOptions, Server

__all__ = ["Limits", "RequestError", "RulesCatalog", "ServeOptions", "Server", "create_app", "warm"]
