"""Untrusted text in and back out: reads with a bound, short quotes, visible characters.

Every file, stream or request body capsa reads comes from someone else, and every
message that quotes it goes to a terminal or a log:

- ``read_bounded`` reads at most a given number of bytes of a path or a binary stream
  (``/dev/zero``, a pipe that never ends, a 20 MB line) and refuses more, in one line;
- ``quote`` shows at most a short prefix of a value in an error message (a 20 MB line is
  quoted as its first 60 characters and an ellipsis), escaped as ``repr`` escapes it;
- ``whole`` is the one check of an integer option (a count, a seed, a size): a whole
  number, not a bool, within its bounds, else one line naming the option;
- ``parse_stakes`` reads ``--stakes 100,10,10`` (the CLI's option, the web API's text);
- ``visible`` writes the characters a terminal would act on (escape sequences, other
  control and format characters, lone surrogates, line and paragraph separators) as
  their ``\\x..``/``\\u....`` spelling, so that an id or a file name reaches the
  terminal as text.

Standard library only: ``capsa --help`` may import it.
"""

from __future__ import annotations

import numbers
import os
from pathlib import Path
from typing import IO, Any

from solver.engine.errors import InputError

__all__ = ["QUOTE_CHARS", "TooLarge", "parse_stakes", "quote", "read_bounded", "visible", "whole"]

#: The most characters of a bad value an error message quotes.
QUOTE_CHARS = 60


class TooLarge(InputError):
    """An input larger than the bound it is read with."""


def quote(value: Any, most: int = QUOTE_CHARS) -> str:
    """``value`` for a one-line message: ``repr`` of text (escapes included), shortened
    to its first ``most`` characters and ``…`` when it is longer; other values by their
    ``repr``, shortened the same way."""
    if isinstance(value, str):
        if len(value) <= most:
            return repr(value)
        return repr(value[:most] + "…")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**most:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    text = repr(value)
    return text if len(text) <= most else text[:most] + "…"


def whole(value: Any, name: str, low: int, high: int | None = None) -> int:
    """``value`` as an ``int`` when it is a whole number (not a bool) from ``low`` to
    ``high`` (None: no upper bound), else ``InputError``: ``NAME must be a whole number,
    got ...`` or ``NAME must be from LOW to HIGH`` (``at least LOW``) ``, got VALUE``,
    the numbers with thousands separators (a huge one as its count of digits)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be a whole number, got {quote(value)}")
    n = int(value)
    if n < low or (high is not None and n > high):
        bound = f"from {low:,} to {high:,}" if high is not None else f"at least {low:,}"
        got = f"{n:,}" if abs(n) < 10**QUOTE_CHARS else quote(n)
        raise InputError(f"{name} must be {bound}, got {got}")
    return n


def _escape(ch: str) -> str:
    return repr(ch)[1:-1]  # never a quote: quotes are printable


def visible(text: str) -> str:
    """``text`` with every character that is not printable (control and format
    characters, escape sequences, lone surrogates, line breaks other than the space)
    written as its Python escape (``\\x1b``, ``\\u202e``, ``\\ud800``); printable text
    is returned as it is."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def read_bounded(
    source: str | os.PathLike[str] | IO[bytes], most: int, what: str, why: str = ""
) -> bytes:
    """At most ``most`` bytes of a path or a binary stream; ``TooLarge`` (one line,
    naming ``what`` and the bound, then ``why``) when there is more, ``OSError`` when
    the path cannot be read. A stream is read up to one byte past the bound, never
    whole."""
    if hasattr(source, "read"):
        data = _read_upto(source, most + 1)  # type: ignore[arg-type]
    else:
        with Path(source).open("rb") as fh:
            data = _read_upto(fh, most + 1)
    if len(data) > most:
        raise TooLarge(f"{what} is larger than {most:,} bytes" + (f": {why}" if why else ""))
    return data


def _read_upto(stream: IO[bytes], n: int) -> bytes:
    """Up to ``n`` bytes of ``stream`` (fewer only at its end)."""
    parts: list[bytes] = []
    left = n
    while left > 0:
        chunk = stream.read(min(left, 1 << 16))
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def parse_stakes(text: str) -> list[float]:
    """``"100,10,10"`` (``--stakes``) -> ``[100.0, 10.0, 10.0]``; ``InputError`` naming
    the first part that is not a number. Their range is the solver's to check."""
    out = []
    for i, part in enumerate(text.split(","), start=1):
        try:
            out.append(float(part))
        except ValueError:
            raise InputError(f"--stakes: stake {i} {quote(part.strip())} is not a number") from None
    return out
