"""Issue 51 (the fourth hardening round) on the server, through its ASGI app: a JSON
object that gives a key twice, a ruleset with a byte order mark, language tags in any
case, and /api/deal's seeds bounded as /api/table's."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from solver.apps.web import create_app

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def refused(res, status: int, *words: str) -> str:
    assert res.status_code == status, (res.status_code, res.text)
    error = res.json()["error"]
    assert "\n" not in error and "Traceback" not in error, error
    for w in words:
        assert w in error, (w, error)
    return error


# ---------------------------------------------------------------- 6: a key given twice


@pytest.mark.parametrize(
    ("path", "body", "key"),
    [
        ("/api/rules", '{"rules": {"jokers": 2, "jokers": 0}}', "jokers"),
        ("/api/rules", '{"rules": "capsa", "rules": "pusoy"}', "rules"),
        ("/api/rules", '{"rules": {"royalties": {"back": {"four_of_a_kind": 4, '
         '"four_of_a_kind": 40}}}}', "four_of_a_kind"),
        ("/api/solve", f'{{"hand": "{HAND}", "policy": "greedy", "policy": "field"}}', "policy"),
        ("/api/deal", '{"seed": 1, "seed": 2}', "seed"),
        ("/api/train", '{"rules": "capsa", "rules": "x = 1"}', "rules"),
    ],
)  # fmt: skip
def test_a_json_object_that_gives_a_key_twice_is_refused(client, path, body, key):
    res = client.post(path, content=body.encode(), headers=JSON)
    refused(res, 422, f"the body gives the key '{key}' twice in one object")
    # the same body with each key once is taken (the refusal is the key, not the rest)
    once = json.loads(body)  # Python keeps the last: what was taken silently before
    if path in ("/api/rules", "/api/deal"):
        assert client.post(path, json=once).status_code == 200


def test_the_same_key_in_two_objects_is_two_keys(client):
    body = {"rules": {"royalties": {"middle": {"four_of_a_kind": 8},
                                    "back": {"four_of_a_kind": 4}}}}  # fmt: skip
    res = client.post("/api/rules", content=json.dumps(body).encode(), headers=JSON)
    assert res.status_code == 200, res.text


# ---------------------------------------------------------------- 8: a byte order mark


def test_a_toml_ruleset_with_a_byte_order_mark_is_read_by_the_api(client):
    text = '\ufeffname = "house"\nbase = "per-row"\nplayers = 3\n'
    res = client.post("/api/rules", json={"rules": text})
    assert res.status_code == 200, res.text
    got = res.json()
    assert (got["name"], got["players"]) == ("house", 3)


# ---------------------------------------------------------------- 9: language tags


@pytest.mark.parametrize(
    ("asked", "lang"),
    [("EN", "en"), ("zh-hans", "zh-Hans"), ("ZH-HANT", "zh-Hant"), ("Fil", "fil"),
     ("vI", "vi"), ("zh-Hans", "zh-Hans")],
)  # fmt: skip
def test_a_language_tag_is_read_in_any_case(client, asked, lang):
    res = client.get("/rules/capsa", params={"lang": asked})
    assert res.status_code == 200, res.text
    assert res.headers["content-language"] == lang
    assert f'<html lang="{lang}">' in res.text


@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_lang_falls_back_as_no_lang_does(client, empty):
    for header, lang in (("vi-VN,vi;q=0.9", "vi"), (None, "en")):
        headers = {"accept-language": header} if header else {}
        res = client.get(f"/rules/capsa?lang={empty}", headers=headers)
        assert res.status_code == 200, res.text
        assert res.headers["content-language"] == lang


def test_an_unknown_language_is_still_a_404(client):
    res = client.get("/rules/capsa", params={"lang": "ZH-XX"})
    assert res.status_code == 404 and "no such language: 'ZH-XX'" in res.text


# ---------------------------------------------------------------- noted: /api/deal's seed

TOO_BIG = 10**40  # 41 digits


@pytest.mark.parametrize(
    ("seed", "shown"),
    [(TOO_BIG, "a 41-digit number"), (2**64, "18,446,744,073,709,551,616"),
     (10**4000, "a 4,001-digit number")],
    ids=["41 digits", "2**64", "4,001 digits"],
)  # fmt: skip
def test_deal_bounds_its_seed_as_table_does_with_the_same_message(client, seed, shown):
    message = f"seed must be from 0 to 2**64 - 1, got {shown}"
    get = client.get("/api/deal", params={"seed": str(seed)})
    post = client.post("/api/deal", json={"seed": seed})
    table = client.post("/api/table", json={"hand": HAND, "played": "declare", "seed": seed})
    for res in (get, post, table):
        assert refused(res, 422) == message
    # the largest seed deals, by GET and POST alike
    top = 2**64 - 1
    got = client.get("/api/deal", params={"seed": str(top)}).json()
    assert got == client.post("/api/deal", json={"seed": top}).json()
    assert got["seed"] == top
