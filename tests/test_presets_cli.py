"""The regional presets through the real command line (docs/rules.md#presets): batch,
report, duel, strength and train under 十三水, Mậu Binh and Pusoy, each as a user runs it
(in the test's process) (the page's presets menu is tests/test_web_browser.py's, its API's
answers tests/test_web_api.py's)."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import numpy as np
import pytest

import solver
from solver.engine.rules import PRESETS
from solver.strategy.field_model.field import play_digest
from tests import helpers

#: Five pairs and trips (kings), played as it is set here: trips back, two pair middle,
#: a pair in front. Mậu Binh pays it 10 from each player (năm đôi một sám).
FIVE_PAIRS_TRIPS = "Kh Ks Kc 5s Jd 7c 7d 9h 9s Jc 2c 2d 5h"
PLAYED = "2c 2d 5h | 7c 7d 9h 9s Jc | Kh Ks Kc 5s Jd"
PLAIN = "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c"


#: Bytes in, bytes out, tables 200 columns wide, in the test's process (``helpers.capsa_in``:
#: the claims are the presets' answers, not the process).
capsa_in = partial(helpers.capsa_in, text=False, env={"COLUMNS": "200"}, timeout=600)


@pytest.fixture(scope="module")
def mau_binh_batch(tmp_path_factory) -> Path:
    """``capsa batch --rules mau-binh`` of a special hand played and a plain one."""
    tmp = tmp_path_factory.mktemp("mau-binh")
    hands = tmp / "hands.txt"
    hands.write_text(f"fpt: {PLAYED}\nplain: {PLAIN}\n", encoding="utf-8")
    out = tmp / "out.jsonl"
    run = capsa_in("batch", str(hands), "--rules", "mau-binh", "--policy", "field", "-o", str(out))
    assert run.returncode == 0, run.stderr.decode()
    return out


def test_batch_declares_the_special_hand_under_mau_binh(mau_binh_batch):
    fpt, plain = (json.loads(x) for x in mau_binh_batch.read_text().splitlines())
    assert fpt["rules"] == plain["rules"] == "mau-binh" and fpt["id"] == "fpt"
    assert fpt["action"] == "declare"
    # gameBinh has no five pairs and trips: its trips count as a pair, lục phé bôn
    assert fpt["natural"]["name"] == "six_pairs" and fpt["natural"]["declared"]
    # 32 from each of the three opponents, none holding one (getNumEatBinh,
    # docs/rules.md#the-mau-binh-preset)
    assert fpt["ev"] == 32.0
    assert fpt["played"]["front"] == "5h 2d 2c" and not fpt["played"]["fouled"]
    assert fpt["played"]["loss"] > 0
    assert plain["natural"] is None and plain["played"] is None
    want = solver.solve(PLAIN, rules="mau-binh", policy="field").to_dict()
    assert (plain["front"], plain["middle"], plain["back"]) == (
        want["front"],
        want["middle"],
        want["back"],
    )


def test_report_names_the_special_hand_not_declared(mau_binh_batch):
    run = capsa_in("report", str(mau_binh_batch), "--format", "json")
    assert run.returncode == 0, run.stderr.decode()
    d = json.loads(run.stdout)
    assert d["setups"] == [{"rules": "mau-binh", "policy": "field", "players": 4, "hands": 2}]
    entry = next(m for m in d["mistakes"] if m["category"] == "natural_not_declared")
    assert entry["hands"] == 1
    assert [n["natural"] for n in entry["naturals"]] == ["six_pairs"]
    table = capsa_in("report", str(mau_binh_batch))
    assert table.returncode == 0, table.stderr.decode()
    lines = table.stdout.decode().splitlines()
    at = next(
        i for i, line in enumerate(lines) if line.split()[:3] == ["natural", "not", "declared"]
    )
    assert lines[at + 1].strip().startswith("Six pairs (六对半, lục phé bôn)")


def test_batch_under_shisanshui_pays_the_apps_special_hands(tmp_path):
    """The same hand is declared under 十三水 for its 6, and a dragon for 52
    (docs/rules.md#the-shisanshui-preset)."""
    dragon = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
    hands = tmp_path / "hands.txt"
    hands.write_text(f"{FIVE_PAIRS_TRIPS}\n{dragon}\n", encoding="utf-8")
    run = capsa_in("batch", str(hands), "-r", "shisanshui", "--policy", "field", "--format", "csv")
    assert run.returncode == 0, run.stderr.decode()
    text = run.stdout.decode()
    assert text.count("five_pairs_trips") == 1 and text.count("dragon") == 1
    records = [
        json.loads(x)
        for x in capsa_in("batch", str(hands), "-r", "shisanshui", "--policy", "field")
        .stdout.decode()
        .splitlines()
    ]
    assert [(r["natural"]["name"], r["ev"]) for r in records] == [
        ("five_pairs_trips", 6.0),
        ("dragon", 52.0),
    ]


@pytest.mark.parametrize(("rules", "players"), [("mau-binh", 4), ("pusoy", 3)])
def test_duel_under_a_regional_preset(rules, players):
    run = capsa_in(
        "duel", "field", "greedy", "--rules", rules, "--players", str(players),
        "--deals", "25", "--seed", "2", "--format", "json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr.decode()
    d = json.loads(run.stdout)
    assert d["rules"] == rules and d["players"] == players
    assert d["games"] == 25 * players and d["fouls"]["a"]["fouls"] == 0
    assert np.isfinite(d["mean"]) and d["ci95"][0] <= d["mean"] <= d["ci95"][1]


def test_strength_under_mau_binh():
    run = capsa_in(
        "strength", "--rules", "mau-binh", "--hands", "6", "--samples", "200",
        "--eval-deals", "8", "--seed", "3", "--format", "json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr.decode()
    d = json.loads(run.stdout)
    assert d["rules"] == "mau-binh" and d["players"] == 4 and d["hands"] == 6
    gain = d["gains"]["mc-field"]
    assert gain["ci95"][0] <= gain["mean"] <= gain["ci95"][1]


def test_train_under_pusoy_writes_tables_for_its_play(tmp_path):
    """``capsa train --rules pusoy`` (a short run) writes tables keyed by pusoy's play
    digest, which ``capsa strength --tables`` then plays."""
    out = tmp_path / "pusoy-short.npz"
    run = capsa_in(
        "train", "--rules", "pusoy", "--hands", "300", "--rounds", "2", "--min-rounds", "1",
        "--tol", "0.9", "-o", str(out),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr.decode()
    with np.load(out, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
    assert meta["rules"] == "pusoy" and meta["play_digest"] == play_digest(PRESETS["pusoy"])
    run = capsa_in(
        "strength", "--rules", "pusoy", "--hands", "4", "--samples", "150", "--eval-deals", "6",
        "--tables", str(out), "--format", "json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr.decode()
    assert "mc-field@pusoy-short" in json.loads(run.stdout)["gains"]
