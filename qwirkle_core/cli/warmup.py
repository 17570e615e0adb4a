"""``qwirkle-core warmup``: compile every kernel once, so that later runs start at once.

Run it once in a new environment (a new virtual environment, a cluster worker's image,
a CI job's cache step): numba compiles the kernels into its on-disk cache, which every
later process of the same installation loads in well under a second.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import _jit
from .. import warmup as warmup_module
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


def _progress(name: str, seconds: float, outcome: str, error: str | None) -> None:
    print(group_line(name, seconds, outcome, error), file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """The ``warmup`` command; returns the exit status."""
    # The first warm-up of an environment takes minutes on a small machine: say so at
    # once, then a line per group as it finishes (stderr; the report goes to stdout).
    print(
        f"{NAME}: compiling {len(warmup_module.GROUPS)} groups of kernels into {_jit.cache_location()} "
        "(minutes the first time, a few seconds once cached) ...",
        file=sys.stderr,
        flush=True,
    )
    report = warmup(jobs=args.jobs, on_group=_progress)
    lines = report.lines()
    for line in (lines[0], lines[-1]):  # each group's line is on stderr already
        print(line)
    sys.stdout.flush()
    return 0 if report.ok else 1
