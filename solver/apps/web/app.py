"""The ASGI app of ``capsa serve``: the page, its static files and the JSON API.

Routes (docs/serve.md):

- ``GET /`` the page; ``/static/...`` its script, style sheet and icon (all shipped in
  this package: nothing is fetched from elsewhere, and the page's Content-Security-Policy
  allows only this server);
- ``POST /api/solve``: a JSON object of ``capsa solve``'s long options (``hand`` required)
  -> ``Solution.to_dict()``, exactly what ``capsa solve --format json`` prints;
- ``POST /api/check``: the same with ``played`` required (``Solution.played`` says what the
  played setting cost: a setting, or ``"declare"`` / ``"surrender"``);
- ``POST /api/natural``: the natural a hand holds under a ruleset, and the surrender
  cost (the page offers Declare and Surrender from it);
- ``POST /api/rows``: each row of up to 32 settings named (its hand class and royalty
  under the ruleset) and the first row out of order (``solver.apps.web.hands``);
- ``POST /api/table``: a practice showdown: the player's setting (or declare, surrender)
  against opponents dealt and set by a style, settled by ``settle_table``, pair by pair
  and row by row (``solver.apps.web.table``);
- ``GET /rules``: docs/rules.md as a page; ``GET /rules/{game}?lang=xx``: the players'
  rules of a preset (or of the default ruleset), short and translated
  (``solver.apps.web.players_rules``);
- ``GET|POST /api/deal``: a random hand (``seed`` optional; ``rules``, ``players`` and
  ``jokers``: of that table's deck, which at five and six under shisanshui holds two
  copies of a suit, and with jokers an ``X`` or two);
- ``GET /api/rules``: the rulesets on offer (each with its naturals and their names),
  the server's limits and every natural's names (docs/rules.md#natural-names);
  ``POST /api/rules`` with ``{"rules": TOML text}`` checks an uploaded ruleset;
- ``POST /api/train`` with ``{"rules", "players", "jokers"}``: trains the field tables of
  a table that has none, in the background, one at a time (``solver.apps.web.training``);
  ``GET /api/train/ID`` says how far it is, ``DELETE /api/train/ID`` cancels it.

Every endpoint that names a table (solve, check, natural, rows, table, deal) takes
``jokers`` (0, 1, 2: the table seated, then given its jokers; ``solver.apps.web.api``),
reads a joker as ``X`` in hands and settings and writes it so.

Errors are ``{"error": "one line"}``: 400 a malformed request (not JSON, not an object, an
unknown option), 413 a body over the limit, 422 bad values (the message ``capsa solve``
prints), 503 busy or over the time limit, 404/405 no such endpoint.

Solves run on threads (the kernels release the GIL) in two lanes, each sized to the
cores: Monte Carlo answers in one, everything quick (``field``, ``greedy``, ``against``)
in the other, so a burst of long answers never holds up an instant one (``capsa serve``
solves the Monte Carlo answers in processes of their own, at the lowest priority:
``solver.apps.web.slow``). Each lane holds a bounded number of requests; each request
has a deadline, after which a Monte Carlo run is stopped between chunks. Every API
answer carries ``Server-Timing: solve;dur=MS`` (the time spent solving).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from evaluator import CardParseError
from solver.apps.web.api import (
    RULES_KEYS,
    Limits,
    RequestError,
    RulesCatalog,
    check_keys,
    deal,
    hand_natural,
    lane_of,
    natural_names,
    seed_out_of_range,
    solve_options,
)
from solver.apps.web.fair import Network, Refused
from solver.apps.web.guard import CSP, Guard
from solver.apps.web.hands import name_rows
from solver.apps.web.observe import Front, Metrics, healthz, metrics
from solver.apps.web.players_rules import players_page
from solver.apps.web.slow import SolvePool
from solver.apps.web.state import SLOW_NICE, WebState
from solver.apps.web.table import play_table
from solver.apps.web.training import TrainSize
from solver.engine.errors import InputError
from solver.engine.inputs import quote
from solver.engine.layout import POLICIES
from solver.engine.rules import NATURAL_NAMES, Rules, load_rules
from solver.engine.table_shape import table_shape

log = logging.getLogger("capsa")

STATIC = Path(__file__).parent / "static"
__all__ = ["CSP", "STATIC", "WebState", "create_app", "warm"]
ENDPOINTS = "solve, check, natural, rows, table, deal, rules, train"
#: A public server's request body limit (``--public``): rulesets, settings, hands fit.
PUBLIC_BODY = 16 * 1024
WARM_HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


# --------------------------------------------------------------------------- helpers


def _error(message: str, status: int, retry_after: int | None = None) -> JSONResponse:
    """``{"error": message}``; a 503 or 429 says when to ask again (``Retry-After``)."""
    if retry_after is None and status in (429, 503):
        retry_after = 1
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _is_json(content_type: str | None) -> bool:
    """Whether a Content-Type is ``application/json`` (a UTF-8 charset, or none)."""
    if content_type is None:
        return False
    kind, *params = (p.strip().lower() for p in content_type.split(";"))
    if kind != "application/json":
        return False
    for p in params:
        name, _, value = p.partition("=")
        if name.strip() == "charset" and value.strip().strip('"') not in ("utf-8", "utf8"):
            return False
    return True


class _TwiceError(ValueError):
    """A JSON object of a request gives one key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, each key given once (``json.loads``' ``object_pairs_hook``): JSON
    leaves a repeated key's meaning open and Python would keep the last silently, where
    a ruleset in TOML refuses it; ``_TwiceError`` for a key given twice."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _TwiceError(key)
        out[key] = value
    return out


async def read_json(request: Request, limit: int, seconds: float = 20.0) -> Any:
    """The request body as JSON (``{}`` when empty): 415 unless it is sent as
    ``Content-Type: application/json``, 413 past ``limit`` bytes, 408 when it has not all
    arrived within ``seconds`` (a client that sends headers and then nothing), 400 when
    it is not JSON, is nested too deep for Python's parser, or holds a lone surrogate,
    422 when an object gives a key twice (``{"rules": {"jokers": 2, "jokers": 0}}``)."""
    ctype = request.headers.get("content-type")
    if not _is_json(ctype):
        got = "no Content-Type" if ctype is None else f"Content-Type {quote(ctype)}"
        raise RequestError(
            f"the body must be JSON sent with Content-Type: application/json, got {got}", 415
        )
    too_big = RequestError(f"the body is larger than this server's limit of {limit:,} bytes", 413)
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise too_big
    body = bytearray()
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise too_big
    except TimeoutError:
        raise RequestError(f"the body did not arrive within {seconds:g} s", 408) from None
    if not body.strip():
        return {}
    try:
        data = json.loads(bytes(body).decode("utf-8"), object_pairs_hook=_once_each)
    except UnicodeDecodeError:
        raise RequestError("the body is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise RequestError(f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise RequestError("the body is JSON nested too deep to read") from None
    except _TwiceError as exc:
        raise RequestError(
            f"the body gives the key {quote(exc.key)} twice in one object: "
            "give each key once (which one would count?)",
            422,
        ) from None
    except ValueError:  # Python's bound on the digits of an integer
        raise RequestError("the body holds a number with more than 4,300 digits") from None
    if b"\\u" in body:  # an escaped lone surrogate is JSON, but not text
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise RequestError("the body is not text: it holds a lone surrogate") from None
    return data


async def _guarded(state: WebState, go: Callable[[], Awaitable[Response]]) -> Response:
    """Run an endpoint; map every failure to ``{"error": ...}`` and its status."""
    from solver.strategy.threads import Stopped

    try:
        return await go()
    except Refused as exc:
        return _error(str(exc), exc.status, exc.retry_after)
    except RequestError as exc:
        return _error(str(exc), exc.status)
    except ClientDisconnect:  # the client hung up mid-body: nobody reads this answer
        return _error("the client went away before it sent the whole body", 400)
    except RecursionError:
        return _error("the request is nested too deep to read", 400)
    except Stopped:
        if state.closing:
            return _error("the server is shutting down; ask again once it is back", 503, 5)
        return _error(
            f"the answer took longer than this server's limit of {state.limits.seconds:g} s; "
            "ask for fewer samples",
            503,
            max(1, round(state.limits.seconds)),
        )
    except (CardParseError, InputError, ValueError) as exc:
        # The same errors, with the same messages, that `capsa solve` reports (exit 2).
        return _error(str(exc), 422)
    except Exception as exc:  # noqa: BLE001 - a bug: say so, keep serving
        log.exception("web: internal error")
        return _error(f"internal error: {type(exc).__name__}: {exc}", 500)


def _who(request: Request) -> dict[str, Any] | None:
    """The request's client and lane, kept by ``observe.Front`` (None without it)."""
    return request.scope.get("capsa")


def _timed(data: Any, seconds: float) -> JSONResponse:
    return JSONResponse(data, headers={"Server-Timing": f"solve;dur={seconds * 1000:.1f}"})


# --------------------------------------------------------------------------- endpoints


async def _solve(request: Request, need_played: bool) -> Response:
    from solver.strategy.solving.solve import solve

    state: WebState = request.app.state.web
    deadline = time.monotonic() + state.limits.seconds

    async def go() -> Response:
        body = await read_json(request, state.limits.body, state.limits.seconds)

        lane = lane_of(body)

        def work(stop: threading.Event) -> Any:
            # Off the event loop (a TOML ruleset in the body takes time to read), on the
            # lane the body asks for: a Monte Carlo request never holds a quick place.
            opts = solve_options(body, state.catalog, state.limits, need_played=need_played)
            if lane == "slow" and state.pool is not None:  # solved in a process of its own
                return state.pool.solve(opts, deadline)
            return solve(opts.hand, opts.rules, opts.options, stop=stop).to_dict()

        answer, seconds = await state.run(lane, work, deadline, _who(request))
        return _timed(answer, seconds)

    return await _guarded(state, go)


async def api_solve(request: Request) -> Response:
    return await _solve(request, need_played=False)


async def api_check(request: Request) -> Response:
    return await _solve(request, need_played=True)


async def api_deal(request: Request) -> Response:
    state: WebState = request.app.state.web

    async def go() -> Response:
        if request.method == "GET":
            body: dict[str, Any] = dict(request.query_params)
            for key in ("seed", "players", "jokers"):
                text = body.get(key)  # ASCII digits only: int() would take '٣' and '²' fails
                if text is None or not (text.isascii() and text.isdigit()):
                    continue
                digits = len(text.lstrip("0"))
                if digits <= 40:
                    body[key] = int(text)
                elif key == "seed":  # a number still, past the bound POST has too
                    raise seed_out_of_range(f"a {digits:,}-digit number")
        else:
            body = await read_json(request, state.limits.body, state.limits.seconds)
        if isinstance(body, dict) and body.get("rules") is not None:  # a TOML ruleset:
            deadline = time.monotonic() + state.limits.seconds  # read off the event loop
            answer, seconds = await state.run(
                "quick", lambda stop: deal(body, state.catalog), deadline, _who(request)
            )
            return _timed(answer, seconds)
        t0 = time.perf_counter()
        answer = deal(body, state.catalog)
        return _timed(answer, time.perf_counter() - t0)

    return await _guarded(state, go)


async def _quick(request: Request, answer_of: Callable[[Any, RulesCatalog], Any]) -> Response:
    """A request answered on the quick lane, off the event loop (a TOML ruleset in the
    body takes time to read): ``answer_of(body, catalog)``."""
    state: WebState = request.app.state.web
    deadline = time.monotonic() + state.limits.seconds

    async def go() -> Response:
        body = await read_json(request, state.limits.body, state.limits.seconds)
        # off the event loop: a TOML ruleset in the body takes time to read
        answer, seconds = await state.run(
            "quick", lambda stop: answer_of(body, state.catalog), deadline, _who(request)
        )
        return _timed(answer, seconds)

    return await _guarded(state, go)


async def api_natural(request: Request) -> Response:
    return await _quick(request, hand_natural)


async def api_rows(request: Request) -> Response:
    return await _quick(request, name_rows)


async def api_table(request: Request) -> Response:
    return await _quick(request, play_table)


async def api_rules(request: Request) -> Response:
    state: WebState = request.app.state.web
    catalog = state.catalog

    async def go() -> Response:
        deadline = time.monotonic() + state.limits.seconds
        t0 = time.perf_counter()
        if request.method == "GET":
            answer = {
                "default": catalog.default.name,
                "rulesets": [catalog.describe(r) for r in catalog.rulesets()],
                "policies": list(POLICIES),
                "limits": state.limits.to_dict(),
                "table": table_shape(),  # the players menu (solver.engine.table_shape)
                # "Train it here (about N min)"; none on a public server (no button)
                "training": None if state.public else state.trainer.size.to_dict(),
                # every natural's names, for the page to show a solution's natural
                "naturals": [natural_names(n) for n in NATURAL_NAMES],
            }
        else:
            body = check_keys(
                await read_json(request, state.limits.body, state.limits.seconds),
                RULES_KEYS,
                '{"rules": "base = ..."}',
            )
            answer, _ = await state.run(  # off the event loop: TOML takes time to read
                "quick",
                lambda stop: catalog.describe(catalog.resolve(body.get("rules"))),
                deadline,
                _who(request),
            )
        return _timed(answer, time.perf_counter() - t0)

    return await _guarded(state, go)


async def api_train(request: Request) -> Response:
    """POST /api/train: start training a table's field tables (or the job already at it);
    202 while it trains, 200 once done. GET /api/train/ID: that job, as it stands;
    DELETE /api/train/ID: cancel it (it stops at the end of its round)."""
    state: WebState = request.app.state.web

    async def go() -> Response:
        t0 = time.perf_counter()
        if state.public:
            raise RequestError(
                "training is off on this public server: train with capsa train --rules FILE", 403
            )
        if request.method == "GET":
            job = state.trainer.get(request.path_params["job"])
        elif request.method == "DELETE":
            job = state.trainer.cancel(request.path_params["job"])
        else:
            deadline = time.monotonic() + state.limits.seconds
            body = await read_json(request, state.limits.body, state.limits.seconds)
            job, _ = await state.run(  # off the event loop: TOML takes time to read
                "quick",
                lambda stop: state.trainer.start(body, state.catalog),
                deadline,
                _who(request),
            )
        answer = _timed(job.to_dict(), time.perf_counter() - t0)
        answer.status_code = 200 if job.state in ("done", "failed") else 202
        return answer

    return await _guarded(state, go)


async def index(request: Request) -> Response:
    # The security headers (guard.SECURITY_HEADERS) are added to every answer by Guard.
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def rules_page(request: Request) -> Response:
    """docs/rules.md as a page (``static/rules.html``, rendered from it beforehand:
    python -m tests.rules_page; no script, this server's style sheet)."""
    return FileResponse(STATIC / "rules.html", headers={"Cache-Control": "no-cache"})


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return _error(f"no such page: {request.url.path} (the API has {ENDPOINTS})", 404)
    if exc.status_code == 405:
        return _error(f"{request.method} is not allowed on {request.url.path}", 405)
    return _error(str(exc.detail), exc.status_code)


# --------------------------------------------------------------------------- the app


def create_app(
    rules: Rules | str | None = None,
    limits: Limits | None = None,
    *,
    local: bool = False,
    training: TrainSize | None = None,
    public: bool = False,
    host_names: Sequence[str] = (),
    proxies: Sequence[Network] = (),
    serving: bool = False,
) -> Starlette:
    """The ASGI app. ``rules``: the default ruleset (a preset name or Rules; default
    ``chinese-1-6``); ``limits``: see :class:`Limits`; ``local``: the server listens on a
    loopback address, so it answers only requests whose Host header names this machine
    (``localhost`` or a loopback address), which keeps pages elsewhere from reaching it
    through DNS rebinding. Every request passes ``guard.Guard`` first (Host, origin,
    OPTIONS, security headers). ``training``: the size of a training asked from the page
    (default: ``CAPSA_SERVE_TRAIN``, else the CLI's; ``solver.apps.web.training``).
    ``public``: no training from the page, bodies of at most ``PUBLIC_BODY`` bytes, a
    JSON log line a request; ``host_names``: the only names the Host header may give;
    ``proxies``: the reverse proxies whose forwarded address names the client
    (``solver.apps.web.fair``, ``observe``). ``serving``: run by ``capsa serve``, whose
    SIGTERM drains and Ctrl-C stops the running answers (``WebState.on_signals``), and
    whose Monte Carlo lane runs at a lower priority (``state.SLOW_NICE``)."""
    size = training or TrainSize.from_env()
    limits = limits or Limits()
    if public and limits.body > PUBLIC_BODY:
        limits = dataclasses.replace(limits, body=PUBLIC_BODY)
    nice = SLOW_NICE if serving else 0  # the Monte Carlo lane below the quick one
    state = WebState(RulesCatalog(load_rules(rules)), limits, size, nice)
    state.public = public
    with contextlib.suppress(ImportError):  # prometheus-client: the web extra
        state.metrics = Metrics(state)
    # Monte Carlo answers in processes (.slow; CAPSA_SERVE_MC=threads: on threads, less memory)
    if serving and os.environ.get("CAPSA_SERVE_MC") != "threads":  # started where it serves
        state.pool = SolvePool(state.lanes["slow"].workers)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):  # noqa: ANN202 - an async context manager
        if serving:
            state.on_signals()
        if serving and not state.ready:  # a worker of --workers: warm before serving
            await asyncio.to_thread(warm, app)
        if state.pool is not None:  # its Monte Carlo processes, warmed before it serves
            with contextlib.suppress(BrokenProcessPool):  # Ctrl-C while they start
                await asyncio.to_thread(state.pool.start)
        try:
            yield
        finally:
            state.close()

    middleware = [
        Middleware(Front, state=state, proxies=proxies, log_requests=public),
        Middleware(Guard, local=local, names=tuple(host_names)),
    ]
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/healthz", healthz),
            Route("/metrics", metrics),
            Route("/rules", rules_page),
            Route("/rules/{game}", players_page),
            Route("/api/solve", api_solve, methods=["POST"]),
            Route("/api/check", api_check, methods=["POST"]),
            Route("/api/natural", api_natural, methods=["POST"]),
            Route("/api/rows", api_rows, methods=["POST"]),
            Route("/api/table", api_table, methods=["POST"]),
            Route("/api/deal", api_deal, methods=["GET", "POST"]),
            Route("/api/rules", api_rules, methods=["GET", "POST"]),
            Route("/api/train", api_train, methods=["POST"]),
            Route("/api/train/{job}", api_train, methods=["GET", "DELETE"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=middleware,
        exception_handlers={404: _http_error, 405: _http_error},
        lifespan=lifespan,
    )
    app.state.web = state
    return app


def warm(app: Starlette) -> None:
    """Load every kernel and field table the answers need, so the first answer is as
    quick as the rest: the default ruleset is solved with every policy (its field tables
    are trained here if it needs them), the presets with ``field``."""
    from solver.strategy.solving.solve import solve

    catalog: RulesCatalog = app.state.web.catalog
    default = catalog.default
    played = "7d 5h 4c | 9h 9d 9c 3d 2s | As Ks Qs Js Ts"
    solve(WARM_HAND, rules=default, policy="mc", samples=300, seed=0, played=played)
    solve(WARM_HAND, rules=default, policy="greedy", played=played)
    for r in catalog.rulesets():
        if catalog.ready(r):
            solve(WARM_HAND, rules=r, policy="field", played=played)
    deal({"seed": 0})
    play_table({"hand": WARM_HAND, "played": played, "seed": 0}, catalog)  # its kernels
    app.state.web.ready = True
