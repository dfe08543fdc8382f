"""Opponent strategies: `greedy` and `field` (per-row tables trained by self-play).

The field strategy scores a setting from three per-row tables indexed by row key: the
probability of winning and of tying that row against an opponent who plays the field,
and the royalty that opponent expects to collect on it. The tables are derived from the
distribution of each row's key when many random hands are set with the field strategy
itself (see solver.strategy.train); that distribution is what ships in ``solver/data``.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from evaluator import COMB3, COMB5, NSTRENGTH, get_tables, parse_hand
from solver.engine.layout import NKEY, POLICY_FIELD, POLICY_GREEDY, Policy
from solver.engine.rules import Rules, load_rules

log = logging.getLogger("capsa")

#: The policies that set a hand without sampling (``mc`` is solve()'s alone).
POLICIES: tuple[str, ...] = (Policy.greedy.value, Policy.field.value)
DATA_DIR = Path(__file__).parent.parent / "data"
FIELD_VERSION = 1


# ------------------------------------------------------------------ split structure


class Structure(NamedTuple):
    """Index arrays for splits of a sorted 13-card hand (positions 0..12)."""

    part: np.ndarray  # int16[36036, 3]: front 3-subset, five A, five B
    mask5: np.ndarray  # int64[1287] position bitmask of each five
    mask3: np.ndarray  # int64[286]
    idx5: np.ndarray  # int64[8192] five index of a bitmask (-1 if not a five)
    idx3: np.ndarray  # int64[8192] three index of a bitmask
    comb85: np.ndarray  # int64[56, 5] the 5-subsets of 8 positions


@functools.cache
def structure() -> Structure:
    weights = 1 << np.arange(13, dtype=np.int64)
    mask5 = (weights[COMB5.astype(np.int64)]).sum(axis=1)
    mask3 = (weights[COMB3.astype(np.int64)]).sum(axis=1)
    idx5 = np.full(8192, -1, np.int64)
    idx5[mask5] = np.arange(1287)
    idx3 = np.full(8192, -1, np.int64)
    idx3[mask3] = np.arange(286)
    rows = []
    for j, m3 in enumerate(mask3.tolist()):
        rest = 0x1FFF ^ m3
        low = rest & -rest
        inside = np.flatnonzero(((mask5 & rest) == mask5) & ((mask5 & low) != 0))
        rows.append(np.stack([np.full(len(inside), j), inside, idx5[rest ^ mask5[inside]]], 1))
    part = np.concatenate(rows).astype(np.int16)
    assert part.shape == (36036, 3)
    comb85 = np.array(list(itertools.combinations(range(8), 5)), dtype=np.int64)
    for a in (part, mask5, mask3, idx5, idx3, comb85):
        a.setflags(write=False)
    return Structure(part, mask5, mask3, idx5, idx3, comb85)


# ------------------------------------------------------------------ field tables


class FieldTables(NamedTuple):
    """Per-row field tables, indexed [row, key]; see solver.strategy._kernels."""

    fw: np.ndarray  # float64[3, NKEY] P(win the row)
    ft: np.ndarray  # float64[3, NKEY] P(tie)
    fo: np.ndarray  # float64[3, NKEY] royalty an opponent collects by beating this row
    fe: np.ndarray  # float64[3] an opponent's expected row royalty
    fx: np.ndarray  # float64[3, NKEY, 4] fw, ft, fo interleaved (fw/ft/fo are views of it)
    dist: np.ndarray  # float64[3, NKEY] the opponent's row-key distribution
    meta: dict


def play_digest(rules: Rules) -> str:
    """Digest of the settings that change how hands are set (not players, surrender...)."""
    return replace(rules, name="play", players=4, surrender_cost=None, naturals=()).digest()


def royalty_by_key(rules: Rules) -> np.ndarray:
    """float64[3, NKEY]: a row's royalty by row key (royalty depends on strength only)."""
    from solver.engine.settlement import compile_rules

    ra = compile_rules(rules)
    inv = np.empty(NSTRENGTH, np.int64)
    inv[ra.remap.astype(np.int64)] = np.arange(NSTRENGTH)
    by_strength = ra.roy[:, inv]  # [row, strength'] with strength' the remapped one
    return np.repeat(by_strength, 4, axis=1)


def tables_from_dist(dist: np.ndarray, rules: Rules, meta: dict | None = None) -> FieldTables:
    """Win/tie/royalty tables from the opponents' row-key distribution (rows sum to 1)."""
    dist = np.asarray(dist, np.float64)
    dist = dist / dist.sum(axis=1, keepdims=True)
    cdf = np.cumsum(dist, axis=1)
    fw = np.zeros_like(dist)
    fw[:, 1:] = cdf[:, :-1]
    ft = dist.copy()
    if rules.suit_order is not None:
        ft[:] = 0.0  # distinct cards never tie under a suit order
    rk = royalty_by_key(rules)
    paid = dist * rk
    tail = np.cumsum(paid[:, ::-1], axis=1)[:, ::-1]  # sum over keys >= k
    fo = np.zeros_like(dist)
    fo[:, :-1] = tail[:, 1:]  # strictly stronger rows
    fe = paid.sum(axis=1)
    fx = np.zeros((3, dist.shape[1], 4))
    fx[..., 0], fx[..., 1], fx[..., 2] = fw, ft, fo
    return FieldTables(
        fw=fx[..., 0], ft=fx[..., 1], fo=fx[..., 2], fe=fe, fx=fx, dist=dist, meta=dict(meta or {})
    )


def _shipped_index() -> dict[str, Path]:
    """play digest -> shipped table file."""
    out = {}
    for path in sorted(DATA_DIR.glob("field-*.npz")):
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
            out[meta["play_digest"]] = path
        except Exception as exc:  # noqa: BLE001
            log.warning("ignoring unreadable field table %s: %s", path, exc)
    return out


def save_field(tables: FieldTables, path: Path) -> None:
    """Write the distribution (float32, compressed) and metadata atomically."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(
                fh, dist=tables.dist.astype(np.float32), meta=np.array(json.dumps(tables.meta))
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_field_file(path: Path, rules: Rules) -> FieldTables:
    with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        dist = z["dist"]
    if dist.shape != (3, NKEY):
        raise ValueError(f"{path}: field table has shape {dist.shape}, expected (3, {NKEY})")
    return tables_from_dist(dist, rules, meta)


def field_cache_path(rules: Rules) -> Path:
    from evaluator.tables import cache_dir

    return cache_dir() / f"field-v{FIELD_VERSION}-{play_digest(rules)}.npz"


@functools.lru_cache(maxsize=16)
def get_field(rules: Rules) -> FieldTables:
    """Field tables for a ruleset: shipped, else cached, else trained now (and cached)."""
    digest = play_digest(rules)
    shipped = _shipped_index().get(digest)
    if shipped is not None:
        return load_field_file(shipped, rules)
    cached = field_cache_path(rules)
    if cached.exists():
        try:
            return load_field_file(cached, rules)
        except Exception as exc:  # noqa: BLE001 - a bad cache is retrained
            log.warning("field table cache %s unreadable (%s); retraining", cached, exc)
    from solver.strategy.train import train

    log.warning(
        "no field tables for ruleset %r yet: training them now (first use only, cached in %s)",
        rules.name,
        cached.parent,
    )
    tables = train(rules)
    try:
        save_field(tables, cached)
    except OSError as exc:
        log.warning("could not cache field tables in %s: %s", cached, exc)
    return tables


# ------------------------------------------------------------------ setting hands


def _threads() -> int:
    env = os.environ.get("CAPSA_THREADS")
    return max(1, int(env)) if env else (os.cpu_count() or 1)


def set_sorted_hands(
    hands: np.ndarray,
    rules: Rules,
    policy: str = "field",
    field: FieldTables | None = None,
    threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Set sorted hands uint8[n, 13]: (split int32[n,3], keys int64[n,3], roy float64[n,3],
    value float64[n]). Split entries index COMB3 / COMB5 / COMB5 of each sorted hand."""
    from solver.engine.settlement import compile_rules
    from solver.strategy import _kernels as k

    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    t = get_tables()
    ra = compile_rules(rules)
    st = structure()
    if policy == "field":
        field = field or get_field(rules)
        fx, fe = field.fx, field.fe
    else:
        fx = np.zeros((3, 1, 4))
        fe = np.zeros(3)
    n = len(hands)
    split = np.empty((n, 3), np.int32)
    keys = np.empty((n, 3), np.int64)
    roy = np.empty((n, 3), np.float64)
    val = np.empty(n, np.float64)
    code = POLICY_FIELD if policy == "field" else POLICY_GREEDY

    def run(lo: int, hi: int) -> None:
        k._set_hands(
            hands[lo:hi],
            code,
            t.multi5,
            t.flush5,
            t.multi3,
            ra.remap,
            ra.decisive,
            ra.suit_rank,
            ra.roy,
            st.mask5,
            st.idx5,
            st.idx3,
            st.comb85,
            fx,
            fe,
            ra.params,
            split[lo:hi],
            keys[lo:hi],
            roy[lo:hi],
            val[lo:hi],
        )

    nt = min(threads or _threads(), max(1, n // 8))
    if nt <= 1:
        run(0, n)
    else:
        bounds = np.linspace(0, n, nt + 1).astype(int)
        with ThreadPoolExecutor(nt) as pool:
            list(pool.map(run, bounds[:-1], bounds[1:]))
    if rules.one_royalty_per_hand:
        for i in range(n):
            k._one_per_hand(roy[i])
    return split, keys, roy, val


def split_cards(hand_sorted: np.ndarray, split) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(front, middle, back) card arrays of a split of a sorted hand, each sorted high first."""
    f, m, b = (int(x) for x in split)
    rows = (hand_sorted[COMB3[f]], hand_sorted[COMB5[m]], hand_sorted[COMB5[b]])
    return tuple(np.sort(r)[::-1].copy() for r in rows)


def set_hands(hands, rules: Rules | str | None = None, policy: str = "field") -> np.ndarray:
    """Set many hands: uint8[n, 13] -> uint8[n, 13] laid out front(3) + middle(5) + back(5)."""
    rules = load_rules(rules)
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] != 13:
        raise ValueError(f"hands must have shape (n, 13), got {arr.shape}")
    srt = np.sort(arr.astype(np.uint8), axis=1)
    for i in range(len(srt)):  # validate ids and distinctness with clear messages
        if (srt[i, 1:] == srt[i, :-1]).any() or srt[i, -1] > 51:
            parse_hand(arr[i].astype(np.int64))
    split, _, _, _ = set_sorted_hands(srt, rules, policy)
    out = np.empty_like(srt)
    for i in range(len(srt)):
        f, m, b = split_cards(srt[i], split[i])
        out[i, :3], out[i, 3:8], out[i, 8:] = f, m, b
    return out


def set_hand(hand, rules: Rules | str | None = None, policy: str = "field"):
    """Set one hand: (front, middle, back) uint8 arrays."""
    row = set_hands(parse_hand(hand).reshape(1, 13), rules, policy)[0]
    return row[:3], row[3:8], row[8:]
