"""Faults, the way a user meets them: the real CLI (`python -m solver`), in a subprocess
where the claim is the process's (bots and their children killed, Ctrl-C, a full stdout,
bytes on stdin, a bug's traceback, a warm process's silence), else in the test's process.

Bad duel bots (a hanging one whose child keeps the pipes open, endless writers, Ctrl-C
during a duel), a full stdout, bad UTF-8 on stdin, an unwritable `train -o`, values too
large to work with, usage errors, a bug: each ends in at most one line on stderr and the
documented exit code (docs/cli.md, "Exit codes" and "Limits"), never a traceback, a hang or
a process left behind. The subprocess timeouts are liveness checks with a wide margin,
not speed bounds.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest

import evaluator as ev
import solver
from solver.engine.layout import MAX_DEALS, MAX_SAMPLES, MAX_TIMEOUT, MAX_UNITS
from solver.engine.rules import PRESETS
from tests import helpers

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
ROOT = Path(__file__).resolve().parent.parent
NOTICES = ("capsa: compiling ", "capsa: building lookup tables")


#: ``python -m solver ARGS``, bytes in, bytes out, from the repository's root.
capsa = partial(helpers.capsa, text=False, timeout=120, cwd=ROOT)
#: The same command in the test's process, where the claim is not the process's: a bad
#: value or usage, a file refused, what is written (the exit code and the one line are
#: the CLI's mapping, the same in both; ``helpers.capsa_in``).
capsa_in = partial(helpers.capsa_in, text=False, timeout=120, cwd=ROOT)


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
        out, err = proc.communicate(timeout=120)  # a loaded machine: seconds, not 30
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()  # its pipes closed too, not left to a later test
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
    """8 MB of 'AsKd...' (quadratic to split before: minutes) fails at once: past the
    bound on stdin (issue 21) unread, and within it at the first duplicate."""
    res = capsa("solve", "-", input=b"AsKd" * 2_000_000, timeout=60)
    one_error_line(res, 2, "stdin is larger than 65,536 bytes")
    res = capsa("solve", "-", input=b"AsKd" * 16_000, timeout=60)
    one_error_line(res, 2, "duplicate card 'As'")


@pytest.mark.parametrize("where", ["file/x.npz", "."])
def test_train_output_is_checked_before_training(tmp_path, where):
    (tmp_path / "file").write_text("a file, not a folder")
    dest = tmp_path / where
    res = capsa_in(
        "train", "--rules", "per-row", "--rounds", "1", "--hands", "100", "-o", str(dest)
    )
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
    one_error_line(capsa_in(*args, timeout=60), 2, *words)


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
    res = capsa_in("solve", HAND, "--policy", "greedy", "--rules", str(path), "-f", "json")
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
    res = capsa_in("solve", hand, *args)
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
    one_error_line(capsa_in(*args, timeout=60), 2, *words)


# ------------------------------------------------------------------ a bug is not the user's fault

BOOM = (
    "import sys\n"
    "import solver.strategy.solving.solve as search\n"
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
    one_error_line(capsa_in("solve", HAND, "--rules", str(path)), 2, "'capsa' is a preset's")
    path.write_text('base = "capsa"\nname = "friday"\n')  # the preset's rules, its own name
    res = capsa_in("solve", HAND, "--policy", "greedy", "--rules", str(path), "-f", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["rules"] == "friday"


@pytest.mark.parametrize("name", list(PRESETS))
def test_rules_toml_reads_back(tmp_path, name):
    res = capsa_in("rules", name, "--format", "toml")
    assert res.returncode == 0, res.stderr
    path = tmp_path / "mine.toml"
    path.write_bytes(res.stdout)
    back = capsa_in("rules", str(path), "--format", "json")
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


# ------------------------------------------------------------------ issue 21: outputs


def results_file(tmp_path: Path, records: list[dict], name: str = "results.jsonl") -> Path:
    """A batch output of ``records`` (see tests/test_report.py's ``record``)."""
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def some_records(n: int = 12) -> list[dict]:
    from tests.test_report import record

    return [record(i, loss=0.1 * (i % 5)) for i in range(1, n + 1)]


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "stdin"])
def test_report_never_writes_over_its_input(tmp_path, how):
    src = results_file(tmp_path, some_records())
    before = src.read_bytes()
    out = src
    if how == "symlink":
        out = tmp_path / "link.json"
        out.symlink_to(src)
    elif how == "hardlink":
        out = tmp_path / "hard.json"
        os.link(src, out)
    if how == "stdin":  # capsa report - -o results.jsonl < results.jsonl
        with src.open("rb") as stdin:
            res = capsa("report", "-", "-o", str(src), "-f", "json", stdin=stdin)
        words = ["is stdin"]
    else:
        res = capsa_in("report", str(src), "-o", str(out), "-f", "json")
        words = [f"'{out}' is the input file '{src}'", "capsa report never writes over its input"]
    one_error_line(res, 2, *words)
    assert src.read_bytes() == before


def test_train_and_batch_never_write_over_their_ruleset(tmp_path):
    rules = tmp_path / "house.toml"
    rules.write_text('base = "per-row"\nname = "house"\n')
    before = rules.read_bytes()
    res = capsa_in("train", "--rules", str(rules), "-o", str(rules), "--rounds", "1",
                   "--hands", "100")  # fmt: skip
    one_error_line(res, 2, "the ruleset file", "capsa train never writes over its input")
    hands = tmp_path / "hands.txt"
    hands.write_text(HAND + "\n")
    res = capsa_in(
        "batch", str(hands), "-o", str(rules), "--rules", str(rules), "--policy", "field"
    )
    one_error_line(res, 2, "the ruleset file", "capsa batch never writes over its input")
    assert rules.read_bytes() == before


def _small_file_size_limit() -> None:
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4_000, 4_000))


def test_a_failed_report_write_leaves_the_output_as_it_was(tmp_path):
    src = results_file(tmp_path, some_records(200))
    out = tmp_path / "report.json"
    # an earlier report (capsa replaces only a report it wrote: issue 51)
    assert capsa_in("report", str(src), "-o", str(out), "--top", "0").returncode == 0
    earlier = out.read_text()
    res = subprocess.run(
        [sys.executable, "-m", "solver", "report", str(src), "-o", str(out), "--top", "200"],
        capture_output=True, cwd=ROOT, timeout=120, preexec_fn=_small_file_size_limit,
    )  # fmt: skip
    one_error_line(res, 1, f"cannot write '{out}'", "File too large", "left as it was")
    assert out.read_text() == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "results.jsonl"]
    ok = capsa_in("report", str(src), "-o", str(out), "--top", "200")  # no limit: it is written
    assert ok.returncode == 0, ok.stderr
    assert json.loads(out.read_text())["played"] == 200


def test_report_shows_rows_that_are_not_cards_as_text(tmp_path):
    """A crafted record whose rows are not cards (words, Rich markup, an escape) is shown
    as its text in the costliest hands, escaped, never a crash ("this is a bug")."""
    recs = some_records(3)
    recs[0]["front"] = "xx [red]yy[/] Zz"
    recs[0]["played"]["middle"] = "Qc \x1b[31mJd"
    recs[0]["played"]["loss"] = 5.0
    res = capsa_in("report", str(results_file(tmp_path, recs)), "--top", "3")
    out = res.stdout.decode()
    assert res.returncode == 0, res.stderr.decode()
    assert "xx [red]yy[/] Zz" in out and "\\x1b[31mJd" in out and "\x1b" not in out


# ------------------------------------------------------------------ issue 21: bounded reads


def _memory_limit() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # today's code: MemoryError


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_report_of_an_endless_line_is_refused_at_once():
    res = subprocess.run(
        [sys.executable, "-m", "solver", "report", "/dev/zero"],
        capture_output=True, cwd=ROOT, timeout=120, preexec_fn=_memory_limit,
    )  # fmt: skip
    one_error_line(res, 2, "/dev/zero is not a capsa batch output", "longer than 65,536 bytes")


def test_solve_reads_a_bounded_hand_from_stdin():
    res = capsa("solve", "-", input=b" " * 1_000_000 + HAND.encode())
    one_error_line(res, 2, "stdin is larger than 65,536 bytes", "a hand is 13 cards")


def test_a_ruleset_file_is_read_within_bounds(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text('base = "per-row"\n' + "# a comment\n" * 100_000)
    one_error_line(capsa_in("rules", str(big)), 2, f"ruleset file '{big}' is larger than 16,384")
    one_error_line(capsa("rules", "-", input=big.read_bytes()), 2, "stdin is larger than 16,384")
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 3000 + "]" * 3000 + "\n")
    one_error_line(capsa_in("rules", str(deep)), 2, "deep.toml", "nested more than 4 deep")
    keys = tmp_path / "keys.toml"
    keys.write_text("".join(f"k{i} = {i}\n" for i in range(1000)))
    one_error_line(capsa_in("rules", str(keys)), 2, "keys.toml", "more than 256 keys")


def test_against_is_read_within_bounds_and_quoted_short(tmp_path):
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"x" * 20_000_000)
    line = one_error_line(capsa_in("solve", HAND, "--against", str(huge)), 2, "larger than 65,536")
    assert len(line) < 200
    bad = tmp_path / "bad.txt"
    bad.write_text("y" * 10_000 + "\n")
    line = one_error_line(capsa_in("solve", HAND, "--against", str(bad)), 2, "opponent 1", "…")
    assert len(line) < 200, line


# ------------------------------------------------------------------ issue 21: no wrong answer


def test_report_refuses_records_it_cannot_sum(tmp_path):
    from tests.test_report import record

    recs = [record(i, loss=0.5) for i in range(1, 6)]
    recs[1]["id"] = "\ud800"  # a lone surrogate: JSON, but not text
    recs[2]["played"]["loss"] = 1e308
    recs[3]["played"]["loss"] = 1e308
    recs[4]["ev"] = -1e308
    src = tmp_path / "results.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in recs))  # ensure_ascii: "\ud800"
    for fmt in ("json", "table"):
        res = capsa_in("report", str(src), "-f", fmt)
        text = res.stderr.decode()
        assert res.returncode == 1 and "bug in capsa" not in text and "Traceback" not in text
        assert text.count("capsa: line ") == 4, text
        assert "line 2: not text: holds a lone surrogate (\\ud800)" in text
        assert "line 3: 'played.loss' is out of range" in text
        if fmt == "json":
            d = json.loads(res.stdout)
            assert d["played"] == 1 and d["bad_lines"] == 4 and d["loss"]["total"] == 0.5


def test_stakes_are_bounded_below_and_equal_stakes_change_nothing():
    one_error_line(
        capsa_in("solve", HAND, "--stakes", "5e-324,1,1"), 2, "stake 1 must be from 1e-06"
    )
    one_error_line(capsa_in("solve", HAND, "--stakes", "1,0.0000009,1"), 2, "stake 2 must be from")
    # a hand whose best setting a staked sum in floating point (3a + 3b + 3c) used to move
    hand = "3h 4s 5c 8h 8s 9c Tc Td Qh Qs Ks Ad As"
    args = ["solve", hand, "--samples", "200", "--seed", "1", "--top", "2", "-f", "json"]
    plain = json.loads(capsa_in(*args).stdout)
    for stakes in ("3,3,3", "0.1,0.1,0.1", "1e-06,1e-06,1e-06", "1000000,1000000,1000000"):
        res = capsa_in(*args, "--stakes", stakes)
        assert res.returncode == 0, res.stderr
        d = json.loads(res.stdout)
        s = float(stakes.split(",")[0])
        assert [d[r] for r in ("front", "middle", "back", "action")] == [
            plain[r] for r in ("front", "middle", "back", "action")
        ], stakes
        assert d["ev"] == plain["ev"] and d["stakes"] == [s] * 3
        # the money is the units scaled (the plain answer's units are rounded to 1e-6)
        assert d["ev_staked"] == pytest.approx(s * plain["ev_total"], abs=3e-6 * s + 1e-6)
        for a, b in zip(d["alternatives"], plain["alternatives"], strict=True):
            assert a["front"] == b["front"] and a["ev"] == b["ev"]
            assert a["ev_staked"] == pytest.approx(3 * s * b["ev"], abs=3e-6 * s + 1e-6)


@pytest.mark.parametrize("policy", ["mc", "field", "greedy", "against"])
def test_equal_stakes_never_change_the_setting(policy):
    """In process, over random hands: with every stake the same (from the smallest to the
    largest allowed), the setting and the action are those chosen without stakes."""
    from solver.engine.options import MAX_UNITS as most
    from solver.engine.options import MIN_STAKE
    from solver.strategy.hands.deal import random_hands

    rng = np.random.default_rng(21)
    hands = random_hands(rng, 40 if policy == "mc" else 150)
    kw: dict = {"policy": policy, "top": 1}
    if policy == "mc":
        kw.update(samples=30, seed=2)  # few deals: many settings of (nearly) equal value
    for h in hands:
        text = ev.format_cards(h)
        if policy == "against":  # three opponents set from the other cards, as dealt
            rest = np.setdiff1d(np.arange(52), h)[rng.permutation(39)]
            rows = ((0, 3), (3, 8), (8, 13))
            kw = {"top": 1, "against": [
                " | ".join(ev.format_cards(rest[13 * k + a : 13 * k + b]) for a, b in rows)
                for k in range(3)
            ]}  # fmt: skip
        plain = solver.solve(text, **kw)
        for s in (MIN_STAKE, 0.1, 0.7, 3.0, most):
            got = solver.solve(text, stakes=[s, s, s], **kw)
            assert (got.setting, got.action) == (plain.setting, plain.action), (text, s)


def test_train_refuses_a_bad_seed_or_tolerance_before_training(tmp_path):
    out = str(tmp_path / "t.npz")
    base = ["train", "--rules", "per-row", "--rounds", "1", "--hands", "100", "-o", out]
    one_error_line(capsa_in(*base, "--seed", "-1"), 2, "--seed must be from 0")
    for tol in ("nan", "-1", "0", "inf"):
        one_error_line(capsa_in(*base, "--tol", tol), 2, "--tol must be a number above 0")
    assert not os.path.exists(out)


def test_no_negative_zero_in_tables_or_json():
    """Rates whose value rounds to zero from below used to print -0.0% and -0.0."""
    hand = "3d 5d 5h 6c 7s 8c Td Th Jh Qh Kc Kh Ah"
    played = "Kc Td 7s | 8c 6c 5h 5d 3d | Ah Kh Qh Jh Th"
    for policy in ("field", "greedy"):
        table = capsa_in("solve", hand, "--policy", policy, "--played", played)
        assert table.returncode == 0, table.stderr
        assert "-0.0%" not in table.stdout.decode(), table.stdout.decode()
        res = capsa_in("solve", hand, "--policy", policy, "--played", played, "-f", "json")
        text = res.stdout.decode()
        assert not re.search(r"(?<![0-9.])-0\.0(?![0-9])", text), text


# ------------------------------------------------------------------ issue 21: terminal text


def test_ids_and_names_reach_the_terminal_as_text(tmp_path):
    from tests.test_report import record

    link = "[link=https://evil.example]click[/link]"
    recs = [record(1, loss=2.0), record(2, loss=1.5), record(3, loss=0.0)]
    recs[0]["id"] = link
    recs[1]["id"] = "x\x1b[2Jy"
    recs[1]["rules"] = "[bold]house[/bold]"
    results_file(tmp_path, recs, "[red]results.jsonl")
    res = capsa_in("report", "[red]results.jsonl", cwd=tmp_path, env={"COLUMNS": "200"})
    out = res.stdout.decode()
    assert res.returncode == 0, res.stderr
    assert link in out and "x\\x1b[2Jy" in out and "\x1b" not in out, out
    assert "[bold]house[/bold]" in out and "[red]results.jsonl" in out
    # error lines: the file name as given, its escape sequence visible
    res = capsa_in("solve", HAND, "--rules", "evil\x1b[2J.toml")
    line = one_error_line(res, 2, "evil\\x1b[2J.toml")
    assert "\x1b" not in res.stderr.decode()
    # a ruleset's name in the solve table
    toml = tmp_path / "named.toml"
    # (no / in it: a ruleset's name is never a path, issue 51)
    toml.write_text('base = "per-row"\nname = "[link=https:evil.example]n[bold red]\\u001b[31m"\n')
    res = capsa_in(
        "solve", HAND, "--policy", "greedy", "--rules", str(toml), env={"COLUMNS": "200"}
    )
    out = res.stdout.decode()
    assert res.returncode == 0, res.stderr
    assert "[link=https:evil.example]n[bold red]\\x1b[31m" in out and "\x1b" not in out, out
    assert line
