"""The field strategy's tables: per-row win, tie and royalty tables by row key.

The field strategy scores a setting from three per-row tables indexed by row key: the
probability of winning and of tying that row against an opponent who plays the field,
and the royalty that opponent expects to collect on it. The tables are derived from the
distribution of each row's key when many random hands are set with the field strategy
itself (see solver.strategy.train); that distribution is what ships in ``solver/data``
(regenerate with ``capsa train --rules NAME --ship``).
"""

from __future__ import annotations

import functools
import json
import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from solver.engine.compiled import CompiledRules, compile_rules
from solver.engine.layout import NKEY, ROWS
from solver.engine.rules import Rules

log = logging.getLogger("capsa")

DATA_DIR = Path(__file__).parent.parent / "data"
FIELD_VERSION = 1


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


def tables_from_dist(
    dist: np.ndarray, rules: Rules | CompiledRules, meta: dict | None = None
) -> FieldTables:
    """Win/tie/royalty tables from the opponents' row-key distribution (rows sum to 1)."""
    cr = compile_rules(rules)
    dist = np.asarray(dist, np.float64)
    dist = dist / dist.sum(axis=1, keepdims=True)
    cdf = np.cumsum(dist, axis=1)
    fw = np.zeros_like(dist)
    fw[:, 1:] = cdf[:, :-1]
    ft = dist.copy()
    if cr.rules.suit_order is not None:
        ft[:] = 0.0  # distinct cards never tie under a suit order
    rk = cr.royalty_by_key
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


def get_field(rules: Rules | CompiledRules) -> FieldTables:
    """Field tables for a ruleset: shipped, else cached, else trained now (and cached)."""
    return _get_field(compile_rules(rules).rules)


def field_ready(rules: Rules | CompiledRules) -> bool:
    """Whether the ruleset's field tables are shipped or cached, so that ``get_field``
    will not have to train them (which takes minutes)."""
    r = compile_rules(rules).rules
    return play_digest(r) in _shipped_index() or field_cache_path(r).exists()


def forget_fields() -> None:
    """Drop the field tables held in memory (after new ones are written)."""
    _get_field.cache_clear()


@functools.lru_cache(maxsize=16)
def _get_field(rules: Rules) -> FieldTables:
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


def field_values(
    keys: np.ndarray,
    roy: np.ndarray,
    rules: Rules | CompiledRules,
    field: FieldTables | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Field value of settings from their row keys int64[n, 3] and royalties float64[n, 4]
    (per opponent, under the ruleset's scoring, rows independent), and each row's
    (win, tie) probabilities float64[n, 3, 2]."""
    from solver.strategy import _kernels as k

    cr = compile_rules(rules)
    f = field if field is not None else get_field(cr)
    n = len(keys)
    vals = np.empty(n)
    wt = np.empty((n, 3, 2))
    k._field_values(
        np.ascontiguousarray(keys, np.int64), np.ascontiguousarray(roy, np.float64),
        f.fx, f.fe, cr.params, vals, wt,
    )  # fmt: skip
    return vals, wt


def field_row_stats(wt: np.ndarray) -> dict[str, dict[str, float]]:
    """Per-row win/tie/loss rates from one setting's field (win, tie) rows, float64[3, 2]."""
    return {
        name: {
            "win": round(float(wt[r, 0]), 4),
            "tie": round(float(wt[r, 1]), 4),
            "loss": round(float(1 - wt[r, 0] - wt[r, 1]), 4),
        }
        for r, name in enumerate(ROWS)
    }
