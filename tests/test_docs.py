"""docs/rules.md, the specification, stays in step with the code that cites it.

Every anchor of docs/rules.md cited in the repository (and every ``(#anchor)`` link
inside the page) must name a heading of the page; the ruleset file shown there must load
and name every key ``rules_from_dict`` accepts; the presets table must match ``PRESETS``;
the worked examples' numbers must be what the code and the oracle compute.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

import solver
from solver.engine.rules import (
    DEFAULT_NATURALS,
    DEFAULT_ROYALTIES,
    FILE_KEYS,
    PRESET_GAMES,
    PRESETS,
    ROYAL_FLUSH_ROYALTIES,
    load_rules,
    rules_from_dict,
)
from tests import reference as R

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules.md"
TEXT = DOC.read_text(encoding="utf-8")


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to
    hyphens (letters, digits, ``-`` and ``_`` are kept)."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def headings() -> list[str]:
    out, fenced = [], False
    for line in TEXT.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            out.append(line.lstrip("#").strip())
    return out


ANCHORS = [slug(h) for h in headings()]


def section(anchor: str) -> str:
    """The text of the section whose heading has ``anchor``, up to the next heading of
    the same or a higher level."""
    lines = TEXT.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"(#{1,6}) (.*)", line)
        if m and slug(m.group(2)) == anchor:
            level = len(m.group(1))
            body = []
            for nxt in lines[i + 1 :]:
                n = re.match(r"(#{1,6}) ", nxt)
                if n and len(n.group(1)) <= level:
                    break
                body.append(nxt)
            return "\n".join(body)
    raise AssertionError(f"no section #{anchor} in docs/rules.md")


def test_slug_rule():
    assert slug("Dealt royalties and one royalty per hand") == (
        "dealt-royalties-and-one-royalty-per-hand"
    )
    assert slug("A mixed-stakes table") == "a-mixed-stakes-table"
    assert slug("Rows and settings") == "rows-and-settings"


def test_anchors_are_unique():
    assert len(ANCHORS) == len(set(ANCHORS)), [a for a in ANCHORS if ANCHORS.count(a) > 1]


def test_every_cited_anchor_exists():
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    cited: dict[str, set[str]] = {}
    for name in files:
        path = ROOT / name
        if path.suffix not in {".py", ".md", ".toml", ".txt"} or not path.is_file():
            continue
        for anchor in re.findall(r"docs/rules\.md#([\w-]+)", path.read_text(encoding="utf-8")):
            cited.setdefault(anchor, set()).add(name)
    # the page's own links
    for anchor in re.findall(r"\]\(#([\w-]+)\)", TEXT):
        cited.setdefault(anchor, set()).add("docs/rules.md")
    assert len(cited) > 20  # the code and the page do cite it
    missing = {a: sorted(f) for a, f in cited.items() if a not in ANCHORS}
    assert not missing


def test_every_interpretation_cited_by_the_oracle_is_one():
    interpretations = set(
        slug(h) for h in re.findall(r"^### (.*)$", section("interpretations"), re.MULTILINE)
    )
    oracle = (ROOT / "tests" / "reference.py").read_text(encoding="utf-8")
    doc = oracle[: oracle.index('"""', 3)]
    cited = set(re.findall(r"docs/rules\.md#([\w-]+)", doc[doc.index("Interpretations") :]))
    cited -= {"royalties-for-dealt-cards"}  # the rule itself, cited beside its entries
    assert cited <= interpretations, cited - interpretations


def test_no_path_outside_the_repository():
    assert "/work" not in TEXT and "../" not in TEXT and "RULES.md" not in TEXT


def test_ruleset_file_example_loads_and_names_every_key(tmp_path):
    blocks = re.findall(r"```toml\n(.*?)```", section("keys-and-defaults"), re.DOTALL)
    assert len(blocks) == 1
    data = tomllib.loads(blocks[0])
    assert set(data) == set(FILE_KEYS)
    path = tmp_path / "example.toml"
    path.write_text(blocks[0], encoding="utf-8")
    rules = load_rules(path)
    base = PRESETS["chinese-1-6"]
    assert rules == dataclasses.replace(
        base, name="house", royalties=base.royalties + ROYAL_FLUSH_ROYALTIES
    )
    del data["royalties"]["middle"]["royal_flush"], data["royalties"]["back"]["royal_flush"]
    assert rules_from_dict(data, name="x") == dataclasses.replace(base, name="house")


def test_presets_table_matches_the_presets():
    rows = [
        [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        for line in section("presets").splitlines()
        if line.startswith("| `")
    ]
    assert [r[0] for r in rows] == list(PRESETS)
    suit_text = {None: "none", "shcd": "s > h > c > d", "dchs": "d > c > h > s"}
    for name, game, scoring, mult, royalties, naturals, suits, wheel, surrender, hr in rows:
        p = PRESETS[name]
        assert game == PRESET_GAMES[name]
        assert scoring == p.scoring
        assert mult == str(p.scoop_multiplier)
        assert (royalties == "none") == (not p.royalties)
        assert ("royal flush" in royalties) == any(h == "royal_flush" for _, h, _ in p.royalties)
        if royalties.startswith("default table"):
            assert p.royalties == DEFAULT_ROYALTIES
        elif royalties.startswith("twice the default table"):
            assert [(r, h, u / 2) for r, h, u in p.royalties] == list(DEFAULT_ROYALTIES)
        assert (naturals == "none") == (not p.naturals)
        assert (naturals == "default") == (p.naturals == DEFAULT_NATURALS)
        assert suits == suit_text[p.suit_order]
        assert wheel == p.wheel
        assert surrender == ("none" if p.surrender_cost is None else str(p.surrender_cost))
        want = (
            "off"
            if not p.home_run
            else (f"×{p.home_run_multiplier:g} from {p.home_run_min_opponents} opponents")
        )
        assert hr == want
        assert p.players == 4 and not p.one_royalty_per_hand and not p.royalties_dealt


def test_preset_files_shown_are_the_presets():
    """Each preset's heading shows it as a TOML file (its keys that differ from the
    default preset's, and the ones it names to say so): the file with ``base`` the
    default preset is that preset."""
    for name in ("shisanshui", "mau-binh", "mau-binh-rules", "pusoy"):
        text = section(f"the-{name}-preset")
        blocks = re.findall(r"```toml\n(.*?)```", text, re.DOTALL)
        assert len(blocks) == 1, name
        data = tomllib.loads(blocks[0])
        assert rules_from_dict(data, name="x").digest() == PRESETS[name].digest(), name


SCOOP_A = ("Kh Kd Ks", "6d 6h 6s 2c 2h", "Jh Jd Js Jc 5d")
SCOOP_B = ("Qc Qd 4c", "Tc Td 3c 3d 4d", "2d 3h 4h 5h 6c")


def test_scoop_example():
    text = section("a-scoop-with-royalties-and-a-multiplier")
    for row in SCOOP_A + SCOOP_B:
        assert f"`{row}`" in text
    shown = [int(x) for x in re.findall(r"^\|.*\| (\d+) \|$", text, re.MULTILINE)]
    base = dataclasses.replace(PRESETS["chinese-1-6"], name="x", scoop_multiplier=2)
    variations = [
        dict(scoop_multiplier=1),
        dict(scoring="per-row", surrender_cost=None),
        dict(scoring="2-4", surrender_cost=2),
        dict(one_royalty_per_hand=True),
        dict(royalties_dealt=True),
    ]
    assert "**A receives 30**" in text
    assert solver.settle(SCOOP_A, SCOOP_B, base) == 30
    a = tuple(R.ref_cards(r) for r in SCOOP_A)
    b = tuple(R.ref_cards(r) for r in SCOOP_B)
    expected = [R.ref_settle(a, b, dataclasses.replace(base, **v)) for v in variations]
    assert shown == expected == [15, 24, 26, 20, 30]
    for v, units in zip(variations[:4], expected, strict=False):  # not yet: royalties_dealt
        assert solver.settle(SCOOP_A, SCOOP_B, dataclasses.replace(base, **v)) == units


@pytest.mark.parametrize(
    ("anchor", "needles"),
    [
        ("four-sevens", ["**2 units**", "**6 units**", "**3 units**", "`7c 7d 7h 7s Kh`"]),
        ("a-mixed-stakes-table", ["| 3, 8, 8 | 19 | 19 |", "| 6, 6, 6 | 18 | 720 |"]),
    ],
)
def test_examples_pinned_by_the_oracle_tests(anchor, needles):
    """The numbers of these examples are computed in tests/test_reference.py
    (test_four_sevens_from_the_seed, test_best_setting_breaks_the_four_sevens_up_only_
    under_royalties_dealt, test_staked_best_differs_from_the_unstaked_best)."""
    text = section(anchor)
    for needle in needles:
        assert needle in text
