"""Dask (``dask.distributed``) for datasets: reach or start a cluster, warm its workers
once, run chunk tasks with retries.

A worker loads the numba kernels from the on-disk cache when it joins (the
:class:`Warmup` plugin plays one game and replays it), so no task ever compiles.  A
local cluster's workers share this machine's cache, which the client fills first: with
a cold cache the kernels are compiled once, not once per worker.  On
a cluster of several machines, give every worker a cache first: run
``python -m qwirkle_core warmup`` (or one self-play game) on each machine, or in the
worker image, or point every worker at one shared ``NUMBA_CACHE_DIR``.  Workers
should run one thread each (``dask worker --nthreads 1 --nworkers N``): a chunk
keeps one core busy from start to end.  Give the workers :data:`QUIET_WORKERS`'
Dask configuration (no statistical profiler, slower housekeeping ticks; e.g.
``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False`` in their environment): on a
2-core machine Dask's defaults made a chunk 8 % slower than on a thread of one process.
Local clusters started here use it.

A scheduler is reached within :data:`CONNECT_TIMEOUT` seconds or not at all
(:class:`ClusterError`, naming its address).  A task that raises is not tried again
(a full disk, a directory not shared, a bad parameter fail the same way every time);
only the tasks of a worker that died are run again elsewhere, by the scheduler.

Needs the ``scale`` extra (``pip install '.[scale]'``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from uuid import uuid4

from .errors import QwirkleError, show

try:
    import dask.config
    from distributed import Client, LocalCluster, WorkerPlugin, as_completed
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import backends
except ImportError:  # pragma: no cover - CI installs the extra
    raise QwirkleError("clusters need dask.distributed: pip install '.[scale]'") from None

PLUGIN_NAME = "qwirkle-core-warmup"

# A chunk task keeps its core busy for seconds; Dask's housekeeping around it took that
# core from it.  On 2 cores, 60,000 greedy games on a 2-worker local cluster: a chunk
# took 2.6 s in a worker and 2.4 s on a thread of one process, and the statistical
# profiler (a stack sample every 10 ms) cost 6 % of the games/s; without it and with
# these intervals, a chunk takes what it takes on a thread.  Local clusters use this;
# the module docs tell how to set it on other clusters.
QUIET_WORKERS: dict[str, object] = {
    "distributed.worker.profile.enabled": False,  # default: a sample every 10 ms
    "distributed.admin.tick.interval": "1s",  # default 20 ms: the event-loop watchdog
    "distributed.admin.system-monitor.interval": "5s",  # default 500 ms: psutil readings
    "distributed.worker.memory.monitor-interval": "1s",  # default 100 ms
}
# Seconds to reach a scheduler (Client's ``timeout``, distributed's connect timeout;
# its default, distributed.comm.timeouts.connect, is 30 s).  A scheduler that answers
# at all answers in well under a second.
CONNECT_TIMEOUT = 5.0


# The schemes a scheduler address may have here: those a client reaches with the
# address alone (see check_address).
ADDRESS_SCHEMES = ("tcp", "ws")


class ClusterError(QwirkleError):
    """A Dask scheduler that cannot be reached, or an address that is not one."""


class SchedulerAddressError(ClusterError):
    """A scheduler address that is not one (``tcp://HOST:PORT``)."""


def check_address(address: object) -> str:
    """``address`` if it reads as a Dask scheduler address (``tcp://HOST:PORT``,
    ``HOST:PORT``, or ``ws://HOST:PORT``), else a :class:`SchedulerAddressError` in one
    line.  Nothing is contacted.  distributed's other schemes are refused: ``tls`` and
    ``wss`` need security settings that an address cannot carry (pass a ``client``
    connected with them instead), ``inproc`` reaches only a scheduler in this very
    process, and ``ucx`` needs a library of its own."""
    if not isinstance(address, str):
        raise SchedulerAddressError(f"a scheduler address is text (tcp://HOST:PORT), got {show(address)}")
    try:
        scheme, location = parse_address(address)
        if scheme not in ADDRESS_SCHEMES or scheme not in backends:
            raise ValueError(
                f"the scheme {scheme!r} is not one of {', '.join(ADDRESS_SCHEMES)} (for another, pass a connected client)"
            )
        host, port = parse_host_port(location)
        if not host or not 0 < int(port) < 65536:
            raise ValueError("a host and a port in 1..65535 are needed")
    except (ValueError, TypeError) as exc:
        raise SchedulerAddressError(
            f"{address!r} is not a Dask scheduler address (tcp://HOST:PORT): {exc}"
        ) from None
    return address


class Warmup(WorkerPlugin):  # type: ignore[misc]  # distributed is not type-checked here
    """Warms each worker's kernels once, when it joins (a restarted worker too), with
    ``load_kernels`` (a module-level function, so that it pickles by name): the caller's,
    so that this module imports nothing of the work it runs."""

    def __init__(self, load_kernels: Callable[[], object]) -> None:
        self.load_kernels = load_kernels

    def setup(self, worker: Any) -> None:
        """Load the kernels on ``worker`` (Dask calls this when the worker joins)."""
        self.load_kernels()


@contextlib.contextmanager
def connect(
    workers: int | None, scheduler: str | None, client: Any = None, *, load_kernels: Callable[[], object],
) -> Iterator[tuple[Any, float]]:
    """A warmed client and the seconds it took to get it: ``client`` as it is (its workers
    warmed), else one connected to ``scheduler``, else a new local cluster of
    ``workers`` one-thread processes, closed on exit.  ``load_kernels()`` warms a
    process: this one first for a local cluster, then each worker as it joins (see
    :class:`Warmup`; e.g. ``qwirkle_core.datasets.load_chunk_kernels``)."""
    began = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if client is None:
            if scheduler is not None:
                check_address(scheduler)
                try:
                    client = stack.enter_context(Client(scheduler, timeout=CONNECT_TIMEOUT))
                except OSError as exc:  # distributed: "Timed out trying to connect to ..."
                    raise ClusterError(
                        f"cannot reach the Dask scheduler at {scheduler} within {CONNECT_TIMEOUT:g} s "
                        f"({exc}): is it running there, and is the address its own?"
                    ) from None
            else:
                # The workers of a local cluster share this machine's kernel cache: fill
                # it here first, so that they load the kernels instead of all compiling
                # them at once when the cache is cold (and racing to write its index).
                load_kernels()
                # The nannies hand this configuration to the worker processes.
                with dask.config.set(QUIET_WORKERS):
                    cluster = stack.enter_context(
                        LocalCluster(
                            n_workers=workers or 1, threads_per_worker=1, processes=True, dashboard_address=":0"
                        )
                    )
                client = stack.enter_context(Client(cluster))
        client.register_plugin(Warmup(load_kernels), name=PLUGIN_NAME)
        yield client, time.perf_counter() - began


def describe(client: Any) -> str:
    """The workers a client reaches, in words."""
    info = client.scheduler_info()
    workers = info.get("workers", {})
    threads = sum(w.get("nthreads", 0) for w in workers.values())
    return f"dask {info.get('address', '?')}: {len(workers)} workers, {threads} threads"


def run_tasks(
    client: Any, func: Callable[..., Any], calls: Sequence[tuple[Any, ...]], on_done: Callable[[Any, int], None],
    name: str,
) -> None:
    """Run ``func(*calls[i])`` for every i on the cluster, calling ``on_done(result, i)``
    as each finishes.  A task whose worker dies is run again elsewhere (the scheduler
    does that, up to distributed.scheduler.allowed-failures times); one that raises is
    not tried again (its error is raised here at once): what failed once, on the same
    chunk and files, fails again."""
    run = uuid4().hex[:8]
    futures = [
        client.submit(func, *args, key=f"{name}-{run}-{i}", retries=0, pure=False)
        for i, args in enumerate(calls)
    ]
    index = {f.key: i for i, f in enumerate(futures)}
    try:
        for future in as_completed(futures):
            on_done(future.result(), index[future.key])
    finally:
        for future in futures:
            future.release()
