"""``capsa train --from``: read the settings opponents were seen to play, learn a model
from them (solver.strategy.opposition.learn) and write it (docs/opponents.md#learned-models).

The file holds one setting a line, each in one of two forms (blank lines and ``#``
comments skipped):

- a played line, read by ``capsa batch``'s reader (``solver.apps.batch.reading``):
  ``front | middle | back``, with an id before it or not (``id: front | middle |
  back``); ``HAND | declare`` and ``HAND | surrender`` are skipped (no setting was
  shown), and a bare hand is a bad line (no setting either);
- a record of ``capsa batch`` (a JSON line): the setting it says was played
  (``played``, from a played line; a played declare or surrender is skipped), else its
  own ``front``, ``middle`` and ``back``, the setting of the policy that made it, whatever
  it advises (a record that advises declaring shows the natural's rows: skipped).

A bad line (one that is not UTF-8 text included) is reported with its number and the
reading goes on; a fouled setting is counted and left out (a model never fouls). The
file is read whole, at most ``MAX_FROM_BYTES``, its lines split as batch splits them
(each at most batch's ``MAX_LINE`` bytes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from solver.engine.errors import InputError
from solver.engine.inputs import quote

__all__ = ["MAX_FROM_BYTES", "Seen", "learn_from", "read_seen"]

#: The most bytes ``--from`` reads.
MAX_FROM_BYTES = 64 << 20


@dataclass
class Seen:
    """The settings read: flat uint8[n, 13] (front, middle, back), the bad lines (line
    number, why), and how many were skipped (a declare or surrender)."""

    settings: list[np.ndarray] = field(default_factory=list)
    bad: list[tuple[int, str]] = field(default_factory=list)
    skipped: int = 0


def read_seen(source: str, deck: str = "") -> Seen:
    """The settings of a file (``-``: stdin), bounded (module docstring), their cards those
    of the deck ``deck`` names (``Rules.deck_code``: its added suits, an ``X`` a joker;
    ``""`` the 52 cards) as ``capsa batch`` reads them, each setting as its faces."""
    import io
    import sys

    from solver.apps.batch.reading import is_content, read_lines
    from solver.engine.inputs import read_bounded

    what = "--from stdin" if source == "-" else f"--from file {quote(source)}"
    try:
        raw = read_bounded(sys.stdin.buffer if source == "-" else source, MAX_FROM_BYTES, what)
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror or exc}") from None
    seen = Seen()
    for number, line in read_lines(io.BytesIO(raw)):
        if not is_content(line):
            continue
        try:
            got = _setting(number, line, deck)
        except ValueError as exc:
            seen.bad.append((number, str(exc)))
            continue
        if got is None:
            seen.skipped += 1
        else:
            seen.settings.append(got)
    return seen


def _setting(number: int, line: bytes | None, deck: str = "") -> np.ndarray | None:
    """A line's setting (uint8[13]); None for a declare or surrender. ValueError (or
    CardParseError) says what is wrong. A played line is read as batch reads it
    (``read_hand``: its bound, its UTF-8 check, its words)."""
    from solver.apps.batch.reading import BadLine, read_hand

    if line is not None and line.startswith(b"{") and _is_utf8(line):
        return _record(line.decode("utf-8"), deck)
    got = read_hand(number, line, None, deck)
    if isinstance(got, BadLine):
        raise ValueError(got.reason)
    played = got[2]
    if isinstance(played, str):  # declare, surrender: no setting shown
        return None
    if played is None:
        raise ValueError("a setting is 'front | middle | back'")
    return np.concatenate(played).astype(np.uint8)


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _record(text: str, deck: str = "") -> np.ndarray | None:
    """A batch record's setting (module docstring); None for a declare or surrender."""
    from solver.engine.settlement import parse_setting

    try:
        rec = json.loads(text)
    except (ValueError, RecursionError):  # nested past the parser's depth: not a record
        raise ValueError("not a JSON record") from None
    if not isinstance(rec, dict):
        raise ValueError("not a JSON record")
    played = rec.get("played")
    if isinstance(played, dict):  # a played line's record: what was played
        if played.get("action") != "play":
            return None
        rec = played
    elif rec.get("action", "play") == "declare":  # the rows are the natural's
        return None
    rows = [rec.get(r) for r in ("front", "middle", "back")]
    if not all(isinstance(r, str) for r in rows):
        raise ValueError("a record needs front, middle and back")
    return parse_setting(tuple(rows), "setting", deck)


def learn_from(
    seen: Seen, rules: Any, source: str, dest: Path | None = None
) -> tuple[Any, dict[str, Any]]:
    """Learn a model from the settings read, under a ruleset (compiled here, once: the
    entry point of ``capsa train --from``), and write it to ``dest`` (None: not written):
    (the ``solver.strategy.opposition.learn.Learned`` model, the report ``capsa train --from``
    prints). InputError when too few legal settings remain."""
    from solver.engine.compiled import compile_rules
    from solver.engine.settlement import summarize_batch
    from solver.strategy.field_model.field import play_digest
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.opposition.learn import MIN_SETTINGS, learn
    from solver.strategy.opposition.opponents import MODEL_KIND, MODEL_VERSION

    cr = compile_rules(rules)
    flat = np.array(seen.settings, np.uint8).reshape(-1, 13)
    keys, roy, fouls = summarize_batch(flat, cr)
    good = ~fouls
    if int(good.sum()) < MIN_SETTINGS:
        raise InputError(
            f"--from: {int(good.sum())} legal settings read; a model needs at least {MIN_SETTINGS}"
        )
    hands = np.sort(flat[good], axis=1)
    meta = {
        "kind": MODEL_KIND,
        "version": MODEL_VERSION,
        "rules": cr.rules.name,
        "play_digest": play_digest(cr.rules),
        "deck": cr.rules.deck_code,  # the deck its settings were read on (load_model checks)
        "source": Path(source).name if source != "-" else "stdin",
    }
    learned = learn(hands, keys[good], roy[good], cr, ensure_field(cr), meta)
    if dest is not None:
        from solver.strategy.opposition.learn import save_model

        save_model(dest, learned, ensure_field(cr))
    report = {
        "rules": cr.rules.name,
        "settings": len(seen.settings),
        "fouled": int(fouls.sum()),
        "skipped": seen.skipped,
        "bad_lines": len(seen.bad),
        "fit_hands": learned.fit_hands,
        "held_out": learned.fit.hands,
        "temperature": round(learned.temperature, 4),
        "temperature_field": round(learned.temperature_field, 4),
        **{k: v for k, v in learned.fit.to_dict().items() if k != "hands"},
        **({} if dest is None else {"model": str(dest)}),
    }
    return learned, report
