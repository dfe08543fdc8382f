"""Every table capsa offers answers without training (issue #54, docs/strength.md#shipped-tables).

The page's menus offer each preset at 2 players up to its biggest table, with 0 to its
most jokers (``GET /api/rules``: ``max_players``, ``max_jokers``), and the CLI's
``--rules``, ``--players`` and ``--jokers`` offer the same tables. The field strategy
behind every answer is a table per play digest (the player counts of one deck share it),
shipped in ``solver/data/``: from an empty user cache each offered table is ready, a
``field`` answer at each is given without training (nothing is written to the cache),
and every shipped file is the table of an offered one.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from starlette.testclient import TestClient

from solver.apps.web import create_app
from solver.engine.compiled import compile_rules
from solver.engine.rules import PRESETS
from solver.engine.seating import seated, with_jokers
from solver.strategy.field_model.field import DATA_DIR, play_digest
from solver.strategy.field_model.trained import field_ready, forget_fields
from tests.helpers import capsa_in

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


@pytest.fixture
def empty_cache(monkeypatch, tmp_path):
    """An empty user cache: only the shipped tables can answer."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("CAPSA_CACHE_DIR", str(cache))
    forget_fields()
    yield cache
    forget_fields()


def offered(client: TestClient) -> dict[str, tuple[str, int, int]]:
    """play digest -> (preset, players, jokers): every table the page's menus offer (the
    fewest players of each digest)."""
    tables: dict[str, tuple[str, int, int]] = {}
    for r in client.get("/api/rules").json()["rulesets"]:
        for players in range(2, r["max_players"] + 1):
            for jokers in range(r["max_jokers"] + 1):
                rules = with_jokers(seated(PRESETS[r["name"]], players), jokers)
                tables.setdefault(play_digest(rules), (r["name"], players, jokers))
    return tables


def test_every_offered_table_answers_from_the_shipped_tables(empty_cache):
    with TestClient(create_app()) as client:
        tables = offered(client)
        # every preset, its big tables, and both joker counts where it plays jokers
        assert len(tables) >= 20, tables
        not_ready = []
        for name, players, jokers in tables.values():
            rules = with_jokers(seated(PRESETS[name], players), jokers)
            if not field_ready(compile_rules(rules)):
                not_ready.append(rules.name)
        assert not not_ready, f"offered but not shipped: {not_ready}"
        for name, players, jokers in tables.values():
            body = {"hand": HAND, "rules": name, "players": players, "jokers": jokers,
                    "policy": "field"}  # fmt: skip
            got = client.post("/api/solve", json=body)
            assert got.status_code == 200, (name, players, jokers, got.text)
    assert list(empty_cache.rglob("field-*")) == []  # nothing was trained


def test_every_shipped_table_is_an_offered_one():
    """No orphan file in the package: each shipped table's digest is an offered table's,
    and its name says which."""
    with TestClient(create_app()) as client:
        tables = offered(client)
    files = sorted(DATA_DIR.glob("field-*.npz"))
    for path in files:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
        assert meta["play_digest"] in tables, path.name
    assert len(files) == len(tables)


def test_a_joker_table_solves_from_an_empty_cache_without_training(tmp_path):
    """The real CLI, from a user cache with nothing in it: the first field solve at a
    table with jokers answers from the shipped tables and says nothing of training."""
    cache = tmp_path / "cache"
    run = capsa_in("solve", HAND, "--rules", "mau-binh", "--jokers", "1", "--policy", "field",
                   "-f", "json", env={"CAPSA_CACHE_DIR": str(cache)})  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "train" not in run.stderr.lower(), run.stderr
    assert json.loads(run.stdout)["rules"] == "mau-binh-jokers-1"
    assert not cache.exists() or not list(cache.rglob("field-*"))
