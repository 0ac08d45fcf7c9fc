"""`drift watch` on a hostile job log (issue 25): escape sequences in it are shown, not obeyed (nor
its `::` lines under GitHub Actions), and one 30 MB line is shown whole in time linear in its size.

Linear is asserted by what makes it so, not by a clock: the splitter hands back an unfinished
line's redraws from a bounded tail (never the whole tail again at each poll), and a progress
pattern is never tried on a huge line. The escape test launches a real detached job on this
machine (LocalConnector) and watches it with the real CLI.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from drift.jobs.progress import PENDING_TAIL, PROGRESS_LINE_MAX, LineSplitter, ProgressTracker
from drift.jobs.watch import _Display
from tests.hostile_strings import RAW_CONTROLS, workflow_command_lines

CHUNK = 65536  # what one poll reads


class _CountingTracker(ProgressTracker):
    """The real tracker, recording the longest text a pattern was tried on."""

    longest = 0

    def feed(self, segment: str):
        if len(segment) <= PROGRESS_LINE_MAX:
            self.longest = max(self.longest, len(segment))
        return super().feed(segment)


def test_a_30_mb_line_is_shown_whole_from_bounded_work_per_poll():
    line = b"x" * (30 * 1024 * 1024)
    log = b"Loading safetensors checkpoint shards:  50% | 1/2\r" + line + b"\nafter\n"
    splitter, tracker = LineSplitter(), _CountingTracker()
    buffer = io.StringIO()
    pending_sizes = []
    with _Display(Console(file=buffer, width=120), quiet=False, tracker=tracker) as display:
        for i in range(0, len(log), CHUNK):
            for segments, final in splitter.feed(log[i:i + CHUNK]):
                display.line(segments, final)
            pending = splitter.pending()
            pending_sizes.append(sum(len(s) for s in pending))
            display.partial(pending)
    assert display.shown == [line.decode(), "after"]  # whole, once, and the redraw before it is not a line
    assert splitter.committed == len(log)
    # each poll reads what it fetched and a bounded tail, never the whole line again
    assert max(pending_sizes) <= CHUNK + PENDING_TAIL and max(pending_sizes[1:]) <= PENDING_TAIL
    assert tracker.longest <= PENDING_TAIL  # no pattern ran over the 30 MB
    assert [str(c) for c in tracker.counters] == ["checkpoint shards 1/2"]  # the redraw still counted


def test_escape_sequences_in_a_job_log_are_shown_escaped(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "xdg"), GITHUB_ACTIONS="true")
    runs = tmp_path / "runs"
    job = "import sys; sys.stdout.write('\\x1b]0;owned\\x07 hello \\x1b[2J\\x9b31m\\n::add-mask::secret\\n')"

    def drift(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", *argv], cwd=tmp_path,
                              capture_output=True, env=env, timeout=120)

    launched = drift("launch", "--run-dir", str(runs), "--python", sys.executable, "--force", "--",
                     sys.executable, "-c", job)
    assert launched.returncode == 0, launched.stderr
    run_id = launched.stdout.decode().split()[0]
    for _ in range(100):  # until the runner records the end
        watched = drift("watch", "local", run_id, "--run-dir", str(runs), "--python", sys.executable, "--no-follow")
        if b"exited 0" in watched.stdout:
            break
    out = watched.stdout.decode("utf-8")
    assert "exited 0" in out, (out, watched.stderr)
    assert not RAW_CONTROLS.search(out)
    assert "\\x1b]0;owned\\x07 hello \\x1b[2J\\x9b31m" in out
    assert "::add-mask::secret" in out  # shown, but as no line a CI runner would obey
    assert workflow_command_lines(out) == []
    assert Path(runs).is_dir()
