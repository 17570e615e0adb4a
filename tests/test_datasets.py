"""Self-play datasets: Parquet written from the turn logs, read back, resumed, checked;
the same dataset from one process and from a Dask cluster, even when a worker dies."""

from __future__ import annotations

import argparse
import json
import os
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
    read_games,
    read_records,
    read_tables,
    write_dataset,
)
from qwirkle_core.game import Game
from qwirkle_core.records import game_from_record
from qwirkle_core.selfplay import selfplay

JIT_OFF = bool(numba.config.DISABLE_JIT)
MIXED = ["greedy", "random", "heuristic"]


def files(root: Path) -> dict[str, bytes]:
    """Every chunk file of a dataset, by its path inside the dataset."""
    return {
        f"{sub}/{p.name}": p.read_bytes() for sub in ("games", "turns") for p in sorted((root / sub).iterdir())
    }


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


def test_tables_hold_each_game_once_with_the_documented_columns(small: Path) -> None:
    games, turns = read_tables(small)
    n = games.num_rows
    assert games.column("game_id").to_pylist() == list(range(n))
    assert games.column("seed").to_pylist() == [11 + i for i in range(n)]
    assert games.column("bots").to_pylist() == [MIXED] * n
    assert set(games.column("end").to_pylist()) <= {"out", "blocked", "dead"}
    assert games.column_names == ["game_id", "seed", "players", "bots", "scores", "end", "turns"]
    assert turns.column_names == [
        "game_id", "turn", "player", "action", "placements", "score", "exchanged", "drawn", "hand"
    ]
    assert turns.num_rows == sum(games.column("turns").to_pylist())
    docs = (Path(__file__).resolve().parent.parent / "docs" / "datasets.md").read_text()
    for name in games.column_names + turns.column_names:
        assert f"`{name}`" in docs


def test_long_games_are_written_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(datasets, "LOG_CAPACITY", 30)
    n = 2 if JIT_OFF else 6
    summary = write_dataset(tmp_path / "ds", n, 3, ["random"], seed=5)
    assert summary.turns.min() > 30
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
    # An interrupted run: chunk 1 has its turns file but not its games file (written
    # last), and a writer left a temporary file.
    (root / "games" / datasets.chunk_name(1)).unlink()
    (root / "turns" / ".chunk-000001.parquet.123.tmp").write_bytes(b"half a file")
    kept = {p: p.stat().st_mtime_ns for p in (root / "games").iterdir()}
    second = write_dataset(root, n, 2, ["greedy", "random"], seed=8, chunk_size=chunk)
    assert (second.written, second.skipped) == (chunk, n - chunk)
    assert {p: p.stat().st_mtime_ns for p in kept} == kept  # the other chunks untouched
    assert files(root) == before  # no temporary file left, the same bytes
    assert (second.scores == first.scores).all() and (second.ends == first.ends).all()
    third = write_dataset(root, n, 2, ["greedy", "random"], seed=8, chunk_size=chunk)
    assert (third.written, third.where) == (0, "nothing to do")


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


def test_a_failed_write_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ds"
    write_dataset(root, 2, 2, ["greedy"], seed=1, chunk_size=1)
    (root / "games" / datasets.chunk_name(1)).unlink()

    def broken(table: Any, where: Any, **kwargs: Any) -> None:
        where.write(b"PAR1 and then the disk is full")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError):
        write_dataset(root, 2, 2, ["greedy"], seed=1, chunk_size=1)
    assert sorted(p.name for p in (root / "games").iterdir()) == [datasets.chunk_name(0)]
    assert not list(root.rglob("*.tmp"))


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
    assert main(["selfplay", "--games", "1", "--out", str(tmp_path / "ds")]) == 1
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
        if pa.types.is_struct(values.type):
            tiles = change(values.field("tile").to_numpy(zero_copy_only=False).copy())
            values = pa.StructArray.from_arrays(
                [values.field("row"), values.field("col"), pa.array(tiles)], names=["row", "col", "tile"]
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

    tamper(copy_of_small / "turns" / datasets.chunk_name(0), "score", plus_one)
    status, report = run_check(copy_of_small)
    assert status == 1 and not report["ok"]
    assert len(report["problems"]) == 1 and "game 0: turn" in report["problems"][0]
    assert "the record scores" in report["problems"][0]


@pytest.mark.parametrize("column", ["placements", "drawn", "hand"])
def test_check_catches_a_tampered_tile(copy_of_small: Path, column: str) -> None:
    def other_tile(kinds: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
        kinds[3] = (kinds[3] + 1) % 36
        return kinds

    tamper(copy_of_small / "turns" / datasets.chunk_name(1), column, other_tile)
    status, report = run_check(copy_of_small)
    start = datasets._read_manifest(copy_of_small).chunk_range(1)[0]
    assert status == 1 and report["problems"] and report["problems"][0].startswith(f"game {start}:")


def test_check_catches_a_lost_chunk_a_stray_file_and_a_wrong_final_score(copy_of_small: Path) -> None:
    (copy_of_small / "games" / datasets.chunk_name(1)).unlink()
    (copy_of_small / "games" / "chunk-999999.parquet").write_bytes(b"")
    tamper(copy_of_small / "games" / datasets.chunk_name(0), "scores", lambda s: s + 1)
    status, report = run_check(copy_of_small)
    problems = "\n".join(report["problems"])
    assert status == 1
    assert "chunk 1 (games" in problems and "is missing" in problems
    assert "chunk-999999.parquet: not a chunk of this dataset" in problems
    assert "final scores" in problems


def test_check_catches_a_wrong_end(copy_of_small: Path) -> None:
    path = copy_of_small / "games" / datasets.chunk_name(0)
    table = pq.read_table(path)
    ends = table.column("end").cast(pa.string()).to_pylist()
    ends[0] = "dead" if ends[0] != "dead" else "out"
    column = pa.array(ends).dictionary_encode()
    pq.write_table(table.set_column(table.column_names.index("end"), "end", column), path)
    status, report = run_check(copy_of_small)
    assert status == 1 and len(report["problems"]) == 1
    assert report["problems"][0].startswith(f"game 0: the record says the game ended {ends[0]!r}, the replay")


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
    argv = [str(tmp_path / "ds") if a == "DIR" else a for a in argv]
    assert main(["selfplay", "--games", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


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
    assert (alone.scores == spread.scores).all() and spread.where.startswith("dask")
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
    assert games.column("game_id").to_pylist() == list(range(n))  # every game once
    assert files(tmp_path / "disturbed") == files(tmp_path / "undisturbed")
    assert not list((tmp_path / "disturbed").rglob("*.tmp"))


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
