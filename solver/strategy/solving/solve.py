"""solve(): the setting of a hand that wins the most units on average.

Data flow (docs/architecture.md): validate -> compile the ruleset once -> sort the hand
-> candidates (keys and royalties of the 1,287 + 286 subsets, the legal splits, their
Pareto front when the ruleset allows) -> a scorer (solver.strategy.solving.scoring: ``mc``,
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
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaluator import format_cards, parse_hand
from solver.engine.compiled import CompiledRules, compile_rules
from solver.engine.errors import InputError
from solver.engine.options import DEFAULT_SAMPLES, TOP_BY, SolveOptions
from solver.engine.rules import Rules, load_rules
from solver.engine.setting_cards import hand_faces
from solver.engine.table_shape import MAX_OPPONENTS
from solver.strategy.hands.splits import Candidates
from solver.strategy.opposition.opponents import (
    OpponentModel,
    describe,
    is_field,
    resolve_opponents,
    seat_setter,
)
from solver.strategy.opposition.pool import OpponentPool
from solver.strategy.solving.advice import (
    Ranked,
    advise,
    check_word,
    played_action,
    played_setting,
    with_played,
)
from solver.strategy.solving.advice import rounded as _r
from solver.strategy.solving.advice import value_parts as _parts
from solver.strategy.solving.home_run import PooledTables, score_opponents
from solver.strategy.solving.schema import ANSWER_KEYS
from solver.strategy.solving.scoring import Natural, Opponents, Scores
from solver.strategy.threads import Stop

__all__ = [
    "DEFAULT_SAMPLES",
    "SOLVE_FIELDS",
    "TOP_BY",
    "Found",
    "SolveOptions",
    "Solution",
    "assemble",
    "solve",
]


@dataclass
class Solution:
    """The answer for one hand. ``ev`` is units per opponent, ``ev_total`` for the table."""

    hand: str
    rules: str
    policy: str
    players: int
    samples: int | None
    seed: int | None
    opponents: str | None
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
    ev_parts: dict[str, float] | None = None
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
        ``solver.strategy.solving.schema.ANSWER``, in its order; values rounded to 6 places."""
        d = {key: getattr(self, key) for key in ANSWER_KEYS}
        for key in ("ev", "ev_total", "ev_play", "stderr", "ev_staked"):
            d[key] = _r(d[key])

        if self.ev_by_opponent is not None:
            d["ev_by_opponent"] = [_r(x) for x in self.ev_by_opponent]
        return d


@dataclass(frozen=True)
class Found:
    """What a solve found besides the scores, for ``assemble``: the players at the table,
    the hand's natural, the candidate chosen (None: the highest value), how many
    candidates there were before the played setting joined them, the played setting's
    index among the candidates or ``"declare"`` / ``"surrender"``, and the opponent
    model assumed (mc)."""

    players: int
    natural: Natural | None = None
    best: int | None = None
    candidates: int | None = None
    played: int | str | None = None
    opponents: str | None = None
    #: the opponents the hand settles with (None: every other player; a player at a
    #: banker's table settles with the banker alone)
    settled: int | None = None


def assemble(
    cands: Candidates, scores: Scores, cr: CompiledRules, opts: SolveOptions, found: Found
) -> Solution:
    """The Solution from a scorer's Scores: the best candidate (``found.best``, or the
    highest ``value``), the runners-up (``opts.top`` of them, by ``opts.top_by``: the
    best of each other shape, or the next by value), the natural and surrender advice,
    and what the player's choice cost (``found.played``)."""
    players, natural, best, played = found.players, found.natural, found.best, found.played
    top, top_by = opts.top, opts.top_by
    n_opp = players - 1 if found.settled is None else found.settled
    # equal stakes (Scores.stake): chosen in units, money = units per opponent x scale
    scale = None if scores.stake is None else scores.stake * n_opp
    order = np.argsort(-scores.value, kind="stable")
    if isinstance(played, int):
        order = order[order != played]
    if best is None:
        best = int(order[0])
    ev = scores.ev(best)
    advice = advise(cands, scores, cr, best, natural)
    played_info = None
    if isinstance(played, int):
        played_info = played_setting(cands, scores, best, played, order, advice.value,
                                     advice.action, scale)  # fmt: skip
    elif played is not None:
        played_info = played_action(cands, scores, cr, Ranked(best, order, scale), advice,
                                    played, natural)  # fmt: skip
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
        samples=opts.mc_samples,
        seed=opts.seed,
        opponents=found.opponents,
        front=front,
        middle=middle,
        back=back,
        ev=advice.ev,
        ev_total=advice.ev * n_opp,
        stderr=scores.stderr(best),
        row_stats=scores.row_stats(best),
        alternatives=_alternatives(cands, scores, order, best, top, scale, top_by, cr),
        natural=advice.natural,
        surrender={
            "cost": cr.rules.surrender_cost,
            "recommended": advice.action == "surrender",
            "ev_play": _r(ev),
        },  # fmt: skip
        action=advice.action,
        candidates=found.candidates,
        ev_play=ev,
        ev_parts=_parts(scores, best),
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
    top_by: str = "shape",
    cr: CompiledRules | None = None,
) -> list[dict[str, Any]]:
    """The ``top`` runners-up after ``best`` (``top_by``: ``shape``, the best setting of
    each other shape, or ``value``, the next ones): rows, value, the paired difference to
    the best (in money with stakes; ``scale``: equal stakes, money = scale x units) and
    the parts of the value."""
    out: list[dict[str, Any]] = []
    picked = [j for j in order.tolist() if j != best]
    if top_by == "shape":
        picked = _other_shapes(cands, best, picked, top, cr)
    for i in picked[:top]:
        f, m, b = cands.text(i)
        d, se = scores.diff(i, best)
        alt = {"front": f, "middle": m, "back": b, "ev": _r(scores.ev(i))}
        if scores.stakes is not None:
            alt["ev_staked"] = _r(scores.value[i])
        elif scale is not None:
            alt["ev_staked"] = _r(scale * scores.value[i])
            d, se = scale * d, None if se is None else scale * se
        out.append({**alt, "diff": _r(d), "diff_stderr": _r(se), "ev_parts": _parts(scores, i)})
    return out


def _other_shapes(
    cands: Candidates, best: int, picked: list[int], top: int, cr: CompiledRules | None = None
) -> list[int]:
    """Of the candidates ``picked`` (best first), the first of each shape other than the
    best's, at most ``top``: a setting's shape is its three rows' hand classes (high card,
    pair, ..., straight flush) and its back's cards, so another shape has at least one
    row of another class, or another back (docs/solve.md#runners-up)."""
    from evaluator import subset_strengths
    from evaluator.cards import copies_of
    from evaluator.tables import get_tables

    if top <= 0 or not picked:
        return []
    extra = cr.rules.deck_code if cr is not None else ""
    # the hand's faces as the deck's ids (a face's second appearance: its second copy)
    hand = np.array(copies_of(cands.hand.tolist(), extra), np.uint8) if extra else cands.hand
    _, s5, s3 = subset_strengths(hand, extra)
    cat = cr.tables.category if cr is not None else get_tables().category
    c5, c3 = cat[s5], cat[s3]
    sp = cands.split
    shape = np.stack([c3[sp[:, 0]], c5[sp[:, 1]], c5[sp[:, 2]], sp[:, 2]], axis=1).tolist()
    seen = {tuple(shape[best])}
    out = []
    for j in picked:
        key = tuple(shape[j])
        if key not in seen:
            seen.add(key)
            out.append(j)
            if len(out) == top:
                break
    return out


# --------------------------------------------------------------------------- solve


def solve(
    hand: str | Sequence[int] | np.ndarray,
    rules: Rules | CompiledRules | str | None = None,
    options: SolveOptions | None = None,
    *,
    stop: Stop | None = None,
    **keywords: Any,
) -> Solution:
    """The best setting of a 13-card hand under a ruleset; see the module docstring.

    ``options`` (``solver.engine.options.SolveOptions``) is the request; the keyword form
    ``solve(hand, rules, samples=..., seed=..., ...)`` builds it from the same names (the
    two cannot be mixed). Its fields: ``players``; ``policy`` is ``mc`` (Monte Carlo best
    response, the default), ``field`` or ``greedy``. ``samples`` is the number of opponent
    hands dealt for ``mc`` (default 3,000, at most ``MAX_SAMPLES``); ``against`` is a list
    of opponent settings, each (front, middle, back) or the text ``"front | middle |
    back"``: the answer is then exact for those opponents, and ``players`` (if given) must
    count them. ``stakes``: money per unit against each opponent (one per opponent, in
    order; default 1 each): the setting chosen maximises the staked total, and naturals and
    surrender are weighed the same way (docs/rules.md#stakes). ``played``: the setting the
    player chose, (front, middle, back) or ``"front | middle | back"``, of the hand's own
    cards (fouled or not): it meets the same opponents as every candidate and
    ``Solution.played`` says what it cost; or ``"declare"`` (the hand's natural, which it
    must hold under the ruleset) or ``"surrender"`` (which the ruleset must allow): what
    that choice cost next to the advice. ``top``: how many runners-up; ``top_by``:
    ``"shape"`` (the best setting of each other shape: another hand class in some row, or
    another back) or ``"value"`` (the next best settings, kicker swaps and all). ``seed``:
    the Monte Carlo deals' seed; when none is given one is picked and recorded in
    ``Solution.seed``, so every answer can be repeated. ``pool`` (``mc``): draw the
    opponents from the cached opponent pool when there is one and the table settles pair by
    pair (no home run; solver.strategy.opposition.pool), else deal them; ``False`` always deals (the
    answers of the code before the pool, byte for byte); a path: that pool file (which must
    be sound and this ruleset's, else ``PoolError``). ``opponents`` (``mc``): who sits at
    the table (solver.strategy.opposition.opponents, docs/opponents.md): ``"field"`` (the default,
    today's mc), ``"greedy"``, ``"safe"`` or a model file (``capsa train --from``), or one
    per opponent (``"greedy,field,field"`` or a list); the opponents are dealt and set by it
    (only the field's are drawn from the pool) and ``Solution.opponents`` names it. ``stop``
    (a threading.Event) ends a long run early (``solver.strategy.threads.Stopped``); so does
    Ctrl-C (KeyboardInterrupt). Bad arguments raise ``InputError`` or ``CardParseError``.
    """
    from evaluator._jit import compiling

    opts = _options(options, keywords).check()
    given = rules.rules if isinstance(rules, CompiledRules) else load_rules(rules)
    table = _seated(given, opts)  # more players than the deck deals: the preset's bigger table
    cr = rules if isinstance(rules, CompiledRules) and table is given else compile_rules(table)
    if opts.seed is None and opts.mc:  # picked, and recorded: the answer can be repeated
        opts = opts.evolve(seed=secrets.randbelow(2**32))
    extra = cr.rules.deck_code  # a deck with added suits: the hand as its faces
    h = hand_faces(hand, extra) if extra else np.sort(parse_hand(hand))
    with compiling("solve", "solver kernels"):
        return _solve(h, cr, opts, stop)


def _options(options: SolveOptions | None, keywords: dict[str, Any]) -> SolveOptions:
    """``solve``'s request: the options, or built from the keywords (not both)."""
    if options is None:
        unknown = sorted(set(keywords) - set(SOLVE_FIELDS))
        if unknown:
            raise TypeError(f"solve() got an unexpected keyword argument {unknown[0]!r}")
        return SolveOptions(**keywords)
    if keywords:
        raise TypeError("solve() takes the options or keyword arguments, not both")
    if not isinstance(options, SolveOptions):
        raise InputError(f"options must be SolveOptions, got {type(options).__name__}")
    return options


def _seated(rules: Rules, opts: SolveOptions) -> Rules:
    """The ruleset of the table the solve is asked for: at more players (the ``players``
    option, or the opponents given) than the ruleset's deck deals, the bigger table its
    preset names (solver.engine.seating; else a RulesError naming ``extra_suits``)."""
    from solver.engine.seating import seated

    players = opts.players or (len(opts.against) + 1 if opts.against is not None else 0)
    return seated(rules, players) if players else rules


#: The names of ``solve``'s keyword form: the fields of SolveOptions.
SOLVE_FIELDS: tuple[str, ...] = tuple(SolveOptions().to_kwargs())


def _solve(h: np.ndarray, cr: CompiledRules, opts: SolveOptions, stop: Stop | None) -> Solution:
    from solver.engine.settlement import natural_of
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.hands.splits import candidates
    from solver.strategy.solving import scoring as sc
    from solver.strategy.solving.against import parse_against

    against, players, policy, seed = opts.against, opts.players, opts.policy, opts.seed
    if against is not None:
        okeys, oroy, ofoul, ohold = parse_against(against, h, cr)
        if opts.seat == "player" or (cr.rules.banker and opts.seat is None):
            players = players or cr.rules.players  # the banker's setting alone is given
        else:
            players = _players_against(len(okeys), players, cr.rules.deck.most_players() - 1)
    elif players is None:
        players = cr.rules.players
    if against is None:  # the field sets the opponents, or values the candidates
        ensure_field(cr)
    n_opp = _settled(cr, opts.seat, players, against)
    weights = sc.check_stakes(opts.stakes, n_opp)
    same = sc.uniform_stake(weights)
    if same is not None:  # chosen as without stakes; the money is scaled (Scores.stake)
        weights = None
    mc = opts.mc
    models = _models(opts.opponents, cr, n_opp, mc)
    used_samples = opts.mc_samples
    deals = sc.mc_deals(used_samples, n_opp) if mc else 0
    # the Monte Carlo opponents: drawn from the opponent pool (pair by pair settlement,
    # a pool cached: the field's, or a learned model's at every seat), else dealt and set
    # on other threads while this one finds the candidates (the same opponents either way)
    drawn = _drawn(opts.pool, h, cr, n_opp, deals, seed, models) if mc else None
    background = (
        sc.opponents_in_background(h, cr, n_opp, deals, seed, stop, seat_setter(models, cr))
        if mc and drawn is None
        else contextlib.nullcontext()
    )
    with background as dealt:
        cands = candidates(h, cr)
        n_front = len(cands)
        cands, played_at = with_played(cands, h, opts.played, cr)
        natural = natural_of(h, cr)
        check_word(played_at, natural, cr)
        best = None
        if against is not None:
            scores = sc.score_exact(cands, cr, okeys, oroy, ofoul, weights, ohold)
        elif mc:
            sc.check_mc_memory(len(cands), deals)  # before waiting for the opponents
            opp = drawn if drawn is not None else dealt()
            scores = score_opponents(cands, cr, opp, stop, weights)
        else:
            if policy == "greedy":
                cands, best = sc.with_greedy(cands, cr)
            scores = sc.score_field(cands, cr, method=policy, n_opp=n_opp, stakes=weights)
    scores.stake = same
    found = Found(players, natural, best, n_front, played_at, describe(models) if mc else None,
                  n_opp)  # fmt: skip
    solution = assemble(cands, scores, cr, opts, found)
    solution.pooled = drawn is not None
    return solution


def _settled(cr: CompiledRules, seat: str | None, players: int, against: Any) -> int:
    """How many opponents the hand settles with: every other player, or at a banker's table
    (docs/rules.md#the-bankers-table) the banker alone for a player (``seat`` "player",
    the default there). InputError, one line, for a seat a table without a banker, or a
    player given other opponents than the banker."""
    if not cr.rules.banker:
        if seat is not None:
            raise InputError(f"seat: ruleset '{cr.rules.name}' seats no banker (banker = true)")
        return players - 1
    if seat == "banker":
        return players - 1
    if against is not None and len(against) != 1:
        raise InputError(
            f"against: a player settles with the banker alone: give the banker's setting, "
            f"not {len(against)}"
        )
    return 1


def _models(
    opponents: str | OpponentModel | Sequence[str | OpponentModel] | None,
    cr: CompiledRules,
    n_opp: int,
    mc: bool,
) -> tuple[OpponentModel, ...]:
    """Each seat's opponent model (``solve``'s ``opponents``); only ``mc`` meets
    opponents at the table, so another policy or ``against`` takes none but the field."""
    models = resolve_opponents(opponents, cr, n_opp)
    if not mc and not is_field(models):
        raise InputError(
            "opponents: only policy mc without against meets opponents at the table "
            f"(got {describe(models)!r})"
        )
    return models


def _players_against(n_opp: int, players: int | None, most: int = MAX_OPPONENTS) -> int:
    """The players at a table of ``n_opp`` given opponents (InputError when ``players``
    says otherwise, or there are none or more than ``most``, the deck's: ``MAX_OPPONENTS``
    on 52 cards)."""
    if n_opp == 0:
        raise InputError("against: give at least one opponent setting")
    if n_opp > most:
        raise InputError(f"against: at most {most} opponents, got {n_opp}")
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
    models: tuple[OpponentModel, ...],
) -> Opponents | PooledTables | None:
    """The Monte Carlo opponents drawn from the opponent pool (``solve``'s ``pool``), or
    None to deal them: no pool, or too few pool hands. With the home run at the table,
    pairwise deals and whole tables (solver.strategy.solving.home_run). Only field opponents, or
    one learned model at every seat, have pools (its own)."""
    from solver.strategy.opposition.pool import resolve_pool
    from solver.strategy.solving.drawn import pool_opponents
    from solver.strategy.solving.home_run import pool_tables

    if is_field(models):
        found = resolve_pool(pool, cr, n_opp)
    elif len(set(map(id, models))) == 1 and models[0].policy == "field":
        found = resolve_pool(pool, cr, n_opp, models[0].tables)
    else:
        return None
    if found is None:
        return None
    if cr.home_run_at(n_opp) and n_opp > 1:  # whole tables (one opponent: pairs are tables)
        return pool_tables(found, h, cr, n_opp, deals, seed, models[0].tables)
    return pool_opponents(found, h, n_opp, deals, seed, cr)
