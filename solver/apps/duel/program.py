"""An external program as a strategy (``cmd:PROGRAM``): its protocol, its process
group, and the bounded reading of its answers (see the package docstring)."""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import time

import numpy as np

from solver.apps.duel.base import BAD, DuelError, Strategy, check_timeout
from solver.engine.compiled import CompiledRules

__all__ = ["EXIT_GRACE", "LINE_MAX", "STDERR_TAIL", "command", "parse_setting"]

#: Bytes of one answer line kept (a setting is about 45; the rest of a longer line is
#: dropped, and the line is then no setting).
LINE_MAX = 1024
#: Bytes of the program's standard error kept (the end of it, for the notes).
STDERR_TAIL = 4096
#: Seconds a program may take to exit after its last answer before it is killed.
EXIT_GRACE = 2.0


def parse_setting(line: str, hand: np.ndarray, extra_suits: str = "") -> np.ndarray | None:
    """``front | middle | back`` -> uint8[13] (front 3, middle 5, back 5), or None when
    the line is not a setting of ``hand`` (rows of the wrong size, bad or foreign cards).
    ``extra_suits``: the deck's (a card of an added suit written twice where the hand
    holds both copies); ``hand`` and the setting are then faces."""
    from solver.engine.settlement import parse_setting

    if "|" not in line:
        return None
    try:
        flat = parse_setting(line, "setting", extra_suits)
    except ValueError:
        return None
    if not np.array_equal(np.sort(flat), np.sort(hand)):
        return None
    return flat


class _Output:
    """The first ``n`` lines of a stream fed in chunks; a line longer than ``LINE_MAX``
    bytes is kept as ``None`` (not a setting), so memory stays at ``n * LINE_MAX``."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.lines: list[bytes | None] = []
        self.partial = bytearray()
        self.long = False  # the line being read is longer than LINE_MAX
        self.cut = 0  # lines longer than LINE_MAX
        self.extra = False  # output beyond the n-th line was seen

    @property
    def full(self) -> bool:
        return len(self.lines) >= self.n

    def feed(self, chunk: bytes) -> None:
        start = 0
        while start < len(chunk):
            if self.full:
                self.extra = True
                return
            nl = chunk.find(b"\n", start)
            stop = len(chunk) if nl < 0 else nl
            take = min(stop - start, LINE_MAX - len(self.partial))
            self.partial += chunk[start : start + take]
            self.long = self.long or take < stop - start
            if nl < 0:
                return
            self._end_line()
            start = nl + 1

    def close(self) -> None:
        """The stream has ended: a last line without its newline counts too."""
        if (self.partial or self.long) and not self.full:
            self._end_line()

    def _end_line(self) -> None:
        self.lines.append(None if self.long else bytes(self.partial))
        self.cut += self.long
        self.partial.clear()
        self.long = False


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the program's whole process group (its session), then reap it."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _exchange(
    proc: subprocess.Popen, data: bytes, n: int, limit: float
) -> tuple[_Output, bytes, bool, bool]:
    """Write ``data`` to the program and read its first ``n`` lines within ``limit``
    seconds: (output, the end of its stderr, timed out, still running after its output
    ended). One thread, one ``select`` loop, no wait on a pipe's end. The program's group
    is always killed before this returns (also on KeyboardInterrupt)."""
    out = _Output(n)
    err = bytearray()
    deadline = time.monotonic() + limit
    timed_out = lingered = False
    sel = selectors.DefaultSelector()
    pos = 0
    try:
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            os.set_blocking(pipe.fileno(), False)
        if data:
            sel.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        reading = True
        while reading and not out.full:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                pipe = key.fileobj
                if pipe is proc.stdin:
                    try:
                        pos += os.write(proc.stdin.fileno(), data[pos : pos + 65536])
                    except BlockingIOError:
                        continue
                    except OSError:  # the program closed its stdin, or exited
                        pos = len(data)
                    if pos >= len(data):
                        sel.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                try:
                    chunk = os.read(pipe.fileno(), 65536)
                except BlockingIOError:
                    continue
                if pipe is proc.stdout:
                    if chunk:
                        out.feed(chunk)
                    else:
                        reading = False
                        out.close()
                        sel.unregister(proc.stdout)
                elif chunk:
                    err += chunk
                    del err[:-STDERR_TAIL]
                else:
                    sel.unregister(proc.stderr)
        if not timed_out:  # every answer is in, or the output ended: let it exit
            try:
                proc.wait(min(EXIT_GRACE, max(0.0, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                lingered = True
    finally:
        sel.close()
        _kill_group(proc)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            try:
                pipe.close()
            except OSError:
                pass
    return out, bytes(err), timed_out, lingered


def command(program: str, timeout: float | None, players: int) -> Strategy:
    """The strategy ``cmd:PROGRAM``: ``program`` run once a call, a hand a line in, a
    setting a line out; what went wrong goes to its ``notes``."""
    try:
        argv = shlex.split(program)
    except ValueError as exc:
        raise DuelError(f"cmd:{program}: {exc}") from None
    if not argv:
        raise DuelError("cmd: needs a program, e.g. cmd:'python bot.py'")
    if os.name != "posix":
        raise DuelError("cmd: strategies need a POSIX system (process groups, select on pipes)")
    timeout = check_timeout(timeout)
    strategy = Strategy(f"cmd:{program}", lambda h, r, s: h)

    def set_hands(hands: np.ndarray, cr: CompiledRules, seed: int) -> np.ndarray:
        from evaluator import format_cards

        n = len(hands)
        extra = cr.rules.deck_code  # hands are faces: a copy held twice is written twice
        data = "".join(format_cards(h) + "\n" for h in hands).encode()
        limit = timeout if timeout is not None else 60.0 + 0.01 * n
        env = {
            **os.environ,
            "CAPSA_RULES": cr.rules.name,
            "CAPSA_PLAYERS": str(players),
            "CAPSA_JOKERS": str(cr.rules.jokers),
            "CAPSA_SEED": str(seed),
        }
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,  # a process group of its own, killed whole
            )
        except OSError as exc:
            raise DuelError(f"cannot run {program!r}: {exc.strerror or exc}") from None
        output, stderr, timed_out, lingered = _exchange(proc, data, n, limit)
        lines = [b.decode("utf-8", errors="replace") if b is not None else "" for b in output.lines]
        out = np.full((n, 13), BAD, np.uint8)
        bad = 0
        for i in range(n):
            flat = parse_setting(lines[i], hands[i], extra) if i < len(lines) else None
            if flat is None:
                bad += i < len(lines)
            else:
                out[i] = flat
        missing = max(0, n - len(lines))
        who = strategy.name
        status = proc.returncode
        if timed_out:
            strategy.notes.append(f"{who}: timed out after {limit:g} s and was killed")
        elif lingered:
            strategy.notes.append(
                f"{who}: still running {EXIT_GRACE:g} s after its output ended; killed"
            )
        elif status:
            strategy.notes.append(f"{who}: exited with status {status}")
        if missing:
            strategy.notes.append(f"{who}: {missing} of {n} answers missing (scored as fouls)")
        if bad:
            strategy.notes.append(f"{who}: {bad} of {n} answers not a setting of the hand")
        if output.cut:
            strategy.notes.append(
                f"{who}: {output.cut} lines longer than {LINE_MAX} bytes (cut; not settings)"
            )
        if output.extra:
            strategy.notes.append(f"{who}: wrote more than {n} lines; the rest was not read")
        last = stderr.decode("utf-8", errors="replace").strip().splitlines()
        if (timed_out or status or missing or bad) and last:
            strategy.notes.append(f"{who} stderr: {last[-1][:200]}")
        return out

    strategy.set_hands = set_hands
    return strategy
