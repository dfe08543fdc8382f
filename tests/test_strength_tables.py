"""The strength table at every offered table stays regenerable (issue #54,
docs/strength.md#at-every-table).

``python -m benchmarks.strength_tables`` measures ``capsa strength`` (mc against field) at
every table the page and the CLI offer, keeps each table's row in
benchmarks/strength_tables.json and writes the table of docs/strength.md from it. Here:
the tables it measures are the offered ones (the page's ``GET /api/rules``, as
tests/test_shipped_tables.py reads it), the doc's table is what the committed results
render to, and a small run writes a row that ``capsa strength`` at the same table and sizes
repeats, and its doc table, and is resumed rather than measured again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from starlette.testclient import TestClient

from benchmarks import strength_tables as st
from solver.apps.web import create_app
from solver.engine.rules import PRESETS
from solver.engine.seating import seated, with_jokers
from solver.strategy.field_model.field import play_digest
from tests.helpers import ROOT, capsa
from tests.test_shipped_tables import offered

SMALL = ("--hands", "3", "--samples", "40", "--eval-deals", "3", "--seed", "2")
POOL = ("--pool-size", "0")


def block(text: str) -> str:
    """What stands between the doc's markers."""
    return text.split(st.BEGIN, 1)[1].split(st.END, 1)[0].strip("\n")


def test_every_offered_table_is_measured():
    """Each ruleset the page lists, at each of its players and jokers, once; every shipped
    table's digest among them."""
    with TestClient(create_app()) as client:
        rulesets = client.get("/api/rules").json()["rulesets"]
        digests = offered(client)
    want = [(r["name"], p, j) for r in rulesets for p in range(2, r["max_players"] + 1)
            for j in range(r["max_jokers"] + 1)]  # fmt: skip
    tables = st.offered_tables()
    assert [(t.preset, t.players, t.jokers) for t in tables] == want
    at = {play_digest(with_jokers(seated(PRESETS[t.preset], t.players), t.jokers)) for t in tables}
    assert set(digests) <= at


def test_the_doc_table_is_the_committed_results_rendered():
    """docs/strength.md's table is what benchmarks/strength_tables.json renders to, row
    for row, and the results hold a row for every offered table."""
    rows = st.load_results(st.RESULTS)
    assert sorted(rows) == sorted(t.key for t in st.offered_tables())
    doc = (ROOT / "docs" / "strength.md").read_text(encoding="utf-8")
    assert block(doc) == st.render(list(rows.values()))


def run_script(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``python -m benchmarks.strength_tables ARGS`` as a user runs it, in this test's
    environment (its isolated caches) and ``env``."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", "benchmarks.strength_tables", *args],
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": path, **env})  # fmt: skip


def test_a_small_run_writes_its_row_and_the_doc_table_and_resumes(tmp_path):
    doc, results = tmp_path / "strength.md", tmp_path / "results.json"
    original = (ROOT / "docs" / "strength.md").read_text(encoding="utf-8")
    doc.write_text(original, encoding="utf-8")
    files = ("--results", str(results), "--doc", str(doc))
    # a pool folder of its own: no pool, so mc deals its opponents in both
    env = {"CAPSA_POOL_DIR": str(tmp_path / "pools")}
    run = run_script(*SMALL, *POOL, "--only", "mau-binh/2/1", *files, env=env)
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(results.read_text())["tables"]
    # the row is what `capsa strength` measures at that table and sizes
    cli = capsa("strength", "--rules", "mau-binh", "--players", "2", "--jokers", "1",
                *SMALL, "-f", "json", env=env)  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    gain = json.loads(cli.stdout)["gains"]["mc-field"]
    assert (row["gain"], row["stderr"], row["ci95"], row["differ"]) == (
        gain["mean"], gain["stderr"], gain["ci95"], gain["differ"])  # fmt: skip
    # the hands it played, by the jokers they hold: their gains sum to the row's
    split = row["by_jokers_held"].values()
    assert sum(g["hands"] for g in split) == 3
    assert sum(g["hands"] * g["gain"] for g in split) == pytest.approx(3 * row["gain"])
    assert (row["table"], row["hands"], row["samples"], row["eval_deals"], row["pool_size"]) == (
        "mau-binh/2/1", 3, 40, 3, 0)  # fmt: skip
    # the doc: its table rendered from the results, every other line as it was
    text = doc.read_text(encoding="utf-8")
    assert block(text) == st.render([row])
    assert text.split(st.BEGIN)[0] == original.split(st.BEGIN)[0]
    assert text.split(st.END)[1] == original.split(st.END)[1]
    assert "| `mau-binh` | 2 | 1 | 3 | 40 | " in text
    assert "--hands 3 --samples 40 --eval-deals 3 --pool-size 0 --seed 2" in text
    # a second run at the same sizes measures nothing again; --render writes the same doc
    again = run_script(*SMALL, *POOL, "--only", "mau-binh/2/1", *files, env=env)
    assert again.returncode == 0, again.stderr
    assert "hands ..." not in again.stderr
    assert json.loads(results.read_text())["tables"] == [row]
    doc.write_text(original, encoding="utf-8")
    assert run_script("--render", *files, env=env).returncode == 0
    assert doc.read_text(encoding="utf-8") == text
