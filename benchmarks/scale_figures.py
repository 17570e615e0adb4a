"""The dataset figures of the README: games/s writing a Parquet dataset of greedy games on
one core, on all local cores without Dask, and on a local Dask cluster; the same games
played with no output; bytes per game in Parquet and in JSON lines; the time to start a
local cluster and warm its workers.

    .venv/bin/python benchmarks/scale_figures.py [--games 200000] [--workers 2] [--json]

Each figure is one run, from fresh temporary directories, with the load average of the
machine (``os.getloadavg``) before and after it: on a shared machine, compare runs made
under the same load only.  Kernels are loaded before any timing starts.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numba

from qwirkle_core.datasets import DEFAULT_CHUNK_SIZE, load_chunk_kernels, read_records, write_dataset
from qwirkle_core.records import record_line
from qwirkle_core.selfplay import play_batches
from qwirkle_core.warmup import warm_kernels

BATCH = 5000


def load() -> float:
    return round(os.getloadavg()[0], 2)


def no_output(games: int, parallel: bool) -> float:
    """Games per second of the same games played with no log and nothing written (the
    library's own path: one thread per core over the serial loop when ``parallel``)."""
    for _ in play_batches(2, 2, ["greedy", "greedy"], seed=0, parallel=parallel):
        pass
    began = time.perf_counter()
    for _ in play_batches(games, 2, ["greedy", "greedy"], seed=0, parallel=parallel, batch=BATCH):
        pass
    return games / (time.perf_counter() - began)


def cpu_seconds() -> float:
    """CPU time of this process and of its children that ended (a local cluster's workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def measure(label: str, games: int, func: Any) -> dict[str, Any]:
    """Run ``func``; its figures with the wall time, the CPU time spent (this process and
    the cluster's workers) and the load average before and after."""
    before = load()
    began = time.perf_counter()
    cpu = cpu_seconds()
    value = func()
    cpu = cpu_seconds() - cpu
    row = {"figure": label, "load_before": before, "load_after": load(), "wall_s": round(time.perf_counter() - began, 1),
           "games_per_cpu_second": round(games / cpu)}
    row.update(value if isinstance(value, dict) else {"games_per_second": round(value)})
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print only the JSON rows")
    args = parser.parse_args()
    n = args.games
    cores = numba.get_num_threads()
    warm_kernels()
    tmp = Path(tempfile.mkdtemp(prefix="qwirkle-figures-"))
    rows = []
    try:
        def dataset(name: str, **kwargs: Any) -> dict[str, Any]:
            summary = write_dataset(tmp / name, n, 2, ["greedy"], seed=0, **kwargs)
            size = sum(p.stat().st_size for p in (tmp / name).rglob("*.parquet"))
            return {"games_per_second": round(summary.games_per_second), "bytes_per_game": round(size / n, 1),
                    "startup_s": round(summary.startup_seconds, 2), "where": summary.where}

        numba.set_num_threads(1)
        rows.append(measure("no output, one core", n, lambda: no_output(n, parallel=False)))
        rows.append(measure("Parquet, one core (selfplay --out --threads 1)", n, lambda: dataset("one")))
        numba.set_num_threads(cores)
        rows.append(measure(f"no output, {cores} cores", n, lambda: no_output(n, parallel=True)))
        rows.append(measure(f"Parquet, {cores} cores without Dask (selfplay --out)", n, lambda: dataset("all")))
        rows.append(measure(f"Parquet, {args.workers}-worker local Dask cluster (selfplay --out --workers "
                            f"{args.workers})", n, lambda: dataset("dask", workers=args.workers)))
        sample = min(n, DEFAULT_CHUNK_SIZE)
        json_bytes = 0
        for i, record in enumerate(read_records(tmp / "one")):
            if i == sample:
                break
            json_bytes += len(record_line(record)) + 1
        rows.append({"figure": f"JSON lines (selfplay --record), bytes per game over the first {sample} games",
                     "bytes_per_game": round(json_bytes / sample, 1)})
        print(json.dumps(rows[-1]), flush=True)
        starts = []
        from qwirkle_core import cluster

        for _ in range(3):
            with cluster.connect(args.workers, None, load_kernels=load_chunk_kernels) as (_, ready):
                starts.append(ready)
        rows.append({"figure": f"start a {args.workers}-worker local cluster and warm its workers",
                     "seconds": [round(s, 2) for s in starts], "load": load()})
        print(json.dumps(rows[-1]), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not args.json:
        print()
        for row in rows:
            print(" | ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
