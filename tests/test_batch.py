"""`capsa batch` and solver.apps.batch: formats, order, bad lines, resume, workers, Dask."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator import format_cards
from solver.apps import batch as B
from solver.cli import app
from solver.engine.layout import ROWS
from tests import helpers

CAPSA = [sys.executable, "-m", "solver"]
#: Monte Carlo with few deals: the per-hand path, quick enough for tests.
MC = {"policy": "mc", "samples": 24}
MC_ARGS = ["--policy", "mc", "--samples", "24"]


def shifted_seed_solve(hand, rules, options):
    """A custom solve_fn (top-level, so that it pickles into the workers): called as
    ``solve(hand, rules, options)``."""
    from solver.strategy.solving.solve import solve

    return solve(hand, rules, options.evolve(seed=options.seed + 1))


# --------------------------------------------------------------------------------------
# Input files
# --------------------------------------------------------------------------------------


#: n random 13-card hands, uint8[n, 13], in dealt (unsorted) order.
random_hands = partial(helpers.random_hands, dealt=True)


def write_hands(path: Path, n: int, seed: int = 0, *, ids: bool = True) -> Path:
    """A hand file mixing the id forms, comments and blank lines."""
    with path.open("w") as f:
        f.write("# generated hands\n\n")
        for i, hand in enumerate(random_hands(n, seed)):
            cards = format_cards(hand)
            if not ids or i % 4 == 3:
                f.write(cards + "\n")
            elif i % 4 == 0:
                f.write(f"h{i}: {cards}\n")
            elif i % 4 == 1:
                f.write(f"h{i}\t{cards}\n")
            else:
                f.write(f"h{i} {cards}\n")
            if i % 50 == 49:
                f.write("   # a comment\n")
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def cli(*args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


# --------------------------------------------------------------------------------------
# Lines and ids
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "ident"),
    [
        (HAND, None),
        (f"h1: {HAND}", "h1"),
        (f"game:7:h1:{HAND}", "game:7:h1"),
        (f"hand 12\t{HAND}", "hand 12"),
        (f"h1 {HAND}", "h1"),
        (f"42 {HAND}", "42"),
        (f"As: {HAND.replace('As', 'Ah')}", "As"),
        (HAND.replace(" ", ""), None),
        (HAND.replace(" ", ","), None),
        ("AsKs " + HAND[6:], None),
    ],
)
def test_parse_line_ids(line, ident):
    got_id, hand = B.parse_line(line)
    assert got_id == ident
    assert len(hand) == 13


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("As As Kd Qh Jh Th 9h 8h 7h 6h 5h 4h 3h", "duplicate card 'As'"),
        ("h9: As Kd Qh Jh Th 9h 8h 7h 6h 5h 4h 3h", "expected 13 cards, got 12"),
        ("h9 As Kd Qh Jh Th 9h 8h 7h 6h 5h 4h 3h 2h 2c", "expected 13 cards, got 14"),
        ("As Kd Qh Jh Th 9h 8h 7h 6h 5h 4h 3h Zz", "bad card 'Zz' at position 13"),
    ],
)
def test_parse_line_errors(line, reason):
    with pytest.raises(ValueError, match=reason):
        B.parse_line(line)


def test_hand_seed_depends_on_seed_and_line_only():
    assert B.hand_seed(0, 5) == B.hand_seed(0, 5)
    assert len({B.hand_seed(s, n) for s in range(3) for n in range(1, 50)}) == 147


# --------------------------------------------------------------------------------------
# The library: order, formats, bad lines, resume (Monte Carlo, few deals: per-hand path)
# --------------------------------------------------------------------------------------


def test_order_ids_and_same_bytes_for_any_workers(tmp_path):
    src = write_hands(tmp_path / "in.txt", 60)
    outs = []
    for workers, chunk in ((1, 7), (2, 3), (1, 1000)):
        out = tmp_path / f"out{workers}-{chunk}.jsonl"
        res = B.run_batch(src, out, workers=workers, chunk_size=chunk, **MC)
        assert (res.hands, res.bad, res.interrupted) == (60, 0, False)
        outs.append(out.read_bytes())
    assert len(set(outs)) == 1
    recs = records(tmp_path / "out1-7.jsonl")
    src_lines = src.read_text().splitlines()
    assert [r["line"] for r in recs] == sorted(r["line"] for r in recs)
    for r in recs:
        ident, hand = B.parse_line(src_lines[r["line"] - 1])
        assert r["id"] == ident
        assert sorted(hand.tolist()) == sorted(B.parse_line(r["hand"])[1].tolist())
        assert r["seed"] == B.hand_seed(0, r["line"]) and r["samples"] == 24
    assert [r["id"] for r in recs[:4]] == ["h0", "h1", "h2", None]
    assert list(recs[0])[:3] == ["line", "id", "hand"]


def test_record_is_solve_to_dict(tmp_path):
    from solver.strategy.solving.solve import solve

    src = tmp_path / "in.txt"
    src.write_text(f"# one hand\nh7: {HAND}\n")
    B.run_batch(src, tmp_path / "o.jsonl", workers=1, **MC)
    (rec,) = records(tmp_path / "o.jsonl")
    want = solve(HAND, policy="mc", samples=24, seed=B.hand_seed(0, 2), top=0).to_dict()
    assert rec == {"line": 2, "id": "h7", **json.loads(json.dumps(want))}


def test_csv_output_columns(tmp_path):
    import csv

    from solver.strategy.solving.solve import Solution

    src = write_hands(tmp_path / "in.txt", 12)
    src.write_text(src.read_text() + "six: As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2c\n")
    out = tmp_path / "out.csv"
    B.run_batch(src, out, workers=1, **MC)
    B.run_batch(src, tmp_path / "out.jsonl", workers=1, **MC)
    with out.open(newline="") as f:
        rows = [dict(zip(B.CSV_COLUMNS, r, strict=True)) for r in list(csv.reader(f))[1:]]
    assert out.read_text().splitlines()[0] == ",".join(B.CSV_COLUMNS)
    recs = records(tmp_path / "out.jsonl")
    assert len(rows) == len(recs) == 13
    for row, rec in zip(rows, recs, strict=True):
        assert row["line"] == str(rec["line"]) and row["id"] == (rec["id"] or "")
        assert float(row["ev"]) == rec["ev"] and row["front"] == rec["front"]
        assert float(row["back_win"]) == rec["row_stats"]["back"]["win"]
        assert row["surrender_recommended"] == str(rec["surrender"]["recommended"]).lower()
    assert rows[-1]["natural"] == "six_pairs" and rows[-1]["natural_declared"] in ("true", "false")
    assert rows[0]["natural"] == "" and rows[0]["natural_ev_play"] == ""
    # every scalar field of a solution has a column; the nested ones are flattened
    nested = {"row_stats", "alternatives", "natural", "surrender", "stakes", "ev_by_opponent"}
    nested |= {"ev_parts"}  # flattened into ev_parts_rows, ...
    nested |= {"played"}  # flattened into the played_* columns (tests/test_batch_played.py)
    fields = {f.name for f in __import__("dataclasses").fields(Solution)} - nested
    assert set(recs[0]) - nested <= set(B.CSV_COLUMNS)
    assert fields - {"setting"} <= set(B.CSV_COLUMNS)


def test_csv_input(tmp_path):
    hands = random_hands(5, 3)
    src = tmp_path / "in.csv"
    rows = [format_cards(h).replace(" ", ",") for h in hands]
    lines = ["id,hand,note"] + [f'g{i},"{row}",x' for i, row in enumerate(rows)]
    lines.insert(3, "# comment")
    lines.append("g9,As Kd,x")
    lines.append("g10,too,many,fields")
    src.write_text("\n".join(lines) + "\n")
    bad: list[B.BadLine] = []
    res = B.run_batch(src, tmp_path / "o.jsonl", workers=1, on_bad=bad.append, **MC)
    assert res.hands == 5
    recs = records(tmp_path / "o.jsonl")
    assert [r["id"] for r in recs] == ["g0", "g1", "g2", "g3", "g4"]
    assert [r["line"] for r in recs] == [2, 3, 5, 6, 7]
    assert [(b.line, b.id) for b in bad] == [(8, "g9"), (9, "g10")]
    assert "expected 13 cards, got 2" in bad[0].reason
    assert "expected 3 CSV fields, got 4" in bad[1].reason


def test_csv_file_needs_header(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text(HAND + "\n")
    with pytest.raises(B.BatchError, match="header naming a 'hand' column"):
        B.run_batch(src, tmp_path / "o.jsonl", workers=1, **MC)


def test_bad_lines_are_reported_and_good_lines_kept(tmp_path):
    good = [format_cards(h) for h in random_hands(6, 9)]
    lines = [
        good[0],
        "As As Kd Qh Jh Th 9h 8h 7h 6h 5h 4h 3h",  # 2: duplicate
        f"x1: {good[1]}",
        "x2: As Kd Qh Jh Th 9h 8h 7h 6h 5h 4h 3h",  # 4: 12 cards
        "",
        good[2],
        "Zz Kd Qh Jh Th 9h 8h 7h 6h 5h 4h 3h 2h",  # 7: 12 cards after the id 'Zz'
        "As Kd Qh Jh Th 9h 8h 7h 6h 5h 4h 3h Zz",  # 8: bad card
        good[3] + (" 2c" if "2c" not in good[3] else " 2d"),  # 9: 14 cards
        good[4],
        "A" * (B.MAX_LINE + 10),  # 11: too long
        good[5],
    ]
    src = tmp_path / "in.txt"
    src.write_bytes("\n".join(lines).encode() + b"\n\xff\xfe bad bytes\n")  # 13: not UTF-8
    for workers in (1, 2):
        bad: list[B.BadLine] = []
        errs = tmp_path / f"errors{workers}.jsonl"
        out = tmp_path / f"o{workers}.jsonl"
        res = B.run_batch(
            src, out, workers=workers, chunk_size=2, errors=errs, on_bad=bad.append, **MC
        )
        assert (res.hands, res.bad) == (5, 7)
        assert [r["line"] for r in records(out)] == [1, 3, 6, 10, 12]
        assert [b.line for b in bad] == [2, 4, 7, 8, 9, 11, 13]
        logged = [json.loads(x) for x in errs.read_text().splitlines()]
        assert [e["line"] for e in logged] == [2, 4, 7, 8, 9, 11, 13]
        assert logged[0]["text"] == lines[1]
        reasons = {b.line: b.reason for b in bad}
        assert "duplicate card 'As'" in reasons[2] and "got 12" in reasons[4]
        assert "got 12" in reasons[7] and "got 14" in reasons[9] and "'Zz'" in reasons[8]
        assert "longer than" in reasons[11] and "UTF-8" in reasons[13]
        assert bad[1].id == "x2" and bad[1].message().startswith("line 4 (id x2): ")
    assert (tmp_path / "o1.jsonl").read_bytes() == (tmp_path / "o2.jsonl").read_bytes()


def test_resume_after_truncation_at_any_point(tmp_path):
    src = write_hands(tmp_path / "in.txt", 30)
    ref = tmp_path / "ref.jsonl"
    B.run_batch(src, ref, workers=1, chunk_size=5, **MC)
    whole = ref.read_bytes()
    side = B.sidecar_path(ref).read_bytes()
    out = tmp_path / "out.jsonl"
    for cut in (0, 1, 200, len(whole) // 3, len(whole) // 2 + 7, len(whole) - 1, len(whole)):
        out.write_bytes(whole[:cut])
        B.sidecar_path(out).write_bytes(side)
        res = B.run_batch(src, out, workers=1, chunk_size=5, resume=True, **MC)
        assert out.read_bytes() == whole, cut
        assert res.hands == 30 - whole[:cut].count(b"\n")


def test_resume_csv(tmp_path):
    src = write_hands(tmp_path / "in.txt", 12)
    ref = tmp_path / "ref.csv"
    B.run_batch(src, ref, workers=1, **MC)
    whole = ref.read_bytes()
    out = tmp_path / "out.csv"
    for cut in (0, 5, len(whole) // 2, len(whole)):
        out.write_bytes(whole[:cut])
        B.sidecar_path(out).write_bytes(B.sidecar_path(ref).read_bytes())
        workers = 2 if cut == len(whole) // 2 else 1
        B.run_batch(src, out, workers=workers, resume=True, chunk_size=3, **MC)
        assert out.read_bytes() == whole, cut


def test_resume_refuses_other_options_or_input(tmp_path):
    src = write_hands(tmp_path / "in.txt", 10)
    out = tmp_path / "out.jsonl"
    B.run_batch(src, out, workers=1, seed=1, **MC)
    with pytest.raises(B.BatchError, match=r"other options: seed 1 \(now 2\)"):
        B.run_batch(src, out, workers=1, seed=2, resume=True, **MC)
    with pytest.raises(B.BatchError, match="other options: policy 'mc' \\(now 'greedy'\\)"):
        B.run_batch(src, out, workers=1, seed=1, resume=True, policy="greedy")
    with pytest.raises(B.BatchError, match="other options: rules"):
        B.run_batch(src, out, workers=1, seed=1, resume=True, rules="capsa", **MC)
    other = write_hands(tmp_path / "other.txt", 10, seed=5)
    with pytest.raises(B.BatchError, match="is not the hand last written"):
        B.run_batch(other, out, workers=1, seed=1, resume=True, **MC)
    short = write_hands(tmp_path / "short.txt", 5)
    with pytest.raises(B.BatchError, match="input ends before line"):
        B.run_batch(short, out, workers=1, seed=1, resume=True, **MC)
    B.sidecar_path(out).unlink()
    with pytest.raises(B.BatchError, match="is missing"):
        B.run_batch(src, out, workers=1, seed=1, resume=True, **MC)


def test_resume_reports_earlier_bad_lines_again(tmp_path):
    src = tmp_path / "in.txt"
    hands = [format_cards(h) for h in random_hands(8, 1)]
    src.write_text("\n".join(hands[:3] + ["bad line"] + hands[3:]) + "\n")
    out = tmp_path / "out.jsonl"
    B.run_batch(src, out, workers=1, chunk_size=2, **MC)
    whole = out.read_bytes()
    out.write_bytes(whole[: whole.index(b'{"line":6')])
    bad: list[B.BadLine] = []
    res = B.run_batch(src, out, workers=1, chunk_size=2, resume=True, on_bad=bad.append, **MC)
    assert out.read_bytes() == whole
    assert (res.resumed_after, res.hands, [b.line for b in bad]) == (5, 4, [4])


@pytest.mark.parametrize("policy", ["field", "greedy"])
def test_policy_fast_path_matches_solve(tmp_path, policy):
    """The chunked path gives solve()'s record: same keys and values, except that
    `candidates` is null and rows of equal keys may show other suits."""
    src = tmp_path / "in.txt"
    hands = [format_cards(h) for h in random_hands(150, 21)]
    hands += ["As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2c"]  # a natural: the per-hand path
    src.write_text("\n".join(hands) + "\n")
    slow, fast = tmp_path / "slow.jsonl", tmp_path / "fast.jsonl"
    B.run_batch(src, slow, workers=1, policy=policy, fast=False, chunk_size=40)
    B.run_batch(src, fast, workers=1, policy=policy, chunk_size=40)
    differ = 0
    for a, b in zip(records(slow), records(fast), strict=True):
        assert list(a) == list(b)
        assert list(a["surrender"]) == list(b["surrender"])
        for key in a:
            if key == "candidates":
                assert b[key] is None or a["natural"] is not None
            elif key in ROWS:
                ranks = [sorted(c[0] for c in x[key].split()) for x in (a, b)]
                assert ranks[0] == ranks[1]
                differ += a[key] != b[key]
            else:
                assert a[key] == b[key], (key, a, b)
    assert differ < 60


def test_custom_solve_fn_reaches_the_workers(tmp_path):
    src = write_hands(tmp_path / "in.txt", 6)
    B.run_batch(
        src, tmp_path / "a.jsonl", workers=2, chunk_size=2, solve_fn=shifted_seed_solve, **MC
    )
    seeds = [r["seed"] for r in records(tmp_path / "a.jsonl")]
    assert seeds == [B.hand_seed(0, r["line"]) + 1 for r in records(tmp_path / "a.jsonl")]


def test_dask_in_process_cluster_same_bytes(tmp_path):
    distributed = pytest.importorskip("distributed")
    src = write_hands(tmp_path / "in.txt", 20)
    B.run_batch(src, tmp_path / "ref.jsonl", workers=1, chunk_size=3, **MC)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        res = B.run_batch(src, tmp_path / "dask.jsonl", dask=client, chunk_size=3, **MC)
    assert res.hands == 20
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


def test_stream_input_and_output(tmp_path):
    import io

    src = write_hands(tmp_path / "in.txt", 5)
    sink = io.StringIO()
    res = B.run_batch(io.BytesIO(src.read_bytes()), sink, workers=1, **MC)
    B.run_batch(src, tmp_path / "o.jsonl", workers=1, **MC)
    assert res.hands == 5 and sink.getvalue() == (tmp_path / "o.jsonl").read_text()
    with pytest.raises(B.BatchError, match="needs an output file"):
        B.run_batch(src, sink, workers=1, resume=True, **MC)


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------


def test_batch_help():
    res = cli("batch", "--help")
    assert res.exit_code == 0
    for opt in ("--resume", "--dask", "--errors", "--workers", "--policy", "--format"):
        assert opt in res.output


def test_cli_stdin_to_stdout(tmp_path):
    src = write_hands(tmp_path / "in.txt", 8)
    res = cli("batch", "-", "--workers", "1", *MC_ARGS, input=src.read_text())
    assert res.exit_code == 0, res.output
    recs = [json.loads(x) for x in res.stdout.splitlines()]
    assert [r["id"] for r in recs] == ["h0", "h1", "h2", None, "h4", "h5", "h6", None]
    assert "capsa: 8 hands, 0 bad lines" in res.stderr
    cli("batch", str(src), "-o", str(tmp_path / "o.jsonl"), "--workers", "1", *MC_ARGS)
    assert res.stdout == (tmp_path / "o.jsonl").read_text()


def test_cli_csv_stdin_and_format(tmp_path):
    text = "id,hand\n" + "\n".join(f"c{i},{format_cards(h)}" for i, h in enumerate(random_hands(3)))
    res = cli("batch", "-", "--workers", "1", "--format", "csv", *MC_ARGS, input=text + "\n")
    assert res.exit_code == 0
    rows = res.stdout.splitlines()
    assert rows[0].startswith("line,id,hand,") and rows[1].startswith("2,c0,")
    assert len(rows) == 4
    out = tmp_path / "o.csv"  # the format follows the output's name
    assert cli("batch", "-", "-o", str(out), "-w", "1", *MC_ARGS, input=text).exit_code == 0
    assert out.read_text() == res.stdout


def test_cli_bad_lines_exit_1(tmp_path):
    src = tmp_path / "in.txt"
    good = format_cards(random_hands(1)[0])
    src.write_text(f"{good}\nh2: As As Kd Qh Jh Th 9h 8h 7h 6h 5h 4h 3h\nAs Kd\n{good}\n")
    out, errs = tmp_path / "o.jsonl", tmp_path / "e.jsonl"
    res = cli("batch", str(src), "-o", str(out), "-w", "1", "--errors", str(errs), *MC_ARGS)
    assert res.exit_code == 1
    assert "capsa: line 2 (id h2): duplicate card 'As'" in res.stderr
    assert "capsa: line 3: expected 13 cards, got 2" in res.stderr
    assert "capsa: 2 hands, 2 bad lines" in res.stderr
    assert [r["line"] for r in records(out)] == [1, 4]
    assert len(errs.read_text().splitlines()) == 2
    src.write_text(f"{good}\nAs Kd\n")  # one of each: no "1 bad lines"
    res = cli("batch", str(src), "-o", str(out), "-w", "1", "--force", *MC_ARGS)
    assert res.exit_code == 1 and "capsa: 1 hand, 1 bad line," in res.stderr


def test_cli_usage_errors_exit_2(tmp_path):
    src = write_hands(tmp_path / "in.txt", 3)
    out = tmp_path / "o.jsonl"
    res = cli("batch", str(tmp_path / "missing.txt"), "--workers", "1")
    assert res.exit_code == 2 and "cannot read" in res.stderr
    res = cli("batch", str(src), "--resume", "--workers", "1")
    assert res.exit_code == 2 and "needs an output file" in res.stderr
    res = cli("batch", str(src), "--rules", "nonesuch", "--workers", "1")
    assert res.exit_code == 2 and "unknown preset" in res.stderr
    res = cli("batch", str(src), "-o", str(src), "--workers", "1")
    assert res.exit_code == 2 and "is the input file" in res.stderr
    assert src.read_text().count("\n") == 5
    assert cli("batch", str(src), "-o", str(out), "--workers", "1", *MC_ARGS).exit_code == 0
    res = cli("batch", str(src), "-o", str(out), "-w", "1", "--resume", "--seed", "4", *MC_ARGS)
    assert res.exit_code == 2 and "other options: seed 0 (now 4)" in res.stderr
    res = cli("batch", str(src), "-o", str(out), "-w", "1", "--resume", *MC_ARGS)
    assert res.exit_code == 0 and "0 hands" in res.stderr and "resumed after line 5" in res.stderr


# --------------------------------------------------------------------------------------
# Processes for real: same bytes, kill, Ctrl-C, stdin, Dask
# --------------------------------------------------------------------------------------


def run_capsa(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CAPSA, *args], capture_output=True, text=True, timeout=300, **kw)


#: Hands of the runs below: 1.6 MB of records, of which a run has written some 6% when it
#: is killed or stopped mid-run.
BIG = 2_000


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, bytes]:
    """2,000 hands and their field output from a one-worker run in the test's process
    (the reference)."""
    d = tmp_path_factory.mktemp("big")
    src = write_hands(d / "big.txt", BIG, seed=11)
    ref = d / "ref.jsonl"
    res = helpers.capsa_in("batch", str(src), "-o", str(ref), "--policy", "field", "-w", "1")
    assert res.returncode == 0, res.stderr
    return src, ref.read_bytes()


def test_processes_same_bytes(big, tmp_path):
    src, ref = big
    out = tmp_path / "out.jsonl"
    args = ["-o", str(out), "--policy", "field", "--workers", "2", "--chunk-size", "100"]
    res = run_capsa("batch", str(src), *args)  # 20 chunks: written in order, whatever ends first
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == ref
    assert f"capsa: {BIG:,} hands, 0 bad lines" in res.stderr


@pytest.mark.slow
def test_processes_same_bytes_small_chunks_csv(big, tmp_path):
    src, _ = big
    outs = []
    for workers, chunk in (("1", "5000"), ("2", "37")):
        out = tmp_path / f"out{workers}.csv"
        args = ["-o", str(out), "--policy", "field", "-w", workers, "--chunk-size", chunk]
        assert run_capsa("batch", str(src), *args).returncode == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") == BIG + 1


def _start_and_wait_for_output(src: Path, out: Path) -> subprocess.Popen:
    args = ["-o", str(out), "--policy", "field", "--workers", "2", "--chunk-size", "50"]
    proc = subprocess.Popen(
        [*CAPSA, "batch", str(src), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.stat().st_size > 100_000:
            return proc
        time.sleep(0.01)
    proc.kill()
    _, stderr = proc.communicate()
    pytest.fail(f"the run ended before it could be stopped: {stderr}")


def test_killed_run_resumes_to_each_hand_once(big, tmp_path):
    src, ref = big
    out = tmp_path / "out.jsonl"
    proc = _start_and_wait_for_output(src, out)
    os.killpg(proc.pid, signal.SIGKILL)  # the whole run: parent and workers
    proc.wait()
    proc.stderr.close()
    partial = out.read_bytes()
    assert 0 < len(partial) < len(ref)
    res = run_capsa("batch", str(src), "-o", str(out), "--policy", "field", "--resume")
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == ref
    assert "resumed after line" in res.stderr


@pytest.mark.slow
def test_ctrl_c_keeps_whole_records(big, tmp_path):
    src, ref = big
    out = tmp_path / "out.jsonl"
    proc = _start_and_wait_for_output(src, out)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted; run again with --resume" in stderr
    partial = out.read_bytes()
    assert partial.endswith(b"\n") and ref.startswith(partial) and len(partial) < len(ref)
    res = run_capsa("batch", str(src), "-o", str(out), "--policy", "field", "--resume")
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == ref


def test_stdin_subprocess(big, tmp_path):
    src, ref = big
    head = b"".join(src.read_bytes().splitlines(keepends=True)[:300])
    res = subprocess.run(
        [*CAPSA, "batch", "-", "--policy", "field", "--workers", "2"],
        input=head,
        capture_output=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    n = res.stdout.count(b"\n")
    assert n > 250 and res.stdout == b"".join(ref.splitlines(keepends=True)[:n])


def test_dask_local_cluster_same_bytes(big, tmp_path):
    pytest.importorskip("distributed")
    src, ref = big
    head = tmp_path / "head.txt"
    head.write_bytes(b"".join(src.read_bytes().splitlines(keepends=True)[:400]))  # 4 chunks
    out = tmp_path / "out.jsonl"
    res = run_capsa(
        "batch",
        str(head),
        "-o",
        str(out),
        "--policy",
        "field",
        "--dask",
        "local",
        "--workers",
        "2",
        "--chunk-size",
        "100",
    )
    assert res.returncode == 0, res.stderr
    n = out.read_bytes().count(b"\n")
    assert n > 380 and out.read_bytes() == b"".join(ref.splitlines(keepends=True)[:n])
