"""Sharing ``capsa serve`` fairly between its clients (docs/serve.md: limits).

- **Who is asking** (``client_of``): the address the connection comes from; behind a
  reverse proxy named by ``--trusted-proxy``, the address that proxy says it forwarded
  (``Forwarded: for=...``, else ``X-Forwarded-For``, read from the right, past every
  trusted proxy). These headers are ignored from any other address: a client cannot
  choose whom it counts as.
- **Lanes** (``Lane``): a pool of threads and the requests it holds, solving or waiting,
  bounded overall (``most``) and per client (``share``). A client over its share is
  answered 429 and a full lane 503, both with ``Retry-After`` (``Refused``): a flood
  from one client fills its own share, never the places other clients' answers wait in.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import os
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from solver.apps.web.guard import parse_ip

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

__all__ = ["Lane", "Refused", "client_of", "forwarded_scheme", "parse_proxies"]


class Refused(Exception):
    """A request the server will not take now: ``status`` 429 (this client is over its
    share) or 503 (the server is full), ``retry_after`` whole seconds, one line."""

    def __init__(self, message: str, status: int, retry_after: int) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def parse_proxies(values: Iterable[str]) -> tuple[Network, ...]:
    """The ``--trusted-proxy`` values as networks (``10.0.0.1``, ``10.0.0.0/8``, ``::1``);
    ValueError naming the first that is not an address or a network."""
    out: list[Network] = []
    for text in values:
        try:
            out.append(ipaddress.ip_network(text.strip(), strict=False))
        except ValueError:
            raise ValueError(
                f"--trusted-proxy {text!r} is not an address or a network (e.g. 10.0.0.1, "
                "10.0.0.0/8, ::1)"
            ) from None
    return tuple(out)


def _trusted(address: str, proxies: Sequence[Network]) -> bool:
    ip = parse_ip(address)
    return ip is not None and any(ip in net for net in proxies)


def _forwarded_for(value: str) -> list[str]:
    """The ``for=`` addresses of a ``Forwarded`` header, in order (RFC 7239)."""
    out: list[str] = []
    for element in value.split(","):
        for pair in element.split(";"):
            name, _, text = pair.partition("=")
            if name.strip().lower() != "for":
                continue
            text = text.strip().strip('"')
            if text.startswith("["):  # "[2001:db8::1]:4711"
                text = text[1 : text.find("]")] if "]" in text else text[1:]
            elif text.count(":") == 1:  # "192.0.2.60:4711"
                text = text.split(":")[0]
            out.append(text)
    return out


def client_of(scope: dict[str, Any], proxies: Sequence[Network]) -> str:
    """The client a request counts as (see the module docstring): an address, or
    ``unknown`` (a test client, a Unix socket)."""
    peer = scope.get("client")
    address = str(peer[0]) if peer else "unknown"
    if not proxies or not _trusted(address, proxies):
        return address
    forwarded: list[str] = []
    xff: list[str] = []
    for name, value in scope.get("headers") or ():
        name = name.decode("latin-1").lower()
        if name == "forwarded":
            forwarded += _forwarded_for(value.decode("latin-1"))
        elif name == "x-forwarded-for":
            xff += [v.strip() for v in value.decode("latin-1").split(",")]
    hops = forwarded or xff
    for hop in reversed(hops):  # the nearest first: skip the proxies we trust
        if not _trusted(hop, proxies):
            ip = parse_ip(hop)
            return str(ip) if ip is not None else address
    return address


def _lower(nice: int) -> None:
    """Lower this thread's priority by ``nice`` (where the system allows it)."""
    if nice <= 0 or not hasattr(os, "setpriority"):
        return
    with contextlib.suppress(OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + nice)


def forwarded_scheme(scope: dict[str, Any], proxies: Sequence[Network]) -> str | None:
    """The scheme a trusted proxy says the client used (``Forwarded: proto=https``, else
    ``X-Forwarded-Proto``; the nearest proxy's word), or None: the page's origin behind
    a TLS proxy is ``https://...``, which the origin check compares."""
    peer = scope.get("client")
    if not proxies or not peer or not _trusted(str(peer[0]), proxies):
        return None
    found: str | None = None
    for name, value in scope.get("headers") or ():
        name = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        if name == "forwarded":
            for pair in text.split(",")[-1].split(";"):
                key, _, v = pair.partition("=")
                if key.strip().lower() == "proto":
                    return v.strip().strip('"').lower()
        elif name == "x-forwarded-proto":
            found = text.split(",")[-1].strip().lower()
    return found


class Lane:
    """A thread pool and the requests it holds (counted on the event loop's thread):
    at most ``most`` in all and ``share`` from any one client. ``seconds`` is a running
    mean of how long an answer of this lane takes, for ``Retry-After``. ``nice``: the
    lane's threads run that much below the server's priority (Linux: a thread's nice
    value, which the threads a solve starts inherit), so that the long answers of the
    slow lane take the cores only when the quick answers and the event loop leave them."""

    def __init__(self, name: str, workers: int, most: int, share: int, nice: int = 0) -> None:
        self.name = name
        self.workers = workers
        self.executor = ThreadPoolExecutor(
            workers, thread_name_prefix=f"capsa-{name}", initializer=_lower, initargs=(nice,)
        )
        self.held = 0
        self.most = most
        self.share = max(1, min(share, most))
        self.by_client: Counter[str] = Counter()
        self.seconds = 0.05

    def retry_after(self) -> int:
        """Whole seconds after which a place is likely free: the answers ahead of it."""
        ahead = math.ceil(max(1, self.held) / self.workers)
        return max(1, min(60, math.ceil(ahead * self.seconds)))

    def admit(self, client: str | None) -> None:
        """Take a place for ``client`` (None: not counted per client), else Refused: 429
        when the client holds its share (whether or not the lane is full: a flood is told
        that it is the one to slow down), else 503 when the lane is full."""
        if client is not None and self.by_client[client] >= self.share:
            n = self.by_client[client]
            raise Refused(
                f"slow down: {n} of your answers of this kind are under way already (at most "
                f"{self.share} at once from one client); ask again when one is back",
                429,
                self.retry_after(),
            )
        if self.held >= self.most:
            n = self.held
            raise Refused(
                f"busy: this server is working on {n} answer{'s' * (n != 1)} of this kind "
                "already; try again in a moment",
                503,
                self.retry_after(),
            )
        self.held += 1
        if client is not None:
            self.by_client[client] += 1

    def release(self, client: str | None, seconds: float | None = None) -> None:
        """Give back ``client``'s place; ``seconds``: how long the answer took."""
        self.held -= 1
        if client is not None:
            self.by_client[client] -= 1
            if self.by_client[client] <= 0:
                del self.by_client[client]
        if seconds is not None:
            self.seconds += 0.2 * (seconds - self.seconds)
