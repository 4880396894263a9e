"""A one-line progress display on a terminal, for runs long enough to wonder about.

Hand-written rather than a library: it is one line redrawn with a carriage return,
and a dependency for that would be heavier than the code. Nothing is drawn unless the
stream is a terminal, nothing at all for runs that end within ``delay`` seconds, and
the line is erased when the run ends so it never mixes with the report.
"""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


class Progress:
    """Callable as ``progress(done, total)``, the engine's progress callback."""

    def __init__(self, stream: Optional[TextIO] = None, label: str = "files", delay: float = 0.5, interval: float = 0.1) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.delay = delay
        self.interval = interval
        self.started = time.monotonic()
        self.last_draw = 0.0
        self.width = 0

    @staticmethod
    def wanted(stream: Optional[TextIO] = None, quiet: bool = False) -> bool:
        stream = stream if stream is not None else sys.stderr
        isatty = getattr(stream, "isatty", None)
        return not quiet and bool(isatty and isatty())

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.started < self.delay or (now - self.last_draw < self.interval and done < total):
            return
        self.last_draw = now
        percent = 100 * done // total if total else 100
        bar = "#" * (percent // 5)
        text = f"ccmigrate: [{bar:<20}] {done}/{total} {self.label} ({percent}%), {now - self.started:.0f}s"
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0
