"""Progress of a long run on stderr: a tqdm bar on a terminal, a plain line every few
seconds anywhere else (a pipe, a log file, CI), so that no long command is ever silent.

    with Progress("qwirkle-core: check", total=3000, unit="games") as bar:
        for ...:
            bar.update(1)          # or bar.set(done), from any thread
            bar.status("chunk 3")  # shown after the count

Off a terminal a background thread prints ``desc: 1200/3000 games (40 %), 12 s,
100 games/s, about 18 s left`` after :data:`FIRST` seconds, then every :data:`INTERVAL`
seconds, whether or not the count moved (a run stuck in its start-up still says how
long it has waited), and a last line when it closes.  On a terminal the same thread redraws the bar, so its clock runs
between updates.  The rate counts from the first update, not from the start-up before
it (a cluster starting, kernels loading).  Everything goes to one stream (stderr by
default); stdout stays for results.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from types import TracebackType
from typing import IO, Any

INTERVAL = 4.0  # seconds between two plain lines (at most 5 s of silence, with slack)
FIRST = 2.0  # seconds before the first one
INTERVAL_SETTING = "QWIRKLE_CORE_PROGRESS_INTERVAL"  # another interval, in seconds (the tests: 0.2)
MODES = ("auto", "always", "never")


def pick_mode(choice: str, stream: IO[str]) -> str:
    """The display for a ``--progress`` choice: ``"bar"``, ``"lines"`` or ``"off"``.
    ``auto`` is a bar on a terminal and lines elsewhere; ``always`` a bar wherever the
    stream goes; ``never`` nothing."""
    if choice == "never":
        return "off"
    if choice == "always" or _isatty(stream):
        return "bar"
    return "lines"


def _interval() -> float:
    """:data:`INTERVAL`, or the seconds that $QWIRKLE_CORE_PROGRESS_INTERVAL says."""
    try:
        value = float(os.environ.get(INTERVAL_SETTING, INTERVAL))
    except ValueError:
        return INTERVAL
    return value if 0.01 <= value <= 3600 else INTERVAL


def _isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _seconds(value: float) -> str:
    value = max(0.0, value)
    if value < 60:
        return f"{value:.0f} s"
    minutes, secs = divmod(int(value + 0.5), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Progress:
    """Progress of ``total`` units (None: unknown) on ``stream`` (default stderr), shown
    as ``mode`` (:func:`pick_mode`; default ``"auto"``'s choice), a plain line every
    ``interval`` seconds (default :data:`INTERVAL`, or $QWIRKLE_CORE_PROGRESS_INTERVAL); ``rate=False`` leaves
    the rate and the time left out of the plain lines (units of very unequal length).
    Thread-safe: update, set, status and write may be called from any thread; close
    once at the end (or use it as a context manager)."""

    def __init__(
        self, desc: str, total: int | None = None, unit: str = "games", *, stream: IO[str] | None = None,
        mode: str | None = None, interval: float | None = None, rate: bool = True,
    ) -> None:
        self.desc = desc
        self.total = total
        self.unit = unit
        self.stream: IO[str] = stream if stream is not None else sys.stderr
        self.mode = mode if mode is not None else pick_mode("auto", self.stream)
        if self.mode not in ("bar", "lines", "off"):
            raise ValueError(f"mode is 'bar', 'lines' or 'off', got {self.mode!r}")
        self.interval = interval if interval is not None else _interval()
        self.rate = rate
        self.done = 0
        self.began = time.monotonic()
        self._first: tuple[float, int] | None = None  # (time, count) of the first update
        self._status = ""
        self._lock = threading.RLock()
        self._closed = threading.Event()
        self._bar: Any = None
        self._thread: threading.Thread | None = None
        if self.mode == "off":
            return
        if self.mode == "bar":
            from tqdm import tqdm

            tty = _isatty(self.stream)
            self._bar = tqdm(
                total=total, desc=desc, unit=f" {unit}", file=self.stream, dynamic_ncols=tty,
                # Off a terminal (or where tqdm cannot ask it): $COLUMNS, else 80.
                ncols=None if tty else shutil.get_terminal_size().columns - 1,
                mininterval=0.5, smoothing=0.05,
            )
        self._thread = threading.Thread(target=self._tick, name="qwirkle-progress", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ updates
    def update(self, n: int = 1) -> None:
        """Count ``n`` more units done."""
        with self._lock:
            self._set(self.done + n)

    def set(self, done: int, total: int | None = None) -> None:
        """The units done so far (and the total, when it is known only now)."""
        with self._lock:
            if total is not None and total != self.total:
                self.total = total
                if self._bar is not None:
                    self._bar.total = total
            self._set(done)

    def status(self, text: str) -> None:
        """A few words shown after the count (what runs now); ``""`` clears them."""
        with self._lock:
            self._status = text
            if self._bar is not None:
                self._bar.set_postfix_str(text, refresh=False)

    def write(self, line: str) -> None:
        """Print a line of its own on the stream (above the bar, on a terminal)."""
        with self._lock:
            if self._bar is not None:
                self._bar.write(line, file=self.stream)
            else:
                self._print(line)

    def print(self, text: str) -> None:
        """Print a line of results on stdout (on a terminal, the bar steps aside for it)."""
        with self._lock:
            if self._bar is not None:
                from tqdm import tqdm

                with tqdm.external_write_mode(file=sys.stdout):
                    print(text, flush=True)
            else:
                print(text, flush=True)

    def _set(self, done: int) -> None:
        if self._first is None:
            self._first = (time.monotonic(), done)
            if self._bar is not None:
                # The rate and the estimate count from here, not from the start-up.
                self._bar.reset(total=self.total)
                self._bar.initial = self._bar.n = self._bar.last_print_n = done
                self._bar.refresh()
        elif self._bar is not None and done != self.done:
            self._bar.update(done - self.done)
        self.done = done

    # ------------------------------------------------------------------ display
    def line(self) -> str:
        """The plain line for the state now."""
        now = time.monotonic()
        count = f"{self.done}/{self.total}" if self.total is not None else f"{self.done}"
        parts = [f"{count} {self.unit}"]
        if self.total:
            parts[0] += f" ({100 * self.done / self.total:.0f} %)"
        parts.append(_seconds(now - self.began))
        if self.rate and self._first is not None and now - self._first[0] > 0.5 and self.done > self._first[1]:
            rate = (self.done - self._first[1]) / (now - self._first[0])
            parts.append(f"{rate:,.1f} {self.unit}/s" if rate < 10 else f"{rate:,.0f} {self.unit}/s")
            if self.total is not None and self.done < self.total:
                parts.append(f"about {_seconds((self.total - self.done) / rate)} left")
        if self._status:
            parts.append(self._status)
        return f"{self.desc}: " + ", ".join(parts)

    def _print(self, text: str) -> None:
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr: progress is not worth failing for
            pass

    def _tick(self) -> None:
        wait = min(FIRST, self.interval)  # the first line soon: the process took a while to start
        while not self._closed.wait(wait):
            wait = self.interval
            with self._lock:
                if self._closed.is_set():
                    return
                if self._bar is not None:
                    self._bar.refresh()
                else:
                    self._print(self.line())

    def close(self, last_line: bool = True) -> None:
        """Stop the display: the bar's last state, or one last plain line (none with
        ``last_line=False``: a run that failed says so itself).  Safe to call twice."""
        with self._lock:
            if self._closed.is_set():
                return
            self._closed.set()
            if self._bar is not None:
                self._bar.close()
            elif self.mode == "lines" and last_line:
                self._print(self.line())
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def __call__(self, done: int, total: int | None = None) -> None:
        """``progress(done, total)``: the callback shape of :mod:`qwirkle_core.datasets`."""
        self.set(done, total)

    def __enter__(self) -> Progress:  # noqa: PYI034 - Self is Python 3.11
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close(last_line=kind is None)
