"""The ``selfplay`` command: many games between built-in bots, played inside numba.

    python -m qwirkle_core selfplay --games 1000 --players 2 --bots greedy,heuristic --seed 7

Game i is dealt from seed ``S + i``; its record (``--record FILE``, one JSON line per
game, the qwirkle-record/1 format) replays with ``qwirkle_core.records.game_from_record``.
The games themselves are played by :func:`qwirkle_core.selfplay.selfplay`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from typing import IO, Any

import numba

from .._prng import SEED_LIMIT
from ..bots import BOT_IDS
from ..game import MAX_PLAYERS, MIN_PLAYERS
from ..records import record_line
from ..selfplay import BATCH, SelfPlayArgumentError, parse_bots, selfplay

EXIT_BAD_ARGS = 2
EXIT_IO = 1
MAX_THREADS: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # numba has no stubs here


def _int_option(text: Any, option: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise SelfPlayArgumentError(f"{option} takes an integer, got {text!r}") from None
    if not low <= value <= high:
        raise SelfPlayArgumentError(f"{option} must be in {low}..{high}, got {value}")
    return value


class ProgressBar:
    """A one-line bar on a terminal, redrawn in place."""

    def __init__(self, total: int, stream: IO[str], width: int = 30) -> None:
        self.total = total
        self.stream = stream
        self.width = width
        self.began = time.perf_counter()

    def __call__(self, done: int) -> None:
        filled = self.width * done // self.total
        rate = done / max(time.perf_counter() - self.began, 1e-9)
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\rselfplay [{bar}] {done}/{self.total} games, {rate:,.0f}/s")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def register(subparsers: Any) -> None:
    """Add the ``selfplay`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "selfplay",
        help="play many games between built-in bots (inside numba, on all cores)",
        description="Play games between built-in bots; print the mean score and wins per seat "
        "and the games per second.",
    )
    # Values are parsed in run() so that a bad one gives one line, not argparse's usage text.
    parser.add_argument("--games", default="100", metavar="N", help="number of games (default 100)")
    parser.add_argument("--players", default="2", metavar="P", help="players per game, 2..6 (default 2)")
    parser.add_argument(
        "--bots",
        default="greedy",
        metavar="B[,B...]",
        help=f"one bot for every seat, or one per seat: {', '.join(BOT_IDS)} (default greedy)",
    )
    parser.add_argument("--seed", default="0", metavar="S", help="game i is dealt from seed S+i (default 0)")
    parser.add_argument("--record", metavar="FILE", help="write each game's record, one JSON line per game")
    parser.add_argument("--threads", metavar="T", help="cores to use (default: all)")
    parser.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr: auto = on a terminal, for runs of more than one batch",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
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
    except SelfPlayArgumentError as exc:
        print(f"selfplay: {exc}", file=sys.stderr)
        return EXIT_BAD_ARGS
    with contextlib.ExitStack() as stack:
        out = None
        if args.record:
            # Opened before the games, so that a bad path fails at once.
            try:
                out = stack.enter_context(open(args.record, "w", encoding="utf-8"))
            except OSError as exc:
                print(f"selfplay: cannot write {args.record}: {exc.strerror}", file=sys.stderr)
                return EXIT_IO
        if threads is not None:
            numba.set_num_threads(threads)
        show = args.progress == "always" or (args.progress == "auto" and games > BATCH and sys.stderr.isatty())
        bar = ProgressBar(games, sys.stderr) if show else None
        result = selfplay(games, players, bots, seed, record=out is not None, progress=bar)
        if out is not None:
            out.writelines(record_line(rec) + "\n" for rec in result.records)
    wins, ties = result.wins()
    means = result.scores.mean(axis=0)
    rate = games / max(result.seconds, 1e-9)
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
        }
        print(json.dumps(summary))
        return 0
    print(f"{games} games, {players} players, seeds {seed}..{seed + games - 1}")
    print(f"{'seat':>4}  {'bot':<10} {'mean score':>10} {'wins':>7} {'ties':>6}")
    for p in range(players):
        print(f"{p:>4}  {bots[p]:<10} {means[p]:>10.2f} {int(wins[p]):>7} {int(ties[p]):>6}")
    print(f"{rate:,.0f} games per second ({used} threads), {result.turns.mean():.1f} turns per game")
    if args.record:
        print(f"records written to {args.record}")
    return 0
