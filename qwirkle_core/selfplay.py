"""Self-play as a library: many games between bots, played inside numba.

>>> result = selfplay(4, 2, ["greedy", "greedy"], seed=7, parallel=False)
>>> result.scores.shape, int(result.turns.min()) > 0
((4, 2), True)

Game i is dealt from seed ``seed + i``; with ``record=True`` each game's record (the
``qwirkle-record/1`` format, :mod:`qwirkle_core.records`) replays with
:func:`qwirkle_core.records.game_from_record`.  :func:`play_batches` gives the games a
batch at a time (with their records as JSON-lines text, written by a kernel), which is
what the ``selfplay`` command streams to its record file.

The built-in kernel bots (:data:`qwirkle_core.bots.BOT_IDS`) play inside numba.  When
any seat is a search bot (``sim``, ``endgame``: the other names of
:data:`qwirkle_core.bots.BOTS`), every game of the run is played in Python instead
(:func:`qwirkle_core.bots.play` on ``Game(players, seed + i)``, seat p's bot
``make_bot(name, seed=seed + i, seat=p, movetime=movetime)``), its games spread over
processes as :mod:`qwirkle_core.match` spreads its deals; the results and the records
are those of the same games (the kernel bots decide with the same kernels either way).
``movetime`` (seconds a move) is for the search bots only.  Without it their games are
the same for the same seed; with it a search stops where the clock says, so its games
may differ from one run to the next.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from . import _batch, _bot_kernels, _constants, _layout, _recordtext
from ._ints import int_value, read_int
from ._prng import SEED_LIMIT, seed_words
from .bots import BOT_IDS, BOTS, make_bot, play
from .errors import QwirkleError, RunawayGameError, show
from .game import END_NAMES, Game
from .records import _check_log, read_records, record_from_game, record_line

BATCH = 256  # games per kernel call: the progress bar moves once per batch
LOG_CAPACITY = 256  # turns logged per game; a longer game is played again alone


class SelfPlayArgumentError(QwirkleError):
    """A bad value for one of the selfplay options."""


@dataclass
class SelfPlayResult:
    """Final scores (games x players), turns per game, how each game ended (END_*
    codes of ``qwirkle_core._layout``), and the time the games took."""

    scores: npt.NDArray[np.int64]
    turns: npt.NDArray[np.int64]
    seconds: float
    records: list[dict[str, Any]] = field(default_factory=list)
    ends: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))

    def wins(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Per seat: games it won alone, and games it shared the top score in."""
        top = self.scores.max(axis=1, keepdims=True)
        at_top = self.scores == top
        alone = at_top.sum(axis=1, keepdims=True) == 1
        return (at_top & alone).sum(axis=0), (at_top & ~alone).sum(axis=0)


@dataclass
class Batch:
    """Games ``start .. start + len(seeds) - 1`` of a run: their seeds, final scores
    (games x players), turns, how each ended, the seconds the kernel took, and, when
    asked for, their records as JSON lines (bytes, one line per game, in order)."""

    start: int
    seeds: list[int]
    scores: npt.NDArray[np.int64]
    turns: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]
    seconds: float
    records_text: bytes = b""


def parse_bots(text: str, players: int) -> list[str]:
    """Bot names from ``"greedy"`` (every seat) or ``"greedy,sim"`` (one per seat): any
    name of :data:`qwirkle_core.bots.BOTS`."""
    if not isinstance(text, str):
        raise SelfPlayArgumentError(f"bots are named in a string like 'greedy,random', got {show(text)}")
    players = read_int(players, "players", 2, _constants.MAX_PLAYERS, SelfPlayArgumentError)
    names = [name.strip() for name in text.split(",")]
    for name in names:
        if name not in BOTS:
            raise SelfPlayArgumentError(f"unknown bot {show(name)} (choose from {', '.join(BOTS)})")
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise SelfPlayArgumentError(f"bots names one bot, or one per seat ({players}), got {len(names)}")
    return names


MAX_SCORE = 999_999  # a final score in a record (the kernel's buffer holds 6 digits a seat)


def records_text(
    players: int,
    seeds: Sequence[int],
    scores: npt.NDArray[np.int64],
    turns: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64],
    logs: npt.NDArray[np.int32],
) -> bytes:
    """The JSON-lines records of games logged by the game loop (one kernel call), as
    :func:`play_batches` gives them: ``seeds`` (n seeds), ``scores`` (int64[n, 6]),
    ``turns`` and ``ends`` (int64[n]), ``logs`` (int32[n, capacity, LOG_COLS]).  Each
    is checked before the kernel runs (QwirkleError)."""
    players = read_int(players, "players", 2, _constants.MAX_PLAYERS)
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (Sequence, np.ndarray)):
        raise QwirkleError(f"seeds is a sequence of seeds, got {show(seeds)}")
    if isinstance(seeds, np.ndarray) and seeds.ndim != 1:
        raise QwirkleError(f"seeds is a sequence of seeds, got an array of shape {seeds.shape}")
    read = [int_value(s) for s in seeds]
    seed_list = [s for s in read if s is not None and 0 <= s < SEED_LIMIT]
    if len(seed_list) != len(read):
        raise QwirkleError(f"seeds are integers in [0, 2**64), got {show(seeds)}")
    n = len(seed_list)

    def array(value: Any, name: str, dtype: type, shape: tuple[int | None, ...]) -> Any:
        if (
            not isinstance(value, np.ndarray)
            or value.dtype != dtype
            or value.ndim != len(shape)
            or any(want is not None and got != want for got, want in zip(value.shape, shape))
        ):
            wanted = ", ".join("any" if d is None else str(d) for d in shape)
            raise QwirkleError(f"{name} is an array of {np.dtype(dtype).name}, shape ({wanted}), got {show(value)}")
        return value

    array(scores, "scores", np.int64, (n, None))
    if scores.shape[1] < players:
        raise QwirkleError(f"scores holds a score per seat ({players}) for each game, got shape {scores.shape}")
    array(turns, "turns", np.int64, (n,))
    array(ends, "ends", np.int64, (n,))
    array(logs, "logs", np.int32, (n, None, _layout.LOG_COLS))
    if bool(((scores[:, :players] < 0) | (scores[:, :players] > MAX_SCORE)).any()):
        raise QwirkleError(f"final scores are 0..{MAX_SCORE:,}")
    if bool(((turns < 0) | (turns > logs.shape[1])).any()):
        raise QwirkleError(f"turns are 0..{logs.shape[1]} (the turns each log holds)")
    rows = logs[np.arange(logs.shape[1]) < turns[:, None]]  # the rows logged
    try:
        _check_log(players, 0, rows, [0] * players, 0)
    except QwirkleError as exc:
        raise QwirkleError(f"logs: {exc}") from None
    if bool(((rows[:, _layout.L_TYPE] == _layout.PLACE) & (rows[:, _layout.L_SCORE] < 0)).any()):
        raise QwirkleError("logs: a placement scores 0 points or more")
    return _records_text(players, seed_list, scores, turns, ends, logs, _recordtext.format_records)


def _records_text(
    players: int,
    seeds: Sequence[int],
    scores: npt.NDArray[np.int64],
    turns: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64],
    logs: npt.NDArray[np.int32],
    format_records: Callable[..., Any],
) -> bytes:
    """:func:`records_text` of arguments known good (the game loop's own arrays);
    ``format_records`` is the kernel, or its plain-Python twin while it compiles."""
    n = len(seeds)
    digits, lengths = _recordtext.seed_digits(seeds)
    size = n * _recordtext.RECORD_BYTES + int(turns.sum()) * _recordtext.TURN_BYTES
    out = np.empty(size, np.uint8)
    written = format_records(players, digits, lengths, scores, turns, ends, logs, out)
    return out[:written].tobytes()


def default_threads() -> int:
    """Threads a parallel run uses: numba's thread count (every core, unless
    ``NUMBA_NUM_THREADS`` or ``numba.set_num_threads`` says fewer)."""
    return int(numba.get_num_threads())


MAX_GAMES = 10**9  # per run, as the command line allows


def searches(bots: Sequence[str]) -> bool:
    """Whether any of ``bots`` (names of :data:`qwirkle_core.bots.BOTS`) is a search
    bot, so that a run of them is played in Python rather than inside numba."""
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence):
        raise SelfPlayArgumentError(f"bots is a list of bot names, got {show(bots)}")
    for name in bots:
        if not isinstance(name, str) or name not in BOTS:
            raise SelfPlayArgumentError(f"unknown bot {show(name)} (choose from {', '.join(BOTS)})")
    return any(name not in BOT_IDS for name in bots)


def check_movetime(movetime: Any, bots: Sequence[str]) -> float | None:
    """``movetime`` for a run of ``bots``: None, or seconds a move (above 0, at most
    :data:`qwirkle_core.match.MAX_MOVETIME`) when some seat is a search bot; a
    SelfPlayArgumentError otherwise (the kernel bots take no budget)."""
    from .match import MatchArgumentError
    from .match import check_movetime as read_movetime  # here: match imports this module

    search = searches(bots)
    try:
        seconds = read_movetime(movetime)
    except MatchArgumentError as exc:
        raise SelfPlayArgumentError(str(exc)) from None
    if seconds is not None and not search:
        raise SelfPlayArgumentError(
            f"movetime is for the search bots ({', '.join(n for n in BOTS if n not in BOT_IDS)}): no seat plays one"
        )
    return seconds


def _check_run(games: Any, players: Any, bots: Any, seed: Any, batch: Any = BATCH) -> tuple[int, int, int, int]:
    """The arguments of a run, checked at the boundary (a SelfPlayArgumentError each),
    and returned as plain ints (games, players, seed, batch; numpy integers too)."""
    games = read_int(games, "games", 0, MAX_GAMES, SelfPlayArgumentError)
    players = read_int(players, "players", 2, _constants.MAX_PLAYERS, SelfPlayArgumentError)
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence) or len(bots) not in (1, players):
        raise SelfPlayArgumentError(f"bots names one bot for every seat, or one per seat ({players}), got {show(bots)}")
    for name in bots:
        if not isinstance(name, str) or name not in BOTS:
            raise SelfPlayArgumentError(f"unknown bot {show(name)} (choose from {', '.join(BOTS)})")
    seed = read_int(seed, "a seed", 0, SEED_LIMIT - 1, SelfPlayArgumentError)
    batch = read_int(batch, "batch", 1, 1 << 62, SelfPlayArgumentError)
    return games, players, seed, batch


def play_batches(
    games: int,
    players: int,
    bots: Sequence[str],
    seed: int = 0,
    record: bool = False,
    parallel: bool = True,
    batch: int = BATCH,
    threads: int | None = None,
    movetime: float | None = None,
) -> Iterator[Batch]:
    """Play ``games`` games (game i from seed ``seed + i`` mod 2**64) with the built-in
    ``bots`` (one name per seat) inside numba, at most ``batch`` games per kernel call,
    on ``threads`` threads (default: every core) unless ``parallel`` is False; yield
    the batches in order as they finish.

    The game loop releases the GIL, so batches on several Python threads run side by
    side (numba's parallel loop would cost seconds more to compile on first use).  The
    games do not depend on the number of threads.  A batch's ``seconds`` is the wall
    time it added to the run, so their sum is the run's time from the first game on
    (compiling, and the time the caller spends between batches, left out).

    With a search bot in some seat (see the module's docstring) the games are played in
    Python on ``threads`` processes instead (default: one per core; one, in this
    process, unless ``parallel``), a few games a batch, and ``movetime`` is each search
    bot's budget of seconds a move (None: a fixed amount of work a move).

    Raises :class:`RunawayGameError` for a game that reaches the turn cap."""
    games, players, seed, batch = _check_run(games, players, bots, seed, batch)
    if threads is not None:
        threads = read_int(threads, "threads", 1, 1 << 20, SelfPlayArgumentError)
    movetime = check_movetime(movetime, bots)
    if searches(bots):
        names = list(bots) * players if len(bots) == 1 else list(bots)
        yield from _python_batches(games, players, names, seed, record, parallel, batch, threads, movetime)
        return
    bot_ids = np.zeros(_constants.MAX_PLAYERS, np.int64)
    bot_ids[:players] = [BOT_IDS[b] for b in bots]
    tie_rank = np.arange(_constants.MAX_PLAYERS, dtype=np.int64)
    n_threads = max(1, threads if threads is not None else default_threads()) if parallel else 1
    capacity = LOG_CAPACITY if record else 0
    in_play = _bot_kernels.bots_in_play(bot_ids, players)  # only their code is compiled
    # Load (or compile) the kernel outside the timed calls: a call for no games.
    low, high = seed_words([])
    _batch.play_games(players, low, high, tie_rank, bot_ids, _batch.empty_logs(0, 0), *in_play)

    def play(start: int, count: int) -> tuple[Batch, float]:
        kernel = _batch.play_games
        formatter = _recordtext.format_records
        seeds = [(seed + i) % SEED_LIMIT for i in range(start, min(games, start + count))]
        lo, hi = seed_words(seeds)
        logs = _batch.empty_logs(len(seeds), capacity)
        scores, turns, ends = kernel(players, lo, hi, tie_rank, bot_ids, logs, *in_play)
        text = b""
        if record and not np.any(ends == _layout.END_RUNAWAY):
            long_games = np.flatnonzero(turns > capacity)
            if long_games.size:
                # Long games (random bots exchange a lot): play them again, all logged.
                wider = _batch.empty_logs(len(seeds), int(turns.max()))
                wider[:, :capacity] = logs
                for i in long_games:
                    kernel(players, lo[i : i + 1], hi[i : i + 1], tie_rank, bot_ids, wider[i : i + 1], *in_play)
                logs = wider
            text = _records_text(players, seeds, scores, turns, ends, logs, formatter)
        return Batch(start, seeds, scores[:, :players], turns, ends, 0.0, text), time.perf_counter()

    def checked(part: Batch) -> Batch:
        runaway = np.flatnonzero(part.ends == _layout.END_RUNAWAY)
        if runaway.size:
            raise RunawayGameError(
                f"the game of seed {part.seeds[int(runaway[0])]} ran past {_batch.MAX_TURNS} turns without ending"
            )
        return part

    last = time.perf_counter()
    # Batches small enough that every thread gets several (a steady progress bar).
    size = max(1, min(batch, -(-games // (4 * n_threads))))
    starts = list(range(0, games, size))
    if n_threads == 1:
        for start in starts:
            part, finished = play(start, size)
            part.seconds = finished - last
            yield checked(part)
            last = time.perf_counter()
        return
    with ThreadPoolExecutor(n_threads, thread_name_prefix="selfplay") as pool:
        window = 2 * n_threads  # batches in flight: bounded memory, threads never idle
        pending = deque(pool.submit(play, start, size) for start in starts[:window])
        queued = len(pending)
        try:
            while pending:
                part, finished = pending.popleft().result()
                if queued < len(starts):
                    pending.append(pool.submit(play, starts[queued], size))
                    queued += 1
                part.seconds = max(0.0, finished - last)
                last = max(last, finished)
                yield checked(part)
        finally:
            for future in pending:
                future.cancel()


def selfplay(
    games: int,
    players: int,
    bots: Sequence[str],
    seed: int = 0,
    record: bool = False,
    parallel: bool = True,
    progress: Callable[[int], None] | None = None,
    threads: int | None = None,
    movetime: float | None = None,
) -> SelfPlayResult:
    """Play ``games`` games (game i from seed ``seed + i`` mod 2**64) with ``bots``
    (one name per seat), the built-in kernel bots inside numba, across all cores unless
    ``parallel`` is False; with a search bot in some seat, in Python on processes (see
    :func:`play_batches`; ``movetime``: the search bots' seconds a move).  With
    ``record``, also return each game's record (kept in memory: to stream many games
    to a file, use :func:`play_batches`)."""
    games, players, seed, _ = _check_run(games, players, bots, seed)
    if progress is not None and not callable(progress):
        raise SelfPlayArgumentError(f"progress is a function (games done) or None, got {show(progress)}")
    movetime = check_movetime(movetime, bots)
    all_scores = np.zeros((games, players), np.int64)
    all_turns = np.zeros(games, np.int64)
    all_ends = np.zeros(games, np.int64)
    records: list[dict[str, Any]] = []
    seconds = 0.0
    for part in play_batches(games, players, bots, seed, record, parallel, threads=threads, movetime=movetime):
        done = part.start + len(part.seeds)
        all_scores[part.start : done] = part.scores
        all_turns[part.start : done] = part.turns
        all_ends[part.start : done] = part.ends
        seconds += part.seconds
        if record:
            records.extend(read_records(part.records_text.decode().splitlines()))
        if progress is not None:
            progress(done)
    return SelfPlayResult(all_scores, all_turns, seconds, records, all_ends)


_END_CODES = {name: code for code, name in END_NAMES.items()}
PYTHON_BATCH = 16  # games a task at most when the bots play in Python (seconds a game)


def _play_python_games(
    players: int, bots: Sequence[str], seeds: Sequence[int], movetime: float | None = None, record: bool = False
) -> Batch:
    """Games of ``bots`` (one name per seat, any of :data:`qwirkle_core.bots.BOTS`)
    played in Python, one for each of ``seeds``: ``Game(players, s)`` with seat p's bot
    ``make_bot(bots[p], seed=s, seat=p, movetime=movetime)`` (a worker's task, and the
    games self-play plays when a seat searches).  The Batch starts at 0; its records,
    if asked for, are the lines :func:`play_batches` writes for the same games."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (Sequence, np.ndarray)):
        raise SelfPlayArgumentError(f"seeds is a sequence of seeds, got {show(seeds)}")
    _, players, _, _ = _check_run(len(seeds), players, bots, 0)
    if len(bots) != players:
        raise SelfPlayArgumentError(f"bots names one bot per seat ({players}), got {show(bots)}")
    movetime = check_movetime(movetime, bots)
    options = {} if movetime is None else {"movetime": movetime}
    count = len(seeds)
    scores = np.zeros((count, players), np.int64)
    turns = np.zeros(count, np.int64)
    ends = np.zeros(count, np.int64)
    lines: list[str] = []
    began = time.perf_counter()
    for i, game_seed in enumerate(seeds):
        if isinstance(game_seed, bool) or not isinstance(game_seed, (int, np.integer)) or not 0 <= game_seed < SEED_LIMIT:
            raise SelfPlayArgumentError(f"a seed is an integer in [0, 2**64), got {show(game_seed)}")
        game_seed = int(game_seed)
        seated = [make_bot(name, seed=game_seed, seat=p, **options) for p, name in enumerate(bots)]
        try:
            game = play(Game(players, game_seed), seated)
        except RunawayGameError:
            raise RunawayGameError(
                f"the game of seed {game_seed} ran past {_batch.MAX_TURNS} turns without ending"
            ) from None
        scores[i] = game.scores
        turns[i] = game.turn_count
        ends[i] = _END_CODES[game.end] if game.end is not None else _layout.END_NONE
        if record:
            lines.append(record_line(record_from_game(game)) + "\n")
    seconds = time.perf_counter() - began
    return Batch(0, [int(s) for s in seeds], scores, turns, ends, seconds, "".join(lines).encode())


def _python_batches(
    games: int, players: int, bots: list[str], seed: int, record: bool, parallel: bool, batch: int,
    processes: int | None, movetime: float | None,
) -> Iterator[Batch]:
    """play_batches for bots that play in Python: tasks of a few games on processes
    (spawned, as qwirkle_core.match spawns its workers), yielded in order."""
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    from .match import _ignore_interrupts, default_processes

    workers = (processes if processes is not None else default_processes()) if parallel else 1
    workers = max(1, workers)
    # Small tasks, as a match has them: every worker busy to the end, the progress
    # moving often, an interrupted run waiting for little.
    size = max(1, min(batch, PYTHON_BATCH, games // (64 * workers)))
    starts = list(range(0, games, size))

    def seeds_of(start: int) -> list[int]:
        return [(seed + i) % SEED_LIMIT for i in range(start, min(games, start + size))]

    last = time.perf_counter()
    if workers == 1 or len(starts) <= 1:
        for start in starts:
            part = _play_python_games(players, bots, seeds_of(start), movetime, record)
            part.start = start
            now = time.perf_counter()
            part.seconds = now - last
            yield part
            last = time.perf_counter()
        return
    # spawn, not fork: the caller may run threads (a progress bar, numba's), which a
    # forked child would inherit in whatever state they were.
    context = multiprocessing.get_context("spawn")
    workers = min(workers, len(starts))
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_interrupts) as pool:
        window = 2 * workers  # tasks in flight: bounded memory, workers never idle
        pending: deque[tuple[int, Future[Batch]]] = deque()
        queued = 0

        def submit_next() -> None:
            nonlocal queued
            if queued < len(starts):
                start = starts[queued]
                pending.append((start, pool.submit(_play_python_games, players, bots, seeds_of(start), movetime, record)))
                queued += 1

        for _ in range(window):
            submit_next()
        try:
            while pending:
                start, future = pending.popleft()
                part = future.result()
                submit_next()
                now = time.perf_counter()
                part.start = start
                part.seconds = max(0.0, now - last)
                last = now
                yield part
        finally:
            for _, future in pending:
                future.cancel()
