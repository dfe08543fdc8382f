"""The ``capsa`` Typer app and the one place that maps how a command ends to an exit code.

Exit codes: 0 success, 1 a failure of the run, 2 bad usage or bad input, 130
interrupted. Every error is one line on stderr (``capsa: error: ...``): usage errors
(unknown option, missing argument, bad choice, number out of range), bad input
(``evaluator.CardParseError`` and ``solver.engine.errors.InputError``, which
``RulesError`` and ``DuelError`` are), a run that failed part way
(``solver.engine.errors.RunFailed``: a batch whose output or worker failed), a failed
write (a full disk, ``> /dev/full``) and, for a bug, the exception's type and message
(``CAPSA_DEBUG=1`` adds the traceback). A command only raises.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from solver.cli.output import Consoles, fail, quiet_stdout, say
from solver.engine.errors import InputError, RunFailed

try:  # typer >= 0.20 vendors click; its usage errors derive from TyperException
    from typer.exceptions import TyperException as _UsageBase
except ImportError:  # pragma: no cover - older typer on click
    from click.exceptions import ClickException as _UsageBase  # type: ignore[assignment]

__all__ = ["CapsaGroup", "app", "bad_input_errors", "help_text"]


def help_text(doc: str) -> str:
    """A command's docstring as its ``--help``: each paragraph one line, which the help
    wraps at the terminal's width; the docstring's own line breaks (made for the source
    file's width) would otherwise stay, breaking a sentence wherever they fall."""
    import inspect

    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())


def bad_input_errors() -> tuple[type[Exception], ...]:
    """The exceptions that mean the user's input is wrong (exit 2), and only those."""
    from evaluator.cards import CardParseError

    return (CardParseError, InputError)


def _flush_or_quiet() -> None:
    """Flush stdout; if that fails (stdout is what failed), silence it for the exit."""
    try:
        sys.stdout.flush()
    except OSError:
        quiet_stdout()


class CapsaGroup(TyperGroup):
    """The command group: turns every way a command can end into an exit code and at most
    one line on stderr (see the module docstring)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the CLI; usage errors become one line and exit code 2."""
        try:
            rv = super().main(
                args=args,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
            code = rv if isinstance(rv, int) else 0
        except _UsageBase as exc:
            code = _usage_error(exc)
        except typer.Abort:
            say("aborted")
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code

    def invoke(self, ctx: Any) -> Any:
        """Run the command; map what escapes it to an exit code and one line."""
        try:
            try:
                return super().invoke(ctx)
            except RunFailed as exc:  # part way: what was written is kept
                _flush_or_quiet()
                fail(str(exc), 1)
            finally:
                sys.stdout.flush()  # data still buffered: a full stdout fails here
        except (typer.Exit, typer.Abort, _UsageBase):
            raise
        except KeyboardInterrupt:
            say("interrupted")
            raise typer.Exit(130) from None
        except BrokenPipeError:  # `capsa ... | head`: the reader has gone; say nothing
            quiet_stdout()
            raise typer.Exit(1) from None
        except Exception as exc:
            if isinstance(exc, bad_input_errors()):
                from solver.apps.inputs import card_message

                fail(card_message(str(exc)))
            if os.environ.get("CAPSA_DEBUG"):
                import traceback

                traceback.print_exc()
            if isinstance(exc, OSError):  # a failure of the run (a full disk), not a bug
                quiet_stdout()
                where = f": '{exc.filename}'" if exc.filename else ""
                full = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
                fail(f"{'write failed: ' if full else ''}{exc.strerror or exc}{where}", 1)
            fail(
                f"{type(exc).__name__}: {exc} (this is a bug in capsa; "
                "CAPSA_DEBUG=1 shows the traceback)",
                1,
            )


def _usage_error(exc: Exception) -> int:
    """A usage error as one line (the help, for ``capsa`` alone); its exit code (2)."""
    code = int(getattr(exc, "exit_code", 2))
    if type(exc).__name__ == "NoArgsIsHelpError":  # `capsa` with nothing: show the help
        ctx = getattr(exc, "ctx", None)
        if ctx is not None:
            typer.echo(ctx.get_help(), err=True)
        return code
    ctx = getattr(exc, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    say(f"error: {exc.format_message()}{hint}")
    return code


app = typer.Typer(
    name="capsa",
    help="Optimal hand-setting solver for 13-card Chinese poker and Capsa Susun.",
    cls=CapsaGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"capsa {version('capsa')}")
        raise typer.Exit()


@app.callback()
def _main(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Optimal hand-setting solver for 13-card Chinese poker and Capsa Susun."""
    from solver.apps.logs import log_to_stderr

    log_to_stderr()  # library talk (compile notices, warnings) goes to stderr
    if not isinstance(ctx.obj, Consoles):
        ctx.obj = Consoles.standard()
