"""`capsa serve`'s JSON API, in process: every endpoint, bad input, bounds, concurrency.

The answers are compared with what `capsa solve --format json` prints for the same
options (the CLI run in process with typer's runner), and the error messages with the
line the CLI prints for the same mistake.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import httpx2 as httpx
import numpy as np
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

import evaluator as ev
from solver.apps.web import Limits, create_app, warm
from solver.apps.web.app import CSP, STATIC
from solver.cli import app as cli_app
from solver.engine.rules import PRESETS, load_rules
from solver.strategy.hands.deal import random_hands
from tests import reference as ref
from tests.helpers import run_async

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
FOULED = "As Ks Qs | 9h 9d 9c 3d 2s | Js Ts 7d 5h 4c"  # back weaker than middle
BEST_FIELD = "7d 5h 4c | 9h 9d 9c 3d 2s | As Ks Qs Js Ts"
DUPLICATE = "As As Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
BAD_CARD = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7x"
runner = CliRunner()
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module", autouse=True)
def client():
    """The app, warmed as `capsa serve` warms it (a fresh checkout compiles the kernels
    here, not inside a request's time limit)."""
    app = create_app()
    warm(app)
    with TestClient(app) as c:
        yield c


def cli_json(*args: str) -> dict:
    res = runner.invoke(cli_app, ["solve", *args, "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def cli_error(*args: str) -> str:
    res = runner.invoke(cli_app, ["solve", *args])
    assert res.exit_code == 2, res.output
    line = res.stderr.strip()
    assert line.startswith("capsa: error: ") and "\n" not in line
    return line.removeprefix("capsa: error: ")


# --------------------------------------------------------------------------- the page


def test_the_page_and_its_files_come_from_this_server_only(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == CSP
    assert "default-src 'self'" in CSP and "http" not in CSP
    shipped = sorted(str(p.relative_to(STATIC)) for p in STATIC.rglob("*") if p.is_file())
    codes = ("bn", "en", "fil", "hr", "id", "vi", "zh-Hans", "zh-Hant")
    languages = [f"i18n/{lang}.json" for lang in codes]
    vendored = ["vendor/Sortable.LICENSE", "vendor/Sortable.min.js"]  # SortableJS 1.15.6, MIT
    assert shipped == [
        "app.js", "favicon.svg", *languages, "index.html", "rules.html", "style.css", *vendored
    ]  # fmt: skip
    for name in shipped:
        res = client.get(f"/static/{name}")
        assert res.status_code == 200 and res.content == (STATIC / name).read_bytes()
        # Nothing on the page names another host: no CDN, no font service, no analytics
        # (an SVG's XML namespace is a name, not an address).
        text = res.text.replace('xmlns="http://www.w3.org/2000/svg"', "")
        # the vendored library's banner names where its source is kept: a name, not a fetch
        text = text.replace("git://github.com/SortableJS/Sortable.git", "")
        if name == "rules.html":  # the rules cite their sources: links a reader may follow
            text, cited = re.subn(r'<a href="https?://[^"<>]+">[^<>]*</a>', "", text)
            assert cited >= 10, "the rules page cites its sources as links"
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), name
    for ref_ in re.findall(r'(?:src|href)="([^"#]+)"', page.text):
        assert ref_.startswith("/static/") or ref_ == "/rules", ref_
        assert client.get(ref_).status_code == 200


def test_unknown_pages_and_methods_answer_json(client):
    res = client.get("/api/nope")
    endpoints = "solve, check, natural, rows, table, deal, rules"
    assert res.status_code == 404 and endpoints in res.json()["error"]
    res = client.get("/api/solve")
    assert res.status_code == 405 and res.json() == {"error": "GET is not allowed on /api/solve"}


# --------------------------------------------------------------------------- solve


@pytest.mark.parametrize(
    ("body", "args"),
    [
        ({"seed": 1, "samples": 500, "top": 2}, ["--seed", "1", "--samples", "500", "--top", "2"]),
        (
            {"policy": "field", "rules": "capsa", "players": 2},
            ["--policy", "field", "--rules", "capsa", "--players", "2"],
        ),
        ({"policy": "greedy", "rules": "shisanshui"}, ["--policy", "greedy", "-r", "shisanshui"]),
        (
            {"seed": 2, "samples": 300, "rules": "mau-binh"},
            ["--seed", "2", "--samples", "300", "--rules", "mau-binh"],
        ),
        ({"policy": "field", "rules": "pusoy"}, ["--policy", "field", "--rules", "pusoy"]),
        (
            {"seed": 3, "samples": 400, "stakes": "5,1,1", "played": FOULED},
            ["--seed", "3", "--samples", "400", "--stakes", "5,1,1", "--played", FOULED],
        ),
        (
            {"seed": 3, "samples": 400, "stakes": [5, 1, 1]},
            ["-s", "3", "-n", "400", "--stakes", "5,1,1"],
        ),
    ],
)
def test_solve_answers_exactly_what_the_cli_prints(client, body, args):
    res = client.post("/api/solve", json={"hand": HAND, **body})
    assert res.status_code == 200, res.text
    assert res.json() == cli_json(HAND, *args)
    assert re.fullmatch(r"solve;dur=\d+\.\d", res.headers["server-timing"])


def test_solve_against_known_opponents_is_the_cli_against_file(client, tmp_path):
    opponents = "2c 2d 3h | 4d 4h 5c 6s 7s | 8c 8d 8h Jc Jd\n# a comment\n\n"
    path = tmp_path / "opp.txt"
    path.write_text(opponents)
    want = cli_json(HAND, "--against", str(path))
    assert client.post("/api/solve", json={"hand": HAND, "against": opponents}).json() == want
    listed = ["2c 2d 3h | 4d 4h 5c 6s 7s | 8c 8d 8h Jc Jd"]
    assert client.post("/api/solve", json={"hand": HAND, "against": listed}).json() == want


def test_hand_may_be_a_list_and_any_spelling(client):
    cards = ["as", "KS", "Q♠", "Js", "10s", "9h", "9d", "9c", "2s", "3d", "4c", "5h", "7d"]
    a = client.post("/api/solve", json={"hand": cards, "policy": "field"}).json()
    b = client.post("/api/solve", json={"hand": HAND, "policy": "field"}).json()
    assert a == b


def test_a_payout_only_toml_ruleset_is_answered_as_the_cli_answers_its_file(client, tmp_path):
    toml = 'base = "chinese-2-4"\nname = "house"\nsurrender_cost = 1\n'
    path = tmp_path / "house.toml"
    path.write_text(toml)
    got = client.post("/api/solve", json={"hand": HAND, "rules": toml, "policy": "field"})
    assert got.status_code == 200, got.text
    assert got.json() == cli_json(HAND, "--rules", str(path), "--policy", "field")
    assert got.json()["rules"] == "house" and got.json()["surrender"]["cost"] == 1
    # The same ruleset as a JSON object of the file's keys.
    obj = {"base": "chinese-2-4", "name": "house", "surrender_cost": 1}
    assert (
        client.post("/api/solve", json={"hand": HAND, "rules": obj, "policy": "field"}).json()
        == got.json()
    )


def test_a_ruleset_needing_training_is_refused_with_the_command_that_trains_it(client):
    toml = 'base = "chinese-1-6"\nscoop_multiplier = 3\nname = "triple"\n'
    res = client.post("/api/solve", json={"hand": HAND, "rules": toml, "policy": "field"})
    assert res.status_code == 422
    assert "'triple'" in res.json()["error"] and "capsa train --rules FILE" in res.json()["error"]


def test_rules_never_reads_a_path_on_the_server(client, tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "capsa"\n')
    for value in (str(path), "README.md", "../pyproject.toml"):
        res = client.post("/api/solve", json={"hand": HAND, "rules": value, "policy": "field"})
        assert res.status_code == 422 and res.json()["error"].startswith("unknown preset ")


# --------------------------------------------------------------------------- check


def test_check_scores_the_played_setting_as_the_cli_does(client):
    body = {"hand": HAND, "played": FOULED, "seed": 2, "samples": 300}
    res = client.post("/api/check", json=body)
    assert res.status_code == 200, res.text
    d = res.json()
    assert d == cli_json(HAND, "--seed", "2", "--samples", "300", "--played", FOULED)
    rows = [ev.parse_cards(r).tolist() for r in FOULED.split("|")]
    assert not ref.ref_is_legal(*rows)
    assert d["played"]["fouled"] is True and d["played"]["rank"] == d["played"]["of"]


def test_check_of_the_best_setting_costs_nothing(client):
    d = client.post(
        "/api/check", json={"hand": HAND, "played": BEST_FIELD, "policy": "field"}
    ).json()
    assert BEST_FIELD == " | ".join(d[r] for r in ("front", "middle", "back"))
    p = d["played"]
    assert p["loss"] == 0 and p["rank"] == 1 and not p["fouled"]
    assert not any(row["differs"] for row in p["rows"].values())


@pytest.mark.parametrize(
    "played",
    [
        ["7d 5h 4c", "9h 9d 9c 3d 2s", "As Ks Qs Js Ts"],
        {"front": "7d 5h 4c", "middle": "9h 9d 9c 3d 2s", "back": "As Ks Qs Js Ts"},
    ],
)
def test_check_takes_the_played_rows_as_a_list_or_an_object(client, played):
    d = client.post("/api/check", json={"hand": HAND, "played": played, "policy": "field"}).json()
    assert d["played"]["loss"] == 0


def test_check_needs_a_played_setting(client):
    res = client.post("/api/check", json={"hand": HAND})
    assert res.status_code == 422
    assert res.json() == {"error": "played is missing: give the setting as 'front | middle | back'"}


# --------------------------------------------------------------------------- deal, rules


def test_deal_is_a_random_hand_its_seed_deals_again(client):
    a = client.get("/api/deal", params={"seed": 7}).json()
    assert a == client.post("/api/deal", json={"seed": 7}).json()
    want = random_hands(np.random.default_rng(7), 1)[0]
    assert a == {"hand": ev.format_cards(want[::-1]), "seed": 7}
    fresh = [client.get("/api/deal").json() for _ in range(3)]
    for d in fresh:
        cards = ev.parse_hand(d["hand"])
        assert len(set(cards.tolist())) == 13
        assert client.post("/api/deal", json={"seed": d["seed"]}).json() == d
    assert len({d["hand"] for d in fresh}) == 3


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda c: c.get("/api/deal", params={"seed": "x"}),
            "seed must be a whole number, got 'x'",
        ),
        (
            lambda c: c.post("/api/deal", json={"seed": -1}),
            "seed must be from 0 to 2**64 - 1, got -1",  # as /api/table bounds it
        ),
        (lambda c: c.post("/api/deal", json={"seed": 1.5}), "seed must be a whole number, got 1.5"),
    ],
)
def test_deal_refuses_a_bad_seed(client, call, message):
    res = call(client)
    assert res.status_code == 422 and res.json() == {"error": message}


def test_rules_lists_the_presets_and_the_limits(client):
    d = client.get("/api/rules").json()
    names = [r["name"] for r in d["rulesets"]]
    assert names[0] == d["default"] == "chinese-1-6"
    assert names == list(PRESETS)
    assert all(r["ready"] for r in d["rulesets"])
    assert d["policies"] == ["mc", "field", "greedy"]
    assert d["limits"]["samples"] == Limits().samples and d["limits"]["workers"] >= 1
    shisanshui = next(r for r in d["rulesets"] if r["name"] == "shisanshui")
    assert shisanshui["summary"].startswith(
        "per-row scoring, scoop x2, royalties as row values (winner)"
    )
    assert ["wheel", "second (A-2-3-4-5 ranks just below T-J-Q-K-A)"] in shisanshui["settings"]
    # the presets menu says what players call the game (docs/rules.md#presets)
    games = {r["name"]: r["game"] for r in d["rulesets"]}
    assert games == {
        "chinese-1-6": "Chinese poker, 1-6", "chinese-2-4": "Chinese poker, 2-4",
        "per-row": "Chinese poker, a unit a row", "capsa": "Capsa Susun",
        "shisanshui": "十三水", "mau-binh": "Mậu Binh", "mau-binh-rules": "Mậu Binh (rule texts)",
        "pusoy": "Pusoy", "shisanshui-banker": "十三水, 水庄 (banker)",
    }  # fmt: skip
    uploaded = client.post("/api/rules", json={"rules": 'base = "pusoy"\nname = "mine"\n'})
    assert uploaded.json()["game"] is None  # a house ruleset is not the preset's game


def test_rules_name_every_natural_as_players_call_it(client):
    """docs/rules.md#natural-names: every natural's English and local names, and each
    ruleset's naturals, strongest first, with their payouts (an uploaded one too)."""
    from solver.engine.layout import NATURAL_NAMES_SHOWN

    d = client.get("/api/rules").json()
    assert [n["name"] for n in d["naturals"]] == list(NATURAL_NAMES_SHOWN)
    six = next(n for n in d["naturals"] if n["name"] == "six_pairs")
    assert six == {"name": "six_pairs", "english": "Six pairs", "local": ["六对半", "lục phé bôn"]}
    default = d["rulesets"][0]
    assert [(n["name"], n["units"]) for n in default["naturals"]] == [
        ("dragon", 13),
        ("three_straights", 3),
        ("six_pairs", 3),
        ("three_flushes", 3),
    ]
    assert ["natural names", "dragon: Dragon (一条龙, sảnh rồng)\nthree_straights: Three "
            "straights (三顺子, ba sảnh)\nsix_pairs: Six pairs (六对半, lục phé bôn)\n"
            "three_flushes: Three flushes (三同花, ba thùng)"] in default["settings"]  # fmt: skip
    per_row = next(r for r in d["rulesets"] if r["name"] == "per-row")
    assert per_row["naturals"] == []
    text = "[naturals]\nall_low = 12\nroyal_dragon = 108\n"
    up = client.post("/api/rules", json={"rules": text}).json()
    assert up["naturals"] == [
        {"name": "all_low", "english": "All low", "local": ["全小"], "units": 12},
        {"name": "royal_dragon", "english": "Royal dragon", "local": ["至尊清龙", "rồng cuốn"],
         "units": 108},
    ]  # fmt: skip


def test_rules_checks_an_uploaded_toml_ruleset(client):
    good = client.post("/api/rules", json={"rules": 'base = "capsa"\nname = "mine"\nplayers = 3\n'})
    assert good.status_code == 200
    assert good.json()["name"] == "mine" and good.json()["players"] == 3 and good.json()["ready"]
    bad = client.post("/api/rules", json={"rules": 'base = "capsa"\nscoring = "3-3"\n'})
    assert bad.status_code == 422
    assert bad.json()["error"].startswith("rules: scoring must be one of ")
    broken = client.post("/api/rules", json={"rules": "base = \n"})
    assert broken.status_code == 422 and broken.json()["error"].startswith("rules: not valid TOML")
    untrained = client.post("/api/rules", json={"rules": "scoop_multiplier = 3\n"})
    assert untrained.status_code == 200 and untrained.json()["ready"] is False


def test_the_server_default_ruleset_is_offered_first(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "per-row"\nsurrender_cost = 2\n')
    from solver.engine.rules import load_rules

    with TestClient(create_app(load_rules(str(path)))) as c:
        d = c.get("/api/rules").json()
        assert d["default"] == "house" and d["rulesets"][0]["name"] == "house"
        ans = c.post("/api/solve", json={"hand": HAND, "policy": "field"}).json()
        assert ans["rules"] == "house" and ans == cli_json(
            HAND, "-r", str(path), "--policy", "field"
        )
        assert (
            c.post("/api/solve", json={"hand": HAND, "policy": "field", "rules": "house"}).json()
            == ans
        )


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("body", "args"),
    [
        ({"hand": "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h"}, ["As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h"]),
        ({"hand": HAND + " 6d"}, [HAND + " 6d"]),
        ({"hand": DUPLICATE}, [DUPLICATE]),
        ({"hand": BAD_CARD}, [BAD_CARD]),
        ({"hand": HAND, "rules": "chinse-1-6"}, [HAND, "--rules", "chinse-1-6"]),
        ({"hand": HAND, "played": "As Kd Qc | 9h 9d 9c 3d 2s | Js Ts 7d 5h 4c"},
         [HAND, "--played", "As Kd Qc | 9h 9d 9c 3d 2s | Js Ts 7d 5h 4c"]),
        ({"hand": HAND, "played": "As Ks | 9h 9d 9c 3d 2s | Js Ts 7d 5h 4c Qs"},
         [HAND, "--played", "As Ks | 9h 9d 9c 3d 2s | Js Ts 7d 5h 4c Qs"]),
        ({"hand": HAND, "stakes": "1,x,1"}, [HAND, "--stakes", "1,x,1"]),
        ({"hand": HAND, "stakes": "1,1", "policy": "field"},
         [HAND, "--stakes", "1,1", "--policy", "field"]),
        ({"hand": HAND, "against": "2c 2d 3h | 4d 4h 5c 6s 7s"}, None),
        ({"hand": HAND, "seed": 1, "samples": 10, "players": 3, "stakes": [1, 1, 1]},
         [HAND, "-s", "1", "-n", "10", "-p", "3", "--stakes", "1,1,1"]),
    ],
)  # fmt: skip
def test_bad_values_are_422_with_the_cli_message(client, tmp_path, body, args):
    res = client.post("/api/solve", json=body)
    if args is None:  # --against: the CLI reads the same text from a file
        path = tmp_path / "opp.txt"
        path.write_text(body["against"])
        args = [body["hand"], "--against", str(path)]
    assert res.status_code == 422, res.text
    assert res.json() == {"error": cli_error(*args)}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"hand": HAND, "players": 7}, "players must be from 2 to 6, got 7"),
        ({"hand": HAND, "players": "four"}, "players must be a whole number, got 'four'"),
        ({"hand": HAND, "samples": 0}, "samples must be from 1 to 1,000,000, got 0"),
        ({"hand": HAND, "seed": -2}, "seed must be at least 0, got -2"),
        ({"hand": HAND, "policy": "best"}, "policy must be one of mc, field, greedy, got 'best'"),
        ({"hand": HAND, "top": -1}, "top must be at least 0, got -1"),
        ({"hand": 13}, "hand must be cards as text, e.g. 'As Kd Qh ...', got int"),
        ({}, "hand is missing: give 13 cards, e.g. 'As Kd Qh ...'"),
        (
            {"hand": HAND, "rules": 4},
            "rules must be a preset name or the text of a TOML ruleset, got int",
        ),
        ({"hand": HAND, "stakes": [1, "x", 1]}, "--stakes: stake 2 'x' is not a number"),
        ({"hand": HAND, "played": 7}, "played must be 'front | middle | back', got int"),
    ],
)
def test_bad_values_the_cli_parser_catches_first_are_422_with_the_library_message(
    client, body, message
):
    res = client.post("/api/solve", json=body)
    assert res.status_code == 422 and res.json() == {"error": message}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"{hand: 1}",
            "the body is not valid JSON: Expecting property name enclosed in double quotes",
        ),
        (b"[1, 2]", 'the body must be a JSON object of options, e.g. {"hand": "As Kd Qh ..."}'),
        (b"\xff\xfe", "the body is not UTF-8 text"),
    ],
)
def test_a_malformed_body_is_400(client, content, message):
    res = client.post("/api/solve", content=content, headers=JSON)
    assert res.status_code == 400 and res.json()["error"].startswith(message)


def test_an_unknown_option_is_400_naming_the_options(client):
    res = client.post("/api/solve", json={"hand": HAND, "format": "json"})
    assert res.status_code == 400
    assert res.json() == {
        "error": "unknown option 'format'; options are hand, rules, players, samples, seed, "
        "top, policy, against, stakes, played, top_by, opponents, seat, jokers"
    }


def test_opponents_are_styles_and_the_answer_names_them(client):
    """``opponents``: a style or one a seat; the answer says which; a file name (the
    server reads none), an unknown style or the wrong count is 422 with one line."""
    res = client.post("/api/solve", json={"hand": HAND, "samples": 300, "seed": 4,
                                          "opponents": "greedy"})  # fmt: skip
    assert res.status_code == 200 and res.json()["opponents"] == "greedy"
    res = client.post("/api/solve", json={"hand": HAND, "samples": 300, "seed": 4, "players": 3,
                                          "opponents": ["safe", "field"]})  # fmt: skip
    assert res.status_code == 200 and res.json()["opponents"] == "safe,field"
    plain = client.post("/api/solve", json={"hand": HAND, "samples": 300, "seed": 4})
    assert plain.json()["opponents"] == "field"
    for bad, said in (
        ("model.npz", "opponents: 'model.npz' is not a style here; use field, greedy, safe"),
        (["greedy", 3], "opponents: 3 is not a style here; use field, greedy, safe"),
        (7, "opponents must be a style or a list of styles, got int"),
        ("greedy,greedy", "opponents: give one model, or one per opponent (3), got 2"),
        ("field,field,field,field", "opponents: 4 given, 3 at most (one a seat)"),
        (["safe"] * 5, "opponents: 5 given, 3 at most (one a seat)"),
    ):
        res = client.post("/api/solve", json={"hand": HAND, "samples": 300, "opponents": bad})
        assert res.status_code == 422 and res.json() == {"error": said}, bad


# --------------------------------------------------------------------------- bounds


def test_samples_and_top_are_bounded_by_the_server(client):
    most = Limits().samples
    res = client.post("/api/solve", json={"hand": HAND, "samples": most + 1})
    assert res.status_code == 422
    assert res.json() == {
        "error": f"samples must be at most {most:,} on this server, got {most + 1:,}"
    }
    res = client.post("/api/solve", json={"hand": HAND, "policy": "field", "top": 21})
    assert res.status_code == 422 and "top must be at most 20 on this server" in res.json()["error"]


def test_a_body_over_the_limit_is_413_without_being_read_whole():
    with TestClient(create_app(limits=Limits(body=1000))) as c:
        big = json.dumps({"hand": HAND, "rules": "#" * 2000})
        res = c.post("/api/solve", content=big, headers=JSON)
        assert res.status_code == 413
        assert res.json() == {"error": "the body is larger than this server's limit of 1,000 bytes"}

        def chunks():  # no Content-Length: the limit holds while streaming
            for _ in range(10):
                yield b" " * 200

        res = c.post("/api/solve", content=chunks(), headers=JSON)
        assert res.status_code == 413
        assert c.post("/api/solve", json={"hand": HAND, "policy": "field"}).status_code == 200


def test_a_monte_carlo_answer_past_the_time_limit_is_stopped():
    with TestClient(create_app(limits=Limits(seconds=0.05))) as c:
        res = c.post("/api/solve", json={"hand": HAND, "samples": 20_000, "seed": 1})
        assert res.status_code == 503
        message = "the answer took longer than this server's limit of 0.05 s; ask for fewer samples"
        assert res.json() == {"error": message}


def test_the_host_header_is_checked_when_bound_to_localhost():
    app = create_app(local=True)
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        assert c.get("/api/rules").status_code == 200
        assert c.get("/api/rules", headers={"host": "evil.example:8000"}).status_code == 400


# --------------------------------------------------------------------------- concurrency


async def _post_all(app, bodies, path="/api/solve", clients=1):
    """POST the bodies at once, the i-th from client i % ``clients`` (each its own
    address); the answers and the order they completed in."""
    done: list[int] = []
    cs = [
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app, client=(f"127.0.0.{2 + k}", 4000)),
            base_url="http://testserver",
            timeout=120,
        )
        for k in range(clients)
    ]
    try:

        async def one(i, body):
            res = await cs[i % clients].post(path, json=body)
            done.append(i)
            return res

        answers = await asyncio.gather(*(one(i, b) for i, b in enumerate(bodies)))
    finally:
        for c in cs:
            await c.aclose()
    return answers, done


def test_concurrent_answers_are_the_answers_given_alone(client):
    bodies = [
        {"hand": HAND, "seed": 1, "samples": 600},
        {"hand": HAND, "policy": "field"},
        {"hand": "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c", "seed": 2, "samples": 600},
        {"hand": HAND, "policy": "greedy", "rules": "capsa"},
        {"hand": HAND, "seed": 3, "samples": 600, "played": FOULED},
        {"hand": "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c", "policy": "field", "players": 2},
    ]
    alone = [client.post("/api/solve", json=b).json() for b in bodies]
    answers, _ = run_async(_post_all(create_app(), bodies))
    assert [a.status_code for a in answers] == [200] * len(bodies)
    assert [a.json() for a in answers] == alone


def test_an_instant_answer_is_not_held_up_by_long_ones():
    app = create_app(limits=Limits(workers=1))
    slow = {"hand": HAND, "seed": 1, "samples": 20_000}
    bodies = [slow, slow, {"hand": HAND, "policy": "field"}]
    answers, done = run_async(_post_all(app, bodies))
    assert [a.status_code for a in answers] == [200, 200, 200]
    # One worker per lane: the second long answer waits for the first; the field
    # answer has its own lane and comes back before either.
    assert done[0] == 2


def test_a_full_lane_answers_busy():
    """A lane of one place, taken by one client's answer: another client is answered 503
    busy (the same client would be told 429, to slow down: tests/test_web_fair.py)."""
    app = create_app(limits=Limits(workers=1, pending=1))
    slow = {"hand": HAND, "seed": 1, "samples": 20_000}
    answers, _ = run_async(_post_all(app, [slow, slow], clients=2))
    codes = sorted(a.status_code for a in answers)
    assert codes == [200, 503]
    busy = next(a for a in answers if a.status_code == 503).json()["error"]
    assert busy == (
        "busy: this server is working on 1 answer of this kind already; try again in a moment"
    )


def test_limits_resolve_to_the_cores():
    import os

    lim = Limits().resolved()
    assert lim.workers == (os.cpu_count() or 1) and lim.pending == 4 * lim.workers
    assert Limits(workers=3, pending=5).resolved().pending == 5


def test_the_package_data_ships_the_page():
    """A non-editable install carries static/: pyproject lists it and matches its files."""
    import fnmatch
    import tomllib

    root = Path(__file__).resolve().parent.parent
    cfg = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert {"solver.apps.web", "solver.apps.web.static"} <= set(cfg["packages"])
    globs = cfg["package-data"]["solver.apps.web.static"]
    for path in STATIC.rglob("*"):
        if path.is_file():
            name = str(path.relative_to(STATIC))
            assert any(fnmatch.fnmatch(name, g) for g in globs), name


# --------------------------------------------------------------------------- natural, rules page


def test_natural_says_what_a_hand_may_do_besides_being_set(client):
    """POST /api/natural: the natural a hand holds under a ruleset (the page offers
    Declare from it) and the surrender cost (Surrender); the oracle agrees."""
    dragon = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
    res = client.post("/api/natural", json={"hand": dragon})
    assert res.status_code == 200
    d = res.json()
    assert d["natural"]["name"] == "dragon" and d["natural"]["units"] == 13
    assert d["natural"]["english"] == "Dragon" and d["surrender"] == 3
    assert d["hand"] == "Ac Ks Qh Jd Tc 9s 8h 7d 6c 5s 4h 3d 2c"
    plain = client.post("/api/natural", json={"hand": HAND, "rules": "shisanshui"}).json()
    assert plain["natural"] is None and plain["surrender"] is None  # shisanshui: none
    dragon_ids = ev.parse_hand(dragon).tolist()
    assert ref.ref_best_natural(dragon_ids, load_rules("chinese-1-6"))[0] == "dragon"
    off = client.post("/api/natural", json={"hand": dragon, "rules": "naturals = false\n"})
    assert off.json()["natural"] is None
    bad = client.post("/api/natural", json={"hand": "As Ks"})
    assert bad.status_code == 422 and bad.json() == {"error": "expected 13 cards, got 2"}
    assert client.post("/api/natural", json={"hand": dragon, "x": 1}).status_code == 400
    assert client.get("/api/natural").status_code == 405


def test_the_rules_page_is_docs_rules_md_without_script(client):
    from tests import rules_page

    res = client.get("/rules")
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/html")
    assert res.headers["content-security-policy"] == CSP
    page = res.text
    assert "<script" not in page and "<style" not in page and " style=" not in page
    assert '<h2 id="fouls"' in page or 'id="fouls"' in page
    assert rules_page.main(["--check"]) == 0, (
        "static/rules.html is stale: python -m tests.rules_page"
    )
    # raw HTML in the Markdown is shown as text, not run
    assert "&lt;script&gt;" in rules_page.render("<script>alert(1)</script>\n")


def test_rows_are_named_as_the_oracle_names_them(client):
    rng = np.random.default_rng(34)
    settings = [rng.permutation(52)[:13].tolist() for _ in range(20)]
    texts = [" | ".join(ev.format_cards(s[a:b]) for a, b in ((0, 3), (3, 8), (8, 13)))
             for s in settings]  # fmt: skip
    res = client.post("/api/rows", json={"rules": "shisanshui", "settings": texts})
    assert res.status_code == 200, res.text
    for s, got in zip(settings, res.json()["settings"], strict=True):
        rows = dict(zip(("front", "middle", "back"), (s[:3], s[3:8], s[8:]), strict=True))
        for name, cards in rows.items():
            cat = ref.ref_category3(cards) if name == "front" else ref.ref_category5(cards)
            want = "royal_flush" if ref.ref_is_royal(cards) else cat.replace(" ", "_")
            assert got[name]["class"] == want
        legal = ref.ref_is_legal(rows["front"], rows["middle"], rows["back"])
        assert (got["foul"] is None) == legal
    # a row not yet full is not named; two full rows out of order are a foul already
    part = client.post("/api/rows", json={"settings": ["Ah Ad 2c | 3c 3d 4h 5s 6s | Kd"]}).json()
    one = part["settings"][0]
    assert one["back"]["class"] is None and one["foul"] == {"row": "front", "over": "middle"}
    for bad in ({"settings": "As"}, {"settings": ["As Ks | Qs"]}, {"settings": ["Zz | | "]},
                {"settings": ["As Ks Qs Js | | "]}, {"settings": ["As | As | "]},
                {"settings": ["|  | "] * 33}):  # fmt: skip
        res = client.post("/api/rows", json=bad)
        assert res.status_code in (400, 422) and "\n" not in res.json()["error"], bad
