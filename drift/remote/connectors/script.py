"""Run a stdlib Python script on a host with its parameters on stdin, whatever the login shell.

Why one way: a host's login shell may be bash, dash, zsh, fish, tcsh or a forced command, and
each quotes differently (fish reads `\\'` inside single quotes as an escaped quote). So the
command line is always the fixed string `<python> -`, made only of characters no shell treats
specially, and everything else (the code, its argv, what it reads on stdin) travels inside the
stdin payload as literals. The payload's first act is a watchdog: it forks the script into a
process group of its own and ends that group when drift goes away (timeout, Ctrl-C, a dropped
link all close the channel, and the watchdog sees its stdout/stderr hang up), so nothing keeps
running on the host after drift has given up on it.
"""

from __future__ import annotations

import base64
import json
import re

from drift.remote.connectors.base import Connector, ConnectorError, RunResult

__all__ = ["SAFE_WORD", "build_payload", "command_line", "run_script", "validate_python"]

SAFE_WORD = re.compile(r"^[A-Za-z0-9_./+-]+$")  # no shell expands, splits or quotes any of these
_BARE_COMMAND = re.compile(r"^[A-Za-z0-9._+-]+$")
_ABS_PATH = re.compile(r"^/[A-Za-z0-9._+\-/]+$")
STDERR_LIMIT = 256_000  # bytes of stderr kept (the tail says why something failed)
_PLAIN = re.compile(r"[\n -~]*")  # printable ASCII lines: a script that is its own literal

# Runs first on the host (Python 3.9+, stdlib). %(...)s fields are JSON, base64 or repr literals only.
_BOOTSTRAP = r'''# drift remote bootstrap: watchdog + the script, its argv and its stdin as literals
import base64, json, os, select, signal, sys, time
_ARGV = json.loads(%(argv)s)
_STDIN = base64.b64decode(%(stdin)s)
_NAME = %(name)s
_CODE = %(code)s


def _script():
    import io
    sys.argv = ["-"] + _ARGV
    sys.stdin = io.TextIOWrapper(io.BytesIO(_STDIN), encoding="utf-8")
    glb = {"__name__": "__main__", "__file__": _NAME, "__builtins__": __builtins__}
    exec(compile(_CODE, _NAME, "exec"), glb)


def _end(pid):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except OSError:
            return
        end = time.monotonic() + 2
        while time.monotonic() < end:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    return
            except ChildProcessError:
                return
            time.sleep(0.05)


def _watch(pid, wake):
    def stop(signum, frame):
        _end(pid)
        os._exit(128 + signum)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
        signal.signal(sig, stop)
    poller = select.poll()
    poller.register(wake, select.POLLIN)
    for fd in (1, 2):
        try:
            poller.register(fd, select.POLLERR | select.POLLHUP)
        except (OSError, ValueError):
            pass
    bad = select.POLLERR | select.POLLHUP | select.POLLNVAL
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            os._exit(1)
        if done:
            break
        for fd, ev in poller.poll(1000):
            if fd == wake:
                os.read(wake, 512)  # SIGCHLD woke us: waitpid above sees it
            elif ev & bad:
                _end(pid)  # drift closed the channel: end the whole group, then go
                os._exit(129)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _main():
    sys.stdout.flush()
    try:
        wake, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.set_wakeup_fd(wake_w)
        pid = os.fork()
    except (OSError, AttributeError, ValueError):  # no fork here: run unwatched rather than not at all
        _script()
        return
    if pid == 0:
        code = 1
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.close(wake)
            os.close(wake_w)
            os.setpgid(0, 0)
            _script()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                sys.stderr.write(exc.code + "\n")
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    _watch(pid, wake)


_main()
'''


def validate_python(python: str) -> str | None:
    """Why ``python`` is not an acceptable interpreter, or None: it is the one word of the
    command line that varies, so only an absolute path or a bare command name made of
    ordinary characters is accepted."""
    if not isinstance(python, str) or not python:
        return "python interpreter must be a non-empty string"
    if python.startswith("/"):
        if not _ABS_PATH.match(python) or "/../" in python + "/" or "//" in python or "/./" in python + "/":
            return f"bad python path {python!r}: use an absolute path of letters, digits and ._+-/"
        return None
    if not _BARE_COMMAND.match(python) or python in (".", "..") or python.startswith("-"):
        return (
            f"bad python {python!r}: give an absolute path (/opt/venv/bin/python) "
            "or a command name such as python3"
        )
    return None


def command_line(python: str) -> list[str]:
    """The argv sent to a host: the interpreter and `-`, nothing else (ConnectorError if unsafe)."""
    bad = validate_python(python)
    if bad:
        raise ConnectorError(bad, category="usage")
    argv = [python, "-"]
    assert all(SAFE_WORD.match(a) for a in argv)
    return argv


def build_payload(code: str | bytes, *, args: list[str] | tuple[str, ...] = (), stdin: bytes = b"",
                  name: str = "<drift>") -> bytes:
    """The stdin for `python -`: the bootstrap with the script, its argv and its stdin embedded."""
    if isinstance(code, bytes):
        code = code.decode("utf-8")
    if not all(isinstance(a, str) for a in args):
        raise TypeError("script arguments must be strings")
    fields = {
        "argv": repr(json.dumps(list(args))),
        "stdin": repr(base64.b64encode(stdin).decode("ascii")),
        "name": repr(str(name)),
        "code": _code_literal(code),
    }
    return (_BOOTSTRAP % fields).encode("utf-8")


def _code_literal(code: str) -> str:
    """The script as a literal of the bootstrap: printable ASCII code (the probe bundle, whose
    sources are one base64 blob) as its own `repr`, which adds nothing; anything else base64.
    Why it matters: where the host's Python has unbuffered stdio (PYTHONUNBUFFERED), it reads a
    `python -` script one byte per read(2), ~1-2 us a byte on an idle host, so base64's third
    more of a 100 KB bundle is ~0.05 s per exchange there."""
    if _PLAIN.fullmatch(code):
        return repr(code)
    return "base64.b64decode(%r).decode(\"utf-8\")" % base64.b64encode(code.encode("utf-8")).decode("ascii")


async def run_script(
    connector: Connector,
    python: str,
    code: str | bytes,
    *,
    args: list[str] | tuple[str, ...] = (),
    stdin: bytes = b"",
    name: str = "<drift>",
    timeout: float | None = None,
    limit: int | None = None,
) -> RunResult:
    """Run ``code`` under ``python`` on the host; at most ``limit`` bytes of stdout are kept
    (RunResult.truncated says the host sent more). ConnectorError for transport failures and an
    unusable interpreter name."""
    argv = command_line(python)
    payload = build_payload(code, args=args, stdin=stdin, name=name)
    return await connector.run(argv, stdin=payload, timeout=timeout, limit=limit)


def not_found(result: RunResult) -> bool:
    """The interpreter is missing, as any shell says it (127, tcsh's 1 + "Command not found")."""
    if result.exit_status == 127:
        return True
    err = result.stderr.decode("utf-8", "replace")
    return (result.exit_status not in (0, None) and not result.stdout
            and ("No such file" in err or "not found" in err.lower() or "Unknown command" in err))
