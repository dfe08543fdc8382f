"""The exceptions that mean "the caller's input is wrong", and "the run failed".

The CLI prints an ``InputError`` as one line on stderr and exits 2, a ``RunFailed`` as
one line and exits 1; anything else that escapes is a failure of the run (exit 1) or a
bug. ``evaluator.CardParseError`` is the evaluator's own (it cannot depend on
``solver``); the CLI treats it as an ``InputError``.
Standard library only: ``capsa --help`` imports this module.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input from the caller: the message is one line and names what is wrong."""


class RunFailed(Exception):
    """A run that failed part way, not through the caller's input (a write failed, a
    worker died): the message is one line; the CLI prints it and exits 1. What was
    written before it is kept."""


class RulesError(InputError):
    """A ruleset that cannot be built: the message is one line and names the key."""
