"""One computation in a forked child while the caller goes on (stdlib only, Python 3.9).

Why: the host probe's identifier index of the target (`closure.token_index`, ~0.15 s over
vLLM 0.16.0) was built after the closure's rounds, on one core, while parse workers sat idle
before and the other core was idle during the closure's in-process first round. Its
literals are almost all known before the closure (the consumer's names, the rule packs'
words), so it is built beside the closure and read back when the searches begin.
"""

import gc
import marshal
import os
import signal


class Pending:
    """A child computing one value; `result()` reads it back (once)."""

    def __init__(self, pid, fd):
        self.pid, self.fd = pid, fd

    def result(self):
        """The child's value, or None when it failed (the caller then computes it itself)."""
        if self.fd is None:
            return None
        parts = []
        try:
            while True:
                part = os.read(self.fd, 1 << 20)
                if not part:
                    break
                parts.append(part)
        except OSError:
            parts = []
        ok = self._reap()
        if not ok or not parts:
            return None
        try:
            return marshal.loads(b"".join(parts))
        except (ValueError, EOFError, TypeError):
            return None

    def close(self):
        """End the child if its value was never read (the caller met an error meanwhile)."""
        if self.fd is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        self._reap()

    def _reap(self):
        fd, self.fd = self.fd, None
        try:
            os.close(fd)
        except OSError:
            pass
        try:
            _, status = os.waitpid(self.pid, 0)
        except OSError:
            return False
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def start(fn, *args):
    """`fn(*args)` in a forked child, its value (which marshal must write) read back by
    `Pending.result()`; None where there is no fork (the caller computes it itself)."""
    if not hasattr(os, "fork"):
        return None
    try:
        r, w = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(r)
            gc.disable()
            view = memoryview(marshal.dumps(fn(*args)))
            while view:
                view = view[os.write(w, view):]
            code = 0
        except BaseException:  # noqa: BLE001 - a failed child is a None result, never a traceback
            pass
        finally:
            os._exit(code)
    os.close(w)
    return Pending(pid, r)
