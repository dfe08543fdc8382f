"""solver.apps.batch.outputs: outputs never an input, the output's lock, write failures."""

from __future__ import annotations

import errno
import io
import json
import os
import sys
from contextlib import ExitStack

import pytest

from solver.apps.batch import outputs as O
from solver.apps.batch.errors import BatchError, BatchFailed
from solver.apps.batch.resume import run_options, sidecar_path, write_sidecar
from solver.apps.batch.work import Job
from solver.engine.rules import load_rules
from tests.helpers import batch_job


def job(fmt: str = "jsonl") -> Job:
    return batch_job(rules=load_rules("chinese-1-6"), policy="field", seed=0, players=4, fmt=fmt)


@pytest.fixture
def files(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("x\n")
    return tmp_path, src, tmp_path / "out.jsonl"


def clash(source, output, out_path, errors) -> str:
    with pytest.raises(BatchError) as info:
        O.check_paths(source, output, out_path, errors)
    return str(info.value)


def test_outputs_against_the_input(files):
    d, src, out = files
    os.link(src, d / "link.txt")
    assert clash(src, out, out, src) == (
        f"the errors file '{src}' is the input file '{src}': capsa batch never writes over "
        "its input"
    )
    assert "the output" in clash(src, d / "link.txt", d / "link.txt", None)
    assert "the errors file" in clash(d / "link.txt", out, out, src)
    side = sidecar_path(out)
    side.write_text("x\n")
    assert f"the run file '{side}' is the input file '{side}'" in clash(side, out, out, None)


def test_outputs_against_each_other(files):
    d, src, out = files
    assert clash(src, out, out, out) == (
        f"the errors file '{out}' and the output '{out}' are the same file"
    )
    side = sidecar_path(out)
    assert "and the run file" in clash(src, out, out, side)
    out.write_text("")  # an existing output, named another way
    assert "are the same file" in clash(src, out, out, d / "." / "out.jsonl")


def test_stdin_and_stdout_by_what_they_are(files, monkeypatch):
    d, src, out = files
    with src.open("rb") as stdin, src.open("ab") as append:
        monkeypatch.setattr(sys, "stdin", stdin)
        assert clash("-", out, src, None) == (
            f"the output '{src}' is stdin: capsa batch never writes over its input"
        )
        monkeypatch.setattr(sys, "stdout", append)
        assert clash("-", None, None, None).startswith("stdout is stdin")
        assert clash(src, None, None, None).startswith(f"stdout is the input file '{src}'")
        assert "the output stream is the input stream" in clash(stdin, append, None, None)


def test_what_may_be_shared(files, monkeypatch):
    d, src, out = files
    O.check_paths(src, out, out, d / "errors.jsonl")
    O.check_paths(os.devnull, out, out, os.devnull)  # not regular files: no clash
    O.check_paths(io.BytesIO(b""), io.StringIO(), None, None)  # no file behind them
    with open(os.devnull, "rb") as null:
        monkeypatch.setattr(sys, "stdin", null)
        O.check_paths("-", None, None, os.devnull)


def test_the_output_is_locked_while_open(files):
    d, src, out = files
    with ExitStack() as first:
        O.open_output(None, out, job(), False, str(src), first)
        with pytest.raises(BatchError) as info, ExitStack() as second:
            O.open_output(None, out, job(), True, str(src), second)
        msg = str(info.value)
        assert msg.startswith(f"'{out}' is being written by another capsa batch (pid {os.getpid()}")
        assert "started" in msg
    with ExitStack() as again:  # closed: free again
        O.open_output(None, out, job(), False, str(src), again)


def test_open_output_fresh_and_resumed(files):
    d, src, out = files
    out.write_text("old records\n")
    with ExitStack() as stack, pytest.raises(BatchError, match="already holds records"):
        O.open_output(None, out, job("csv"), False, str(src), stack)  # issue 36
    assert out.read_text() == "old records\n"
    with ExitStack() as stack:
        got = O.open_output(None, out, job("csv"), False, str(src), stack, force=True)
        assert out.read_text() == "" and got.header.startswith("line,id,hand,")
        assert json.loads(sidecar_path(out).read_text())["format"] == "csv"
        got.sink.write("2,a\n")
    assert out.read_text() == "2,a\n"
    out.write_text("")
    with ExitStack() as stack:  # --resume of an empty output: a fresh start
        got = O.open_output(None, out, job("csv"), True, str(src), stack)
        assert (got.resumed_after, got.header[:4]) == (0, "line")
    write_sidecar(out, run_options(job()), str(src))
    out.write_text('{"line":3,"id":null,"hand":"As"}\n{"li')
    with ExitStack() as stack:
        got = O.open_output(None, out, job(), True, str(src), stack)
        assert (got.resumed_after, got.last_record, got.header) == (
            3,
            {"id": None, "hand": "As"},
            "",
        )
        got.sink.write('{"line":4}\n')
    assert out.read_text() == '{"line":3,"id":null,"hand":"As"}\n{"line":4}\n'


def test_open_errors(tmp_path):
    with pytest.raises(BatchError, match="cannot write '.*nowhere/e.jsonl': No such file"):
        O.open_errors(tmp_path / "nowhere" / "e.jsonl", ExitStack())
    assert O.open_errors(None, ExitStack()) is None


def test_write_failures_are_the_machines_fault():
    full = OSError(errno.ENOSPC, "No space left on device")
    assert isinstance(O._open_error("x", full), BatchFailed)
    assert isinstance(O._open_error("x", OSError(errno.EACCES, "Permission denied")), BatchError)
    msg = str(O.write_failed("'out.jsonl'", full, 12, True))
    assert msg == (
        "cannot write 'out.jsonl': No space left on device (the records written are kept, "
        "up to line 12 at least; run again with --resume once it can be written)"
    )
    assert str(O.write_failed("'o'", full, 0, True)) == (
        "cannot write 'o': No space left on device (the records written are kept; run again "
        "with --resume once it can be written)"
    )
    assert str(O.write_failed("to stdout", full, 5, False)) == (
        "cannot write to stdout: No space left on device"
    )


def test_a_missing_input_is_not_a_clash(tmp_path):
    missing = tmp_path / "missing.txt"
    O.check_paths(missing, missing, missing, None)  # open_input says it cannot be read
