"""The dataset side of the command line: ``selfplay --out DIR [--workers K | --scheduler
ADDRESS]`` (called from the selfplay command) and the progress bar it shares with
``check``.  :mod:`qwirkle_core.datasets` does the work."""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO

from .._prng import SEED_LIMIT
from .._progress import Progress, pick_mode
from ..errors import QwirkleError
from . import NAME, fail

EXIT_BAD_ARGS = 2
# A chunk that cannot be written, or a scheduler that cannot be reached: 2, as for any
# file that cannot be written (docs/cli.md), and as `check` says of such a scheduler.
EXIT_IO = 2


class ChunkProgress:
    """The progress of a dataset run on stderr (:class:`qwirkle_core._progress.Progress`):
    on a terminal a tqdm bar whose rate and ETA count games, not the time to start a
    cluster or load kernels; elsewhere a plain line every few seconds from the start
    (so a run is never silent, even while it starts), and one at the end."""

    def __init__(self, label: str, choice: str, total: int | None = None, stream: IO[str] | None = None) -> None:
        stream = stream if stream is not None else sys.stderr
        self.progress = Progress(f"{NAME}: {label}", total, "games", stream=stream, mode=pick_mode(choice, stream))
        self.started = False
        self.progress.status("starting")

    def __call__(self, done: int, total: int) -> None:
        if not self.started:
            self.started = True
            self.progress.status("")
        self.progress.set(done, total)

    def close(self, last_line: bool = True) -> None:
        self.progress.close(last_line)


def seed_range(seed: int, games: int) -> str:
    """The seeds of ``games`` games from ``seed``, as the summaries say them: game i's
    is seed + i, counted modulo 2**64 (as ``Game`` takes seeds)."""
    last = (seed + games - 1) % SEED_LIMIT
    return f"{seed}..{last}" + (" (past 2**64 - 1, from 0)" if last < seed else "")


def dataset_options(args: argparse.Namespace) -> str | None:
    """The first problem with how --out, --workers, --scheduler, --chunk-size and the rest combine."""
    if args.out is None:
        return "--workers, --scheduler, --chunk-size and --extend write a dataset: give --out DIR too"
    if args.workers is not None and args.scheduler is not None:
        return "--workers starts a local cluster, --scheduler uses one: give one of them"
    if args.record is not None or getattr(args, "append", False):
        return "--record and --append write JSON lines, --out a Parquet dataset: give one of them"
    if args.threads is not None and (args.workers is not None or args.scheduler is not None):
        return "--threads is for a run without a cluster (each Dask worker runs one thread)"
    return None


def scheduler_problem(address: str | None) -> str | None:
    """Why ``--scheduler ADDRESS`` is not an address (one line), or None; nothing is
    contacted (and nothing imported without a --scheduler)."""
    if address is None:
        return None
    try:
        from ..cluster import check_address

        check_address(address)
    except QwirkleError as exc:  # cluster.SchedulerAddressError, or no dask.distributed
        return f"--scheduler: {exc}"
    return None


def run_selfplay_dataset(
    args: argparse.Namespace, games: int, players: int, bots: list[str], seed: int, chunk_size: int, workers: int | None,
) -> int:
    """``selfplay --out DIR``: write the games as a Parquet dataset; print the summary."""
    from ..datasets import DatasetError, write_dataset

    problem = scheduler_problem(args.scheduler)
    if problem is not None:
        return fail(problem, EXIT_BAD_ARGS)
    bar = ChunkProgress("selfplay", args.progress, games)
    try:
        summary = write_dataset(
            args.out, games, players, bots, seed, chunk_size=chunk_size, workers=workers,
            scheduler=args.scheduler, progress=bar, extend=bool(getattr(args, "extend", False)),
        )
    except DatasetError as exc:
        bar.close(last_line=False)
        return fail(str(exc), EXIT_BAD_ARGS)
    except QwirkleError as exc:  # cluster.ClusterError: a scheduler not reached (its address named)
        bar.close(last_line=False)
        return fail(str(exc), EXIT_IO)
    except OSError as exc:
        bar.close(last_line=False)
        return fail(f"cannot write {exc.filename or args.out}: {exc.strerror or exc}", EXIT_IO)
    except BaseException:  # an interrupt: the command line says so
        bar.close(last_line=False)
        raise
    bar.close()
    report = summary.to_json()
    if args.json:
        print(json.dumps(report))
        return 0
    wins, ties = summary.wins()
    means = summary.mean_scores
    chunks = summary.spec.chunks
    print(f"{games} games, {players} players, seeds {seed_range(seed, games)} in {summary.path}")
    print(f"{summary.written} games written now, {summary.skipped} already there ({chunks} chunks of {chunk_size})")
    print(f"{'seat':>4}  {'bot':<10} {'mean score':>10} {'wins':>7} {'ties':>6}")
    for p in range(players):
        print(f"{p:>4}  {bots[p]:<10} {means[p]:>10.2f} {int(wins[p]):>7} {int(ties[p]):>6}")
    ends = ", ".join(f"{name} {count}" for name, count in report["ends"].items())
    print(f"{summary.turns_per_game:.1f} turns per game; ended: {ends}")
    if summary.written:
        print(f"{summary.games_per_second:,.0f} games per second on {summary.where}")
    print(f"ready to play in {summary.startup_seconds:.1f} s (cluster started or reached, kernels loaded)")
    return 0
