"""The ``check`` command: replay every game of a self-play dataset under the rules.

    python -m qwirkle_core check DIR [--workers K | --scheduler ADDRESS] [--json]

Exit status 0 when every game of the dataset is there once and replays to what the
dataset says, 1 when anything does not (each problem is printed), 2 for bad
arguments (a scheduler address that is not one, or a scheduler not reached) or a
directory that is not a dataset.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..datasets import MAX_WORKERS
from ..errors import QwirkleError
from . import fail
from ._datasets import ChunkProgress, scheduler_problem

EXIT_MISMATCH = 1
EXIT_BAD_ARGS = 2
SHOWN_PROBLEMS = 50  # problems printed as text; --json gives them all


def register(subparsers: Any) -> None:
    """Add the ``check`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "check",
        help="replay every game of a self-play dataset (selfplay --out) and report mismatches",
        description="Replay every game of a Parquet self-play dataset under the rules, on this machine or "
        "a Dask cluster; report any game missing, twice, or not what the rules give (exit 1).",
    )
    parser.add_argument("dataset", metavar="DIR", help="a dataset written by selfplay --out")
    parser.add_argument("--workers", metavar="K", help="start a local Dask cluster of K worker processes")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="use the Dask cluster of this scheduler")
    parser.add_argument(
        "--progress", choices=("auto", "always", "never"), default="auto",
        help="progress on stderr: auto = a bar on a terminal, else a line every few seconds",
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The ``check`` command; returns the exit status."""
    workers = None
    if args.workers is not None:
        try:
            workers = int(args.workers)
        except ValueError:
            workers = 0
        if not 1 <= workers <= MAX_WORKERS:
            return fail(f"--workers must be an integer in 1..{MAX_WORKERS}, got {args.workers!r}", EXIT_BAD_ARGS)
    if workers is not None and args.scheduler is not None:
        return fail("--workers starts a local cluster, --scheduler uses one: give one of them", EXIT_BAD_ARGS)
    problem = scheduler_problem(args.scheduler)
    if problem is not None:
        return fail(problem, EXIT_BAD_ARGS)
    from ..datasets import DatasetError, check_dataset

    bar = ChunkProgress("check", args.progress)
    try:
        report = check_dataset(args.dataset, workers=workers, scheduler=args.scheduler, progress=bar)
    except DatasetError as exc:
        bar.close(last_line=False)
        return fail(str(exc), EXIT_BAD_ARGS)
    except QwirkleError as exc:  # cluster.ClusterError: a scheduler not reached (its address named)
        bar.close(last_line=False)
        return fail(str(exc), EXIT_BAD_ARGS)
    except BaseException:  # an interrupt: the command line says so
        bar.close(last_line=False)
        raise
    bar.close()
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        for problem in report.problems[:SHOWN_PROBLEMS]:
            print(problem)
        if len(report.problems) > SHOWN_PROBLEMS:
            print(f"... and {len(report.problems) - SHOWN_PROBLEMS} more problems (--json lists them all)")
        verdict = "every game replays" if report.ok else f"{len(report.problems)} problems"
        print(f"{report.path}: {report.checked} of {report.games} games checked, {verdict}")
    return 0 if report.ok else EXIT_MISMATCH
