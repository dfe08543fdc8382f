"""The exceptions that mean "the caller's input is wrong".

The CLI prints any of them as one line on stderr and exits 2; anything else that escapes
is a failure of the run (exit 1) or a bug. ``evaluator.CardParseError`` is the
evaluator's own (it cannot depend on ``solver``); the CLI treats it the same way.
Standard library only: ``capsa --help`` imports this module.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input from the caller: the message is one line and names what is wrong."""
