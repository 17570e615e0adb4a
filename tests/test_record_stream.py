"""Self-play records: written by a kernel, streamed as games finish, never lost."""

from __future__ import annotations

import errno
import json
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pytest

from qwirkle_core import _batch
from qwirkle_core.bots import BOT_IDS
from qwirkle_core.records import game_from_record, read_records, record_from_log, record_line
from qwirkle_core.selfplay import play_batches, records_text

from .signals import popen_taking_sigint

JIT_OFF = bool(numba.config.DISABLE_JIT)
TIE = np.arange(6, dtype=np.int64)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_the_record_kernel_writes_what_record_line_writes(players: int) -> None:
    bots = ["random", "greedy", "heuristic", "random", "greedy", "heuristic"][:players]
    ids = np.zeros(6, np.int64)
    ids[:players] = [BOT_IDS[b] for b in bots]
    seeds = [2**64 - 1, 0, 12345] if JIT_OFF else [2**64 - 1, 0, 12345, *range(40, 60)]
    n = len(seeds)
    logs = _batch.empty_logs(n, 2000)
    scores = np.zeros((n, 6), np.int64)
    turns = np.zeros(n, np.int64)
    ends = np.zeros(n, np.int64)
    for i, seed in enumerate(seeds):
        scores[i], turns[i], ends[i] = _batch.play_game(players, seed & 0xFFFFFFFF, seed >> 32, TIE, ids, logs[i])
    text = records_text(players, seeds, scores, turns, ends, logs).decode()
    want = "".join(
        record_line(record_from_log(players, s, logs[i, : turns[i]], scores[i], ends[i])) + "\n"
        for i, s in enumerate(seeds)
    )
    assert text == want


def test_batches_carry_whole_records_in_order() -> None:
    games = 6 if JIT_OFF else 600
    seen = []
    for batch in play_batches(games, 2, ["random", "greedy"], seed=99, record=True, parallel=False, batch=250):
        lines = batch.records_text.decode().splitlines()
        assert len(lines) == len(batch.seeds)
        for line, seed in zip(lines, batch.seeds):
            record = json.loads(line)
            assert record["seed"] == seed and record["end"] in ("out", "blocked", "dead")
            seen.append(seed)
    assert seen == list(range(99, 99 + games))
    # A long game (past the log's first capacity) is logged whole: it replays.
    game_from_record(line)


def _selfplay(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "qwirkle_core", "selfplay", *args],
        capture_output=True, text=True, timeout=600, check=False, **kwargs,  # type: ignore[call-overload]
    )


@pytest.mark.process
def test_an_existing_record_file_is_never_destroyed(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    first = _selfplay(["--games", "3", "--record", str(path), "--progress", "never"])
    assert first.returncode == 0, first.stderr
    kept = path.read_bytes()
    again = _selfplay(["--games", "3", "--seed", "50", "--record", str(path), "--progress", "never"])
    assert again.returncode == 2 and "--append" in again.stderr and again.stderr.count("\n") == 1
    assert path.read_bytes() == kept
    # --append adds whole lines after a cut-off partial line from an interrupted run.
    path.write_bytes(kept + b'{"format": "qwirkle-rec')
    more = _selfplay(["--games", "2", "--seed", "50", "--record", str(path), "--append", "--progress", "never"])
    assert more.returncode == 0, more.stderr
    records = list(read_records(path.read_text().splitlines()))
    assert [r["seed"] for r in records] == [0, 1, 2, 50, 51]
    for record in records:
        game_from_record(record)


@pytest.mark.process
def test_an_unwritable_record_path_exits_2(tmp_path: Path) -> None:
    done = _selfplay(["--games", "2", "--record", str(tmp_path / "no" / "such" / "dir.jsonl")])
    assert done.returncode == 2 and done.stderr.startswith("qwirkle-core: error: cannot write")


@pytest.mark.process
@pytest.mark.skipif(JIT_OFF, reason="needs games fast enough to interrupt mid-run")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_an_interrupted_run_leaves_only_whole_replayable_lines(tmp_path: Path, signum: int) -> None:
    path = tmp_path / "games.jsonl"
    proc = popen_taking_sigint(
        [sys.executable, "-m", "qwirkle_core", "selfplay", "--games", "2000000", "--bots", "random",
         "--threads", "1", "--record", str(path), "--progress", "never"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while (not path.exists() or path.stat().st_size < 200_000) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    if signum == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 128 + signum, err
        assert "stopped by signal" in err and "Traceback" not in err and "SystemError" not in err
    data = path.read_bytes()
    assert data.endswith(b"\n")
    lines = data.decode().splitlines()
    assert len(lines) >= 256
    seeds = [json.loads(line)["seed"] for line in lines]
    assert seeds == list(range(len(lines)))  # in order, none missing, none twice
    for line in lines[:: max(1, len(lines) // 20)]:
        game_from_record(line)
    assert os.path.getsize(path) == len(data)


_KILLED_WRITER = r"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("record_writer", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
writer = module.RecordWriter(open(sys.argv[2], "ab"))
batch = b"".join(b"%06d %s\n" % (i, b"x" * 93) for i in range(40_000))  # 4 MB, built once
while True:  # until killed: most of the time goes to sending and writing
    writer.write(batch)
"""
_BATCH = b"".join(b"%06d %s\n" % (i, b"x" * 93) for i in range(40_000))


def _record_writer_module() -> str:
    from qwirkle_core import _record_writer

    return _record_writer.__file__


@pytest.mark.process
@pytest.mark.parametrize("delay", [0.0, 0.003, 0.011, 0.029])
def test_sigkill_in_the_middle_of_a_batch_leaves_whole_lines(tmp_path: Path, delay: float) -> None:
    """SIGKILL cannot be caught: the run may die while a batch is sent or written.  The
    helper process writes a batch only whole, so the file holds whole batches."""
    path = tmp_path / "lines.txt"
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, _record_writer_module(), str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while (not path.exists() or path.stat().st_size == 0) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.001)
        time.sleep(delay)  # somewhere in the next batches: sending, writing or syncing
        proc.kill()
        _, err = proc.communicate(timeout=60)  # stderr is shared: this waits for the helper too
    finally:
        proc.kill()
    data = path.read_bytes()
    assert data and data == _BATCH * (len(data) // len(_BATCH))
    assert b"Traceback" not in err and b"Exception" not in err, err


def _helper(path: Path) -> subprocess.Popen[bytes]:
    """The helper process alone, writing to ``path`` (as RecordWriter starts it)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        return subprocess.Popen(
            [sys.executable, "-I", "-S", _record_writer_module(), str(fd)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(fd,),
        )
    finally:
        os.close(fd)


@pytest.mark.process
def test_the_helper_writes_nothing_of_a_batch_it_did_not_get_whole(tmp_path: Path) -> None:
    path = tmp_path / "lines.txt"
    helper = _helper(path)
    whole = b"a\nb\n"
    cut = b"c\nd\ne\n"
    out, err = helper.communicate(
        struct.pack(">Q", len(whole)) + whole + struct.pack(">Q", len(cut)) + cut[:3], timeout=60
    )
    assert (out, err, helper.returncode) == (b"ok\n", b"", 0)
    assert path.read_bytes() == whole


@pytest.mark.process
def test_a_writer_whose_helper_died_raises(tmp_path: Path) -> None:
    from qwirkle_core._record_writer import RecordWriter, RecordWriterError

    writer = RecordWriter(open(tmp_path / "lines.txt", "xb"))  # noqa: SIM115 - the writer closes it
    writer.write(b"a\n")
    assert writer._helper is not None
    writer._helper.kill()
    writer._helper.wait()
    with pytest.raises(RecordWriterError, match="the record writer stopped"):
        writer.write(b"b\n")
    writer.close()
    assert (tmp_path / "lines.txt").read_bytes() == b"a\n"


def test_the_record_writer_appends_batches_and_reports_write_errors(tmp_path: Path) -> None:
    from qwirkle_core._record_writer import RecordWriter

    path = tmp_path / "lines.txt"
    writer = RecordWriter(open(path, "xb"))  # noqa: SIM115 - the writer closes it
    for batch in (b"a\n", b"", b"b\nc\n", b"d\n" * 100_000):
        writer.write(batch)
    writer.close()
    assert path.read_bytes() == b"a\nb\nc\n" + b"d\n" * 100_000
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    full = RecordWriter(open("/dev/full", "wb"))  # noqa: SIM115 - the writer closes it
    with pytest.raises(OSError) as caught:
        full.write(b"e\n")
    assert caught.value.errno == errno.ENOSPC
    full.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("append", [[], ["--append"]])
def test_records_go_to_a_pipe_or_a_device(tmp_path: Path, append: list[str]) -> None:
    """A pipe, a FIFO or /dev/null cannot be synced (fsync says EINVAL): every batch is
    delivered, and that is no error.  With --append too: a FIFO cannot seek (to find a
    partial last line), and has none to cut off."""
    import threading

    from qwirkle_core.cli import main

    argv = ["selfplay", "--games", "3", "--seed", "1", "--progress", "never", *append]
    assert main([*argv, "--record", os.devnull]) == 0
    fifo = tmp_path / "records.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    try:
        assert main([*argv, "--record", str(fifo)]) == 0
    finally:
        reader.join(timeout=60)
    lines = got[0].decode().splitlines()
    assert len(lines) == 3 and all(game_from_record(line).is_over for line in lines)


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE and SIGXFSZ")
def test_a_batch_that_fails_partway_is_cut_back(tmp_path: Path) -> None:
    """A write that fails after part of the batch (a full disk; here a file size
    limit) leaves the file as it was before the batch, so it still ends whole."""
    import resource

    from qwirkle_core._record_writer import _write_batch

    path = tmp_path / "lines.txt"
    path.write_bytes(b"a\n" * 1000)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, limits[1]))
        answer = _write_batch(fd, b"b\n" * 5000)  # the first 1,000 bytes fit, then EFBIG
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)
        os.close(fd)
    assert answer == b"error %d\n" % errno.EFBIG
    assert path.read_bytes() == b"a\n" * 1000
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        assert _write_batch(fd, b"c\n") == b"ok\n"
    finally:
        os.close(fd)
    assert path.read_bytes() == b"a\n" * 1000 + b"c\n"


def test_a_second_run_on_the_same_record_file_is_refused(tmp_path: Path) -> None:
    """--append cuts a partial last line off as an interrupted writer's: a second run
    appending while the first one wrote cut off the first one's records in flight."""
    from qwirkle_core.cli.selfplay import RecordFileError, open_record_file

    path = str(tmp_path / "games.jsonl")
    first = open_record_file(path, append=False)
    first.write(b'{"partial": ')  # the first run's batch in flight
    first.flush()
    for append in (True, False):
        with pytest.raises(RecordFileError, match="another run is writing|holds records"):
            open_record_file(path, append=append)
    assert Path(path).read_bytes() == b'{"partial": '
    first.write(b"1}\n")
    first.close()
    open_record_file(path, append=True).close()  # once it is done, append as before
    assert Path(path).read_bytes() == b'{"partial": 1}\n'


@pytest.mark.parametrize("append", [[], ["--append"]])
def test_a_directory_is_no_record_file(
    tmp_path: Path, append: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # A directory's size is not zero: it was refused as a file that "holds records".
    from qwirkle_core.cli import main

    assert main(["selfplay", "--games", "2", "--record", str(tmp_path), *append]) == 2
    err = capsys.readouterr().err
    assert err == f"qwirkle-core: error: {tmp_path} is a directory: give a file for the records\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("append", [False, True])
def test_records_may_go_to_a_device(append: bool) -> None:
    from qwirkle_core.cli.selfplay import open_record_file

    handle = open_record_file(os.devnull, append=append)
    handle.write(b"{}\n")
    handle.close()
