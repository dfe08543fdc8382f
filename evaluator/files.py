"""Writing a file whole or not at all: the one helper every layer uses (the evaluator's
table cache, the field tables, every file a command writes).

``atomic_write`` writes through a temporary file in the same folder, renamed over the
target once it is complete: a write that fails (a full disk, a file size limit, an
interruption) leaves the file that was there as it was. A target that is not a regular
file (``/dev/stdout``, a pipe) is written in place; a symbolic link stays a link (the
file it points to is replaced). Standard library only.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_write"]


def atomic_write(
    path: str | os.PathLike[str],
    write: Callable[[IO[Any]], None],
    *,
    binary: bool = False,
    encoding: str = "utf-8",
    newline: str | None = None,
) -> None:
    """Call ``write(stream)`` to make the file at ``path``, whole or not at all.

    The stream is a temporary file beside the target (``.NAME.XXXX.tmp``), renamed over
    it when ``write`` returns and the data is flushed; if anything fails the temporary
    file is removed and the target is as it was. The new file takes the old one's
    permissions (a new file: the usual ones, 0666 less the umask). A target that exists
    and is not a regular file (a device, a pipe) is opened and written in place. Raises
    ``OSError`` as the writes do.
    """
    target = Path(os.path.realpath(path))  # a symbolic link stays a link
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    mode = "wb" if binary else "w"
    kw: dict[str, Any] = {} if binary else {"encoding": encoding, "newline": newline}
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(target, mode, **kw) as fh:
            write(fh)
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **kw) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
