"""Append whole lines to a file from a helper process, so that no kill leaves half a line.

Self-play streams its records to a JSON-lines file as batches of games finish.  SIGINT
and SIGTERM are caught and the run stops between batches; SIGKILL (or the OOM killer)
cannot be caught, and a ``write`` of a batch that is cut short by it leaves the first
part of a line at the end of the file.  So the writing is done by a small helper
process instead: the run sends it each batch whole (length first), and the helper
writes a batch only once it has all of it.  If the run dies while sending, the helper
drops the part it got; if the run dies while the helper writes, the helper finishes
the write.  Either way the file ends with a whole line.  (Only a kill of the helper
itself in the middle of a write, or a power cut, can still cut a line short; ``selfplay
--append`` cuts such a line off before it adds games.)

The helper is this file run as a script with the standard library only (``python -I
-S``, about 20 ms to start, not the second it takes to import numpy and numba).  It
ignores SIGINT, SIGTERM and SIGHUP, so that a Ctrl-C sent to the whole process group
stops the run, which then closes the pipe; the helper leaves when the pipe closes.
"""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
from typing import IO

_HEADER = struct.Struct(">Q")  # the length of the batch that follows


class LineWriter:
    """Appends batches of whole lines to the open file ``out`` through a helper
    process; :meth:`write` returns once the batch is written and synced, and raises
    ``OSError`` (with the helper's ``errno``) where it could not be."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        fd = out.fileno()
        try:
            # stderr is shared, so whoever waits for the run's output to end (a pipe
            # reader, a test) also waits for the helper's last write.
            self._helper = subprocess.Popen(
                [sys.executable, "-I", "-S", os.path.abspath(__file__), str(fd)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                pass_fds=(fd,),
            )
        except BaseException:
            out.close()
            raise

    def write(self, text: bytes) -> None:
        helper = self._helper
        assert helper.stdin is not None and helper.stdout is not None
        try:
            helper.stdin.write(_HEADER.pack(len(text)))
            helper.stdin.write(text)  # not joined to the header: a batch can be megabytes
            helper.stdin.flush()
            reply = helper.stdout.readline()
        except BrokenPipeError:
            reply = b""
        if reply != b"ok\n":
            number = int(reply.split()[1]) if reply.startswith(b"error ") else 0
            if number:
                raise OSError(number, os.strerror(number))
            raise OSError(0, "the record writer stopped")

    def close(self) -> None:
        """Close the pipe (the helper then leaves) and the file."""
        helper = self._helper
        try:
            if helper.stdin is not None:
                helper.stdin.close()
        except BrokenPipeError:
            pass
        helper.wait()
        if helper.stdout is not None:
            helper.stdout.close()
        self._out.close()


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    """``size`` bytes from ``stream``, or None where it ends first."""
    parts = []
    while size:
        part = stream.read(size)
        if not part:
            return None
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _serve(fd: int) -> None:
    """The helper: write each whole batch read from stdin to ``fd``, then sync it and
    answer ``ok`` (or ``error ERRNO``) on stdout."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    source, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = _read_exactly(source, _HEADER.size)
        if header is None:
            return
        text = _read_exactly(source, _HEADER.unpack(header)[0])
        if text is None:
            return  # the run died while sending: this batch is not written at all
        try:
            view = memoryview(text)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            answer = b"ok\n"
        except OSError as exc:
            answer = b"error %d\n" % (exc.errno or 0)
        try:
            answers.write(answer)
            answers.flush()
        except BrokenPipeError:
            return  # the run is gone; the batch is written


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
