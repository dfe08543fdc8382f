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

import hashlib
import io
import json
import math
import os
import stat
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.engine.caches import Cache
from solver.engine.compiled import CompiledRules
from solver.engine.errors import InputError
from solver.engine.inputs import quote
from solver.strategy.field_model.field import FieldTables, field_tables, play_digest
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
    "seat_setter",
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
#: Arrays a model file may add: at a deck with jokers, its rows' keys given the jokers held;
#: the scoop moments a field table file carries (read by no model: a model values pairwise).
_OPTIONAL = ("jdist", "scoop")


@dataclass(frozen=True, eq=False)
class OpponentModel:
    """How one seat's opponent sets hands: ``policy`` (``field``, ``greedy`` or
    ``safe``) with ``tables`` (a learned model's field-shaped tables; None: the
    ruleset's own field tables). ``name`` is what answers say was assumed."""

    name: str
    policy: str
    tables: FieldTables | None = None
    #: A learned model's identity: 32 hex digits of its file's SHA-256 ("" for a style).
    digest: str = ""

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
    from solver.strategy.field_model.policy import set_sorted_hands
    from solver.strategy.field_model.trained import get_field
    from solver.strategy.hands.splits import foul_fronts

    n_opp = len(models)
    n = len(hands)
    keys = np.empty((n, 3), np.int64)
    roy = np.empty((n, 4))
    split = np.empty((n, 3), np.int32)
    seats: dict[int, list[int]] = {}
    for o, m in enumerate(models):
        seats.setdefault(id(m), []).append(o)
    for group in seats.values():
        m = models[group[0]]
        rows = np.sort(np.concatenate([np.arange(o, n, n_opp) for o in group]))
        tables = m.tables if m.tables is not None else get_field(cr)
        s, k, r, _ = set_sorted_hands(hands[rows], cr, m.policy, tables, stop=stop)
        keys[rows], roy[rows], split[rows] = k, r, s
    front = foul_fronts(hands, split, keys, cr)  # docs/rules.md#jokers: 对鬼冲前
    f0 = keys[:, 0] if front is None else front
    fouls = ~((f0 <= keys[:, 1]) & (keys[:, 1] <= keys[:, 2]))
    return keys, roy, (fouls if fouls.any() else None)


def seat_setter(
    models: Sequence[OpponentModel], cr: CompiledRules
) -> Callable[[np.ndarray, Stop], tuple[np.ndarray, np.ndarray, np.ndarray | None]] | None:
    """How the seats set dealt hands, for ``solver.strategy.solving.scoring``'s dealing
    (its ``set_seats``): None when every seat is the field (the dealer's own way, with the
    ruleset's tables), else ``set_by_models`` with these models."""
    if is_field(models):
        return None
    return lambda hands, halt: set_by_models(hands, cr, models, halt)


# --------------------------------------------------------------------------- files

#: The models read, by file (path, identity, modification time, size) and ruleset.
MODELS: Cache[tuple[object, ...], OpponentModel] = Cache("opponent models", 16)


def load_model(path: str | os.PathLike[str], cr: CompiledRules) -> OpponentModel:
    """A learned model from its file, read bounded and checked: its metadata (kind,
    version, the ruleset it was learned for), every array's dtype, shape and values, the
    tables as the kernels read them. Held per file, ruleset and modification time.
    InputError names the file and what is wrong; only a regular file is read, opened so
    that it never blocks."""
    p = Path(path)
    where = f"opponents: {quote(str(p))}"
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"opponents: cannot read {quote(str(p))}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{where} is not a file")
        ident = (str(p.resolve()), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size, cr.rules)
        got = MODELS.get(ident)
        if got is not None:
            return got
        if st.st_size > MAX_MODEL_BYTES:
            raise InputError(
                f"{where} is {st.st_size:,} bytes: a model file has at most {MAX_MODEL_BYTES:,}"
            )
        try:
            data = fh.read(MAX_MODEL_BYTES + 1)
        except OSError as exc:
            raise InputError(f"{where}: cannot read it ({exc.strerror})") from None
    digest = hashlib.sha256(data).hexdigest()[:32]
    got = OpponentModel(p.name, "field", _read_tables(data, where, cr), digest)
    return MODELS.put(ident, got)


def _read_tables(data: bytes, where: str, cr: CompiledRules) -> FieldTables:
    """The tables of a model file's bytes, every check made (``load_model``)."""
    try:
        arrays = _arrays(data)
    except (ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError, OSError,
            MemoryError, RecursionError) as exc:  # fmt: skip
        raise InputError(f"{where} is not a model file ({quote(str(exc), 80)})") from None
    meta = _meta(arrays["meta"], where)
    _check_deck(meta, where, cr)
    want = play_digest(cr.rules)
    if meta.get("play_digest") != want:
        learned = quote(str(meta.get("rules", "?")))
        raise InputError(
            f"{where} was learned for another ruleset ({learned}), not {quote(cr.rules.name)}"
        )
    with np.errstate(all="ignore"):  # what float32 makes of them is checked, not warned
        f32 = {k: arrays[k].astype(np.float32) for k in ("dist", "rank", "suit", "cop", "util")}
        dist = f32["dist"]
        if dist.shape != (3, cr.nkey) or not np.isfinite(dist).all() or (dist < 0).any():
            raise InputError(f"{where}: its row-key tables are damaged")
        if not (dist.sum(axis=1, dtype=np.float64) > 0).all():
            raise InputError(f"{where}: its row-key tables are empty")
        extra = {k: f32[k] for k in ("rank", "suit", "cop", "util")}
        if not all(np.isfinite(a).all() for a in extra.values()):
            raise InputError(f"{where}: its corrections are damaged")
        if extra["util"].shape != (3, cr.nkey):
            raise InputError(f"{where}: its row utility has shape {extra['util'].shape}")
        jdist = arrays["jdist"].astype(np.float32) if "jdist" in arrays else None
        try:
            tables = field_tables(dist, cr, meta=meta, jdist=jdist, **extra)
        except ValueError as exc:
            raise InputError(f"{where}: {exc}") from None
        # the tables as the kernels read them: every value finite
        if not all(np.isfinite(a).all() for a in (*tables.model, tables.fw, tables.ft, tables.fo)):
            raise InputError(f"{where}: its tables are not finite once converted")
    return tables


def _deck_words(code: str) -> str:
    """A deck code (``Rules.deck_code``) in words: ``the 54-card deck with 2 jokers``."""
    from solver.engine.table_shape import deck_of

    deck = deck_of(code)
    jokers = f" with {deck.jokers} joker{'s' if deck.jokers > 1 else ''}" if deck.jokers else ""
    return f"the {deck.size}-card deck{jokers}"


def _check_deck(meta: dict, where: str, cr: CompiledRules) -> None:
    """InputError when a model was learned on another deck than the ruleset's (its
    jokers, or how many suits it adds; a file without ``deck``, written before models
    were learned at other decks, is of the 52 cards)."""
    from solver.engine.table_shape import deck_of

    code = meta.get("deck", "")
    try:
        deck = deck_of(code) if isinstance(code, str) else None
    except (KeyError, ValueError):
        deck = None
    if deck is None:
        raise InputError(f"{where}: its deck {quote(code, 20)} is not a deck capsa deals")
    have = cr.rules.deck
    if (len(deck.extra_suits), deck.jokers) != (len(have.extra_suits), have.jokers):
        learned = quote(str(meta.get("rules", "?")))
        raise InputError(
            f"{where} was learned at {_deck_words(code)} ({learned}), not at "
            f"{_deck_words(cr.rules.deck_code)} ({quote(cr.rules.name)})"
        )


#: The dtype kinds each array of a model file may have (numbers; the metadata text).
_KINDS = {"meta": "U", **{name: "fiu" for name in (*_ARRAYS, *_OPTIONAL) if name != "meta"}}


def _arrays(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of an .npz held in ``data``, after checking the archive's members, each
    array's header (a number dtype, the metadata text; the bytes its shape needs within
    the member) and their uncompressed sizes (no archive may unpack to more than
    ``MAX_MODEL_ARRAYS``)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        names = sorted(i.filename for i in infos)
        kept = sorted(set(names) - {f"{a}.npy" for a in _OPTIONAL})
        if len(set(names)) != len(names) or kept != sorted(f"{a}.npy" for a in _ARRAYS):
            raise ValueError(f"it holds {', '.join(names)[:60]}")
        if sum(i.file_size for i in infos) > MAX_MODEL_ARRAYS:
            raise ValueError("its arrays are too large")
        for info in infos:
            name = info.filename[:-4]
            with zf.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                if version not in ((1, 0), (2, 0)):
                    raise ValueError(f"{name} is an .npy of version {version}")
                read = getattr(np.lib.format, f"read_array_header_{version[0]}_0")
                shape, _, dtype = read(fh)
            if dtype.kind not in _KINDS[name] or dtype.hasobject or dtype.fields is not None:
                raise ValueError(f"{name} holds {dtype}")
            need = math.prod(shape) * dtype.itemsize
            if need > info.file_size:
                raise ValueError(f"{name} declares {need:,} bytes in {info.file_size:,}")
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {name: z[name] for name in (*_ARRAYS, *_OPTIONAL) if f"{name}.npy" in names}


def _meta(raw: np.ndarray, where: str) -> dict:
    try:
        meta = json.loads(str(raw))
    except (ValueError, RecursionError):
        raise InputError(f"{where}: its metadata is not JSON") from None
    if not isinstance(meta, dict) or meta.get("kind") != MODEL_KIND:
        raise InputError(f"{where} is not an opponent model (capsa train --from writes them)")
    if meta.get("version") != MODEL_VERSION:
        raise InputError(
            f"{where}: model version {quote(meta.get('version'))}, this capsa reads {MODEL_VERSION}"
        )
    return meta
