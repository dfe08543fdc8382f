"""`capsa solve`'s table for a declared natural (issue 34, item 7): the payment has no ±
(the Monte Carlo error is the playing setting's, shown beside playing), and the value's
parts are those of playing it."""

from __future__ import annotations

import os
import subprocess

from tests.web_server import capsa_command

#: 一条龙: 52 a seat under shisanshui, whatever the opponents hold at this seed
DRAGON = "Ah Kd Qc Js Th 9d 8c 7s 6h 5d 4c 3s 2h"


def run(*args: str) -> str:
    # the tests' own environment (tests/conftest.py): their caches, never the user's
    res = subprocess.run([*capsa_command(), "solve", *args], capture_output=True, text=True,
                         timeout=600, env={**os.environ, "COLUMNS": "120"})  # fmt: skip
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_a_declared_natural_is_paid_without_a_plus_minus():
    out = run(DRAGON, "--rules", "shisanshui", "--seed", "1", "--samples", "500")
    lines = {line.split(":")[0]: line for line in out.splitlines() if ":" in line}
    head = lines["expected value"]
    assert head.startswith("expected value: +52.000 units per opponent, declaring (")
    assert "±" not in head
    natural = lines["natural"]
    assert "declaring is worth +52.000 (paid without playing the rows), playing " in natural
    assert natural.rstrip().split()[-2] == "±"  # the error goes with playing
    assert lines["advice"] == "advice: declare the natural"
    assert "playing this setting, in parts" in out


def test_a_hand_played_keeps_its_error_in_the_headline():
    out = run("As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d", "--seed", "1", "--samples", "500")
    head = next(x for x in out.splitlines() if x.startswith("expected value"))
    assert "± " in head and "declaring" not in head
    assert "advice: play this setting" in out
