"""`drift.commands.common.progress`: one line per step when stderr is piped, rich's status line
only where rich would call stderr a terminal (and rich is not even imported otherwise)."""

from __future__ import annotations

import os
import subprocess
import sys

_SCRIPT = r"""
import sys
from drift.commands.common import progress
from drift.sources.progress import Note, Step
with progress(verbose=True) as say:
    say("parsing")                      # plain: status line only
    say(Step("vllm 0.16.0: 4.7 MB by HTTP range"))
    say(Note("vllm 0.16.0: range fetch"))
print("rich" in sys.modules)
"""


def _run(**env):
    base = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    return subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                          env={**base, **env}, timeout=60, cwd=os.path.dirname(os.path.dirname(__file__)))


def test_piped_prints_steps_and_notes_one_line_each_without_rich():
    out = _run()
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == ["drift: vllm 0.16.0: 4.7 MB by HTTP range", "drift: vllm 0.16.0: range fetch"]
    assert out.stdout.strip() == "False"


def test_forced_terminal_draws_rich_status():
    out = _run(FORCE_COLOR="1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
    assert "drift: vllm 0.16.0: range fetch" in out.stderr  # the -v note stays on screen
    assert "drift: vllm 0.16.0: 4.7 MB" not in out.stderr  # a step is only the status line's text


def test_tty_compatible_zero_is_piped():
    out = _run(TTY_COMPATIBLE="0")
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines()[0] == "drift: vllm 0.16.0: 4.7 MB by HTTP range"
