"""What a command reads besides its main input: text from a file or stdin (bounded, UTF-8),
opponent settings (``--against``). A ruleset is read by ``solver.engine.rules.load_rules``
(a preset, a file, or ``-``: stdin).

Every read has a bound (``read_bounded``); a read that fails, is too large or is not
UTF-8 is an ``InputError`` naming what was read (exit 2 in the CLI).
"""

from __future__ import annotations

import sys

from solver.engine.errors import InputError
from solver.engine.inputs import read_bounded
from solver.engine.options import MAX_TEXT

__all__ = ["card_message", "decode_text", "one_stdin", "read_settings", "read_stdin_text"]

#: What the command line says where the evaluator's message says a deck has no jokers
#: (``evaluator.cards.NO_JOKERS``): how to play with them here.
CLI_NO_JOKERS = (
    "the deck has no jokers (give --jokers 1 or 2, or jokers = 1 or 2 in a ruleset file)"
)


def card_message(message: str) -> str:
    """A card error's message as the command line says it: a joker on a deck without
    jokers names ``--jokers`` beside the ruleset key."""
    from evaluator.cards import NO_JOKERS

    return message.replace(NO_JOKERS, CLI_NO_JOKERS)


def decode_text(raw: bytes, what: str) -> str:
    """``raw`` as UTF-8 text; ``InputError`` naming ``what`` and the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} is not UTF-8 text (bad byte at offset {exc.start})") from None


def one_stdin(*readers: tuple[str, bool]) -> None:
    """``InputError`` when more than one input would be read from stdin: each reader is
    ``(what, whether it is "-")``, e.g. ``("--rules -", rules == "-")``. Stdin is read
    once: two inputs cannot both come from it (as ``capsa batch`` says of its hands)."""
    on_stdin = [what for what, dash in readers if dash]
    if len(on_stdin) > 1:
        both = "both" if len(on_stdin) == 2 else "all"
        raise InputError(
            f"{', '.join(on_stdin[:-1])} and {on_stdin[-1]} {both} on stdin: "
            "give one of them as a file"
        )


def read_stdin_text(what: str = "stdin", most: int | None = None, why: str = "") -> str:
    """Stdin as text, at most ``most`` bytes (default ``MAX_TEXT``); ``InputError`` when
    there is more (``why`` says why the bound is enough), or it is not UTF-8."""
    return decode_text(read_bounded(sys.stdin.buffer, most or MAX_TEXT, what, why), what)


def read_settings(path: str) -> list[str]:
    """Opponent settings, one 'front | middle | back' per line ('-' = stdin; blank lines
    and '#' comments skipped), at most ``MAX_TEXT`` bytes."""
    why = "it holds at most 3 opponent settings"
    if path == "-":
        text = read_stdin_text("--against stdin", why=why)
    else:
        what = f"--against file '{path}'"
        try:
            text = decode_text(read_bounded(path, MAX_TEXT, what, why), what)
        except OSError as exc:
            raise InputError(f"cannot read --against file '{path}': {exc.strerror}") from None
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
