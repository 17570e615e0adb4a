"""``qwirkle-core warmup``: compile every kernel once, so that later runs start at once.

Run it once in a new environment (a new virtual environment, a cluster worker's image,
a CI job's cache step): numba compiles the kernels into its on-disk cache, which every
later process of the same installation loads in well under a second.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..warmup import warmup


def register(subparsers: Any) -> None:
    """Add the ``warmup`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "warmup",
        help="compile every kernel now (once per environment), and say where they are kept",
        description="Compile every kernel into numba's on-disk cache, on several processes "
        "at once, and print where the cache lives and how long it took.",
    )
    parser.add_argument("--jobs", metavar="N", type=int, default=None, help="processes (default: one per core)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The ``warmup`` command; returns the exit status."""
    report = warmup(jobs=args.jobs)
    for line in report.lines():
        print(line)
    sys.stdout.flush()
    return 0 if report.ok else 1
