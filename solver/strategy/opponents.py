"""Opponent models: who a Monte Carlo solve assumes sits at the table (docs/opponents.md).

A model sets an opponent's hand as that opponent is assumed to:

- ``field`` (the default): the field strategy with the ruleset's own tables, today's
  ``mc`` byte for byte (the opponent pool included);
- ``greedy``: the best back, then the best middle, the front from the rest;
- ``safe``: the legal setting whose weakest row is strongest (docs/opponents.md#safe);
- a learned model, ``MODEL.npz`` (``capsa train --from``): field-shaped tables fitted to
  the settings some opponents were seen to play; the field strategy sets hands with
  them, so setting an opponent costs what the field costs.

``resolve_opponents`` reads a spec (one model for every seat, or one per seat, comma
separated) into one :class:`OpponentModel` a seat; ``set_by_models`` sets dealt hands
seat by seat. A model file is read bounded and checked (``load_model``): a damaged,
foreign or other ruleset's file is an ``InputError`` naming it.
"""

from __future__ import annotations

import io
import json
import os
import threading
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.engine.compiled import CompiledRules
from solver.engine.errors import InputError
from solver.engine.inputs import quote
from solver.engine.layout import NKEY
from solver.strategy.field import FieldTables, field_tables, play_digest
from solver.strategy.threads import Stop

__all__ = [
    "FIELD",
    "MODEL_KIND",
    "STYLES",
    "OpponentModel",
    "describe",
    "is_field",
    "load_model",
    "resolve_opponents",
    "set_by_models",
]

#: The styles a player can name without data.
STYLES: tuple[str, ...] = ("field", "greedy", "safe")
#: What a learned model's metadata says it is, and the version of its format.
MODEL_KIND = "capsa-opponent-model"
MODEL_VERSION = 1
#: The most bytes a model file may have, and its arrays once uncompressed.
MAX_MODEL_BYTES = 16 << 20
MAX_MODEL_ARRAYS = 64 << 20
_ARRAYS = ("dist", "rank", "suit", "cop", "util", "meta")


@dataclass(frozen=True, eq=False)
class OpponentModel:
    """How one seat's opponent sets hands: ``policy`` (``field``, ``greedy`` or
    ``safe``) with ``tables`` (a learned model's field-shaped tables; None: the
    ruleset's own field tables). ``name`` is what answers say was assumed."""

    name: str
    policy: str
    tables: FieldTables | None = None

    @property
    def is_field(self) -> bool:
        """Today's field opponent (the ruleset's own tables)."""
        return self.policy == "field" and self.tables is None


FIELD = OpponentModel("field", "field")
_STYLE_MODELS = {name: OpponentModel(name, name) for name in STYLES}
_STYLE_MODELS["field"] = FIELD


def is_field(models: Sequence[OpponentModel]) -> bool:
    """Every seat is today's field opponent."""
    return all(m.is_field for m in models)


def describe(models: Sequence[OpponentModel]) -> str:
    """What an answer says it assumed: the model's name, or the names seat by seat."""
    names = [m.name for m in models]
    return names[0] if len(set(names)) == 1 else ",".join(names)


def resolve_opponents(
    spec: str | OpponentModel | Sequence[str | OpponentModel] | None,
    cr: CompiledRules,
    n_opp: int,
) -> tuple[OpponentModel, ...]:
    """One model a seat from ``spec``: None (field), a style or model file name, a
    comma-separated list of them (one, or one per opponent), an ``OpponentModel``, or a
    sequence of these. InputError names what is wrong."""
    if spec is None:
        return (FIELD,) * n_opp
    if isinstance(spec, OpponentModel):
        items: list = [spec]
    elif isinstance(spec, str):
        items = [part.strip() for part in spec.split(",")]
    elif isinstance(spec, Sequence):
        items = list(spec)
    else:
        raise InputError(f"opponents must be a model name or file, got {quote(spec)}")
    if len(items) == 1:
        items = items * n_opp
    elif len(items) != n_opp:
        raise InputError(
            f"opponents: give one model, or one per opponent ({n_opp}), got {len(items)}"
        )
    return tuple(_one(item, cr) for item in items)


def _one(item: str | OpponentModel, cr: CompiledRules) -> OpponentModel:
    if isinstance(item, OpponentModel):
        return item
    if not isinstance(item, str) or not item:
        raise InputError(f"opponents: a model is a style or a file, got {quote(item)}")
    if item in _STYLE_MODELS:
        return _STYLE_MODELS[item]
    if not item.endswith(".npz") and not os.path.exists(item):
        raise InputError(
            f"opponents: unknown model {quote(item)}: use {', '.join(STYLES)} or a model "
            "file (MODEL.npz, capsa train --from)"
        )
    return load_model(item, cr)


# --------------------------------------------------------------------------- setting


def set_by_models(
    hands: np.ndarray,
    cr: CompiledRules,
    models: Sequence[OpponentModel],
    stop: Stop | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Set dealt opponent hands (sorted uint8[deals * n_opp, 13], deal d seat o at row
    ``d * n_opp + o``) with each seat's model: (row keys int64[n, 3], royalties
    float64[n, 4], fouls bool[n] or None when no setting fouls)."""
    from solver.strategy.policy import set_sorted_hands
    from solver.strategy.trained import get_field

    n_opp = len(models)
    n = len(hands)
    keys = np.empty((n, 3), np.int64)
    roy = np.empty((n, 4))
    seats: dict[int, list[int]] = {}
    for o, m in enumerate(models):
        seats.setdefault(id(m), []).append(o)
    for group in seats.values():
        m = models[group[0]]
        rows = np.sort(np.concatenate([np.arange(o, n, n_opp) for o in group]))
        tables = m.tables if m.tables is not None else get_field(cr)
        _, k, r, _ = set_sorted_hands(hands[rows], cr, m.policy, tables, stop=stop)
        keys[rows], roy[rows] = k, r
    fouls = ~((keys[:, 0] <= keys[:, 1]) & (keys[:, 1] <= keys[:, 2]))
    return keys, roy, (fouls if fouls.any() else None)


# --------------------------------------------------------------------------- files

_LOADED: dict[tuple, OpponentModel] = {}
_LOCK = threading.Lock()


def load_model(path: str | os.PathLike[str], cr: CompiledRules) -> OpponentModel:
    """A learned model from its file, read bounded and checked: its metadata (kind,
    version, the ruleset it was learned for), every array's shape and values. Held per
    file, ruleset and modification time. InputError names the file and what is wrong."""
    p = Path(path)
    try:
        st = p.stat()
    except OSError as exc:
        raise InputError(f"opponents: cannot read {quote(str(p))}: {exc.strerror}") from None
    ident = (str(p.resolve()), st.st_mtime_ns, st.st_size, cr.rules)
    with _LOCK:
        got = _LOADED.get(ident)
    if got is None:
        got = OpponentModel(p.name, "field", _read_tables(p, st.st_size, cr))
        with _LOCK:
            if len(_LOADED) >= 16:
                _LOADED.clear()
            _LOADED[ident] = got
    return got


def _read_tables(p: Path, size: int, cr: CompiledRules) -> FieldTables:
    where = f"opponents: {quote(str(p))}"
    if not p.is_file():
        raise InputError(f"{where} is not a file")
    if size > MAX_MODEL_BYTES:
        raise InputError(f"{where} is {size:,} bytes: a model file has at most {MAX_MODEL_BYTES:,}")
    try:
        with open(p, "rb") as fh:
            data = fh.read(MAX_MODEL_BYTES + 1)
        arrays = _arrays(data)
    except OSError as exc:
        raise InputError(f"{where}: cannot read it ({exc.strerror})") from None
    except (ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise InputError(f"{where} is not a model file ({str(exc)[:80]})") from None
    meta = _meta(arrays["meta"], where)
    from solver.strategy.learn import learnable

    why = learnable(cr)
    if why is not None:
        raise InputError(f"{where}: no model plays under {quote(cr.rules.name)}: {why}")
    want = play_digest(cr.rules)
    if meta.get("play_digest") != want:
        learned = quote(str(meta.get("rules", "?")))
        raise InputError(
            f"{where} was learned for another ruleset ({learned}), not {quote(cr.rules.name)}"
        )
    dist = arrays["dist"]
    if dist.shape != (3, NKEY) or not np.isfinite(dist).all() or (dist < 0).any():
        raise InputError(f"{where}: its row-key tables are damaged")
    if (dist.sum(axis=1) <= 0).any():
        raise InputError(f"{where}: its row-key tables are empty")
    extra = {k: arrays[k] for k in ("rank", "suit", "cop", "util")}
    if not all(np.isfinite(a).all() for a in extra.values()):
        raise InputError(f"{where}: its corrections are damaged")
    if extra["util"].shape != (3, NKEY):
        raise InputError(f"{where}: its row utility has shape {extra['util'].shape}")
    try:
        return field_tables(dist, cr, meta=meta, **extra)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None


def _arrays(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of an .npz held in ``data``, after checking the archive's members and
    their uncompressed sizes (no archive may unpack to more than ``MAX_MODEL_ARRAYS``)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        names = sorted(i.filename for i in infos)
        if names != sorted(f"{a}.npy" for a in _ARRAYS):
            raise ValueError(f"it holds {', '.join(names)[:60]}")
        if sum(i.file_size for i in infos) > MAX_MODEL_ARRAYS:
            raise ValueError("its arrays are too large")
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {name: z[name] for name in _ARRAYS}


def _meta(raw: np.ndarray, where: str) -> dict:
    try:
        meta = json.loads(str(raw))
    except ValueError:
        raise InputError(f"{where}: its metadata is not JSON") from None
    if not isinstance(meta, dict) or meta.get("kind") != MODEL_KIND:
        raise InputError(f"{where} is not an opponent model (capsa train --from writes them)")
    if meta.get("version") != MODEL_VERSION:
        raise InputError(
            f"{where}: model version {quote(meta.get('version'))}, this capsa reads {MODEL_VERSION}"
        )
    return meta
