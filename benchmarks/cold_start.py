"""Start-up cost in new processes: cold (an empty numba cache: a new environment) and
warm (the cache filled by an earlier process).

    python benchmarks/cold_start.py [--repeat 3] [--only first_query,selfplay_game]

Each measurement is a fresh ``python -c`` process with its own ``NUMBA_CACHE_DIR``
(a new empty directory for every cold run: each first call compiles its kernel and
caches it).  It prints, per case, the wall-clock seconds of each run, their median and
best, and the CPU seconds (user + system) of the child, which a busy machine inflates
much less than the wall clock.  The pytest
benchmark ``bench_movegen.py::test_import_and_first_call`` measures the first case
under pytest-benchmark.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CASES = {
    # import + a board from text + its legal moves: what a new user's first call costs
    "first_query": (
        "from qwirkle_core import Board, parse_tiles; "
        "Board('Rc@0,0 Rs@0,1 Bs@1,1').legal_moves(parse_tiles('Rd Bd Gs Yc Rs Pl'))"
    ),
    # the README's first queries: moves, a score, the masks, an opening
    "first_queries": (
        "import qwirkle_core as q; "
        "b = q.Board('Rc@0,0 Rs@0,1 Bs@1,1'); b.legal_moves(q.parse_tiles('Rd Bd Gx Yc Pl Ob')); "
        "b.score(q.Move.from_text('Rd@0,2')); b.legal_tile_masks(); "
        "q.Board().legal_moves(q.parse_tiles('Rd'))"
    ),
    # one whole self-play game through the library (what `selfplay --games 1` runs)
    "selfplay_game": (
        "from qwirkle_core.selfplay import selfplay; selfplay(1, 2, ['greedy', 'greedy'])"
    ),
}


def run_once(code: str, cache_dir: str, root: Path = ROOT) -> tuple[float, float]:
    """(wall seconds, child CPU seconds) of one fresh process importing the package
    from ``root``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default=",".join(CASES), help="cases, comma-separated")
    parser.add_argument("--root", type=Path, default=ROOT, help="where to import qwirkle_core from (another checkout)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only.split(","):
            code = CASES[name]
            cold = [run_once(code, tempfile.mkdtemp(dir=tmp), args.root) for _ in range(args.repeat)]
            warm_dir = tempfile.mkdtemp(dir=tmp)
            run_once(code, warm_dir, args.root)
            warm = [run_once(code, warm_dir, args.root) for _ in range(args.repeat)]
            for label, runs in (("cold", cold), ("warm", warm)):
                walls = [w for w, _ in runs]
                cpus = [c for _, c in runs]
                print(
                    f"{name:14s} {label:4s}: wall median {statistics.median(walls):6.2f} s, best {min(walls):6.2f} s; "
                    f"cpu median {statistics.median(cpus):6.2f} s  (runs: {', '.join(f'{w:.2f}' for w in walls)})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
