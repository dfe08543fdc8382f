"""The files a command writes: never one it reads, and whole or not at all.

- ``file_key``/``stream_key`` name a file by device and inode (a symbolic or hard link
  to a file is that file), and ``check_outputs`` refuses (``InputError``, one line naming
  both) a command whose output is one of its inputs, or two of its outputs that are one
  file. ``capsa batch``, ``capsa report`` and ``capsa train`` check their outputs this
  way before they read or compute anything.
- ``check_replace`` refuses (``InputError``, one line) to replace a file the command
  did not write: a file already at an output path is replaced only when it is empty,
  not a regular file, or one capsa wrote of the same kind (field tables over field
  tables, a report over a report: the recognisers ``field_tables_file``,
  ``model_file``, ``report_file``, ``errors_file``, ``run_file``), else with
  ``--force``. ``capsa batch``'s -o keeps its own rule (a file holding records is
  refused: ``--resume`` or ``--force``).
- ``atomic_write`` writes a file through a temporary file in the same folder, renamed
  over it once it is complete: a write that fails (a full disk, a file size limit, an
  interruption) leaves the file that was there as it was. An output that is not a
  regular file (``/dev/stdout``, a pipe) is written in place; a symbolic link stays a
  link (the file it points to is replaced).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from evaluator.files import atomic_write
from solver.engine.errors import InputError

__all__ = [
    "Key",
    "atomic_write",
    "check_outputs",
    "check_replace",
    "errors_file",
    "field_tables_file",
    "model_file",
    "report_file",
    "run_file",
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


# --------------------------------------------------------------------------------------
# Replacing a file


def check_replace(
    path: str | os.PathLike[str] | None,
    ours: Callable[[Path], bool],
    what: str,
    force: bool,
    *,
    error: type[InputError] = InputError,
) -> None:
    """Refuse (``error``, one line) to replace the file at ``path`` unless it is not
    there, empty, not a regular file (``/dev/stdout``, a pipe), one capsa wrote of this
    kind (``ours(path)``: ``what`` names the kind in the message), or ``force``."""
    if path is None or force:
        return
    try:
        st = os.stat(path)
    except OSError:
        return  # not there (or not reachable: the write says why)
    if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
        return
    try:
        mine = ours(Path(path))
    except Exception:  # noqa: BLE001 - whatever fails to read as ours is not ours
        mine = False
    if not mine:
        raise error(
            f"'{path}' is already there and is not {what} capsa wrote: "
            "--force replaces it (or give another file)"
        )


#: How much of a file the recognisers read, at most (a report's JSON, a line of JSON).
_MOST = 64 * 1024 * 1024


def _npz_meta(path: Path) -> dict[str, Any] | None:
    """The metadata of a table file capsa wrote (``save_field``: a zip of .npy arrays
    with ``meta`` and ``dist``), or None."""
    if not zipfile.is_zipfile(path):
        return None
    import numpy as np

    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        if not {"meta.npy", "dist.npy"} <= names or z.getinfo("meta.npy").file_size > _MOST:
            return None
    with np.load(path, allow_pickle=False) as arrays:
        meta = json.loads(str(arrays["meta"]))
    return meta if isinstance(meta, dict) else None


def field_tables_file(path: Path) -> bool:
    """Whether ``path`` holds field tables (``capsa train`` wrote them)."""
    from solver.strategy.opposition.opponents import MODEL_KIND

    meta = _npz_meta(path)
    return meta is not None and "play_digest" in meta and meta.get("kind") != MODEL_KIND


def model_file(path: Path) -> bool:
    """Whether ``path`` holds an opponent model (``capsa train --from`` wrote it)."""
    from solver.strategy.opposition.opponents import MODEL_KIND

    meta = _npz_meta(path)
    return meta is not None and meta.get("kind") == MODEL_KIND


#: What ``capsa report -o`` writes, each format known by its start: the page (its
#: generator line), the JSON (these keys), the table (its title).
_REPORT_PAGE = '<meta name="generator" content="capsa report">'
_REPORT_KEYS = {"source", "format", "hands", "played", "bad_lines", "setups"}


def report_file(path: Path) -> bool:
    """Whether ``path`` holds a report ``capsa report -o`` wrote, in any format."""
    with open(path, "rb") as fh:
        head = fh.read(4096).decode("utf-8", "replace")
    if _REPORT_PAGE in head:
        return True
    if head.lstrip().startswith("{") and os.path.getsize(path) <= _MOST:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return isinstance(data, dict) and _REPORT_KEYS <= data.keys()
    first = next((line for line in head.splitlines() if line.strip()), "")
    return "capsa report" in first


def _first_json_line(path: Path) -> Any:
    with open(path, "rb") as fh:
        line = fh.readline(_MOST)
    return json.loads(line.decode("utf-8"))


def errors_file(path: Path) -> bool:
    """Whether ``path`` holds the bad lines ``capsa batch --errors`` wrote (JSON lines
    ``{"line", "id", "reason", "text"}``)."""
    first = _first_json_line(path)
    return isinstance(first, dict) and {"line", "reason"} <= first.keys()


def run_file(path: Path) -> bool:
    """Whether ``path`` holds a batch run file (the options of the run writing -o)."""
    if os.path.getsize(path) > _MOST:
        return False
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return isinstance(data, dict) and "run" in data and "input" in data
