r"""Progress read from a job's log: checkpoint shards loaded, batches done.

Why from the log: the job is someone else's program; its log is the only interface it has.
Patterns are data (a label and a regex with `done` and optionally `total` groups), so a user
whose job prints differently adds a line under [watch.progress] instead of editing drift.
tqdm redraws with carriage returns, so the log is split on both `\r` and `\n`, and what gets
shown is what a terminal would have shown: the last redraw of each line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

__all__ = ["DEFAULT_PATTERNS", "Counter", "LineSplitter", "ProgressTracker"]

DEFAULT_PATTERNS: dict[str, str] = {
    "checkpoint shards": r"Loading \w+ checkpoint shards:\s*\d+%.*?\|\s*(?P<done>\d+)/(?P<total>\d+)",
    "batches": r"\bbatch(?:es)?\b[^0-9\n]{0,20}(?P<done>\d+)\s*/\s*(?P<total>\d+)",
    "prompts": r"Processed prompts:\s*\d+%.*?\|\s*(?P<done>\d+)/(?P<total>\d+)",
}


# a progress bar is a short line: one longer than this (a 30 MB dump) is shown, never searched
PROGRESS_LINE_MAX = 65536


@dataclass(frozen=True)
class Counter:
    label: str
    done: int
    total: int | None

    def __str__(self) -> str:
        return f"{self.label} {self.done}/{self.total}" if self.total else f"{self.label} {self.done}"


class ProgressTracker:
    """Latest value of every pattern seen so far, in first-seen order."""

    def __init__(self, patterns: Mapping[str, str] | None = None) -> None:
        merged = dict(DEFAULT_PATTERNS)
        merged.update(patterns or {})  # a user's pattern with a default's label replaces it
        self._patterns = [(label, re.compile(rx)) for label, rx in merged.items()]
        self._counters: dict[str, Counter] = {}

    def feed(self, segment: str) -> list[Counter]:
        """Update from one line or redraw; returns the counters it changed."""
        changed = []
        if len(segment) > PROGRESS_LINE_MAX:
            return changed
        for label, rx in self._patterns:
            m = rx.search(segment)
            if not m:
                continue
            total = m.groupdict().get("total")
            counter = Counter(label, int(m.group("done")), int(total) if total else None)
            if self._counters.get(label) != counter:
                self._counters[label] = counter
                changed.append(counter)
        return changed

    def matches(self, segment: str) -> bool:
        return len(segment) <= PROGRESS_LINE_MAX and any(rx.search(segment) for _, rx in self._patterns)

    @property
    def counters(self) -> tuple[Counter, ...]:
        return tuple(self._counters.values())

    def summary(self) -> str:
        return " · ".join(str(c) for c in self._counters.values())


PENDING_TAIL = 4096  # bytes of an unfinished line a progress pattern is tried on (a tqdm bar is ~200)


class LineSplitter:
    """Cut byte chunks at newlines; the unfinished tail waits for the next chunk.

    Cutting at b"\\n" also never splits a UTF-8 character. `committed` counts the bytes of
    complete lines, so a watcher can store an offset that a later re-attach resumes from
    without showing half a line. Each yielded item is (redraws of one line, what a terminal
    would show for it).

    Linear in the log's size, however long a line: the tail grows in place (a bytearray), only
    the bytes that just came are searched for a newline, and `pending` reads each redraw once
    plus a bounded tail. Why: one 30 MB line, re-copied and re-decoded whole at every 64 kB
    poll, took 87 s to show.
    """

    def __init__(self) -> None:
        self._pending = bytearray()
        self._redrawn = 0  # bytes of the tail that `pending` already returned as finished redraws
        self._searched = 0  # bytes of the tail already searched for a carriage return
        self.committed = 0

    def feed(self, data: bytes) -> list[tuple[list[str], str]]:
        start = len(self._pending)
        self._pending += data
        cut = self._pending.rfind(b"\n", start) + 1  # the older tail holds no newline
        if not cut:
            return []
        complete = bytes(self._pending[:cut])
        del self._pending[:cut]
        self._redrawn = self._searched = 0
        self.committed += cut
        return [_redraws(line) for line in complete.decode("utf-8", "replace").split("\n")[:-1]]

    def flush(self) -> list[tuple[list[str], str]]:
        """The unfinished tail as a line of its own (the job ended without a newline)."""
        if not self._pending:
            return []
        line = bytes(self._pending)
        self._pending, self._redrawn, self._searched = bytearray(), 0, 0
        self.committed += len(line)
        return [_redraws(line.decode("utf-8", "replace"))]

    def pending(self) -> list[str]:
        """Redraws of the unfinished last line (a tqdm bar still moving): those finished since the
        last call, then the last `PENDING_TAIL` bytes of the one being drawn."""
        buf = self._pending
        segments: list[str] = []
        last_cr = buf.rfind(b"\r", max(self._redrawn, self._searched))
        self._searched = len(buf)
        if last_cr >= self._redrawn:
            segments += bytes(buf[self._redrawn:last_cr]).decode("utf-8", "replace").split("\r")
            self._redrawn = last_cr + 1
        segments.append(bytes(buf[max(self._redrawn, len(buf) - PENDING_TAIL):]).decode("utf-8", "replace"))
        return [s for s in segments if s.strip()]


def _redraws(line: str) -> tuple[list[str], str]:
    segments = [s for s in line.split("\r") if s.strip()]
    return segments, (segments[-1] if segments else "")
