"""What every request to ``capsa serve`` passes first: the Host, the origin, the headers.

``Guard`` is a plain ASGI middleware in front of the app:

- **Host** (a server given ``--host-name``): the ``Host`` header must give one of those
  names. Else (a server on a loopback address): the ``Host`` header must name this machine,
  ``localhost`` or a loopback address however it is spelt (``127.0.0.1``, ``127.1``,
  ``[::1]``), so that a page elsewhere cannot reach the server through DNS rebinding (a
  name of its own pointed at 127.0.0.1). Otherwise 400.
- **Origin**: an API request (``/api/...``), or any request that is not GET or HEAD,
  whose ``Origin`` header names another origin than the one it was sent to (scheme,
  host and port of its ``Host`` header), or ``null``, or whose ``Sec-Fetch-Site`` says
  a page of another site (``cross-site``) or another port of this one (``same-site``)
  sent it, is refused with 403 before it is read: another page cannot make the server
  solve (a form or a ``fetch`` with ``text/plain`` needs no preflight). Clients that are
  not browsers send neither header and are served.
- **OPTIONS** (a CORS preflight, or a client asking what a path takes): the server
  answers no cross-origin request, so a preflight from another origin is refused (403,
  one line) and any other OPTIONS is answered 204 with the ``Allow`` header.
- **Headers**: every answer carries the page's security headers (``SECURITY_HEADERS``:
  the Content-Security-Policy, no framing, no sniffing, no referrer, resources for this
  origin only), whichever path served it (``/``, ``/static/index.html``, an API answer).
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The page may load and call only this server.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("content-security-policy", CSP),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("cross-origin-resource-policy", "same-origin"),
)
_SECURITY_NAMES = {name.encode() for name, _ in SECURITY_HEADERS}
_SECURITY_RAW = [(name.encode(), value.encode()) for name, value in SECURITY_HEADERS]

#: The methods of each path, for OPTIONS (the rest: the page and its files).
METHODS = {
    "/api/solve": "POST",
    "/api/check": "POST",
    "/api/natural": "POST",
    "/api/deal": "GET, HEAD, POST",
    "/api/rules": "GET, HEAD, POST",
    "/api/train": "POST",
}
#: The methods of a training job's path, ``/api/train/ID``.
_JOB = "GET, HEAD, DELETE"
_SAFE = ("GET", "HEAD")
_DEFAULT_PORT = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address ``text`` spells (``127.0.0.1``, ``127.1``, ``0x7f.1``, ``::1``,
    ``::ffff:127.0.0.1`` as its IPv4 address), or None for a name."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        if ":" in text or not text or not text[0].isdigit():
            return None
        try:  # the classic spellings inet_aton takes: 127.1, 0x7f.0.0.1, 2130706433
            ip = ipaddress.IPv4Address(socket.inet_aton(text))
        except (OSError, ValueError):
            return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def is_loopback_host(host: str) -> bool:
    """Whether a host name or address (no port, no brackets) is this machine only:
    ``localhost`` or a loopback address, however spelt. Decided by the address, not its
    spelling; other names are not looked up (a page's own name may point anywhere)."""
    name = host.rstrip(".").lower()
    if name == "localhost":
        return True
    ip = parse_ip(name)
    return ip is not None and ip.is_loopback


def split_host(value: str) -> tuple[str, int | None] | None:
    """``(host, port or None)`` of a Host header (``name``, ``name:8000``, ``[::1]:8000``),
    the host lower-cased and without brackets; None when it is not one."""
    value = value.strip()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else None
    elif value.count(":") == 1:
        host, port_text = value.split(":")
    elif ":" in value:
        return None
    else:
        host, port_text = value, None
    if not host:
        return None
    if port_text is None:
        return host.lower(), None
    if not (port_text.isascii() and port_text.isdigit() and len(port_text) <= 5):
        return None
    return host.lower(), int(port_text)


def _same_host(a: str, b: str) -> bool:
    """Whether two host names or addresses are the same (addresses compared as such)."""
    ia, ib = parse_ip(a), parse_ip(b)
    if ia is not None or ib is not None:
        return ia == ib
    return a.rstrip(".") == b.rstrip(".")


def same_origin(origin: str, scheme: str, host: str, port: int | None) -> bool:
    """Whether an ``Origin`` header names ``scheme://host:port`` (the request's own)."""
    try:
        parts = urlsplit(origin)
        o_port = parts.port
    except ValueError:
        return False
    if parts.scheme.lower() != scheme or parts.hostname is None or parts.path not in ("", "/"):
        return False
    default = _DEFAULT_PORT.get(scheme)
    return _same_host(parts.hostname, host) and (o_port or default) == (port or default)


class Guard:
    """The ASGI middleware described in the module docstring. ``local``: the server is
    on a loopback address, so the Host header must name this machine; ``names``
    (``--host-name``): the Host header must give one of these names (any port)."""

    def __init__(self, app: ASGIApp, *, local: bool, names: tuple[str, ...] = ()) -> None:
        self.app = app
        self.local = local
        self.names = frozenset(n.rstrip(".").lower() for n in names)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host_header = headers.get("host", "")
        where = split_host(host_header)
        if where is None or not self._host_ok(where[0]):
            await _answer(send, 400, f"this server answers only requests for this machine, "
                                     f"not for host {_show(host_header)}")  # fmt: skip
            return
        method, path = scope["method"], scope["path"]
        refusal = self._refusal(scope, headers, where, method, path)
        if refusal is not None:
            await _answer(send, 403, refusal)
            return
        if method == "OPTIONS":
            allow = METHODS.get(path, _JOB if path.startswith("/api/train/") else "GET, HEAD")
            await _answer(send, 204, None, [(b"allow", f"{allow}, OPTIONS".encode())])
            return
        await self.app(scope, receive, _with_headers(send))

    def _host_ok(self, host: str) -> bool:
        if self.names:
            return host.rstrip(".") in self.names
        return not self.local or is_loopback_host(host)

    def _refusal(
        self,
        scope: Scope,
        headers: dict[str, str],
        where: tuple[str, int | None],
        method: str,
        path: str,
    ) -> str | None:
        """Why a request from another origin is refused, or None."""
        if method in _SAFE and not path.startswith("/api/"):
            return None  # the page and its files: any site may link to them
        own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
        origin = headers.get("origin")
        if origin is not None and not same_origin(
            origin, scope.get("scheme", "http"), where[0], where[1]
        ):
            return (
                f"refused: a page from {_show(origin)} may not use this server "
                f"(it answers its own page, {_show(own)}, and clients that are not browsers)"
            )
        site = headers.get("sec-fetch-site")
        if site in ("cross-site", "same-site"):
            return (
                f"refused: a page from another {'site' if site == 'cross-site' else 'port'} "
                f"may not use this server (it answers its own page, {_show(own)})"
            )
        return None


def _headers(scope: Scope) -> dict[str, str]:
    """The request headers, names lower-cased (the first of each name; latin-1)."""
    out: dict[str, str] = {}
    for name, value in scope.get("headers") or ():
        out.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return out


def _show(text: str) -> str:
    """A header value in a message: at most 100 characters, printable ASCII."""
    text = text if len(text) <= 100 else text[:100] + "..."
    return "".join(ch if " " <= ch <= "~" else "?" for ch in text)


def _with_headers(send: Send) -> Send:
    """``send`` with the security headers added to the response's start."""

    async def sender(message: Message) -> None:
        if message["type"] == "http.response.start":
            kept = [
                (k, v) for k, v in message.get("headers", ()) if k.lower() not in _SECURITY_NAMES
            ]
            message["headers"] = kept + _SECURITY_RAW
        await send(message)

    return sender


async def _answer(
    send: Send, status: int, error: str | None, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    """A response made here: ``{"error": ...}`` (or nothing, for 204), with the headers."""
    body = b"" if error is None else json.dumps({"error": error}).encode()
    headers = [*(extra or []), *_SECURITY_RAW]
    if error is not None:
        headers += [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
