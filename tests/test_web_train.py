"""Training an uploaded house ruleset from the page's API (issue 34, item 11): ``POST
/api/train`` starts the project's own trainer in the background, ``GET /api/train/ID``
says how far it is, and once it is done the ruleset solves, here and in the CLI (the
same cache). One training at a time; bad requests and failed trainings are one line.

Every test has a cache folder of its own (``CAPSA_CACHE_DIR``) and trains at a small
size (``TrainSize(2, 300)``: a second or two), and waits for every training it starts.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient

import solver.strategy.field_model.train as T
from solver.apps.web import Limits, create_app
from solver.apps.web.training import STATES, TRAIN_ENV, TrainSize
from solver.engine.compiled import compile_rules
from solver.engine.errors import InputError
from solver.engine.rules import load_rules
from solver.strategy.field_model.field import field_cache_path
from solver.strategy.field_model.trained import field_ready, forget_fields

ROOT = Path(__file__).resolve().parent.parent
HOUSE_FILE = ROOT / "docs" / "examples" / "house.toml"
HOUSE = HOUSE_FILE.read_text(encoding="utf-8")
#: Another house ruleset that needs training (a bigger scoop changes how hands are set).
OTHER = 'base = "chinese-1-6"\nscoop_multiplier = 3\nname = "triple"\n'
HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
SMALL = TrainSize(2, 300)
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def cache(monkeypatch, tmp_path):
    """A cache folder of the test's own; no field tables held in memory before or after."""
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv("CAPSA_CACHE_DIR", str(folder))
    forget_fields()
    yield folder
    forget_fields()


def poll(client: TestClient, job_id: str, seconds: float = 300) -> list[dict]:
    """Every answer of GET /api/train/ID until the job ends (done or failed)."""
    seen = []
    deadline = time.monotonic() + seconds
    while True:
        res = client.get(f"/api/train/{job_id}")
        assert res.status_code in (200, 202), res.text
        seen.append(res.json())
        if seen[-1]["state"] in ("done", "failed"):
            assert res.status_code == 200
            return seen
        assert res.status_code == 202
        assert time.monotonic() < deadline, f"training still going after {seconds} s: {seen[-1]}"
        time.sleep(0.05)


def one_line(res) -> str:  # noqa: ANN001 - an httpx response
    error = res.json()["error"]
    assert isinstance(error, str) and error and "\n" not in error
    return error


def trained_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("field-*.npz"))


def test_an_uploaded_ruleset_trains_in_the_background_then_solves(cache, monkeypatch):
    monkeypatch.setenv(TRAIN_ENV, "2,300")  # read by create_app
    with TestClient(create_app()) as c:
        assert c.get("/api/rules").json()["training"] == {"rounds": 2, "hands": 300, "minutes": 1}
        refused = c.post("/api/solve", json={"hand": HAND, "rules": HOUSE, "policy": "field"})
        assert refused.status_code == 422 and "not trained yet" in one_line(refused)
        assert c.post("/api/rules", json={"rules": HOUSE}).json()["ready"] is False

        start = c.post("/api/train", json={"rules": HOUSE, "players": 4, "jokers": 0})
        assert start.status_code == 202, start.text
        job = start.json()
        assert job["state"] in ("queued", "running") and job["progress"] < 1
        assert (job["rules"], job["rounds"], job["error"]) == ("custom", 2, None)
        seen = poll(c, job["id"])
        assert {s["state"] for s in seen} <= set(STATES)
        progress = [job["progress"]] + [s["progress"] for s in seen]
        assert progress == sorted(progress) and all(0 <= p <= 1 for p in progress)
        assert seen[-1]["state"] == "done" and seen[-1]["progress"] == 1.0, seen[-1]
        assert seen[-1]["error"] is None and seen[-1]["id"] == job["id"]

        # the tables are where `capsa train --rules docs/examples/house.toml` puts them
        cr = compile_rules(load_rules(str(HOUSE_FILE)))
        assert field_ready(cr) and field_cache_path(cr).parent == cache
        with np.load(field_cache_path(cr)) as npz:
            meta = json.loads(str(npz["meta"]))
        assert (meta["hands_per_round"], meta["rounds"]) == (300, 2)

        assert c.post("/api/rules", json={"rules": HOUSE}).json()["ready"] is True
        for body in ({"policy": "field"}, {"policy": "mc", "samples": 300, "seed": 1}):
            got = c.post("/api/solve", json={"hand": HAND, "rules": HOUSE, **body})
            assert got.status_code == 200, got.text
            assert got.json()["rules"] == "custom" and got.json()["policy"] == body["policy"]
        # asked again: done at once (nothing trained again)
        again = c.post("/api/train", json={"rules": HOUSE})
        assert again.status_code == 200 and again.json()["state"] == "done"
        assert again.json()["progress"] == 1.0
    assert trained_files(cache) == [field_cache_path(cr).name]


def test_a_trained_table_answers_done_at_once(cache):
    with TestClient(create_app(training=SMALL)) as c:
        res = c.post("/api/train", json={"rules": "chinese-1-6"})
        assert res.status_code == 200, res.text
        d = res.json()
        assert (d["state"], d["progress"], d["rules"]) == ("done", 1.0, "chinese-1-6")
        assert c.get(f"/api/train/{d['id']}").json() == d
    assert trained_files(cache) == []


def _held(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """The trainer held after its first round until ``gate`` is set (``started``: it is
    held), then trained for real at the size asked."""
    started, gate = threading.Event(), threading.Event()
    real = T.train

    def held(cr, **kw):  # noqa: ANN001, ANN202 - train's own signature
        kw["progress"](0, kw["rounds"], detail=None)
        started.set()
        assert gate.wait(120)
        return real(cr, **kw)

    monkeypatch.setattr(T, "train", held)
    return started, gate


def test_one_training_at_a_time_and_the_same_ruleset_is_the_same_job(cache, monkeypatch):
    started, gate = _held(monkeypatch)
    with TestClient(create_app(training=SMALL)) as c:
        first = c.post("/api/train", json={"rules": HOUSE}).json()
        assert started.wait(120)
        running = c.get(f"/api/train/{first['id']}").json()
        assert running["state"] == "running" and 0 < running["progress"] < 1
        try:
            other = c.post("/api/train", json={"rules": OTHER})
            assert other.status_code == 409
            assert one_line(other).startswith("busy: this server is training 'custom' (33% done)")
            same = c.post("/api/train", json={"rules": HOUSE})
            assert same.status_code == 202 and same.json()["id"] == first["id"]
            # the page stays usable meanwhile: a preset answers at once
            solved = c.post("/api/solve", json={"hand": HAND, "policy": "field"})
            assert solved.status_code == 200
        finally:
            gate.set()
        assert poll(c, first["id"])[-1]["state"] == "done"
        after = c.post("/api/train", json={"rules": OTHER})  # now it may
        assert after.status_code == 202 and after.json()["rules"] == "triple"
        assert poll(c, after.json()["id"])[-1]["state"] == "done"
        solved = c.post("/api/solve", json={"hand": HAND, "rules": OTHER, "policy": "field"})
        assert solved.status_code == 200 and solved.json()["rules"] == "triple"
    assert len(trained_files(cache)) == 2


def test_a_failed_training_says_so_in_one_line(cache, monkeypatch):
    def broken(cr, **kw):  # noqa: ANN001, ANN202
        raise RuntimeError("the tables\nwent wrong")

    monkeypatch.setattr(T, "train", broken)
    with TestClient(create_app(training=SMALL)) as c:
        job = c.post("/api/train", json={"rules": HOUSE}).json()
        end = poll(c, job["id"])[-1]
        assert end["state"] == "failed" and end["progress"] < 1
        assert end["error"] == "training failed: RuntimeError: the tables went wrong"
        still = c.post("/api/solve", json={"hand": HAND, "rules": HOUSE, "policy": "field"})
        assert still.status_code == 422
        retry = c.post("/api/train", json={"rules": HOUSE}).json()  # a new job, not the old
        assert retry["id"] != job["id"]
        assert poll(c, retry["id"])[-1]["state"] == "failed"
    assert trained_files(cache) == []


def test_a_training_stops_when_the_server_shuts_down(cache, monkeypatch):
    started, gate = _held(monkeypatch)
    app = create_app(training=SMALL)
    with TestClient(app) as c:
        job_id = c.post("/api/train", json={"rules": HOUSE}).json()["id"]
        assert started.wait(120)
    job = app.state.web.trainer.get(job_id)  # the server is gone: its own record
    gate.set()
    assert job.ended.wait(120)
    assert (job.state, job.error) == (
        "failed",
        "stopped: the server shut down before the training ended",
    )
    assert trained_files(cache) == []


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({}, 422, "rules is missing: give the ruleset to train"),
        ({"rules": HOUSE, "rounds": 1}, 400, "unknown option 'rounds'; options are rules, "),
        ({"rules": 'base = "capsa"\nscoring = "3-3"\n'}, 422, "rules: scoring must be one of "),
        ({"rules": "base = \n"}, 422, "rules: not valid TOML"),
        ({"rules": "/etc/passwd"}, 422, "unknown preset "),
        ({"rules": HOUSE, "players": 5}, 422, "players = 5 needs a bigger deck than extra_suits"),
        ({"rules": HOUSE, "jokers": 3}, 400, "jokers must be 0, 1 or 2 (jokers in the deck)"),
        ({"rules": "capsa", "jokers": 1}, 400, "jokers: ruleset 'capsa' ranks the suits"),
        ([HOUSE], 400, "the body must be a JSON object of options"),
    ],
)
def test_a_bad_training_request_is_one_line(cache, body, status, message):
    with TestClient(create_app(training=SMALL)) as c:
        res = c.post("/api/train", json=body)
        assert res.status_code == status, res.text
        assert one_line(res).startswith(message)
    assert trained_files(cache) == []


def test_the_body_limit_the_methods_and_unknown_jobs(cache):
    with TestClient(create_app(limits=Limits(body=1000), training=SMALL)) as c:
        big = json.dumps({"rules": HOUSE + "#" * 2000})
        res = c.post("/api/train", content=big, headers=JSON)
        assert res.status_code == 413 and one_line(res).endswith("limit of 1,000 bytes")
        res = c.post("/api/train", content=json.dumps({"rules": HOUSE}))  # no Content-Type
        assert res.status_code == 415
        unknown = c.get("/api/train/0123456789abcdef")
        assert unknown.status_code == 404
        assert one_line(unknown).startswith("no training '0123456789abcdef' on this server")
        assert c.get("/api/train").status_code == 405
        assert c.options("/api/train").headers["allow"] == "POST, OPTIONS"
        res = c.post("/api/train", json={"rules": HOUSE}, headers={"Origin": "http://evil.test"})
        assert res.status_code == 403
    assert trained_files(cache) == []


def test_a_cache_that_cannot_be_written_is_refused_before_training(cache, monkeypatch):
    blocked = cache / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("CAPSA_CACHE_DIR", str(blocked))
    with TestClient(create_app(training=SMALL)) as c:
        res = c.post("/api/train", json={"rules": HOUSE})
        assert res.status_code == 422
        assert one_line(res).startswith("cannot write ") and "is not a directory" in one_line(res)


def test_the_training_jobs_kept_are_bounded(cache):
    with TestClient(create_app(training=SMALL)) as c:
        ids = [c.post("/api/train", json={"rules": "capsa"}).json()["id"] for _ in range(12)]
        trainer = c.app.state.web.trainer  # type: ignore[attr-defined]
        assert c.get(f"/api/train/{ids[-1]}").status_code == 200
        assert c.get(f"/api/train/{ids[0]}").status_code == 404
        assert len([i for i in ids if c.get(f"/api/train/{i}").status_code == 200]) == (
            trainer.MAX_JOBS
        )


def test_the_training_size_comes_from_the_environment():
    assert TrainSize.from_env({}) == TrainSize(30, 20_000)
    assert TrainSize.from_env({TRAIN_ENV: " 3, 500 "}) == TrainSize(3, 500)
    assert TrainSize(30, 20_000).minutes() > TrainSize(3, 500).minutes() == 1
    for bad, message in (
        ("3", f"{TRAIN_ENV} must be ROUNDS,HANDS (e.g. 30,20000), got '3'"),
        ("3,x", f"{TRAIN_ENV} must be ROUNDS,HANDS (e.g. 30,20000), got '3,x'"),
        ("3,50", f"{TRAIN_ENV}: --hands must be at least 100, got 50"),
        ("0,500", f"{TRAIN_ENV}: --rounds must be at least 1, got 0"),
    ):
        with pytest.raises(InputError) as err:
            TrainSize.from_env({TRAIN_ENV: bad})
        assert str(err.value) == message


def test_a_training_is_cancelled_by_delete_and_a_page_elsewhere_cannot(cache, monkeypatch):
    """Issue 51: ``DELETE /api/train/ID`` stops a training at the end of its round (no
    tables written), without restarting the server; another origin is refused (403)."""
    started, gate = _held(monkeypatch)
    with TestClient(create_app(training=SMALL)) as c:
        job = c.post("/api/train", json={"rules": HOUSE}).json()
        assert started.wait(120)
        other = c.delete(f"/api/train/{job['id']}", headers={"Origin": "https://evil.example"})
        assert other.status_code == 403
        asked = c.delete(f"/api/train/{job['id']}")
        assert asked.status_code == 202 and asked.json()["id"] == job["id"]
        gate.set()
        end = poll(c, job["id"])[-1]
        assert (end["state"], end["error"]) == (
            "failed",
            "cancelled: DELETE /api/train/ID stopped it before it ended",
        )
        assert trained_files(cache) == []
        # the server is free: another table trains at once, and the same one again
        again = c.post("/api/train", json={"rules": OTHER})
        assert again.status_code == 202
        assert poll(c, again.json()["id"])[-1]["state"] == "done"
        ended = c.delete(f"/api/train/{again.json()['id']}")  # an ended job: as it is
        assert ended.status_code == 200 and ended.json()["state"] == "done"
        assert c.delete("/api/train/nosuchjob").status_code == 404
        allow = c.options(f"/api/train/{job['id']}").headers["allow"]
        assert allow == "GET, HEAD, DELETE, OPTIONS"
    assert len(trained_files(cache)) == 1


def test_the_tables_trained_here_are_bounded_least_recently_used_out(cache):
    """Issue 51: past ``max_tables`` the server removes the least recently used of the
    tables it trained (a table that answers is used), never one it did not train (the
    CLI's) nor the server's own ruleset's."""
    import os

    from solver.apps.training import train_to_file

    third = 'base = "chinese-1-6"\nscoop_multiplier = 4\nname = "quad"\n'
    from solver.engine.rules import rules_from_dict

    cli = rules_from_dict({"base": "chinese-1-6", "scoop_multiplier": 5, "name": "five"})
    cli_path = field_cache_path(compile_rules(cli))
    train_to_file(compile_rules(cli), cli_path, rounds=1, hands_per_round=300, seed=1,
                  tol=1.0, min_rounds=1)  # fmt: skip
    os.utime(cli_path, (1, 1))  # the oldest of all: still never removed
    app = create_app(training=SMALL)
    app.state.web.trainer.max_tables = 2
    with TestClient(app) as c:
        for rules in (HOUSE, OTHER):
            job = c.post("/api/train", json={"rules": rules}).json()
            assert poll(c, job["id"])[-1]["state"] == "done"
        texts = {"house": HOUSE, "triple": OTHER, "quad": third}
        paths = {n: field_cache_path(compile_rules(load_rules_text(t))) for n, t in texts.items()}
        os.utime(paths["house"], (100, 100))
        os.utime(paths["triple"], (200, 200))  # used after house ...
        solved = c.post("/api/solve", json={"hand": HAND, "rules": HOUSE, "policy": "field"})
        assert solved.status_code == 200  # ... but house answers now: used last
        assert paths["house"].stat().st_mtime > 200
        job = c.post("/api/train", json={"rules": third}).json()
        assert poll(c, job["id"])[-1]["state"] == "done"
        assert paths["house"].exists() and paths["quad"].exists() and cli_path.exists()
        assert not paths["triple"].exists()  # the least recently used of the server's
        gone = c.post("/api/solve", json={"hand": HAND, "rules": OTHER, "policy": "field"})
        assert gone.status_code == 422 and "not trained yet" in one_line(gone)
        still = c.post("/api/solve", json={"hand": HAND, "rules": HOUSE, "policy": "field"})
        assert still.status_code == 200
    assert len(trained_files(cache)) == 3


def load_rules_text(text: str):  # noqa: ANN201
    from solver.engine.rules import rules_from_dict, ruleset_data

    return rules_from_dict(ruleset_data(text))
