"""solve(): the setting of a hand that wins the most units on average.

Data flow (docs/architecture.md): validate -> compile the ruleset once -> sort the hand
-> candidates (keys and royalties of the 1,287 + 286 subsets, the legal splits, their
Pareto front when the ruleset allows) -> a scorer (solver.strategy.scoring: ``mc``,
``exact`` against given opponents, ``field``, ``greedy``) -> ``assemble``: the best
setting, its value and error, the runners-up, and the natural and surrender advice.

Naturals are declared only when that is worth more than playing; surrender is advised
when the best expected value is below minus its cost. With the home run on, the value
of playing is the whole table's (``mc`` and ``against``): a setting's own home runs and
the opponents' home runs against it; declaring and surrendering keep their values
(docs/rules.md#surrender-and-naturals-under-the-home-run).
"""

from __future__ import annotations

import contextlib
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from evaluator import format_cards, parse_hand
from solver.engine.compiled import CompiledRules, compile_rules
from solver.engine.errors import InputError
from solver.engine.inputs import quote
from solver.engine.layout import MAX_SAMPLES, POLICIES, ROWS
from solver.engine.rules import Rules
from solver.strategy.pool import OpponentPool
from solver.strategy.schema import ANSWER_KEYS
from solver.strategy.scoring import Natural, Opponents, Scores
from solver.strategy.splits import Candidates
from solver.strategy.threads import Stop

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
    candidates: int | None = 0
    ev_play: float = 0.0
    stakes: list[float] | None = None
    ev_staked: float | None = None
    ev_by_opponent: list[float] | None = None
    played: dict[str, Any] | None = None
    #: mc: the opponents were drawn from the opponent pool (not dealt). Not a field: not
    #: part of the answer (``to_dict``), which reads the same whichever way they came.
    pooled = False

    @property
    def setting(self) -> tuple[str, str, str]:
        return self.front, self.middle, self.back

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape printed by ``capsa solve --format json``: the keys of
        ``solver.strategy.schema.ANSWER``, in its order; values rounded to 6 places."""
        d = {key: getattr(self, key) for key in ANSWER_KEYS}
        for key in ("ev", "ev_total", "ev_play", "stderr", "ev_staked"):
            d[key] = _r(d[key])
        if self.ev_by_opponent is not None:
            d["ev_by_opponent"] = [_r(x) for x in self.ev_by_opponent]
        return d


def _r(x: float | None, nd: int = 6) -> float | None:
    return None if x is None else round(float(x), nd) + 0.0  # + 0.0: never -0.0


# --------------------------------------------------------------------------- assemble


def assemble(
    cands: Candidates,
    scores: Scores,
    cr: CompiledRules,
    *,
    players: int,
    natural: Natural | None = None,
    best: int | None = None,
    top: int = 3,
    samples: int | None = None,
    seed: int | None = None,
    candidates: int | None = None,
    played: int | None = None,
) -> Solution:
    """The Solution from a scorer's Scores: the best candidate (``best``, or the highest
    ``value``), the runners-up, the natural and surrender advice, and, when candidate
    ``played`` is the setting the player chose, what it cost."""
    n_opp = players - 1
    # equal stakes (Scores.stake): chosen in units, money = units per opponent x scale
    scale = None if scores.stake is None else scores.stake * n_opp
    order = np.argsort(-scores.value, kind="stable")
    if played is not None:
        order = order[order != played]
    if best is None:
        best = int(order[0])
    ev = scores.ev(best)
    advice = _advice(cands, scores, cr, best, natural)
    played_info = None
    if played is not None:
        played_info = _played(cands, scores, best, played, order, advice.value, advice.action,
                              scale)  # fmt: skip
    if scores.stakes is not None:
        stakes_out, ev_staked = scores.stakes.tolist(), advice.value
    elif scores.stake is not None:
        stakes_out = [scores.stake] * n_opp
        ev_staked = scores.stake * float(np.sum(advice.by_opponent))
    else:
        stakes_out, ev_staked = None, None
    front, middle, back = advice.rows
    return Solution(
        hand=format_cards(cands.hand[::-1]),
        rules=cr.rules.name,
        policy=scores.method,
        players=players,
        samples=samples,
        seed=seed,
        front=front,
        middle=middle,
        back=back,
        ev=advice.ev,
        ev_total=advice.ev * n_opp,
        stderr=scores.stderr(best),
        row_stats=scores.row_stats(best),
        alternatives=_alternatives(cands, scores, order, best, top, scale),
        natural=advice.natural,
        surrender={
            "cost": cr.rules.surrender_cost,
            "recommended": advice.action == "surrender",
            "ev_play": _r(ev),
        },  # fmt: skip
        action=advice.action,
        candidates=candidates,
        ev_play=ev,
        stakes=stakes_out,
        ev_staked=ev_staked,
        ev_by_opponent=[float(x) for x in advice.by_opponent],
        played=played_info,
    )


def _alternatives(
    cands: Candidates,
    scores: Scores,
    order: np.ndarray,
    best: int,
    top: int,
    scale: float | None,
) -> list[dict[str, Any]]:
    """The ``top`` runners-up after ``best``: rows, value, and the paired difference to
    the best (in money with stakes; ``scale``: equal stakes, money = scale x units)."""
    out: list[dict[str, Any]] = []
    for i in [j for j in order.tolist() if j != best][:top]:
        f, m, b = cands.text(i)
        d, se = scores.diff(i, best)
        alt = {"front": f, "middle": m, "back": b, "ev": _r(scores.ev(i))}
        if scores.stakes is not None:
            alt["ev_staked"] = _r(scores.value[i])
        elif scale is not None:
            alt["ev_staked"] = _r(scale * scores.value[i])
            d, se = scale * d, None if se is None else scale * se
        out.append({**alt, "diff": _r(d), "diff_stderr": _r(se)})
    return out


class _Advice(NamedTuple):
    """What to do with the hand: play the best setting, declare, or surrender."""

    action: str
    rows: tuple[str, str, str]  # the setting shown (the natural's, when declaring)
    ev: float  # units per opponent of the action
    by_opponent: np.ndarray  # units from each opponent
    value: float  # the action's value as the setting is chosen (money with stakes)
    natural: dict[str, Any] | None  # the natural held, and whether to declare it


def _advice(
    cands: Candidates, scores: Scores, cr: CompiledRules, best: int, natural: Natural | None
) -> _Advice:
    """Declare a natural when it is worth more than playing the best setting; then
    surrender when that costs less than the chosen action loses."""
    from solver.engine.settlement import natural_setting

    stakes = scores.stakes
    ev = scores.ev(best)
    action, rows, best_ev = "play", cands.text(best), ev
    by_opponent = scores.by_opponent(best)
    nat_info = None
    if natural is not None:
        ev_declare = scores.declare(natural)
        declare_by = scores.declare_by_opponent(natural)
        if stakes is None:
            declared = ev_declare > ev
        else:
            declared = float(stakes @ declare_by) > float(scores.value[best])
        nat_info = {"name": natural[2], "declared": bool(declared),
                    "ev_declare": _r(ev_declare), "ev_play": _r(ev)}  # fmt: skip
        if declared:
            action, best_ev, by_opponent = "declare", ev_declare, declare_by
            shown = natural_setting(cands.hand, cr)
            if shown is not None:
                rows = tuple(format_cards(np.sort(r)[::-1]) for r in shown)  # type: ignore[assignment]
    cost = cr.rules.surrender_cost
    if stakes is None:
        recommend = cost is not None and best_ev < -cost
    else:
        recommend = cost is not None and float(stakes @ by_opponent) < -cost * stakes.sum()
    if recommend:
        action, best_ev = "surrender", -float(cost)
        by_opponent = np.full(len(by_opponent), -float(cost))
    value = best_ev if stakes is None else float(stakes @ by_opponent)
    return _Advice(action, rows, best_ev, by_opponent, value, nat_info)


def _played(
    cands: Candidates,
    scores: Scores,
    best: int,
    p: int,
    order: np.ndarray,
    best_value: float,
    action: str,
    scale: float | None = None,
) -> dict[str, Any]:
    """What the played setting (candidate p) is worth next to the advice.

    ``loss`` is the advised action's value minus the played setting's (units per
    opponent; money with stakes), ``loss_stderr`` its paired standard error (0 exact,
    None for a model); ``rank`` is 1 + the number of scored settings worth more;
    ``rows`` compares each row with the best setting's. ``scale``: equal stakes (the
    values are units per opponent; money is ``scale`` times them).
    """
    fouled = bool(cands.fouls[p])
    value = float(scores.value[p])
    if action == "play":
        diff, se = scores.diff(best, p)
        loss = diff
    else:  # the advice was to declare or surrender: compare with its value
        loss, se = best_value - value, scores.stderr(p)
    if scale is not None:
        loss, se = scale * loss, None if se is None else scale * se
    rank = 1 + int((scores.value[order] > value).sum())
    rows_played = cands.text(p)
    rows_best = cands.text(best)
    stats_p = scores.row_stats(p) or {}
    stats_b = scores.row_stats(best) or {}
    rows = {}
    for r, name in enumerate(ROWS):
        sp = stats_p.get(name) or {}
        sb = stats_b.get(name) or {}
        rows[name] = {
            "differs": sorted(rows_played[r].split()) != sorted(rows_best[r].split()),
            "win": sp.get("win"),
            "tie": sp.get("tie"),
            "loss": sp.get("loss"),
            "win_change": None
            if sp.get("win") is None or sb.get("win") is None
            else round(sp["win"] - sb["win"], 4) + 0.0,
        }
    out = {
        "front": rows_played[0],
        "middle": rows_played[1],
        "back": rows_played[2],
        "ev": _r(scores.ev(p)),
        "loss": _r(loss + 0.0),  # + 0.0: no "-0.0" when the played setting is the best
        "loss_stderr": _r(se),
        "rank": rank,
        "of": len(order) + 1,
        "fouled": fouled,
        "rows": rows,
    }
    if scores.stakes is not None:
        out["ev_staked"] = _r(value)
    elif scale is not None:
        out["ev_staked"] = _r(scale * value)
    return out


# --------------------------------------------------------------------------- solve


def _whole(value: Any, name: str, low: int, high: int | None = None) -> int:
    """An integer in [low, high], else InputError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be a whole number, got {quote(value)}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f"from {low:,} to {high:,}" if high is not None else f"at least {low:,}"
        raise InputError(f"{name} must be {bound}, got {value:,}")
    return value


def solve(
    hand: str | Sequence[int] | np.ndarray,
    rules: Rules | CompiledRules | str | None = None,
    players: int | None = None,
    policy: str = "mc",
    samples: int | None = None,
    seed: int | None = None,
    against: Sequence | None = None,
    top: int = 3,
    *,
    stakes: Sequence[float] | None = None,
    played: Sequence | str | None = None,
    stop: Stop | None = None,
    pool: bool | str | os.PathLike[str] | OpponentPool = True,
) -> Solution:
    """The best setting of a 13-card hand under a ruleset; see the module docstring.

    ``policy`` is ``mc`` (Monte Carlo best response, the default), ``field`` or
    ``greedy``. ``samples`` is the number of opponent hands dealt for ``mc`` (default
    3,000, at most ``MAX_SAMPLES``); ``against`` is a list of opponent settings, each
    (front, middle, back) or the text ``"front | middle | back"``: the answer is then
    exact for those opponents, and ``players`` (if given) must count them. ``stakes``:
    money per unit against each opponent (one per opponent, in order; default 1 each):
    the setting chosen maximises the staked total, and naturals and surrender are
    weighed the same way (docs/rules.md#stakes). ``played``: the setting the player
    chose, (front, middle, back) or ``"front | middle | back"``, of the hand's own cards
    (fouled or not): it meets the same opponents as every candidate and
    ``Solution.played`` says what it cost. ``pool`` (``mc``): draw the opponents from
    the cached opponent pool when there is one and the table settles pair by pair (no
    home run; solver.strategy.pool), else deal them; ``False`` always deals (the
    answers of the code before the pool, byte for byte); a path: that pool file (which
    must be sound and this ruleset's, else ``PoolError``). ``stop`` (a
    threading.Event) ends a long run early (``solver.strategy.threads.Stopped``); so does
    Ctrl-C (KeyboardInterrupt). Bad arguments raise ``InputError`` or ``CardParseError``.
    """
    from evaluator._jit import compiling

    cr = compile_rules(rules)
    if policy not in POLICIES:
        raise InputError(f"policy must be one of {', '.join(POLICIES)}, got {quote(policy)}")
    if players is not None:
        players = _whole(players, "players", 2, 4)
    if samples is not None:
        samples = _whole(samples, "samples", 1, MAX_SAMPLES)
    if seed is not None:
        seed = _whole(seed, "seed", 0)
    top = _whole(top, "top", 0)
    if not isinstance(pool, bool | str | os.PathLike | OpponentPool):
        raise InputError(f"pool must be true, false or a pool file, got {quote(pool)}")
    h = np.sort(parse_hand(hand))
    with compiling("solve", "solver kernels"):
        return _solve(h, cr, players, policy, samples, seed, against, top, stakes, played,
                      stop, pool)  # fmt: skip


def _solve(
    h: np.ndarray,
    cr: CompiledRules,
    players: int | None,
    policy: str,
    samples: int | None,
    seed: int | None,
    against: Sequence | None,
    top: int,
    stakes: Sequence[float] | None,
    played: Sequence | str | None,
    stop: Stop | None,
    pool: bool | str | os.PathLike[str] | OpponentPool = True,
) -> Solution:
    from solver.engine.settlement import natural_of
    from solver.strategy import scoring as sc
    from solver.strategy.splits import candidates

    if against is not None:
        okeys, oroy, ofoul = sc.parse_against(against, h, cr)
        players = _players_against(len(okeys), players)
    elif players is None:
        players = cr.rules.players
    n_opp = players - 1
    weights = sc.check_stakes(stakes, n_opp)
    same = sc.uniform_stake(weights)
    if same is not None:  # chosen as without stakes; the money is scaled (Scores.stake)
        weights = None
    mc = against is None and policy == "mc"
    used_samples = (samples or DEFAULT_SAMPLES) if mc else None
    deals = sc.mc_deals(used_samples, n_opp) if mc else 0
    # the Monte Carlo opponents: drawn from the opponent pool (pair by pair settlement,
    # a pool cached), else dealt and set on other threads while this one finds the
    # candidates (the same opponents either way)
    drawn = _drawn(pool, h, cr, n_opp, deals, seed) if mc else None
    background = (
        sc.opponents_in_background(h, cr, n_opp, deals, seed, stop)
        if mc and drawn is None
        else contextlib.nullcontext()
    )
    with background as opponents:
        cands = candidates(h, cr)
        n_front = len(cands)
        played_at = None
        if played is not None:
            cands = cands.with_split(played_split(h, played)[None, :], cr)
            played_at = len(cands) - 1
        natural = natural_of(h, cr)
        best = None
        if against is not None:
            scores = sc.score_exact(cands, cr, okeys, oroy, ofoul, weights)
        elif mc:
            sc.check_mc_memory(len(cands), deals)  # before waiting for the opponents
            opp = drawn if drawn is not None else opponents()
            scores = sc.score_against(cands, cr, opp, stop, weights)
        else:
            if policy == "greedy":
                cands, best = sc.with_greedy(cands, cr)
            scores = sc.score_field(cands, cr, method=policy, n_opp=n_opp, stakes=weights)
    scores.stake = same
    solution = assemble(
        cands,
        scores,
        cr,
        players=players,
        natural=natural,
        best=best,
        top=top,
        samples=used_samples,
        seed=seed,
        candidates=n_front,
        played=played_at,
    )
    solution.pooled = drawn is not None
    return solution


def _players_against(n_opp: int, players: int | None) -> int:
    """The players at a table of ``n_opp`` given opponents (InputError when ``players``
    says otherwise, or there are none or more than three)."""
    if n_opp == 0:
        raise InputError("against: give at least one opponent setting")
    if n_opp > 3:
        raise InputError(f"against: at most 3 opponents, got {n_opp}")
    if players is not None and players != n_opp + 1:
        raise InputError(
            f"against gives {n_opp} opponent{'s' * (n_opp > 1)}, so {n_opp + 1} players,"
            f" but players is {players}"
        )
    return n_opp + 1


def _drawn(
    pool: bool | str | os.PathLike[str] | OpponentPool,
    h: np.ndarray,
    cr: CompiledRules,
    n_opp: int,
    deals: int,
    seed: int | None,
) -> Opponents | None:
    """The Monte Carlo opponents drawn from the opponent pool (``solve``'s ``pool``), or
    None to deal them: no pool, the home run at the table, or too few pool hands."""
    from solver.strategy.pool import resolve_pool
    from solver.strategy.scoring import pool_opponents

    found = resolve_pool(pool, cr, n_opp)
    return None if found is None else pool_opponents(found, h, n_opp, deals, seed)


def played_split(hand: np.ndarray, played: Sequence | str) -> np.ndarray:
    """The split (int32[3]) of a played setting of the sorted hand's own cards.

    ``played`` is ``"front | middle | back"`` or a (front, middle, back) triple of cards;
    raises CardParseError for bad cards, wrong row sizes, a card twice, or a card that
    is not the hand's.
    """
    from evaluator import CardParseError
    from solver.engine.settlement import parse_setting
    from solver.strategy.splits import split_of

    flat = parse_setting(played, "played")
    foreign = sorted(set(flat.tolist()) - set(hand.tolist()))
    if foreign:
        raise CardParseError(f"played: card {format_cards(foreign[:1])!r} is not in the hand")
    return split_of(hand, flat[:3], flat[3:8], flat[8:])
