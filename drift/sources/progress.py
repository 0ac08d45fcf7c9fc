"""Messages a fetch sends to the CLI's progress callback, typed so the CLI can tell them apart.

Every progress callback in drift takes a `str`, so these are `str` subclasses: an old callback
shows them as text unchanged, while `drift.commands.common.progress` can show byte updates only
on a terminal, print one line per step when piped, and keep the note of which path a fetch
took (range, pip, sdist, local) for `-v`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Step(str):
    """One stage of a fetch ("vllm 0.16.0: 4.7 MB by HTTP range from files.pythonhosted.org")."""


class Transfer(str):
    """A byte count update within a step; worth showing only where it can be redrawn."""

    done: int
    total: int

    def __new__(cls, label: str, done: int, total: int) -> "Transfer":
        self = super().__new__(cls, f"{label}: {human_bytes(done)} of {human_bytes(total)}")
        self.done, self.total = done, total
        return self


class Note(str):
    """Which way a release was fetched and what it cost: the line `-v` keeps."""


Say = Callable[[str], None]


def quiet(_msg: str) -> None:
    """The callback used when the caller gave none."""


def human_bytes(n: int) -> str:
    if n < 1000:
        return f"{n} B"
    for unit in ("kB", "MB", "GB"):
        n /= 1000.0
        if n < 1000 or unit == "GB":
            return f"{n:.1f} {unit}"
    return f"{n:.1f} GB"


class ByteCounter:
    """Adds up bytes from several download threads and reports at most every ~1% of the total."""

    def __init__(self, say: Say, label: str, total: int) -> None:
        self.say, self.label, self.total = say, label, max(total, 1)
        self.done = 0
        self._shown = -1
        self._lock = threading.Lock()

    def __call__(self, n: int) -> None:
        with self._lock:
            self.done += n
            step = self.done * 100 // self.total
            if step == self._shown:
                return
            self._shown = step
            done = self.done
        self.say(Transfer(self.label, done, self.total))
