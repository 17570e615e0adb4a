"""The ``selfplay`` command: many games between bots, the built-in kernel bots inside numba.

    python -m qwirkle_core selfplay --games 1000 --players 2 --bots greedy,heuristic --seed 7
    python -m qwirkle_core selfplay --games 20 --bots greedy,sim --movetime 0.05

A search bot (``sim``, ``endgame``) in any seat makes every game of the run play in
Python, on one process per core (``--threads``: how many), with ``--movetime`` seconds
a move for the search bots if given.

Game i is dealt from seed ``S + i``; its record (``--record FILE``, one JSON line per
game, the qwirkle-record/1 format) replays with ``qwirkle_core.records.game_from_record``.
The games themselves are played by :func:`qwirkle_core.selfplay.selfplay`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import stat
import sys
from types import FrameType, TracebackType
from typing import IO, Any

import numba
import numpy as np

try:
    import fcntl
except ImportError:  # not POSIX: no lock (a second writer is then the user's to avoid)
    fcntl = None  # type: ignore[assignment]

from .._constants import MAX_PLAYERS
from .._prng import SEED_LIMIT
from .._progress import Progress, pick_mode
from .._record_writer import RecordWriter, RecordWriterError
from ..bots import BOT_IDS, BOTS
from ..datasets import DEFAULT_CHUNK_SIZE, MAX_WORKERS
from ..errors import QwirkleError
from ..game import END_NAMES, MIN_PLAYERS
from ..match import MAX_MOVETIME, default_processes
from ..selfplay import (
    BATCH,
    SelfPlayArgumentError,
    SelfPlayResult,
    check_movetime,
    parse_bots,
    play_batches,
    searches,
)
from . import NAME, fail
from ._datasets import dataset_options, run_selfplay_dataset, seed_range

EXIT_BAD_ARGS = 2
EXIT_IO = 1
MAX_THREADS: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # numba has no stubs here


class RecordFileError(QwirkleError):
    """A record file that cannot be opened as asked."""



def _lock_for_the_run(handle: IO[bytes], path: str) -> None:
    """Hold an exclusive lock on a regular file until ``handle`` closes, or refuse: a
    second run appending to the same file would cut the first one's record in flight
    (see below) for an interrupted writer's.  (Pipes and devices are not locked.)"""
    if fcntl is None or not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise RecordFileError(f"another run is writing {path}: wait for it, or choose another file") from None


def _holds_records(path: str) -> RecordFileError:
    return RecordFileError(f"{path} exists and holds records: choose another file, or add --append")


def open_record_file(path: str, append: bool) -> IO[bytes]:
    """Open ``path`` for records, locked for the run.  A new or empty file is fine; an
    existing non-empty one only with ``append`` (records are never destroyed by a new
    run), and then a partial last line (an interrupted writer) is cut off so that every
    line is whole.  A FIFO or a device is written as it is: nothing to lock, empty or
    cut off."""
    try:
        try:
            existing: int | None = os.stat(path).st_mode
        except FileNotFoundError:
            existing = None
        # Before its size: a directory's is that of its entries, not of any records.
        if existing is not None and stat.S_ISDIR(existing):
            raise RecordFileError(f"{path} is a directory: give a file for the records")
        if not append:
            # "x": fail if it exists, so that a second run cannot truncate the first's games.
            try:
                handle: IO[bytes] = open(path, "xb")  # noqa: SIM115 - returned open, closed by the caller
            except FileExistsError:
                if os.path.getsize(path) > 0:
                    raise _holds_records(path) from None
                if not stat.S_ISREG(os.stat(path).st_mode):
                    return open(path, "wb")  # a FIFO or a device: nothing to lock or to empty
                handle = open(path, "r+b")  # noqa: SIM115 - emptied once locked
                try:
                    _lock_for_the_run(handle, path)
                    if handle.seek(0, os.SEEK_END):  # a run wrote it meanwhile
                        raise _holds_records(path)
                    handle.truncate(0)
                except BaseException:
                    handle.close()
                    raise
                return handle
            _lock_for_the_run(handle, path)
            return handle
        if existing is not None and not stat.S_ISREG(existing):
            # A FIFO or a device cannot seek, and what a stream carried is gone: appending
            # is writing.  (Write-only, as without --append: a FIFO opened to read too
            # would be its own reader, so a reader that went away would leave the run
            # blocked on a full pipe rather than stopped by a broken one.)
            return open(path, "ab")
        handle = open(path, "a+b")  # noqa: SIM115 - returned open, closed by the caller
        _lock_for_the_run(handle, path)
        size = handle.seek(0, os.SEEK_END)
        if size:
            # Cut back to the last newline: what follows it is a record cut short.
            keep = size
            step = 4096
            while keep > 0:
                start = max(0, keep - step)
                handle.seek(start)
                chunk = handle.read(keep - start)
                cut = chunk.rfind(b"\n")
                if cut >= 0:
                    keep = start + cut + 1
                    break
                keep = start
            if keep != size:
                handle.truncate(keep)
        return handle
    except OSError as exc:
        # (io.UnsupportedOperation, an OSError, has no strerror: its text says it.)
        raise RecordFileError(f"cannot write {path}: {exc.strerror or exc}") from None


class _StopOnSignal:
    """While active, SIGINT and SIGTERM only set ``signal``: the run stops after the
    batch in flight, with its records written, instead of raising inside a numba
    call (which numba reports as a SystemError)."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self._saved: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.signal = signum

    def __enter__(self) -> _StopOnSignal:  # noqa: PYI034 - a final class
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                self._saved[signum] = signal.signal(signum, self._handle)
            except ValueError:  # not the main thread: leave the handlers alone
                pass
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        for signum, handler in self._saved.items():
            signal.signal(signum, handler)


def _int_option(text: Any, option: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise SelfPlayArgumentError(f"{option} takes an integer, got {text!r}") from None
    if not low <= value <= high:
        raise SelfPlayArgumentError(f"{option} must be in {low}..{high}, got {value}")
    return value


def _movetime_option(text: str | None, bots: list[str]) -> float | None:
    """``--movetime``: seconds a move, only where a seat is a search bot."""
    if text is None:
        return None
    if not searches(bots):
        raise SelfPlayArgumentError(
            f"--movetime is for the search bots ({', '.join(n for n in BOTS if n not in BOT_IDS)}): "
            f"no seat plays one (--bots {','.join(bots)})"
        )
    try:
        seconds = float(text)
    except ValueError:
        raise SelfPlayArgumentError(f"--movetime takes seconds, got {text!r}") from None
    try:
        return check_movetime(seconds, bots)
    except SelfPlayArgumentError:
        raise SelfPlayArgumentError(
            f"--movetime is seconds a move, above 0 and at most {MAX_MOVETIME:g}, got {text!r}"
        ) from None


def register(subparsers: Any) -> None:
    """Add the ``selfplay`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "selfplay",
        help="play many games between bots (the kernel bots inside numba, search bots in Python; on all cores)",
        description="Play games between bots; print the mean score and wins per seat "
        "and the games per second.",
    )
    # Values are parsed in run() so that a bad one gives one line, not argparse's usage text.
    parser.add_argument("--games", default="100", metavar="N", help="number of games (default 100)")
    parser.add_argument("--players", default="2", metavar="P", help="players per game, 2..6 (default 2)")
    parser.add_argument(
        "--bots",
        default="greedy",
        metavar="B[,B...]",
        help=f"one bot for every seat, or one per seat: {', '.join(BOTS)} (default greedy); the kernel bots "
        f"({', '.join(BOT_IDS)}) play inside numba on threads, a search bot in any seat makes every game "
        "play in Python on processes (--threads of them)",
    )
    parser.add_argument(
        "--movetime",
        metavar="T",
        help="seconds a move for the search bots (sim, endgame); refused when no seat is one "
        "(default: a fixed amount of search a move, the same games for the same seed)",
    )
    parser.add_argument("--seed", default="0", metavar="S", help="game i is dealt from seed S+i (default 0)")
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="write each game's record, one JSON line per game, as the games finish; "
        "an existing non-empty FILE is refused unless --append",
    )
    parser.add_argument(
        "--append",
        action="store_true",
        help="add the records to the end of an existing FILE (a partial last line left by an "
        "interrupted run is cut off first)",
    )
    parser.add_argument(
        "--threads", metavar="T", help="cores to use: threads, or processes when a seat searches (default: all)"
    )
    parser.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr: auto = on a terminal, for runs of more than one batch",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    scale = parser.add_argument_group(
        "datasets (the scale extra: pip install '.[scale]')",
        "Write the games as a Parquet dataset (docs/datasets.md), on all local cores, a local Dask "
        "cluster or an existing one; the same command always gives the same dataset, and run again "
        "it writes only what is missing.  Kernel bots only: a search bot is refused here.",
    )
    scale.add_argument("--out", metavar="DIR", help="write a Parquet dataset into DIR")
    scale.add_argument("--workers", metavar="K", help="start a local Dask cluster of K worker processes")
    scale.add_argument("--scheduler", metavar="ADDRESS", help="use the Dask cluster of this scheduler")
    scale.add_argument("--chunk-size", metavar="C", help="games per chunk file (default 5000)")
    scale.add_argument(
        "--extend", action="store_true",
        help="grow the dataset in DIR (same players, bots, seed and chunk size) to --games games in place",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The ``selfplay`` command; returns the exit status."""
    try:
        games = _int_option(args.games, "--games", 1, 10**9)
        players = _int_option(args.players, "--players", MIN_PLAYERS, MAX_PLAYERS)
        bots = parse_bots(args.bots, players)
        seed = _int_option(args.seed, "--seed", 0, SEED_LIMIT - 1)
        threads = None
        if args.threads is not None:
            threads = _int_option(args.threads, "--threads", 1, MAX_THREADS)
        movetime = _movetime_option(args.movetime, bots)
    except SelfPlayArgumentError as exc:
        return fail(str(exc), EXIT_BAD_ARGS)
    search = searches(bots)
    # Any option of a dataset takes the dataset's path, where one without --out is refused
    # (else it would be ignored, its value unread).
    dataset_option = args.workers is not None or args.scheduler is not None or args.chunk_size is not None
    if args.out is not None or dataset_option or args.extend:
        if search:
            return fail(
                "a Parquet dataset (--out, --workers, --scheduler, --chunk-size) is written by the kernel bots only "
                f"({', '.join(BOT_IDS)}): a search bot plays in Python; use --record instead",
                EXIT_BAD_ARGS,
            )
        # A Parquet dataset, with or without a Dask cluster: its own path (cli/_datasets.py).
        return _run_dataset(args, games, players, bots, seed, threads)
    if args.append and not args.record:
        return fail("--append adds to the --record FILE: give --record FILE too", EXIT_BAD_ARGS)
    out = None
    if args.record:
        # Opened before the games, so that a bad path fails at once.
        try:
            out = RecordWriter(open_record_file(args.record, args.append))
        except RecordFileError as exc:
            return fail(str(exc), EXIT_BAD_ARGS)
        except RecordWriterError as exc:
            return fail(str(exc.strerror), EXIT_BAD_ARGS)
    if threads is not None:
        numba.set_num_threads(threads)
    # A bar on a terminal, a line every few seconds elsewhere; nothing for one batch of
    # the kernel bots (a blink), always something for the search bots (seconds a game).
    shown = args.progress == "always" or games > BATCH or (search and args.progress == "auto")
    mode = pick_mode(args.progress, sys.stderr) if shown else "off"
    bar = Progress(f"{NAME}: selfplay", games, mode=mode) if mode != "off" else None
    scores = np.zeros((games, players), np.int64)
    turns = np.zeros(games, np.int64)
    ends = np.zeros(games, np.int64)
    seconds = 0.0
    done = 0
    with contextlib.ExitStack() as stack, _StopOnSignal() as stop:
        if out is not None:
            stack.callback(out.close)
        if bar is not None:
            stack.callback(bar.close)
        for batch in play_batches(
            games, players, bots, seed, record=out is not None, threads=threads, movetime=movetime
        ):
            done = batch.start + len(batch.seeds)
            scores[batch.start : done] = batch.scores
            turns[batch.start : done] = batch.turns
            ends[batch.start : done] = batch.ends
            seconds += batch.seconds
            if out is not None:
                try:
                    out.write(batch.records_text)
                except OSError as exc:
                    return fail(f"cannot write {args.record}: {exc.strerror}", EXIT_BAD_ARGS)
            if bar is not None:
                bar.set(done)
            if stop.signal is not None:
                print(
                    f"qwirkle-core: selfplay stopped by signal after {done} of {games} games"
                    + (f"; their records are in {args.record}" if args.record else ""),
                    file=sys.stderr,
                )
                return 128 + stop.signal
    result = SelfPlayResult(scores, turns, seconds, ends=ends)
    endings = {name: int((ends == code).sum()) for code, name in END_NAMES.items()}
    wins, ties = result.wins()
    means = result.scores.mean(axis=0)
    rate = games / max(result.seconds, 1e-9)
    if search:  # processes, one per core unless --threads
        used = min(threads if threads is not None else default_processes(), games)
    else:
        used = threads if threads is not None else numba.get_num_threads()
    if args.json:
        summary = {
            "games": games,
            "players": players,
            "bots": bots,
            "seed": seed,
            "mean_scores": [round(float(m), 3) for m in means],
            "wins": [int(w) for w in wins],
            "ties": [int(t) for t in ties],
            "games_per_second": round(rate, 1),
            "turns_per_game": round(float(result.turns.mean()), 2),
            "threads": used,
            "ends": endings,
        }
        if movetime is not None:
            summary["movetime"] = movetime
        print(json.dumps(summary))
        return 0
    print(f"{games} games, {players} players, seeds {seed_range(seed, games)}")
    print(f"{'seat':>4}  {'bot':<10} {'mean score':>10} {'wins':>7} {'ties':>6}")
    for p in range(players):
        print(f"{p:>4}  {bots[p]:<10} {means[p]:>10.2f} {int(wins[p]):>7} {int(ties[p]):>6}")
    workers = f"{used} processes" if search else f"{used} threads"
    speed = f"{rate:,.2f}" if rate < 100 else f"{rate:,.0f}"
    print(f"{speed} games per second ({workers}), {result.turns.mean():.1f} turns per game")
    print("ended: " + ", ".join(f"{n} {name}" for name, n in endings.items()))
    if args.record:
        print(f"records written to {args.record}")
    return 0


def _run_dataset(
    args: argparse.Namespace, games: int, players: int, bots: list[str], seed: int, threads: int | None
) -> int:
    """``selfplay --out DIR [--workers K | --scheduler ADDRESS]``."""
    problem = dataset_options(args)
    try:
        if problem is not None:
            raise SelfPlayArgumentError(problem)
        chunk_size = DEFAULT_CHUNK_SIZE
        if args.chunk_size is not None:
            chunk_size = _int_option(args.chunk_size, "--chunk-size", 1, 10**7)
        workers = None if args.workers is None else _int_option(args.workers, "--workers", 1, MAX_WORKERS)
    except SelfPlayArgumentError as exc:
        return fail(str(exc), EXIT_BAD_ARGS)
    if threads is not None:
        numba.set_num_threads(threads)
    return run_selfplay_dataset(args, games, players, bots, seed, chunk_size, workers)
