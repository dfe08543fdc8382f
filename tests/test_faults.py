"""Faults, the way a user meets them: the real CLI (`python -m solver`) in a subprocess.

Bad duel bots (a hanging one whose child keeps the pipes open, endless writers, Ctrl-C
during a duel), a full stdout, bad UTF-8 on stdin, an unwritable `train -o`, values too
large to work with, usage errors, a bug: each ends in at most one line on stderr and the
documented exit code (README "Exit codes" and "Limits"), never a traceback, a hang or
a process left behind. The subprocess timeouts are liveness checks with a wide margin,
not speed bounds.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import evaluator as ev
import solver
from solver.engine.layout import MAX_DEALS, MAX_SAMPLES, MAX_TIMEOUT, MAX_UNITS
from solver.engine.rules import PRESETS

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
ROOT = Path(__file__).resolve().parent.parent
NOTICES = ("capsa: compiling ", "capsa: building lookup tables")


def capsa(
    *args: str,
    input: bytes | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
    stdout: object = subprocess.PIPE,
) -> subprocess.CompletedProcess:
    """Run `python -m solver ARGS` (bytes in, bytes out)."""
    return subprocess.run(
        [sys.executable, "-m", "solver", *args],
        input=input,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


def one_error_line(res: subprocess.CompletedProcess, code: int, *words: str) -> str:
    """The run's stderr is exactly one `capsa: error: ...` line holding ``words`` (besides
    the first run's notice that numba is compiling)."""
    text = res.stderr.decode("utf-8", errors="replace")
    assert res.returncode == code, (res.returncode, text)
    assert "Traceback" not in text, text
    lines = [ln for ln in text.splitlines() if not ln.startswith(NOTICES)]
    assert len(lines) == 1 and lines[0].startswith("capsa: error: "), text
    for word in words:
        assert word in lines[0], (word, text)
    return lines[0]


def alive(pid: int) -> bool:
    """Whether process ``pid`` is running (a zombie is not)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def kill_if_alive(pid: int) -> None:
    """Clean up a process this test started (by its id), if the code under test did not."""
    if alive(pid):
        os.kill(pid, signal.SIGKILL)


def bot(tmp_path: Path, body: str, name: str = "bot.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


needs_posix = pytest.mark.skipif(os.name != "posix", reason="process groups, /proc")


# ------------------------------------------------------------------ duel bots


def hanging_bot_with_a_child(tmp_path: Path) -> tuple[str, Path]:
    """A bot that starts a child holding its stdout and stderr open, answers one line
    (not a setting), then sleeps; it writes its own pid and the child's to a file."""
    pids = tmp_path / "pids.txt"
    spec = bot(
        tmp_path,
        f"""
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open({str(pids)!r}, "w") as fh:
            fh.write(f"{{os.getpid()}} {{child.pid}}\\n")
        print("2c", flush=True)
        time.sleep(600)
        """,
    )
    return spec, pids


def read_pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()]


DUEL = ["--players", "2", "--deals", "3", "--rules", "per-row", "--seed", "0", "-f", "json"]


@needs_posix
def test_hanging_bot_with_a_lingering_child_is_killed_at_the_timeout(tmp_path):
    """The bot's child keeps the pipes open: capsa must not wait for them to close. The
    duel ends after --timeout, every answer is a foul, and bot and child are gone."""
    spec, pids = hanging_bot_with_a_child(tmp_path)
    started = time.monotonic()
    try:
        res = capsa("duel", spec, "greedy", *DUEL, "--timeout", "2", timeout=90)
    finally:
        for pid in read_pids(pids) if pids.exists() else []:
            kill_if_alive(pid)  # the test's own cleanup, should the code under test fail
    assert res.returncode == 0, res.stderr
    assert time.monotonic() - started < 90
    d = json.loads(res.stdout)
    assert d["fouls"]["a"]["fouls"] == d["fouls"]["a"]["bad_answers"] == 6
    assert d["mean"] == -3.0  # per-row: a fouled hand loses all three rows
    err = res.stderr.decode()
    assert "timed out after 2 s and was killed" in err and "Traceback" not in err
    assert not any(alive(pid) for pid in read_pids(pids))


def child_rss_kib(*args: str, timeout: float = 120) -> tuple[int, int, str]:
    """(exit code, stderr) of `python -m solver ARGS` and the peak resident memory of it
    and its children, in KiB (measured by a wrapper process of its own)."""
    code = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "sys.stderr.write(r.stderr.decode(errors='replace'))\n"
        "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code, sys.executable, "-m", "solver", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    status, rss = res.stdout.split()
    return int(status), int(rss), res.stderr


ENDLESS_LINE = """
    import sys, time
    chunk = "x" * 65536
    while True:  # one line that never ends, about 60 MB/s
        sys.stdout.write(chunk)
        sys.stdout.flush()
        time.sleep(0.001)
"""
ENDLESS_LINES = """
    import sys, time
    chunk = "not a setting\\n" * 4096
    while True:  # lines without end, about 50 MB/s
        sys.stdout.write(chunk)
        sys.stdout.flush()
        time.sleep(0.001)
"""
SORTED_BOT = """
    import sys
    R = "23456789TJQKA"
    for line in sys.stdin:
        c = sorted(line.split(), key=lambda c: R.index(c[0]) * 4 + "cdhs".index(c[1]))
        print(" ".join(c[:3]), "|", " ".join(c[3:8]), "|", " ".join(c[8:]))
"""


@needs_posix
def test_endless_writers_do_not_grow_memory(tmp_path):
    """capsa reads the lines the hands need, each cut at a bound: an endless line is
    read to the timeout in constant memory; endless lines are not read past the last
    hand's. Both runs' answers are fouls with a note; memory stays at a well-behaved
    bot's run."""
    args = ["--players", "2", "--deals", "3", "--rules", "per-row", "--seed", "0"]
    status, base, _ = child_rss_kib("duel", bot(tmp_path, SORTED_BOT, "ok.py"), "greedy", *args)
    assert status == 0
    spec = bot(tmp_path, ENDLESS_LINE, "line.py")
    status, rss, err = child_rss_kib("duel", spec, "greedy", *args, "--timeout", "3")
    assert status == 0 and "Traceback" not in err, err
    assert "timed out after 3 s" in err and "6 of 6 answers missing" in err
    assert rss < base + 40_000, (rss, base)
    spec = bot(tmp_path, ENDLESS_LINES, "lines.py")
    status, rss, err = child_rss_kib("duel", spec, "greedy", *args, "--timeout", "5")
    assert status == 0 and "Traceback" not in err, err
    assert "6 of 6 answers not a setting" in err and "killed" in err
    assert rss < base + 40_000, (rss, base)


@needs_posix
def test_interrupted_duel_kills_the_bot_and_its_child(tmp_path):
    """Ctrl-C (SIGINT to capsa alone: the bot has a session of its own) ends the duel
    with one line and exit 130, and takes the bot's whole process group with it."""
    spec, pids = hanging_bot_with_a_child(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "duel", spec, "greedy", *DUEL, "--timeout", "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60
        while not (pids.exists() and len(read_pids(pids)) == 2):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in read_pids(pids) if pids.exists() else []:
            kill_if_alive(pid)
    assert proc.returncode == 130, err
    lines = [ln for ln in err.decode().splitlines() if not ln.startswith(NOTICES)]
    assert lines == ["capsa: interrupted"]
    time.sleep(0.2)
    assert not any(alive(pid) for pid in read_pids(pids))


# ------------------------------------------------------------------ a full stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["solve", HAND, "--policy", "greedy", "--format", "json"],
        ["solve", HAND, "--policy", "field"],
        ["rank", "As Ks Qs Js Ts", "--format", "json"],
        ["rules"],
        ["rules", "capsa", "--format", "toml"],
        ["duel", "greedy", "greedy", "--deals", "40", "--seed", "1"],
    ],
)
def test_full_stdout_is_one_line_and_exit_1(args):
    with open("/dev/full", "wb") as full:
        res = capsa(*args, stdout=full)
    one_error_line(res, 1, "write failed: No space left on device")


# ------------------------------------------------------------------ bad input


def test_bad_utf8_on_stdin_is_exit_2():
    bad = b"As Ks Qs Js Ts 9h 9d \xff\xfe 9c 2s 3d 4c 5h 7d"
    one_error_line(capsa("solve", "-", input=bad), 2, "stdin is not UTF-8", "offset 21")
    one_error_line(capsa("rules", "-", input=b"name = '\xff'"), 2, "stdin is not UTF-8")
    res = capsa("solve", HAND, "--against", "-", input=b"2c 2d \xff | x")
    one_error_line(res, 2, "--against stdin is not UTF-8")


def test_long_text_without_separators_stops_at_the_first_error():
    """8 MB of 'AsKd...' (quadratic to split before: minutes) fails at once."""
    res = capsa("solve", "-", input=b"AsKd" * 2_000_000, timeout=60)
    one_error_line(res, 2, "duplicate card 'As'")


@pytest.mark.parametrize("where", ["file/x.npz", "."])
def test_train_output_is_checked_before_training(tmp_path, where):
    (tmp_path / "file").write_text("a file, not a folder")
    dest = tmp_path / where
    res = capsa("train", "--rules", "per-row", "--rounds", "1", "--hands", "100", "-o", str(dest))
    one_error_line(res, 2, "cannot write", str(dest))


# ------------------------------------------------------------------ huge values


@pytest.mark.parametrize(
    "args, words",
    [
        (["duel", "greedy", "greedy", "--deals", str(MAX_DEALS + 1)], ["--deals"]),
        (["duel", "greedy", "greedy", "--timeout", "inf"], ["timeout", "inf"]),
        (["duel", "greedy", "greedy", "--timeout", "nan"], ["timeout", "nan"]),
        (["duel", "greedy", "greedy", "--timeout", "1e300"], ["timeout"]),
        (["duel", "greedy", "greedy", "--timeout", str(MAX_TIMEOUT * 2)], ["timeout"]),
        (["duel", "greedy", "greedy", "--timeout", "0"], ["timeout"]),
        (["solve", HAND, "--samples", "100000000000"], ["--samples", f"{MAX_SAMPLES}"]),
        (["strength", "--hands", str(MAX_DEALS + 1)], ["--hands"]),
        (["strength", "--eval-deals", "10000000000"], ["--eval-deals"]),
        (["solve", HAND, "--stakes", "1e400,1,1"], ["stake 1", "1,000,000"]),
    ],
)
def test_values_beyond_the_limits_are_refused_before_any_work(args, words):
    one_error_line(capsa(*args, timeout=60), 2, *words)


@pytest.mark.parametrize(
    "body, key",
    [
        ("[naturals]\ndragon = 1" + "0" * 400, "naturals.dragon"),
        ("[naturals]\ndragon = 1e308", "naturals.dragon"),
        ("surrender_cost = 1e9", "surrender_cost"),
        ("scoop_multiplier = 1e7", "scoop_multiplier"),
        ("[royalties.front]\nthree_of_a_kind = 1e12", "royalties.front.three_of_a_kind"),
    ],
)
def test_payouts_beyond_the_limit_are_refused(tmp_path, body, key):
    """A 400-digit or 1e308 payout used to overflow or print "ev_total": Infinity."""
    path = tmp_path / "big.toml"
    path.write_text(body)
    res = capsa("solve", HAND, "--policy", "greedy", "--rules", str(path), "-f", "json")
    one_error_line(res, 2, key, f"{MAX_UNITS:,}")


DRAGON = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"


@pytest.mark.parametrize("hand", [HAND, DRAGON])
def test_payouts_at_the_limit_give_finite_json(tmp_path, hand):
    """Every payout at MAX_UNITS, settled exactly against a known opponent: finite."""
    path = tmp_path / "top.toml"
    path.write_text(
        f"scoop_multiplier = {MAX_UNITS}\nsurrender_cost = {MAX_UNITS}\n"
        f"[naturals]\ndragon = {MAX_UNITS}\n"
        f"[royalties.back]\nstraight_flush = {MAX_UNITS}\n"
    )
    (tmp_path / "opp.txt").write_text("7c 7s 8c | 2d 2h 3c 3h 6h | Kc Kd Kh 5c 5d\n")
    args = ["--rules", str(path), "--against", str(tmp_path / "opp.txt"), "-f", "json"]
    res = capsa("solve", hand, *args)
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout, parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))
    assert np.isfinite([d["ev"], d["ev_total"], d["ev_play"]]).all()
    assert abs(d["ev"]) >= MAX_UNITS  # the payouts were used


def test_json_is_written_without_nan_or_infinity():
    from solver.cli import emit_json

    for bad in (float("inf"), float("-inf"), float("nan")):
        with pytest.raises(ValueError):
            emit_json({"ev_total": bad})


# ------------------------------------------------------------------ usage errors


@pytest.mark.parametrize(
    "args, words",
    [
        (["solve", HAND, "--bogus"], ["No such option: --bogus", "capsa solve --help"]),
        (["solve"], ["Missing argument"]),
        (["solve", HAND, "--policy", "best"], ["--policy", "'best'"]),
        (["solve", HAND, "--players", "9"], ["--players"]),
        (["solve", HAND, "--format", "yaml"], ["--format"]),
        (["batch", "-", "--workers", "0"], ["--workers"]),
        (["duel", "greedy"], ["Missing argument"]),
        (["rules", "--format", "jsonl"], ["--format"]),
        (["rank", "As Ks Qs", "--seed", "1"], ["No such option"]),
        (["nosuchcommand"], ["No such command"]),
    ],
)
def test_usage_errors_are_one_line(args, words):
    one_error_line(capsa(*args, timeout=60), 2, *words)


# ------------------------------------------------------------------ a bug is not the user's fault

BOOM = (
    "import sys\n"
    "import solver.strategy.solve as search\n"
    "def boom(*a, **k):\n"
    "    raise ValueError('boom')\n"
    "search.solve = boom\n"
    "from solver.cli import main\n"
    f"sys.argv = ['capsa', 'solve', {HAND!r}]\n"
    "main()\n"
)


@pytest.mark.parametrize("debug", [False, True])
def test_a_bug_is_exit_1_not_bad_input(debug):
    """A ValueError that is not CardParseError or InputError is a failure (exit 1), with
    the traceback only under CAPSA_DEBUG=1."""
    env = (
        {**os.environ, "CAPSA_DEBUG": "1"}
        if debug
        else {k: v for k, v in os.environ.items() if k != "CAPSA_DEBUG"}
    )
    res = subprocess.run(
        [sys.executable, "-c", BOOM], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert res.returncode == 1, res.stderr
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("capsa: error: ValueError: boom") and "CAPSA_DEBUG" in last
    assert ("Traceback" in res.stderr) is debug


# ------------------------------------------------------------------ labels and round trips


def test_a_ruleset_file_cannot_pass_for_a_preset(tmp_path):
    path = tmp_path / "capsa.toml"
    path.write_text('base = "capsa"\nscoop_multiplier = 3\n')
    one_error_line(capsa("solve", HAND, "--rules", str(path)), 2, "'capsa' is a preset's")
    path.write_text('base = "capsa"\nname = "friday"\n')  # the preset's rules, its own name
    res = capsa("solve", HAND, "--policy", "greedy", "--rules", str(path), "-f", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["rules"] == "friday"


@pytest.mark.parametrize("name", list(PRESETS))
def test_rules_toml_reads_back(tmp_path, name):
    res = capsa("rules", name, "--format", "toml")
    assert res.returncode == 0, res.stderr
    path = tmp_path / "mine.toml"
    path.write_bytes(res.stdout)
    back = capsa("rules", str(path), "--format", "json")
    assert back.returncode == 0, back.stderr
    assert json.loads(back.stdout) == PRESETS[name].to_dict()


# ------------------------------------------------------------------ public functions and ids


@pytest.mark.parametrize("bad", [300, -1, 0.9, 1.5, 256 + 40])
def test_public_functions_reject_ids_they_used_to_wrap(bad):
    """300 became Kc and 0.9 became 2c in solver.set_hands; now each is an error."""
    hand = list(range(13, 25)) + [bad]
    with pytest.raises(ev.CardParseError):
        solver.set_hands(np.array([hand]), "chinese-1-6", "greedy")
    with pytest.raises(ev.CardParseError):
        solver.set_hand(hand, "chinese-1-6", "greedy")
    with pytest.raises(ev.CardParseError):
        ev.format_cards(hand)
    with pytest.raises(ev.CardParseError):
        ev.evaluate5(np.array([hand[-5:]]))
    with pytest.raises(ev.CardParseError):
        solver.settle(
            (hand[:3], hand[3:8], hand[8:]), ("2c 3c 4c", "5c 6c 7c 8d 9d", "Th Jh Qh Kh Ah")
        )
    with pytest.raises(ValueError):
        solver.settle_natural((bad, 0), None)


def test_set_hands_still_sets_good_hands():
    hands = ev.parse_hand(HAND).reshape(1, 13).astype(np.int64)
    out = solver.set_hands(hands, "chinese-1-6", "greedy")
    assert sorted(out[0].tolist()) == sorted(hands[0].tolist())
    assert [ev.format_cards(r) for r in solver.set_hand(HAND, "chinese-1-6", "greedy")] == [
        ev.format_cards(out[0][:3]),
        ev.format_cards(out[0][3:8]),
        ev.format_cards(out[0][8:]),
    ]


def test_a_warm_solve_says_nothing_on_stderr():
    """Issue 9: every solve used to print a false "compiling ... 1 kernels" notice (a kernel
    only --against compiles). Once the kernels a solve uses are cached, a solve prints
    nothing on stderr, whatever the policy; with --against too."""
    for policy in ("mc", "field", "greedy"):
        capsa("solve", HAND, "--policy", policy, "--samples", "200", "--seed", "1")  # warm
        again = capsa("solve", HAND, "--policy", policy, "--samples", "200", "--seed", "1")
        assert again.returncode == 0 and again.stderr == b"", again.stderr
