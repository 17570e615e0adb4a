"""Self-play datasets: Parquet written from the turn logs, read back, resumed, checked;
the same dataset from one process and from a Dask cluster, even when a worker dies."""

from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest

pa = pytest.importorskip("pyarrow", reason="datasets need the scale extra: pip install -e '.[scale]'")
pq = pytest.importorskip("pyarrow.parquet", reason="datasets need the scale extra")

from qwirkle_core import datasets, warmup

dask_config = pytest.importorskip("dask.config", reason="clusters need the scale extra")
from qwirkle_core.cli import check as check_command
from qwirkle_core.cli import main
from qwirkle_core.datasets import (
    DatasetError,
    check_dataset,
    iter_chunks,
    read_games,
    read_records,
    read_tables,
    write_dataset,
)
from qwirkle_core.errors import QwirkleError
from qwirkle_core.game import Game
from qwirkle_core.records import game_from_record
from qwirkle_core.selfplay import selfplay

JIT_OFF = bool(numba.config.DISABLE_JIT)
MIXED = ["greedy", "random", "heuristic"]


def files(root: Path) -> dict[str, bytes]:
    """Every file of a dataset (manifest, chunks, marker, anything else), by its path inside it."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def chunk_dir(root: Path, k: int) -> Path:
    return root / datasets.chunk_name(k)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset of three-player games between different bots, in several chunks."""
    root = tmp_path_factory.mktemp("small") / "ds"
    write_dataset(root, 5 if JIT_OFF else 40, 3, MIXED, seed=11, chunk_size=2 if JIT_OFF else 15)
    return root


def test_records_are_the_json_lines_records(small: Path) -> None:
    n = 5 if JIT_OFF else 40
    records = list(read_records(small))
    assert records == selfplay(n, 3, MIXED, seed=11, record=True).records
    games = list(read_games(small))
    assert len(games) == n and all(isinstance(g, Game) and g.is_over for g in games)
    assert games[0] == game_from_record(records[0])


def test_chunks_one_at_a_time_are_the_tables_in_order(small: Path, tmp_path: Path) -> None:
    import pyarrow as pa

    seen: list[tuple[int, int]] = []
    chunks = list(iter_chunks(small, progress=lambda done, total: seen.append((done, total))))
    games, turns = read_tables(small)
    assert len(chunks) > 1 and pa.concat_tables([g for g, _ in chunks]).equals(games)
    assert pa.concat_tables([t for _, t in chunks]).equals(turns)
    assert [done for done, _ in seen] == list(np.cumsum([g.num_rows for g, _ in chunks]))
    assert {total for _, total in seen} == {games.num_rows}
    with pytest.raises(DatasetError):
        iter_chunks(tmp_path / "nowhere")  # at the call, before a chunk is asked for
    with pytest.raises(DatasetError, match="progress"):
        iter_chunks(small, progress=5)  # type: ignore[arg-type]


def test_tables_hold_each_game_once_with_the_documented_columns(small: Path) -> None:
    games, turns = read_tables(small)
    n = games.num_rows
    assert games.column("game_id").to_pylist() == [11 + i for i in range(n)]  # the deals' seeds
    assert games.column("bots").to_pylist() == [MIXED] * n
    assert set(games.column("end").to_pylist()) <= {"out", "blocked", "dead"}
    assert games.column_names == ["game_id", "players", "bots", "scores", "winners", "opener", "end", "turns"]
    assert turns.column_names == [
        "game_id", "turn", "player", "action", "placements", "score", "bonus", "exchanged", "drawn", "hand"
    ]
    assert turns.num_rows == sum(games.column("turns").to_pylist())
    docs = (Path(__file__).resolve().parent.parent / "docs" / "datasets.md").read_text()
    for name in games.column_names + turns.column_names:
        assert f"`{name}`" in docs


def test_the_reader_columns_say_what_the_records_say(small: Path) -> None:
    # winners, opener, the going-out bonus and the tiles' colours and shapes, each
    # against the game's record as self-play writes it (not read back from the tables).
    games, turns = read_tables(small)
    by_game = turns.to_pylist()
    records = selfplay(games.num_rows, 3, MIXED, seed=11, record=True).records
    assert len(records) == games.num_rows
    for game, record in zip(games.to_pylist(), records):
        rows = [row for row in by_game if row["game_id"] == game["game_id"]]
        assert len(rows) == len(record["turns"]) == game["turns"]
        top = max(record["scores"])
        assert game["winners"] == [seat for seat, score in enumerate(record["scores"]) if score == top]
        assert game["opener"] == record["turns"][0]["player"]
        for row, turn in zip(rows, record["turns"]):
            out = row is rows[-1] and record["end"] == "out"
            assert row["bonus"] == (6 if out else 0)
            assert [[t["color"], t["shape"]] for t in row["hand"]] == turn["hand"]
            assert [[t["color"], t["shape"]] for t in row["drawn"]] == turn.get("drawn", [])
            assert [[t["color"], t["shape"]] for t in row["exchanged"]] == turn.get("tiles", [])
            assert [[p["row"], p["col"], p["color"], p["shape"]] for p in row["placements"]] == turn.get("placements", [])
        assert sum(r["score"] + r["bonus"] for r in rows if r["player"] == 0) == record["scores"][0]


def test_a_tally_of_parts_is_the_tally_of_the_whole() -> None:
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 40, (50, 3))
    scores[:5, 1] = scores[:5, 0]  # some shared top scores
    turns, ends = rng.integers(20, 90, 50), rng.integers(1, 4, 50)
    whole = datasets._tally(scores, turns, ends)
    parts = datasets._tally(scores[:0], turns[:0], ends[:0])
    for lo, hi in ((0, 7), (7, 31), (31, 50)):
        parts += datasets._tally(scores[lo:hi], turns[lo:hi], ends[lo:hi])
    assert parts.games == 50 and (parts.turn_sum, parts.turn_min, parts.turn_max) == (turns.sum(), turns.min(), turns.max())
    for field in ("score_sums", "wins", "ties", "ends"):
        assert np.array_equal(getattr(parts, field), getattr(whole, field)), field
    top = scores.max(axis=1)
    assert np.array_equal(whole.ends[1:], np.bincount(ends)[1:]) and np.array_equal(whole.score_sums, scores.sum(axis=0))
    assert whole.wins.sum() == int(((scores == top[:, None]).sum(axis=1) == 1).sum())


def test_long_games_are_written_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(datasets, "LOG_CAPACITY", 30)
    n = 2 if JIT_OFF else 6
    summary = write_dataset(tmp_path / "ds", n, 3, ["random"], seed=5)
    assert summary.tally.turn_min > 30
    assert list(read_records(tmp_path / "ds")) == selfplay(n, 3, ["random"] * 3, seed=5, record=True).records


def test_the_same_games_whatever_the_chunking(tmp_path: Path) -> None:
    n = 4 if JIT_OFF else 30
    write_dataset(tmp_path / "a", n, 2, ["greedy"], seed=3, chunk_size=n)
    write_dataset(tmp_path / "b", n, 2, ["greedy"], seed=3, chunk_size=3)
    assert read_tables(tmp_path / "a")[0].equals(read_tables(tmp_path / "b")[0])
    assert read_tables(tmp_path / "a")[1].equals(read_tables(tmp_path / "b")[1])


def test_a_rerun_writes_only_what_is_missing(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    n, chunk = (5, 2) if JIT_OFF else (40, 10)
    first = write_dataset(root, n, 2, ["greedy", "random"], seed=8, chunk_size=chunk)
    assert (first.written, first.skipped) == (n, 0)
    before = files(root)
    # An interrupted run: chunk 1 and the marker not there yet, and a writer's
    # temporary directory and manifest left behind.
    shutil.rmtree(chunk_dir(root, 1))
    (root / "_SUCCESS").unlink()
    (root / ".tmp-chunk=000001-123").mkdir()
    (root / ".tmp-chunk=000001-123" / "turns.parquet").write_bytes(b"half a file")
    (root / ".tmp-manifest.json-456").write_bytes(b"{")
    kept = {p: p.stat().st_mtime_ns for p in root.glob("chunk=*/*.parquet")}
    assert len(kept) == 2 * (-(-n // chunk) - 1)
    second = write_dataset(root, n, 2, ["greedy", "random"], seed=8, chunk_size=chunk)
    assert (second.written, second.skipped) == (chunk, n - chunk)
    assert {p: p.stat().st_mtime_ns for p in kept} == kept  # the other chunks untouched
    assert files(root) == before  # no temporary file left, the same bytes
    figures = ("games", "mean_scores", "wins", "ties", "ends", "turns_per_game")
    assert {k: second.to_json()[k] for k in figures} == {k: first.to_json()[k] for k in figures}
    third = write_dataset(root, n, 2, ["greedy", "random"], seed=8, chunk_size=chunk)
    assert (third.written, third.where) == (0, "nothing to do")


class Killed(BaseException):
    """The process dies here: nothing after it reaches the disk (not even clean-up)."""


class KillAt:
    """Stands for ``datasets._disk``: does each step of a writer on disk, and at step
    ``at`` (counted from 0) dies; a file being written is left half written.  With
    ``at=None`` only counts and names the steps."""

    def __init__(self, disk: Any, at: int | None) -> None:
        self.disk, self.at, self.dead = disk, at, False
        self.steps: list[str] = []

    def __getattr__(self, name: str) -> Any:
        def step(*args: Any) -> Any:
            if self.dead:
                raise Killed(name)
            if len(self.steps) == self.at:
                self.dead = True
                if name == "write":  # cut off in the middle of the file
                    Path(args[0]).write_bytes(b"PAR1 half")
                raise Killed(name)
            self.steps.append(f"{name} {Path(args[0]).name}")
            return getattr(self.disk, name)(*args)

        return step


def test_a_kill_at_any_step_resumes_to_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run killed at each step of its writes on disk (the manifest's, each chunk's,
    the marker's): readers see whole chunks only, and the same command run again gives
    the bytes of a run never interrupted, with no temporary file left."""
    played: dict[tuple[Any, int], Any] = {}
    real_play = datasets.play_chunk

    def play_once(spec: Any, chunk: int, on_games: Any = None) -> Any:  # the games are not what is tested
        if (spec, chunk) not in played:
            played[spec, chunk] = real_play(spec, chunk, on_games)
        return played[spec, chunk]

    monkeypatch.setattr(datasets, "play_chunk", play_once)
    monkeypatch.setattr(numba, "get_num_threads", lambda: 1)  # one writer thread: the same steps each time
    args: dict[str, Any] = {"games": 3, "players": 2, "bots": ["greedy", "random"], "seed": 5, "chunk_size": 2}
    disk = datasets._disk
    counter = KillAt(disk, None)
    monkeypatch.setattr(datasets, "_disk", counter)
    write_dataset(tmp_path / "clean", **args)
    clean = files(tmp_path / "clean")
    steps = counter.steps
    assert sorted(clean) == [
        "_SUCCESS", "chunk=000000/games.parquet", "chunk=000000/turns.parquet",
        "chunk=000001/games.parquet", "chunk=000001/turns.parquet", "manifest.json",
    ]
    # The order that makes it safe: the manifest first, each chunk renamed whole, the marker last.
    assert steps[0] == "makedirs clean" and steps[1].startswith("write .tmp-manifest.json-")
    assert steps[2].startswith("rename .tmp-manifest.json-") and steps[3] == "fsync_dir clean"
    assert [s.split()[0] for s in steps[4:10]] == ["mkdir", "write", "write", "fsync_dir", "rename", "fsync_dir"]
    assert steps[-3].startswith("write .tmp-_SUCCESS-") and steps[-1] == "fsync_dir clean"
    for at in range(len(steps)):
        root = tmp_path / f"killed-{at}"
        monkeypatch.setattr(datasets, "_disk", KillAt(disk, at))
        with pytest.raises(Killed):
            write_dataset(root, **args)
        monkeypatch.setattr(datasets, "_disk", disk)
        if (root / "manifest.json").exists():  # what a reader sees meanwhile: whole chunks, or none
            seen = [str(Path(f).relative_to(root)) for t in ("games", "turns") for f in datasets.chunk_files(root, t)]
            assert all(files(root)[name] == clean[name] for name in seen), at
            assert sorted(name.split("/")[0] for name in seen if name.endswith("turns.parquet")) == sorted(
                name.split("/")[0] for name in seen if name.endswith("games.parquet")
            )
            chunks = sorted({int(name[6:12]) for name in seen})
            if chunks:
                ids = [5 + i for k in chunks for i in range(2 * k, min(3, 2 * k + 2))]  # seed 5
                assert read_tables(root)[0].column("game_id").to_pylist() == ids
        summary = write_dataset(root, **args)  # the same command, after the kill
        assert files(root) == clean, at
        assert summary.written + summary.skipped == 3
    assert len(steps) >= 19


def test_extending_in_place_gives_the_bytes_of_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args: dict[str, Any] = {"players": 2, "bots": ["greedy", "random"], "seed": 5, "chunk_size": 2}
    write_dataset(tmp_path / "fresh", 7, **args)
    for first in (3, 4):  # a last chunk half full (written again whole), or full (kept)
        root = tmp_path / f"from-{first}"
        write_dataset(root, first, **args)
        kept = files(root)["chunk=000000/games.parquet"]
        summary = write_dataset(root, 7, **args, extend=True)
        assert files(root) == files(tmp_path / "fresh") and files(root)["chunk=000000/games.parquet"] == kept
        assert (summary.written, summary.skipped) == (7 - first // 2 * 2, first // 2 * 2)
        assert check_dataset(root).ok
    assert write_dataset(root, 7, **args, extend=True).written == 0  # already that size: nothing to do
    with pytest.raises(DatasetError, match="extend it: --extend"):
        write_dataset(root, 9, **args)  # more games, not asked to extend
    for change in ({"games": 5}, {"games": 9, "seed": 6}, {"games": 9, "chunk_size": 3}):
        with pytest.raises(DatasetError, match="extended with its own players"):
            write_dataset(root, **(args | {"games": 7} | change), extend=True)
    with pytest.raises(DatasetError, match="extend is True or False"):
        write_dataset(root, 9, **args, extend="yes")  # type: ignore[arg-type]
    assert files(root) == files(tmp_path / "fresh")  # refusals change nothing
    assert main(["selfplay", "--games", "9", "--seed", "5", "--bots", "greedy,random", "--chunk-size", "2",
                 "--out", str(root), "--extend"]) == 0
    assert check_dataset(root).ok and datasets._read_manifest(root).games == 9
    assert main(["selfplay", "--games", "9", "--extend"]) == 2
    assert "give --out DIR" in capsys.readouterr().err


def test_an_extension_killed_at_any_step_resumes_to_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args: dict[str, Any] = {"players": 2, "bots": ["greedy", "random"], "seed": 5, "chunk_size": 2}
    monkeypatch.setattr(numba, "get_num_threads", lambda: 1)  # one writer thread: the same steps each time
    write_dataset(tmp_path / "fresh", 5, **args)
    write_dataset(tmp_path / "small", 3, **args)
    disk = datasets._disk
    counter = KillAt(disk, None)
    shutil.copytree(tmp_path / "small", tmp_path / "counted")
    monkeypatch.setattr(datasets, "_disk", counter)
    write_dataset(tmp_path / "counted", 5, **args, extend=True)
    steps = counter.steps
    # The order that makes it safe: the marker removed, the half chunk moved away, then the manifest.
    assert steps[0] == "remove _SUCCESS" and steps[2].startswith("rename chunk=000001")
    assert steps[5].startswith("write .tmp-manifest.json-")
    # Every step with the JIT on.  With it off (the coverage run, where each write plays
    # its games in plain Python: every step took 52 s of that run in CI) the six steps
    # whose order is asserted above, then every third.
    kill_at = range(len(steps)) if not JIT_OFF else sorted({*range(6), *range(6, len(steps), 3)})
    for at in kill_at:
        root = tmp_path / f"killed-{at}"
        shutil.copytree(tmp_path / "small", root)
        monkeypatch.setattr(datasets, "_disk", KillAt(disk, at))
        with pytest.raises(Killed):
            write_dataset(root, 5, **args, extend=True)
        monkeypatch.setattr(datasets, "_disk", disk)
        # What a reader sees meanwhile: chunks of the manifest there, the old one's or the new one's.
        fresh = files(tmp_path / "fresh")
        meant = files(tmp_path / "small") if datasets._read_manifest(root).games == 3 else fresh
        seen = [str(Path(f).relative_to(root)) for t in ("games", "turns") for f in datasets.chunk_files(root, t)]
        assert seen and all(files(root)[name] == meant[name] for name in seen), at
        write_dataset(root, 5, **args, extend=True)  # the same command, after the kill
        assert files(root) == fresh, at


def test_chunk_files_are_what_a_parquet_reader_should_read(small: Path, tmp_path: Path) -> None:
    import pyarrow.dataset as pads

    root = tmp_path / "ds"
    shutil.copytree(small, root)
    shutil.copytree(chunk_dir(root, 1), root / ".tmp-chunk=000001-abc")  # a writer not done yet
    shutil.rmtree(chunk_dir(root, 1))
    games, turns = read_tables(root)
    for table, expected in (("games", games), ("turns", turns)):
        paths = datasets.chunk_files(root, table)
        assert paths == sorted(paths) and all(Path(p).is_absolute() and ".tmp-" not in p for p in paths)
        assert pads.dataset(paths).to_table().equals(expected)
    assert datasets.chunk_files(root, "games") == [
        str(p) for p in sorted(root.glob("chunk=*/games.parquet"))  # the documented glob: the same files
    ]
    for bad in ("moves", None, ["games"]):
        with pytest.raises(DatasetError, match="table is"):
            datasets.chunk_files(root, bad)  # type: ignore[arg-type]


def test_check_wants_the_marker_of_a_finished_run(copy_of_small: Path) -> None:
    (copy_of_small / "_SUCCESS").unlink()
    status, report = run_check(copy_of_small)
    assert status == 1 and len(report["problems"]) == 1 and "no _SUCCESS marker" in report["problems"][0]
    assert report["checked"] == report["games"]


def kinds_of(column: Any, *fields: str) -> Any:
    """A list<struct<..., color, shape>> column with bare kinds (``color * 6 + shape``),
    or structs of ``fields`` and ``tile``, as the older layouts wrote tiles."""
    col = column.combine_chunks()
    values = col.values
    kinds = pa.array((values.field("color").to_numpy() * 6 + values.field("shape").to_numpy()).astype(np.int8))
    if fields:
        kinds = pa.StructArray.from_arrays([*(values.field(f) for f in fields), kinds], names=[*fields, "tile"])
    return pa.ListArray.from_arrays(col.offsets, kinds)


def older_layout(root: Path, version: int) -> None:
    """Turn a dataset into the layout of qwirkle-dataset/2 (chunk-000000/ directories,
    game_id 0..N-1 and a seed column, tiles as kinds) or /1 (games/ and turns/ side by
    side, the same tables)."""
    manifest = json.loads((root / "manifest.json").read_text())
    for k in range(-(-manifest["games"] // manifest["chunk_size"])):
        games = pq.read_table(chunk_dir(root, k) / "games.parquet")
        turns = pq.read_table(chunk_dir(root, k) / "turns.parquet")
        seeds = games.column("game_id")
        index = pa.array(seeds.to_numpy().astype(np.int64) - manifest["seed"])
        games = games.drop_columns(["winners", "opener"]).set_column(0, "game_id", index).add_column(1, "seed", seeds)
        turn_index = pa.array(turns.column("game_id").to_numpy().astype(np.int64) - manifest["seed"])
        turns = turns.drop_columns(["bonus"]).set_column(0, "game_id", turn_index)
        for name in ("hand", "drawn", "exchanged"):
            turns = turns.set_column(turns.column_names.index(name), name, kinds_of(turns.column(name)))
        turns = turns.set_column(turns.column_names.index("placements"), "placements",
                                 kinds_of(turns.column("placements"), "row", "col"))
        shutil.rmtree(chunk_dir(root, k))
        for table, name in ((games, "games"), (turns, "turns")):
            path = root / f"chunk-{k:06d}" / f"{name}.parquet" if version == 2 else root / name / f"chunk-{k:06d}.parquet"
            path.parent.mkdir(exist_ok=True)
            pq.write_table(table, path, compression="zstd")
    if version == 1:
        (root / "_SUCCESS").unlink()
    (root / "manifest.json").write_text(json.dumps(manifest | {"format": f"qwirkle-dataset/{version}"}))


def old_layout(root: Path) -> None:
    older_layout(root, 1)


def test_a_first_layout_directory_is_read_and_checked_not_written(small: Path, tmp_path: Path) -> None:
    root = tmp_path / "old"
    shutil.copytree(small, root)
    old_layout(root)
    games, turns = read_tables(root)
    assert games.column("seed").equals(read_tables(small)[0].column("game_id"))
    assert turns.num_rows == read_tables(small)[1].num_rows
    assert list(read_records(root)) == list(read_records(small))
    assert datasets.chunk_files(root, "turns")[0].endswith("turns/chunk-000000.parquet")
    assert check_dataset(root).ok
    (root / "turns" / "chunk-999999.parquet").write_bytes(b"")
    assert check_dataset(root).problems == ["chunk-999999.parquet: not a chunk of this dataset"]
    manifest = json.loads((root / "manifest.json").read_text())
    with pytest.raises(DatasetError, match="qwirkle-dataset/1 dataset .* never added to"):
        write_dataset(root, manifest["games"], 3, MIXED, seed=11, chunk_size=manifest["chunk_size"])


def test_a_second_layout_directory_is_read_and_checked_not_written(small: Path, tmp_path: Path) -> None:
    root = tmp_path / "v2"
    shutil.copytree(small, root)
    older_layout(root, 2)
    games, _ = read_tables(root)
    assert games.column("game_id").to_pylist() == list(range(games.num_rows))
    assert list(read_records(root)) == list(read_records(small))
    assert datasets.chunk_files(root, "games")[0].endswith("chunk-000000/games.parquet")
    assert check_dataset(root).ok
    tamper(chunk_dir(root, 0).with_name("chunk-000000") / "turns.parquet", "hand", lambda k: (k + 1) % 36)
    problems = check_dataset(root).problems
    assert problems and problems[0].startswith("game 0: turn 0:"), problems
    with pytest.raises(DatasetError, match="qwirkle-dataset/2 dataset .* never added to"):
        write_dataset(root, games.num_rows, 3, MIXED, seed=11, chunk_size=15 if not JIT_OFF else 2)


def test_other_parameters_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    write_dataset(root, 2, 2, ["greedy"], seed=1)
    for kwargs in ({"games": 3}, {"seed": 2}, {"bots": ["random"]}, {"chunk_size": 1}):
        args: dict[str, Any] = {"games": 2, "players": 2, "bots": ["greedy"], "seed": 1} | kwargs
        with pytest.raises(DatasetError, match="other parameters"):
            write_dataset(root, **args)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(DatasetError, match="not empty"):
        write_dataset(tmp_path / "other", 2)
    with pytest.raises(DatasetError, match="players"):
        write_dataset(tmp_path / "bad", 2, players=7)
    with pytest.raises(DatasetError, match="no manifest"):
        check_dataset(tmp_path / "other")
    with pytest.raises(DatasetError, match="is not a dataset"):  # a file (a records file): was "Not a directory"
        check_dataset(tmp_path / "other" / "notes.txt")


def test_a_manifest_promising_more_games_than_there_are_is_checked_at_once(tmp_path: Path) -> None:
    """A damaged manifest may promise any number of chunks: the chunks are found by
    listing the directory, and a run of missing ones is one problem (check looked for
    each chunk promised, and ran for ever on 10**15 games)."""
    root = tmp_path / "ds"
    write_dataset(root, 4, 2, ["greedy"], seed=1, chunk_size=2)
    manifest = json.loads((root / "manifest.json").read_text())
    (root / "manifest.json").write_text(json.dumps({**manifest, "games": 10**15}))
    report = check_dataset(root)
    assert report.problems == [f"chunks 2..{10**15 // 2 - 1} (games 4..{10**15 - 1}) are missing"]
    assert report.checked == 4 and len(read_tables(root)[0]) == 4
    (root / "manifest.json").write_text(json.dumps({**manifest, "games": 5}))  # one chunk missing: as before
    assert check_dataset(root).problems == ["chunk 2 (games 4..4) is missing"]


def test_bad_arguments_are_refused_before_anything_is_written(tmp_path: Path, small: Path) -> None:
    root = tmp_path / "ds"
    for kwargs in ({"players": 2.0}, {"players": "2"}, {"bots": None}, {"bots": "greedy"}, {"client": 5},
                   {"progress": 5}):
        with pytest.raises(DatasetError):
            write_dataset(root, 4, **{"players": 2, "bots": ["greedy"], "seed": 1, **kwargs})
        assert not root.exists()
    with pytest.raises(DatasetError, match="progress"):
        check_dataset(small, progress=5)


@pytest.mark.parametrize("workers", [-1, 0, True, np.bool_(True), 2.5, 2.0, "2", datasets.MAX_WORKERS + 1])
def test_workers_that_are_no_count_of_processes_are_refused_before_anything_starts(
    workers: Any, tmp_path: Path, small: Path
) -> None:
    # Dask took 0 and True as one worker, and waited for ever on -1 (after the manifest
    # was written); a float or a string failed inside it with a TypeError.
    root = tmp_path / "ds"
    with pytest.raises(DatasetError, match="workers must be"):
        write_dataset(root, 4, 2, ["greedy"], seed=1, workers=workers)
    assert not root.exists()
    with pytest.raises(DatasetError, match="workers must be"):
        check_dataset(small, workers=workers)


def test_workers_may_be_a_numpy_integer() -> None:
    workers = datasets._check_workers(np.int64(3))
    assert workers == 3 and type(workers) is int
    assert datasets._check_workers(None) is None


def test_a_failed_write_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ds"
    write_dataset(root, 2, 2, ["greedy"], seed=1, chunk_size=1)
    shutil.rmtree(chunk_dir(root, 1))
    (root / "_SUCCESS").unlink()

    def broken(table: Any, where: Any, **kwargs: Any) -> None:
        where.write(b"PAR1 and then the disk is full")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError):
        write_dataset(root, 2, 2, ["greedy"], seed=1, chunk_size=1)
    assert sorted(p.name for p in root.iterdir()) == [datasets.chunk_name(0), "manifest.json"]


def test_a_worker_that_cannot_see_the_dataset_refuses(tmp_path: Path) -> None:
    spec = datasets.DatasetSpec(2, 2, ("greedy", "greedy"), 0, 2)
    with pytest.raises(DatasetError, match="file system every worker shares"):
        datasets.write_chunk(str(tmp_path / "elsewhere"), spec.to_json(), 0)


def test_the_command_reports_a_failed_write_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(table: Any, where: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq, "write_table", full)
    # (No progress line: on a loaded machine a slow start would write one.)
    assert main(["selfplay", "--games", "1", "--out", str(tmp_path / "ds"), "--progress", "never"]) == 2  # (docs/cli.md: as any file)
    err = capsys.readouterr().err
    assert "No space left on device" in err and len(err.strip().splitlines()) == 1
    assert main(["selfplay", "--games", "1", "--out", str(tmp_path / "ds" / "manifest.json" / "x")]) == 2


# ---------------------------------------------------------------- checking
def tamper(path: Path, column: str, change: Any) -> None:
    """Rewrite one column of a Parquet file through ``change(numpy values) -> values``;
    a list column's flat values are changed in place of the list."""
    table = pq.read_table(path)
    col = table.column(column).combine_chunks()
    if pa.types.is_list(col.type):
        values = col.values
        if pa.types.is_struct(values.type):  # tiles: struct<(row, col,) color, shape>
            kinds = values.field("color").to_numpy().astype(np.int64) * 6 + values.field("shape").to_numpy()
            tiles = change(kinds.copy())
            kept = [f.name for f in values.type if f.name not in ("color", "shape")]
            values = pa.StructArray.from_arrays(
                [*(values.field(k) for k in kept), pa.array((tiles // 6).astype(np.int8)), pa.array((tiles % 6).astype(np.int8))],
                names=[*kept, "color", "shape"],
            )
        else:
            values = pa.array(change(values.to_numpy(zero_copy_only=False).copy()))
        new = pa.ListArray.from_arrays(col.offsets, values)
    else:
        new = pa.array(change(col.to_numpy(zero_copy_only=False).copy()))
    pq.write_table(table.set_column(table.column_names.index(column), column, new), path)


@pytest.fixture
def copy_of_small(small: Path, tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(small, root)
    return root


def run_check(root: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    parser = argparse.ArgumentParser()
    check_command.register(parser.add_subparsers())
    args = parser.parse_args(["check", str(root), "--json", *extra])
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = check_command.run(args)
    return status, json.loads(out.getvalue())


def test_check_passes_a_true_dataset(small: Path) -> None:
    status, report = run_check(small)
    assert status == 0 and report["ok"] and report["checked"] == report["games"] and not report["problems"]


def test_check_catches_a_tampered_score(copy_of_small: Path) -> None:
    def plus_one(scores: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
        scores[np.nonzero(scores)[0][2]] += 1
        return scores

    tamper(chunk_dir(copy_of_small, 0) / "turns.parquet", "score", plus_one)
    status, report = run_check(copy_of_small)
    assert status == 1 and not report["ok"]
    assert len(report["problems"]) == 1 and "game 11: turn" in report["problems"][0]  # (seed 11)
    assert "the record scores" in report["problems"][0]


@pytest.mark.parametrize("column", ["placements", "drawn", "hand"])
def test_check_catches_a_tampered_tile(copy_of_small: Path, column: str) -> None:
    def other_tile(kinds: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
        kinds[3] = (kinds[3] + 1) % 36
        return kinds

    tamper(chunk_dir(copy_of_small, 1) / "turns.parquet", column, other_tile)
    status, report = run_check(copy_of_small)
    spec = datasets._read_manifest(copy_of_small)
    first = spec.seed + spec.chunk_range(1)[0]  # the first game's id: its seed
    assert status == 1 and report["problems"] and report["problems"][0].startswith(f"game {first}:")


def test_read_records_refuses_games_out_of_order_and_a_chunk_that_changed(copy_of_small: Path) -> None:
    path = chunk_dir(copy_of_small, 0) / "games.parquet"
    table = pq.read_table(path)
    ids = table.column("game_id").to_pylist()
    ids[0], ids[1] = ids[1], ids[0]  # two games swapped: their turns no longer one slice each
    pq.write_table(table.set_column(0, "game_id", pa.array(ids, pa.uint64())), path)
    with pytest.raises(DatasetError, match="not consecutive"):
        list(read_records(copy_of_small))
    pq.write_table(table, path)
    chunks = iter_chunks(copy_of_small)
    next(chunks)
    shutil.rmtree(chunk_dir(copy_of_small, 1))  # as an extension does to a last, partial chunk
    with pytest.raises(DatasetError, match="changed while it was read"):
        next(chunks)


def test_a_reader_between_a_chunks_two_tables_rewritten_sees_a_change(
    copy_of_small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An extension that rewrites the last chunk between a reader's reads of its games
    and its turns: the two disagree, and the reader says the chunk changed."""
    last = len(list(iter_chunks(copy_of_small))) - 1
    turns_path = chunk_dir(copy_of_small, last) / "turns.parquet"
    other = pq.read_table(chunk_dir(copy_of_small, 0) / "turns.parquet")  # another chunk's turns
    read = pq.read_table

    def torn(where: Any, *args: Any, **kwargs: Any) -> Any:
        return other if Path(where) == turns_path else read(where, *args, **kwargs)

    monkeypatch.setattr(pq, "read_table", torn)
    with pytest.raises(DatasetError, match=f"chunk {last} changed while it was read"):
        read_tables(copy_of_small)


def test_a_damaged_chunk_is_named_by_readers_and_by_a_run_that_resumes(
    copy_of_small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A chunk's file cut short: the readers raise a DatasetError naming it; a run that
    resumes or extends stops in one line (exit 2) that says how to write it anew; after
    that, the run writes it again, the same bytes as before."""
    before = files(copy_of_small)
    manifest = json.loads((copy_of_small / "manifest.json").read_text())
    path = chunk_dir(copy_of_small, 1) / "games.parquet"
    path.write_bytes(path.read_bytes()[:100])
    for read in (read_tables, lambda root: list(read_records(root))):
        with pytest.raises(DatasetError, match="chunk 1 cannot be read"):
            read(copy_of_small)
    argv = ["selfplay", "--games", str(manifest["games"]), "--players", str(manifest["players"]),
            "--bots", ",".join(manifest["bots"]), "--seed", str(manifest["seed"]),
            "--chunk-size", str(manifest["chunk_size"]), "--out", str(copy_of_small), "--progress", "never"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "chunk 1 cannot be read" in err and "run again to write it anew" in err and len(err.splitlines()) == 1
    shutil.rmtree(chunk_dir(copy_of_small, 1))
    assert main(argv) == 0
    assert files(copy_of_small) == before


def test_check_catches_a_seat_of_another_integer_type(copy_of_small: Path) -> None:
    path = chunk_dir(copy_of_small, 0) / "turns.parquet"
    table = pq.read_table(path)
    seats = table.column("player").to_numpy().astype(np.int64) + 2**32  # read through an int32: the same seats
    pq.write_table(table.set_column(table.column_names.index("player"), "player", pa.array(seats)), path)
    status, report = run_check(copy_of_small)
    assert status == 1 and report["problems"] == ["chunk 0: the turns table's 'player' column is not what its games give"]


@pytest.mark.parametrize(("name", "column"), [("games", "opener"), ("games", "winners"), ("turns", "bonus")])
def test_check_catches_a_reader_column_that_its_games_do_not_give(copy_of_small: Path, name: str, column: str) -> None:
    path = chunk_dir(copy_of_small, 0) / f"{name}.parquet"
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    values[0] = [2] if column == "winners" and values[0] != [2] else [1] if column == "winners" else 1 - values[0]
    new = pa.array(values, type=table.schema.field(column).type)
    pq.write_table(table.set_column(table.column_names.index(column), column, new), path)
    status, report = run_check(copy_of_small)
    assert status == 1 and report["problems"] == [f"chunk 0: the {name} table's {column!r} column is not what its games give"]


@pytest.mark.parametrize(("name", "column", "label"), [("turns", "score", "score"), ("games", "turns", "turns"),
                                                      ("turns", "placements", "placements.row"), ("games", "scores", "scores")])
def test_a_missing_number_is_a_problem_for_check_and_an_error_for_read_records(
    copy_of_small: Path, name: str, column: str, label: str
) -> None:
    """A null where a number belongs: named as such (numpy would have read NaN, then
    some integer, with a warning on stderr)."""
    import warnings

    path = chunk_dir(copy_of_small, 0) / f"{name}.parquet"
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    at = next(i for i, v in enumerate(values) if v)  # (a turn with placements)
    if column == "placements":
        values[at] = [{**values[at][0], "row": None}, *values[at][1:]]
    elif column == "scores":
        values[at] = [None, *values[at][1:]]
    else:
        values[at] = None
    pq.write_table(table.set_column(table.column_names.index(column), column, pa.array(values, table.schema.field(column).type)), path)
    problem = f"chunk 0: the {name} table's {label!r} column has a missing value (null)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status, report = run_check(copy_of_small)
        assert status == 1 and report["problems"] == [problem]
        with pytest.raises(DatasetError, match="missing value"):
            list(read_records(copy_of_small))
        if name == "games":  # a run that resumes reads the games tables' figures: it stops too
            manifest = json.loads((copy_of_small / "manifest.json").read_text())
            with pytest.raises(DatasetError, match="chunk 0 cannot be read.*missing value"):
                write_dataset(copy_of_small, manifest["games"], manifest["players"], manifest["bots"],
                              manifest["seed"], chunk_size=manifest["chunk_size"])


@pytest.mark.parametrize("column", ["placements", "hand"])
def test_a_colour_no_tile_has_is_a_problem_for_check_and_an_error_for_read_records(
    copy_of_small: Path, column: str
) -> None:
    path = chunk_dir(copy_of_small, 0) / "turns.parquet"
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    first = next(i for i, tiles in enumerate(values) if tiles)
    values[first][0]["color"] = 9  # a seventh colour: no kind, and past what a record's digit says
    new = pa.array(values, type=table.schema.field(column).type)
    pq.write_table(table.set_column(table.column_names.index(column), column, new), path)
    status, report = run_check(copy_of_small)
    assert status == 1 and report["problems"][0].startswith("game 11: turn"), report["problems"]
    with pytest.raises(QwirkleError, match="tile kinds 0..35"):
        list(read_records(copy_of_small))


def test_check_catches_a_lost_chunk_a_stray_file_and_a_wrong_final_score(copy_of_small: Path) -> None:
    shutil.rmtree(chunk_dir(copy_of_small, 1))
    (copy_of_small / "chunk-999999").mkdir()
    (copy_of_small / ".tmp-chunk=000001-789").mkdir()  # a writer's leftover: no problem of the dataset
    (chunk_dir(copy_of_small, 2) / "games (1).parquet").write_bytes(b"")  # passed unseen before
    tamper(chunk_dir(copy_of_small, 0) / "games.parquet", "scores", lambda s: s + 1)
    status, report = run_check(copy_of_small)
    problems = "\n".join(report["problems"])
    assert status == 1
    assert "chunk 1 (games" in problems and "is missing" in problems
    assert "chunk-999999: not a chunk of this dataset" in problems
    assert f"{chunk_dir(copy_of_small, 2).name}/games (1).parquet: not a file of a chunk" in problems
    assert "final scores" in problems and ".tmp-" not in problems


def test_check_catches_a_chunk_s_table_that_is_a_directory(copy_of_small: Path) -> None:
    """pyarrow reads a directory named games.parquet as a dataset of its files, and so
    did check; DuckDB and pandas refuse it, and a glob of the chunks' files misses it."""
    games = chunk_dir(copy_of_small, 0) / "games.parquet"
    moved = games.with_name("part-0.parquet")
    games.rename(moved)
    games.mkdir()
    moved.rename(games / "part-0.parquet")
    status, report = run_check(copy_of_small)
    assert status == 1
    assert f"{chunk_dir(copy_of_small, 0).name}/games.parquet: not a file of a chunk" in "\n".join(report["problems"])


def test_check_catches_a_table_that_is_a_directory_in_the_first_layout(copy_of_small: Path) -> None:
    """qwirkle-dataset/1 keeps the chunks' tables side by side in games/ and turns/."""
    older_layout(copy_of_small, 1)
    games = copy_of_small / "games" / "chunk-000000.parquet"
    moved = games.with_name("part-0")
    games.rename(moved)
    games.mkdir()
    moved.rename(games / "part-0.parquet")
    status, report = run_check(copy_of_small)
    assert status == 1 and any("chunk-000000.parquet" in p for p in report["problems"]), report["problems"]


@pytest.mark.parametrize(("name", "column"), [("turns", "drawn"), ("games", "scores")])
def test_check_reports_tables_no_writer_writes(copy_of_small: Path, name: str, column: str) -> None:
    """A turn listing seven tiles drawn, a final score that is null: a problem of the
    chunk in the report, not a crash."""
    path = chunk_dir(copy_of_small, 0) / f"{name}.parquet"
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    values[0] = values[0] * 7 if column == "drawn" else [None] * len(values[0])
    new = pa.array(values, type=table.schema.field(column).type)
    pq.write_table(table.set_column(table.column_names.index(column), column, new), path)
    status, report = run_check(copy_of_small)
    assert status == 1 and any(p.startswith("chunk 0: ") for p in report["problems"]), report["problems"]


def test_check_catches_a_wrong_end(copy_of_small: Path) -> None:
    path = chunk_dir(copy_of_small, 0) / "games.parquet"
    table = pq.read_table(path)
    ends = table.column("end").cast(pa.string()).to_pylist()
    ends[0] = "dead" if ends[0] != "dead" else "out"
    column = pa.array(ends).dictionary_encode()
    pq.write_table(table.set_column(table.column_names.index("end"), "end", column), path)
    status, report = run_check(copy_of_small)
    assert status == 1 and len(report["problems"]) == 1
    assert report["problems"][0].startswith(f"game 11: the record says the game ended {ends[0]!r}, the replay")


def test_check_command_text_and_bad_arguments(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(small)]) == 0
    assert "every game replays" in capsys.readouterr().out
    assert main(["check", str(tmp_path)]) == 2
    assert main(["check", str(small), "--workers", "0"]) == 2
    assert main(["check", str(small), "--workers", "1", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 3 and "Traceback" not in err


# ---------------------------------------------------------- the selfplay command
def test_selfplay_out_summary_json_and_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = "3" if JIT_OFF else "30"
    argv = ["selfplay", "--games", n, "--seed", "4", "--out", str(tmp_path / "ds"), "--chunk-size", "2"]
    assert main([*argv, "--progress", "always"]) == 0
    captured = capsys.readouterr()
    assert "mean score" in captured.out and "games per second" in captured.out
    assert f"{n}/{n}" in captured.err and "games/s" in captured.err  # tqdm, finished
    assert main([*argv, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    direct = selfplay(int(n), 2, ["greedy", "greedy"], seed=4)
    assert summary["mean_scores"] == [round(float(m), 3) for m in direct.scores.mean(axis=0)]
    assert summary["wins"] == [int(w) for w in direct.wins()[0]]
    assert (summary["written"], summary["skipped"]) == (0, int(n))


@pytest.mark.parametrize(
    "argv",
    [
        ["--workers", "2"],
        ["--scheduler", "tcp://127.0.0.1:1"],
        ["--out", "DIR", "--workers", "0"],
        ["--out", "DIR", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
        ["--out", "DIR", "--record", "x.jsonl"],
        ["--out", "DIR", "--append"],
        ["--out", "DIR", "--workers", "2", "--threads", "1"],
        ["--out", "DIR", "--chunk-size", "0"],
        ["--out", "DIR", "--games", "3", "--seed", "1"],  # DIR holds other parameters
    ],
)
def test_selfplay_out_bad_arguments(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_dataset(tmp_path / "ds", 2, 2, ["greedy"], seed=0)
    capsys.readouterr()  # the first compilation's notice, if this process compiled here: not the command's line
    argv = [str(tmp_path / "ds") if a == "DIR" else a for a in argv]
    assert main(["selfplay", "--games", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("chunk_size", ["banana", "2"])
@pytest.mark.parametrize("extra", [["--json"], ["--record", "games.jsonl"]])
def test_selfplay_chunk_size_without_out_is_refused(
    chunk_size: str, extra: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was ignored without --out (the games played, exit 0), its value never read.
    monkeypatch.chdir(tmp_path)
    assert main(["selfplay", "--games", "3", "--chunk-size", chunk_size, *extra]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("qwirkle-core: ")
    assert "--chunk-size" in err and "give --out DIR" in err
    assert list(tmp_path.iterdir()) == []  # no records file either


# ------------------------------------------------------------------ clusters
try:
    import distributed
except ImportError:  # pragma: no cover - CI installs the scale extra
    distributed = None
cluster_test = pytest.mark.skipif(
    distributed is None or JIT_OFF or bool(os.environ.get("NUMBA_BOUNDSCHECK")),
    reason="cluster tests need dask.distributed (the scale extra) and run in the JIT-on run "
    "(worker processes playing without the JIT are too slow)",
)


@pytest.fixture(scope="module")
def client() -> Any:
    """A local cluster of two one-thread worker processes, warmed."""
    warmup.warm_kernels()  # fill the numba cache first: the workers load, never compile
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.mark.cluster
@pytest.mark.skipif(distributed is None, reason="clusters need dask.distributed: the scale extra")
def test_a_cluster_of_threads_in_this_process(tmp_path: Path) -> None:
    """The cluster path end to end without worker processes (so it runs with the JIT off too)."""
    n = 3 if JIT_OFF else 30
    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0"
    ) as in_process:
        spread = write_dataset(tmp_path / "spread", n, 2, ["greedy"], seed=6, chunk_size=2, client=in_process)
        assert spread.where.startswith("dask") and spread.written == n
        assert check_dataset(tmp_path / "spread", client=in_process).ok
    write_dataset(tmp_path / "alone", n, 2, ["greedy"], seed=6, chunk_size=2)
    assert files(tmp_path / "alone") == files(tmp_path / "spread")


@pytest.mark.cluster
@cluster_test
def test_one_process_and_a_cluster_write_the_same_bytes(client: Any, tmp_path: Path) -> None:
    args = (200, 2, ["greedy", "heuristic"], 21)
    alone = write_dataset(tmp_path / "alone", *args, chunk_size=25)
    spread = write_dataset(tmp_path / "spread", *args, chunk_size=25, client=client)
    assert files(tmp_path / "alone") == files(tmp_path / "spread")
    assert alone.to_json()["mean_scores"] == spread.to_json()["mean_scores"] and spread.where.startswith("dask")
    assert np.array_equal(alone.tally.wins, spread.tally.wins) and alone.tally.turn_sum == spread.tally.turn_sum
    report = check_dataset(tmp_path / "spread", client=client)
    assert report.ok and report.checked == 200


@pytest.mark.cluster
@cluster_test
def test_a_killed_worker_loses_nothing_and_doubles_nothing(client: Any, tmp_path: Path) -> None:
    n, chunk = 3000, 100
    write_dataset(tmp_path / "undisturbed", n, 2, ["greedy"], seed=77, chunk_size=chunk)
    pids = client.run(os.getpid)
    killed: list[int] = []

    def kill_a_busy_worker(done: int, total: int) -> None:
        if not killed:
            busy = [address for address, keys in client.processing().items() if keys and address in pids]
            os.kill(pids[busy[0]], signal.SIGKILL)
            killed.append(done)

    summary = write_dataset(
        tmp_path / "disturbed", n, 2, ["greedy"], seed=77, chunk_size=chunk, client=client,
        progress=kill_a_busy_worker,
    )
    assert killed and killed[0] < n  # the worker died mid-run, with chunks of its own
    assert summary.written == n
    games, _ = read_tables(tmp_path / "disturbed")
    assert games.column("game_id").to_pylist() == [77 + i for i in range(n)]  # every game once
    assert files(tmp_path / "disturbed") == files(tmp_path / "undisturbed")
    assert not list((tmp_path / "disturbed").rglob(".tmp-*"))


@pytest.mark.cluster
@cluster_test
def test_the_command_on_a_running_scheduler(client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    address = client.scheduler.address
    out = tmp_path / "ds"
    assert main(["selfplay", "--games", "200", "--chunk-size", "50", "--out", str(out), "--scheduler", address,
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["written"] == 200 and summary["where"].startswith(f"dask {address}")
    assert main(["check", str(out), "--scheduler", address]) == 0
    assert "200 of 200 games checked, every game replays" in capsys.readouterr().out


@pytest.mark.cluster
@cluster_test
def test_a_local_cluster_from_the_library(tmp_path: Path) -> None:
    summary = write_dataset(tmp_path / "ds", 40, 2, ["greedy"], seed=2, chunk_size=20, workers=1)
    assert summary.written == 40 and "1 workers" in summary.where and summary.startup_seconds > 0
    assert list(read_records(tmp_path / "ds")) == selfplay(40, 2, ["greedy", "greedy"], seed=2, record=True).records
    from qwirkle_core import cluster

    with cluster.connect(1, None, load_kernels=datasets.load_chunk_kernels) as (local, _):  # the local cluster's workers keep quiet
        for key, value in cluster.QUIET_WORKERS.items():
            assert set(local.run(dask_config.get, key).values()) == {value}


@pytest.mark.cluster
@pytest.mark.skipif(distributed is None, reason="clusters need dask.distributed: the scale extra")
def test_a_relative_out_reaches_the_tasks_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from qwirkle_core import cluster

    sent: list[str] = []
    real = cluster.run_tasks

    def spy(client: Any, func: Any, calls: Any, on_done: Any, name: str) -> None:
        sent.extend(call[0] for call in calls)
        real(client, func, calls, on_done, name)

    monkeypatch.setattr(cluster, "run_tasks", spy)
    monkeypatch.chdir(tmp_path)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
        summary = write_dataset("ds", 2, 2, ["greedy"], seed=1, chunk_size=1, client=c)
        assert check_dataset("ds", client=c).ok
    assert sent and set(sent) == {str(tmp_path / "ds")} == {summary.path}


@pytest.mark.cluster
@pytest.mark.skipif(distributed is None, reason="clusters need dask.distributed: the scale extra")
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES, errno.EROFS])
def test_a_task_that_fails_for_good_is_not_tried_again(
    code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tries: list[int] = []

    def full(table: Any, where: Any, **kwargs: Any) -> None:
        tries.append(1)
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(pq, "write_table", full)
    with (
        distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c,
        pytest.raises(OSError) as caught,
    ):
        write_dataset(tmp_path / "ds", 1, 2, ["greedy"], seed=1, client=c)
    assert caught.value.errno == code and len(tries) == 1  # once, not once and then 3 retries
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == ["manifest.json"]


@pytest.mark.cluster
@pytest.mark.skipif(distributed is None, reason="clusters need dask.distributed: the scale extra")
def test_a_scheduler_not_there_is_named_at_once_and_nothing_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from qwirkle_core import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 0.5)
    out = tmp_path / "ds"
    address = "tcp://127.0.0.1:1"  # nothing listens there
    assert main(["selfplay", "--games", "2", "--out", str(out), "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert f"cannot reach the Dask scheduler at {address} within 0.5 s" in err
    assert len(err.strip().splitlines()) == 1 and "cannot write" not in err
    assert not out.exists()  # nothing created before the cluster answers
    with pytest.raises(cluster.ClusterError, match="127.0.0.1:1"):
        write_dataset(out, 2, scheduler=address)
    assert not out.exists()
    write_dataset(out, 2, seed=1)
    assert main(["check", str(out), "--scheduler", address]) == 2
    assert address in capsys.readouterr().err


@pytest.mark.cluster
@pytest.mark.skipif(distributed is None, reason="clusters need dask.distributed: the scale extra")
@pytest.mark.parametrize(
    "address", ["nonsense", "tcp://host:notaport", "foo://x:1", "tcp://h:0", "", "tls://127.0.0.1:8786", "inproc://x"]
)
def test_a_malformed_scheduler_address_is_one_line(
    address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qwirkle_core import cluster

    out = tmp_path / "ds"
    assert main(["selfplay", "--games", "2", "--out", str(out), "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert "is not a Dask scheduler address" in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    assert main(["check", str(tmp_path), "--scheduler", address]) == 2
    assert "is not a Dask scheduler address" in capsys.readouterr().err
    with pytest.raises(cluster.SchedulerAddressError):
        write_dataset(out, 2, scheduler=address)
    assert cluster.check_address("tcp://10.0.0.5:8786") == "tcp://10.0.0.5:8786"


@pytest.mark.skipif(
    bool(os.environ.get("NUMBA_BOUNDSCHECK")),
    reason="compiles the game loop for every set of bots (30 s bounds-checked) to check what the warm-up plays; "
    "the JIT-on run checks it, and the bots' games run bounds-checked in test_selfplay",
)
def test_the_warm_up_plays_every_set_of_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    seated: list[frozenset[str]] = []
    real = datasets.play_chunk

    def spy(spec: Any, chunk: int, on_games: Any = None) -> Any:
        seated.append(frozenset(spec.bots))
        return real(spec, chunk, on_games)

    monkeypatch.setattr(datasets, "play_chunk", spy)
    warmup.warm_kernels(replay=False)
    if JIT_OFF:  # nothing to compile: one game
        assert len(seated) == 1
    else:
        assert sorted(seated, key=sorted) == sorted({frozenset(m) for m in warmup.bot_mixes()}, key=sorted)
        assert len(seated) == 7
    seated.clear()
    datasets.load_chunk_kernels(replay=False, bots=("random", "heuristic"))
    assert seated == [frozenset({"random", "heuristic"})]


def test_a_spec_takes_numpy_integers_and_keeps_plain_ints() -> None:
    spec = datasets.DatasetSpec(games=np.int64(10), players=np.int32(2), bots=("greedy", "greedy"), seed=np.uint64(3),
                       chunk_size=np.int16(5))
    assert spec == datasets.DatasetSpec(games=10, players=2, bots=("greedy", "greedy"), seed=3, chunk_size=5)
    assert all(type(v) is int for v in (spec.games, spec.players, spec.seed, spec.chunk_size))
