"""Starting the real `capsa serve` in a subprocess for the tests (tests/test_web_*.py)."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path


def capsa_command() -> list[str]:
    """The installed `capsa` script beside this Python, else `python -m solver`."""
    script = shutil.which("capsa", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "solver"]


@dataclass
class Served:
    """A running `capsa serve`: its process, its URL and what it has said on stderr."""

    proc: subprocess.Popen
    url: str
    lines: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None

    def stop(self, sig: int = signal.SIGINT, timeout: float = 30) -> tuple[int, str]:
        """Send ``sig``; the exit code and everything said on stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.reader is not None:
            self.reader.join(timeout=10)  # it has read every line once stderr is closed
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        return self.proc.returncode, "".join(self.lines)


def as_shipped() -> dict[str, str]:
    """The tests' environment without ``CAPSA_SERVE_MC``: a server started with it
    solves its Monte Carlo answers in processes of their own, as shipped (tests/conftest.py
    puts them on the worker's threads for every other test)."""
    return {k: v for k, v in os.environ.items() if k != "CAPSA_SERVE_MC"}


def serve(*args: str, timeout: float = 600, env: dict[str, str] | None = None) -> Served:
    """Start `capsa serve --port 0 ARGS` and wait until it says where it listens.

    The wait is long because a fresh machine compiles the numba kernels first. ``env``:
    the server's environment (the test's own by default).
    """
    proc = subprocess.Popen(
        [*capsa_command(), "serve", "--port", "0", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ) if env is None else env,
    )
    said: queue.Queue[str | None] = queue.Queue()
    lines: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            said.put(line)
        said.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = said.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            Served(proc, "", lines, reader).stop(signal.SIGKILL)
            raise RuntimeError(
                f"capsa serve did not start in {timeout} s: {''.join(lines)}"
            ) from None
        if line is None:
            code, said = Served(proc, "", lines, reader).stop()
            raise RuntimeError(f"capsa serve exited {code}: {said}")
        m = re.search(r"serving on (http://\S+/)", line)
        if m:
            return Served(proc, m.group(1), lines, reader)
