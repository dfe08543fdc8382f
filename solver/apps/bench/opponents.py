"""Setting the opponents with a learned model (docs/opponents.md): a Monte Carlo solve
against a model's opponents beside the same solve against the field's, on one core, in
the same rounds."""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING

from solver.apps.bench.pooled import _one_thread
from solver.apps.bench.timing import (
    MODEL_FIELD_RATIO,
    Result,
    Runner,
    default_runner,
    load,
    seeded_hands,
    threads,
)

if TYPE_CHECKING:
    from solver.engine.rules import RulesLike

__all__ = ["mc_opponents"]


def mc_opponents(
    opponents: int = 3_000,
    hands: int = 3,
    rounds: int = 5,
    players: int = 2,
    seed: int = 0,
    rules: RulesLike = "chinese-2-4",
    runner: Runner | None = None,
    learn_from: int = 1_000,
) -> Result:
    """A Monte Carlo ``solve`` of ``hands`` hands against ``opponents`` opponent hands
    dealt and set by a model learned from greedy's settings of ``learn_from`` random
    hands (``capsa train --from``'s fit), and the same solves against the field's (dealt
    too, ``pool=False``: a model's opponents are always dealt), one core, each round
    timing the two back to back. Target: the model's time a hand at most
    ``MODEL_FIELD_RATIO`` times the field's."""
    from solver.engine.compiled import compile_rules
    from solver.strategy.field_model.policy import set_sorted_hands
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.opposition.learn import learn
    from solver.strategy.opposition.opponents import OpponentModel
    from solver.strategy.solving.solve import solve

    r = load(rules)
    cr = compile_rules(r)
    field = ensure_field(cr)
    seen = seeded_hands(learn_from, seed + 1)
    _, keys, roy, _ = set_sorted_hands(seen, cr, "greedy", field)
    t0 = time.perf_counter()
    model = OpponentModel("greedy-model", "field", learn(seen, keys, roy, cr, field, {}).tables)
    learned = time.perf_counter() - t0
    hs = seeded_hands(hands, seed)
    times: dict[str, list[float]] = {"model": [], "field": []}

    def solve_all(who: object) -> None:
        for i, h in enumerate(hs):
            solve(h, rules=cr, players=players, samples=opponents, seed=seed + i, top=0,
                  pool=False, opponents=who)  # fmt: skip

    def pair() -> None:
        for name, who in (("model", model), ("field", "field")):
            t = time.perf_counter()
            solve_all(who)
            times[name].append(time.perf_counter() - t)

    with _one_thread():
        t0 = time.perf_counter()
        solve_all(model)  # kernels compiled or loaded
        first = time.perf_counter() - t0
        (runner or default_runner)(pair, rounds)
        used = threads()
    if not times["model"]:
        raise ValueError("runner made no rounds for mc_opponents")
    median = statistics.median(times["model"])
    per_hand = median / hands
    field_per_hand = statistics.median(times["field"]) / hands
    return Result(
        name="mc_opponents",
        description=f"Monte Carlo solve, {opponents:,} opponent hands dealt and set by a "
        f"model learned from {learn_from:,} of greedy's settings, {hands} hands ({r.name}, "
        f"{players} players), one core, against the same solves with field opponents",
        items=hands,
        unit="hand",
        median=median,
        rate=hands / median,
        per_item=per_hand,
        rounds=len(times["model"]),
        first_call=first,
        threads=used,
        target=f"≤ {MODEL_FIELD_RATIO:g}× field",
        target_rate=1 / (MODEL_FIELD_RATIO * field_per_hand),
        ok=per_hand <= MODEL_FIELD_RATIO * field_per_hand,
        extra={
            "samples": opponents,
            "players": players,
            "field_per_hand": field_per_hand,
            "ratio": per_hand / field_per_hand,
            "learn_seconds": learned,
        },  # fmt: skip
    )
