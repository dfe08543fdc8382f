"""The report page's languages: gettext catalogues (``locale/LANG/LC_MESSAGES/report.po``,
shipped beside this module) read with Babel and compiled in memory, so a fresh clone
needs no build step.

Python code marks text with ``_()`` (translated now, in the language of the page being
made) or ``N_()`` (only marked: the text is translated where it is shown, as the
category labels are, which the terminal and the JSON keep in English); ``ngettext``
picks a plural. ``use_language(lang)`` sets the language for a block (a ContextVar, so
two pages made on two threads do not mix). English is the text in the code itself.

The catalogues are kept up to date with Babel's own commands (docs/report.md,
"Languages"): ``pybabel extract`` of this package, then ``pybabel update``;
tests/test_translations.py checks that every message the code uses is translated in
every language and that no catalogue holds a message the code no longer uses.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gettext
import io
from collections.abc import Iterator
from importlib.resources import files

__all__ = [
    "LANGUAGES",
    "N_",
    "_",
    "catalogue_path",
    "language_name",
    "ngettext",
    "translations",
    "use_language",
]

#: The languages of the page: code (BCP 47, as ``--lang`` takes it) -> its own name.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "zh-Hans": "简体中文",
    "zh-Hant": "繁體中文",
    "id": "Bahasa Indonesia",
    "vi": "Tiếng Việt",
    "fil": "Filipino",
    "hr": "Hrvatski",
    "bn": "বাংলা",
}
DOMAIN = "report"

_ENGLISH = gettext.NullTranslations()
_current: contextvars.ContextVar[gettext.NullTranslations | None] = contextvars.ContextVar(
    "capsa_report_language", default=None
)


def N_(message: str) -> str:  # noqa: N802 - gettext's own name for "mark only"
    """Mark ``message`` for translation without translating it here."""
    return message


def _(message: str) -> str:
    """``message`` in the language of the page being made (English by default)."""
    return (_current.get() or _ENGLISH).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or the plural of a message for ``n``, in the page's language."""
    return (_current.get() or _ENGLISH).ngettext(singular, plural, n)


def language_name(lang: str) -> str:
    return LANGUAGES[lang]


def _locale(lang: str) -> str:
    """The catalogue folder of a language: Babel's locale name (``zh_Hans``)."""
    return lang.replace("-", "_")


def catalogue_path(lang: str) -> str:
    """The catalogue file of a language, inside this package."""
    return f"locale/{_locale(lang)}/LC_MESSAGES/{DOMAIN}.po"


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (English: the code's own text). ValueError for
    a language the report does not have."""
    if lang not in LANGUAGES:
        raise ValueError(f"no such language {lang!r}; the report has {', '.join(LANGUAGES)}")
    if lang == "en":
        return _ENGLISH
    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError:
        from solver.engine.errors import InputError

        raise InputError(
            "the report in other languages reads its catalogues with Babel: "
            "pip install 'capsa[report]'"
        ) from None
    text = files("solver.apps.report").joinpath(catalogue_path(lang)).read_bytes()
    catalog = read_po(io.BytesIO(text), locale=_locale(lang), domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


@contextlib.contextmanager
def use_language(lang: str) -> Iterator[None]:
    """Make the text of a block in ``lang`` (``_``, ``ngettext``)."""
    token = _current.set(translations(lang))
    try:
        yield
    finally:
        _current.reset(token)
