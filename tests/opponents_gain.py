"""What knowing the opponents is worth: duplicate deals against ``greedy``
(docs/opponents.md#measured).

``python -m tests.opponents_gain`` deals ``--deals`` duplicate deals of ``--players``
(default 2) under ``--rules`` (a preset or a ruleset file; default ``chinese-2-4``; seed
``--seed``) with ``--jokers`` (default: the ruleset's; the table ``capsa --players
--jokers`` seats, its deck: added suits at five and six) and plays each, every seat in
turn ``mc`` and the others ``greedy``, with three versions of ``mc`` (``--samples``
opponent hands a solve), settled exactly (``solver.apps.duel.score_duplicate``, the
duel's scoring):

- ``mc --opponents greedy`` (it knows the opponents);
- ``mc --opponents field`` (today's mc);
- ``mc --opponents MODEL.npz``, a model learned (as ``capsa train --from`` learns it)
  from ``--learn`` of greedy's settings of other hands (seed ``--seed + 1``).

It prints each one's units per deal against greedy and the paired gains over today's
mc, per deal (the same deals, so the difference of the two duels' per-deal values),
with 95% intervals (Student's t), and the seconds each spent setting hands. The
field's mc and the model's draw their opponents from pools of ``--pool`` hands built
first in a scratch folder (``capsa pool`` and ``capsa pool --opponents MODEL.npz``; 0:
dealt), as a long run would; greedy's are dealt (cheap to set). ``--out FILE`` writes
the figures as JSON, with each deal's values (``x``); ``--model FILE`` keeps the model
learned there (learned once: a later run with the same ``FILE`` plays it), so that runs of
other seeds play the same model, and ``--combine FILE...`` prints the figures of such runs
together (their deals pooled); ``--pool-dir DIR`` keeps the pools there (built once).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np


def _interval(x: np.ndarray) -> dict[str, float]:
    from solver.apps.duel import confidence_interval

    mean, se, half = confidence_interval(x)
    return {"mean": mean, "stderr": se, "lo": mean - half, "hi": mean + half}


def _learn(n: int, seed: int, cr, folder: Path) -> Path:
    """A model learned from greedy's settings of ``n`` other hands of the table's deck,
    written to a file."""
    from solver.apps.learning import Seen, learn_from
    from solver.strategy.field_model.policy import set_sorted_hands, settings_of
    from solver.strategy.hands.deal import random_hands

    hands = random_hands(np.random.default_rng(seed), n, cr.rules.deck)
    split, _, _, _ = set_sorted_hands(hands, cr, "greedy", None)
    seen = Seen(settings=list(settings_of(hands, split)))
    path = folder / f"greedy-{n}.npz"
    _, report = learn_from(seen, cr.rules, "greedy", path)
    print(f"learned from {report['fit_hands']} of greedy's settings: {report}", flush=True)
    return path


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--learn", type=int, default=5000)
    ap.add_argument("--pool", type=int, default=500_000)
    ap.add_argument("--rules", default="chinese-2-4")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--jokers", type=int)
    ap.add_argument("--out")
    ap.add_argument("--model")
    ap.add_argument("--pool-dir")
    ap.add_argument("--combine", nargs="+")
    args = ap.parse_args(argv)
    if args.combine:
        return _combine(args.combine)
    from solver.apps.duel import resolve, score_duplicate
    from solver.engine.compiled import compile_rules
    from solver.engine.options import SolveOptions
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table
    from solver.strategy.hands.deal import deal_hands

    rules = at_table(load_rules(args.rules), args.players, args.jokers)
    cr = compile_rules(rules)
    k = args.players
    hands = deal_hands(np.random.default_rng(args.seed), args.deals, k, deck=rules.deck)
    flat = hands.reshape(-1, 13)
    out: dict = {"rules": rules.name, "players": k, "deals": args.deals,
                 "samples": args.samples, "seed": args.seed, "learn": args.learn}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="capsa-gain-") as tmp:
        folder = Path(tmp)
        play = compile_rules(replace(rules, naturals=()))
        if args.pool:  # the pool of the rules mc solves under in a duel (no naturals)
            from solver.strategy.opposition.pool import build_pool, cached_pool

            os.environ["CAPSA_POOL_DIR"] = args.pool_dir or str(folder)
            t0 = time.perf_counter()
            if cached_pool(play) is None:
                build_pool(play, args.pool)
            print(f"pool of {args.pool:,} hands: {time.perf_counter() - t0:.0f} s", flush=True)
        model = Path(args.model) if args.model else None
        if model is None or not model.exists():
            learned = _learn(args.learn, args.seed + 1, cr, folder)
            model = learned if model is None else Path(shutil.copy(learned, model))
        if args.pool:
            from solver.strategy.opposition.opponents import load_model

            t0 = time.perf_counter()
            tables = load_model(model, play).tables
            if cached_pool(play, tables) is None:
                build_pool(play, args.pool, tables=tables)
            print(f"the model's pool: {time.perf_counter() - t0:.0f} s", flush=True)
        greedy = resolve("greedy", k).set_hands(flat, cr, args.seed)
        x, seconds = {}, {}
        for name, opp in (("greedy", "greedy"), ("field", "field"), ("model", str(model))):
            mc = resolve(f"mc:{args.samples}", k, None, SolveOptions(opponents=opp))
            t0 = time.perf_counter()
            settings = mc.set_hands(flat, cr, args.seed)
            seconds[name] = (time.perf_counter() - t0) / len(flat)
            x[name] = score_duplicate(settings, greedy, hands, cr)["x"]
            print(f"mc --opponents {name}: {_interval(x[name])}, "
                  f"{seconds[name] * 1000:.1f} ms a hand", flush=True)  # fmt: skip
    out.update(_figures(x))
    out["seconds_a_hand"] = seconds
    print(json.dumps(out, indent=2))
    if args.out:
        out["x"] = {k: [float(v) for v in a] for k, a in x.items()}
        Path(args.out).write_text(json.dumps(out) + "\n")
    return 0


def _figures(x: dict[str, np.ndarray]) -> dict:
    """Each mc's units per deal against greedy, and the paired gains over today's mc."""
    out: dict = {"vs_greedy": {k: _interval(v) for k, v in x.items()}}
    out["gain_knowing"] = _interval(x["greedy"] - x["field"])
    out["gain_model"] = _interval(x["model"] - x["field"])
    knowing = out["gain_knowing"]["mean"]
    out["share_of_gain"] = out["gain_model"]["mean"] / knowing if knowing else None
    return out


def _combine(files: list[str]) -> int:
    """The figures of runs' ``--out`` files together, their deals pooled."""
    runs = [json.loads(Path(f).read_text()) for f in files]
    x = {k: np.concatenate([np.asarray(r["x"][k]) for r in runs]) for k in runs[0]["x"]}
    out = {"rules": runs[0]["rules"], "players": runs[0]["players"], "runs": len(runs),
           "deals": len(x["field"]), "seeds": [r["seed"] for r in runs]}  # fmt: skip
    out.update(_figures(x))
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
