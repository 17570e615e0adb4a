"""``qwirkle-core warmup``: compile every kernel once, so that later runs start at once.

Run it once in a new environment (a new virtual environment, a cluster worker's image,
a CI job's cache step): numba compiles the kernels into its on-disk cache, which every
later process of the same installation loads in well under a second.
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any

from .. import _jit
from .. import warmup as warmup_module
from .._progress import Progress
from ..warmup import group_line, warmup
from . import NAME, positive_int


def register(subparsers: Any) -> None:
    """Add the ``warmup`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "warmup",
        help="compile every kernel now (once per environment), and say where they are kept",
        description="Compile every kernel into numba's on-disk cache, on several processes "
        "at once, and print where the cache lives and how long it took.",
    )
    parser.add_argument("--jobs", metavar="N", type=positive_int, default=None, help="processes (default: one per core)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The ``warmup`` command; returns the exit status."""
    # The first warm-up of an environment takes minutes on a small machine: say so at
    # once, then a line per group as it finishes and, every few seconds, which groups
    # are still compiling (stderr: a bar on a terminal; the report goes to stdout).
    print(
        f"{NAME}: compiling {len(warmup_module.GROUPS)} groups of kernels into {_jit.cache_location()} "
        "(minutes the first time, a few seconds once cached) ...",
        file=sys.stderr,
        flush=True,
    )
    running: list[str] = []
    bar = Progress(f"{NAME}: warmup", len(warmup_module.GROUPS), "groups", rate=False)
    bar.set(0)

    def started(name: str) -> None:
        with lock:
            running.append(name)
            bar.status("compiling " + ", ".join(running))

    def finished(name: str, seconds: float, outcome: str, error: str | None) -> None:
        with lock:
            running.remove(name)
            bar.status("compiling " + ", ".join(running) if running else "")
            bar.write(group_line(name, seconds, outcome, error))
            bar.update(1)

    lock = threading.Lock()
    try:
        report = warmup(jobs=args.jobs, on_group=finished, on_start=started)
    finally:
        bar.close(last_line=False)  # the report says it all
    lines = report.lines()
    for line in (lines[0], lines[-1]):  # each group's line is on stderr already
        print(line)
    sys.stdout.flush()
    return 0 if report.ok else 1
