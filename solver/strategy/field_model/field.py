"""The field strategy's model: per-row tables by row key, and two corrections.

The field strategy scores a setting from three per-row tables indexed by row key: the
probability of winning and of tying that row against an opponent who plays the field,
and the royalty that opponent expects to collect on it. The tables are derived from the
distribution of each row's key when many random hands are set with the field strategy
itself (see solver.strategy.field_model.train). Two corrections make the value match what the
setting wins against field opponents (a Monte Carlo settlement) much more closely:

- **card removal**: the opponent's 13 cards come from the 39 the hand does not hold. The
  change of each row's P(win) when the hand holds n cards of rank q (``rank``) or n of
  one suit (``suit``) is stored on knots evenly spaced in the field's P(win), and a
  hand's shift is the sum over its ranks and suits (first order). At a deck with
  jokers ``rank`` has a fourteenth rank, the jokers: n of them held (0, 1, 2) shifts
  as the dealing deals the rest to the opponents (docs/rules.md#jokers), and the
  royalties the opponents collect are taken from their rows' keys given the n jokers
  the hand holds (``jdist``): a hand holding both leaves them none to make their
  royalty rows with (docs/strength.md#the-jokers-in-the-opponents-royalties);
- **joint rows**: an opponent's three rows are strongly correlated, and the scoring's
  bonus (scoop, 2-4, multiplier) depends on all three. The difference between the true
  joint outcome and independent rows, as a function of the three rows' midranks (win +
  tie / 2), is stored on a small grid (``cop``: E[s_f s_m s_b], P(win all), P(lose all)
  corrections, s = +1/-1 for a row won/lost) and interpolated trilinearly.

What ships in ``solver/data`` (regenerate with ``capsa train --rules NAME --ship``) is
the row-key distribution and the two corrections (format version 2; a version 1 file, the
distribution alone, still loads, without corrections). This module is the model and its
store (files, the cache path); ``solver.strategy.field_model.trained.get_field`` finds a ruleset's
tables, shipped, cached or trained now.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from evaluator.cards import JOKER_FACE
from solver.engine.caches import Cache
from solver.engine.compiled import CompiledRules
from solver.engine.layout import ROWS
from solver.engine.rules import Rules
from solver.engine.table_shape import DECKS

log = logging.getLogger("capsa")

DATA_DIR = Path(__file__).parents[2] / "data"
FIELD_VERSION = 2
#: Knots of the card-removal shift (evenly spaced in P(win), both ends included: K + 1).
KNOTS = 256
#: Cells a side of the joint-correction grid (nodes: GRID + 1 a side).
GRID = 8


class FieldModel(NamedTuple):
    """The field model as one kernel argument (C-contiguous float64 arrays); see
    solver.strategy._kernels (``_row_terms``, ``_hand_shift``, ``_model_value``)."""

    fx: np.ndarray  # [3, nkey, 4] P(win), P(tie), royalty an opponent collects, row utility
    fe: np.ndarray  # [3] an opponent's expected row royalty
    rank: np.ndarray  # [3, Q, R + 1, K + 1] P(win) shift when holding n of rank q (R: the
    #                  deck's cards of a rank, 4 or 5 and 6 with added suits; Q: 13, and
    #                  14 at a deck with jokers, rank 13 the jokers held)
    suit: np.ndarray  # [3, 14, K + 1] P(win) shift when holding n of one suit
    joint: np.ndarray  # [G + 1]^3 units the joint rows add ([1, 1, 1]: none)
    jslab: np.ndarray  # [G] largest ``joint`` node between the back midranks z/G, (z+1)/G
    jw: np.ndarray  # [G + 1]^3 P(win all three) correction ([1, 1, 1]: not used)
    jl: np.ndarray  # [G + 1]^3 P(lose all three) correction
    jmax: np.ndarray  # [1] largest jw node
    util: np.ndarray  # [1] 1.0 when fx[..., 3] holds a row utility (a learned model's), else 0.0
    jx: np.ndarray  # [J + 1, 3, nkey, 2] by the jokers the hand holds (J: the deck's; 0 without
    #                jokers): the royalty an opponent collects by beating a row of this key,
    #                and how often it beats it, from its rows' keys given those jokers held
    je: np.ndarray  # [J + 1, 3] an opponent's expected row royalty given those jokers held
    hr: np.ndarray  # [4] the home run at the table (``field_model.home_run``): the multiplier
    #                less 1 (0: none, as every table file's and learned model's), the
    #                opponents, the chance none declares a natural, the chance an opponent
    #                who scooped the setting scoops the others too


class FieldTables(NamedTuple):
    """Per-row field tables, indexed [row, key], the corrections, and the kernel model."""

    fw: np.ndarray  # float64[3, nkey] P(win the row)
    ft: np.ndarray  # float64[3, nkey] P(tie)
    fo: np.ndarray  # float64[3, nkey] royalty an opponent collects by beating this row
    fe: np.ndarray  # float64[3] an opponent's expected row royalty
    fx: np.ndarray  # float64[3, nkey, 4] fw, ft, fo and the row utility interleaved
    #                 (fw/ft/fo are views of it; the utility is 0 but in a learned model)
    dist: np.ndarray  # float64[3, nkey] the opponent's row-key distribution (as stored)
    meta: dict
    rank: np.ndarray  # float64[3, Q, R + 1, K + 1] (stored) card-removal shift by rank count
    #                   (Q = 14 at a deck with jokers: rank 13 counts the jokers)
    suit: np.ndarray  # float64[3, 14, K + 1] (stored) card-removal shift by suit count
    cop: np.ndarray  # float64[3, G + 1, G + 1, G + 1] (stored) E[s s s], P(win all),
    #                  P(lose all) corrections at the midrank nodes
    model: FieldModel
    jdist: np.ndarray  # float32[J + 1, 3, nkey] (stored at a deck with jokers, else [0, 3,
    #                    nkey]) the opponent's row-key distribution given n jokers held
    scoop: np.ndarray  # float64[5] (stored; [0] when not) E[pw^k], k = 1..5, over the field's
    #                    own settings (pw: a setting's chance of scooping one field opponent),
    #                    from which the home run at a table is reckoned (``home_run_at``)


def play_digest(rules: Rules) -> str:
    """Digest of the settings that change the field's tables (not players, surrender,
    naturals and their ties, nor the home run: the tables are pairwise, and the home run
    at the table is added to their value, docs/rules.md#the-field-and-the-home-run; nor
    the flat foul penalty: the field sets legal hands against legal hands; nor the code
    card: the field ignores it, docs/rules.md#the-field-and-the-code-card; nor
    ``split_ranks``, a natural's rule; nor which suits a deck adds, when no suit order
    tells them apart: ``_play_suits``; nor the banker's seat and the pair cap: the field
    plays a pair, and leaves the cap out of its values,
    docs/rules.md#the-field-at-a-bankers-table)."""
    return replace(
        rules,
        name="play",
        players=4,
        surrender_cost=None,
        naturals=(),
        home_run_multiplier=1,
        home_run_min_opponents=3,
        natural_ties="order",
        foul_penalty=None,
        foul_pays_naturals=False,
        code_card=None,
        code_card_multiplier=2,
        code_card_both="once",
        split_ranks=False,
        extra_suits=_play_suits(rules),
        banker=False,
        pair_cap=None,
    ).digest()


def tables_digest(tables: FieldTables) -> str:
    """32 hex digits over the arrays the kernels read of ``tables`` (``FieldTables.model``):
    the same for the same tables however they were found (shipped, cached, trained now),
    another for tables trained again or replaced; what a batch run keeps in its run file
    (docs/batch.md#the-run-file)."""
    h = hashlib.sha256(b"capsa-field-tables;")
    for name, a in tables.model._asdict().items():
        arr = np.ascontiguousarray(a)
        h.update(f"{name}:{arr.dtype.str}:{arr.shape};".encode())
        h.update(arr.tobytes())
    return h.hexdigest()[:32]
def _play_suits(rules: Rules) -> str:
    """The added suits as the field's play sees them: without a suit order no row's
    strength depends on which suit is dealt twice, so every deck adding one suit plays as
    ``"h"`` and every deck adding two as ``"hc"`` (the shipped tables' decks,
    docs/rules.md#added-suits); with a suit order, the ruleset's own."""
    if rules.suit_order is not None:
        return rules.extra_suits
    return ("", "h", "hc")[len(rules.extra_suits)]


def foul_value(cr: CompiledRules, f: FieldTables, hand: np.ndarray | None = None) -> float:
    """What a fouled setting is worth against one field opponent (who never fouls): it is
    scooped, paying the scoop and the opponent's expected royalties (rows at their whole
    value where the ruleset says so; given the jokers the sorted ``hand`` holds, when
    given), multiplied; or the flat penalty (docs/rules.md#flat-foul-penalty)."""
    if cr.rules.foul_penalty is not None:
        return -float(cr.rules.foul_penalty)
    scoop = {"per-row": 3.0, "1-6": 6.0, "2-4": 4.0}[cr.rules.scoring]
    theirs = f.fe if hand is None else opponents_royalties(f, np.zeros((1, 3)), hand)[1][0]
    paid = (scoop + float(theirs.sum())) * float(cr.rules.scoop_multiplier)
    return -paid - float(cr.rules.scoop_bonus)  # docs/rules.md#the-bankers-table: no cap here


def _f32(a: np.ndarray) -> np.ndarray:
    """float64 copy of ``a`` rounded to float32 (what a table file holds), C-contiguous."""
    return np.ascontiguousarray(np.asarray(a, np.float32), np.float64)


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, np.float64)
    a.setflags(write=False)
    return a


#: ``FieldModel.hr`` of a pairwise value: no home run (docs/rules.md#the-field-and-the-home-run).
NO_HOME_RUN = _frozen(np.zeros(4))
#: Hands the home run's chances are measured on, and their seed (``home_run_at``, and
#: ``scoop`` in training: solver.strategy.field_model.train).
HOME_RUN_SAMPLE = 4000
HOME_RUN_SEED = 20261206


def plays_home_run(rules: Rules) -> bool:
    """Whether the ruleset's table plays the home run: its multiplier above 1, enough
    opponents, and no banker (docs/rules.md#home-run)."""
    return (
        rules.home_run_multiplier != 1
        and rules.players - 1 >= rules.home_run_min_opponents
        and not rules.banker
    )


def home_run_at(cr: CompiledRules, scoop: np.ndarray) -> np.ndarray:
    """float64[4] ``FieldModel.hr`` at the ruleset's table
    (docs/rules.md#the-field-and-the-home-run): the multiplier less 1 (0: no home run),
    the opponents m, the chance none of them declares a natural, and the chance that an
    opponent who scooped a setting scoops the m - 1 others too with none of the table
    declaring: E[pw^m] / E[pw] (``scoop``, the trained tables' moments: an opponent
    weighed by its chance of scooping one player) times the chance of no natural among
    the m."""
    rules = cr.rules
    if not plays_home_run(rules):
        return NO_HOME_RUN
    m = rules.players - 1
    scoop = np.asarray(scoop, np.float64)
    clear = _shows(cr) ** m
    others = float(scoop[m - 1] / scoop[0]) if scoop[0] > 0.0 else 0.0
    return _frozen(np.array([float(rules.home_run_multiplier) - 1.0, m, clear, others * clear]))


def _shows(cr: CompiledRules) -> float:
    """The share of hands that declare no natural, of ``HOME_RUN_SAMPLE`` dealt from the
    ruleset's deck (a field player declares the natural it holds); once per ruleset."""
    from solver.engine.settlement import find_naturals
    from solver.strategy.hands.deal import random_hands

    def measure() -> float:
        if not cr.rules.naturals:
            return 1.0
        rng = np.random.default_rng(HOME_RUN_SEED)
        hands = random_hands(rng, HOME_RUN_SAMPLE, cr.rules.deck)
        return float((find_naturals(hands, cr)[0] < 0).mean())

    got = _SHOWS.get(cr.rules, measure)
    assert got is not None
    return got


#: ``_shows`` by ruleset.
_SHOWS: Cache[Rules, float] = Cache("hands without a natural", 64)


def with_scoop(tables: FieldTables, cr: CompiledRules, scoop: np.ndarray) -> FieldTables:
    """``tables`` keeping the moments of the field's own scoop chances (``scoop`` float[5],
    at float32 as a file keeps them: ``FieldTables.scoop``) and, from them, the home run
    at the ruleset's table in their value (``FieldModel.hr``, ``home_run_at``)."""
    kept = _f32(scoop)
    return tables._replace(scoop=kept, model=tables.model._replace(hr=home_run_at(cr, kept)))


def pairwise(tables: FieldTables) -> FieldTables:
    """``tables`` without the home run (how training and learned models value a setting)."""
    if not tables.model.hr.any():
        return tables
    return tables._replace(model=tables.model._replace(hr=NO_HOME_RUN))


def field_tables(
    dist: np.ndarray,
    cr: CompiledRules,
    rank: np.ndarray | None = None,
    suit: np.ndarray | None = None,
    cop: np.ndarray | None = None,
    meta: dict | None = None,
    util: np.ndarray | None = None,
    jdist: np.ndarray | None = None,
) -> FieldTables:
    """The field model from the opponents' row-key distribution (each row is normalised)
    and the two corrections (None: none). Every array is taken at float32 precision, as a
    table file keeps it (``dist`` as given, then normalised), so trained tables and the
    same tables loaded from a file agree bit for bit. ``util`` float[3, nkey] (a learned
    opponent model's, solver.strategy.opposition.learn): units added to a setting's value for each
    row's key, kept beside the field's tables in ``fx[..., 3]`` (which the setting
    kernels add to each row's term, whatever the scoring, the scoop multiplier and the
    royalty mode: docs/opponents.md#learned-models). ``jdist`` float[J + 1, 3, nkey] (a
    deck with J jokers): the opponent's row-key distribution given n jokers held, whose
    royalties the opponents collect against a hand holding n (None: the distribution's
    own for every n). The value is pairwise: ``with_scoop`` adds the home run at the
    ruleset's table."""
    stored = _f32(dist)
    dist = stored / stored.sum(axis=1, keepdims=True)
    rk = cr.royalty_by_key
    if cr.rules.royalty_replaces_row:  # what a row's royalty adds to its unit
        rk = np.where(rk > 0.0, rk - 1.0, rk)
    fw, ft, fo, fe = _row_tables(dist, cr, rk)
    jdist, jx, je = _by_jokers(cr, dist, jdist, rk)
    fx = np.zeros((3, dist.shape[1], 4))
    fx[..., 0], fx[..., 1], fx[..., 2] = fw, ft, fo
    if util is not None:
        fx[..., 3] = _f32(util)
    rank, suit = _card_removal(cr, rank, suit)
    none = np.zeros((1, 1, 1))
    joint, jw, jl = none, none, none
    cop = np.zeros((3, 1, 1, 1)) if cop is None else _f32(cop)
    g = cop.shape[1]
    if cop.shape != (3, g, g, g):
        raise ValueError(f"joint-correction grid has shape {cop.shape}, expected (3, n, n, n)")
    if g >= 2:  # one node a side: no joint correction
        c_t, c_w, c_l = cop
        mult = float(cr.rules.scoop_multiplier)
        scoring = cr.rules.scoring
        swing = c_w - c_l  # correction of P(win all) - P(lose all)
        if scoring == "2-4":  # bonus = (S - s_f s_m s_b) / 2 without ties
            joint = -0.5 * c_t + (mult - 1.0) * 4.0 * swing
        elif scoring == "1-6":
            joint = 3.0 * swing + (mult - 1.0) * 6.0 * swing
        elif mult != 1.0:
            joint = (mult - 1.0) * 3.0 * swing
        if cr.rules.scoop_bonus:  # the units a scoop adds (docs/rules.md#the-bankers-table)
            joint = joint + float(cr.rules.scoop_bonus) * swing
        # P(win all), P(lose all) corrected where the royalties are multiplied on a scoop,
        # or a scoop of the table is a home run (docs/rules.md#the-field-and-the-home-run)
        if (mult != 1.0 and cr.rules.royalties) or cr.rules.home_run_multiplier != 1:
            jw, jl = c_w, c_l
    jslab = np.zeros(1)
    if joint.shape[0] > 1:
        top = joint.max(axis=(0, 1))
        jslab = np.maximum(top[:-1], top[1:])
    model = FieldModel(
        fx=_frozen(fx), fe=_frozen(fe), rank=_frozen(rank), suit=_frozen(suit),
        joint=_frozen(joint), jslab=_frozen(jslab), jw=_frozen(jw), jl=_frozen(jl),
        jmax=_frozen(np.array([max(0.0, float(jw.max()))])),
        util=_frozen(np.array([float(np.any(fx[..., 3] != 0.0))])), jx=_frozen(jx),
        je=_frozen(je), hr=NO_HOME_RUN,
    )  # fmt: skip
    return FieldTables(
        fw=model.fx[..., 0], ft=model.fx[..., 1], fo=model.fx[..., 2], fe=model.fe,
        fx=model.fx, dist=stored, meta=dict(meta or {}), rank=rank, suit=suit, cop=cop,
        model=model, jdist=jdist, scoop=np.zeros(0),
    )  # fmt: skip


def _row_tables(
    dist: np.ndarray, cr: CompiledRules, rk: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """From normalised row-key distributions float64[..., nkey] and the royalty each key
    adds to its row's unit: P(win) and P(tie) of a row of each key, the royalty an
    opponent collects by beating it (its rows strictly stronger) and its expected row
    royalty."""
    cdf = np.cumsum(dist, axis=-1)
    fw = np.zeros_like(dist)
    fw[..., 1:] = cdf[..., :-1]
    ft = dist.copy()
    if cr.rules.suit_order is not None:
        ft[:] = 0.0  # distinct cards never tie under a suit order
    paid = dist * rk
    tail = np.cumsum(paid[..., ::-1], axis=-1)[..., ::-1]  # sum over keys >= k
    fo = np.zeros_like(dist)
    fo[..., :-1] = tail[..., 1:]  # strictly stronger rows
    return fw, ft, fo, paid.sum(axis=-1)


def _by_jokers(
    cr: CompiledRules, dist: np.ndarray, jdist: np.ndarray | None, rk: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stored ``jdist`` (float32; [0, 3, nkey] without jokers) and the model's ``jx``,
    ``je`` (``FieldModel``): the opponents' royalties by the jokers the hand holds, from
    ``jdist`` (every entry the distribution ``dist``'s own when it is None, and the one
    entry at a deck without jokers)."""
    jokers = cr.rules.deck.jokers
    nkey = dist.shape[1]
    if jdist is None:
        given = np.broadcast_to(dist, (jokers + 1, 3, nkey))
        stored = np.zeros((0, 3, nkey), np.float32) if not jokers else _f32(given)
    else:
        stored = _f32(jdist)
        if not jokers or stored.shape != (jokers + 1, 3, nkey):
            raise ValueError(f"jokers' row-key tables have shape {stored.shape}, expected "
                             f"({jokers + 1}, 3, {nkey})")  # fmt: skip
        if not np.isfinite(stored).all() or (stored < 0).any():
            raise ValueError("jokers' row-key tables are damaged")
        if not (stored.sum(axis=2) > 0).all():
            raise ValueError("jokers' row-key tables are empty")
        given = stored.astype(np.float64)
        given /= given.sum(axis=2, keepdims=True)
    fw, ft, fo, fe = _row_tables(np.asarray(given, np.float64), cr, rk)
    return stored, np.stack([fo, 1.0 - fw - ft], axis=-1), fe


def _card_removal(
    cr: CompiledRules, rank: np.ndarray | None, suit: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The rank and suit shifts at float32 precision (None: none), checked against the
    deck: counts 0 .. R of a rank, and at a deck with jokers a fourteenth rank, the
    jokers held (a table without it, trained before capsa counted them, is refused)."""
    of_a_rank = cr.rules.deck.of_a_rank + 1  # counts 0 .. R of a rank
    ranks = 13 + (cr.rules.deck.jokers > 0)  # the jokers count as a fourteenth rank
    rank = np.zeros((3, ranks, of_a_rank, 2)) if rank is None else _f32(rank)
    suit = np.zeros((3, 14, rank.shape[3])) if suit is None else _f32(suit)
    knots = rank.shape[3]
    if rank.shape[1] == 13 < ranks:
        raise ValueError("field table leaves the jokers out of its card removal (trained "
                         "before capsa counted them): train it again")  # fmt: skip
    if rank.shape[:3] != (3, ranks, of_a_rank) or knots < 2 or suit.shape != (3, 14, knots):
        raise ValueError(f"card-removal shapes {rank.shape}, {suit.shape} do not fit")
    return rank, suit


@functools.cache
def empty_model() -> FieldModel:
    """A field model with nothing in it (for greedy, which reads none; its rank shift
    counts as many of a rank as any deck holds)."""
    z = _frozen(np.zeros((1, 1, 1)))
    of_a_rank = max(d.of_a_rank for d in DECKS.values()) + 1
    return FieldModel(
        fx=_frozen(np.zeros((3, 1, 4))), fe=_frozen(np.zeros(3)),
        rank=_frozen(np.zeros((3, 13, of_a_rank, 2))), suit=_frozen(np.zeros((3, 14, 2))),
        joint=z, jslab=_frozen(np.zeros(1)), jw=z, jl=z, jmax=_frozen(np.zeros(1)),
        util=_frozen(np.zeros(1)), jx=_frozen(np.zeros((1, 3, 1, 2))),
        je=_frozen(np.zeros((1, 3))), hr=NO_HOME_RUN,
    )  # fmt: skip


def tables_from_dist(dist: np.ndarray, cr: CompiledRules, meta: dict | None = None) -> FieldTables:
    """The field model from the row-key distribution alone (no corrections)."""
    return field_tables(dist, cr, meta=meta)


def shipped_index() -> dict[str, Path]:
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


def save_field(
    tables: FieldTables,
    path: Path,
    *,
    extra: dict[str, np.ndarray] | None = None,
    meta: dict | None = None,
) -> None:
    """Write the distribution and the corrections (float32, compressed) and the metadata
    (``meta``, else the tables'), whole or not at all (``evaluator.files.atomic_write``);
    ``extra``: more float32 arrays after the corrections (a learned model's utility)."""
    from evaluator.files import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {
        name: a.astype(np.float32)
        for name, a in {
            "dist": tables.dist,
            "rank": tables.rank,
            "suit": tables.suit,
            "cop": tables.cop,
            **({"jdist": tables.jdist} if len(tables.jdist) else {}),
            **({"scoop": tables.scoop} if len(tables.scoop) else {}),
            **(extra or {}),
        }.items()
    }
    arrays["meta"] = np.array(json.dumps(tables.meta if meta is None else meta))
    atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays), binary=True)


def load_field_file(path: Path, cr: CompiledRules) -> FieldTables:
    """Field tables from a file ``save_field`` wrote (a version 1 file, the distribution
    alone, loads without corrections). Raises ValueError naming the file when it does not
    fit."""
    with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        dist = z["dist"]
        extra = {name: z[name] for name in ("rank", "suit", "cop") if name in z.files}
        jdist = z["jdist"] if "jdist" in z.files else None
        scoop = z["scoop"] if "scoop" in z.files else None
    if dist.shape != (3, cr.nkey):
        raise ValueError(f"{path}: field table has shape {dist.shape}, expected (3, {cr.nkey})")
    version = meta.get("version", 1)
    if not isinstance(version, int) or not 1 <= version <= FIELD_VERSION:
        raise ValueError(f"{path}: field table version {version!r}, this capsa reads 1 to "
                         f"{FIELD_VERSION}")  # fmt: skip
    if version >= 2 and len(extra) != 3:
        raise ValueError(f"{path}: field table version {version} lacks its corrections")
    if version >= 2 and cr.rules.deck.jokers and jdist is None:
        raise ValueError(f"{path}: field table leaves the jokers out of the opponents' "
                         "royalties (trained before capsa counted them): train it again")
    if scoop is not None and (
        scoop.shape != (5,) or not np.isfinite(scoop).all() or ((scoop < 0) | (scoop > 1)).any()
    ):
        raise ValueError(f"{path}: field table's scoop moments are damaged")
    try:
        tables = field_tables(dist, cr, meta=meta, jdist=jdist, **extra)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    if scoop is not None:
        tables = with_scoop(tables, cr, scoop)
    if version >= 2 and scoop is None and plays_home_run(cr.rules):
        raise ValueError(f"{path}: field table leaves the home run out (trained before capsa "
                         "counted it at a table): train it again")
    return tables


def field_cache_path(cr: CompiledRules) -> Path:
    """Where tables trained for the ruleset are cached (named after its play digest)."""
    from evaluator.tables import cache_dir

    return cache_dir() / f"field-v{FIELD_VERSION}-{play_digest(cr.rules)}.npz"


def field_values(
    keys: np.ndarray,
    roy: np.ndarray,
    hands: np.ndarray,
    cr: CompiledRules,
    field: FieldTables,
) -> tuple[np.ndarray, np.ndarray]:
    """Field value of settings from their row keys int64[n, 3], royalties float64[n, 4]
    and the sorted hands they set (uint8[n, 13], or uint8[13] for all: the opponents
    cannot hold those cards), per opponent under the ruleset's scoring; and each row's
    (win, tie) probabilities float64[n, 3, 2] (``field``: the tables,
    ``solver.strategy.field_model.trained.get_field``)."""
    vals, wt, _ = _values(keys, roy, hands, cr, field)
    return vals, wt


def scoop_chances(
    keys: np.ndarray, roy: np.ndarray, hands: np.ndarray, cr: CompiledRules, field: FieldTables
) -> np.ndarray:
    """float64[n, 2]: each setting's chances of winning and of losing all three rows
    against one field opponent, as ``field_values`` reckons them (its arguments)."""
    return _values(keys, roy, hands, cr, field)[2]


def _values(
    keys: np.ndarray, roy: np.ndarray, hands: np.ndarray, cr: CompiledRules, field: FieldTables
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from solver.strategy import _kernels as k

    n = len(keys)
    hands = np.asarray(hands, np.uint8)
    if hands.ndim == 1:
        hands = np.broadcast_to(hands, (n, 13))
    vals = np.empty(n)
    wt = np.empty((n, 3, 2))
    sc = np.empty((n, 2))
    k._field_values(
        np.ascontiguousarray(keys, np.int64), np.ascontiguousarray(roy, np.float64),
        np.ascontiguousarray(hands), field.model, cr.params, vals, wt, sc,
    )  # fmt: skip
    return vals, wt, sc


def opponents_royalties(
    field: FieldTables, keys: np.ndarray, hands: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """What the field's opponents collect against settings given by their row keys int[n,
    3] of sorted hands uint8[n, 13] (or uint8[13] for all), as the kernels charge it: on
    each row, the royalty an opponent collects by beating it, and its expected row
    royalty (mode "always"), both given the jokers the hand holds. float64[n, 3] each."""
    jx, je = field.model.jx, field.model.je
    held = (np.asarray(hands).reshape(-1, 13) == JOKER_FACE).sum(axis=1)
    held = np.broadcast_to(np.minimum(held, len(jx) - 1), (len(keys),))
    rows = np.arange(len(ROWS))[None, :]
    return jx[held[:, None], rows, np.asarray(keys, np.int64), 0], je[held]


def field_row_stats(wt: np.ndarray) -> dict[str, dict[str, float]]:
    """Per-row win/tie/loss rates from one setting's field (win, tie) rows, float64[3, 2]."""
    return {
        name: {
            "win": round(float(wt[r, 0]), 4) + 0.0,  # + 0.0: never -0.0
            "tie": round(float(wt[r, 1]), 4) + 0.0,
            "loss": round(max(0.0, float(1 - wt[r, 0] - wt[r, 1])), 4) + 0.0,
        }
        for r, name in enumerate(ROWS)
    }
