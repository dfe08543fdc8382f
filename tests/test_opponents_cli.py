"""``--opponents`` the way a user meets it: the real CLI (in the test's process,
``helpers.capsa_in``: solve, batch, strength, duel), good and bad models."""

from __future__ import annotations

import json

import pytest

from tests.helpers import capsa_in

HAND = "As Kd Qh Jc 9s 8d 7h 6c 5s 4d 3h 2c 2s"


def test_solve_says_which_opponents_it_assumed():
    res = capsa_in("solve", HAND, "-p", "3", "-n", "300", "-s", "2", "--opponents", "greedy,safe",
                   "-f", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["opponents"] == "greedy,safe"
    table = capsa_in("solve", HAND, "-n", "300", "-s", "2", "--opponents", "safe")
    assert "opponents safe" in table.stdout


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("nobody", "unknown model 'nobody'"),
        ("greedy,greedy", "one per opponent (3), got 2"),
        ("missing.npz", "cannot read 'missing.npz'"),
    ],
)
def test_a_bad_model_is_one_line_and_exit_2(spec, said, tmp_path):
    for cmd in (["solve", HAND], ["strength", "--hands", "2"], ["duel", "mc", "greedy", "-d", "2"]):
        res = capsa_in(*cmd, "--opponents", spec, cwd=tmp_path)
        assert res.returncode == 2, (cmd, res.stderr)
        assert res.stderr.count("\n") == 1 and said in res.stderr, res.stderr
        assert "Traceback" not in res.stderr


def test_batch_records_and_run_file_carry_the_opponents(tmp_path):
    (tmp_path / "h.txt").write_text(f"a: {HAND}\nb: Ah Ad Kc Ks 7d 7c 9h Th Jh Qs 2d 3c 4s\n")
    res = capsa_in("batch", "h.txt", "-o", "out.jsonl", "-n", "200", "-w", "1", "--opponents",
                   "greedy", cwd=tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    records = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["opponents"] for r in records] == ["greedy", "greedy"]
    run = json.loads((tmp_path / "out.jsonl.capsa-run.json").read_text())
    assert run["opponents"] == "greedy" and run["pool"] is None
    bad = capsa_in("batch", "h.txt", "--opponents", "greedy", "--policy", "field", cwd=tmp_path)
    assert bad.returncode == 2 and "only policy mc" in bad.stderr
    field = capsa_in("batch", "h.txt", "-o", "f.csv", "-n", "200", "-w", "1", "--no-pool",
                     "--opponents", "field", cwd=tmp_path)  # fmt: skip
    plain = capsa_in("batch", "h.txt", "-o", "p.csv", "-n", "200", "-w", "1", "--no-pool",
                     cwd=tmp_path)  # fmt: skip
    assert field.returncode == plain.returncode == 0
    assert (tmp_path / "f.csv").read_text() == (tmp_path / "p.csv").read_text()
    assert ",field," in (tmp_path / "p.csv").read_text().splitlines()[1]


def test_strength_and_duel_against_greedy_opponents():
    res = capsa_in("strength", "--rules", "chinese-2-4", "-p", "2", "--hands", "6", "-n", "300",
                   "--eval-deals", "20", "--opponents", "greedy", "--against", "mc@field",
                   "-f", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    assert d["opponents"] == "greedy" and set(d["policies"]) == {"mc", "mc@field"}
    duel = capsa_in("duel", "mc:200", "greedy", "--rules", "chinese-2-4", "--players", "2", "-d",
                    "3", "-s", "1", "--opponents", "greedy", "-f", "json")  # fmt: skip
    assert duel.returncode == 0, duel.stderr
    assert json.loads(duel.stdout)["a"] == "mc:200 --opponents greedy"
