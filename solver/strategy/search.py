"""solve(): the setting of a hand that wins the most units on average.

Data flow: parse -> sort -> strengths, keys and royalties of the 1,287 + 286 subsets ->
legal splits -> Pareto front (when the ruleset makes payoffs monotone in row strength)
-> score the survivors:

- ``mc`` (default): deal the unseen cards to the opponents ``samples`` times (one
  shuffle deals every opponent at the table), set each opponent hand with the field
  strategy (opponents declare any natural they hold, and never surrender), and settle
  every survivor against every opponent with the exact pairwise rules. All survivors
  meet the same opponents, so their differences are precise.
- ``field``: the field-table value of every survivor, no sampling.
- ``greedy``: best back, then best middle, front the rest.
- ``against=[...]``: exact settlement against known opponent settings, no sampling.

Naturals are declared only when that is worth more than playing; surrender is advised
when the best expected value is below minus its cost.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaluator import format_cards, get_tables, parse_hand
from solver.engine.layout import MODE_ALWAYS, P_MODE, P_MULT, P_SCORING, POLICIES, ROWS
from solver.engine.rules import Rules, load_rules

DEFAULT_SAMPLES = 3000


@dataclass
class Solution:
    """The answer for one hand. ``ev`` is units per opponent, ``ev_total`` for the table."""

    hand: str
    rules: str
    policy: str
    players: int
    samples: int | None
    seed: int | None
    front: str
    middle: str
    back: str
    ev: float
    ev_total: float
    stderr: float | None
    row_stats: dict[str, dict[str, float]] | None
    alternatives: list[dict[str, Any]] = field(default_factory=list)
    natural: dict[str, Any] | None = None
    surrender: dict[str, Any] = field(default_factory=dict)
    action: str = "play"
    candidates: int = 0
    ev_play: float = 0.0

    @property
    def setting(self) -> tuple[str, str, str]:
        return self.front, self.middle, self.back

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape printed by ``capsa solve --format json`` (see README)."""
        return {
            "hand": self.hand,
            "rules": self.rules,
            "policy": self.policy,
            "players": self.players,
            "samples": self.samples,
            "seed": self.seed,
            "action": self.action,
            "front": self.front,
            "middle": self.middle,
            "back": self.back,
            "ev": _r(self.ev),
            "ev_total": _r(self.ev_total),
            "ev_play": _r(self.ev_play),
            "stderr": _r(self.stderr),
            "row_stats": self.row_stats,
            "alternatives": self.alternatives,
            "natural": self.natural,
            "surrender": self.surrender,
            "candidates": self.candidates,
        }


def _r(x: float | None, nd: int = 6) -> float | None:
    return None if x is None else round(float(x), nd)


# ------------------------------------------------------------------ candidate splits


@dataclass
class Candidates:
    """A sorted hand's legal splits worth scoring (the Pareto front, or all legal)."""

    hand: np.ndarray  # uint8[13], sorted
    split: np.ndarray  # int32[n, 3] subset indices (front, middle, back)
    keys: np.ndarray  # int64[n, 3]
    roy: np.ndarray  # float64[n, 3] (after one royalty per hand)
    legal: int  # number of legal partitions
    pruned: bool  # whether the Pareto front was taken
    rows: tuple | None = None  # prepare_hand's (k5, k3, r5, r3), when kept


def pareto_safe(rules: Rules) -> bool:
    """Whether a split that is at least as strong in every row is never worth less.

    True when each row's royalty never decreases with strength, royalties are not cut
    to one per hand (the kept royalty could move to a row that loses), and a scoop
    multiplier is not combined with royalties paid whoever wins (being scooped can then
    be worth more than not).
    """
    from solver.engine.settlement import compile_rules

    if rules.one_royalty_per_hand:
        return False
    if rules.royalty_mode == "always" and rules.scoop_multiplier != 1 and rules.royalties:
        return False
    ra = compile_rules(rules)
    t = get_tables()
    order = np.argsort(ra.remap)  # original strengths in ruleset order
    for row, five in ((0, False), (1, True), (2, True)):
        sel = order[t.is_five[order] == five]
        if np.any(np.diff(ra.roy[row, sel]) < 0):
            return False
    return True


def prepare_hand(hand: np.ndarray, rules: Rules) -> tuple[np.ndarray, ...]:
    """Row keys and royalties of every subset of a sorted hand under a ruleset:
    (k5 int64[1287], k3 int64[286], r5 float64[2, 1287] as middle/back, r3 float64[286])."""
    from solver.engine.settlement import compile_rules
    from solver.strategy import _kernels as k

    t = get_tables()
    ra = compile_rules(rules)
    k5 = np.empty(1287, np.int64)
    k3 = np.empty(286, np.int64)
    r5 = np.empty((2, 1287))
    r3 = np.empty(286)
    k._prepare(hand, t.multi5, t.flush5, t.multi3, ra.remap, ra.decisive, ra.suit_rank, ra.roy,
               k5, k3, r5, r3)  # fmt: skip
    return k5, k3, r5, r3


def candidates(hand: np.ndarray, rules: Rules, prune: bool = True) -> Candidates:
    """The splits of a sorted hand to score."""
    from solver.strategy import _kernels as k
    from solver.strategy.policy import structure

    st = structure()
    k5, k3, r5, r3 = rows = prepare_hand(hand, rules)
    legal = np.empty((36036, 3), np.int32)
    n = k._legal_partitions(k3, k5, st.part, legal)
    legal = legal[:n]
    pruned = prune and pareto_safe(rules)
    if pruned:
        keep = np.zeros(n, np.bool_)
        k._pareto(k3, k5, legal, n, keep)
        legal = legal[keep]
    keys = np.stack([k3[legal[:, 0]], k5[legal[:, 1]], k5[legal[:, 2]]], axis=1)
    roy = np.stack([r3[legal[:, 0]], r5[0, legal[:, 1]], r5[1, legal[:, 2]]], axis=1)
    if rules.one_royalty_per_hand:
        for i in range(len(roy)):
            k._one_per_hand(roy[i])
    return Candidates(hand, np.ascontiguousarray(legal), keys, roy, n, pruned, rows)


def _rows_text(hand: np.ndarray, split) -> tuple[str, str, str]:
    from solver.strategy.policy import split_cards

    return tuple(format_cards(r) for r in split_cards(hand, split))


# ------------------------------------------------------------------ scoring


def field_scores(c: Candidates, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """Field value of every candidate, and per-row (win, tie) probabilities [n, 3, 2]."""
    from solver.engine.settlement import compile_rules
    from solver.strategy import _kernels as k
    from solver.strategy.policy import get_field

    f = get_field(rules)
    params = compile_rules(rules).params
    scoring, mult, mode = int(params[P_SCORING]), float(params[P_MULT]), int(params[P_MODE])
    rows = np.arange(3)
    w = f.fw[rows, c.keys]
    t = f.ft[rows, c.keys]
    l = 1.0 - w - t
    if mode == MODE_ALWAYS:
        rt = (c.roy - f.fe[None, :]).sum(axis=1)
    else:
        rt = (w * c.roy - f.fo[rows, c.keys]).sum(axis=1)
    vals = np.array(
        [
            k._field_value(
                w[i, 0],
                t[i, 0],
                l[i, 0],
                w[i, 1],
                t[i, 1],
                l[i, 1],
                w[i, 2],
                t[i, 2],
                l[i, 2],
                rt[i],
                scoring,
                mult,
            )
            for i in range(len(w))
        ]
    )
    return vals, np.stack([w, t], axis=2)


def field_row_stats(wt: np.ndarray) -> dict[str, dict[str, float]]:
    """Per-row win/tie/loss rates from one candidate's field (win, tie) rows, [3, 2]."""
    return {
        name: {
            "win": round(float(wt[r, 0]), 4),
            "tie": round(float(wt[r, 1]), 4),
            "loss": round(float(1 - wt[r, 0] - wt[r, 1]), 4),
        }
        for r, name in enumerate(ROWS)
    }


def _with_greedy(c: Candidates, rules: Rules) -> tuple[Candidates, int]:
    """The candidates with the greedy setting among them, and its index.

    Greedy can be dominated (an equal back of other suits may leave a better middle), so
    it is appended when the Pareto front does not hold its keys.
    """
    from solver.strategy import _kernels as k
    from solver.strategy.policy import structure

    k5, k3, r5, r3 = c.rows if c.rows is not None else prepare_hand(c.hand, rules)
    f, m, b = k._greedy(k5, structure().mask5, structure().idx3)
    keys = np.array([k3[f], k5[m], k5[b]])
    hits = np.flatnonzero((c.keys == keys).all(axis=1))
    if len(hits):
        return c, int(hits[0])
    roy = np.array([r3[f], r5[0, m], r5[1, b]])
    if rules.one_royalty_per_hand:
        k._one_per_hand(roy)
    grown = Candidates(
        c.hand,
        np.vstack([c.split, [[f, m, b]]]).astype(np.int32),
        np.vstack([c.keys, keys]),
        np.vstack([c.roy, roy]),
        c.legal,
        c.pruned,
        c.rows,
    )
    return grown, len(c.keys)


def _threads() -> int:
    from solver.strategy.policy import _threads as t

    return t()


def _deal_opponents(hand: np.ndarray, n_opp: int, deals: int, seed: int | None) -> np.ndarray:
    """Sorted opponent hands uint8[deals * n_opp, 13] dealt from the unseen cards."""
    unseen = np.setdiff1d(np.arange(52, dtype=np.uint8), hand)
    rng = np.random.default_rng(seed)
    perms = rng.permuted(np.tile(unseen, (deals, 1)), axis=1)[:, : 13 * n_opp]
    return np.sort(perms.reshape(deals * n_opp, 13), axis=1)


def _mc_values(c: Candidates, rules: Rules, opp: np.ndarray, n_opp: int):
    """Per-deal totals [n_cand, deals], opponents' keys and natural ids."""
    from solver.engine.settlement import compile_rules, find_naturals
    from solver.strategy import _kernels as k
    from solver.strategy.policy import set_sorted_hands

    ra = compile_rules(rules)
    _, okeys, oroy, _ = set_sorted_hands(opp, rules, "field")
    onat, onatkey = find_naturals(opp, rules)
    deals = len(opp) // n_opp
    out = np.zeros((len(c.keys), deals))

    def run(lo: int, hi: int) -> None:
        k._mc_values(
            c.keys, c.roy, okeys, oroy, onat, onatkey, n_opp, ra.params, ra.nat_units, lo, hi, out
        )

    nt = min(_threads(), max(1, deals // 64))
    if nt <= 1:
        run(0, deals)
    else:
        b = np.linspace(0, deals, nt + 1).astype(int)
        with ThreadPoolExecutor(nt) as pool:
            list(pool.map(run, b[:-1], b[1:]))
    return out, okeys, onat, onatkey


def _row_stats_from_keys(keys: np.ndarray, okeys: np.ndarray) -> dict[str, dict[str, float]]:
    out = {}
    for r, name in enumerate(ROWS):
        if len(okeys) == 0:
            out[name] = {"win": 0.0, "tie": 0.0, "loss": 0.0}
            continue
        w = float(np.mean(keys[r] > okeys[:, r]))
        t = float(np.mean(keys[r] == okeys[:, r]))
        out[name] = {"win": round(w, 4), "tie": round(t, 4), "loss": round(1 - w - t, 4)}
    return out


def _parse_against(against: Sequence, hand: np.ndarray, rules: Rules) -> tuple:
    from evaluator import CardParseError
    from solver.engine.settlement import summarize

    keys, roys, fouls = [], [], []
    used = set(hand.tolist())
    for i, setting in enumerate(against, start=1):
        if isinstance(setting, str):
            parts = setting.split("|")
            if len(parts) != 3:
                raise CardParseError(
                    f"opponent {i}: expected 'front | middle | back', got {setting!r}"
                )
            setting = parts
        try:
            kk, rr, ff = summarize(setting, rules)
        except ValueError as exc:
            raise CardParseError(f"opponent {i}: {exc}") from None
        from evaluator import as_cards

        cards = np.concatenate([as_cards(x) for x in setting]).tolist()
        clash = used.intersection(cards)
        if clash:
            raise CardParseError(
                f"opponent {i}: card {format_cards([min(clash)])!r} is already dealt"
            )
        used.update(cards)
        keys.append(kk)
        roys.append(rr)
        fouls.append(ff)
    return (
        np.array(keys, np.int64).reshape(-1, 3),
        np.array(roys).reshape(-1, 3),
        np.array(fouls, np.bool_),
    )


# ------------------------------------------------------------------ solve


def solve(
    hand: str | Sequence[int] | np.ndarray,
    rules: Rules | str | None = None,
    players: int | None = None,
    policy: str = "mc",
    samples: int | None = None,
    seed: int | None = None,
    against: Sequence | None = None,
    top: int = 3,
) -> Solution:
    """The best setting of a 13-card hand under a ruleset; see the module docstring.

    ``samples`` is the number of opponent hands dealt for ``mc`` (default 3,000);
    ``against`` is a list of opponent settings, each (front, middle, back) or the text
    ``"front | middle | back"``; then the answer is exact for those opponents.
    """
    from evaluator._jit import compiling

    rules = load_rules(rules)
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    players = rules.players if players is None else int(players)
    if not 2 <= players <= 4:
        raise ValueError(f"players must be 2 to 4, got {players}")
    if samples is not None and samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    if top < 0:
        raise ValueError(f"top must be 0 or more, got {top}")
    h = np.sort(parse_hand(hand))
    with compiling("solve", "solver kernels"):
        return _solve(h, rules, players, policy, samples, seed, against, top)


def _solve(h, rules, players, policy, samples, seed, against, top) -> Solution:
    from solver.engine._kernels import _settle_against
    from solver.engine.settlement import (
        compile_rules,
        find_natural,
        natural_setting,
        settle_natural,
    )
    from solver.strategy import _kernels as k

    ra = compile_rules(rules)
    c = candidates(h, rules)
    natural = find_natural(h, rules)
    n_opp = players - 1
    stderr: float | None = None
    row_stats = None
    alternatives: list[dict[str, Any]] = []
    ev_declare: float | None = None
    used_samples: int | None = None

    if against is not None:
        okeys, oroy, ofoul = _parse_against(against, h, rules)
        n_opp = len(okeys)
        if n_opp == 0:
            raise ValueError("against: give at least one opponent setting")
        if n_opp > 3:
            raise ValueError(f"against: at most 3 opponents, got {n_opp}")
        vals = np.zeros(len(c.keys))
        for j in range(n_opp):
            tmp = np.empty(len(c.keys))
            _settle_against(
                c.keys,
                c.roy,
                np.zeros(len(c.keys), np.bool_),
                okeys[j],
                oroy[j],
                bool(ofoul[j]),
                ra.params,
                tmp,
            )
            vals += tmp
        per_opp = vals / n_opp
        order = np.argsort(-per_opp, kind="stable")
        best = int(order[0])
        ev = float(per_opp[best])
        legal_opp = okeys[~ofoul]
        row_stats = _row_stats_from_keys(c.keys[best], legal_opp) if len(legal_opp) else None
        for i in order[1 : top + 1]:
            f, m, b = _rows_text(h, c.split[i])
            d = float(per_opp[i] - per_opp[best])
            alternatives.append(
                {
                    "front": f,
                    "middle": m,
                    "back": b,
                    "ev": _r(per_opp[i]),
                    "diff": _r(d),
                    "diff_stderr": 0.0,
                }
            )
        stderr = 0.0
        if natural is not None:
            ev_declare = float(settle_natural(natural, None, rules))
        policy_used = "exact"
    elif policy == "mc":
        used_samples = samples or DEFAULT_SAMPLES
        deals = max(2, math.ceil(used_samples / n_opp))
        opp = _deal_opponents(h, n_opp, deals, seed)
        vals, okeys, onat, onatkey = _mc_values(c, rules, opp, n_opp)
        per_deal = vals / n_opp
        means = per_deal.mean(axis=1)
        order = np.argsort(-means, kind="stable")
        best = int(order[0])
        ev = float(means[best])
        stderr = float(per_deal[best].std(ddof=1) / math.sqrt(deals))
        played = onat < 0
        row_stats = _row_stats_from_keys(c.keys[best], okeys[played])
        for i in order[1 : top + 1]:
            f, m, b = _rows_text(h, c.split[i])
            diff = per_deal[i] - per_deal[best]
            alternatives.append(
                {
                    "front": f,
                    "middle": m,
                    "back": b,
                    "ev": _r(means[i]),
                    "diff": _r(diff.mean()),
                    "diff_stderr": _r(diff.std(ddof=1) / math.sqrt(deals)),
                }
            )
        if natural is not None:
            nid, nkey, _ = natural
            dv = np.empty(len(onat))
            k._natural_values(natural[0], natural[1], onat, onatkey, ra.nat_units, dv)
            ev_declare = float(dv.mean())
        policy_used = "mc"
    else:
        if policy == "greedy":
            c, best = _with_greedy(c, rules)
        vals, wt = field_scores(c, rules)
        order = np.argsort(-vals, kind="stable")
        if policy == "field":
            best = int(order[0])
        ev = float(vals[best])
        row_stats = field_row_stats(wt[best])
        for i in [j for j in order if j != best][:top]:
            f, m, b = _rows_text(h, c.split[i])
            alternatives.append(
                {
                    "front": f,
                    "middle": m,
                    "back": b,
                    "ev": _r(vals[i]),
                    "diff": _r(vals[i] - vals[best]),
                    "diff_stderr": None,
                }
            )
        if natural is not None:
            ev_declare = float(settle_natural(natural, None, rules))
        policy_used = policy

    front, middle, back = _rows_text(h, c.split[best])
    action = "play"
    nat_info = None
    best_ev = ev
    if natural is not None:
        declared = ev_declare is not None and ev_declare > ev
        nat_info = {
            "name": natural[2],
            "declared": bool(declared),
            "ev_declare": _r(ev_declare),
            "ev_play": _r(ev),
        }
        if declared:
            action = "declare"
            best_ev = ev_declare
            shown = natural_setting(h, rules)
            if shown is not None:
                front, middle, back = (format_cards(np.sort(r)[::-1]) for r in shown)
    cost = rules.surrender_cost
    recommend = cost is not None and best_ev < -cost
    if recommend:
        action = "surrender"
        best_ev = -float(cost)
    return Solution(
        hand=format_cards(h[::-1]),
        rules=rules.name,
        policy=policy_used,
        players=n_opp + 1,
        samples=used_samples,
        seed=seed,
        front=front,
        middle=middle,
        back=back,
        ev=best_ev,
        ev_total=best_ev * n_opp,
        stderr=stderr,
        row_stats=row_stats,
        alternatives=alternatives,
        natural=nat_info,
        surrender={"cost": cost, "recommended": bool(recommend), "ev_play": _r(ev)},
        action=action,
        candidates=len(c.keys),
        ev_play=ev,
    )
