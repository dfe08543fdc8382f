"""Ruleset files: the table a TOML ruleset holds, read within bounds (``ruleset_data``),
and a ruleset written as a complete TOML file (``to_toml``).

Standard library only.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from solver.engine.errors import RulesError
from solver.engine.inputs import quote, visible
from solver.engine.options import MAX_RULESET_BYTES, MAX_RULESET_DEPTH, MAX_RULESET_KEYS

if TYPE_CHECKING:
    from solver.engine.rules import Rules

__all__ = ["TOO_BIG", "check_shape", "ruleset_data", "stdin_text", "to_toml"]

#: The byte order mark some editors put before UTF-8 text (U+FEFF).
BOM = "\ufeff"

#: Why the bound on a ruleset file is enough.
TOO_BIG = "a ruleset is a few hundred bytes"


def ruleset_data(text: str) -> dict[str, Any]:
    """The table the text of a TOML ruleset holds, read within bounds (docs/cli.md, "Limits"):
    at most ``MAX_RULESET_BYTES`` bytes (Python's TOML parser takes time that grows with
    the square of some inputs' size), tables and arrays nested at most
    ``MAX_RULESET_DEPTH`` deep, and at most ``MAX_RULESET_KEYS`` keys and items in all.
    ``RulesError`` (one line, no location: callers add theirs) otherwise, or when it is
    not TOML, or not text (a lone surrogate, as a JSON string may hold). A byte order
    mark at the start (as Windows editors save UTF-8) is not the ruleset's: it is dropped."""
    text = text.removeprefix(BOM)
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end]
        raise RulesError(f"not text: holds a lone surrogate ({visible(bad)})") from None
    if size > MAX_RULESET_BYTES:
        raise RulesError(f"larger than {MAX_RULESET_BYTES:,} bytes: {TOO_BIG}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise RulesError(_too_deep()) from None
    check_shape(data)
    return data


#: The longest key a ruleset may hold (its keys are names such as three_of_a_kind).
_MAX_KEY = 64


def check_shape(data: Any) -> None:
    """RulesError when ``data`` nests deeper than ``MAX_RULESET_DEPTH``, holds more than
    ``MAX_RULESET_KEYS`` keys and items, or a key longer than any ruleset's."""
    keys = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            for key in value:
                if not isinstance(key, str) or len(key) > _MAX_KEY:
                    raise RulesError(f"unknown key {quote(key)}: ruleset keys are short names")
            items = list(value.values())
        elif isinstance(value, list | tuple):
            items = list(value)
        else:
            continue
        if depth > MAX_RULESET_DEPTH:
            raise RulesError(_too_deep())
        keys += len(items)
        if keys > MAX_RULESET_KEYS:
            raise RulesError(
                f"more than {MAX_RULESET_KEYS} keys and items: a ruleset holds about 30"
            )
        stack.extend((v, depth + 1) for v in items)


def _too_deep() -> str:
    return (
        f"tables or arrays nested more than {MAX_RULESET_DEPTH} deep: a ruleset nests "
        "2 deep (royalties.front)"
    )


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    # JSON string escapes are TOML basic-string escapes; TOML also wants DEL escaped.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def to_toml(rules: Rules) -> str:
    """The ruleset as a complete TOML file; ``load_rules`` on it gives ``rules`` back."""
    data = rules.to_dict()
    out = [f"# capsa ruleset (digest {rules.digest()})"]
    tables = []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        else:
            out.append(f"{key} = {_toml_value(value)}")
    for key, value in tables:
        if key == "royalties":
            for row, table in value.items():
                out.append(f"\n[royalties.{row}]")
                out.extend(f"{h} = {_toml_value(u)}" for h, u in table.items())
        else:
            out.append(f"\n[{key}]")
            out.extend(f"{n} = {_toml_value(u)}" for n, u in value.items())
    return "\n".join(out) + "\n"


def stdin_text() -> str:
    """A ruleset's text on stdin (``load_rules("-")``): at most ``MAX_RULESET_BYTES``,
    UTF-8; ``InputError`` otherwise (too large: ``TooLarge``)."""
    import sys

    from solver.engine.errors import InputError
    from solver.engine.inputs import read_bounded
    from solver.engine.options import MAX_RULESET_BYTES

    raw = read_bounded(sys.stdin.buffer, MAX_RULESET_BYTES, "stdin", TOO_BIG)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"stdin is not UTF-8 text (bad byte at offset {exc.start})") from None
