"""Lookup tables for row strength, built in code and cached on disk with a digest.

One integer scale serves 5-card rows (middle, back) and 3-card rows (front): higher is
stronger, dense from 0 to ``NSTRENGTH - 1``. A front compares with a 5-card row as if it
had two more kickers below a deuce, so the 455 front classes interleave with the 7,462
five-card classes (7,917 strengths in all). The default rules apply: the wheel
A-2-3-4-5 is the lowest straight, and no suit order (``wheel_second`` remaps for the
other wheel setting; suit tie-breaks are the solver's business, see ``decisive_rank``).

The fast kernels use small tables indexed by the *rank multiset* of a row (its sorted
ranks r0 <= r1 <= ... map to the distinct numbers r_i + i, whose colex rank indexes the
table), plus a flush table over the same index. The full table ``five`` over all
2,598,960 hands (indexed by the colex rank of the sorted card ids) is built from them for
the exhaustive tests, the digest of the five-card order and per-subset lookups.

**The disk cache is trusted only when this code built it.** A cached file holds its
tables, their digest, and the digest of the builder (this module's source and
``TABLES_VERSION``) that wrote it; the file name carries the builder digest too, so
installs of different versions sharing a cache folder keep apart. A file is used only
when its builder digest is this module's, its tables match their stored digest, and that
digest is ``BUILT_DIGEST``, the digest of the tables this module builds (pinned here and
checked by a test that builds them from scratch). A file from another build, damaged, or
edited with a recomputed digest is rebuilt.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import logging
import os
import threading
from math import comb
from pathlib import Path
from typing import NamedTuple

import numpy as np

log = logging.getLogger("capsa")

TABLES_VERSION = 1
#: ``tables_digest`` of the tables ``build_tables`` makes. Change it only together with the
#: builder (tests/test_evaluator.py builds the tables and compares).
BUILT_DIGEST = "7580ef451c64310b12cf90060ae12433f9155e252485ebdbfcec242bd525f944"
NSTRENGTH = 7917
N5 = 2_598_960
N3 = 22_100
NMULTI5 = comb(17, 5)  # 6,188 rank multisets of five (6,175 possible with 4 suits)
NMULTI3 = comb(15, 3)  # 455 rank multisets of three

CATEGORY_NAMES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
_PHANTOM = -1  # the missing kickers of a front, below a deuce


class Tables(NamedTuple):
    """All lookup tables; every strength is on the one scale (higher is stronger)."""

    five: np.ndarray  # (2598960,) int16, by colex rank of the 5 sorted card ids
    three: np.ndarray  # (22100,) int16, by colex rank of the 3 sorted card ids
    multi5: np.ndarray  # (6188,) int16, non-flush 5-card strength by rank-multiset index
    flush5: np.ndarray  # (6188,) int16, flush strength by rank-multiset index (-1 if n/a)
    multi3: np.ndarray  # (455,) int16, 3-card strength by rank-multiset index
    category: np.ndarray  # (7917,) int8, category 0..8 of each strength
    is_five: np.ndarray  # (7917,) bool, a 5-card class (False: a 3-card front class)
    royal: np.ndarray  # (7917,) bool, the royal flush
    decisive_rank: np.ndarray  # (7917,) int8, rank of the card that breaks suit ties
    wheel_second: np.ndarray  # (7917,) int16, strength when A-2-3-4-5 ranks below T-A


_FIELDS = Tables._fields


def multiset_index(sorted_ranks: tuple[int, ...]) -> int:
    """Colex rank of a sorted rank multiset (r_i + i are distinct)."""
    return sum(comb(r + i, i + 1) for i, r in enumerate(sorted_ranks))


def _straight_top(ranks_desc: tuple[int, ...]) -> int:
    """Top rank of a 5-distinct-rank straight (3 for the wheel), or -1."""
    if ranks_desc[0] - ranks_desc[4] == 4:
        return ranks_desc[0]
    if ranks_desc == (12, 3, 2, 1, 0):
        return 3
    return -1


def _class_key(ranks: tuple[int, ...], flush: bool) -> tuple[tuple[int, ...], int]:
    """(comparison key padded to 6 entries, decisive rank) of a row's rank multiset.

    The key is (category, group ranks by (count desc, rank desc)); a 3-card row is padded
    with phantom kickers below a deuce, so it compares with 5-card rows on one scale.
    """
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (-rc[1], -rc[0]))
    pattern = tuple(c for _, c in groups)
    order = tuple(r for r, _ in groups)
    decisive = order[0]
    if len(ranks) == 5 and pattern == (1, 1, 1, 1, 1):
        top = _straight_top(order)
        if top >= 0:
            cat = STRAIGHT_FLUSH if flush else STRAIGHT
            return (cat, top, _PHANTOM, _PHANTOM, _PHANTOM, _PHANTOM), decisive
        cat = FLUSH if flush else HIGH_CARD
    else:
        cat = {
            (1, 1, 1, 1, 1): HIGH_CARD,
            (2, 1, 1, 1): PAIR,
            (2, 2, 1): TWO_PAIR,
            (3, 1, 1): TRIPS,
            (3, 2): FULL_HOUSE,
            (4, 1): QUADS,
            (1, 1, 1): HIGH_CARD,
            (2, 1): PAIR,
            (3,): TRIPS,
        }[pattern]
    key = (cat, *order) + (_PHANTOM,) * (5 - len(order))
    return key, decisive


def _rank_multisets(n: int) -> list[tuple[int, ...]]:
    """All sorted rank multisets of size n with no rank more than 4 times."""
    return [
        ms
        for ms in itertools.combinations_with_replacement(range(13), n)
        if max(ms.count(r) for r in set(ms)) <= 4
    ]


def _build_small() -> dict[str, np.ndarray]:
    """Class keys -> the strength scale, and the rank-multiset tables."""
    entries: list[tuple[tuple[int, ...], str, int, int]] = []  # key, kind, index, decisive
    for ms in _rank_multisets(5):
        key, dec = _class_key(ms, False)
        entries.append((key, "m5", multiset_index(ms), dec))
        if len(set(ms)) == 5:
            key, dec = _class_key(ms, True)
            entries.append((key, "f5", multiset_index(ms), dec))
    for ms in _rank_multisets(3):
        key, dec = _class_key(ms, False)
        entries.append((key, "m3", multiset_index(ms), dec))

    keys = sorted({e[0] for e in entries})
    if len(keys) != NSTRENGTH:
        raise AssertionError(f"expected {NSTRENGTH} classes, built {len(keys)}")
    strength_of = {k: s for s, k in enumerate(keys)}

    multi5 = np.full(NMULTI5, -1, np.int16)
    flush5 = np.full(NMULTI5, -1, np.int16)
    multi3 = np.full(NMULTI3, -1, np.int16)
    category = np.zeros(NSTRENGTH, np.int8)
    is_five = np.zeros(NSTRENGTH, bool)
    decisive = np.zeros(NSTRENGTH, np.int8)
    target = {"m5": multi5, "f5": flush5, "m3": multi3}
    for key, kind, idx, dec in entries:
        s = strength_of[key]
        target[kind][idx] = s
        category[s] = key[0]
        is_five[s] = kind != "m3"
        decisive[s] = dec
    royal = np.zeros(NSTRENGTH, bool)
    royal[strength_of[(STRAIGHT_FLUSH, 12, -1, -1, -1, -1)]] = True

    # wheel = "second": the 5-high straight (and straight flush) ranks just below the
    # ace-high one. Re-sort the keys with the wheel's top moved to 11.5.
    def second(k: tuple[int, ...]) -> tuple[float, ...]:
        if k[0] in (STRAIGHT, STRAIGHT_FLUSH) and k[1] == 3:
            return (k[0], 11.5, *k[2:])
        return k

    order2 = sorted(range(NSTRENGTH), key=lambda s: second(keys[s]))
    wheel_second = np.empty(NSTRENGTH, np.int16)
    wheel_second[np.array(order2)] = np.arange(NSTRENGTH, dtype=np.int16)
    return {
        "multi5": multi5,
        "flush5": flush5,
        "multi3": multi3,
        "category": category,
        "is_five": is_five,
        "royal": royal,
        "decisive_rank": decisive,
        "wheel_second": wheel_second,
    }


def _combos(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n), lexicographic, as a (C(n,k), k) uint8 array."""
    flat = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(n), k)),
        dtype=np.uint8,
        count=comb(n, k) * k,
    )
    return flat.reshape(-1, k)


def _colex(sorted_rows: np.ndarray) -> np.ndarray:
    """Colex rank of each row of sorted distinct values."""
    idx = np.zeros(len(sorted_rows), np.int64)
    for i in range(sorted_rows.shape[1]):
        v = sorted_rows[:, i].astype(np.int64)
        term = np.ones_like(v)
        for j in range(i + 1):  # C(v, i+1) = prod (v - j) / (i+1)!
            term *= v - j
        idx += term // np.prod(np.arange(1, i + 2))
    return idx


def _multiset_rows(ranks_sorted: np.ndarray) -> np.ndarray:
    """Rank-multiset index of each row of sorted ranks."""
    return _colex(ranks_sorted + np.arange(ranks_sorted.shape[1], dtype=np.uint8))


def _build_full(small: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The full 5-card (by colex of card ids) and 3-card tables."""
    out = {}
    for k, n, name in ((5, N5, "five"), (3, N3, "three")):
        hands = _combos(52, k)  # sorted ids
        ranks = hands >> 2
        suits = hands & 3
        midx = _multiset_rows(ranks)
        table = np.empty(n, np.int16)
        if k == 5:
            flush = (suits == suits[:, :1]).all(axis=1)
            strength = np.where(flush, small["flush5"][midx], small["multi5"][midx])
        else:
            strength = small["multi3"][midx]
        table[_colex(hands)] = strength
        out[name] = table
    return out


def build_tables() -> Tables:
    """Build every table from nothing (a few seconds)."""
    small = _build_small()
    full = _build_full(small)
    return Tables(**{f: (full[f] if f in full else small[f]) for f in _FIELDS})


def tables_digest(t: Tables) -> str:
    """sha256 over every table's dtype, shape and bytes (little-endian), in field order."""
    h = hashlib.sha256()
    for f in _FIELDS:
        a = getattr(t, f)
        a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
        h.update(f"{f}:{a.dtype.str}:{a.shape};".encode())
        h.update(a.tobytes())
    return h.hexdigest()


@functools.cache
def builder_digest() -> str:
    """16 hex digits over ``TABLES_VERSION`` and this module's source: the code that builds
    the tables. A cache written by other code carries another digest."""
    h = hashlib.sha256(f"capsa-tables-{TABLES_VERSION};".encode())
    try:
        h.update(Path(__file__).read_bytes())
    except OSError:  # pragma: no cover - source not on disk (a zipped install)
        h.update(b"no source")
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """Where tables and trained data are cached (``CAPSA_CACHE_DIR`` overrides)."""
    env = os.environ.get("CAPSA_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("capsa"))


def cache_path() -> Path:
    """The cache file of the tables this code builds (named after the builder)."""
    return cache_dir() / f"tables-v{TABLES_VERSION}-{builder_digest()}.npz"


def _load_cached(path: Path) -> Tables | None:
    """The cached tables, or None when missing, unreadable, damaged, written by other code
    or not the tables this code builds (module docstring)."""
    try:
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
            stored = str(z["digest"])
            builder = str(z["builder"]) if "builder" in z.files else "none"
            t = Tables(**{f: z[f] for f in _FIELDS})
    except Exception as exc:  # noqa: BLE001 - any unreadable cache is rebuilt
        if path.exists():
            log.warning("table cache %s unreadable (%s); rebuilding", path, exc)
        return None
    if builder != builder_digest():
        log.warning("table cache %s was written by other code; rebuilding", path)
        return None
    digest = tables_digest(t)
    if digest != stored:
        log.warning("table cache %s fails its digest; rebuilding", path)
        return None
    if digest != BUILT_DIGEST:
        log.warning("table cache %s holds tables this code does not build; rebuilding", path)
        return None
    return t


def _save(t: Tables, path: Path) -> None:
    """Write the cache whole or not at all (``evaluator.files.atomic_write``)."""
    from evaluator.files import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {"digest": np.array(tables_digest(t)), "builder": np.array(builder_digest())}
    # numpy's stub types every keyword as savez's own allow_pickle: bool
    atomic_write(path, lambda fh: np.savez(fh, **arrays, **t._asdict()), binary=True)  # type: ignore[arg-type]


_lock = threading.Lock()
_tables: Tables | None = None


def get_tables() -> Tables:
    """The tables: from memory, else from the disk cache, else built and cached."""
    global _tables
    if _tables is not None:
        return _tables
    with _lock:
        if _tables is None:
            path = cache_path()
            t = _load_cached(path)
            if t is None:
                log.info("building lookup tables (first run only)...")
                t = build_tables()
                if tables_digest(t) != BUILT_DIGEST:  # a builder edited without its pin
                    log.warning(
                        "the lookup tables built do not match tables.BUILT_DIGEST; not caching them"
                    )
                else:
                    try:
                        _save(t, path)
                    except OSError as exc:
                        log.warning("could not cache tables in %s: %s", path, exc)
            for a in t:
                a.setflags(write=False)
            _tables = t
    return _tables
