"""Compile every kernel ahead of use: ``qwirkle-core warmup`` (or :func:`warmup`).

numba compiles a kernel the first time it runs and keeps the result in an on-disk
cache; a new environment (a fresh virtual environment, a cluster worker, a CI job)
pays the compilation once.  :func:`warmup` pays it up front, for every kernel, in a
few processes side by side (compiling is single-threaded, so one process per core
helps), and says where the cache lives and how long it took.
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from . import _jit
from .errors import QwirkleError, show

# Each group runs in its own process and compiles a share of the kernels through the
# public API (so the cached entry points are the ones real calls use).  The groups are
# listed longest first (measured on 2 cores), so that two processes finish at about
# the same time.  A group may set ``skipped`` to a reason (an optional extra that is
# missing); otherwise _OUTCOME reports whether it compiled or only loaded kernels.
GROUPS: dict[str, str] = {
    # The analysis (engine sim/analyse/solve, the sim and endgame bots): simulation to a
    # depth and to the end, then an endgame solved once the bag is empty.
    "analysis": """
from qwirkle_core.game import Game
from qwirkle_core.bots import make_bot
from qwirkle_core.analysis.simulation import simulate
from qwirkle_core.analysis.endgame import solve_endgame
from qwirkle_core.analysis.simulation import win_probability
win_probability(10, 30)
g = Game(players=2, seed=1)
greedy = make_bot("greedy")
g.push(greedy.choose(g))  # past the opening, so the candidates hold exchanges too
simulate(g, iterations=2, seed=1); simulate(g, iterations=2, plies=None, seed=1)
while g.bag_size and not g.is_over:
    g.push(greedy.choose(g))
if not g.is_over:
    solve_endgame(g)
""",
    "queries": """
from qwirkle_core import Board, parse_tiles, queries
b = Board("Rc@0,0 Rs@0,1 Bs@1,1")
h = parse_tiles("Rd Bd Gs Yc Rs Pl")
queries.top_moves(b, h, 3); queries.moves_with_tiles(b, h, parse_tiles("Rd"))
queries.moves_with_tiles(b, h, parse_tiles("Rd"), any_of=True)
queries.moves_on_cells(b, h, [(0, 2)]); queries.qwirkle_slots(b); queries.move_risk(b, h)
queries.position_planes(b, 16)
for threads in (None, 1):  # (one thread runs the serial kernels)
    queries.batch_counts([(b, h)], threads); queries.batch_best_scores([(b, h)], threads)
    queries.batch_moves([(b, h)], threads)
""",
    "envs": """
from qwirkle_core.game import Game
from qwirkle_core.envs import VectorQwirkle, legal_substeps
env = VectorQwirkle(2, players=2, seed=1, opponents="greedy")
env.reset()
for _ in range(4):
    env.step(env.random_actions())
legal_substeps(Game(players=2, seed=1))
# A search opponent's seats, played between the kernel steps, to a game's end (three
# players: the endgame bot plays greedy throughout, so nothing is solved).
env = VectorQwirkle(1, players=3, seed=1, opponents="endgame")
env.reset()
while not env.step(env.random_actions())[3][0]:
    pass
try:
    import pyspiel
except ImportError:
    pass
else:  # the OpenSpiel game (the rl extra): its chance nodes and observations
    import qwirkle_core.envs.openspiel
    import numpy as np
    state = pyspiel.load_game("python_qwirkle").new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(40):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.observation_tensor(0); state.information_state_tensor(0)
            state.apply_action(int(rng.choice(state.legal_actions())))
    state.to_game()
""",
    "games": """
from qwirkle_core.game import Game
from qwirkle_core.bots import make_bot
from qwirkle_core.selfplay import selfplay
from qwirkle_core.warmup import bot_mixes
for seats in bot_mixes():  # the game loop is compiled for the set of bots in play
    selfplay(1, len(seats), list(seats), parallel=False, record=True)  # records too
g = Game(players=2, seed=1)
g.legal_actions()
for name in ("random", "greedy", "heuristic"):
    make_bot(name).choose(g)
g.push(make_bot("greedy").choose(g)); g.legal_actions(); g.determinize(0, seed=1)
""",
    "rollouts": """
from qwirkle_core.game import Game
from qwirkle_core.bots import rollouts
# Greedy only: no command runs rollouts, and each other set of bots would add ~10 s.
rollouts(Game(players=2, seed=1), ["greedy", "greedy"], 2, viewer=0)
""",
    "moves": """
from qwirkle_core import Board, Move, parse_tiles
b = Board("Rc@0,0 Rs@0,1 Bs@1,1")
h = parse_tiles("Rd Bd Gs Yc Rs Pl")
b.legal_moves(h); b.count_moves(h); b.has_move(h); b.best_moves(h); b.legal_tile_masks()
b.score(Move.from_text("Rd@0,2")); b.push(Move.from_text("Rd@0,2")); b.pop()
e = Board(); e.legal_moves(h); e.count_moves(h); e.has_move(h); e.best_moves(h)
Board.from_json(b.to_json()); Board.from_placements(b.placements())
""",
    # What a dataset chunk task runs (selfplay --out, check): with the scale extra only.
    "datasets": """
try:
    import pyarrow
except ImportError:
    skipped = "skipped (needs the scale extra: pip install '.[scale]')"
else:
    from qwirkle_core.warmup import warm_kernels
    warm_kernels()
""",
}


def bot_mixes() -> list[tuple[str, ...]]:
    """One seating for each set of built-in bots that can be in play: the game loop's
    kernels compile once for each set (the code of a bot no seat plays is left out),
    so warming all of them means one game of each."""
    names = ("random", "greedy", "heuristic")
    mixes: list[tuple[str, ...]] = []
    for k in range(1, len(names) + 1):
        for mix in itertools.combinations(names, k):
            mixes.append(mix * 2 if k == 1 else mix)
    return mixes


_OUTCOME = """
from qwirkle_core import _jit as _qwirkle_jit
print(globals().get("skipped") or ("compiled" if _qwirkle_jit.compiled_here() else "loaded from the cache"))
"""


@dataclass
class WarmupReport:
    """What :func:`warmup` did: seconds and outcome per group, failures, the cache's place."""

    cache: str
    jobs: int = 1
    seconds: float = 0.0
    groups: dict[str, float] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether every group ran (compiled, loaded from the cache, or was skipped)."""
        return not self.failures

    @property
    def compiled(self) -> bool:
        """Whether any group compiled (rather than finding every kernel cached)."""
        return any(outcome == "compiled" for outcome in self.outcomes.values())

    def lines(self) -> list[str]:
        """The report in a few lines of text."""
        groups = len(self.groups) + len(self.failures)
        done = "compiled the kernels" if self.compiled else "the kernels were ready"
        processes = "1 process" if self.jobs == 1 else f"{self.jobs} processes"
        out = [f"{done} in {self.seconds:.1f} s ({groups} groups, {processes} at a time)"]
        out += [group_line(name, self.groups[name], self.outcomes.get(name, "")) for name in self.groups]
        out += [group_line(name, 0.0, "", message) for name, message in self.failures.items()]
        out.append(f"cache: {self.cache}")
        return out


def group_line(name: str, seconds: float, outcome: str, error: str | None = None) -> str:
    """One group's line of the report: ``  moves: 41.2 s (compiled)``, or
    ``  moves: FAILED: ...`` when it failed with ``error``.  ``name``, ``outcome`` and
    ``error`` are text, ``seconds`` a finite number."""
    if not isinstance(name, str) or not isinstance(outcome, str) or not (error is None or isinstance(error, str)):
        raise QwirkleError(
            f"name, outcome and error (or None) are text, got {show(name)}, {show(outcome)}, {show(error)}"
        )
    try:
        value = float(seconds) if isinstance(seconds, numbers.Real) and not isinstance(seconds, bool) else math.nan
    except OverflowError:  # an int past the floats
        value = math.nan
    if not math.isfinite(value):
        raise QwirkleError(f"seconds is a finite number, got {show(seconds)}")
    seconds = value
    if error is not None:
        return f"  {name}: FAILED: {error}"
    return f"  {name}: {seconds:.1f} s ({outcome})" if outcome else f"  {name}: {seconds:.1f} s"


def _run_group(name: str, on_start: Callable[[str], None] | None = None) -> tuple[str, float, str, str | None]:
    """Run one group in a fresh process: (name, seconds, outcome, error or None);
    ``on_start(name)`` first."""
    if on_start is not None:
        on_start(name)
    began = time.perf_counter()
    # ``python -c`` puts the current directory first on the path: run from a checkout of
    # the sources, the child would import (and compile) the checkout's package instead of
    # this one.  It imports the package this process runs, wherever it is installed.
    this_package = str(Path(_jit.__file__).resolve().parent.parent)
    first = f"import sys; sys.path[0:1] = [{this_package!r}]\n"
    proc = subprocess.run(
        [sys.executable, "-c", first + GROUPS[name] + _OUTCOME],
        capture_output=True,
        text=True,
        check=False,
    )
    error = None
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        error = lines[-1] if lines else f"exit status {proc.returncode}"
    printed = proc.stdout.strip().splitlines()
    return name, time.perf_counter() - began, printed[-1] if printed else "", error


def warmup(
    jobs: int | None = None, on_group: Callable[[str, float, str, str | None], None] | None = None,
    on_start: Callable[[str], None] | None = None,
) -> WarmupReport:
    """Compile every kernel into the on-disk cache, ``jobs`` processes at a time
    (default: one per core, at most one per group).  ``on_start(name)`` is called (on
    a worker thread) as each group starts, ``on_group(name, seconds, outcome, error)``
    (on this thread) as each finishes: the command line prints a line per group and,
    every few seconds, which groups are still compiling, so a first warm-up of minutes
    is never silent.  Returns a :class:`WarmupReport`."""
    if jobs is not None and (type(jobs) is not int or jobs < 1):
        raise QwirkleError(f"jobs is a positive number of processes, got {jobs!r}")
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(GROUPS)))
    report = WarmupReport(cache=_jit.cache_location(), jobs=jobs)
    began = time.perf_counter()
    finished: dict[str, tuple[float, str, str | None]] = {}
    with ThreadPoolExecutor(jobs) as pool:
        for future in as_completed([pool.submit(_run_group, name, on_start) for name in GROUPS]):
            name, seconds, outcome, error = future.result()
            finished[name] = (seconds, outcome, error)
            if on_group is not None:
                on_group(name, seconds, outcome, error)
    for name in GROUPS:  # the report lists the groups in their fixed order
        seconds, outcome, error = finished[name]
        if error is None:
            report.groups[name] = seconds
            report.outcomes[name] = outcome
        else:
            report.failures[name] = error
    report.seconds = time.perf_counter() - began
    return report


def warm_kernels(replay: bool = True) -> float:
    """Load every kernel a dataset chunk task runs, in this process (from numba's cache,
    or by compiling it where there is none; needs the ``scale`` extra): for each set of
    bots that can be in play (:func:`bot_mixes`: the game loop is compiled once per
    set), one game played and turned into tables, and with ``replay`` (what a check
    task runs) replayed under the rules; so that no task compiles, whatever bots it
    seats.  Returns the seconds.  The work is ``datasets.load_chunk_kernels``, which
    the dataset writers and the cluster's workers call themselves."""
    from .datasets import load_chunk_kernels

    return load_chunk_kernels(replay)
