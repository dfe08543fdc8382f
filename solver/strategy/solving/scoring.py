"""Scorers: the value of every candidate setting of a hand, each its own way.

Every scorer takes the candidates (``solver.strategy.hands.splits.Candidates``) and the
compiled ruleset and returns :class:`Scores`: the expected units per opponent of each
candidate, how sure that is, each row's win/tie/loss rates, and what declaring a natural
would be worth against the same opponents. ``solver.strategy.solving.solve.assemble`` turns
Scores into a ``Solution``; nothing else does.

- ``score_exact``: settled exactly against known opponent settings (``against``).
- ``deal_opponents`` (or ``solver.strategy.solving.drawn.pool_opponents``) then
  ``score_against``: a Monte Carlo best
  response. The unseen cards are dealt to the opponents ``deals`` times, each opponent
  hand is set by the field strategy (and declares any natural it holds), and every
  candidate is settled against every opponent with the exact rules. All candidates meet
  the same opponents (common random numbers), so their differences are sharp. With an
  opponent pool (solver.strategy.opposition.pool) the opponents are hands the field set
  beforehand that share no card with the hand.
- ``score_field``: the field model's value (no sampling).

``score_exact`` and ``score_against`` settle whole tables (``_mc_values``; without the
home run, ``score_against`` runs ``_mc_pairs``, which gives the same numbers pair by
pair, vectorised): with the home run on, a candidate's value at a table counts its own
home run and an opponent's home run against it (docs/rules.md#home-run). The field
model's tables stay pairwise; its value adds the home run at the table from the chances
of scooping (docs/rules.md#the-field-and-the-home-run). What declaring a
natural is worth does not change with the home run: a declared natural stops every
home run at the table (docs/rules.md#surrender-and-naturals-under-the-home-run).
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from solver.engine.code_card import holds_code_card
from solver.engine.compiled import CompiledRules
from solver.engine.errors import InputError
from solver.engine.inputs import quote
from solver.engine.layout import MAX_UNITS, P_FOUL, P_FOUL_NAT, P_HR_MIN, P_HR_MULT, ROWS
from solver.engine.options import MIN_STAKE
from solver.engine.settlement import find_naturals, settle_declared
from solver.strategy.field_model.field import (
    field_row_stats,
    field_values,
    foul_value,
    opponents_royalties,
)
from solver.strategy.field_model.policy import load_set_hands, set_sorted_hands
from solver.strategy.field_model.trained import get_field
from solver.strategy.hands.deal import deal_hands
from solver.strategy.hands.splits import Candidates
from solver.strategy.solving.code_card import with_code_card
from solver.strategy.threads import Stop, in_background, run_ranges

Natural = tuple[int, int, str]
#: Sets dealt opponent hands (sorted uint8[deals * n_opp, 13]) on another thread, which
#: may be stopped: (row keys int64[n, 3], royalties float64[n, 4], fouls bool[n] or None).
#: ``solver.strategy.opposition.opponents.seat_setter`` makes one from the seats' models.
SeatSetter = Callable[[np.ndarray, Stop], tuple[np.ndarray, np.ndarray, np.ndarray | None]]
RowStats = dict[str, dict[str, float]]
#: The parts of a setting's value (``Scores.parts``; docs/solve.md, "Why this setting").
PARTS = ("rows", "bonus", "royalties", "naturals")

#: Memory the Monte Carlo matrix (candidates x deals, float64) may take.
MC_MEMORY = 2 << 30
#: Settlements per chunk of Monte Carlo work (tens of milliseconds; Ctrl-C waits one):
#: whole tables (``_mc_values``), and pair by pair (``_mc_pairs``, ten times faster).
_MC_CHUNK_WORK = 2_000_000
_MC_PAIRS_CHUNK_WORK = 16_000_000


@dataclass
class Scores:
    """What a scorer found for every candidate.

    ``value[i]``: what candidate i is chosen by: its expected units per opponent, or,
    with stakes, its expected staked total (sum over opponents of stake x units).
    ``per_unit`` (Monte Carlo only): float64[n, deals], ``value`` per deal, for paired
    errors. ``exact``: the values are exact (against known opponents).
    ``by_opponent(i)``: expected units from each opponent, float64[n_opp]; ``ev(i)``
    their mean. ``row_stats(i)``: rows' win/tie/loss rates (None when there is nothing
    to compare with). ``declare(natural)``: what declaring the hand's natural is worth
    per opponent; ``declare_by_opponent(natural)`` from each opponent;
    ``declare_per_deal(natural)`` (Monte Carlo only) per deal, on ``value``'s scale.
    ``parts(i)``: where ``ev(i)`` comes from, float64[4] (rows, bonus, royalties,
    opponents' naturals; ``PARTS``), units per opponent, summing to ``ev(i)``.
    """

    method: str  # "mc", "exact", "field" or "greedy"
    value: np.ndarray
    row_stats: Callable[[int], RowStats | None]
    by_opponent: Callable[[int], np.ndarray]
    declare: Callable[[Natural], float]
    declare_by_opponent: Callable[[Natural], np.ndarray]
    per_unit: np.ndarray | None = None
    exact: bool = False
    parts: Callable[[int], np.ndarray] | None = None
    declare_per_deal: Callable[[Natural], np.ndarray] | None = None
    stakes: np.ndarray | None = None  # float64[n_opp] when the value is staked
    #: Every opponent's stake when they are all the same: ``value`` is then unstaked (the
    #: setting is chosen exactly as without stakes) and the money figures are scaled.
    stake: float | None = None
    #: float64[deals, n_opp] (or [1, n_opp]: every deal) the code card's factor of each
    #: pair, which a surrender pays too (strategy.code_card); None: 1 everywhere.
    pair_factor: np.ndarray | None = None

    def ev(self, i: int) -> float:
        """Expected units per opponent of candidate i (unstaked)."""
        if self.stakes is None:
            return float(self.value[i])
        return float(self.by_opponent(i).mean())

    def stderr(self, i: int) -> float | None:
        """Standard error of ``value[i]``: 0 when exact, None for a model's value."""
        if self.per_unit is not None:
            x = self.per_unit[i]
            return float(x.std(ddof=1) / math.sqrt(len(x)))
        return 0.0 if self.exact else None

    def diff(self, i: int, j: int) -> tuple[float, float | None]:
        """``value[i] - value[j]`` and its paired standard error (0 exact, None model)."""
        if self.per_unit is not None:
            d = self.per_unit[i] - self.per_unit[j]
            return float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d)))
        return float(self.value[i] - self.value[j]), (0.0 if self.exact else None)


def check_stakes(stakes: Sequence | None, n_opp: int) -> np.ndarray | None:
    """Stakes as float64[n_opp] (each finite, from ``MIN_STAKE`` to ``MAX_UNITS``), or
    None."""
    if stakes is None:
        return None
    if isinstance(stakes, str) or not isinstance(stakes, Sequence | np.ndarray):
        raise InputError(f"stakes must be a list of {n_opp} numbers, got {quote(stakes)}")
    if len(stakes) != n_opp:
        raise InputError(
            f"stakes: give one per opponent ({n_opp} opponent{'s' * (n_opp > 1)}),"
            f" got {len(stakes)}"
        )
    out = np.empty(n_opp)
    for i, x in enumerate(stakes):
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise InputError(f"stakes: stake {i + 1} must be a number, got {quote(x)}")
        v = float(x)
        if not (math.isfinite(v) and MIN_STAKE <= v <= MAX_UNITS):
            raise InputError(
                f"stakes: stake {i + 1} must be from {MIN_STAKE:g} to {MAX_UNITS:,}, got {quote(x)}"
            )
        out[i] = v
    return out


def uniform_stake(stakes: np.ndarray | None) -> float | None:
    """The stake, when there are stakes and every opponent's is the same, else None.

    Equal stakes change only the scale of the money, never the advice: a solve with
    them chooses exactly as one without (``Scores.stake``), since a staked total in
    floating point (``s * a + s * b + s * c``) can order two settings of equal or nearly
    equal value differently from their plain sum.
    """
    if stakes is None or not bool((stakes == stakes[0]).all()):
        return None
    return float(stakes[0])


FOULED_ROWS: RowStats = {name: {"win": 0.0, "tie": 0.0, "loss": 1.0} for name in ROWS}


def row_stats_against(keys: np.ndarray, okeys: np.ndarray, fouled: bool | None = None) -> RowStats:
    """Win/tie/loss rates of a setting's row keys int64[3] against opponents' keys [m, 3];
    a fouled setting loses every row (``fouled``: whether it is, as ``Candidates.fouls``
    says; None: as its keys say)."""
    if fouled is None:
        fouled = not keys[0] <= keys[1] <= keys[2]
    if fouled:
        return {name: dict(v) for name, v in FOULED_ROWS.items()}
    out = {}
    for r, name in enumerate(ROWS):
        if len(okeys) == 0:
            out[name] = {"win": 0.0, "tie": 0.0, "loss": 0.0}
            continue
        w = float(np.mean(keys[r] > okeys[:, r]))
        t = float(np.mean(keys[r] == okeys[:, r]))
        loss = round(max(0.0, 1 - w - t), 4) + 0.0  # never -0.0 (1 - w - t may be -1e-17)
        out[name] = {"win": round(w, 4) + 0.0, "tie": round(t, 4) + 0.0, "loss": loss}
    return out


# --------------------------------------------------------------------------- exact


def score_exact(
    cands: Candidates,
    cr: CompiledRules,
    okeys: np.ndarray,
    oroy: np.ndarray,
    ofoul: np.ndarray,
    stakes: np.ndarray | None = None,
    hold: np.ndarray | None = None,
) -> Scores:
    """Every candidate settled exactly against each known opponent (summaries; ``hold``
    those who hold the code card), at the whole table (one deal of ``_mc_values``, one
    opponent's weight at a time)."""
    from solver.strategy import _kernels as k

    n_opp = len(okeys)
    n = len(cands)
    per_opp = np.empty((n, n_opp))
    total = np.zeros(n)
    staked = np.zeros(n)
    fouls = cands.fouls
    ra = cr.arrays
    okeys = np.ascontiguousarray(okeys, np.int64)
    oroy = np.ascontiguousarray(oroy, np.float64)
    ofoul = np.ascontiguousarray(ofoul, np.bool_)
    none = np.full(n_opp, -1, np.int64)
    seat = np.eye(n_opp)
    one = np.zeros((n, 1))
    for j in range(n_opp):
        one[:] = 0.0
        k._mc_values(cands.keys, cands.roy, fouls, okeys, oroy, ofoul, none, none, seat[j],
                     ra.params, ra.nat_units, 0, 1, one)  # fmt: skip
        per_opp[:, j] = one[:, 0]
        total += per_opp[:, j]
        if stakes is not None:
            staked += stakes[j] * per_opp[:, j]
    legal_opp = okeys[~ofoul]

    def row_stats(i: int) -> RowStats | None:
        if len(legal_opp) == 0 and not fouls[i]:
            return None
        return row_stats_against(cands.keys[i], legal_opp, bool(fouls[i]))

    # a known opponent whose setting fouled pays a declared natural the flat penalty too
    # under foul_pays_naturals (docs/rules.md#flat-foul-penalty)
    penalty = float(cr.params[P_FOUL]) * float(cr.params[P_FOUL_NAT])

    def declare_by_opponent(nat: Natural) -> np.ndarray:
        return np.full(n_opp, settle_declared(nat, None, cr)) + penalty * ofoul

    opp = Opponents(n_opp, okeys, oroy, none, none, ofoul, hold)

    def parts(i: int) -> np.ndarray:
        return parts_against(cands, i, cr, opp)

    return with_code_card(cands, cr, opp, stakes, Scores(
        "exact",
        total / n_opp if stakes is None else staked,
        row_stats,
        by_opponent=lambda i: per_opp[i].copy(),
        declare=lambda nat: float(declare_by_opponent(nat).mean()),
        declare_by_opponent=declare_by_opponent,
        exact=True,
        stakes=stakes,
        parts=parts,
    ))  # fmt: skip


def parts_against(cands: Candidates, i: int, cr: CompiledRules, opp: Opponents) -> np.ndarray:
    """The parts of candidate i's value (``PARTS``) against deals of opponents ``opp``
    (``n_opp`` a deal, arrays as ``_mc_values``): units per opponent, the mean over the
    deals. The home run's extra (the whole table's value minus the pairwise sum) is
    bonus."""
    from solver.strategy import _kernels as k

    n_opp, okeys, oroy, ofoul = opp.n_opp, opp.keys, opp.roy, opp.foul
    onat, onatkey = opp.nat, opp.nat_key
    ra = cr.arrays
    deals = len(okeys) // n_opp
    one = slice(i, i + 1)
    keys, roy, foul = cands.keys[one], cands.roy[one], cands.fouls[one]
    out = np.empty((1, deals, 4))
    k._mc_parts(keys, roy, foul, okeys, oroy, ofoul, onat, onatkey, ra.params, ra.nat_units, out)
    parts = out[0].sum(axis=0)
    if ra.params[P_HR_MULT] != 1.0 and n_opp >= ra.params[P_HR_MIN]:
        whole = np.zeros((1, deals))
        k._mc_values(keys, roy, foul, okeys, oroy, ofoul, onat, onatkey, np.ones(n_opp),
                     ra.params, ra.nat_units, 0, deals, whole)  # fmt: skip
        parts[1] += float((whole[0] - out[0].sum(axis=1)).sum())
    return parts / (deals * n_opp)


# --------------------------------------------------------------------------- Monte Carlo


def mc_deals(samples: int, n_opp: int) -> int:
    """Deals of the unseen cards for ``samples`` opponent hands (one deal seats them all)."""
    return max(2, math.ceil(samples / n_opp))


def check_mc_memory(n_cand: int, deals: int) -> None:
    """Refuse (InputError) a Monte Carlo run whose matrix would not fit ``MC_MEMORY``."""
    need = n_cand * deals * 8
    if need > MC_MEMORY:
        most = MC_MEMORY // (8 * n_cand)
        raise InputError(
            f"too many samples for this hand: {n_cand} candidate settings x {deals:,} deals "
            f"need {need / 2**30:.1f} GiB; at most {most:,} deals (try fewer --samples)"
        )


@dataclass
class Opponents:
    """Opponent hands dealt and set by the field (or each seat's model): ``n_opp`` seats
    a deal, hands in deal order (deal d, seat o is row ``d * n_opp + o``). Naturals are
    declared (ids >= 0)."""

    n_opp: int
    keys: np.ndarray  # int64[deals * n_opp, 3]
    roy: np.ndarray  # float64[deals * n_opp, 4]
    nat: np.ndarray  # int64[deals * n_opp] natural id, -1 none
    nat_key: np.ndarray  # int64[deals * n_opp]
    foul: np.ndarray | None = None  # bool[deals * n_opp]; None: none fouled
    hold: np.ndarray | None = None  # bool[deals * n_opp] holds the code card; None: none

    def __post_init__(self) -> None:
        if self.foul is None:
            self.foul = np.zeros(len(self.keys), np.bool_)

    @property
    def deals(self) -> int:
        return len(self.keys) // self.n_opp


def deal_opponents(
    hand: np.ndarray,
    cr: CompiledRules,
    n_opp: int,
    deals: int,
    seed: int | None,
    stop: Stop | None = None,
    set_seats: SeatSetter | None = None,
) -> Opponents:
    """``deals`` deals of the cards unseen by ``hand`` to ``n_opp`` opponents, set by
    the field (``set_seats`` None) or by ``set_seats`` (each seat's model:
    ``solver.strategy.opposition.opponents.seat_setter``)."""
    with opponents_in_background(hand, cr, n_opp, deals, seed, stop, set_seats) as opponents:
        return opponents()


@contextlib.contextmanager
def opponents_in_background(
    hand: np.ndarray,
    cr: CompiledRules,
    n_opp: int,
    deals: int,
    seed: int | None,
    stop: Stop | None = None,
    set_seats: SeatSetter | None = None,
) -> Iterator[Callable[[], Opponents]]:
    """``deal_opponents``, set on other threads while the block runs: the block gets a
    function that returns the Opponents (``solve`` finds the hand's candidates
    meanwhile). The hands are dealt before the block, and their naturals are found on
    this thread when the block asks, while the settings are still being made; the
    hand-setting kernel is loaded before the block too, since numba loads one kernel at
    a time. The same opponents as ``deal_opponents``, whatever the timing.
    ``set_seats``: how the seats set their hands (None: the field, with the ruleset's
    tables, which must be ready: ``solver.strategy.field_model.train.ensure_field``)."""
    rng = np.random.default_rng(seed)
    deck = cr.rules.deck
    opp = deal_hands(rng, deals, n_opp, exclude=hand, deck=deck).reshape(deals * n_opp, 13)
    load_set_hands(cr)

    def by_field(hands: np.ndarray, halt: Stop) -> tuple[np.ndarray, np.ndarray, None]:
        # the tables load on that thread too (the first time: reading the shipped file)
        _, okeys, oroy, _ = set_sorted_hands(hands, cr, "field", get_field(cr), stop=halt)
        return okeys, oroy, None

    setter = by_field if set_seats is None else set_seats

    with in_background(lambda halt: setter(opp, halt), stop) as sets:

        def opponents() -> Opponents:
            onat, onatkey = find_naturals(opp, cr)
            okeys, oroy, ofoul = sets()
            hold = holds_code_card(opp, cr) if cr.rules.code_card else None
            return Opponents(n_opp, okeys, oroy, onat, onatkey, ofoul, hold)

        yield opponents


def score_against(
    cands: Candidates,
    cr: CompiledRules,
    opp: Opponents,
    stop: Stop | None = None,
    stakes: np.ndarray | None = None,
) -> Scores:
    """Every candidate settled exactly against every deal of opponents (common random
    numbers); values per opponent per deal, or staked totals per deal with stakes."""
    from solver.strategy import _kernels as k

    deals, n_opp = opp.deals, opp.n_opp
    check_mc_memory(len(cands), deals)
    ra = cr.arrays
    out = np.zeros((len(cands), deals))
    ones = np.ones(n_opp)
    weights = ones if stakes is None else np.ascontiguousarray(stakes, np.float64)
    fouls = cands.fouls

    if cr.home_run_at(n_opp) or opp.foul.any():  # whole tables (or fouled opponents)

        def run(lo: int, hi: int) -> None:
            k._mc_values(cands.keys, cands.roy, fouls, opp.keys, opp.roy, opp.foul, opp.nat,
                         opp.nat_key, weights, ra.params, ra.nat_units, lo, hi, out)  # fmt: skip

        work = _MC_CHUNK_WORK
    else:  # pair by pair: the same numbers from the vectorised kernel
        ob = np.ascontiguousarray(opp.keys.reshape(deals, n_opp, 3).transpose(2, 1, 0))
        orb = np.ascontiguousarray(opp.roy.reshape(deals, n_opp, 4).transpose(2, 1, 0))
        onat = np.ascontiguousarray((opp.nat >= 0).reshape(deals, n_opp).T)
        onv = np.empty(len(opp.nat))
        k._natural_values(-1, 0, opp.nat, opp.nat_key, opp.foul, ra.nat_units, onv, ra.params)
        onv = np.ascontiguousarray(onv.reshape(deals, n_opp).T)

        def run(lo: int, hi: int) -> None:
            k._mc_pairs(cands.keys, cands.roy, fouls, ob, orb, onat, onv, weights, ra.params,
                        lo, hi, out)  # fmt: skip

        work = _MC_PAIRS_CHUNK_WORK
    chunk = max(64, work // max(1, len(cands) * n_opp))
    run_ranges(run, deals, chunk=chunk, stop=stop)
    per_deal = out / n_opp if stakes is None else out
    played = opp.nat < 0

    def by_opponent(i: int) -> np.ndarray:
        seat = np.empty(n_opp)
        one = np.zeros((1, deals))
        for o in range(n_opp):
            one[:] = 0.0
            k._mc_values(cands.keys[i : i + 1], cands.roy[i : i + 1], fouls[i : i + 1],
                         opp.keys, opp.roy, opp.foul, opp.nat, opp.nat_key, np.eye(n_opp)[o],
                         ra.params, ra.nat_units, 0, deals, one)  # fmt: skip
            seat[o] = one.mean()
        return seat

    def natural_values(nat: Natural) -> np.ndarray:
        dv = np.empty(len(opp.nat))
        k._natural_values(nat[0], nat[1], opp.nat, opp.nat_key, opp.foul, ra.nat_units, dv,
                          ra.params)  # fmt: skip
        return dv

    def declare_per_deal(nat: Natural) -> np.ndarray:
        by_seat = natural_values(nat).reshape(deals, n_opp)
        return by_seat.mean(axis=1) if stakes is None else by_seat @ weights

    def parts(i: int) -> np.ndarray:
        return parts_against(cands, i, cr, opp)

    return with_code_card(cands, cr, opp, stakes, Scores(
        "mc",
        per_deal.mean(axis=1),
        lambda i: row_stats_against(cands.keys[i], opp.keys[played], bool(cands.fouls[i])),
        by_opponent,
        declare=lambda nat: float(natural_values(nat).mean()),
        declare_by_opponent=lambda nat: natural_values(nat).reshape(deals, n_opp).mean(axis=0),
        per_unit=per_deal,
        stakes=stakes,
        parts=parts,
        declare_per_deal=declare_per_deal,
    ))  # fmt: skip


# --------------------------------------------------------------------------- field model


def score_field(
    cands: Candidates,
    cr: CompiledRules,
    method: str = "field",
    n_opp: int = 1,
    stakes: np.ndarray | None = None,
) -> Scores:
    """The field model's value of every candidate (per opponent; no sampling). A fouled
    candidate (a played setting) is scooped by every opponent: it pays the scoop and the
    opponents' expected royalties, multiplied (the field never fouls)."""
    f = get_field(cr)
    vals, wt = field_values(cands.keys, cands.roy, cands.hand, cr, f)
    fouls = cands.fouls
    if fouls.any():
        vals[fouls] = foul_value(cr, f, cands.hand)
        wt[fouls] = 0.0
    parts = field_parts(vals, wt, cands.keys, cands.roy, cands.hand, fouls, cr, f)
    return with_code_card(cands, cr, None, stakes,
                          field_scores(vals, wt, cr, method, n_opp, stakes, parts))  # fmt: skip


def field_parts(
    vals: np.ndarray,
    wt: np.ndarray,
    keys: np.ndarray,
    roy: np.ndarray,
    hands: np.ndarray,
    fouls: np.ndarray,
    cr: CompiledRules,
    f: object,
) -> np.ndarray:
    """The parts (``PARTS``) of field values ``vals`` float64[n], float64[n, 4]: rows,
    the expected rows won minus lost (from each row's win and tie, ``wt``); royalties,
    the model's royalty terms as ``_field_values`` adds them (what the setting's rows
    collect when they win, minus what the field's rows collect by beating them; in mode
    "always" each side's own; a learned model's row utility; and the dealt cards'
    royalty); bonus, the rest (scoop or majority, the joint-rows correction, what a
    scoop multiplier adds); naturals 0 (the field model leaves the opponents' naturals
    out). The field's royalties are those given the jokers each setting's hand (``hands``,
    sorted, uint8[n, 13] or uint8[13]) holds. A fouled setting: rows -3, royalties the
    field's expected royalties, lost; the rest bonus."""
    fx = f.fx  # type: ignore[attr-defined]
    collected, expected = opponents_royalties(f, keys, hands)  # type: ignore[arg-type]
    n = len(vals)
    out = np.zeros((n, 4))
    win, tie = wt[:, :, 0], wt[:, :, 1]
    out[:, 0] = (2.0 * win + tie - 1.0).sum(axis=1)
    r = np.arange(3)
    if cr.rules.royalty_mode == "always":
        terms = roy[:, :3] - expected + fx[r[None, :], keys, 3]
    else:  # what a row's royalty adds to its unit (docs/rules.md#tables-as-the-apps-pay-them)
        mine = roy[:, :3] - (roy[:, :3] > 0.0) * float(cr.rules.royalty_replaces_row)
        terms = win * mine - collected + fx[r[None, :], keys, 3]
    out[:, 2] = terms.sum(axis=1) + roy[:, 3]
    flat = cr.rules.foul_penalty is not None  # a flat penalty is all bonus
    out[fouls, 0], out[fouls, 2] = (0.0, 0.0) if flat else (-3.0, -expected[fouls].sum(axis=1))
    out[:, 1] = vals - out[:, 0] - out[:, 2]
    return out


def field_scores(
    vals: np.ndarray,
    wt: np.ndarray,
    cr: CompiledRules,
    method: str,
    n_opp: int = 1,
    stakes: np.ndarray | None = None,
    parts: np.ndarray | None = None,
) -> Scores:
    """Scores from field values float64[n] and rows' (win, tie) float64[n, 3, 2]
    (``solver.strategy.field_model.field.field_values``), and their parts float64[n, 4]
    (``field_parts``). Every seat meets the same field, so a setting's staked value is
    its value times the sum of the stakes."""

    def declare_by_opponent(nat: Natural) -> np.ndarray:
        return np.full(n_opp, settle_declared(nat, None, cr))

    return Scores(
        method,
        vals if stakes is None else vals * stakes.sum(),
        lambda i: field_row_stats(wt[i]),
        by_opponent=lambda i: np.full(n_opp, vals[i]),
        declare=lambda nat: float(settle_declared(nat, None, cr)),
        declare_by_opponent=declare_by_opponent,
        stakes=stakes,
        parts=None if parts is None else (lambda i: parts[i].copy()),
    )


def with_greedy(cands: Candidates, cr: CompiledRules) -> tuple[Candidates, int]:
    """The candidates with the greedy setting among them, and its index.

    Greedy can be dominated (an equal back of other suits may leave a better middle), so
    it is appended when the candidates do not hold its keys.
    """
    from solver.strategy import _kernels as k
    from solver.strategy.hands.splits import prepare_hand, structure

    rows = cands.rows if cands.rows is not None else prepare_hand(cands.hand, cr)
    st = structure()
    f, m, b = k._greedy(rows.k5, st.mask5, st.idx3)
    keys = np.array([rows.k3[f], rows.k5[m], rows.k5[b]])
    hits = np.flatnonzero((cands.keys == keys).all(axis=1))
    if len(hits):
        return cands, int(hits[0])
    return cands.with_split(np.array([[f, m, b]]), cr), len(cands)
