"""The ``match`` command: two bots over mirrored pairs of games, and how they compare.

    python -m qwirkle_core match --bots greedy,heuristic --pairs 1200 --seed 0

Deal i is the game of seed ``S + i``, played twice with the seats swapped.  Prints a
table (or ``--json``: the :meth:`qwirkle_core.match.MatchResult.to_json` object) with
each bot's wins, win rate and its 95% interval (from the pairs), and mean spread; the
games are played by :func:`qwirkle_core.match.match`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from .._prng import SEED_LIMIT
from .._progress import Progress, pick_mode
from ..bots import BOT_IDS
from ..errors import QwirkleError
from ..match import (
    MAX_MOVETIME,
    MAX_PAIRS,
    MatchArgumentError,
    check_bot_names,
    check_movetime,
    in_numba,
    match,
)
from ..selfplay import BATCH
from . import NAME, fail

EXIT_BAD_ARGS = 2


def register(subparsers: Any) -> None:
    """Add the ``match`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "match",
        help="two bots over mirrored pairs of games: wins, win rate and its 95%% interval",
        description="Play two bots against each other: each deal twice, seats swapped, so the luck of "
        "the deal cancels; print each bot's wins, win rate with a 95% interval (from the pairs) "
        "and mean spread.",
    )
    # Values are parsed in run() so that a bad one gives one line, not argparse's usage text.
    parser.add_argument(
        "--bots", required=True, metavar="A,B",
        help=f"the two bots: built-in kernel bots ({', '.join(BOT_IDS)}) play inside numba, any other "
        "bot of make_bot in Python",
    )
    parser.add_argument("--pairs", default="100", metavar="N", help="deals, each played twice (default 100)")
    parser.add_argument("--seed", default="0", metavar="S", help="deal i is the game of seed S+i (default 0)")
    parser.add_argument(
        "--movetime", metavar="T",
        help="seconds a move for bots that take a budget (passed to make_bot; the kernel bots ignore it)",
    )
    parser.add_argument(
        "--processes", metavar="P",
        help="threads (kernel bots) or processes (other bots) to play on (default: one per core); "
        "the games do not depend on it",
    )
    parser.add_argument(
        "--progress", choices=("auto", "always", "never"), default="auto",
        help="progress on stderr: auto = a bar on a terminal, else a line every few seconds",
    )
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(handler=run)


def _int_option(text: str, option: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise MatchArgumentError(f"{option} takes an integer, got {text!r}") from None
    if not low <= value <= high:
        raise MatchArgumentError(f"{option} must be in {low:,}..{high:,}, got {value:,}")
    return value


def _parse(args: argparse.Namespace) -> tuple[list[str], int, int, float | None, int | None]:
    names = [name.strip() for name in args.bots.split(",")]
    if len(names) != 2 or not all(names):
        raise MatchArgumentError(f"--bots names two bots, like greedy,heuristic, got {args.bots!r}")
    pairs = _int_option(args.pairs, "--pairs", 1, MAX_PAIRS)
    seed = _int_option(args.seed, "--seed", 0, SEED_LIMIT - 1)
    movetime = None
    if args.movetime is not None:
        try:
            seconds = float(args.movetime)
        except ValueError:
            raise MatchArgumentError(f"--movetime takes seconds, got {args.movetime!r}") from None
        try:
            movetime = check_movetime(seconds)
        except MatchArgumentError:
            raise MatchArgumentError(
                f"--movetime is seconds a move, above 0 and at most {MAX_MOVETIME:g}, got {args.movetime!r}"
            ) from None
    processes = None if args.processes is None else _int_option(args.processes, "--processes", 1, 1024)
    return names, pairs, seed, movetime, processes


def _seed_range(seed: int, pairs: int) -> str:
    """The seeds of the deals as the match deals them: they wrap at 2**64, so a range
    that passes the last seed goes on from 0 and says so."""
    last = seed + pairs - 1
    if last < SEED_LIMIT:
        return f"{seed}..{last}"
    return f"{seed}..{last % SEED_LIMIT} (wrapping at 2**64)"


def run(args: argparse.Namespace) -> int:
    """The ``match`` command; returns the exit status."""
    try:
        names, pairs, seed, movetime, processes = _parse(args)
        check_bot_names(names)  # before the progress bar: an error is then its one line
    except QwirkleError as exc:
        return fail(str(exc), EXIT_BAD_ARGS)
    games = 2 * pairs
    # Kernel bots finish a batch in a blink: no bar for a match that short.  Other bots
    # take seconds a game: always say how far it is.
    quiet = args.progress != "always" and in_numba(names) and games <= BATCH
    mode = "off" if quiet else pick_mode(args.progress, sys.stderr)
    bar = Progress(f"{NAME}: match", games, mode=mode) if mode != "off" else None
    began = time.perf_counter()
    try:
        result = match(names, pairs, seed, movetime=movetime, processes=processes, progress=bar)
    except BaseException:  # a bad bot, an interrupt: the command line says so
        if bar is not None:
            bar.close(last_line=False)
        raise
    if bar is not None:
        bar.close()
    seconds = time.perf_counter() - began
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print(f"{pairs:,} pairs ({games:,} games), deals of seeds {_seed_range(seed, pairs)}, seats swapped in each pair")
    print(f"{'bot':<12} {'wins':>7} {'win rate':>9} {'95% interval':>14} {'mean spread':>12}")
    for b, name in enumerate(result.bots):
        low, high = result.ci95[b]
        interval = f"{100 * low:.1f}-{100 * high:.1f}%"
        print(
            f"{name:<12} {result.wins[b]:>7,} {100 * result.win_rate[b]:>8.1f}% {interval:>14} "
            f"{result.mean_spread[b]:>+12.2f}"
        )
    print(f"draws: {result.draws:,}; {seconds:.1f} s (kernels loaded included)")
    return 0
