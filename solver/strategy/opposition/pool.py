"""The opponent pool: random hands set by the field once, drawn from by every Monte Carlo
solve (docs/architecture.md, "The opponent pool").

A Monte Carlo solve spends nearly all its time setting opponent hands with the field
strategy, the same kind of hands for every hand it solves. The pool sets a large sample
of independent random hands once per ruleset and field tables, and keeps what a
settlement needs of each: its row keys, its royalties, the natural it declares under
the ruleset (id and tie key), whether it is fouled, the split the field chose and its
cards as a bit mask (``solver.engine.table_shape.MASK_DTYPE``). A solve then takes as
opponents pool hands that share no card with its hand (``OpponentPool.pick``): exact
rejection sampling, so each opponent is a uniformly random hand of the unseen cards set
by the field, as a dealt one is.

The pool lives in one file beside the field tables (``pool_dir``: ``CAPSA_POOL_DIR``,
else the cache folder ``CAPSA_CACHE_DIR`` or the user cache folder), named after its
key, and its size (``pool_path``), and is memory-mapped read-only: processes on one machine share
one copy in memory. A pool of another size is another file, so building one never
replaces a file a running process maps (a run's workers draw from the one it began with).

**The key** (``pool_key``) is a digest of everything that decides what the pool holds:
the kernels' sources (``evaluator._jit.sources_digest``), this module's source, and
every array the hand-setting and natural-detection kernels read: the evaluator's lookup
tables, the ruleset's kernel arrays (the natural codes in the ruleset's order included:
the opponents' naturals count; the payouts and the home run left out, as they change
no hand's setting), the field model and the split structure. Another ruleset, other
field tables or other code give another key, hence another file.

**A pool is trusted only whole.** The file starts with a header (the key, the size, and
for each array its dtype, shape, offset and CRC-32); ``open_pool`` checks the key, that
the arrays fill the file exactly, and every array's CRC-32 (20 to 35 ms for the default
pool, once per process) and then every value a kernel reads (each key, split and index
within its table, the naturals where the fouls and masks say: ``pool_file.check_values``), so a
stale, truncated, damaged or crafted file is never used. Only a regular file is opened,
and never so as to block (a FIFO at the path is refused). ``OpponentPool.digest``
names the contents (the key, the size and every array's CRC-32): a batch keeps it in
its run file, and its workers check the file they map against it. Files are
written whole or not at all (``pool_file.write_pool_file``, through
``evaluator.files.atomic_write``): a killed build leaves no pool, and two builds at once
each rename a complete file.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from solver.engine.caches import Cache
from solver.engine.compiled import CompiledRules
from solver.engine.errors import InputError
from solver.engine.inputs import whole
from solver.engine.layout import P_CODE, P_CODE_BOTH, P_HR_MIN, P_HR_MULT
from solver.engine.options import DEFAULT_POOL_SIZE, MAX_POOL_SIZE, MIN_POOL_SIZE
from solver.engine.progress import Progress
from solver.engine.table_shape import HAND_SIZE, JOKER_FACE, MASK_DTYPE, Deck
from solver.strategy.field_model.field import FieldTables, play_digest
from solver.strategy.field_model.trained import get_field
from solver.strategy.opposition import pool_file
from solver.strategy.opposition.pool_file import (
    POOL_VERSION,
    PoolError,
    read_pool_file,
    write_pool_file,
)
from solver.strategy.threads import Stop

log = logging.getLogger("capsa")
_MASK = np.dtype(MASK_DTYPE).type  # a card mask as a numpy scalar

#: The pool's hands come from this seed (so every build of one key is the same pool).
POOL_SEED = 20260323
#: Hands set per block of the build (``progress`` is called after each).
_BLOCK = 32768
#: A temporary file this old was left by a build that was killed (writing takes seconds).
_STALE_TMP = 600.0


@dataclass(frozen=True, eq=False)
class OpponentPool:
    """A pool of hands set by the field (read-only arrays, usually memory-mapped).

    ``masks`` uint64[n]: each hand's cards (bit c for card c); ``keys`` uint16[n, 3] its
    row keys; ``split`` uint16[n, 3] the field's split of the sorted hand (indices into
    COMB3 / COMB5 / COMB5); ``roy_id`` uint16[n] its royalties, a row of ``roy_table``
    float64[k, 4] (rows, then the dealt cards); ``nat`` int8[n] the natural it declares
    under the ruleset (-1 none), ``foul`` bool[n]; ``nat_at`` int64[m] (ascending) the
    hands holding a natural and ``nat_key`` int64[m] their tie keys. A joker is face
    ``JOKER_FACE`` (bit 53). A deck with copies or both jokers (``Deck.two_masks``,
    docs/pool.md#bigger-decks): ``masks`` holds each hand's first copies (bit f for card
    id f, the first joker's bit 53) and ``seconds`` uint64[n] its second copies (bit f
    for the second copy of face f, the second joker's bit 53); None otherwise.
    """

    path: Path | None
    key: str
    size: int
    masks: np.ndarray
    keys: np.ndarray
    split: np.ndarray
    roy_id: np.ndarray
    nat: np.ndarray
    foul: np.ndarray
    roy_table: np.ndarray
    nat_at: np.ndarray
    nat_key: np.ndarray
    nbytes: int = 0
    digest: str = ""
    seconds: np.ndarray | None = None

    @property
    def ident(self) -> str:
        """``KEY/SIZE/DIGEST``: which pool this is (a batch's run file keeps it)."""
        return f"{self.key}/{self.size}/{self.digest}"

    def pick(self, hand: np.ndarray, count: int, seed: int | None) -> np.ndarray | None:
        """Indices int64[count] of ``count`` pool hands that share no card with ``hand``:
        the first ``count`` such hands from a random start (``seed``), wrapping round;
        None when the whole pool holds fewer.

        Exact: the pool's hands are independent and uniformly random, and which ones
        are taken depends only on whether each shares a card with ``hand``, so the hands
        taken are independent, each uniform over the hands of the unseen cards (with
        copies, of the unseen card ids: docs/pool.md#bigger-decks)."""
        if count > self.size:
            return None
        start = int(np.random.default_rng(seed).integers(self.size))
        out = np.empty(count, np.int64)
        got = self.scan(hand, start, count, out)
        return out if got == count else None

    def scan(self, hand: np.ndarray, start: int, count: int, out: np.ndarray) -> int:
        """The first ``count`` pool hands from ``start`` on (wrapping round once) that
        hold none of ``hand``'s card ids, to ``out``: how many were found."""
        from solver.strategy import _kernels as k

        first, second = hand_masks(hand, self.seconds is not None)
        if self.seconds is None:
            return int(k._pool_pick(self.masks, _MASK(first), start, count, out))
        return int(k._pool_pick_copies(self.masks, self.seconds, _MASK(first), _MASK(second),
                                       start, count, out))  # fmt: skip

    def held(self, idx: np.ndarray) -> np.ndarray:
        """The faces pool hands ``idx`` hold (first or second copy), one mask each."""
        m = np.asarray(self.masks[idx], MASK_DTYPE)
        return m if self.seconds is None else m | np.asarray(self.seconds[idx], MASK_DTYPE)

    def entries(self, idx: np.ndarray) -> tuple[np.ndarray, ...]:
        """Summaries of pool hands ``idx``: keys int64[m, 3], royalties float64[m, 4],
        natural ids int64[m] (-1 none), natural keys int64[m], fouls bool[m]."""
        keys = self.keys[idx].astype(np.int64)
        roy = self.roy_table[self.roy_id[idx]]
        nat = self.nat[idx].astype(np.int64)
        nat_key = np.zeros(len(idx), np.int64)
        has = np.flatnonzero(nat >= 0)
        if len(has):
            nat_key[has] = self.nat_key[np.searchsorted(self.nat_at, idx[has])]
        return keys, roy, nat, nat_key, self.foul[idx].copy()

    def hands(self, idx: np.ndarray) -> np.ndarray:
        """The cards of pool hands ``idx``, sorted: uint8[m, 13] (faces: a face twice
        where both copies are held; a joker face ``JOKER_FACE``)."""
        faces = JOKER_FACE + 1
        m = np.asarray(self.masks[idx], MASK_DTYPE)
        shifts = np.arange(faces, dtype=MASK_DTYPE)
        bits = ((m[:, None] >> shifts) & _MASK(1)).astype(np.int64)
        if self.seconds is not None:
            two = np.asarray(self.seconds[idx], MASK_DTYPE)
            bits += ((two[:, None] >> shifts) & _MASK(1)).astype(np.int64)
        if (bits.sum(axis=1) != HAND_SIZE).any():
            raise PoolError(f"pool {self.path}: a hand does not hold 13 cards")
        rows = np.repeat(np.tile(np.arange(faces, dtype=np.uint8), (len(m), 1)).ravel(),
                         bits.ravel())  # fmt: skip
        return rows.reshape(-1, HAND_SIZE)


def hand_masks(hand: np.ndarray, copies: bool = True) -> tuple[int, int]:
    """A hand's card ids as two masks over the faces (``OpponentPool``'s): a face's first
    appearance is its first copy (bit f of the first), its second appearance the second
    copy (bit f of the second; ``copies`` False: InputError, one mask only)."""
    first = second = 0
    for c in np.asarray(hand).tolist():
        bit = 1 << int(c)
        if first & bit:
            if second & bit or not copies:
                raise InputError("a hand holds a card more often than the pool's deck does")
            second |= bit
        else:
            first |= bit
    return first, second


# --------------------------------------------------------------------------- where, which


def pool_dir() -> Path:
    """Where pools are kept: ``CAPSA_POOL_DIR``, else the cache folder of the field tables
    (``CAPSA_CACHE_DIR`` or the user cache folder)."""
    env = os.environ.get("CAPSA_POOL_DIR")
    if env:
        return Path(env)
    from evaluator.tables import cache_dir

    return cache_dir()


def _update(h: Any, name: str, a: np.ndarray) -> None:
    a = np.ascontiguousarray(a)
    h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
    h.update(a.tobytes())


@functools.cache
def _code_digest() -> str:
    from evaluator._jit import sources_digest
    from solver.strategy import _kernels  # noqa: F401 - registers the kernel sources

    h = hashlib.sha256(f"capsa-pool-{POOL_VERSION};{sources_digest()};".encode())
    h.update(Path(__file__).read_bytes())
    h.update(Path(pool_file.__file__).read_bytes())
    return h.hexdigest()


#: The pool key of each (compiled ruleset, field tables) met, by their ids.
POOL_KEYS: Cache[tuple[int, int], tuple[CompiledRules, FieldTables, str]] = Cache("pool keys", 64)


def _compiled(cr: CompiledRules, who: str) -> None:
    if not isinstance(cr, CompiledRules):
        raise TypeError(f"{who} takes a CompiledRules (solver.engine.compiled.compile_rules)")


def pool_key(cr: CompiledRules, tables: FieldTables | None = None) -> str:
    """The key of the pool for a compiled ruleset and field tables (its own, by default):
    32 hex digits over the code and every array the hand-setting and natural kernels
    read (the module docstring). Worked out once per process per ruleset and tables."""
    _compiled(cr, "pool_key")
    tables = tables if tables is not None else get_field(cr)
    ident = (id(cr), id(tables))
    got = POOL_KEYS.get(ident)
    if got is not None and got[0] is cr and got[1] is tables:
        return got[2]
    from solver.strategy.hands.splits import structure

    h = hashlib.sha256(_code_digest().encode())
    for name, a in cr.lookup._asdict().items():
        _update(h, f"lookup.{name}", a)
    params = cr.arrays.params.copy()
    # they set no hand (the home run at the table is the field model's ``hr``, below)
    params[[P_HR_MULT, P_HR_MIN, P_CODE, P_CODE_BOTH]] = 0.0
    for name, a in cr.arrays._asdict().items():
        if name == "nat_units":  # payouts decide no setting and no natural
            continue
        _update(h, f"rules.{name}", params if name == "params" else a)
    for name, a in tables.model._asdict().items():
        _update(h, f"field.{name}", a)
    for name, a in structure()._asdict().items():
        _update(h, f"structure.{name}", a)
    deck = cr.rules.deck
    if deck.copies > 1 or deck.jokers:  # the deck its hands are dealt from (52: as before)
        h.update(f"deck:{deck.code};".encode())
    key = h.hexdigest()[:32]
    POOL_KEYS.put(ident, (cr, tables, key))
    return key


def _family(cr: CompiledRules, tables: FieldTables | None = None) -> str:
    """8 hex digits naming a ruleset's pools whatever the code (to remove stale ones);
    ``tables``: a learned opponent model's (solver.strategy.opposition.opponents), whose pools are
    a family of their own (building one never removes the field's)."""
    names = ",".join(name for name, _ in cr.rules.naturals)
    model = "" if tables is None else ";" + hashlib.sha256(tables.model.fx.tobytes()).hexdigest()
    hr = (tables if tables is not None else get_field(cr)).model.hr
    if hr.any():  # the field at a table of its players (field_model.home_run): one family each
        model += ";hr:" + hr.tobytes().hex()
    return hashlib.sha256(f"{play_digest(cr.rules)};{names}{model}".encode()).hexdigest()[:8]


def pool_path(
    cr: CompiledRules,
    key: str | None = None,
    tables: FieldTables | None = None,
    size: int | None = None,
) -> Path:
    """The file of the pool of ``size`` hands for a compiled ruleset and its own field
    tables, or a learned model's tables; ``size`` None: the newest such pool built (of
    any size), else one of ``DEFAULT_POOL_SIZE``."""
    key = key or pool_key(cr, tables)
    stem = f"pool-v{POOL_VERSION}-{_family(cr, tables)}-{key}"
    if size is None:
        built = _built(pool_dir(), stem)
        if built:
            return built[0]
        size = DEFAULT_POOL_SIZE
    return pool_dir() / f"{stem}-{int(size)}.bin"


def _built(folder: Path, stem: str) -> list[Path]:
    """The pools named ``STEM-SIZE.bin`` in ``folder``, the newest first."""
    found = []
    for p in folder.glob(f"{stem}-*.bin"):
        if p.name[len(stem) + 1 : -4].isdigit():
            try:
                found.append((p.lstat().st_mtime_ns, p.name, p))
            except OSError:
                pass
    return [p for _, _, p in sorted(found, reverse=True)]


# --------------------------------------------------------------------------- reading

#: Each pool file opened and checked (or why not), by path and the file's identity.
OPEN_POOLS: Cache[tuple[Any, ...], OpponentPool | PoolError] = Cache("open pools", 16)


def open_pool(path: str | os.PathLike[str], key: str | None = None) -> OpponentPool:
    """The pool in ``path``, memory-mapped read-only, after every check (module
    docstring); ``key``: the key it must carry. Raises PoolError naming what is wrong.
    A file is checked once per process (until it changes). Only a regular file is read,
    opened so that it never blocks."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise PoolError(f"pool {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise PoolError(f"pool {path} is not a regular file")
        ident = (str(path.resolve()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

        def read() -> OpponentPool | PoolError:
            try:
                key_, n, digest, arrays = read_pool_file(path, fh, st.st_size)
            except PoolError as exc:
                return exc
            return OpponentPool(path=path, key=key_, size=n, nbytes=st.st_size,
                                digest=digest, **arrays)  # fmt: skip

        got = OPEN_POOLS.get(ident, read)  # one reader at a time
    if isinstance(got, PoolError):
        raise got
    if key is not None and got.key != key:
        raise PoolError(
            f"pool {path} was built for another ruleset, other field tables or other code"
        )
    return got


def _fits(pool: OpponentPool, cr: CompiledRules) -> OpponentPool:
    """``pool``, once its natural ids are checked against the ruleset's naturals and its
    masks against the ruleset's deck (one or two a hand)."""
    if len(pool.nat) and int(pool.nat.max()) >= len(cr.rules.naturals):
        raise PoolError(f"pool {pool.path} is damaged (a natural id past the ruleset's)")
    if (pool.seconds is not None) != cr.rules.deck.two_masks:
        raise PoolError(f"pool {pool.path} was built for another deck")
    return pool


# --------------------------------------------------------------------------- finding


def cached_pool(cr: CompiledRules, tables: FieldTables | None = None) -> OpponentPool | None:
    """The compiled ruleset's pool (``tables``: a learned model's) when one is cached and
    sound, else None (a damaged one is said on the ``capsa`` logger, once per process,
    and left for a build to replace)."""
    key = pool_key(cr, tables)
    path = pool_path(cr, key, tables)
    if not path.exists():
        return None
    try:
        return _fits(open_pool(path, key), cr)
    except PoolError as exc:
        with WARNED.lock:
            said = WARNED.get(str(exc))
            WARNED.put(str(exc), True)
        if not said:
            log.warning("%s: not used (capsa pool builds it again)", exc)
        return None


#: The damaged pools said on the logger (once each per process).
WARNED: Cache[str, bool] = Cache("pool warnings said", 256)


def resolve_pool(
    pool: bool | str | os.PathLike[str] | OpponentPool | None,
    cr: CompiledRules,
    n_opp: int,
    tables: FieldTables | None = None,
) -> OpponentPool | None:
    """The pool a Monte Carlo solve draws from, or None to deal: ``True`` (or None) the
    cached pool if there is one; ``False`` none; a path that pool file, which must be
    sound and this ruleset's (else PoolError). ``tables``: the opponents are a learned
    model's (its own pools). With the home run at the table the solve draws whole
    tables from it too (solver.strategy.solving.home_run)."""
    if pool is False:
        return None
    if pool is True or pool is None:
        return cached_pool(cr, tables)
    key = pool_key(cr, tables)
    if isinstance(pool, OpponentPool):
        if pool.key != key:
            raise PoolError("the pool given was built for another ruleset or field tables")
        return _fits(pool, cr)
    if isinstance(pool, str | os.PathLike):
        return _fits(open_pool(pool, key), cr)
    raise InputError(f"pool must be true, false or a pool file, got {type(pool).__name__}")


def pool_pays(hands: int | None, samples: int, size: int = DEFAULT_POOL_SIZE) -> bool:
    """Whether building a pool of ``size`` costs less than dealing ``hands`` solves of
    ``samples`` opponent hands: both set hands with the field, one hand each, so when the
    opponents dealt would outnumber the pool's hands (an unknown count never does)."""
    return hands is not None and hands * samples >= size


# --------------------------------------------------------------------------- building


def build_pool(
    cr: CompiledRules,
    size: int = DEFAULT_POOL_SIZE,
    *,
    progress: Progress | None = None,
    stop: Stop | None = None,
    threads: int | None = None,
    path: str | os.PathLike[str] | None = None,
    tables: FieldTables | None = None,
) -> OpponentPool:
    """Build the compiled ruleset's pool of ``size`` hands on every core (``threads``),
    write it (to ``path``, default ``pool_path``) and return it, memory-mapped.
    ``progress(done, size)`` after every block of hands; ``stop`` (or Ctrl-C) ends the
    build within a block, writing nothing. Stale pools of the same ruleset (other code or
    field tables) are removed once the new one is in place. ``tables``: a learned opponent
    model's, which sets the pool's hands instead of the field (a family of its own)."""
    _compiled(cr, "build_pool")
    size = whole(size, "pool size", MIN_POOL_SIZE, MAX_POOL_SIZE)
    model = tables
    tables = tables if tables is not None else get_field(cr)
    key = pool_key(cr, tables)
    target = Path(path) if path is not None else pool_path(cr, key, model, size)
    check_writable(target.parent)  # before the minutes of setting hands, not after
    arrays = _set_hands(cr, tables, size, progress, stop, threads)
    meta = {"rules": cr.rules.name, "play_digest": play_digest(cr.rules),
            "natural_names": [n for n, _ in cr.rules.naturals], "seed": POOL_SEED}  # fmt: skip
    if cr.rules.deck.copies > 1:
        meta["extra_suits"] = cr.rules.deck.extra_letters  # the second masks' deck
    if cr.rules.deck.jokers:
        meta["jokers"] = cr.rules.deck.jokers
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_temps(target.parent)
    write_pool_file(target, key, size, arrays, meta)
    if path is None:
        _remove_stale(target)
    return open_pool(target, key)


def _set_hands(
    cr: CompiledRules,
    tables: FieldTables,
    size: int,
    progress: Progress | None,
    stop: Stop | None,
    threads: int | None,
) -> dict[str, np.ndarray]:
    """The pool's arrays: ``size`` independent random hands (from ``POOL_SEED``, a block
    at a time), each set by the field and its natural found."""
    from solver.engine.settlement import find_naturals
    from solver.strategy.field_model.policy import set_sorted_hands
    from solver.strategy.hands.deal import deal_hands
    from solver.strategy.hands.splits import foul_fronts

    rng = np.random.default_rng(POOL_SEED)
    deck = cr.rules.deck
    out = {
        "masks": np.empty(size, MASK_DTYPE), "keys": np.empty((size, 3), np.uint16),
        "split": np.empty((size, 3), np.uint16), "roy_id": np.empty(size, np.uint16),
        "nat": np.empty(size, np.int8), "foul": np.empty(size, np.bool_),
    }  # fmt: skip
    royalty_rows: dict[tuple[float, ...], int] = {}
    nat_at: list[np.ndarray] = []
    nat_key: list[np.ndarray] = []
    bit = _MASK(1) << np.arange(JOKER_FACE + 1, dtype=MASK_DTYPE)
    if deck.two_masks:
        out["seconds"] = np.empty(size, MASK_DTYPE)
    face_of, second_of = card_faces(deck)
    if progress is not None:
        progress(0, size)
    for lo in range(0, size, _BLOCK):
        hi = min(size, lo + _BLOCK)
        if deck.copies > 1 or deck.jokers:  # card ids: which copy each hand holds is known
            dealt = _deal_ids(rng, hi - lo, deck)
            face = face_of[dealt]
            first = ~second_of[dealt]
            hands = np.sort(face, axis=1).astype(np.uint8)
            out["masks"][lo:hi] = np.bitwise_or.reduce(np.where(first, bit[face], _MASK(0)), axis=1)
            if deck.two_masks:
                out["seconds"][lo:hi] = np.bitwise_or.reduce(np.where(first, _MASK(0), bit[face]),
                                                             axis=1)  # fmt: skip
        else:
            hands = deal_hands(rng, hi - lo, 1).reshape(hi - lo, 13)
            out["masks"][lo:hi] = np.bitwise_or.reduce(bit[hands], axis=1)
        sp, ks, rs, _ = set_sorted_hands(hands, cr, "field", field=tables, threads=threads,
                                         stop=stop)  # fmt: skip
        ids, nks = find_naturals(hands, cr)
        out["keys"][lo:hi] = ks
        out["split"][lo:hi] = sp
        out["nat"][lo:hi] = ids
        front = foul_fronts(hands, sp, ks, cr)  # docs/rules.md#jokers: 对鬼冲前
        f0 = ks[:, 0] if front is None else front
        out["foul"][lo:hi] = ~((f0 <= ks[:, 1]) & (ks[:, 1] <= ks[:, 2]))
        rows, inverse = np.unique(rs, axis=0, return_inverse=True)
        ids_here = np.array([royalty_rows.setdefault(tuple(r), len(royalty_rows))
                             for r in rows.tolist()], np.int64)  # fmt: skip
        if len(royalty_rows) > 65536:
            raise PoolError("more than 65,536 kinds of royalties: no pool for this ruleset")
        out["roy_id"][lo:hi] = ids_here[inverse.reshape(-1)]
        has = np.flatnonzero(ids >= 0)
        nat_at.append(has + lo)
        nat_key.append(nks[has])
        if progress is not None:
            progress(hi, size)
    out["roy_table"] = np.zeros((max(1, len(royalty_rows)), 4))
    for r, i in royalty_rows.items():
        out["roy_table"][i] = r
    out["nat_at"] = np.concatenate(nat_at).astype(np.int64)
    out["nat_key"] = np.concatenate(nat_key).astype(np.int64)
    return out


def card_faces(deck: Deck) -> tuple[np.ndarray, np.ndarray]:
    """Indexed by card id: each card's face (int64; a joker's ``JOKER_FACE``) and whether
    it is its face's second copy (an added suit's, the second joker; ``Deck.is_second``),
    so that which mask holds it is known."""
    top = max(deck.cards()) + 1
    face = np.zeros(top, np.int64)
    second = np.zeros(top, np.bool_)
    for c in deck.cards():
        face[c] = deck.face(c)
        second[c] = deck.is_second(c)
    return face, second


def _deal_ids(rng: np.random.Generator, n: int, deck: Deck) -> np.ndarray:
    """int64[n, 13]: n independent uniformly random hands of ``deck``'s card ids (each
    the first 13 cards of a shuffle of its own)."""
    cards = np.array(deck.cards(), np.int64)
    return rng.permuted(np.tile(cards, (n, 1)), axis=1)[:, :HAND_SIZE]


def check_writable(folder: Path) -> None:
    """OSError now when no pool can be written in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, probe = tempfile.mkstemp(prefix=".pool-v-probe.", suffix=".tmp", dir=folder)
    os.close(fd)
    os.unlink(probe)


def _remove_dead_temps(folder: Path) -> None:
    """Temporary files of builds that were killed before they renamed them."""
    now = time.time()
    for tmp in folder.glob(".pool-v*.tmp"):
        try:
            if now - tmp.stat().st_mtime > _STALE_TMP:
                tmp.unlink()
        except OSError:
            pass


def _remove_stale(current: Path) -> None:
    """Other pools of the same ruleset built by other code or for other field tables
    (another key). Pools of the same key and another size stay: a running batch may map
    one, and its workers open it by name."""
    family, key, _ = current.name.rsplit("-", 2)
    for old in current.parent.glob(f"{family}-*.bin"):
        if not old.name.startswith(f"{family}-{key}-"):
            try:
                old.unlink()
                log.info("removed the stale pool %s", old)
            except OSError:
                pass
