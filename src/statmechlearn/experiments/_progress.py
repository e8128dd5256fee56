"""Progress of a run: a tqdm bar on a terminal, plain log lines anywhere else.

A bar redraws one line with carriage returns, which a log file or a CI page
shows as one garbled line or not at all; so when stderr is not a terminal
the run writes ordinary lines instead::

    lvq-fig2 (quick): computing 120 cells (5 from the store)
    lvq-fig2 (quick): 40/120 cells, 12 s elapsed, ~24 s left

A line is written each time another tenth of the cells has finished, but not
more often than every ``min_interval`` seconds (so a fast run writes only its
first line), and at least every ``max_interval`` seconds while cells run (so
a slow one shows it is alive).
"""

import sys
import time

__all__ = ["ProgressLog", "format_seconds", "progress_reporter"]


def format_seconds(seconds):
    """Seconds as a short human reading: ``"8 s"``, ``"3 min 5 s"``, ``"1 h 02 min"``.

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str
    """
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, sec = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {sec} s" if sec else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class ProgressLog:
    """Periodic plain progress lines for a run whose output is not a terminal.

    Has the part of tqdm's interface the runner uses: ``update`` and ``close``.

    Parameters
    ----------
    total : int
        Cells to compute.
    desc : str
        What runs, e.g. ``"lvq-fig2 (quick)"``; starts every line.
    file : file-like, optional
        Where lines go; ``sys.stderr`` (looked up at each line) when None.
    note : str, default=""
        Appended to the first line, e.g. ``" (5 from the store)"``.
    step : float, default=0.1
        Fraction of the cells between lines.
    min_interval, max_interval : float, default=10.0, 60.0
        Least and most seconds between lines while cells run.
    clock : callable, default=time.monotonic
        Source of seconds (a test passes a fake one).
    """

    def __init__(
        self,
        total,
        desc,
        *,
        file=None,
        note="",
        step=0.1,
        min_interval=10.0,
        max_interval=60.0,
        clock=time.monotonic,
    ):
        if not 0 < step <= 1:
            raise ValueError(f"step must be in (0, 1], got {step}")
        if min_interval < 0 or max_interval < min_interval:
            raise ValueError(
                "min_interval and max_interval must satisfy 0 <= min_interval <= max_interval; "
                f"got {min_interval} and {max_interval}"
            )
        self.total, self.desc, self.n = int(total), desc, 0
        self._file, self._step = file, step
        self._min, self._max, self._clock = min_interval, max_interval, clock
        self._start = self._last = clock()
        self._tenths = 0  # steps of the cells already reported
        self._reported = 0  # cells done at the last line
        self._write(f"{desc}: computing {self.total} cells{note}")

    def _write(self, line):
        file = sys.stderr if self._file is None else self._file
        print(line, file=file, flush=True)

    def _line(self, now):
        elapsed = now - self._start
        text = f"{self.desc}: {self.n}/{self.total} cells, {format_seconds(elapsed)} elapsed"
        if 0 < self.n < self.total:
            text += f", ~{format_seconds(elapsed / self.n * (self.total - self.n))} left"
        self._write(text)
        self._last, self._reported = now, self.n

    def update(self, n=1):
        """Count ``n`` more finished cells; write a line when one is due."""
        self.n += n
        now = self._clock()
        since = now - self._last
        steps = int(self.n / max(self.total, 1) / self._step + 1e-9)
        if (steps > self._tenths and since >= self._min) or since >= self._max:
            self._tenths = steps
            self._line(now)

    def write(self, line):
        """Write one extra line (the runner's verbose detail)."""
        self._write(line)

    def close(self):
        """Write the final count when earlier lines left the reader short of it."""
        if self._reported and self._reported < self.n:
            self._line(self._clock())


class _TqdmBar:
    """tqdm's bar with a ``write`` that keeps the bar intact."""

    def __init__(self, total, desc):
        from tqdm.auto import tqdm

        self._bar = tqdm(total=total, desc=desc, unit="cell", leave=False)

    def update(self, n=1):
        self._bar.update(n)

    def write(self, line):
        self._bar.write(line, file=sys.stderr)

    def close(self):
        self._bar.close()


class _Silent:
    def update(self, n=1):
        pass

    def write(self, line):
        pass

    def close(self):
        pass


class _Lines:
    """Verbose detail as plain lines on stderr, with no progress."""

    def update(self, n=1):
        pass

    def write(self, line):
        print(line, file=sys.stderr, flush=True)

    def close(self):
        pass


def progress_reporter(progress, total, desc, note="", verbose=False):
    """The progress display a run asked for.

    Parameters
    ----------
    progress : bool or {"auto", "bar", "log"}
        True or ``"auto"``: a bar when stderr is a terminal, log lines
        otherwise; ``"bar"`` or ``"log"`` to choose; False for none.
    total : int
        Cells to compute.
    desc, note : str
        As in :class:`ProgressLog`.
    verbose : bool, default=False
        Whether the caller will ``write`` detail lines; with
        ``progress=False`` they still go to stderr.

    Returns
    -------
    object with ``update(n)``, ``write(line)`` and ``close()``
    """
    if progress is True:
        progress = "auto"
    if progress not in (False, "auto", "bar", "log"):
        raise ValueError(f"progress must be True, False, 'auto', 'bar' or 'log'; got {progress!r}")
    if progress == "auto":
        progress = "bar" if sys.stderr.isatty() else "log"
    if progress == "bar":
        return _TqdmBar(total, desc)
    if progress == "log":
        return ProgressLog(total, desc, note=note)
    return _Lines() if verbose else _Silent()
