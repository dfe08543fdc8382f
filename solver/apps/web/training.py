"""Training a ruleset's field tables from the page (``POST /api/train``), in the background.

A ruleset that sets hands differently from every preset needs its field tables trained
before it answers (``RulesCatalog.require_ready``). The page may ask the server to train
them: ``Trainer.start`` checks the request as every other endpoint does (the ruleset, the
table's players and jokers: ``RulesCatalog.seat``), then trains on a thread of its own
with the project's own trainer, ``solver.apps.training.train_to_file`` (what ``capsa
train --rules FILE`` runs), into the cache ``capsa train`` writes and every solve reads
(``field_cache_path``): the next solve of that ruleset just works, here and in the CLI.

Bounds: one training at a time (another table asked meanwhile is refused, 409, one line;
the same table asked again is the job already running); the last ``MAX_JOBS`` jobs are
kept (older finished ones are forgotten); a table already trained is answered ``done``
at once. The size of a training is the server's (``TrainSize``: the CLI's defaults, or
``CAPSA_SERVE_TRAIN=ROUNDS,HANDS`` read by ``create_app``): a request never names it. A
job is ``queued``, ``running``, ``done`` or ``failed`` (its ``error`` one line); its
``progress`` goes from 0 to 1 as the rounds end. When the server shuts down, or the job
is cancelled (``DELETE /api/train/ID``), a training under way stops at the end of its
round and says so.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solver.apps.web.api import RequestError, RulesCatalog, check_keys
from solver.engine.errors import InputError
from solver.engine.inputs import quote

if TYPE_CHECKING:
    from solver.engine.compiled import CompiledRules

__all__ = ["TRAIN_ENV", "TRAIN_KEYS", "TrainJob", "TrainSize", "Trainer"]

#: The environment variable that sets the server's training size: ``ROUNDS,HANDS``.
TRAIN_ENV = "CAPSA_SERVE_TRAIN"
#: The keys of POST /api/train: the table, as every endpoint that names one takes it.
TRAIN_KEYS: tuple[str, ...] = ("rules", "players", "jokers")
#: Hands the trainer sets a second, model building included (the page's estimate of the
#: minutes a training takes: the CLI's defaults, about two minutes on 2 cores, as the
#: README says; measured at about 6,500 a second with another job sharing the cores).
HANDS_A_SECOND = 5_000
STATES = ("queued", "running", "done", "failed")


@dataclass(frozen=True)
class TrainSize:
    """How much self-play a training from the page plays: ``rounds`` at most (it stops
    sooner once the tables settle, as ``capsa train`` does) of ``hands`` random hands."""

    rounds: int = 30
    hands: int = 20_000

    def __post_init__(self) -> None:
        from solver.strategy.field_model.train import DEFAULT_SEED, check_train_options

        check_train_options(self.rounds, self.hands, DEFAULT_SEED, 0.5, 1)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TrainSize:
        """The size ``CAPSA_SERVE_TRAIN`` names (``ROUNDS,HANDS``, e.g. ``30,20000``), else
        the CLI's defaults; InputError, one line, for a value that is not one."""
        text = (os.environ if environ is None else environ).get(TRAIN_ENV, "").strip()
        if not text:
            return cls()
        parts = [p.strip().replace("_", "") for p in text.split(",")]
        if len(parts) != 2 or not all(p.isascii() and p.isdigit() and len(p) < 10 for p in parts):
            raise InputError(f"{TRAIN_ENV} must be ROUNDS,HANDS (e.g. 30,20000), got {quote(text)}")
        try:
            return cls(int(parts[0]), int(parts[1]))
        except InputError as exc:
            raise InputError(f"{TRAIN_ENV}: {exc}") from None

    def minutes(self) -> int:
        """About how many minutes a training takes (at least 1)."""
        seconds = (self.rounds + 1) * self.hands / HANDS_A_SECOND
        return max(1, round(seconds / 60))

    def to_dict(self) -> dict[str, int]:
        return {"rounds": self.rounds, "hands": self.hands, "minutes": self.minutes()}


@dataclass
class TrainJob:
    """One training asked of the server (see the module docstring)."""

    id: str
    rules: str  # the table's name
    key: str  # where its tables go: one job a destination
    rounds: int
    state: str = "queued"
    done: int = 0  # rounds ended, the greedy start counted
    error: str | None = None
    converged: bool | None = None
    ended: threading.Event = field(default_factory=threading.Event, repr=False)
    #: set by DELETE /api/train/ID: the training stops at the end of its round
    cancelled: threading.Event = field(default_factory=threading.Event, repr=False)

    def progress(self) -> float:
        if self.state == "done":
            return 1.0
        return min(self.done / (self.rounds + 1), 0.99)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rules": self.rules,
            "state": self.state,
            "progress": round(self.progress(), 4),
            "round": max(0, self.done - 1),
            "rounds": self.rounds,
            "converged": self.converged,
            "error": self.error,
        }


#: The list of the tables the server trained, in the cache folder beside them (a name a
#: line): the ones ``Trainer`` may remove.
TRAINED_LIST = "serve-trained.txt"


class Trainer:
    """The server's trainings: at most one running, the last ``MAX_JOBS`` kept, and at
    most ``MAX_TABLES`` tables trained here kept in the cache: past it, the least
    recently used (their files' modification time: ``RulesCatalog.ready`` sets it when
    a table answers) are removed, never the server's own ruleset's (``--rules FILE``),
    never one the CLI trained (only those in ``TRAINED_LIST``), never a shipped one
    (in the package, not the cache)."""

    MAX_JOBS = 8
    #: About 300 KB a table: 32 tables, about 10 MB.
    MAX_TABLES = 32

    def __init__(self, size: TrainSize, max_tables: int | None = None) -> None:
        self.max_tables = self.MAX_TABLES if max_tables is None else max_tables
        self.size = size
        self._jobs: OrderedDict[str, TrainJob] = OrderedDict()
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def start(self, body: Any, catalog: RulesCatalog) -> TrainJob:
        """The job that trains the table of a POST /api/train body: a new one, the one
        already running for that table, or one ``done`` at once when it is trained.
        RequestError 409 while another table trains; the request's own errors as every
        endpoint says them (400, 422)."""
        from solver.apps.training import check_writable
        from solver.engine.compiled import compile_rules
        from solver.strategy.field_model.field import field_cache_path

        opts = check_keys(body, TRAIN_KEYS, '{"rules": "base = ..."}')
        if opts.get("rules") is None:
            raise InputError("rules is missing: give the ruleset to train (the text of its TOML)")
        rules = catalog.seat(opts["rules"], opts.get("players"), opts.get("jokers"))
        cr = compile_rules(rules)
        dest = field_cache_path(cr)
        with self._lock:
            if self._stop.is_set():
                raise RequestError("the server is shutting down; ask again once it is back", 503)
            running = self._running()
            if running is not None and running.key == str(dest):
                return running
            if running is not None:
                raise RequestError(
                    f"busy: this server is training {running.rules!r} "
                    f"({running.progress():.0%} done) and trains one ruleset at a time; "
                    "ask again when it is done, or run `capsa train --rules FILE`",
                    409,
                )
            job = TrainJob(secrets.token_hex(8), rules.name, str(dest), self.size.rounds)
            if catalog.ready(rules):
                job.state, job.done = "done", self.size.rounds + 1
                job.ended.set()
                self._keep(job)
                return job
            check_writable(dest)  # InputError (422, one line) before any training
            self._keep(job)
            thread = threading.Thread(
                target=self._run, args=(job, cr, dest, catalog), name="capsa-train", daemon=True
            )
            thread.start()
        return job

    def get(self, job_id: str) -> TrainJob:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise RequestError(
                f"no training {quote(job_id[:40])} on this server (it keeps the last "
                f"{self.MAX_JOBS}); start one with POST /api/train",
                404,
            )
        return job

    def cancel(self, job_id: str) -> TrainJob:
        """DELETE /api/train/ID: a training queued or under way stops at the end of its
        round (its job then ``failed``, saying it was cancelled; no tables written); a
        job that has ended is answered as it is."""
        job = self.get(job_id)
        job.cancelled.set()
        return job

    def close(self) -> None:
        """The server is shutting down: a training under way stops after its round."""
        self._stop.set()

    def _running(self) -> TrainJob | None:
        return next((j for j in self._jobs.values() if j.state in ("queued", "running")), None)

    def _keep(self, job: TrainJob) -> None:
        self._jobs[job.id] = job
        for old in list(self._jobs.values()):
            if len(self._jobs) <= self.MAX_JOBS:
                break
            if old.state in ("done", "failed"):
                del self._jobs[old.id]

    def _run(
        self, job: TrainJob, cr: CompiledRules, dest: Path, catalog: RulesCatalog | None = None
    ) -> None:
        """Train (on this thread), then say how it went in the job."""
        from solver.apps.training import train_to_file
        from solver.strategy.field_model.train import DEFAULT_SEED, DEFAULT_TOL
        from solver.strategy.threads import Stopped

        def report(done: int, total: int | None = None, **kw: Any) -> None:
            if self._stop.is_set() or job.cancelled.is_set():
                raise Stopped
            job.done = done + 1  # round 0, the greedy start, is the first to end

        size = self.size
        job.state = "running"
        try:
            tables = train_to_file(
                cr, dest, progress=report, rounds=size.rounds, hands_per_round=size.hands,
                seed=DEFAULT_SEED, tol=DEFAULT_TOL, min_rounds=min(10, size.rounds),
            )  # fmt: skip
        except Stopped:
            job.error = (
                "stopped: the server shut down before the training ended"
                if self._stop.is_set()
                else "cancelled: DELETE /api/train/ID stopped it before it ended"
            )
            job.state = "failed"
        except Exception as exc:  # noqa: BLE001 - said in the job, in one line
            job.error = _one_line(f"training failed: {type(exc).__name__}: {exc}")
            job.state = "failed"
        else:
            job.converged = bool(tables.meta.get("converged"))
            if catalog is not None:
                self._bound(dest, catalog)
            job.state = "done"
        finally:
            job.ended.set()

    def _bound(self, dest: Path, catalog: RulesCatalog) -> None:
        """Add ``dest`` to ``TRAINED_LIST``, then remove the least recently used of the
        tables listed past ``max_tables`` (never ``dest``, never the server's own
        ruleset's)."""
        import contextlib

        from evaluator.files import atomic_write
        from solver.engine.compiled import compile_rules
        from solver.strategy.field_model.field import field_cache_path
        from solver.strategy.field_model.trained import forget_fields

        folder = dest.parent
        listing = folder / TRAINED_LIST
        try:
            names = listing.read_text(encoding="utf-8").split()
        except OSError:
            names = []
        names = [n for n in dict.fromkeys([*names, dest.name]) if (folder / n).is_file()]
        pinned = {dest.name, field_cache_path(compile_rules(catalog.default)).name}

        def used(name: str) -> float:
            try:
                return (folder / name).stat().st_mtime
            except OSError:
                return 0.0

        removable = sorted((n for n in names if n not in pinned), key=used)
        gone = removable[: max(0, len(names) - self.max_tables)]
        for name in gone:
            with contextlib.suppress(OSError):
                (folder / name).unlink()
        kept = [n for n in names if n not in gone]
        with contextlib.suppress(OSError):
            atomic_write(listing, lambda fh: fh.write("".join(f"{n}\n" for n in kept)))
        if gone:
            forget_fields()
            catalog.forget_ready()


def _one_line(text: str, most: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= most else line[: most - 3] + "..."
