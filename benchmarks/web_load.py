"""`capsa serve` under load, at rising numbers of players (solver.apps.bench.web_load).

    python benchmarks/web_load.py [--players 100,200,500] [--seconds 60] [--think 5]
                                  [--flood 50] [--workers 2] [--mc-every 20] [--rounds 1]

For each number of players: a fresh `capsa serve --workers N`, the players alone for
``--seconds``, then beside a client keeping ``--flood`` Monte Carlo solves in flight.
Prints, a line a phase, the quick requests' p50/p95/p99 (ms), the refusals and errors,
then the flood ratio, the flood's answers and each worker's memory; the targets are
those of docs/serve.md (Measured). `capsa bench --only web_load` runs one size (200
players, 60 s). Not collected by pytest (the file name is not bench_*).
"""

from __future__ import annotations

import argparse
import json

from solver.apps.bench.web_load import TARGETS, web_load


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", default="100,200,500", help="comma-separated sizes")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--think", type=float, default=5.0)
    p.add_argument("--flood", type=int, default=50)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--mc-every", type=int, default=20)
    p.add_argument("--rounds", type=int, default=1, help="alone and flooded in turn, N times")
    p.add_argument("--json", action="store_true", help="print each run's figures as JSON")
    a = p.parse_args()
    print(f"targets: {TARGETS}")
    for n in (int(v) for v in a.players.split(",")):
        r = web_load(n, a.seconds, a.think, a.flood, a.workers, a.mc_every, a.rounds)
        x = r.extra
        if a.json:
            print(json.dumps(x))
        for phase in ("alone", "flooded"):
            q = x[phase]
            kinds = q["kinds"]
            mc = kinds.get("mc", {})
            print(
                f"{n} players {phase:>7}: {sum(k['n'] for k in kinds.values()):,} requests; "
                f"quick p50/p95/p99 {q['quick_p50']}/{q['quick_p95']}/{q['quick_p99']} ms, "
                f"quick refused {q['quick_refused']}, errors {q['errors']}; "
                f"mc p50/p95 {mc.get('p50')}/{mc.get('p95')} ms, "
                f"mc refused {mc.get('429', 0) + mc.get('503', 0)}"
            )
        ratio = x["flood_ratio"]
        print(
            f"{n} players: flood ratio {'-' if ratio is None else f'{ratio:.2f}'}x, "
            f"flood answered {x['flooded']['flood']}, worker memory "
            f"{x['worker_memory_mb']} MB (its Monte Carlo processes {x['mc_memory_mb']} MB), "
            f"load average {x['load_average']}, targets met: {x['targets_met']}"
        )
        for phase, c in x["cpu"].items():
            print(
                f"{n} players {phase:>7}: CPU {c['workers_s']} s in the workers "
                f"({c['workers_ms_per_request']} ms a request), {c['mc_s']} s in their Monte "
                f"Carlo processes ({c['mc_ms_per_answer']} ms a Monte Carlo answer)"
            )
        for pid, m in x["memory"].items():
            print(
                f"{n} players: worker {pid}: {m['warm_mb']} MB after warm-up, at most "
                f"{m['max_mb']}, {m['end_mb']} at the end ({m['growth']:+.1%}); with its "
                f"Monte Carlo processes {m['with_mc_warm_mb']} -> {m['with_mc_end_mb']} MB "
                f"({m['with_mc_growth']:+.1%}), {m['samples']} samples"
            )


if __name__ == "__main__":
    main()
