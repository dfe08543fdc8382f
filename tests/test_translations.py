"""The languages of the report page (gettext catalogues, Babel) and of the web page (JSON
catalogues): every message the code uses is translated in every language, and no
catalogue holds a message the code does not use."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from solver.apps.report import html as report_html
from solver.apps.report.translations import LANGUAGES, catalogue_path, translations
from solver.engine.layout import NATURAL_NAMES_SHOWN

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "solver" / "apps" / "report"
OTHERS = [lang for lang in LANGUAGES if lang != "en"]
BRACES = re.compile(r"\{[a-z_]*\}")


def report_messages() -> dict[str, tuple[str, str] | None]:
    """Every message the report's code marks: msgid -> (singular, plural) or None."""
    out: dict[str, tuple[str, str] | None] = {}
    for _file, _line, msg, _comments, _ctx in extract_from_dir(
        str(REPORT),
        method_map=[("**.py", "python"), ("**.html", "jinja2")],
        keywords={"_": None, "N_": None, "ngettext": (1, 2)},
    ):
        if isinstance(msg, tuple):
            out[msg[0]] = msg
        else:
            out[msg] = None
    return out


def catalogue(lang: str):
    return read_po(io.BytesIO((REPORT / catalogue_path(lang)).read_bytes()))


def test_the_report_code_marks_its_messages():
    used = report_messages()
    # a sample of each place that shows text: the template, a figure, a plot, a category
    for msg in ("Where the loss went", "loss, total", "loss by kind of mistake", "wrong back"):
        assert msg in used
    assert used["{n} hand"] == ("{n} hand", "{n} hands")


@pytest.mark.parametrize("lang", OTHERS)
def test_every_report_message_is_translated_and_none_is_left_over(lang):
    used = report_messages()
    cat = catalogue(lang)
    have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in cat if m.id}
    missing = sorted(set(used) - set(have))
    unused = sorted(set(have) - set(used))
    assert not missing, f"{lang}: not translated: {missing}"
    assert not unused, f"{lang}: in the catalogue, not in the code: {unused}"
    for key, m in have.items():
        forms = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(forms), f"{lang}: {key!r} has an empty translation"
        assert not m.fuzzy, f"{lang}: {key!r} is fuzzy"
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        wanted = set().union(*(BRACES.findall(i) for i in ids))
        for form in forms:  # the code's placeholders, so .format() fills them all
            got = set(BRACES.findall(form))
            assert got <= wanted, (lang, key, form)
            if len(ids) == 1:
                assert got == wanted, (lang, key, form)


@pytest.mark.parametrize("lang", OTHERS)
def test_the_catalogues_compile_and_translate(lang):
    t = translations(lang)
    assert t.gettext("Where the loss went") != "Where the loss went"
    assert "3" in t.ngettext("{n} hand", "{n} hands", 3).format(n=3)


def test_the_natural_names_marked_for_the_report_are_the_engines():
    assert {n: m for n, m in report_html.NATURAL_MESSAGES.items()} == {
        n: shown.english for n, shown in NATURAL_NAMES_SHOWN.items()
    }


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError, match="no such language 'xx'"):
        translations("xx")


def test_rows_are_named_as_players_say_them():
    """The row names of docs/report.md's "Languages" table."""
    want = {
        "zh-Hans": ("头墩", "中墩", "尾墩"),
        "zh-Hant": ("頭墩", "中墩", "尾墩"),
        "id": ("kepala", "badan", "kaki"),
        "vi": ("chi 3", "chi 2", "chi 1"),
        "fil": ("harap", "gitna", "likod"),
        "hr": ("prednji", "srednji", "stražnji"),
        "bn": ("সামনের সারি", "মাঝের সারি", "পেছনের সারি"),
    }
    for lang, names in want.items():
        t = translations(lang)
        assert tuple(t.gettext(r) for r in ("front", "middle", "back")) == names


# --------------------------------------------------------------------------- the web page

STATIC = ROOT / "solver" / "apps" / "web" / "static"
PAGE_LANGUAGES = ("en", "zh-Hans", "zh-Hant", "id", "vi", "fil", "hr", "bn")


def page_keys() -> set[str]:
    """Every message key the page uses: ``t("key")`` and ``tp("key", n)`` (its ``.one``
    and ``.other`` forms) in app.js, ``data-i18n`` and ``data-i18n-attr`` in index.html,
    and ``natural.NAME`` for every natural a ruleset may name (looked up by name)."""
    from solver.engine.rules import NATURAL_NAMES

    js = (STATIC / "app.js").read_text(encoding="utf-8")
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    keys = set(re.findall(r'\bt\(\s*"([^"]+)"', js))
    for key in re.findall(r'\btp\(\s*"([^"]+)"', js):
        keys |= {f"{key}.one", f"{key}.other"}
    keys |= set(re.findall(r'data-i18n="([^"]+)"', html))
    for attrs in re.findall(r'data-i18n-attr="([^"]+)"', html):
        keys |= {pair.split(":")[1] for pair in attrs.split(";")}
    return keys | {f"natural.{n}" for n in NATURAL_NAMES} | players_rules_keys() | {"unit.generic"}


def unit_keys() -> set[str]:
    """A game's own unit (``unit.NAME``, looked up by the preset's name): only in the
    languages whose players have a word of their own for it (水 at 十三水 in 中文)."""
    from solver.engine.rules import PRESETS

    return {f"unit.{name}" for name in PRESETS}


def players_rules_keys() -> set[str]:
    """The keys of the players' rules pages (solver/apps/web/players_rules.py): every
    ``"rules.p.…"`` it names, a game name for every preset and what every natural is
    (looked up by name)."""
    from solver.engine.rules import PRESETS

    py = (ROOT / "solver" / "apps" / "web" / "players_rules.py").read_text(encoding="utf-8")
    keys = set(re.findall(r"[\"'](rules\.p\.[A-Za-z0-9_.]+)[\"']", py))
    from solver.engine.rules import NATURAL_NAMES

    return (
        keys
        | {f"rules.p.game.{name}" for name in PRESETS}
        | {f"rules.p.nat.{name}" for name in NATURAL_NAMES}
    )


def page_catalogue(lang: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def test_the_page_finds_its_keys():
    keys = page_keys()
    assert {"tab.solve", "row.front", "hand.tooFew.one", "natural.dragon"} <= keys
    assert len(keys) > 150
    # every t() call names its key literally, but for the few that this test knows: t's
    # own definition, tp's forms, the page's data-i18n attributes and the naturals
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    known = ("t(key, vars", "t(form ===", "t(el.dataset.i18n)", "t(key));", "t(`natural.${name}`)")
    for known_call in known:
        assert known_call in js, known_call
        js = js.replace(known_call, "")
    assert not re.search(r"\bt\(\s*[^\"\s)]", js), "a message key built at run time"


@pytest.mark.parametrize("lang", PAGE_LANGUAGES)
def test_every_page_key_is_in_every_language_and_none_is_left_over(lang):
    keys = page_keys()
    cat = page_catalogue(lang)
    assert sorted(keys - set(cat)) == [], f"{lang}: missing"
    assert sorted(set(cat) - keys - unit_keys()) == [], f"{lang}: not used by the page"
    english = page_catalogue("en")
    for key, text in cat.items():
        assert isinstance(text, str) and text.strip(), (lang, key)
        if key in unit_keys():  # a word, nothing to fill
            assert not BRACES.findall(text) and len(text) < 12, (lang, key)
            continue
        assert set(BRACES.findall(text)) == set(BRACES.findall(english[key])), (lang, key)


def test_the_page_offers_the_reports_languages():
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    offered = re.findall(
        r'<option value="([^"]+)">', html.split('id="lang"')[1].split("</select>")[0]
    )
    assert tuple(offered) == PAGE_LANGUAGES == tuple(LANGUAGES)


def test_the_page_names_the_rows_as_the_report_does():
    for lang in OTHERS:
        t = translations(lang)
        cat = page_catalogue(lang)
        assert [cat[f"row.{r}"] for r in ("front", "middle", "back")] == [
            t.gettext(r) for r in ("front", "middle", "back")
        ]


def test_the_pages_footer_names_every_json_endpoint_in_every_language():
    """The footer lists the JSON API: every ``/api/...`` route the server has (its first
    part, e.g. /api/train for /api/train/{id}), in every catalogue and in the page's own
    fallback text."""
    from solver.apps.web.app import create_app

    routes = {"/" + "/".join(r.path.split("/")[1:3]) for r in create_app().routes
              if r.path.startswith("/api/")}  # fmt: skip
    assert {"/api/solve", "/api/train", "/api/table"} <= routes
    static = ROOT / "solver" / "apps" / "web" / "static"
    texts = {p.name: json.loads(p.read_text(encoding="utf-8"))["footer.text"]
             for p in sorted((static / "i18n").glob("*.json"))}  # fmt: skip
    texts["index.html"] = (static / "index.html").read_text(encoding="utf-8")
    for name, text in texts.items():
        missing = sorted(r for r in routes if not re.search(re.escape(r) + r"\b", text))
        assert not missing, (name, missing)


def test_indonesian_names_a_row_one_way():
    """Issue 53: a row is a susun in Bahasa Indonesia, as Capsa Susun players say it, on
    the page and in the report (no longer also "baris"); the report's "baris" is left
    for a line of a file."""
    assert not re.search(r"\bbaris", " ".join(page_catalogue("id").values()), re.IGNORECASE)
    with (REPORT / "locale" / "id" / "LC_MESSAGES" / "report.po").open("rb") as f:
        po = read_po(f)
    for m in po:
        text = " ".join(m.string) if isinstance(m.string, tuple | list) else m.string or ""
        ids = " ".join(m.id) if isinstance(m.id, tuple | list) else m.id
        if re.search(r"\bbaris", text, re.IGNORECASE):
            assert "line" in ids.lower(), (ids, text)
