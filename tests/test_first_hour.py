"""What a newcomer meets in the first hour (issue 36), the way they meet it: the real
``capsa`` in a subprocess, its stderr a pipe.

- help texts are whole sentences at any width;
- long work says how it goes in a pipe (a plain line every few seconds);
- rates and durations are written for what they are (``0.3 hands/s``, never ``0``);
- ``batch -o X`` over an output that holds records refuses in one line;
- a Monte Carlo batch that would run much faster with a pool says so, with the command;
- the tests keep out of the user's cache and config (tests/conftest.py), and Ctrl-C
  reaches what they start even in a run started with it ignored.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from solver.cli.commands import COMMANDS
from solver.cli.output import duration, rate
from tests import conftest, helpers

HANDS = [
    "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d",
    "2c 3c 4c 5c 6c 7d 8d 9d Th Jh Qs Ks Ad",
    "Ah Ad Kc Kd Qh Qs 2c 3d 4h 5s 7c 8d 9h",
]


def capsa(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess:
    """``helpers.capsa`` in UTF-8 mode, the keywords its environment."""
    return helpers.capsa(*args, cwd=cwd, env={"PYTHONUTF8": "1", **env}, timeout=600)


def _paragraphs(doc: str) -> list[str]:
    return [" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n") if p.strip()]


def _lines(help_text: str) -> list[str]:
    """The help's lines, without the boxes' sides and padding."""
    return [" ".join(line.strip(" │").split()) for line in help_text.splitlines()]


@pytest.mark.parametrize("name", [name for name, _ in COMMANDS])
def test_a_commands_help_breaks_no_sentence(name):
    """On a terminal wide enough, every paragraph of the help is one line: a line break
    the source file's width put in the middle of a sentence does not stay."""
    doc = dict(COMMANDS)[name].__doc__
    run = capsa(name, "--help", COLUMNS="400")
    assert run.returncode == 0, run.stderr
    lines = _lines(run.stdout)
    for paragraph in _paragraphs(doc):
        assert paragraph in lines, f"capsa {name} --help breaks: {paragraph!r}"


def test_the_command_list_breaks_no_sentence():
    lines = _lines(capsa("--help", COLUMNS="400").stdout)
    for name, command in COMMANDS:
        first = _paragraphs(command.__doc__)[0]
        assert f"{name} {first}" in lines, f"capsa --help breaks {name}'s: {first!r}"


@pytest.mark.parametrize(
    ("n", "seconds", "text"),
    [(20, 66.8, "0.3 hands/s"), (200, 113, "1.77 hands/s"), (3000, 2.5, "1,200 hands/s"),
     (1, 900, "0.0011 hands/s"), (0, 3, "0 hands/s")],
)  # fmt: skip
def test_rates_are_written_for_what_they_are(n, seconds, text):
    assert rate(n, seconds, "hands") == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.42, "0.4 s"), (12.4, "12 s"), (475, "7 min 55 s"), (3725, "1 h 02 min")],
)
def test_durations_are_written_for_what_they_are(seconds, text):
    assert duration(seconds) == text


@pytest.fixture
def hands_file(tmp_path):
    path = tmp_path / "hands.txt"
    path.write_text("".join(f"h{i}: {h}\n" for i, h in enumerate(HANDS * 4)), encoding="utf-8")
    return path


def test_a_batch_in_a_pipe_says_how_it_goes(hands_file, tmp_path):
    """stderr is a pipe: progress lines all the same (here one at every chance, with
    ``CAPSA_PROGRESS_SECONDS=0``), then the closing line with an honest rate."""
    run = capsa("batch", str(hands_file), "-o", str(tmp_path / "out.jsonl"), "--policy",
                "field", "--chunk-size", "2", "--workers", "1",
                CAPSA_PROGRESS_SECONDS="0")  # fmt: skip
    assert run.returncode == 0, run.stderr
    progress = [line for line in run.stderr.splitlines() if line.startswith("capsa: lines: ")]
    assert progress, run.stderr
    assert any("/12, " in line and " hands/s, " in line for line in progress), progress
    last = run.stderr.splitlines()[-1]
    assert last.startswith("capsa: 12 hands, 0 bad lines, ") and " 0 hands/s" not in last


def test_a_batch_over_a_finished_output_refuses(hands_file, tmp_path):
    out = tmp_path / "out.jsonl"
    first = capsa("batch", str(hands_file), "-o", str(out), "--policy", "field")
    assert first.returncode == 0, first.stderr
    written = out.read_bytes()
    again = capsa("batch", str(hands_file), "-o", str(out), "--policy", "field")
    assert again.returncode == 2
    assert again.stderr.count("\n") == 1, again.stderr
    assert "already holds records" in again.stderr
    assert "--resume continues it, --force starts again" in again.stderr
    assert out.read_bytes() == written
    forced = capsa("batch", str(hands_file), "-o", str(out), "--policy", "field", "--force")
    assert forced.returncode == 0, forced.stderr
    assert out.read_bytes() == written
    resumed = capsa("batch", str(hands_file), "-o", str(out), "--policy", "field", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert out.read_bytes() == written


def test_an_mc_batch_without_a_pool_says_what_one_gains(tmp_path):
    """Too short to pay for a pool, long enough to take a while: one line with the
    command. Checked on the plan alone (no hand is solved)."""
    import logging

    from solver.apps.batch.pooling import HINT_SAMPLES, plan_pool
    from solver.engine.rules import load_rules

    rules = load_rules("chinese-1-6")
    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())
    log = logging.getLogger("capsa")
    log.addHandler(handler)
    level = log.level
    log.setLevel(logging.INFO)
    try:
        lines = HINT_SAMPLES // 3000
        assert plan_pool(rules, "mc", 4, 3000, None, lines, None) is None
        assert plan_pool(rules, "mc", 4, 3000, None, lines - 1, None) is None
        assert plan_pool(rules, "mc", 4, 3000, False, lines, None) is None
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    hints = [r for r in records if "opponent pool" in r]
    assert len(hints) == 1, records
    assert "'capsa pool --rules chinese-1-6'" in hints[0]


def test_the_tests_keep_out_of_the_users_folders(tmp_path):
    """A command the tests start caches its tables, field tables, pools and kernels in
    the run's own folders, none of them in the user's."""
    code = (
        "import json, evaluator.tables as t, evaluator._jit as j,"
        " solver.strategy.opposition.pool as p;"
        "print(json.dumps([str(t.cache_dir()), str(p.pool_dir()), str(j.cache_dir())]))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    used = json.loads(run.stdout)
    guarded = json.loads(os.environ["CAPSA_TESTS_GUARDED"])
    assert guarded
    for folder in used:
        for own in guarded:
            assert not Path(folder).resolve().is_relative_to(Path(own).resolve()), folder


def test_the_users_kernels_of_this_checkout_seed_the_tests_folder(tmp_path):
    """``conftest.seed_kernels``: the kernels the user's capsa compiled from this
    checkout's sources (and the markers of compiled groups) are copied into the tests'
    kernel folder; another checkout's kernels, the user's other files and a file the
    tests' folder has already are not; the user's folder is not written."""
    import hashlib

    root = tmp_path / "checkout"
    (root / "solver" / "engine").mkdir(parents=True)
    (root / "evaluator").mkdir()

    def cache_name(folder: Path) -> str:  # numba's name for a source folder's cache
        return f"{folder.name}_{hashlib.sha1(str(folder).encode()).hexdigest()}"  # noqa: S324

    user, tests = tmp_path / "user", tmp_path / "tests"
    version = user / "capsa-kernels-0123456789abcdef"
    mine = version / cache_name(root / "solver" / "engine")
    ev = version / cache_name(root / "evaluator")
    other = version / cache_name(tmp_path / "elsewhere" / "solver" / "engine")
    for folder in (mine, ev, other):
        folder.mkdir(parents=True)
        (folder / "_kernels._settle-1.py311.nbi").write_text("user's")
        (folder / "_kernels._settle-1.py311.1.nbc").write_text("user's")
    (version / "warm-solve").write_text("31.0 s\n")
    (user / "tables-v1-0.npz").write_bytes(b"tables")
    kept = tests / version.name / mine.name / "_kernels._settle-1.py311.1.nbc"
    kept.parent.mkdir(parents=True)
    kept.write_text("the tests'")
    before = {p: p.read_bytes() for p in user.rglob("*") if p.is_file()}
    stats = conftest.snapshot([str(user)])

    copied = conftest.seed_kernels(str(user), str(tests), str(root))
    assert sorted(Path(p).relative_to(tests).as_posix() for p in copied) == sorted([
        f"{version.name}/{mine.name}/_kernels._settle-1.py311.nbi",
        f"{version.name}/{ev.name}/_kernels._settle-1.py311.nbi",
        f"{version.name}/{ev.name}/_kernels._settle-1.py311.1.nbc",
        f"{version.name}/warm-solve",
    ])  # fmt: skip
    assert kept.read_text() == "the tests'"
    assert not (tests / version.name / other.name).exists()
    assert not (tests / "tables-v1-0.npz").exists()
    assert {p: p.read_bytes() for p in user.rglob("*") if p.is_file()} == before
    assert conftest.snapshot([str(user)]) == stats
    assert conftest.seed_kernels(str(tmp_path / "none"), str(tests), str(root)) == []


def test_the_guard_sees_a_file_appear(tmp_path):
    """What fails the run at its end (tests/conftest.py): a new file, or a changed one."""
    (tmp_path / "old.npz").write_bytes(b"1")
    before = conftest.snapshot([str(tmp_path)])
    assert conftest.new_files(before, conftest.snapshot([str(tmp_path)])) == []
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "field-v2-one.npz").write_bytes(b"2")
    (tmp_path / "old.npz").write_bytes(b"longer")
    after = conftest.snapshot([str(tmp_path)])
    assert conftest.new_files(before, after) == [
        str(tmp_path / "old.npz"), str(tmp_path / "sub" / "field-v2-one.npz")
    ]  # fmt: skip


def test_the_guard_sees_a_subprocess_write_in_the_users_folders(tmp_path, monkeypatch):
    """A process started with a bare environment (HOME only, as the natural line's test
    once did) writes where capsa, matplotlib and dconf write for a user: kernels into the
    user's capsa cache, a font cache, dconf's file, a new folder in the cache. The check
    at the end of the run (tests/conftest.py) names every one of them."""
    home = tmp_path / "home"
    (home / ".cache").mkdir(parents=True)
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
                 "CAPSA_CACHE_DIR", "CAPSA_POOL_DIR"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    guarded = conftest._guarded()
    before = conftest.snapshot(guarded)
    code = (
        "import os, platformdirs\n"
        "def put(*p):\n"
        "    os.makedirs(os.path.dirname(os.path.join(*p)), exist_ok=True)\n"
        "    open(os.path.join(*p), 'w').write('x')\n"
        "c = platformdirs.user_cache_dir('capsa')\n"
        "put(c, 'capsa-kernels-0123456789abcdef', 'engine_x', 'k.nbi')\n"
        "h = os.path.expanduser('~/.cache')\n"
        "put(h, 'matplotlib', 'fontlist-v390.json')\n"
        "put(h, 'dconf', 'user')\n"
        "put(h, 'sometool', 'deep', 'file')\n"
    )
    bare = {"HOME": str(home)}  # what no other test may do
    subprocess.run([sys.executable, "-c", code], env=bare, check=True)
    cache = home / ".cache"
    assert conftest.new_files(before, conftest.snapshot(guarded)) == sorted([
        str(cache / "capsa" / "capsa-kernels-0123456789abcdef" / "engine_x" / "k.nbi"),
        str(cache / "dconf" / "user"), str(cache / "matplotlib" / "fontlist-v390.json"),
        str(cache / "sometool"),
    ])  # fmt: skip


def test_a_subprocess_has_the_runs_own_home(tmp_path):
    """What a test starts finds a home of the run's own: matplotlib's, Chromium's and
    capsa's folders are none of the user's."""
    code = (
        "import json, os, pathlib, platformdirs, matplotlib;"
        "print(json.dumps([str(pathlib.Path.home()), matplotlib.get_cachedir(),"
        " matplotlib.get_configdir(), platformdirs.user_cache_dir('x'),"
        " platformdirs.user_config_dir('x'), platformdirs.user_data_dir('x'),"
        " platformdirs.user_state_dir('x')]))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    guarded = json.loads(os.environ["CAPSA_TESTS_GUARDED"])
    assert Path.home().name.startswith("capsa-tests-home-"), Path.home()
    for folder in json.loads(run.stdout):
        # the run's home, or the test process's own folders (tests/conftest.py)
        mine = (Path(folder), *Path(folder).parents)
        assert any(p.name.startswith("capsa-tests-") for p in mine), folder
        for own in guarded:
            assert not Path(folder).resolve().is_relative_to(Path(own).resolve()), folder


def test_every_subprocess_a_test_starts_inherits_the_tests_environment():
    """No test starts a process with a bare environment (``env={...}`` without
    ``**os.environ``): it would drop the tests' own folders (tests/conftest.py) and write
    into the user's. ``helpers.capsa``'s ``env`` adds to ``os.environ``."""
    import ast

    bare = []
    for path in sorted(Path(__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            if not name.startswith(("subprocess.", "Popen", "asyncio.create_subprocess")):
                continue
            for kw in node.keywords:
                if kw.arg == "env" and isinstance(kw.value, ast.Dict) and None not in kw.value.keys:
                    bare.append(f"{path.name}:{node.lineno}")
    assert bare == [], bare


def _ignores_ctrl_c(status: str) -> bool:
    """Whether ``/proc/PID/status`` says the process ignores SIGINT (its ``SigIgn`` mask)."""
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:"))
    return bool(int(mask, 16) >> (signal.SIGINT - 1) & 1)


def test_ctrl_c_reaches_what_a_test_starts():
    """A process a test starts does not ignore Ctrl-C: the tests that press it on a
    ``capsa`` depend on that (tests/conftest.py)."""
    run = subprocess.run([sys.executable, "-c", "print(open('/proc/self/status').read())"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert not _ignores_ctrl_c(run.stdout)


def test_ctrl_c_reaches_it_in_a_run_started_with_ctrl_c_ignored():
    """A run started with SIGINT ignored (``pytest &`` in a script, ``nohup``) passes on
    ``SIG_IGN`` through every exec; tests/conftest.py gives its processes Ctrl-C back. Without
    that, the seven tests that press Ctrl-C on a ``capsa`` failed in such a run."""
    test = f"tests/{Path(__file__).name}::test_ctrl_c_reaches_what_a_test_starts"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", test],
        capture_output=True, text=True, timeout=600, cwd=Path(__file__).parent.parent,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:]
    assert "1 passed" in run.stdout, run.stdout[-2000:]


#: Every module of the report extra (pyproject.toml) and what they bring: MarkupSafe
#: comes with Jinja2.
REPORT_EXTRA = ["jinja2", "markupsafe", "matplotlib", "babel"]


def _without(modules: list[str], *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``capsa ARGS`` with ``modules`` impossible to import (their extra not installed)."""
    code = (
        "import sys\n"
        + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
        + f"sys.argv = ['capsa', *{list(args)!r}]\nfrom solver.cli import main\nmain()\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, timeout=600)  # fmt: skip


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> bytes:
    """The records of a field batch of one hand (the input the report cases read)."""
    folder = tmp_path_factory.mktemp("played")
    (folder / "hands.txt").write_text(f"a: {HANDS[0]}\n", encoding="utf-8")
    made = helpers.capsa_in("batch", "hands.txt", "-o", "played.jsonl", "--policy", "field",
                            cwd=folder)  # fmt: skip
    assert made.returncode == 0, made.stderr
    return (folder / "played.jsonl").read_bytes()


@pytest.mark.parametrize(
    ("modules", "args", "extra"),
    [
        (["jinja2"], ["report", "played.jsonl", "-o", "report.html"], "capsa[report]"),
        (["markupsafe"], ["report", "played.jsonl", "-o", "report.html"], "capsa[report]"),
        (["matplotlib"], ["report", "played.jsonl", "-o", "report.html"], "capsa[report]"),
        (["babel"], ["report", "played.jsonl", "-o", "report.html", "--lang", "vi"],
         "capsa[report]"),
        # the extra not installed: none of its modules, nor Jinja2's own MarkupSafe
        (REPORT_EXTRA, ["report", "played.jsonl", "-o", "report.html"], "capsa[report]"),
        (REPORT_EXTRA, ["report", "played.jsonl", "-o", "report.html", "--lang", "zh-Hans"],
         "capsa[report]"),
        (["dask", "distributed"], ["batch", "hands.txt", "--policy", "field", "--dask", "local"],
         "capsa[dask]"),
    ],
)  # fmt: skip
def test_a_command_that_needs_an_extra_says_which_in_one_line(played, tmp_path, modules, args,
                                                             extra):  # fmt: skip
    """The command run with the extra's modules impossible to import (``_without``) over
    a batch's output (``played``, made once for the cases): one line naming the extra."""
    (tmp_path / "hands.txt").write_text(f"a: {HANDS[0]}\n", encoding="utf-8")
    (tmp_path / "played.jsonl").write_bytes(played)
    run = _without(modules, *args, cwd=tmp_path)
    errors = [x for x in run.stderr.splitlines() if x.startswith("capsa: error: ")]
    assert run.returncode in (1, 2) and "Traceback" not in run.stderr, run.stderr
    assert len(errors) == 1 and extra in errors[0], run.stderr
