"""Scoring duplicate deals, and ``duel``."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solver.apps.duel.base import BAD, DuelError, Strategy, check_timeout
from solver.apps.duel.stats import confidence_interval
from solver.apps.duel.strategies import resolve
from solver.engine.compiled import CompiledRules, compile_rules
from solver.engine.layout import MAX_DEALS
from solver.engine.options import SolveOptions
from solver.engine.progress import Progress
from solver.engine.rules import Rules, load_rules
from solver.engine.seating import seated
from solver.engine.table_shape import MIN_PLAYERS, TABLE_MAX_PLAYERS, players_text
from solver.strategy.hands.deal import deal_hands

__all__ = ["DuelResult", "duel", "score_duplicate"]


def _valid(settings: np.ndarray, hands: np.ndarray) -> np.ndarray:
    """bool[n]: row i holds exactly the cards of hand i."""
    if settings.shape != hands.shape:
        return np.zeros(len(hands), bool)
    return (np.sort(settings, axis=1) == np.sort(hands, axis=1)).all(axis=1)


def _summaries(
    settings: np.ndarray, hands: np.ndarray, cr: CompiledRules
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(keys, royalties, fouls, bad) for settings of hands; a bad row is scored fouled."""
    from solver.engine.settlement import summarize_batch

    bad = ~_valid(settings, hands)
    safe = np.where(bad[:, None], hands, settings).astype(np.uint8)
    keys, roys, fouls = summarize_batch(safe, cr)
    fouls = fouls | bad
    return keys, roys, fouls, bad


def score_duplicate(
    settings_a: np.ndarray, settings_b: np.ndarray, hands: np.ndarray, cr: CompiledRules
) -> dict[str, np.ndarray]:
    """Duplicate scores of two strategies' settings of the same deals.

    hands uint8[deals, k, 13]; settings_a / settings_b uint8[deals * k, 13] (the hands
    in the same order). Returns per-deal values ``x`` float64[deals] (A's units per game
    against the whole table, averaged over the k seatings) and per-hand ``foul_a``,
    ``foul_b``, ``bad_a``, ``bad_b``, ``differ`` (bool[deals * k]).
    """
    from solver.engine.code_card import holds_code_card
    from solver.engine.settlement import settle_tables

    deals, k, _ = hands.shape
    flat = hands.reshape(deals * k, 13)
    ka, ra, fa, bad_a = _summaries(np.asarray(settings_a, np.uint8), flat, cr)
    kb, rb, fb, bad_b = _summaries(np.asarray(settings_b, np.uint8), flat, cr)
    # game g of deal d is table d * k + g: seat j holds hand j, set by A when j == g
    hand = ((np.arange(deals) * k)[:, None, None] + np.arange(k)[None, None, :]).repeat(k, 1)
    by_a = np.broadcast_to(np.eye(k, dtype=bool), hand.shape).ravel()
    hand = hand.ravel()
    keys = np.where(by_a[:, None], ka[hand], kb[hand])
    roys = np.where(by_a[:, None], ra[hand], rb[hand])
    fouls = np.where(by_a, fa[hand], fb[hand])
    hold = holds_code_card(flat, cr)[hand]  # docs/rules.md#the-code-card
    out = settle_tables((keys, roys, fouls), k, cr, hold=hold).reshape(deals, k, k)
    x = np.trace(out, axis1=1, axis2=2) / k

    def canon(s: np.ndarray) -> np.ndarray:
        s = np.asarray(s, np.uint8)
        return np.concatenate(
            [np.sort(s[:, :3], axis=1), np.sort(s[:, 3:8], axis=1), np.sort(s[:, 8:], axis=1)],
            axis=1,
        )

    ca, cb = canon(settings_a), canon(settings_b)
    ca[bad_a], cb[bad_b] = BAD, BAD
    differ = (ca != cb).any(axis=1)
    return {"x": x, "foul_a": fa, "foul_b": fb, "bad_a": bad_a, "bad_b": bad_b, "differ": differ}


# ---------------------------------------------------------------------------- duel


@dataclass
class DuelResult:
    """What ``duel`` found; ``to_dict()`` is the JSON shape ``capsa duel`` prints."""

    a: str
    b: str
    rules: str
    players: int
    deals: int
    seed: int
    mean: float  # A's units per deal (per game against the whole table)
    stderr: float | None
    ci95: tuple[float, float] | None
    differ: float  # share of hands the two strategies set differently
    fouls_a: int
    fouls_b: int
    bad_a: int  # answers that were not a setting of the hand (counted in fouls_a)
    bad_b: int
    seconds_a: float
    seconds_b: float
    notes: list[str] = field(default_factory=list)

    @property
    def hands(self) -> int:
        """Hands each strategy set."""
        return self.deals * self.players

    @property
    def games(self) -> int:
        return self.deals * self.players

    def to_dict(self) -> dict[str, Any]:
        per_opp = self.players - 1
        return {
            "a": self.a,
            "b": self.b,
            "rules": self.rules,
            "players": self.players,
            "deals": self.deals,
            "games": self.games,
            "seed": self.seed,
            "mean": self.mean,
            "stderr": self.stderr,
            "ci95": list(self.ci95) if self.ci95 is not None else None,
            "mean_per_opponent": self.mean / per_opp,
            "differ": self.differ,
            "hands": self.hands,
            "fouls": {
                "a": {
                    "fouls": self.fouls_a,
                    "rate": self.fouls_a / self.hands,
                    "bad_answers": self.bad_a,
                },
                "b": {
                    "fouls": self.fouls_b,
                    "rate": self.fouls_b / self.hands,
                    "bad_answers": self.bad_b,
                },
            },
            "seconds": {"a": self.seconds_a, "b": self.seconds_b},
            "notes": self.notes,
        }


def _faces(got: np.ndarray, cr: CompiledRules) -> np.ndarray:
    """Which values of a strategy's answer are faces of the ruleset's deck: a card's
    first copy (a second copy is written as its face), or the jokers' face when the deck
    deals jokers."""
    from solver.engine.table_shape import JOKER_FACE

    face = (got >= 0) & (got < cr.rules.deck.faces)
    return face | (got == JOKER_FACE) if cr.rules.jokers else face


def _play(
    strategy: Strategy,
    hands: np.ndarray,
    cr: CompiledRules,
    seed: int,
    progress: Progress | None,
) -> tuple[np.ndarray, float]:
    """All hands set by one strategy, in chunks; (settings, seconds). Never raises for a
    strategy's wrong output shape: such rows come back as bad answers."""
    n = len(hands)
    step = strategy.chunk or n or 1
    out = np.full((n, 13), BAD, np.uint8)
    t0 = time.perf_counter()
    if progress:
        progress(0, n, what=strategy.name)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        got = np.asarray(strategy.set_hands(hands[lo:hi], cr, seed))
        if got.shape == (hi - lo, 13) and got.dtype.kind in "iu":
            ok = _faces(got, cr).all(axis=1)
            out[lo:hi][ok] = got[ok].astype(np.uint8)
        else:
            strategy.notes.append(
                f"{strategy.name}: returned shape {got.shape} for {hi - lo} hands"
            )
        if progress:
            progress(hi, n, what=strategy.name)
    return out, time.perf_counter() - t0


def duel(
    a: str | Strategy,
    b: str | Strategy,
    deals: int = 1000,
    rules: Rules | str | None = None,
    table: SolveOptions | None = None,
    *,
    timeout: float | None = None,
    progress: Progress | None = None,
    **keywords: Any,
) -> DuelResult:
    """Play strategy ``a`` against ``b`` over ``deals`` duplicate deals (module docstring).

    ``table`` (``SolveOptions``; or its keywords ``players``, ``seed``, ``opponents``):
    ``players`` defaults to the ruleset's; ``seed`` (the duel's) None draws one (reported
    in the result); ``opponents``: the opponent model ``mc`` assumes (``solve``'s;
    None: the field); ``mc`` strategies solve with these options. ``timeout`` is an
    external program's time for the whole stream (default 60 s plus 10 ms a hand).
    ``progress(done, total, what=name)`` follows the setting of hands.
    """
    unknown = sorted(set(keywords) - {"players", "seed", "opponents"})
    if unknown:
        raise TypeError(f"duel() got an unexpected keyword argument {unknown[0]!r}")
    if table is not None and keywords:
        raise TypeError("duel() takes the table's options or their keywords, not both")
    table = table if table is not None else SolveOptions(**keywords)
    players, seed, opponents = table.players, table.seed, table.opponents
    given = rules.rules if isinstance(rules, CompiledRules) else load_rules(rules)
    k = given.players if players is None else int(players)
    if not MIN_PLAYERS <= k <= TABLE_MAX_PLAYERS:
        raise DuelError(f"players must be {players_text(TABLE_MAX_PLAYERS)}, got {k}")
    table_rules = seated(given, k)  # more players than 52 cards deal: the preset's table
    cr = (
        rules
        if isinstance(rules, CompiledRules) and table_rules is given
        else compile_rules(table_rules)
    )
    r = cr.rules
    if not 1 <= deals <= MAX_DEALS:
        raise DuelError(f"deals must be from 1 to {MAX_DEALS:,}, got {deals:,}")
    timeout = check_timeout(timeout)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    if seed < 0:
        raise DuelError(f"seed must be zero or more, got {seed}")
    if opponents is not None:  # one clear error before any hand is set
        from solver.strategy.opposition.opponents import resolve_opponents

        resolve_opponents(opponents, cr, k - 1)
    mc = SolveOptions(players=k, top=0, opponents=opponents)
    sa = resolve(a, k, timeout, mc)
    sb = resolve(b, k, timeout, mc)
    hands = deal_hands(np.random.default_rng(seed), deals, k, deck=r.deck)
    flat = hands.reshape(deals * k, 13)
    set_a, secs_a = _play(sa, flat, cr, seed, progress)
    set_b, secs_b = _play(sb, flat, cr, seed, progress)
    s = score_duplicate(set_a, set_b, hands, cr)
    mean, se, half = confidence_interval(s["x"])
    notes = list(dict.fromkeys(sa.notes + sb.notes))
    if deals < 30:
        notes.append(f"only {deals} deals: the interval is rough")
    return DuelResult(
        a=sa.name,
        b=sb.name,
        rules=r.name,
        players=k,
        deals=deals,
        seed=seed,
        mean=mean,
        stderr=se,
        ci95=(mean - half, mean + half) if half is not None else None,
        differ=float(s["differ"].mean()),
        fouls_a=int(s["foul_a"].sum()),
        fouls_b=int(s["foul_b"].sum()),
        bad_a=int(s["bad_a"].sum()),
        bad_b=int(s["bad_b"].sum()),
        seconds_a=secs_a,
        seconds_b=secs_b,
        notes=notes,
    )
