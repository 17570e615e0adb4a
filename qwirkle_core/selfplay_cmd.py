"""The ``selfplay`` command: many games between built-in bots, played inside numba.

    python -m qwirkle_core selfplay --games 1000 --players 2 --bots greedy,heuristic --seed 7

Game i is dealt from seed ``S + i``; its record (``--record FILE``, one JSON line per
game, the qwirkle-record/1 format) replays with ``Game.from_record``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numba
import numpy as np
import numpy.typing as npt

from . import _selfplay as engine
from ._prng import SEED_LIMIT, seed_words
from .bots import BOT_IDS
from .errors import QwirkleError
from .game import MAX_PLAYERS, MIN_PLAYERS, RECORD_FORMAT, record_line
from .tiles import ALL_TILES

BATCH = 256  # games per engine call: the progress bar moves once per batch
LOG_CAPACITY = 256  # turns logged per game; a longer game is played again alone
EXIT_BAD_ARGS = 2
EXIT_IO = 1
MAX_THREADS: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # numba has no stubs here


class SelfPlayArgumentError(QwirkleError):
    """A bad value for one of the selfplay options."""


@dataclass
class SelfPlayResult:
    """Final scores (games x players), turns per game, and the time the games took."""

    scores: npt.NDArray[np.int64]
    turns: npt.NDArray[np.int64]
    seconds: float
    records: list[dict[str, Any]] = field(default_factory=list)

    def wins(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Per seat: games it won alone, and games it shared the top score in."""
        top = self.scores.max(axis=1, keepdims=True)
        at_top = self.scores == top
        alone = at_top.sum(axis=1, keepdims=True) == 1
        return (at_top & alone).sum(axis=0), (at_top & ~alone).sum(axis=0)


def parse_bots(text: str, players: int) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    for name in names:
        if name not in BOT_IDS:
            raise SelfPlayArgumentError(f"unknown bot {name!r} (choose from {', '.join(BOT_IDS)})")
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise SelfPlayArgumentError(f"--bots names one bot, or one per seat ({players}), got {len(names)}")
    return names


def _int_option(text: Any, option: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise SelfPlayArgumentError(f"{option} takes an integer, got {text!r}") from None
    if not low <= value <= high:
        raise SelfPlayArgumentError(f"{option} must be in {low}..{high}, got {value}")
    return value


def record_from_log(players: int, seed: int, log: npt.NDArray[np.int32], scores: Sequence[int]) -> dict[str, Any]:
    """The qwirkle-record/1 object of one engine game, from its turn log."""

    def tiles(kinds: npt.NDArray[np.int32]) -> list[list[int]]:
        return [ALL_TILES[int(k)].as_json() for k in kinds]

    turns = []
    for row in log:
        turn: dict[str, Any] = {
            "player": int(row[engine.L_PLAYER]),
            "hand": tiles(row[engine.L_HAND : engine.L_HAND + row[engine.L_HAND_SIZE]]),
        }
        n = int(row[engine.L_N])
        drawn = tiles(row[engine.L_DRAWN : engine.L_DRAWN + row[engine.L_DRAWN_N]])
        if row[engine.L_TYPE] == engine.PLACE:
            turn["action"] = "place"
            turn["placements"] = [
                [int(row[engine.L_ROWS + s]), int(row[engine.L_COLS + s])] + ALL_TILES[int(row[engine.L_KINDS + s])].as_json()
                for s in range(n)
            ]
            turn["score"] = int(row[engine.L_SCORE])
            turn["drawn"] = drawn
        elif row[engine.L_TYPE] == engine.EXCHANGE:
            turn["action"] = "exchange"
            turn["tiles"] = tiles(row[engine.L_KINDS : engine.L_KINDS + n])
            turn["drawn"] = drawn
        else:
            turn["action"] = "pass"
        turns.append(turn)
    return {
        "format": RECORD_FORMAT,
        "players": players,
        "seed": seed,
        "turns": turns,
        "scores": [int(s) for s in scores[:players]],
    }


def selfplay(
    games: int,
    players: int,
    bots: Sequence[str],
    seed: int = 0,
    record: bool = False,
    parallel: bool = True,
    progress: Callable[[int], None] | None = None,
) -> SelfPlayResult:
    """Play ``games`` games (game i from seed ``seed + i`` mod 2**64) with the built-in
    ``bots`` (one name per seat) inside numba, across all cores unless ``parallel`` is
    False.  With ``record``, also return each game's record."""
    bot_ids = np.zeros(engine.MAX_PLAYERS, np.int64)
    bot_ids[:players] = [BOT_IDS[b] for b in bots]
    tie_rank = np.arange(engine.MAX_PLAYERS, dtype=np.int64)
    play_games = engine.play_games_parallel if parallel else engine.play_games_serial
    capacity = LOG_CAPACITY if record else 0
    all_scores = np.zeros((games, players), np.int64)
    all_turns = np.zeros(games, np.int64)
    records: list[dict[str, Any]] = []
    seconds = 0.0
    # Load (or compile) the kernels outside the timed calls: one game, not counted.
    low, high = seed_words([seed])
    play_games(players, low, high, tie_rank, bot_ids, engine.empty_logs(1, 0))
    for start in range(0, games, BATCH):
        seeds = [(seed + i) % SEED_LIMIT for i in range(start, min(games, start + BATCH))]
        low, high = seed_words(seeds)
        logs = engine.empty_logs(len(seeds), capacity)
        began = time.perf_counter()
        scores, turns = play_games(players, low, high, tie_rank, bot_ids, logs)
        seconds += time.perf_counter() - began
        all_scores[start : start + len(seeds)] = scores[:, :players]
        all_turns[start : start + len(seeds)] = turns
        if record:
            for i, game_seed in enumerate(seeds):
                log = logs[i]
                if turns[i] > capacity:
                    # A long game (random bots exchange a lot): play it again, all logged.
                    log = engine.empty_logs(1, int(turns[i]))[0]
                    engine.play_game(players, low[i], high[i], tie_rank, bot_ids, log)
                records.append(record_from_log(players, game_seed, log[: turns[i]], scores[i]))
        if progress is not None:
            progress(start + len(seeds))
    return SelfPlayResult(all_scores, all_turns, seconds, records)


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
