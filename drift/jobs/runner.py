"""Detached job runner shipped to the host and run by the host's own Python (3.9+, stdlib only).

Why a script of its own: the job must outlive the SSH session that started it, and whoever
looks later must be able to tell a running job from a dead one without trusting a pid alone.
So `start` double-forks into a new session with stdin from /dev/null and all output appended
to `<run_dir>/log`, records the job's pid *and* its kernel start time plus the boot id
(a pid reused after the job died, or after a reboot, is not mistaken for the job), waits for
the job and writes the final state. The other modes read that record back, in one round trip.

Modes (all print one JSON document on stdout; errors print {"error": ...} and exit 2):
  prepare ROOT RUN_ID           create ROOT/RUN_ID (never an existing one)
  start RUN_DIR                 run the argv in RUN_DIR/job.json detached, return at once
  list ROOT                     every run under ROOT with its checked state
  poll ROOT RUN_ID OFFSET MAX   checked state + at most MAX log bytes from OFFSET
  tail ROOT RUN_ID NBYTES       checked state + the last NBYTES of the log
  stop ROOT RUN_ID SIGNAL       send SIGNAL (TERM, INT, KILL) to the job's process group
RUN_ID may be "latest" in poll/tail/stop. The argv never passes through a shell.
"""

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import time

STATUS = "status.json"
JOB = "job.json"
LOG = "log"


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _boot_id():
    try:
        with open("/proc/sys/kernel/random/boot_id") as fh:
            return fh.read().strip()
    except OSError:
        return None


def _proc_stat(pid):
    """(state letter, start time in clock ticks since boot) or None when the pid is gone."""
    try:
        with open("/proc/%d/stat" % pid) as fh:
            text = fh.read()
    except OSError:
        return None
    # comm (field 2) may hold spaces and parentheses: split after the last ')'.
    rest = text[text.rfind(")") + 2:].split()
    # rest[0] is field 3 (state); field 22 (starttime) is rest[19].
    try:
        return rest[0], int(rest[19])
    except (IndexError, ValueError):
        return None


def _alive(pid, start, boot):
    """True when `pid` is the very process recorded (same boot, same start time, not a zombie)."""
    if not pid:
        return False
    if boot and _boot_id() and boot != _boot_id():
        return False
    stat = _proc_stat(pid)
    if stat is None:
        if os.path.isdir("/proc/self"):
            return False
        try:  # no procfs (not Linux): fall back to signal 0
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    state, ticks = stat
    if state in ("Z", "X", "x"):
        return False
    return start is None or ticks == start


def _write_json(path, data):
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _read_json(path):
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _append_log(run_dir, text):
    with open(os.path.join(run_dir, LOG), "a") as fh:
        fh.write("[drift-runner %s] %s\n" % (_now(), text))


# ---------------------------------------------------------------- start


def _interpreter_env(env, python):
    """`env` with the bin dir of the job's interpreter (`--python`) first on PATH.

    Why: a job is a command line (`python train.py`, `torchrun ...`, a console script), looked
    up on PATH; without this it ran whatever `python` the login PATH named, not the environment
    the preflight checked, and failed with `No module named 'vllm'`. The directory is taken as
    named, not resolved: a venv's `bin/python` is a symlink to the base interpreter. A venv also
    gets VIRTUAL_ENV, as `activate` would set it."""
    path = None
    if python:
        path = os.path.expanduser(python) if os.sep in python else shutil.which(python)
    bindir = os.path.dirname(os.path.abspath(path or sys.executable))
    env["PATH"] = bindir + (os.pathsep + env["PATH"] if env.get("PATH") else "")
    if os.path.isfile(os.path.join(os.path.dirname(bindir), "pyvenv.cfg")):
        env["VIRTUAL_ENV"] = os.path.dirname(bindir)
        env.pop("PYTHONHOME", None)
    return bindir


def _supervise(run_dir, job, ready_fd):
    """Grandchild: own session, no terminal; run the job, record its life and its end."""
    log_path = os.path.join(run_dir, LOG)
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(null_fd)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)

    status_path = os.path.join(run_dir, STATUS)
    boot = _boot_id()
    me = os.getpid()
    own = _proc_stat(me)
    base = {
        "run_id": os.path.basename(run_dir.rstrip("/")),
        "command": job["command"],
        "forced": bool(job.get("forced")),
        "started_at": _now(),
        "boot_id": boot,
        "runner_pid": me,
        "runner_start": own[1] if own else None,
        "pid": None,
        "pid_start": None,
    }
    env = dict(os.environ)
    bindir = _interpreter_env(env, job.get("python"))
    env.update(job.get("env") or {})
    env.setdefault("PYTHONUNBUFFERED", "1")  # a Python job's lines reach the log as they happen
    env["DRIFT_RUN_ID"] = base["run_id"]
    env["DRIFT_RUN_DIR"] = run_dir
    _append_log(run_dir, "starting: %s (PATH starts with %s)" % (" ".join(job["command"]), bindir))
    try:
        # its own process group (`drift stop` signals the job and every process it started,
        # torchrun's workers included, and never this supervisor, which records the end)
        child = subprocess.Popen(
            job["command"], stdin=subprocess.DEVNULL, stdout=log_fd, stderr=subprocess.STDOUT,
            cwd=job.get("cwd") or None, env=env, start_new_session=True,
        )
    except OSError as exc:
        _append_log(run_dir, "cannot start: %s" % exc)
        base.update(state="exited", exit_code=127, signal=None, finished_at=_now(), error=str(exc))
        _write_json(status_path, base)
        os.write(ready_fd, json.dumps(base).encode())
        os.close(ready_fd)
        return 0
    stat = _proc_stat(child.pid)
    base.update(state="running", pid=child.pid, pgid=child.pid, pid_start=stat[1] if stat else None)
    _write_json(status_path, base)
    os.write(ready_fd, json.dumps(base).encode())
    os.close(ready_fd)

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except OSError:
            pass

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    while True:
        try:
            code = child.wait()
            break
        except InterruptedError:
            continue
    if code < 0:
        base.update(state="killed", exit_code=None, signal=-code)
        _append_log(run_dir, "job killed by signal %d" % -code)
    else:
        base.update(state="exited", exit_code=code, signal=None)
        _append_log(run_dir, "job exited %d" % code)
    base["finished_at"] = _now()
    _write_json(status_path, base)
    return 0


def cmd_start(run_dir):
    run_dir = os.path.abspath(os.path.expanduser(run_dir))
    job = _read_json(os.path.join(run_dir, JOB))
    if not job or not isinstance(job.get("command"), list) or not job["command"]:
        return _fail("no usable %s in %s" % (JOB, run_dir))
    if not all(isinstance(a, str) for a in job["command"]):
        return _fail("job command must be a list of strings")
    if os.path.exists(os.path.join(run_dir, STATUS)):
        return _fail("run %s was already started" % run_dir)
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, ready_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            os.setsid()
            if os.fork() > 0:
                os._exit(0)
            os.chdir("/")  # never pin a directory the user may unmount
            _supervise(run_dir, job, ready_fd)
        except BaseException as exc:  # noqa: BLE001 - a detached process has nobody to raise to
            try:
                _append_log(run_dir, "runner failed: %r" % (exc,))
            except OSError:
                pass
            os._exit(1)
        os._exit(0)
    os.close(ready_fd)
    os.waitpid(pid, 0)
    chunks = []
    while True:
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    if not chunks:
        return _fail("runner did not report a start; see %s" % os.path.join(run_dir, LOG))
    print(json.dumps(_public(json.loads(b"".join(chunks).decode()), run_dir)))
    return 0


# ---------------------------------------------------------------- inspect


def _public(status, run_dir):
    keys = ("run_id", "state", "exit_code", "signal", "pid", "pgid", "started_at", "finished_at",
            "command", "forced", "detail", "error")
    out = {k: status.get(k) for k in keys}
    out["run_dir"] = run_dir
    return out


def check_status(run_dir):
    """The recorded state, corrected by what the kernel says: never 'running' for a dead job."""
    run_id = os.path.basename(run_dir.rstrip("/"))
    status = _read_json(os.path.join(run_dir, STATUS))
    if status is None:
        job = _read_json(os.path.join(run_dir, JOB)) or {}
        return _public({"run_id": run_id, "state": "lost", "command": job.get("command"),
                        "forced": job.get("forced"), "detail": "the runner never recorded a start"},
                       run_dir)
    if status.get("state") != "running":
        return _public(status, run_dir)
    boot = status.get("boot_id")
    if _alive(status.get("runner_pid"), status.get("runner_start"), boot):
        return _public(status, run_dir)
    again = _read_json(os.path.join(run_dir, STATUS)) or status  # it may have just finished
    if again.get("state") != "running":
        return _public(again, run_dir)
    job_alive = _alive(status.get("pid"), status.get("pid_start"), boot)
    if boot and _boot_id() and boot != _boot_id():
        why = "the host rebooted since the job started"
    elif job_alive:
        why = "the runner died; job pid %s is still alive but its end will not be recorded" % status.get("pid")
    else:
        why = "the runner and the job are gone without a recorded end (killed with SIGKILL?)"
    again = dict(again, state="lost", detail=why)
    return _public(again, run_dir)


def _run_dirs(root):
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    return [n for n in names if not n.startswith(".") and os.path.isdir(os.path.join(root, n))]


def _resolve(root, run_id):
    root = os.path.abspath(os.path.expanduser(root))
    if run_id == "latest":
        names = _run_dirs(root)
        if not names:
            return None
        run_id = names[-1]
    if "/" in run_id or run_id in ("", ".", ".."):
        return None
    path = os.path.join(root, run_id)
    return path if os.path.isdir(path) else None


def cmd_list(root):
    root = os.path.abspath(os.path.expanduser(root))
    print(json.dumps({"root": root, "runs": [check_status(os.path.join(root, n)) for n in _run_dirs(root)]}))
    return 0


def _read_log(run_dir, offset, limit):
    path = os.path.join(run_dir, LOG)
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    reset = False
    if offset < 0:
        offset = max(0, size + offset)
    elif offset > size:  # the log was replaced: start over rather than show nothing forever
        offset, reset = 0, True
    data = b""
    if size > offset:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read(min(limit, size - offset))
    return {"offset": offset, "next_offset": offset + len(data), "size": size, "reset": reset,
            "data": base64.b64encode(data).decode("ascii")}


def cmd_poll(root, run_id, offset, limit):
    run_dir = _resolve(root, run_id)
    if run_dir is None:
        return _fail("no run %s under %s" % (run_id, root), code=4)
    status = check_status(run_dir)  # state first: a job that ended is then fully in the log
    out = _read_log(run_dir, int(offset), int(limit))
    out["status"] = status
    print(json.dumps(out))
    return 0


def cmd_tail(root, run_id, nbytes):
    return cmd_poll(root, run_id, -int(nbytes), int(nbytes))


def cmd_prepare(root, run_id):
    root = os.path.abspath(os.path.expanduser(root))
    if "/" in run_id or run_id.startswith("."):
        return _fail("bad run id %r" % run_id)
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
        path = os.path.join(root, run_id)
        os.mkdir(path, 0o700)
    except OSError as exc:
        return _fail("cannot create run directory under %s: %s" % (root, exc.strerror or exc))
    print(json.dumps({"run_dir": path}))
    return 0


SIGNALS = {"TERM": signal.SIGTERM, "INT": signal.SIGINT, "KILL": signal.SIGKILL}


def cmd_stop(root, run_id, name):
    """Signal the job's recorded process group, only while the recorded job is that process
    (same pid, start time and boot): a pid reused since is never signalled."""
    run_dir = _resolve(root, run_id)
    if run_dir is None:
        return _fail("no run %s under %s" % (run_id, root), code=4)
    if name not in SIGNALS:
        return _fail("unknown signal %r (TERM, INT or KILL)" % name)
    status = _read_json(os.path.join(run_dir, STATUS)) or {}
    public = check_status(run_dir)
    job_alive = _alive(status.get("pid"), status.get("pid_start"), status.get("boot_id"))
    if not job_alive:
        print(json.dumps({"signalled": False, "status": public}))
        return 0
    pgid = status.get("pgid")
    try:
        if pgid:
            os.killpg(int(pgid), SIGNALS[name])
        else:  # a job started before runs had their own group: the job alone
            os.kill(int(status["pid"]), SIGNALS[name])
    except ProcessLookupError:
        print(json.dumps({"signalled": False, "status": check_status(run_dir)}))
        return 0
    except PermissionError as exc:
        return _fail("cannot signal run %s: %s" % (run_id, exc.strerror or exc))
    _append_log(run_dir, "SIG%s sent to process group %s by drift stop" % (name, pgid or status.get("pid")))
    print(json.dumps({"signalled": True, "signal": name, "pgid": pgid, "status": public}))
    return 0


def _fail(message, code=2):
    print(json.dumps({"error": message}))
    return code


MODES = {"prepare": (cmd_prepare, 2), "start": (cmd_start, 1), "list": (cmd_list, 1),
         "poll": (cmd_poll, 4), "tail": (cmd_tail, 3), "stop": (cmd_stop, 3)}


def main(argv):
    if not argv or argv[0] not in MODES or len(argv) - 1 != MODES[argv[0]][1]:
        return _fail("usage: runner.py {%s} ARGS..." % ",".join(sorted(MODES)))
    func = MODES[argv[0]][0]
    return func(*argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
