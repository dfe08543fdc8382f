"""Streaming, parallel, resumable batch solving, and the Dask backend.

``run_batch`` reads a file of hands one line at a time, cuts it into chunks, solves the
chunks on worker processes (or on a Dask cluster) and writes one record per hand, in
input order, as the chunks complete. The parts, each usable and tested alone:

* ``reading``: physical lines, line endings, ids, the CSV header and rows, ``parse_line``;
* ``outputs``: what may be written (never an input), the output's lock, write failures;
* ``records``: the CSV columns and rows, JSONL/CSV text, the per-hand and chunked solves;
* ``work``: the per-chunk work a worker runs (``solve_chunk``) and what it is given;
* ``resume``: the run file beside the output, the output's tail, the resume point;
* ``backends``: in process, a process pool, a Dask cluster;
* ``run``: chunks, the pump that keeps them in order, signals, ``run_batch``.

Bad lines (unreadable cards, duplicates, wrong card count, bad CSV rows, not UTF-8,
longer than ``MAX_LINE`` bytes) are reported through ``on_bad`` and in the errors file
(JSON lines ``{"line", "id", "reason", "text"}``) in input order; the run goes on.

This package never prints: progress goes to the ``on_progress`` callback and bad lines
to ``on_bad``; the CLI renders them.
"""

from __future__ import annotations

from solver.apps.batch.errors import BatchError, BatchFailed
from solver.apps.batch.reading import MAX_LINE, BadLine, parse_line
from solver.apps.batch.records import CSV_COLUMNS, csv_row, format_records, hand_seed
from solver.apps.batch.resume import sidecar_path
from solver.apps.batch.run import BatchHooks, BatchOptions, BatchProgress, BatchResult, run_batch
from solver.apps.batch.work import solve_chunk
from solver.engine.layout import POLICIES

__all__ = [
    "CSV_COLUMNS",
    "MAX_LINE",
    "POLICIES",
    "BadLine",
    "BatchError",
    "BatchFailed",
    "BatchHooks",
    "BatchOptions",
    "BatchProgress",
    "BatchResult",
    "csv_row",
    "format_records",
    "hand_seed",
    "parse_line",
    "run_batch",
    "sidecar_path",
    "solve_chunk",
]
