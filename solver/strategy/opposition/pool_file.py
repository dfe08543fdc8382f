"""The opponent pool's file: its header, its arrays, and every check a file passes before
a solve draws from it (solver.strategy.opposition.pool; docs/architecture.md, "The opponent pool").

``read_pool_file`` reads an open regular file: the header (magic, length, JSON: version,
key, sizes, and each array's dtype, shape, offset and CRC-32), the arrays memory-mapped
read-only and checked against their CRC-32s, then their values (``check_values``: what
a kernel indexes with must be within its table), and the contents' digest.
``write_pool_file`` writes one, whole or not at all (``evaluator.files.atomic_write``):
an interrupted write leaves the file that was at the path as it was, and no other.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.decks import NSTRENGTH_COPIES
from evaluator.files import atomic_write
from solver.engine.inputs import quote
from solver.engine.layout import NKEY, NSTRENGTH, NSUB3, NSUB5
from solver.engine.options import MAX_POOL_SIZE
from solver.engine.table_shape import HAND_SIZE, MASK_DTYPE, STANDARD_DECK, Deck, deck_of

__all__ = ["ALIGN", "ARRAYS", "MAGIC", "POOL_VERSION", "SECONDS", "PoolError", "arrays_of",
           "check_values", "read_pool_file", "write_pool_file"]  # fmt: skip

POOL_VERSION = 1
MAGIC = b"capsa opponent pool\n"
MAX_HEADER = 1 << 20
ALIGN = 64
#: Row keys on the copies scale (a deck with added suits): strengths times suit parts.
NKEY_COPIES = NSTRENGTH_COPIES * (NKEY // NSTRENGTH)
if max(NKEY, NKEY_COPIES) > 1 << 16 or NSUB5 > 1 << 16:  # pragma: no cover - the layout fits
    raise AssertionError("row keys and split indices are kept in 16 bits")

#: (name, dtype, columns or 0 for one per hand, or -1 for the natural table's length)
ARRAYS: tuple[tuple[str, str, int], ...] = (
    ("masks", MASK_DTYPE, 0),
    ("keys", "<u2", 3),
    ("split", "<u2", 3),
    ("roy_id", "<u2", 0),
    ("nat", "<i1", 0),
    ("foul", "|b1", 0),
    ("roy_table", "<f8", 4),
    ("nat_at", "<i8", -1),
    ("nat_key", "<i8", -1),
)
#: A deck with copies (``extra_suits``) keeps a second mask a hand: the second copies it
#: holds, bit f for card id ``faces + f`` (``masks`` holds the first copies, bit f for
#: card id f); the header then names the deck (``extra_suits``). The 52-card pool's
#: file is without it, as it always was.
SECONDS: tuple[str, str, int] = ("seconds", MASK_DTYPE, 0)


def arrays_of(deck: Deck) -> tuple[tuple[str, str, int], ...]:
    """The arrays of a pool of ``deck``: ``ARRAYS``, and ``SECONDS`` with copies or both
    jokers (``Deck.two_masks``)."""
    return (*ARRAYS, SECONDS) if deck.two_masks else ARRAYS


class PoolError(Exception):
    """A pool file that cannot be used: missing, unreadable, damaged, or built for another
    ruleset, other field tables or other code. The message names the file and why."""


def _fail(path: Path, why: str) -> PoolError:
    return PoolError(f"pool {path} is damaged ({why})")


def read_pool_file(path: Path, fh: Any, size: int) -> tuple[str, int, str, dict[str, np.ndarray]]:
    """The key, size, digest and arrays of the pool in ``fh`` (``size`` bytes), once
    every check holds; PoolError (naming ``path``) when one does not."""
    try:
        magic = fh.read(len(MAGIC))
        if magic != MAGIC:
            raise _fail(path, "not a pool file")
        hlen = int.from_bytes(fh.read(8), "little")
        if not 2 <= hlen <= MAX_HEADER:
            raise _fail(path, f"header of {hlen} bytes")
        raw = fh.read(hlen)
    except OSError as exc:
        raise PoolError(f"pool {path}: {exc.strerror or exc}") from None
    try:
        head = json.loads(raw.decode("utf-8"))
        if head.get("version") != POOL_VERSION:
            raise PoolError(f"pool {path} has format version {quote(head.get('version'))}")
        n = int(head["size"])
        key = str(head["key"])
        n_nat = int(head["natural_hands"])
        n_roy = int(head["royalty_rows"])
        specs = head["arrays"]
        end = int(head["end"])
        jokers = head.get("jokers", 0)
        if type(jokers) is not int or not 0 <= jokers <= 2:
            raise ValueError(f"jokers {jokers!r}")
        deck = deck_of(str(head.get("extra_suits", "")), jokers)
    except PoolError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise _fail(path, f"header: {quote(str(exc))}") from None
    if end != size:
        raise _fail(path, f"{size:,} bytes, the header says {end:,}")
    if not (1 <= n <= MAX_POOL_SIZE and 0 <= n_nat <= n and 1 <= n_roy <= 65536):
        raise _fail(path, "sizes out of range")
    if (
        not isinstance(specs, list)
        or not all(isinstance(spec, dict) for spec in specs)
        or [spec.get("name") for spec in specs] != [a[0] for a in arrays_of(deck)]
    ):
        raise _fail(path, "its arrays are not a pool's")
    try:
        buf = np.memmap(fh, np.uint8, mode="r")
    except (OSError, ValueError) as exc:
        raise PoolError(f"pool {path}: {exc}") from None
    arrays: dict[str, np.ndarray] = {}
    low = len(MAGIC) + 8 + hlen
    digest = hashlib.sha256(f"{key}/{n}".encode())
    for (name, dtype, cols), spec in zip(arrays_of(deck), specs, strict=True):
        rows = n_roy if name == "roy_table" else n_nat if cols < 0 else n
        shape = (rows,) if cols <= 0 else (rows, cols)
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        off = spec.get("offset")
        if spec.get("dtype") != dtype or spec.get("shape") != list(shape):
            raise _fail(path, f"array {name} is not {dtype} {list(shape)}")
        if not isinstance(off, int) or off < low or off % ALIGN or off + nbytes > size:
            raise _fail(path, f"array {name} is out of place")
        a = buf[off : off + nbytes].view(np.ndarray).view(dtype).reshape(shape)
        crc = zlib.crc32(memoryview(a).cast("B"))
        if crc != spec.get("crc32"):
            raise _fail(path, f"array {name} fails its checksum")
        digest.update(f";{name}:{crc}".encode())
        arrays[name] = a
        low = off + nbytes
    why = check_values(arrays, deck)
    if why is not None:
        raise _fail(path, why)
    return key, n, digest.hexdigest()[:16], arrays


def check_values(a: dict[str, np.ndarray], deck: Deck = STANDARD_DECK) -> str | None:
    """What is wrong with a pool's values (None: nothing), beyond its checksums: every
    row key and split within its table, every royalty row and natural where the other
    arrays say, each mask a hand of 13 cards of the deck (a few ms for the default pool;
    with copies, ``seconds`` only on the faces the deck holds twice)."""
    keys, split, nat = a["keys"], a["split"], a["nat"]
    nkey = NKEY_COPIES if deck.wild else NKEY
    if len(keys) and int(keys.max()) >= nkey:
        return "a row key past the table"
    if len(split) and (int(split[:, 0].max()) >= NSUB3 or int(split[:, 1:].max()) >= NSUB5):
        return "a split past the table"
    if len(a["roy_id"]) and int(a["roy_id"].max()) >= len(a["roy_table"]):
        return "a royalty row past the table"
    if not np.isfinite(a["roy_table"]).all():
        return "royalties not finite"
    if len(nat) and int(nat.min()) < -1:
        return "a natural id below -1"
    if not np.array_equal(a["nat_at"], np.flatnonzero(nat >= 0)):
        return "the naturals' index does not match the naturals"
    by_keys = ~((keys[:, 0] <= keys[:, 1]) & (keys[:, 1] <= keys[:, 2]))
    if deck.jokers == 2:
        # a front of both jokers (at a table with jokers the one front whose key has a suit
        # part) may be legal below its middle: its key is above every front, and under
        # two_jokers_foul = "third_card" the foul check takes it for three of its third
        # card (docs/rules.md#jokers), which its key does not tell
        both = keys[:, 0] % (NKEY // NSTRENGTH) != 0
        by_keys[both] = a["foul"][both]
    if not np.array_equal(a["foul"], by_keys):
        return "the fouls do not match the row keys"
    masks = a["masks"]
    one = np.dtype(MASK_DTYPE).type
    held = np.bitwise_count(masks)
    if deck.two_masks:
        twice = one(sum(1 << f for f in deck.twice_faces()))
        if (a["seconds"] & ~twice).any():
            return f"a hand that is not {HAND_SIZE} of the {deck.size} cards"
        held = held + np.bitwise_count(a["seconds"])
    faces = one(sum(1 << f for f in deck.mask_faces()))
    if (masks & ~faces).any() or (held != HAND_SIZE).any():
        return f"a hand that is not {HAND_SIZE} of the {deck.size} cards"
    return None


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def write_pool_file(
    target: Path, key: str, size: int, arrays: dict[str, np.ndarray], meta: dict[str, Any]
) -> None:
    """The pool file at ``target``: header (the key, the size, ``meta``, each array's
    dtype, shape, aligned offset and CRC-32) then the arrays, whole or not at all
    (``atomic_write``). Something that is not a regular file at ``target`` is replaced,
    not written through."""
    specs = []
    n_nat = len(arrays["nat_at"])
    deck = deck_of(str(meta.get("extra_suits", "")), int(meta.get("jokers", 0)))
    for name, dtype, _ in arrays_of(deck):
        a = np.ascontiguousarray(arrays[name], dtype=dtype)
        arrays[name] = a
        specs.append({"name": name, "dtype": dtype, "shape": list(a.shape),
                      "crc32": zlib.crc32(memoryview(a).cast("B")), "offset": 0})  # fmt: skip
    head: dict[str, Any] = {
        "format": "capsa opponent pool", "version": POOL_VERSION, "key": key, "size": size,
        "natural_hands": n_nat, "royalty_rows": len(arrays["roy_table"]), "built": time.time(),
        **meta, "arrays": specs, "end": 0,
    }  # fmt: skip

    # the header's own length moves the arrays: leave room for the offsets' digits
    start = _aligned(len(MAGIC) + 8 + len(json.dumps(head).encode()) + 64 * len(specs))
    pos = start
    for spec in specs:
        spec["offset"] = pos
        pos = _aligned(pos + arrays[spec["name"]].nbytes)
    last = specs[-1]
    head["end"] = last["offset"] + arrays[last["name"]].nbytes  # no padding at the end
    raw = json.dumps(head, sort_keys=True).encode()
    room = start - len(MAGIC) - 8
    if len(raw) > room:  # pragma: no cover - the room above holds any offset
        raise AssertionError("pool header longer than its room")
    raw += b" " * (room - len(raw))  # JSON allows the trailing blanks

    def write(fh: Any) -> None:
        fh.write(MAGIC + len(raw).to_bytes(8, "little") + raw)
        for spec in specs:
            fh.write(b"\0" * (spec["offset"] - fh.tell()))
            fh.write(memoryview(arrays[spec["name"]]).cast("B"))

    if os.path.lexists(target) and not (target.is_file() and not target.is_symlink()):
        os.unlink(target)  # a link, a FIFO: the pool takes its place, as a rename would
    atomic_write(target, write, binary=True)
