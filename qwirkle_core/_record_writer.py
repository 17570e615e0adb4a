"""Append whole records (JSON lines) to a file from a helper process: no kill leaves half a line.

Self-play streams its records to a JSON-lines file as batches of games finish.  SIGINT
and SIGTERM are caught and the run stops between batches; SIGKILL (or the OOM killer)
cannot be caught, and a ``write`` of a batch that is cut short by it leaves the first
part of a line at the end of the file.  So the writing is done by a small helper
process instead: the run sends it each batch whole (length first), and the helper
writes a batch only once it has all of it.  If the run dies while sending, the helper
drops the part it got; if the run dies while the helper writes, the helper finishes
the write; a write that fails (a full disk) is cut back to where the batch began.
Either way the file ends with a whole line.  (A kill of the helper too in the middle of
a write -- the whole process group, a container stopped -- or a power cut can still
cut a line short; ``selfplay --append`` cuts such a line off before it adds games.)

The helper is this file run as a script with the standard library only (``python -I
-S``, about 20 ms to start, not the second it takes to import numpy and numba).  It
ignores SIGINT, SIGTERM and SIGHUP, so that a Ctrl-C sent to the whole process group
stops the run, which then closes the pipe; the helper leaves when the pipe closes.
Where there is no POSIX (Windows) the batches are written in the run's own process.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import struct
import subprocess
import sys
from typing import IO

_HEADER = struct.Struct(">Q")  # the length of the batch that follows


class RecordWriterError(OSError):
    """The helper process could not be started, or stopped answering."""


class RecordWriter:
    """Appends batches of whole lines to the open file ``out`` through a helper
    process; :meth:`write` returns once the batch is written and synced, and raises
    ``OSError`` (with the helper's ``errno``) where it could not be."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self._helper: subprocess.Popen[bytes] | None = None
        if os.name != "posix":
            return
        # The helper gets the file as a descriptor of 3 or more: were it 0 or 1 (this
        # process started with stdin or stdout closed), the helper's pipes would take
        # its place.
        import fcntl

        try:
            fd = fcntl.fcntl(out.fileno(), fcntl.F_DUPFD_CLOEXEC, 3)
            try:
                # stderr is shared, so whoever waits for the run's output to end (a
                # pipe reader, a test) also waits for the helper's last write.
                self._helper = subprocess.Popen(
                    [sys.executable, "-I", "-S", os.path.abspath(__file__), str(fd)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    pass_fds=(fd,),
                )
            finally:
                os.close(fd)
        except (OSError, ValueError) as exc:
            out.close()
            raise RecordWriterError(
                errno.EIO, f"cannot start the record writer ({sys.executable or 'no Python executable'}): {exc}"
            ) from None

    def write(self, text: bytes) -> None:
        helper = self._helper
        if helper is None:  # no helper process on this system
            self._out.write(text)
            self._out.flush()
            _sync(self._out.fileno())
            return
        assert helper.stdin is not None and helper.stdout is not None
        try:
            helper.stdin.write(_HEADER.pack(len(text)))
            helper.stdin.write(text)  # not joined to the header: a batch can be megabytes
            helper.stdin.flush()
            reply = helper.stdout.readline()
        except BrokenPipeError:
            reply = b""
        if reply == b"ok\n":
            return
        number = int(reply.split()[1]) if reply.startswith(b"error ") else 0
        if number:
            raise OSError(number, os.strerror(number))
        raise RecordWriterError(errno.EPIPE, f"the record writer stopped (exit status {helper.wait()})")

    def close(self) -> None:
        """Close the pipe (the helper then leaves) and the file."""
        helper = self._helper
        if helper is not None:
            try:
                if helper.stdin is not None:
                    helper.stdin.close()
            except BrokenPipeError:
                pass
            if helper.stdout is not None:
                helper.stdout.close()
            helper.wait()
        self._out.close()


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:  # pragma: no cover - runs in the helper process
    """``size`` bytes from ``stream``, or None where it ends first."""
    parts = []
    while size:
        part = stream.read(size)
        if not part:
            return None
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _sync(fd: int) -> None:
    """Sync what was written to ``fd`` to the disk.  A pipe, a FIFO or a device such as
    /dev/null has nothing to sync (fsync says EINVAL): what was written is delivered,
    and that is not an error."""
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno != errno.EINVAL or stat.S_ISREG(os.fstat(fd).st_mode):
            raise


def _write_batch(fd: int, text: bytes) -> bytes:
    """Write and sync one batch; the answer for the run.  A write that fails partway
    is cut back to where the batch began, so that the file still ends with a whole
    line."""
    try:
        start = os.fstat(fd).st_size
    except OSError:
        start = -1
    try:
        view = memoryview(text)
        while view:
            view = view[os.write(fd, view) :]
        _sync(fd)
    except OSError as exc:
        if start >= 0:
            try:
                os.ftruncate(fd, start)
            except OSError:
                pass  # not a regular file (/dev/full): nothing to cut back
        return b"error %d\n" % (exc.errno or errno.EIO)
    return b"ok\n"


def _serve(fd: int) -> None:  # pragma: no cover - runs in the helper process (tests run it there)
    """The helper: write each whole batch read from stdin to ``fd``, then answer
    ``ok`` (or ``error ERRNO``) on stdout."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    source = sys.stdin.buffer
    while True:
        header = _read_exactly(source, _HEADER.size)
        if header is None:
            return
        text = _read_exactly(source, _HEADER.unpack(header)[0])
        if text is None:
            return  # the run died while sending: this batch is not written at all
        answer = _write_batch(fd, text)
        try:
            os.write(1, answer)  # unbuffered: nothing left to fail at exit
        except BrokenPipeError:
            return  # the run is gone; the batch is written


if __name__ == "__main__":  # pragma: no cover
    _serve(int(sys.argv[1]))
