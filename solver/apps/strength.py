"""How much each policy wins, hand by hand, against the same opponents (``capsa strength``).

For every random hand, each policy sets it once; then all the settings meet the same
fresh opponent deals (``eval_deals`` deals of the unseen cards, each opponent set by the
field strategy, naturals declared), settled exactly. The deals are independent of the
ones ``mc`` sampled while choosing, so its estimate carries no optimizer's-curse bias.
Differences are paired per hand; the standard error is over hands, and the 95% interval
uses Student's t.

The **exploitability** of a policy P is what ``mc`` (a best response to field opponents,
``samples`` opponent hands a hand) gains against P per hand: the gain ``mc-P``. For
``field`` it measures how far the field strategy is from its own best response.

**Other opponents** (``opponents``, solver.strategy.opposition.opponents): the evaluation deals'
opponents are set by that model (one for all seats, or one a seat), and ``mc`` assumes
it; the policy ``mc@MODEL`` is ``mc`` assuming another model (``mc@field``: today's mc),
so ``mc-mc@field`` is what knowing the opponents is worth against them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from solver.engine.options import DEFAULT_SAMPLES, SolveOptions
from solver.engine.progress import Progress
from solver.engine.rules import Rules, load_rules

if TYPE_CHECKING:
    from solver.engine.compiled import CompiledRules
    from solver.strategy.field_model.field import FieldTables


@dataclass(frozen=True)
class PolicyResult:
    policy: str
    mean: float  # units per opponent per hand
    stderr: float


@dataclass(frozen=True)
class StrengthReport:
    hands: int
    players: int
    eval_deals: int
    rules: str
    results: tuple[PolicyResult, ...]
    gains: dict[str, tuple[float, float]]  # "a-b": (mean gain per hand, stderr)
    differ: dict[str, float]  # "a-b": share of hands set differently
    samples: int = 0
    seed: int = 0
    ci95: dict[str, tuple[float, float]] = field(default_factory=dict)  # "a-b": interval
    opponents: str = "field"

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape ``capsa strength --format json`` prints."""
        return {
            "rules": self.rules,
            "players": self.players,
            "hands": self.hands,
            "samples": self.samples,
            "eval_deals": self.eval_deals,
            "seed": self.seed,
            "opponents": self.opponents,
            "policies": {r.policy: {"mean": r.mean, "stderr": r.stderr} for r in self.results},
            "gains": {
                k: {
                    "mean": m,
                    "stderr": se,
                    "ci95": list(self.ci95.get(k, (None, None))),
                    "differ": self.differ.get(k),
                }
                for k, (m, se) in self.gains.items()
            },  # fmt: skip
        }


def load_tables(
    paths: Sequence[str | os.PathLike[str]], cr: CompiledRules
) -> dict[str, FieldTables]:
    """Field table files to compare too (``--tables``: a ``capsa train -o`` file or an
    older shipped one), keyed ``field@STEM`` (the policy they are played as). A file that
    cannot be read, is not a field table file, or has the stem of another is an
    ``InputError`` naming it."""
    from solver.engine.errors import InputError
    from solver.strategy.field_model.field import load_field_file

    tables: dict[str, FieldTables] = {}
    for path in map(Path, paths):
        name = f"field@{path.stem}"
        if name in tables:
            raise InputError(f"--tables: two files named {path.stem!r}; rename one")
        try:
            if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block the read
                raise InputError(f"--tables: {path} is not a file")
            with np.errstate(all="ignore"):  # what float32 makes of them is checked below
                got = load_field_file(path, cr)
            if not all(np.isfinite(a).all() for a in (*got.model, got.fw, got.ft, got.fo)):
                raise InputError(f"--tables: {path}: its tables are not finite once converted")
            tables[name] = got
        except InputError:
            raise
        except OSError as exc:
            raise InputError(f"--tables: cannot read {path}: {exc.strerror or exc}") from None
        except Exception as exc:  # noqa: BLE001 - any unreadable content is the user's file
            raise InputError(f"--tables: {path} is not a field table file ({exc})") from None
    return tables


def _check(n_hands: int, policies: Sequence[str], deals: int, extra: Any = ()) -> None:
    """The counts and the policies (the solve options check themselves: players, samples)."""
    from solver.engine.errors import InputError
    from solver.engine.layout import MAX_DEALS, POLICIES

    if not 2 <= n_hands <= MAX_DEALS:
        raise InputError(f"hands must be from 2 to {MAX_DEALS:,}, got {n_hands}")
    if not 2 <= deals <= MAX_DEALS:
        raise InputError(f"eval_deals must be from 2 to {MAX_DEALS:,}, got {deals}")
    bad = [p for p in policies if p not in POLICIES and p not in extra and not p.startswith("mc@")]
    if bad or len(set(policies)) != len(policies) or len(policies) < 2:
        raise InputError(
            f"policies must be two or more of {', '.join(POLICIES)}, got {', '.join(policies)}"
        )


def compare_policies(
    n_hands: int = 1000,
    rules: Rules | str | None = None,
    options: SolveOptions | None = None,
    policies: Sequence[str] = ("mc", "field", "greedy"),
    eval_deals: int = 100,
    seed: int = 1,
    progress: Progress | None = None,
    tables: Mapping[str, FieldTables] | None = None,
) -> StrengthReport:
    """Mean units per opponent of each policy over the same random hands and opponents.

    ``options`` (``SolveOptions``): what every solve is asked: ``players`` (default the
    ruleset's), ``samples`` of each mc solve (default ``DEFAULT_SAMPLES``), ``pool``
    (``mc`` draws its opponents from the cached opponent pool, ``solve``'s; False deals
    them; the evaluation deals are dealt either way) and ``opponents`` (the model the
    evaluation deals' opponents are set by, which ``mc`` assumes, module docstring;
    None: the field); ``mc@MODEL`` in ``policies`` is mc assuming MODEL.
    ``tables`` maps extra policy names (say ``field@old``, listed in ``policies``) to field
    tables: that policy is the field strategy playing those tables instead of the
    ruleset's own, so two sets of tables meet the same hands and opponents (the
    opponents, and mc's, are set by the ruleset's own tables)."""
    tables = dict(tables or {})
    _check(n_hands, policies, eval_deals, extra=tables)
    from solver.engine.compiled import CompiledRules, compile_rules
    from solver.engine.seating import seated
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.hands.deal import random_hands
    from solver.strategy.opposition.opponents import describe, resolve_opponents

    opts = (options or SolveOptions()).check()
    given = rules.rules if isinstance(rules, CompiledRules) else load_rules(rules)
    players = opts.players or given.players
    table = seated(given, players)  # more players than 52 cards deal: the preset's table
    cr = rules if isinstance(rules, CompiledRules) and table is given else compile_rules(table)
    ensure_field(cr)  # the opponents are set with them, and mc's
    samples = opts.samples or DEFAULT_SAMPLES
    opts = opts.evolve(players=players, samples=samples, top=0)
    opponents = opts.opponents
    models = resolve_opponents(opponents, cr, players - 1)
    for p in policies:  # every model named, checked before the first hand
        if p.startswith("mc@"):
            resolve_opponents(p[3:], cr, players - 1)
    assumed = {p: (p[3:] if p.startswith("mc@") else opponents) for p in policies}
    rng = np.random.default_rng(seed)
    values = np.zeros((len(policies), n_hands))
    pairs = _pairs(policies)
    differ = dict.fromkeys((f"{a}-{b}" for a, b in pairs), 0)
    for h in range(n_hands):
        hand = random_hands(rng, 1, cr.rules.deck)[0]
        values[:, h], settings = _play_hand(hand, cr, opts, policies, eval_deals, tables, rng,
                                            (models, assumed))  # fmt: skip
        for a, b in pairs:
            sa, sb = settings[policies.index(a)], settings[policies.index(b)]
            if any(sorted(sa[r].split()) != sorted(sb[r].split()) for r in (0, 1)):
                differ[f"{a}-{b}"] += 1
        if progress:
            progress(h + 1, n_hands)
    report = _report(values, policies, differ, cr.rules.name, players, eval_deals, samples, seed)
    return dataclasses.replace(report, opponents=describe(models))


def _pairs(policies: Sequence[str]) -> list[tuple[str, str]]:
    """Each pair of policies, in order."""
    return [(a, b) for i, a in enumerate(policies) for b in policies[i + 1 :]]


def _play_hand(
    hand: np.ndarray,
    cr: CompiledRules,
    opts: SolveOptions,
    policies: Sequence[str],
    eval_deals: int,
    tables: Mapping[str, FieldTables],
    rng: np.random.Generator,
    at_table: tuple[Any, Mapping[str, Any]] = (None, {}),
) -> tuple[np.ndarray, list[tuple[str, str, str]]]:
    """Each policy's setting of ``hand`` and its value against the same fresh opponents
    (units per opponent; a declared natural or a surrender at its own value). ``opts``:
    each solve's options (players, samples, pool, opponents); ``at_table``: the models
    the fresh opponents are set by, and the model each mc policy assumes."""
    from solver.engine.setting_cards import parse_setting
    from solver.engine.settlement import natural_of
    from solver.strategy.field_model.trained import field_override
    from solver.strategy.hands.splits import Candidates, split_of
    from solver.strategy.opposition.opponents import seat_setter
    from solver.strategy.solving.scoring import deal_opponents, score_against
    from solver.strategy.solving.solve import solve

    players = opts.players or cr.rules.players
    models, assumed = at_table
    setter = None if models is None else seat_setter(models, cr)
    opp = deal_opponents(hand, cr, players - 1, eval_deals, int(rng.integers(2**63)),
                         set_seats=setter)  # fmt: skip
    sols = []
    for p in policies:
        mc = p == "mc" or p.startswith("mc@")
        policy = "field" if p in tables else "mc" if mc else p
        seat = {"opponents": assumed[p]} if mc else {"pool": True, "opponents": None}
        one = opts.evolve(policy=policy, seed=int(rng.integers(2**63)), **seat)
        with field_override(cr, tables[p]) if p in tables else contextlib.nullcontext():
            sols.append(solve(hand, cr, one))
    settings = [(sol.front, sol.middle, sol.back) for sol in sols]
    extra = cr.rules.deck_code  # each setting's faces (a copy written twice)
    rows = [np.split(parse_setting(st, extra_suits=extra), [3, 8]) for st in settings]
    split = [split_of(hand, *r) for r in rows]
    none = (np.empty((0, 3), np.int32), np.empty((0, 3), np.int64), np.empty((0, 4)))
    scores = score_against(Candidates(hand, *none, 0, False).with_split(np.array(split), cr),
                           cr, opp)  # fmt: skip
    values = np.empty(len(policies))
    for i, sol in enumerate(sols):
        if sol.action == "surrender":
            values[i] = -float(cr.rules.surrender_cost)
        elif sol.action == "declare":
            values[i] = scores.declare(natural_of(hand, cr))
        else:
            values[i] = scores.ev(i)
    return values, settings


def _report(
    values: np.ndarray,
    policies: Sequence[str],
    differ: dict[str, int],
    rules: str,
    players: int,
    eval_deals: int,
    samples: int,
    seed: int,
) -> StrengthReport:
    """The report of per-hand values (policies x hands): each policy's mean, and each
    pair's paired gain with its standard error and 95% interval."""
    from solver.apps.duel import confidence_interval

    n_hands = values.shape[1]
    se = lambda x: float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan")  # noqa: E731
    results = tuple(
        PolicyResult(p, float(values[i].mean()), se(values[i])) for i, p in enumerate(policies)
    )
    gains, ci95 = {}, {}
    for a, b in _pairs(policies):
        d = values[policies.index(a)] - values[policies.index(b)]
        gains[f"{a}-{b}"] = (float(d.mean()), se(d))
        mean, _, half = confidence_interval(d)
        ci95[f"{a}-{b}"] = (mean - half, mean + half)
    return StrengthReport(
        n_hands,
        players,
        eval_deals,
        rules,
        results,
        gains,
        {k_: v / n_hands for k_, v in differ.items()},
        samples=samples,
        seed=seed,
        ci95=ci95,
    )
