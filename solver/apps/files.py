"""The files a command writes: never one it reads, and whole or not at all.

- ``file_key``/``stream_key`` name a file by device and inode (a symbolic or hard link
  to a file is that file), and ``check_outputs`` refuses (``InputError``, one line naming
  both) a command whose output is one of its inputs, or two of its outputs that are one
  file. ``capsa batch``, ``capsa report`` and ``capsa train`` check their outputs this
  way before they read or compute anything.
- ``atomic_write`` writes a file through a temporary file in the same folder, renamed
  over it once it is complete: a write that fails (a full disk, a file size limit, an
  interruption) leaves the file that was there as it was. An output that is not a
  regular file (``/dev/stdout``, a pipe) is written in place; a symbolic link stays a
  link (the file it points to is replaced).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence
from typing import Any

from evaluator.files import atomic_write
from solver.engine.errors import InputError

__all__ = [
    "Key",
    "atomic_write",
    "check_outputs",
    "file_key",
    "reads",
    "stream_key",
    "writes",
]

#: What a file is, for the same-file checks: ``("file", device, inode)`` for a regular
#: file, ``("new", real path)`` for a file not made yet, None for anything else.
Key = tuple[Any, ...] | None


def _stat_key(st: os.stat_result) -> Key:
    # Only regular files can be overwritten by mistake; /dev/null or a terminal as both
    # input and output is fine.
    return ("file", st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def file_key(path: str | os.PathLike[str], *, new: bool = True) -> Key:
    """The key of the file at ``path`` (through any links). A path that does not exist
    yet is keyed by its real path when ``new`` (two new outputs clash when they resolve
    alike), else None."""
    try:
        return _stat_key(os.stat(path))
    except OSError:
        return ("new", os.path.realpath(path)) if new else None


def stream_key(stream: Any) -> Key:
    """The key of an open stream's file (None for a pipe, a terminal, a non-file)."""
    try:
        return _stat_key(os.fstat(stream.fileno()))
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None


def reads(source: str | os.PathLike[str], what: str = "the input file") -> tuple[str, Key]:
    """An input for ``check_outputs``: a path, or ``"-"`` for stdin."""
    if str(source) == "-":
        return "stdin", stream_key(sys.stdin)
    return f"{what} '{source}'", file_key(source, new=False)


def writes(path: str | os.PathLike[str] | None, what: str = "the output") -> tuple[str, Key]:
    """An output for ``check_outputs``: a path, or None for stdout."""
    if path is None:
        return "stdout", stream_key(sys.stdout)
    return f"{what} '{path}'", file_key(path)


def check_outputs(
    inputs: Sequence[tuple[str, Key]],
    outputs: Sequence[tuple[str, Key]],
    command: str,
    *,
    error: type[InputError] = InputError,
) -> None:
    """Refuse (``error``, an ``InputError``) outputs that are one of the inputs, or one
    another.

    Each entry is ``(name for the message, key)``; e.g. ``("the output 'a.json'",
    file_key("a.json"))``. The message names both files: ``the output 'x' is the input
    file 'x': capsa report never writes over its input``.
    """
    for i, (name, key) in enumerate(outputs):
        if key is None:
            continue
        for other, other_key in inputs:
            if key == other_key:
                raise error(f"{name} is {other}: {command} never writes over its input")
        for other, other_key in outputs[:i]:
            if key == other_key:
                raise error(f"{name} and {other} are the same file")
