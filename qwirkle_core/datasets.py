"""Self-play datasets: millions of games written as Parquet, on one machine or a Dask cluster.

A dataset is a directory::

    DIR/manifest.json                  the parameters (games, players, bots, seed, chunk size)
    DIR/chunk=000000/games.parquet     one row per game
    DIR/chunk=000000/turns.parquet     one row per turn
    DIR/chunk=000001/...
    DIR/_SUCCESS                       written last, once every chunk is there

Game ``i`` is dealt from seed ``seed + i`` (mod 2**64) and belongs to chunk
``i // chunk_size``, so the same parameters always give the same files, whatever
ran them: all local cores, a local Dask cluster or a remote one, with or without
retries.  The schema is in ``docs/datasets.md``.  The tables are built straight from
the numba game loop's turn logs (numpy columns, list columns by offsets), with no
Python object per turn.

A chunk appears whole or not at all: its two files are written and fsynced in a
hidden temporary directory (``.tmp-…``), which one rename turns into the chunk's
directory.  The manifest (first) and the ``_SUCCESS`` marker (last) are written the
same way: a hidden temporary file, fsynced, renamed.  Running the same
:func:`write_dataset` again into the same directory, after a kill at any moment,
removes the temporary leftovers and writes only the missing chunks; other parameters
are refused (:class:`DatasetError`), but a dataset is extended to more games in place
with ``extend=True``.  Directories of the older layouts (``qwirkle-dataset/2``:
``chunk-000000/`` directories; ``qwirkle-dataset/1``: ``games/`` and ``turns/`` side by
side) are still read and checked, never written.

Needs the ``scale`` extra (``pip install '.[scale]'``: pyarrow, and
dask.distributed for clusters); ``import qwirkle_core`` does not.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import json
import operator
import os
import shutil
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from . import _batch, _bot_kernels, _layout, _recordtext, _replay, _state, _turn
from ._constants import GOING_OUT_BONUS, HAND_SIZE, MAX_PLAYERS
from ._ints import read_int
from ._jit import batch_kernel
from ._layout import (
    EXCHANGE,
    L_COLS,
    L_DRAWN,
    L_DRAWN_N,
    L_HAND,
    L_HAND_SIZE,
    L_KINDS,
    L_N,
    L_PLAYER,
    L_ROWS,
    L_SCORE,
    L_TYPE,
    PLACE,
    KArray,
)
from ._prng import SEED_LIMIT, seed_words
from .bots import BOT_IDS
from .errors import QwirkleError, RunawayGameError, show
from .game import END_NAMES, MAX_SCORE, MIN_PLAYERS, Game
from .records import _check_log, game_from_record
from .selfplay import MAX_SCORE as RECORD_MAX_SCORE
from .tiles import ALL_TILES

DATASET_FORMAT = "qwirkle-dataset/3"  # hive-style chunk directories, game_id = the deal's seed
V2_FORMAT = "qwirkle-dataset/2"  # chunk-000000/ directories, game_id = index: read and checked, not written
OLD_FORMAT = "qwirkle-dataset/1"  # games/ and turns/ side by side: read and checked, not written
READ_FORMATS = (DATASET_FORMAT, V2_FORMAT, OLD_FORMAT)
MANIFEST = "manifest.json"
SUCCESS = "_SUCCESS"  # written last: every chunk is there
GAMES_FILE = "games.parquet"  # the files of a chunk's directory
TURNS_FILE = "turns.parquet"
TMP_PREFIX = ".tmp-"  # what a writer has not finished: removed by the next run
GAMES_DIR = "games"  # qwirkle-dataset/1's two directories
TURNS_DIR = "turns"
TABLES = ("games", "turns")
DEFAULT_CHUNK_SIZE = 5000
# The most processes a local Dask cluster is started with (the command line's --workers too).
MAX_WORKERS = 1024
BATCH = 256  # games per kernel call inside a chunk (bounds the log buffer: 9 MiB)
LOG_CAPACITY = 256  # turns logged per game; a longer game is played again alone
COMPRESSION = "zstd"

# Dictionary values of the string columns; index = the kernels' code.
ACTIONS = ("place", "exchange", "pass")  # _layout.PLACE, EXCHANGE, PASS
ENDS = tuple(END_NAMES[code] for code in (_layout.END_OUT, _layout.END_BLOCKED, _layout.END_DEAD))

__all__ = [
    "DATASET_FORMAT",
    "CheckReport",
    "DatasetError",
    "DatasetSpec",
    "DatasetSummary",
    "Tally",
    "check_dataset",
    "chunk_files",
    "iter_chunks",
    "read_games",
    "read_records",
    "read_tables",
    "write_dataset",
]


class DatasetError(QwirkleError):
    """A dataset directory that cannot be written or read as asked."""


def _pyarrow() -> tuple[Any, Any, Any]:
    """pyarrow, pyarrow.compute and pyarrow.parquet, or a DatasetError saying how to get them."""
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.parquet
    except ImportError:  # pragma: no cover - CI installs the extra
        raise DatasetError("datasets need pyarrow: pip install '.[scale]'") from None
    return pyarrow, pyarrow.compute, pyarrow.parquet


# ------------------------------------------------------------------ parameters
@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset holds; saved as its manifest, and the same for every chunk."""

    games: int
    players: int
    bots: tuple[str, ...]
    seed: int
    chunk_size: int = DEFAULT_CHUNK_SIZE

    def __post_init__(self) -> None:
        # Numpy integers too, kept as plain ints (the manifest is JSON).
        object.__setattr__(self, "games", read_int(self.games, "games", 1, 2**63 - 1, DatasetError))
        object.__setattr__(self, "players", read_int(self.players, "players", MIN_PLAYERS, MAX_PLAYERS, DatasetError))
        bots = self.bots
        if (
            not isinstance(bots, (tuple, list))
            or len(bots) != self.players
            or any(type(b) is not str or b not in BOT_IDS for b in bots)
        ):
            raise DatasetError(f"bots must name one of {', '.join(BOT_IDS)} per seat, got {show(bots)}")
        object.__setattr__(self, "bots", tuple(bots))  # frozen: a list given is kept as a tuple
        object.__setattr__(self, "seed", read_int(self.seed, "seed", 0, SEED_LIMIT - 1, DatasetError))
        object.__setattr__(self, "chunk_size", read_int(self.chunk_size, "chunk size", 1, 2**63 - 1, DatasetError))

    @property
    def chunks(self) -> int:
        """How many chunks the games fill (the last one may hold fewer)."""
        return -(-self.games // self.chunk_size)

    def chunk_range(self, chunk: int) -> tuple[int, int]:
        """The game ids [start, stop) of ``chunk`` (0 .. chunks - 1)."""
        chunk = read_int(chunk, "chunk", 0, self.chunks - 1, DatasetError)
        start = chunk * self.chunk_size
        return start, min(self.games, start + self.chunk_size)

    def to_json(self) -> dict[str, Any]:
        """The manifest object."""
        return {
            "format": DATASET_FORMAT,
            "games": self.games,
            "players": self.players,
            "bots": list(self.bots),
            "seed": self.seed,
            "chunk_size": self.chunk_size,
        }

    @classmethod
    def from_json(cls, value: Any, formats: tuple[str, ...] = (DATASET_FORMAT,)) -> DatasetSpec:
        """The spec of a manifest object (of one of ``formats``); DatasetError if it is not one."""
        if not isinstance(value, dict) or value.get("format") not in formats:
            raise DatasetError(f"not a {DATASET_FORMAT} manifest")
        missing = [key for key in ("games", "players", "bots", "seed", "chunk_size") if key not in value]
        if missing:
            raise DatasetError(f"a manifest lacks {', '.join(missing)}")
        if not isinstance(value["bots"], list):
            raise DatasetError(f"a manifest's bots are a list of bot names, got {show(value['bots'])}")
        return cls(value["games"], value["players"], tuple(value["bots"]), value["seed"], value["chunk_size"])


def chunk_name(chunk: int, version: str = DATASET_FORMAT) -> str:
    """The name of ``chunk``'s directory: ``chunk=000000``, a hive-style partition that
    Parquet readers turn into a ``chunk`` column (``chunk-000000`` in a
    ``qwirkle-dataset/2`` directory; in a ``qwirkle-dataset/1`` one, the name of its
    files, ``chunk-000000.parquet``)."""
    return f"chunk={chunk:06d}" if version == DATASET_FORMAT else f"chunk-{chunk:06d}"


def _chunk_path(root: Path, version: str, chunk: int, table: str) -> Path:
    """The ``table`` file (games or turns) of ``chunk`` in a dataset of ``version``."""
    if version == OLD_FORMAT:
        return root / table / f"{chunk_name(chunk, version)}.parquet"
    return root / chunk_name(chunk, version) / f"{table}.parquet"


def _root(path: Any) -> Path:
    """``path`` (a str or an os.PathLike of one) as an absolute Path (what is sent to
    cluster workers, whose working directory is not ours), else DatasetError."""
    if not isinstance(path, (str, os.PathLike)):
        raise DatasetError(f"a dataset path is a str or a path, got {show(path)}")
    name = os.fspath(path)
    if not isinstance(name, str):
        raise DatasetError(f"a dataset path is a str or a path, got {show(path)}")
    if "\0" in name:
        raise DatasetError(f"a dataset path holds no NUL character, got {show(name)}")
    if not name:
        raise DatasetError("a dataset path is not empty")
    return Path(os.path.abspath(name))


def _manifest(root: Path) -> tuple[DatasetSpec, str]:
    """The spec and the format (current or old) of the dataset at ``root``."""
    try:
        text = (root / MANIFEST).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):  # missing, or a file (a records file?)
        raise DatasetError(f"{root} is not a dataset: no {MANIFEST}") from None
    except (OSError, ValueError) as exc:  # a directory, no permission, a name too long, not UTF-8
        raise DatasetError(f"{root / MANIFEST} cannot be read: {exc}") from None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, or nested too deeply
        raise DatasetError(f"{root / MANIFEST}: not JSON: {str(exc)[:200]}") from None
    spec = DatasetSpec.from_json(value, READ_FORMATS)
    return spec, value["format"]


def _read_manifest(root: Path) -> DatasetSpec:
    return _manifest(root)[0]


class _Disk:
    """Every change a writer makes on disk, one step each (tests interrupt a run at
    each of them, as a kill would, and resume it)."""

    @staticmethod
    def makedirs(path: Path) -> None:
        os.makedirs(path, exist_ok=True)

    @staticmethod
    def mkdir(path: Path) -> None:
        os.mkdir(path)

    @staticmethod
    def write(path: Path, fill: Callable[[Any], None]) -> None:
        """A new file ``path``, filled by ``fill(file)``, fsynced."""
        with open(path, "xb") as f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())

    @staticmethod
    def rename(source: Path, target: Path) -> None:
        """A file over ``target``, or a directory where ``target`` is no directory
        (OSError if one is there)."""
        os.rename(source, target)

    @staticmethod
    def fsync_dir(path: Path) -> None:
        """Make the names in a directory (a rename, a new file) survive a crash."""
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def remove(path: Path) -> None:
        """A file, or a directory with what it holds."""
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


_disk = _Disk()


def _temporary(root: Path, name: str) -> Path:
    return root / f"{TMP_PREFIX}{name}-{uuid.uuid4().hex}"


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``path`` so that it is either absent or whole: a hidden temporary file
    beside it, fsynced, renamed over ``path``; then the directory fsynced."""
    tmp = _temporary(path.parent, path.name)
    try:
        _disk.write(tmp, lambda f: f.write(data))
        _disk.rename(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            _disk.remove(tmp)
        raise
    _disk.fsync_dir(path.parent)


def _leftovers(root: Path) -> list[Path]:
    """What interrupted writers left in ``root``: hidden temporary files and chunk
    directories (never part of the dataset)."""
    try:
        return sorted(p for p in root.iterdir() if p.name.startswith(TMP_PREFIX))
    except OSError:
        return []


def _remove_temporaries(root: Path) -> None:
    """Remove the leftovers of interrupted writers (one writer at a time in a directory)."""
    for path in _leftovers(root):
        _disk.remove(path)


def _extends(there: DatasetSpec, spec: DatasetSpec) -> bool:
    """Whether ``spec`` is ``there`` with more games (the same games first, then more)."""
    return there.games < spec.games and dataclasses.replace(there, games=spec.games) == spec


def _inspect(root: Path, spec: DatasetSpec, extend: bool = False) -> bool:
    """Whether ``root`` already holds this dataset (True: or, with ``extend``, its first
    games) or can hold it (False, nothing there but leftovers of a run killed before its
    manifest was in place); else a DatasetError saying why not.  Reads only: nothing is
    created."""
    if (root / MANIFEST).exists():
        there, version = _manifest(root)
        if version != DATASET_FORMAT:
            raise DatasetError(
                f"{root} holds a {version} dataset (the layout of an older version): it is read and "
                "checked as it is, never added to; write the games into a new directory"
            )
        if extend and there != spec and not _extends(there, spec):
            raise DatasetError(
                f"{root} holds {there.games:,} games of other parameters than asked, or more games: a dataset "
                "is extended with its own players, bots, seed and chunk size, to more games"
            )
        if there != spec and not (extend and _extends(there, spec)):
            diff = ", ".join(
                f"{k} {there.to_json()[k]!r} there, {v!r} asked"
                for k, v in spec.to_json().items()
                if there.to_json()[k] != v
            )
            more = " (or extend it: --extend, extend=True)" if _extends(there, spec) else ""
            raise DatasetError(
                f"{root} holds a dataset with other parameters ({diff}); "
                f"use another directory, or the same parameters to resume it{more}"
            )
        return True
    if root.exists() and not root.is_dir():
        raise DatasetError(f"{root} is not a directory: refusing to write a dataset there")
    if root.exists():
        try:
            names = [p.name for p in root.iterdir()]
        except OSError as exc:
            raise DatasetError(f"cannot read {root}: {exc.strerror}") from None
        if any(not name.startswith(TMP_PREFIX) for name in names):
            raise DatasetError(f"{root} is not empty and has no {MANIFEST}: refusing to write a dataset there")
    return False


def _create(root: Path, spec: DatasetSpec, extend: bool = False) -> None:
    """Clear the leftovers of killed runs and, for a new dataset, create the directory
    and write its manifest (first, atomically); with ``extend``, grow the dataset there
    to ``spec``'s games (:func:`_grow`)."""
    if _inspect(root, spec, extend):
        _remove_temporaries(root)
        there = _read_manifest(root)
        if there != spec:
            _grow(root, there, spec)
        return
    try:
        _disk.makedirs(root)
    except OSError as exc:
        raise DatasetError(f"cannot create {root}: {exc.strerror}") from None
    _remove_temporaries(root)
    _atomic_write(root / MANIFEST, (json.dumps(spec.to_json(), indent=2) + "\n").encode())


def _grow(root: Path, there: DatasetSpec, spec: DatasetSpec) -> None:
    """Make the dataset ``there`` at ``root`` the first games of ``spec`` (more games),
    in steps that each leave a directory the same command resumes from: the ``_SUCCESS``
    marker removed (the dataset is no longer complete); the last chunk, if it holds fewer
    games than a chunk does (it will hold more), renamed to a ``.tmp-`` name (a reader
    sees it missing) and removed; then the manifest replaced (atomically).  The chunks
    that are missing are then written as on a resume: the same bytes as a dataset of
    ``spec`` written in one run, since game i is dealt from seed + i in chunk i // C."""
    if (root / SUCCESS).exists():
        _disk.remove(root / SUCCESS)
        _disk.fsync_dir(root)
    last = there.chunks - 1
    partial = root / chunk_name(last)
    if there.games % there.chunk_size and partial.is_dir():
        away = _temporary(root, chunk_name(last))
        _disk.rename(partial, away)
        _disk.fsync_dir(root)
        _disk.remove(away)
    _atomic_write(root / MANIFEST, (json.dumps(spec.to_json(), indent=2) + "\n").encode())


def _prepare(root: Path, spec: DatasetSpec) -> None:
    """Create the directory with its manifest, or check that the one there matches."""
    _create(_root(root), spec)


def _chunk_of(name: str, spec: DatasetSpec, version: str) -> int | None:
    """The chunk of the dataset whose name (a directory's; in a ``qwirkle-dataset/1``
    directory, a file's without ``.parquet``) is ``name``, else None."""
    prefix = chunk_name(0, version)[:6]  # "chunk=" or "chunk-"
    digits = name[6:]
    if not name.startswith(prefix) or not (digits.isascii() and digits.isdigit()):
        return None
    k = int(digits)
    return k if k < spec.chunks and name == chunk_name(k, version) else None


def _done_chunks(root: Path, spec: DatasetSpec, version: str = DATASET_FORMAT) -> set[int]:
    """Chunks that are there: their directory (renamed into place whole); in a
    ``qwirkle-dataset/1`` directory, their games file (written last).  Found by listing
    the directory, not by looking for every chunk the manifest promises (a damaged
    manifest may promise any number)."""
    if version == OLD_FORMAT:
        found = (_chunk_of(p.name.removesuffix(".parquet"), spec, version) for p in (root / GAMES_DIR).glob("*.parquet"))
        return {k for k in found if k is not None}
    return {k for p in root.iterdir() if (k := _chunk_of(p.name, spec, version)) is not None and p.is_dir()}


def chunk_files(path: str | os.PathLike[str], table: str) -> list[str]:
    """The paths of the ``table`` files (``"games"`` or ``"turns"``) of the chunks that
    are there, in game order: the files a Parquet reader should be given, e.g.
    ``pyarrow.dataset.dataset(chunk_files(DIR, "turns"))`` (a chunk is there whole, or
    not listed; a writer's temporary files never are)."""
    root = _root(path)
    if type(table) is not str or table not in TABLES:
        raise DatasetError(f"table is 'games' or 'turns', got {show(table)}")
    spec, version = _manifest(root)
    return [str(_chunk_path(root, version, k, table)) for k in sorted(_done_chunks(root, spec, version))]


# ------------------------------------------------------------ playing a chunk
@dataclass
class Tally:
    """Sums over games (of a chunk, or of a whole dataset): what a summary reports, in a
    size that does not grow with the games (a run of 10^8 games keeps no per-game array)."""

    games: int
    score_sums: npt.NDArray[np.int64]  # per seat
    wins: npt.NDArray[np.int64]  # per seat: games it won alone
    ties: npt.NDArray[np.int64]  # per seat: games it shared the top score in
    ends: npt.NDArray[np.int64]  # games that ended each way, indexed by END_* code
    turn_sum: int
    turn_min: int
    turn_max: int

    def __add__(self, other: Tally) -> Tally:
        if not self.games or not other.games:
            return other if not self.games else self
        return Tally(
            self.games + other.games, self.score_sums + other.score_sums, self.wins + other.wins,
            self.ties + other.ties, self.ends + other.ends, self.turn_sum + other.turn_sum,
            min(self.turn_min, other.turn_min), max(self.turn_max, other.turn_max),
        )


def _tally(scores: npt.NDArray[np.int64], turns: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]) -> Tally:
    """The tally of games given as arrays (games x players scores, turns, END_* codes)."""
    at_top = scores == scores.max(axis=1, keepdims=True)
    alone = at_top.sum(axis=1, keepdims=True) == 1
    return Tally(
        int(scores.shape[0]), scores.sum(axis=0).astype(np.int64), (at_top & alone).sum(axis=0).astype(np.int64),
        (at_top & ~alone).sum(axis=0).astype(np.int64), np.bincount(ends, minlength=len(ENDS) + 1).astype(np.int64),
        int(turns.sum()), int(turns.min()) if len(turns) else 0, int(turns.max()) if len(turns) else 0,
    )


@dataclass
class ChunkStats:
    """What a chunk task sends back: the chunk's tally, nothing per game or turn."""

    chunk: int
    tally: Tally
    seconds: float = 0.0  # time spent playing and writing


@batch_kernel
def _turn_columns(rows: KArray) -> tuple[KArray, KArray, KArray, KArray, KArray, KArray, KArray, KArray, KArray, KArray, KArray]:
    """The turn log rows of a chunk as flat columns: per turn the sizes of the hand, the
    placement, the exchange and the draw; then the values of those lists one after the
    other (hand kinds; placement rows, cols, kinds; exchanged kinds; drawn kinds)."""
    n = rows.shape[0]
    sizes = np.zeros((4, n), np.int64)
    totals = np.zeros(4, np.int64)
    for t in range(n):
        k = rows[t, L_N]
        sizes[0, t] = rows[t, L_HAND_SIZE]
        if rows[t, L_TYPE] == PLACE:
            sizes[1, t] = k
        elif rows[t, L_TYPE] == EXCHANGE:
            sizes[2, t] = k
        sizes[3, t] = rows[t, L_DRAWN_N]
        for j in range(4):
            totals[j] += sizes[j, t]
    hand = np.empty(totals[0], np.int8)
    place_rows = np.empty(totals[1], np.int32)
    place_cols = np.empty(totals[1], np.int32)
    place_kinds = np.empty(totals[1], np.int8)
    exchanged = np.empty(totals[2], np.int8)
    drawn = np.empty(totals[3], np.int8)
    at = np.zeros(4, np.int64)
    for t in range(n):
        for s in range(sizes[0, t]):
            hand[at[0] + s] = rows[t, L_HAND + s]
        for s in range(sizes[1, t]):
            place_rows[at[1] + s] = rows[t, L_ROWS + s]
            place_cols[at[1] + s] = rows[t, L_COLS + s]
            place_kinds[at[1] + s] = rows[t, L_KINDS + s]
        for s in range(sizes[2, t]):
            exchanged[at[2] + s] = rows[t, L_KINDS + s]
        for s in range(sizes[3, t]):
            drawn[at[3] + s] = rows[t, L_DRAWN + s]
        for j in range(4):
            at[j] += sizes[j, t]
    return sizes[0], sizes[1], sizes[2], sizes[3], hand, place_rows, place_cols, place_kinds, exchanged, drawn, totals


def play_chunk(
    spec: DatasetSpec, chunk: int, on_games: Callable[[int], None] | None = None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int32]]:
    """Play the games of ``chunk`` on this thread (the GIL released): (scores, turns,
    ends, the turn log rows of all its games one after the other).  ``on_games(n)`` is
    called as each batch of n games is played."""
    start, stop = spec.chunk_range(chunk)
    bot_ids = np.zeros(MAX_PLAYERS, np.int64)
    bot_ids[: spec.players] = [BOT_IDS[b] for b in spec.bots]
    tie_rank = np.arange(MAX_PLAYERS, dtype=np.int64)
    in_play = _bot_kernels.bots_in_play(bot_ids, spec.players)  # only their code is compiled
    logs = _batch.empty_logs(min(BATCH, stop - start), LOG_CAPACITY)
    all_scores, all_turns, all_ends, all_rows = [], [], [], []
    for lo in range(start, stop, BATCH):
        hi = min(stop, lo + BATCH)
        low, high = seed_words([(spec.seed + i) % SEED_LIMIT for i in range(lo, hi)])
        batch_logs = logs[: hi - lo]
        # Kernels release the GIL: threads of one process play chunks side by side.
        scores, turns, ends = _batch.play_games(spec.players, low, high, tie_rank, bot_ids, batch_logs, *in_play)
        runaway = np.flatnonzero(ends == _layout.END_RUNAWAY)
        if runaway.size:
            raise RunawayGameError(
                f"game {lo + int(runaway[0])} (seed {(spec.seed + lo + int(runaway[0])) % SEED_LIMIT}) ran past "
                f"{_batch.MAX_TURNS} turns without ending"
            )
        if (turns > LOG_CAPACITY).any():
            # A long game (random bots exchange a lot): play it again, all logged.
            parts = []
            for i in range(hi - lo):
                log = batch_logs[i, : turns[i]]
                if turns[i] > LOG_CAPACITY:
                    logged = _batch.empty_logs(1, int(turns[i]))
                    _batch.play_games(spec.players, low[i : i + 1], high[i : i + 1], tie_rank, bot_ids, logged, *in_play)
                    log = logged[0]
                parts.append(log)
            all_rows.append(np.concatenate(parts))
        else:
            all_rows.append(batch_logs[np.arange(LOG_CAPACITY)[None, :] < turns[:, None]])
        all_scores.append(scores[:, : spec.players])
        all_turns.append(turns)
        all_ends.append(ends)
        if on_games is not None:
            on_games(hi - lo)
    return (
        np.concatenate(all_scores).astype(np.int64),
        np.concatenate(all_turns).astype(np.int64),
        np.concatenate(all_ends).astype(np.int64),
        np.concatenate(all_rows),
    )


def _list_array(pa: Any, sizes: npt.NDArray[np.int64], values: Any) -> Any:
    offsets = np.zeros(sizes.shape[0] + 1, np.int32)
    np.cumsum(sizes, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def _tile_fields(pa: Any, kinds: npt.NDArray[np.int8]) -> list[Any]:
    """The colour and the shape of tiles given as kinds (``color * 6 + shape``)."""
    return [pa.array(kinds // 6), pa.array(kinds % 6)]


def _tile_structs(pa: Any, kinds: npt.NDArray[np.int8]) -> Any:
    """Tiles as struct<color, shape>, as the game records write them (``[color, shape]``):
    a reader asks for a colour or a shape with no arithmetic.  (Measured: 621 bytes a
    game with zstd, against 593 for bare kinds and 1,016 for kind, colour and shape.)"""
    return pa.StructArray.from_arrays(_tile_fields(pa, kinds), names=["color", "shape"])


def chunk_tables(
    spec: DatasetSpec, chunk: int, scores: npt.NDArray[np.int64], turns: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64], rows: npt.NDArray[np.int32],
) -> tuple[Any, Any]:
    """The games table and the turns table of a played chunk (pyarrow Tables)."""
    pa, _, _ = _pyarrow()
    start, stop = spec.chunk_range(chunk)
    n = stop - start
    # game_id is the deal's seed: unique within the dataset, and the same deal's id in any other.
    ids = np.uint64(spec.seed) + np.arange(start, stop, dtype=np.uint64)  # wraps at 2**64, as seeds do
    bot_names = sorted(set(spec.bots))
    bot_codes = np.tile(np.array([bot_names.index(b) for b in spec.bots], np.int8), n)
    seat_sizes = np.full(n, spec.players, np.int64)
    at_top = scores == scores.max(axis=1, keepdims=True)
    first_turn = np.cumsum(turns) - turns
    last_turn = first_turn + turns - 1
    opener = np.full(n, -1, np.int64)  # the seat of turn 0 (every game has one: a single tile always opens)
    played = turns > 0
    opener[played] = rows[first_turn[played], L_PLAYER]
    games = pa.table(
        {
            "game_id": ids,
            "players": np.full(n, spec.players, np.int8),
            "bots": _list_array(
                pa, seat_sizes, pa.DictionaryArray.from_arrays(bot_codes, pa.array(bot_names)).dictionary_decode()
            ),
            "scores": _list_array(pa, seat_sizes, pa.array(scores.reshape(-1).astype(np.int16))),
            "winners": _list_array(pa, at_top.sum(axis=1), pa.array(np.nonzero(at_top)[1].astype(np.int8))),
            "opener": opener.astype(np.int8),
            "end": pa.DictionaryArray.from_arrays((ends - 1).astype(np.int8), pa.array(ENDS)),
            "turns": turns.astype(np.int32),
        }
    )
    hand_n, placed_n, exchanged_n, drawn_n, hand, place_rows, place_cols, place_kinds, exchanged, drawn, _ = (
        _turn_columns(rows)
    )
    placements = pa.StructArray.from_arrays(
        [pa.array(place_rows), pa.array(place_cols), *_tile_fields(pa, place_kinds)], names=["row", "col", "color", "shape"]
    )
    bonus = np.zeros(rows.shape[0], np.int8)
    went_out = (ends == _layout.END_OUT) & (turns > 0)
    bonus[last_turn[went_out]] = GOING_OUT_BONUS  # the turn that emptied a hand ended the game
    turns_table = pa.table(
        {
            "game_id": np.repeat(ids, turns),
            "turn": (np.arange(rows.shape[0]) - np.repeat(first_turn, turns)).astype(np.int32),
            "player": rows[:, L_PLAYER].astype(np.int8),
            "action": pa.DictionaryArray.from_arrays(rows[:, L_TYPE].astype(np.int8), pa.array(ACTIONS)),
            "placements": _list_array(pa, placed_n, placements),
            "score": rows[:, L_SCORE].astype(np.int16),
            "bonus": bonus,
            "exchanged": _list_array(pa, exchanged_n, _tile_structs(pa, exchanged)),
            "drawn": _list_array(pa, drawn_n, _tile_structs(pa, drawn)),
            "hand": _list_array(pa, hand_n, _tile_structs(pa, hand)),
        }
    )
    return games, turns_table


def _table_bytes(table: Any) -> bytes:
    """A table as the bytes of a Parquet file."""
    pa, _, pq = _pyarrow()
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression=COMPRESSION)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def _put_chunk(root: Path, chunk: int, games: Any, turns: Any) -> None:
    """Write a chunk's two files into a hidden temporary directory, fsynced, then rename
    it into place: every reader sees the whole chunk or nothing of it.  Where the chunk
    is there already (another try of the same task finished first: the same bytes), the
    temporary directory is removed."""
    final = root / chunk_name(chunk)
    tmp = _temporary(root, chunk_name(chunk))
    turns_data, games_data = _table_bytes(turns), _table_bytes(games)
    try:
        _disk.mkdir(tmp)
        _disk.write(tmp / TURNS_FILE, lambda f: f.write(turns_data))
        _disk.write(tmp / GAMES_FILE, lambda f: f.write(games_data))
        _disk.fsync_dir(tmp)
        try:
            _disk.rename(tmp, final)
        except OSError:
            if not final.is_dir():
                raise
            _disk.remove(tmp)  # written by another try: the same bytes
    except OSError:
        with contextlib.suppress(OSError):
            _disk.remove(tmp)
        raise
    _disk.fsync_dir(root)


def write_chunk(
    out: str, spec_json: dict[str, Any], chunk: int, on_games: Callable[[int], None] | None = None
) -> ChunkStats:
    """Play and write one chunk (the task a Dask worker runs; plain arguments only).
    ``on_games(n)``, in this process, is called as each batch of n games is played."""
    began = time.perf_counter()
    spec = DatasetSpec.from_json(spec_json)
    root = Path(out)
    try:
        there = _manifest(root)
    except DatasetError:
        there = None
    if there != (spec, DATASET_FORMAT):
        # A worker on another machine that does not share the client's file system.
        raise DatasetError(
            f"{socket.gethostname()} sees no dataset manifest at {root} (or another one): the output "
            "directory must be on a file system every worker shares, at the same path"
        )
    scores, turns, ends, rows = play_chunk(spec, chunk, on_games)
    games, turns_table = chunk_tables(spec, chunk, scores, turns, ends, rows)
    _put_chunk(root, chunk, games, turns_table)
    return ChunkStats(chunk, _tally(scores, turns, ends), time.perf_counter() - began)


def _stats_from_file(root: Path, spec: DatasetSpec, chunk: int) -> ChunkStats:
    """The summary figures of a chunk already on disk (a DatasetError naming it where
    it cannot be read: a run that resumes or extends the dataset stops there, before it
    writes a chunk)."""
    pa, pc, pq = _pyarrow()
    path = _chunk_path(root, DATASET_FORMAT, chunk, "games")
    try:
        table = pq.read_table(path, columns=["scores", "turns", "end"])
        missing = _missing_number({"games": table})
        if missing is not None:
            raise ValueError(missing)
        scores = pc.list_flatten(table.column("scores")).to_numpy().astype(np.int64).reshape(-1, spec.players)
        return ChunkStats(chunk, _tally(scores, table.column("turns").to_numpy().astype(np.int64), _end_codes(table)))
    except (OSError, pa.ArrowException, KeyError, ValueError, TypeError) as exc:
        raise DatasetError(
            f"{root}: chunk {chunk} cannot be read ({exc}): remove {path.parent} and run "
            "again to write it anew ('qwirkle-core check' lists every damaged chunk)"
        ) from None


def _end_codes(games: Any) -> npt.NDArray[np.int64]:
    """The END_* code of each row of a games table (0 for an unknown name)."""
    pa, pc, _ = _pyarrow()
    index = pc.index_in(games.column("end").cast(pa.string()), value_set=pa.array(ENDS))
    codes: npt.NDArray[np.int64] = index.fill_null(-1).to_numpy().astype(np.int64) + 1
    return codes


# -------------------------------------------------------------------- writing
@dataclass
class DatasetSummary:
    """A finished :func:`write_dataset` run: figures over the whole dataset (sums, whatever
    its size: ``tally``)."""

    path: str
    spec: DatasetSpec
    tally: Tally
    written: int  # games this run played and wrote
    skipped: int  # games already there (a resumed run)
    seconds: float  # from the first task to the last, kernels already loaded
    where: str  # what ran the games
    startup_seconds: float = 0.0  # starting (or reaching) the cluster and warming its workers

    @property
    def games_per_second(self) -> float:
        """Games written per second of the run (0 when nothing was left to write)."""
        return self.written / max(self.seconds, 1e-9)

    def wins(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Per seat: games it won alone, and games it shared the top score in."""
        return self.tally.wins, self.tally.ties

    @property
    def mean_scores(self) -> npt.NDArray[np.float64]:
        """Per seat: the mean final score."""
        return self.tally.score_sums / max(self.tally.games, 1)

    @property
    def turns_per_game(self) -> float:
        """The mean number of turns a game."""
        return self.tally.turn_sum / max(self.tally.games, 1)

    def to_json(self) -> dict[str, Any]:
        """The summary as the ``--json`` object of ``selfplay --out``."""
        wins, ties = self.wins()
        return {
            "out": self.path,
            "games": self.spec.games,
            "players": self.spec.players,
            "bots": list(self.spec.bots),
            "seed": self.spec.seed,
            "written": self.written,
            "skipped": self.skipped,
            "mean_scores": [round(float(m), 3) for m in self.mean_scores],
            "wins": [int(w) for w in wins],
            "ties": [int(t) for t in ties],
            "ends": {name: int(self.tally.ends[code]) for code, name in enumerate(ENDS, 1)},
            "turns_per_game": round(self.turns_per_game, 2),
            "games_per_second": round(self.games_per_second, 1),
            "seconds": round(self.seconds, 3),
            "startup_seconds": round(self.startup_seconds, 3),
            "where": self.where,
        }


Progress = Callable[[int, int], None]  # (games done, games in the dataset)


def load_chunk_kernels(replay: bool = True, bots: Sequence[str] | None = None) -> float:
    """Load every kernel a chunk task runs (from numba's cache, or by compiling it where
    there is none): for each set of bots that can be in play (the game loop is compiled
    for each set; only the set of ``bots`` when given), one game played and turned into
    tables in memory, and with ``replay`` (what a check task runs) replayed under the
    rules (and written as records, as ``read_records`` does).  Returns the seconds.  (``qwirkle_core.warmup.warm_kernels`` is the entry
    point for callers outside.)"""
    from .warmup import bot_mixes

    began = time.perf_counter()
    mixes = [tuple(bots)] if bots is not None else bot_mixes()
    if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]  # nothing is compiled: one game will do
        mixes = mixes[:1]
    for mix in mixes:
        seats = mix if len(mix) >= MIN_PLAYERS else mix * MIN_PLAYERS
        spec = DatasetSpec(1, len(seats), tuple(seats), 0, 1)
        scores, turns, ends, rows = play_chunk(spec, 0)
        games, turn_table = chunk_tables(spec, 0, scores, turns, ends, rows)
    if replay:
        problems: list[str] = []
        ids = games.column("game_id").to_numpy()
        turn_places = _positions(turn_table.column("game_id").to_numpy(), spec.seed)
        _replay_chunk(spec, games, logs_from_turns(turn_table), turn_places, _positions(ids, spec.seed), ids, problems, None)
        if problems:  # (a game just played that does not replay: a bug, said as one)
            raise DatasetError(f"the warm-up game does not replay: {problems[0]}")
        _chunk_record_lines(games, turn_table)  # read_records' kernel
    return time.perf_counter() - began


TICK = 0.5  # seconds between two reports of the games of the chunks still running


class _InFlight:
    """Games finished by the chunk tasks still running, counted from their threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._games: dict[int, int] = {}

    def add(self, task: int, games: int) -> None:
        with self._lock:
            self._games[task] = self._games.get(task, 0) + games

    def drop(self, task: int) -> None:
        with self._lock:
            self._games.pop(task, None)

    def total(self) -> int:
        with self._lock:
            return sum(self._games.values())


def _run_local(
    func: Callable[..., Any], calls: Sequence[tuple[Any, ...]], on_done: Callable[[Any, int], None], threads: int,
    on_partial: Callable[[int], None] | None = None,
) -> None:
    """``func(*calls[i], on_games=...)`` for every i on ``threads`` threads of this
    process (the kernels release the GIL), ``on_done(result, i)`` on this thread as each
    finishes, and every :data:`TICK` seconds ``on_partial(games)``, the games that the
    tasks still running have reported through their ``on_games(n)``."""
    in_flight = _InFlight()
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="qwirkle-chunk") as pool:
        futures = {
            pool.submit(func, *args, on_games=functools.partial(in_flight.add, i)): i for i, args in enumerate(calls)
        }
        pending = set(futures)
        try:
            while pending:
                finished, pending = wait(pending, timeout=TICK, return_when=FIRST_COMPLETED)
                for future in finished:
                    result = future.result()
                    in_flight.drop(futures[future])
                    on_done(result, futures[future])
                if on_partial is not None:
                    on_partial(in_flight.total())
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _check_progress(progress: object) -> None:
    if progress is not None and not callable(progress):
        raise DatasetError(f"progress is a function (done, total) or None, got {show(progress)}")


def _check_workers(workers: object) -> int | None:
    """``workers`` as the processes of a local cluster (None: no local cluster), checked
    before anything is written or started: Dask itself would take 0 or True as one
    worker and wait for ever on a negative number."""
    if workers is None:
        return None
    return read_int(workers, "workers", 1, MAX_WORKERS, DatasetError)


def write_dataset(
    out: str | os.PathLike[str],
    games: int,
    players: int = 2,
    bots: Sequence[str] = ("greedy",),
    seed: int = 0,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    progress: Progress | None = None,
    extend: bool = False,
) -> DatasetSummary:
    """Play ``games`` self-play games (game i from seed ``seed + i``) and write them as a
    Parquet dataset in ``out``; returns the summary over the whole dataset.

    With no cluster, the chunks are played on one thread per core of this process (as
    many as ``numba.get_num_threads()``; the kernels release the GIL).  ``workers=K`` (an int, 1..1024) starts a local Dask cluster of K one-thread worker processes;
    ``scheduler=ADDRESS`` uses an existing cluster; ``client`` a connected
    ``distributed.Client``.  ``bots`` names one bot for every seat, or one per seat.
    ``progress(done, total)`` is called on the calling thread as games finish: on this
    machine every half second or so while chunks are being played, on a cluster after
    each chunk (resumed chunks count as done).
    Running it again with the same arguments writes only the chunks that are missing.
    With ``extend=True``, a dataset of the same players, bots, seed and chunk size but
    fewer games there is grown to ``games`` in place: the games there are kept (but
    those of a last, partial chunk, written again whole), the next ones added; the
    files are those one run of ``games`` writes, byte for byte.
    """
    if type(extend) is not bool:
        raise DatasetError(f"extend is True or False, got {show(extend)}")
    _check_progress(progress)
    workers = _check_workers(workers)
    if client is not None and not callable(getattr(client, "submit", None)):
        raise DatasetError(f"client is a connected distributed.Client, or None, got {show(client)}")
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence):
        raise DatasetError(f"bots is a list of bot names (one for every seat, or one per seat), got {show(bots)}")
    bots = tuple(bots)
    if len(bots) == 1 and type(players) is int:  # (any other players: DatasetSpec says why)
        bots *= players
    spec = DatasetSpec(games, players, bots, seed, chunk_size)
    _pyarrow()
    root = _root(out)  # absolute: the workers' working directory is not ours
    _inspect(root, spec, extend)  # refused at once (other parameters, another directory), nothing created
    finished = skipped = 0
    reported = -1
    stats: dict[int, ChunkStats] = {}
    todo: list[int] = []

    def report(partial: int = 0) -> None:
        nonlocal reported
        if progress is not None and finished + partial != reported:
            reported = finished + partial
            progress(reported, spec.games)

    def on_done(result: ChunkStats, _: int = 0) -> None:
        nonlocal finished
        stats[result.chunk] = result
        finished += result.tally.games
        report()

    def begin() -> list[tuple[Any, ...]]:
        """Create the directory, or clean it up to resume: once the cluster answers."""
        nonlocal finished, skipped
        _create(root, spec, extend)
        done = _done_chunks(root, spec)
        todo.extend(k for k in range(spec.chunks) if k not in done)
        stats.update({k: _stats_from_file(root, spec, k) for k in sorted(done)})
        finished = skipped = sum(s.tally.games for s in stats.values())
        return [(str(root), spec.to_json(), k) for k in todo]

    startup = 0.0
    if client is None and workers is None and scheduler is None:
        calls = begin()
        threads = numba.get_num_threads()
        where, seconds = f"this process, {threads} threads", 0.0
        if todo:
            startup = load_chunk_kernels(replay=False, bots=spec.bots)
            began = time.perf_counter()
            _run_local(write_chunk, calls, on_done, threads, report)
            seconds = time.perf_counter() - began
    else:
        from . import cluster

        with cluster.connect(workers, scheduler, client, load_kernels=load_chunk_kernels) as (dask_client, startup):
            calls = begin()
            where, seconds = cluster.describe(dask_client), 0.0
            if todo:
                began = time.perf_counter()
                cluster.run_tasks(dask_client, write_chunk, calls, on_done, "qwirkle-chunk")
                seconds = time.perf_counter() - began
    if not todo:
        where = "nothing to do"
    _remove_temporaries(root)
    if not (root / SUCCESS).exists():
        _atomic_write(root / SUCCESS, b"")  # last: the dataset is complete
    tally = functools.reduce(operator.add, (stats.pop(k).tally for k in range(spec.chunks)))
    return DatasetSummary(
        str(root),
        spec,
        tally,
        finished - skipped,
        skipped,
        seconds,
        where,
        startup,
    )


# -------------------------------------------------------------------- reading
def iter_chunks(path: str | os.PathLike[str], progress: Progress | None = None) -> Iterator[tuple[Any, Any]]:
    """Each finished chunk of a dataset as two pyarrow Tables (its games, its turns), in
    game order: one chunk in memory at a time, however large the dataset.
    ``progress(done, total)`` is called after each chunk read (games read, games in the
    chunks there).  A DatasetError, before anything is yielded, where the path is not a
    dataset or holds no finished chunk."""
    root = _root(path)
    _check_progress(progress)
    _, _, pq = _pyarrow()
    spec, version = _manifest(root)
    chunks = sorted(_done_chunks(root, spec, version))
    if not chunks:
        raise DatasetError(f"{root} holds no finished chunk")
    return _chunks(root, version, chunks, [spec.chunk_range(k) for k in chunks], pq, progress)


def _chunks(root: Path, version: str, chunks: list[int], ranges: list[tuple[int, int]], pq: Any,
            progress: Progress | None) -> Iterator[tuple[Any, Any]]:
    # A generator of its own, so that iter_chunks checks its arguments when called.
    pa, pc, _ = _pyarrow()
    total = sum(hi - lo for lo, hi in ranges)
    done = 0
    for k, (lo, hi) in zip(chunks, ranges):
        try:
            games = pq.read_table(_chunk_path(root, version, k, "games"))
            turns = pq.read_table(_chunk_path(root, version, k, "turns"))
        except FileNotFoundError:
            games = None
        except (OSError, pa.ArrowException) as exc:
            raise DatasetError(
                f"{root}: chunk {k} cannot be read ({exc}); 'qwirkle-core check' lists every damaged chunk"
            ) from None
        # A writer extended the dataset after this read began: the last chunk written
        # again whole, maybe between the reads of its two tables (then their games and
        # turns disagree; or the chunk is damaged, which check tells apart).
        listed = games.column("turns") if games is not None and "turns" in games.column_names else None
        if (
            games is None or games.num_rows != hi - lo
            or (
                listed is not None and pa.types.is_integer(listed.type) and listed.null_count == 0
                and pc.sum(listed).as_py() != turns.num_rows
            )
        ):
            raise DatasetError(
                f"{root}: chunk {k} changed while it was read (a run extending the dataset?), or is damaged "
                "('qwirkle-core check' tells)"
            )
        done += games.num_rows
        if progress is not None:
            progress(done, total)
        yield games, turns


def read_tables(path: str | os.PathLike[str], progress: Progress | None = None) -> tuple[Any, Any]:
    """The whole dataset as two pyarrow Tables (games, turns), in game order (all in
    memory: :func:`iter_chunks` reads one chunk at a time).  ``progress(done, total)``
    is called after each chunk read (games read, games in the chunks there)."""
    pa, _, _ = _pyarrow()
    games, turns = [], []
    for chunk_games, chunk_turns in iter_chunks(path, progress):
        games.append(chunk_games)
        turns.append(chunk_turns)
    return pa.concat_tables(games), pa.concat_tables(turns)


def _kinds(pc: Any, values: Any) -> npt.NDArray[np.int64]:
    """The tile kinds (``color * 6 + shape``) of a list column's values: tiles given as
    struct<color, shape> (``qwirkle-dataset/3``; a colour or a shape out of 0..5 gives
    -1, a kind no tile has, which the replay then refuses), a struct's ``tile`` field
    (a placement of the older layouts), or kinds themselves (their other tile lists)."""
    fields = getattr(values.type, "get_field_index", None)
    if fields is not None and fields("color") >= 0:
        color = pc.struct_field(values, "color").to_numpy().astype(np.int64)
        shape = pc.struct_field(values, "shape").to_numpy().astype(np.int64)
        valid = (color >= 0) & (color < 6) & (shape >= 0) & (shape < 6)
        return np.where(valid, color * 6 + shape, -1)
    if fields is not None:
        values = pc.struct_field(values, "tile")
    kinds: npt.NDArray[np.int64] = values.to_numpy().astype(np.int64)
    return kinds


def _deal_seeds(games: Any) -> npt.NDArray[np.uint64]:
    """The seed each game of a games table was dealt from: its ``game_id`` (which is the
    seed, ``qwirkle-dataset/3``), or the ``seed`` column of the older layouts."""
    column = games.column("seed" if "seed" in games.column_names else "game_id")
    seeds: npt.NDArray[np.uint64] = column.to_numpy().astype(np.uint64)
    return seeds


TILE_LISTS = ("hand", "placements", "exchanged", "drawn")  # the turns table's tile lists, in _log_rows' order


@batch_kernel
def _log_rows(
    player: KArray, action: KArray, score: KArray, sizes: KArray, hand: KArray, place_rows: KArray,
    place_cols: KArray, place_kinds: KArray, exchanged: KArray, drawn: KArray, log: KArray,
) -> None:
    """Fill ``log`` (int32[n, LOG_COLS], zeros) with the turns table's columns: per turn
    its seat, action code and score, and ``sizes[j, t]`` tiles of list j (hand,
    placements, exchanged, drawn) taken in turn order from that list's flat values
    (each size at most 6: the caller checks).  The inverse of :func:`_turn_columns`."""
    at = np.zeros(4, np.int64)
    for t in range(log.shape[0]):
        log[t, L_PLAYER] = player[t]
        log[t, L_TYPE] = action[t]
        log[t, L_SCORE] = score[t]
        log[t, L_HAND_SIZE] = sizes[0, t]
        for s in range(sizes[0, t]):
            log[t, L_HAND + s] = hand[at[0] + s]
        for s in range(sizes[1, t]):
            log[t, L_ROWS + s] = place_rows[at[1] + s]
            log[t, L_COLS + s] = place_cols[at[1] + s]
            log[t, L_KINDS + s] = place_kinds[at[1] + s]
        for s in range(sizes[2, t]):  # (a turn has placements or an exchange, not both)
            log[t, L_KINDS + s] = exchanged[at[2] + s]
        log[t, L_N] = sizes[1, t] + sizes[2, t]
        log[t, L_DRAWN_N] = sizes[3, t]
        for s in range(sizes[3, t]):
            log[t, L_DRAWN + s] = drawn[at[3] + s]
        for j in range(4):
            at[j] += sizes[j, t]


def logs_from_turns(turns: Any) -> npt.NDArray[np.int32]:
    """The turn table's rows as the game loop's log rows (int32[rows, LOG_COLS]), filled
    by a kernel from the columns' flat values (DatasetError where a turn lists more than
    6 tiles or an unknown action)."""
    pa, pc, _ = _pyarrow()
    n = turns.num_rows
    codes = pc.index_in(turns.column("action").cast(pa.string()), value_set=pa.array(ACTIONS))
    if codes.null_count:
        raise DatasetError("a turn has an unknown action")
    sizes = np.zeros((4, n), np.int64)
    flat = []
    for j, name in enumerate(TILE_LISTS):
        column = turns.column(name)
        sizes[j] = pc.list_value_length(column).fill_null(0).to_numpy()
        flat.append(pc.list_flatten(column))
    if n and int(sizes.max()) > HAND_SIZE:
        raise DatasetError(f"a turn lists {int(sizes.max())} tiles where a turn has at most {HAND_SIZE}")
    placed = flat[1]

    def int32(values: Any) -> npt.NDArray[np.int32]:
        # The log's type, cast here (numpy wraps a value past it, as the kernel would; with
        # the JIT off an assignment would raise instead): a column stored in another integer
        # type is then told apart by check's comparison of the rebuilt tables.
        return np.asarray(values).astype(np.int32)

    log = np.zeros((n, _layout.LOG_COLS), np.int32)
    _log_rows(
        int32(turns.column("player").to_numpy()), int32(codes.to_numpy()), int32(turns.column("score").to_numpy()),
        sizes, int32(_kinds(pc, flat[0])), int32(pc.struct_field(placed, "row").to_numpy()),
        int32(pc.struct_field(placed, "col").to_numpy()), int32(_kinds(pc, placed)), int32(_kinds(pc, flat[2])),
        int32(_kinds(pc, flat[3])), log,
    )
    return log


def _positions(ids: npt.NDArray[Any], base: int) -> npt.NDArray[np.int64]:
    """Game ids as places from ``base`` (mod 2**64: ids that are seeds wrap past 2**64 - 1
    to 0, places do not)."""
    places: npt.NDArray[np.int64] = (ids.astype(np.uint64) - np.uint64(base)).astype(np.int64)
    return places


def _chunk_record_lines(games: Any, turns: Any) -> bytes:
    """The ``qwirkle-record/1`` records of a chunk's games, one JSON line each, written
    by the kernel that writes ``selfplay --record``'s (``_recordtext``): the same text
    byte for byte.  What the kernel reads is checked first (InvalidRecordError from
    the records' own checks, DatasetError, where a table holds what no game does)."""
    pa, _, _ = _pyarrow()
    try:
        return _record_lines(games, turns)
    except (pa.ArrowException, KeyError, TypeError, ValueError) as exc:  # a missing column, a null, a type
        raise DatasetError(f"a chunk's tables do not hold what a dataset holds ({exc})") from None


def _record_lines(games: Any, turns: Any) -> bytes:
    _, pc, _ = _pyarrow()
    missing = _missing_number({"games": games, "turns": turns})
    if missing is not None:
        raise DatasetError(missing)
    ids = games.column("game_id").to_numpy()
    n = ids.shape[0]
    if not n:
        return b""
    log = logs_from_turns(turns)
    places = _positions(ids, int(ids[0]))  # the games of a chunk: consecutive ids, in order
    turn_places = _positions(turns.column("game_id").to_numpy(), int(ids[0]))
    # Each game's turns are one slice of the log: ids in order, turns in game order.
    if not np.array_equal(places, np.arange(n)) or (np.diff(turn_places) < 0).any() or (
        turn_places.size and (turn_places[0] < 0 or turn_places[-1] >= n)
    ):
        raise DatasetError("a chunk's game ids are not consecutive, or its turns not in game order")
    players = games.column("players").to_numpy().astype(np.int64)
    if int(players.min()) != int(players.max()):
        raise DatasetError("the games of a chunk have one number of players")
    seats = int(players[0])
    flat = pc.list_flatten(games.column("scores"))
    if flat.null_count or len(flat) != n * seats:
        raise DatasetError("a game's final scores are not one a seat")
    scores = flat.to_numpy().astype(np.int64).reshape(n, seats)
    _check_log(seats, 0, log, [0] * seats, 0)  # seats, actions, counts and kinds in range
    if ((scores < 0) | (scores > RECORD_MAX_SCORE)).any() or (log[:, _layout.L_SCORE] < 0).any():
        raise DatasetError(f"a score is out of 0..{RECORD_MAX_SCORE:,}")
    starts = np.searchsorted(turn_places, np.append(places, places[-1] + 1), side="left").astype(np.int64)
    digits, lengths = _recordtext.seed_digits(_deal_seeds(games).tolist())
    out = np.empty(n * _recordtext.RECORD_BYTES + int(starts[-1] - starts[0]) * _recordtext.TURN_BYTES, np.uint8)
    written = _recordtext.format_flat_records(seats, digits, lengths, scores, starts, _end_codes(games), log, out)
    return out[:written].tobytes()


def read_records(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Each game of a dataset as its ``qwirkle-record/1`` record (the same object that
    ``selfplay --record`` writes as a JSON line), in game order, a chunk at a time
    (written as JSON by a kernel, then parsed by ``json.loads``: C speed on both sides;
    the next chunk is read and written on a second thread while this one's are parsed)."""
    return _record_stream(iter_chunks(path))


def _record_stream(chunks: Iterator[tuple[Any, Any]]) -> Iterator[dict[str, Any]]:
    def next_text() -> bytes | None:
        pair = next(chunks, None)  # (only this thread draws from ``chunks``)
        return None if pair is None else _chunk_record_lines(*pair)

    with ThreadPoolExecutor(1, thread_name_prefix="qwirkle-records") as pool:
        ahead = pool.submit(next_text)
        while (text := ahead.result()) is not None:
            ahead = pool.submit(next_text)
            yield from map(json.loads, text.splitlines())


def read_games(path: str | os.PathLike[str]) -> Iterator[Game]:
    """Each game of a dataset replayed as a :class:`~qwirkle_core.game.Game` at its end
    (through :func:`qwirkle_core.records.game_from_record`, which checks every turn)."""
    _root(path)  # checked on the first step, before anything is read
    for record in read_records(path):
        yield game_from_record(record)


# ------------------------------------------------------------------- checking
@dataclass
class CheckReport:
    """What :func:`check_dataset` found: games replayed, and each problem in words."""

    path: str
    games: int
    checked: int
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every game there, once, and replaying to what the dataset says."""
        return not self.problems and self.checked == self.games

    def to_json(self) -> dict[str, Any]:
        """The report as the ``--json`` object of ``check``."""
        return {"path": self.path, "games": self.games, "checked": self.checked, "ok": self.ok,
                "problems": self.problems}


def check_chunk(
    out: str, spec_json: dict[str, Any], chunk: int, on_games: Callable[[int], None] | None = None
) -> tuple[int, list[str]]:
    """Replay every game of one chunk under the rules: (games checked, problems).
    ``on_games(n)``, in this process, is called as the replays go (n games at a time)."""
    pa, _, pq = _pyarrow()
    spec = DatasetSpec.from_json(spec_json, READ_FORMATS)
    version = spec_json["format"]
    root = Path(out)
    spec.chunk_range(chunk)  # (a chunk of the dataset, else DatasetError)
    where = f"chunk {chunk}"
    if not (root / MANIFEST).is_file():  # a worker on a machine that does not share the directory
        unseen = (
            f"{where}: {socket.gethostname()} sees no dataset at {root}: the directory must be "
            "on a file system every worker shares, at the same path"
        )
        return 0, [unseen]
    try:
        games = pq.read_table(_chunk_path(root, version, chunk, "games"))
        turns = pq.read_table(_chunk_path(root, version, chunk, "turns"))
    except (OSError, pa.ArrowException) as exc:
        return 0, [f"{where}: unreadable: {exc}"]
    try:
        return _check_tables(spec, version, chunk, games, turns, on_games)
    except (KeyError, pa.ArrowException, ValueError, TypeError) as exc:  # a missing column, a wrong type
        return 0, [f"{where}: the tables do not hold what a dataset holds ({exc})"]


def _missing_number(tables: dict[str, Any]) -> str | None:
    """The first integer column (or integer field of a list of structs, such as a
    placement's row) that has a missing value (null), as a problem, else None.  A writer
    writes none, and numpy would read one as NaN, then as some integer."""
    pa, pc, _ = _pyarrow()
    for table_name, table in tables.items():
        for name, column in zip(table.column_names, table.columns):
            parts = [(name, column)]
            if pa.types.is_list(column.type):  # its items: integers (scores), or structs (placements)
                items = pc.list_flatten(column)
                parts = [(name, items)]
                if pa.types.is_struct(column.type.value_type):
                    parts = [(f"{name}.{field.name}", pc.struct_field(items, field.name)) for field in column.type.value_type]
            for label, values in parts:
                if pa.types.is_integer(values.type) and values.null_count:
                    return f"the {table_name} table's {label!r} column has a missing value (null)"
    return None


def _check_tables(
    spec: DatasetSpec, version: str, chunk: int, games: Any, turns: Any, on_games: Callable[[int], None] | None
) -> tuple[int, list[str]]:
    """:func:`check_chunk` of a chunk's two tables, read."""
    pa, pc, _ = _pyarrow()
    start, stop = spec.chunk_range(chunk)
    where = f"chunk {chunk}"
    problems: list[str] = []
    missing = _missing_number({"games": games, "turns": turns})
    if missing is not None:
        return 0, [f"{where}: {missing}"]
    # Game ids are seeds (qwirkle-dataset/3: game i is seed + i, mod 2**64), or indexes i;
    # as places (i) they must be start..stop-1, in order.
    base = spec.seed if version == DATASET_FORMAT else 0
    first_id, last_id = (base + start) % SEED_LIMIT, (base + stop - 1) % SEED_LIMIT
    ids = games.column("game_id").to_numpy()
    places = _positions(ids, base)
    if not np.array_equal(places, np.arange(start, stop)):
        problems.append(f"{where}: holds game ids other than {first_id}..{last_id}, each once in order")
        return 0, problems
    turn_places = _positions(turns.column("game_id").to_numpy(), base)
    if (np.diff(turn_places) < 0).any() or (turn_places < start).any() or (turn_places >= stop).any():
        problems.append(f"{where}: the turns table is not in game order within {first_id}..{last_id}")
        return 0, problems
    counts = np.bincount(turn_places - start, minlength=stop - start)
    listed = games.column("turns").to_numpy()
    numbers = turns.column("turn").to_numpy()
    expected = np.arange(turn_places.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts.astype(np.int64))
    meta_players = games.column("players").to_numpy()
    # The games' own columns against the manifest, in numpy; words only for what differs.
    expected_seeds = np.uint64(spec.seed) + places.astype(np.uint64)  # wraps at 2**64, as seeds do
    wrong_deal = (_deal_seeds(games) != expected_seeds) | (meta_players != spec.players)
    bot_lists = games.column("bots")
    named = pc.list_flatten(bot_lists).to_numpy(zero_copy_only=False)
    lengths = pc.list_value_length(bot_lists).fill_null(-1).to_numpy()
    if (lengths == len(spec.bots)).all():
        wrong_bots = (named.reshape(-1, len(spec.bots)) != np.array(spec.bots, dtype=object)).any(axis=1)
    else:  # lists of other lengths: each compared as it is (a damaged table only)
        wrong_bots = np.array([tuple(b or ()) != spec.bots for b in bot_lists.to_pylist()], bool)
    for i in np.flatnonzero(wrong_deal | wrong_bots | (listed != counts)).tolist():
        label = f"game {int(ids[i])}"
        if wrong_deal[i]:
            problems.append(f"{label}: seed or players are not the manifest's")
        if wrong_bots[i]:
            problems.append(f"{label}: bots {bot_lists[i].as_py()} are not the manifest's {list(spec.bots)}")
        if listed[i] != counts[i]:
            problems.append(f"{label}: the games table says {listed[i]} turns, the turns table has {counts[i]}")
    checked = 0
    try:
        log = logs_from_turns(turns)
        if int(meta_players.min(initial=spec.players)) == int(meta_players.max(initial=spec.players)) == spec.players:
            checked = _replay_chunk(spec, games, log, turn_places, places, ids, problems, on_games)
            if checked and not problems and version == DATASET_FORMAT:
                problems.extend(f"{where}: {p}" for p in _derived_problems(spec, chunk, games, turns, log))
    except DatasetError as exc:
        return 0, [*problems, f"{where}: {exc}"]
    except (pa.ArrowException, ValueError, TypeError) as exc:  # a null, a wrong type: not what a writer writes
        return 0, [*problems, f"{where}: the tables do not hold what a dataset holds ({exc})"]
    lo = np.repeat(np.arange(stop - start), counts.astype(np.int64))
    bad = np.nonzero(numbers != expected)[0]
    if bad.size:
        problems.append(f"game {int(ids[lo[bad[0]]])}: turn numbers are not 0, 1, 2, ...")
    return checked, problems


REPLAY_SLICE = 1024  # games a replay kernel call replays (then progress is told)


def _replay_chunk(
    spec: DatasetSpec, games: Any, log: npt.NDArray[np.int32], turn_places: npt.NDArray[np.int64],
    places: npt.NDArray[np.int64], ids: npt.NDArray[Any], problems: list[str],
    on_games: Callable[[int], None] | None,
) -> int:
    """Replay a chunk's games in the kernels (``_replay``), a slice at a time; add each
    game's problem (its first, named by its id in ``ids``) to ``problems``; returns the
    games replayed.  ``places`` and ``turn_places`` are the games' and the turns' game
    places (in order)."""
    _, pc, _ = _pyarrow()
    if not ids.shape[0]:
        return 0
    seeds = _deal_seeds(games)
    seeds_low = (seeds & np.uint64(0xFFFFFFFF)).astype(np.int64)  # seed_words, in numpy
    seeds_high = (seeds >> np.uint64(32)).astype(np.int64)
    flat = pc.list_flatten(games.column("scores"))
    if flat.null_count:
        raise DatasetError("a final score is null")
    finals = flat.to_numpy().astype(np.int64)
    if finals.shape[0] != ids.shape[0] * spec.players:
        problems.append(f"games {int(ids[0])}..{int(ids[-1])}: the final scores are not one a seat")
        return 0
    finals = finals.reshape(-1, spec.players)
    ends = _end_codes(games)
    starts = np.searchsorted(turn_places, np.append(places, places[-1] + 1), side="left").astype(np.int64)
    tie_rank = np.arange(MAX_PLAYERS, dtype=np.int64)
    report = np.zeros((ids.shape[0], _replay.REPORT_COLS), np.int64)
    for lo in range(0, ids.shape[0], REPLAY_SLICE):
        hi = min(lo + REPLAY_SLICE, ids.shape[0])
        _replay.replay_games(
            spec.players, seeds_low[lo:hi], seeds_high[lo:hi], tie_rank, log, starts[lo : hi + 1], MAX_SCORE,
            finals[lo:hi], ends[lo:hi], report[lo:hi],
        )
        if on_games is not None:
            on_games(hi - lo)
    for i in np.flatnonzero(report[:, _replay.R_STATUS]).tolist():
        turn = int(report[i, _replay.R_TURN])
        row = log[starts[i] + turn] if turn >= 0 else None
        problems.append(f"game {int(ids[i])}: " + _replay_problem(report[i], row, finals[i], int(ends[i]), spec.players))
    return int(ids.shape[0])


def _derived_problems(spec: DatasetSpec, chunk: int, games: Any, turns: Any, log: npt.NDArray[np.int32]) -> list[str]:
    """The columns that are not what the chunk's games give, once the replay found those
    games right: the tables the writer makes of the same games are compared with the
    file's, column by column, types included.  This catches the columns a reader is
    given for convenience (winners, opener, the going-out bonus, each tile's colour and
    shape) and anything the replay reads through a cast (a seat or a score of another
    integer type, a null)."""
    _, pc, _ = _pyarrow()
    scores = pc.list_flatten(games.column("scores")).to_numpy().astype(np.int64).reshape(-1, spec.players)
    counts = games.column("turns").to_numpy().astype(np.int64)
    rebuilt = chunk_tables(spec, chunk, scores, counts, _end_codes(games), log)
    wrong = []
    for name, table, again in (("games", games, rebuilt[0]), ("turns", turns, rebuilt[1])):
        if table.column_names != again.column_names:
            wrong.append(f"the {name} table's columns are {table.column_names}, not {again.column_names}")
            continue
        for column in again.column_names:
            if not table.column(column).equals(again.column(column)):
                wrong.append(f"the {name} table's {column!r} column is not what its games give")
    return wrong


def _replay_problem(
    report: npt.NDArray[np.int64], row: npt.NDArray[np.int32] | None, finals: npt.NDArray[np.int64], end: int,
    players: int,
) -> str:
    """A replay's verdict on one game (a ``report`` row of ``_replay``) in words."""
    status, turn, detail, arg = (int(v) for v in report)
    said = f"turn {turn}: "
    if status == _replay.R_ILLEGAL:
        rule = _turn.VERDICT_RULES.get(detail, f"verdict {detail}")
        if detail == _turn.V_NOT_HELD:
            rule += f" ({ALL_TILES[arg]})"
        elif detail == _turn.V_PLACEMENT:
            rule += f" ({_state.VERDICT_NAMES.get(arg, arg)})"
        return said + "the rules refuse it: " + rule
    if status == _replay.R_DIFFERS:
        assert row is not None
        if detail == _layout.L_SCORE:
            return said + f"the record scores {int(row[_layout.L_SCORE])}, the rules another score"
        part = (
            "seat" if detail == _layout.L_PLAYER
            else "hand before it" if detail < _layout.L_ROWS
            else "draws" if detail >= _layout.L_DRAWN_N
            else "tiles"
        )
        return said + f"the record's {part} is not the replay's"
    if status == _replay.R_AFTER_END:
        return said + "recorded after the game ended"
    if status == _replay.R_NOT_OVER:
        return "the game does not end after its turns"
    if status == _replay.R_END:
        return f"the record says the game ended {END_NAMES.get(end, 'unknown')!r}, the replay {END_NAMES[detail]!r}"
    return f"the record's final scores {finals[:players].tolist()} are not the replay's (seat {detail} differs)"


def _strangers(root: Path, spec: DatasetSpec, version: str) -> list[str]:
    """Names in the dataset that no chunk of it explains (a writer's leftovers apart)."""
    if version == OLD_FORMAT:
        return sorted(
            p.name for sub in (GAMES_DIR, TURNS_DIR) for p in (root / sub).glob("*.parquet")
            if _chunk_of(p.name.removesuffix(".parquet"), spec, version) is None or not p.is_file()
        )
    strangers = []
    for p in root.iterdir():
        if p.name in (MANIFEST, SUCCESS) or p.name.startswith(TMP_PREFIX):
            continue
        if _chunk_of(p.name, spec, version) is None:
            strangers.append(p.name)
        elif p.is_dir():
            # Inside a chunk's directory: its two files, nothing else, and files (pyarrow
            # reads a directory named games.parquet as a dataset of its files; DuckDB,
            # pandas and a glob of the chunks' files do not).
            strangers.extend(
                f"{p.name}/{q.name}" for q in p.iterdir() if q.name not in (GAMES_FILE, TURNS_FILE) or not q.is_file()
            )
    return sorted(strangers)


def check_dataset(
    path: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    progress: Progress | None = None,
) -> CheckReport:
    """Replay every game of the dataset at ``path`` under the rules (on a Dask cluster
    when given one, as for :func:`write_dataset`) and report every mismatch: a missing
    chunk, a game id missing or twice, a seed, a hand, a tile, a score or an end that
    is not what the rules give.  ``progress(done, total)`` is called on the calling
    thread as games are replayed: on this machine every half second or so, on a cluster
    after each chunk."""
    _check_progress(progress)
    workers = _check_workers(workers)
    _pyarrow()
    root = _root(path)
    spec, version = _manifest(root)
    done = _done_chunks(root, spec, version)
    report = CheckReport(str(root), spec.games, 0)
    # The chunks missing, between those there (a damaged manifest may promise any
    # number: a run of them is one line).
    there = [-1, *sorted(done), spec.chunks]
    for before, after in itertools.pairwise(there):
        if after - before == 2:
            start, stop = spec.chunk_range(before + 1)
            report.problems.append(f"chunk {before + 1} (games {start}..{stop - 1}) is missing")
        elif after - before > 2:
            start, stop = spec.chunk_range(before + 1)[0], spec.chunk_range(after - 1)[1]
            report.problems.append(f"chunks {before + 1}..{after - 1} (games {start}..{stop - 1}) are missing")
    report.problems.extend(
        f"{name}: not a file of a chunk (games.parquet, turns.parquet)" if "/" in name else f"{name}: not a chunk of this dataset"
        for name in _strangers(root, spec, version)
    )
    if version != OLD_FORMAT and len(done) == spec.chunks and not (root / SUCCESS).is_file():
        report.problems.append(
            f"no {SUCCESS} marker: the run that wrote the chunks did not finish; run it again to complete it"
        )
    found: dict[int, list[str]] = {}
    finished = 0
    reported = -1

    todo = sorted(done)

    def tell(partial: int = 0) -> None:
        nonlocal reported
        if progress is not None and finished + partial != reported:
            reported = finished + partial
            progress(reported, spec.games)

    def on_done(result: tuple[int, list[str]], index: int) -> None:
        nonlocal finished
        chunk = todo[index]
        report.checked += result[0]
        found[chunk] = result[1]
        start, stop = spec.chunk_range(chunk)
        finished += stop - start
        tell()

    calls = [(str(root), spec.to_json() | {"format": version}, k) for k in todo]
    if client is None and workers is None and scheduler is None:
        _run_local(check_chunk, calls, on_done, numba.get_num_threads(), tell)  # (the replays release the GIL)
    else:
        from . import cluster

        with cluster.connect(workers, scheduler, client, load_kernels=load_chunk_kernels) as (dask_client, _):
            cluster.run_tasks(dask_client, check_chunk, calls, on_done, "qwirkle-check")
    for k in sorted(found):
        report.problems.extend(found[k])
    return report
