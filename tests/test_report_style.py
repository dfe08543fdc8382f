"""capsa report's "your style against the field": the played settings beside the
advice's for the same hands (docs/report.md#your-style), counted exactly on crafted
records, recounted with the reference oracle on the real session file through the CLI,
and shown on the terminal and the page."""

from __future__ import annotations

import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from solver.apps.report import make_report, render_html
from solver.apps.report import style as S
from tests.helpers import capsa_in
from tests.reference import ref_cards, ref_category3, ref_category5, ref_key, ref_key3

ROOT = Path(__file__).resolve().parent.parent
ROWS = ("front", "middle", "back")
HAND1 = "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c"
ADVICE1 = ("9s 9d 2c", "7h 6c 5s 4d 3h", "Ah Kd Qc Jd Ts")
HAND3 = "Ks Kh Kc Qs Qh 8d 7c 6s 5h 4c 3d 2s 2h"
ADVICE3 = ("Qs Qh 3d", "8d 7c 6s 5h 4c", "Ks Kh Kc 2s 2h")


def rec(
    line: int,
    hand: str,
    advice: tuple[str, str, str],
    played: tuple[str, str, str] | None,
    *,
    fouled: bool = False,
    action: str = "play",
    played_action: str = "play",
    wins: tuple[float, float, float] | None = None,
    played_wins: tuple[float, float, float] | None = None,
    policy: str = "field",
) -> dict:
    """A batch record (``{"line", "id", **Solution.to_dict()}``) with these settings."""
    stats = None
    if wins is not None:
        stats = {r: {"win": w, "tie": 0.0, "loss": 1 - w} for r, w in zip(ROWS, wins, strict=True)}
    out = {
        "line": line,
        "id": f"h{line}",
        "hand": hand,
        "rules": "chinese-1-6",
        "policy": policy,
        "players": 4,
        "samples": None,
        "seed": line,
        "action": action,
        **dict(zip(ROWS, advice, strict=True)),
        "ev": 1.0,
        "ev_total": 3.0,
        "ev_play": 1.0,
        "stderr": None,
        "row_stats": stats,
        "alternatives": [],
        "natural": None,
        "surrender": {"cost": 3, "recommended": False, "ev_play": 1.0},
        "candidates": None,
        "stakes": None,
        "ev_staked": None,
        "ev_by_opponent": [1.0] * 3,
        "played": None,
    }
    if played is not None:
        pw = played_wins or (0.5, 0.5, 0.5)
        out["played"] = {
            "action": played_action,
            **dict(zip(ROWS, played, strict=True)),
            "ev": 0.5,
            "loss": 0.5,
            "loss_stderr": None,
            "rank": None,
            "of": None,
            "fouled": fouled,
            "rows": {
                r: {"differs": True, "win": w, "tie": 0.0, "loss": 1 - w, "win_change": 0.0}
                for r, w in zip(ROWS, pw, strict=True)
            },
        }
    return out


#: Four hands compared, and four that are not (nothing played, a declare advised, a
#: surrender played, rows that are not cards). What each row is, worked out by hand:
#:   1. front pair of 9s, kicker 7 (the advice's: kicker 2, weaker); middle 6-high
#:      straight (the advice's 7-high, stronger); the same back, an A-high straight.
#:   2. fouled: front A-K-Q (the advice's pair of 9s, stronger); middle pair of 9s
#:      (straight, stronger); back J-high (straight, stronger).
#:   3. front pair of 2s (the advice's pair of queens, stronger); middle pair of queens
#:      (8-high straight, stronger); back trips (full house, stronger).
#:   4. fouled: front trips kings (the advice's pair of queens, weaker); the same
#:      middle, an 8-high straight; back two pair (full house, stronger).
CRAFTED = [
    rec(1, HAND1, ADVICE1, ("9s 9d 7h", "6c 5s 4d 3h 2c", "Ah Kd Qc Jd Ts"),
        wins=(0.5, 0.4, 0.6), played_wins=(0.6, 0.3, 0.6)),
    rec(2, HAND1, ADVICE1, ("Ah Kd Qc", "9s 9d 7h 6c 5s", "Jd Ts 4d 3h 2c"), fouled=True,
        wins=(0.5, 0.4, 0.6), played_wins=(0.2, 0.1, 0.0)),
    rec(3, HAND3, ADVICE3, ("2s 2h 3d", "Qs Qh 8d 7c 6s", "Ks Kh Kc 5h 4c"),
        wins=(0.7, 0.5, 0.8), played_wins=(0.3, 0.2, 0.7)),
    rec(4, HAND3, ADVICE3, ("Ks Kh Kc", "8d 7c 6s 5h 4c", "Qs Qh 2s 2h 3d"), fouled=True,
        wins=(0.7, 0.5, 0.8), played_wins=(0.9, 0.5, 0.1)),
    rec(5, HAND1, ADVICE1, None),
    rec(6, HAND1, ADVICE1, ADVICE1, action="declare"),
    rec(7, HAND1, ADVICE1, ("", "", ""), played_action="surrender"),
    rec(8, HAND1, ADVICE1, ("Xx Yy Zz", "6c 5s 4d 3h 2c", "Ah Kd Qc Jd Ts")),
]  # fmt: skip

EXPECTED = {
    "hands": 4,
    "against": "field",
    "same_back": 1,
    "win_hands": 4,
    "played": {
        "front": {"high_card": 1, "pair": 2, "three_of_a_kind": 1, "pair_rank_mean": 5.5,
                  "win_mean": 0.5},
        "middle": {"win_mean": 0.275},
        "back": {"high_card": 1, "pair": 0, "two_pair": 1, "three_of_a_kind": 1,
                 "straight": 1, "flush": 0, "full_house": 0, "four_of_a_kind": 0,
                 "straight_flush": 0, "win_mean": 0.35},
        "stronger": {"front": 2, "middle": 0, "back": 0},
        "fouled": 2,
    },
    "advice": {
        "front": {"high_card": 0, "pair": 4, "three_of_a_kind": 0, "pair_rank_mean": 10.5,
                  "win_mean": 0.6},
        "middle": {"win_mean": 0.45},
        "back": {"high_card": 0, "pair": 0, "two_pair": 0, "three_of_a_kind": 0,
                 "straight": 2, "flush": 0, "full_house": 2, "four_of_a_kind": 0,
                 "straight_flush": 0, "win_mean": 0.7},
        "stronger": {"front": 2, "middle": 3, "back": 3},
        "fouled": 0,
    },
}  # fmt: skip


def jsonl(records: list[dict]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def test_the_style_of_crafted_records_is_counted_exactly():
    d = make_report(io.BytesIO(jsonl(CRAFTED))).to_dict()
    assert d["hands"] == 8 and d["played"] == 7
    assert d["style"] == EXPECTED  # rounded to 6 decimals, as every figure


def test_the_table_and_its_sentence():
    s = make_report(io.BytesIO(jsonl(CRAFTED))).to_dict()["style"]
    rows = {r.key: r for r in S.style_rows(s)}
    assert rows["front_pair_or_better"][2:] == (3, 4, "3 (75.0%)", "4 (100.0%)")
    assert rows["front_pair_rank"].played_text == "5.5" and rows["front_pair_rank"].advice == 10.5
    assert rows["middle_win"][2:] == (0.275, 0.45, "27.5%", "45.0%")
    assert rows["stronger_middle"][2:4] == (0, 3) and rows["fouled"][2:4] == (2, 0)
    # the back's classes that neither side played are left out
    assert [k for k in rows if k.startswith("back_") and k != "back_win"] == [
        "back_high_card", "back_two_pair", "back_three_of_a_kind", "back_straight",
        "back_full_house",
    ]  # fmt: skip
    assert S.style_note(s) == (
        "4 hands where the advice and the play were both settings; the same back in 1. "
        "Your front and the field's were the stronger equally often (50% and 50% of the "
        "hands); pair or better in 75% against 100%."
    )
    weaker = make_report(io.BytesIO(jsonl(CRAFTED[1:3]))).to_dict()["style"]
    assert S.style_note(weaker).endswith(
        "You keep your front weaker than the field: yours the stronger in 0% of the hands, "
        "theirs in 100%; pair or better in 50% against 100%."
    )
    stronger = make_report(io.BytesIO(jsonl([CRAFTED[0], CRAFTED[3]]))).to_dict()["style"]
    assert "You keep your front stronger than the field" in S.style_note(stronger)


def test_the_advice_is_named_for_what_it_is():
    """With ``--policy field`` the advice is the field's own setting; otherwise it is
    named with its policy (mc: the best response to field opponents)."""
    mc = [{**r, "policy": "mc"} for r in CRAFTED]
    s = make_report(io.BytesIO(jsonl(mc))).to_dict()["style"]
    assert s["against"] == "mc" and S.against(s) == "the advice (mc)"
    mixed = make_report(io.BytesIO(jsonl(mc[:1] + CRAFTED[1:4]))).to_dict()["style"]
    assert mixed["against"] == "field, mc"


def test_no_style_without_a_setting_on_both_sides():
    rep = make_report(io.BytesIO(jsonl(CRAFTED[4:])))
    assert rep.played == 3 and rep.to_dict()["style"] is None
    assert 'id="style"' not in render_html(rep)
    from rich.console import Console

    from solver.cli.commands.report import render_report

    for records, shown in ((CRAFTED[4:7], False), (CRAFTED[:7], True)):
        out = io.StringIO()
        render_report(make_report(io.BytesIO(jsonl(records))).to_dict(), Console(file=out))
        assert ("your style against the field" in out.getvalue()) is shown


def test_the_hands_are_ranked_in_chunks_with_the_same_result(monkeypatch):
    """Memory stays bounded: the cards wait in chunks of ``CHUNK`` hands; any chunk size
    gives the same counts."""
    many = [{**r, "line": i} for i in range(5) for r in CRAFTED]
    whole = make_report(io.BytesIO(jsonl(many))).to_dict()["style"]
    monkeypatch.setattr(S, "CHUNK", 3)
    chunked = make_report(io.BytesIO(jsonl(many))).to_dict()["style"]
    assert chunked == whole and whole["hands"] == 20
    assert whole["played"]["fouled"] == 10 and whole["advice"]["stronger"]["back"] == 15


class _Style(HTMLParser):
    """The page's style table: data-style -> the texts of its cells."""

    def __init__(self):
        super().__init__()
        self.rows: dict[str, list[str]] = {}
        self.title = ""
        self._key: str | None = None
        self._h2 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self._key = a.get("data-style", self._key) if tag == "tr" else self._key
        self._h2 = tag == "h2"

    def handle_endtag(self, tag):
        self._key = None if tag == "tr" else self._key
        self._h2 = False

    def handle_data(self, data):
        if self._key is not None and data.strip():
            self.rows.setdefault(self._key, []).append(data.strip())
        if self._h2 and "style" in data.lower() or self._h2 and "风格" in data:
            self.title = data.strip()


def test_the_page_shows_the_table_in_its_language():
    rep = make_report(io.BytesIO(jsonl(CRAFTED)))
    s = rep.to_dict()["style"]
    page = _Style()
    page.feed(render_html(rep))
    assert page.title == "Your style against the field"
    assert page.rows == {r.key: [r.label, r.played_text, r.advice_text] for r in S.style_rows(s)}
    zh = _Style()
    zh.feed(render_html(rep, "zh-Hans"))
    assert zh.rows.keys() == page.rows.keys()
    assert zh.rows["front_pair_or_better"][0] == "头墩：对子或更大"
    assert zh.rows["front_pair_or_better"][1:] == page.rows["front_pair_or_better"][1:]


# --------------------------------------------------------------------------- the real CLI


def recount(records: list[dict]) -> dict:
    """The style of batch records, counted with the reference oracle (tests/reference.py)
    one hand at a time: the classes, the pair ranks and the stronger rows."""
    out = {side: {"front": [0, 0, 0], "back": {}, "stronger": [0, 0, 0], "ranks": []}
           for side in ("played", "advice")}  # fmt: skip
    n = same = 0
    for r in records:
        p = r["played"]
        if p is None or r["action"] != "play" or p["action"] != "play":
            continue
        n += 1
        sides = {"played": [ref_cards(p[row]) for row in ROWS],
                 "advice": [ref_cards(r[row]) for row in ROWS]}  # fmt: skip
        same += set(sides["played"][2]) == set(sides["advice"][2])
        for side, (front, _middle, back) in sides.items():
            cls = ref_category3(front)
            out[side]["front"][("high card", "pair", "three of a kind").index(cls)] += 1
            if cls == "pair":
                ranks = [c // 4 for c in front]
                out[side]["ranks"].append(max(ranks, key=ranks.count) + 2)
            name = ref_category5(back).replace(" ", "_")
            out[side]["back"][name] = out[side]["back"].get(name, 0) + 1
        for j in range(3):
            a, b = ref_key(sides["played"][j]), ref_key(sides["advice"][j])
            out["played"]["stronger"][j] += a > b
            out["advice"]["stronger"][j] += b > a
    assert ref_key3(ref_cards("2c 2d 3h")) > ref_key3(ref_cards("Ac Kd Qh"))  # pair > high
    return {"hands": n, "same_back": same, **out}


def test_the_session_file_through_the_cli(tmp_path):
    """docs/examples/session.txt, batched with ``--policy field`` and reported, as a
    player runs it: the JSON's style is what the reference oracle counts on the records,
    and the terminal and the page show it; a CSV batch output gives the same style."""
    session = ROOT / "docs" / "examples" / "session.txt"
    for out in ("session.jsonl", "session.csv"):
        run = capsa_in("batch", str(session), "-o", out, "--policy", "field", "--workers", "1",
                       cwd=tmp_path)  # fmt: skip
        assert run.returncode == 0, run.stderr
    got = capsa_in("report", "session.jsonl", "--format", "json", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    s = json.loads(got.stdout)["style"]
    records = [json.loads(x) for x in (tmp_path / "session.jsonl").read_text().splitlines()]
    want = recount(records)
    assert (s["hands"], s["same_back"], s["against"]) == (want["hands"], want["same_back"], "field")
    assert s["hands"] == 22  # 24 hands: a natural to declare and a surrender advised
    both = [x for x in records if x["played"] and x["action"] == x["played"]["action"] == "play"]
    for side in ("played", "advice"):
        front = s[side]["front"]
        assert [front[k] for k in S.FRONT_CLASSES] == want[side]["front"]
        ranks = want[side]["ranks"]
        assert front["pair_rank_mean"] == pytest.approx(sum(ranks) / len(ranks), abs=1e-6)
        back = {k: v for k, v in s[side]["back"].items() if v and k != "win_mean"}
        assert back == want[side]["back"]
        assert [s[side]["stronger"][r] for r in ROWS] == want[side]["stronger"]
        for row in ROWS:
            stats = [x["played"]["rows"] if side == "played" else x["row_stats"] for x in both]
            mean = sum(st[row]["win"] for st in stats) / len(stats)
            assert s[side][row]["win_mean"] == pytest.approx(mean, abs=1e-6)
    fouled = sum(bool(x["played"] and x["played"]["fouled"]) for x in records)
    assert s["played"]["fouled"] == fouled and fouled > 0
    csv = capsa_in("report", "session.csv", "--format", "json", cwd=tmp_path)
    assert csv.returncode == 0, csv.stderr
    assert json.loads(csv.stdout)["style"] == s
    table = capsa_in("report", "session.jsonl", "--top", "0", cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    assert "your style against the field" in table.stdout
    assert "front: pair or better" in table.stdout and "the stronger back" in table.stdout
    page = capsa_in("report", "session.jsonl", "-o", "report.html", cwd=tmp_path)
    assert page.returncode == 0, page.stderr
    parsed = _Style()
    parsed.feed((tmp_path / "report.html").read_text(encoding="utf-8"))
    assert parsed.rows["fouled"][1:] == [f"{fouled} ({fouled / 22:.1%})", "0 (0.0%)"]


def test_cards_in_another_spelling_count_the_same_and_broken_settings_not_at_all():
    """A record edited by hand: cards spelt otherwise ("10h", "a♠", suits' symbols) count
    as capsa's own spelling; a setting repeating a card, a row of the wrong size or a
    row holding the joining character is left out of the style (not of the report)."""

    def respell(rows):
        symbols = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
        return tuple(
            " ".join(c[0].lower() + symbols[c[1]] if i % 2 else c.replace("T", "10")
                     for i, c in enumerate(row.split()))
            for row in rows
        )  # fmt: skip

    def respelt_record(r):
        if not r["played"] or r["played"]["action"] != "play" or r["line"] == 8:
            return r
        rows = respell([r["played"][k] for k in ROWS])
        return {**r, "played": {**r["played"], **dict(zip(ROWS, rows, strict=True))}}

    respelt = [respelt_record(r) for r in CRAFTED]
    assert respelt[1]["played"]["front"] == "Ah k♦ Qc"
    plain = make_report(io.BytesIO(jsonl(CRAFTED))).to_dict()["style"]
    assert make_report(io.BytesIO(jsonl(respelt))).to_dict()["style"] == plain
    broken = [
        {**CRAFTED[0], "line": 20, "played": {**CRAFTED[0]["played"], "front": "9s 9s 7h"}},
        {**CRAFTED[0], "line": 21, "played": {**CRAFTED[0]["played"], "front": "9s 9d"}},
        {**CRAFTED[0], "line": 22, "front": "9s 9d 2c 8c"},  # the advice's rows
        {**CRAFTED[0], "line": 23, "played": {**CRAFTED[0]["played"], "front": "9s|9d|7h"}},
        {**CRAFTED[0], "line": 24, "played": {**CRAFTED[0]["played"], "front": "9s 9d Ah"}},
    ]  # the last: the ace of hearts in the front and in the back
    rep = make_report(io.BytesIO(jsonl(CRAFTED + broken))).to_dict()
    assert rep["played"] == len(CRAFTED) - 1 + len(broken)
    assert rep["style"] == plain


def test_win_rates_of_the_wrong_kind_are_a_bad_line_and_whole_numbers_count():
    """The rows' win rates are read as every number of a record is: a 1 is 1.0, text or
    NaN is a bad line naming the field (the report of the other lines is still made)."""
    one = rec(1, HAND1, ADVICE1, ADVICE1, wins=(0.5, 0.4, 0.6))
    one["row_stats"]["front"]["win"] = 1
    text = json.loads(json.dumps(one))
    text["line"], text["row_stats"]["middle"]["win"] = 2, "0.4"
    nan = json.loads(json.dumps(one))
    nan["line"], nan["played"]["rows"]["back"]["win"] = 3, float("nan")
    bad = []
    rep = make_report(io.BytesIO(jsonl([one, text, nan])), on_bad=bad.append)
    assert [(b.line, b.reason) for b in bad] == [
        (2, "'row_stats.middle.win' is not a number ('0.4')"),
        (3, "'played.rows.back.win' is out of range (nan; at most 1e+30 in size)"),
    ]
    s = rep.to_dict()["style"]
    assert s["hands"] == 1 and s["advice"]["front"]["win_mean"] == 1.0
    assert s["played"]["front"]["win_mean"] == 0.5  # the record's played.rows


def test_the_policies_named_are_bounded_and_shown_as_text(tmp_path):
    """A record's policy is the user's text: at most ``MAX_POLICIES`` names are kept
    (the rest count as "others"), and the terminal shows markup and control characters
    in it as text."""
    many = [{**r, "line": i, "policy": f"p{i}"} for i, r in enumerate(CRAFTED[:4] * 5)]
    s = make_report(io.BytesIO(jsonl(many))).to_dict()["style"]
    names = s["against"].split(", ")
    assert names[0] == "others" and len(names) == S.MAX_POLICIES + 1
    assert set(names[1:]) == {f"p{i}" for i in range(S.MAX_POLICIES)}
    evil = [{**r, "policy": "[red]x\x1b[2J"} for r in CRAFTED[:4]]
    path = tmp_path / "evil.jsonl"
    path.write_bytes(jsonl(evil))
    run = capsa_in("report", str(path), "--top", "0", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "your style against the advice ([red]x\\x1b[2J)" in run.stdout
    assert "\x1b" not in run.stdout
