"""Apply or revert a drift patch on the machine that holds the files (stdlib only, Python 3.9+).

Shipped on stdin to `python -` (drift.remote.connectors.script embeds this file, the action as argv and
the JSON payload as stdin, so no login shell parses any of it), so every file
operation happens next to the files in one round trip: hash checks, backup, manifest, then per
file temp-write + fsync + rename and a manifest update. Killed at any moment, each file is
either the old or the new bytes and the manifest (with both hashes) says which.
Prints one JSON object on stdout. Never imports drift.
"""

import base64
import glob
import hashlib
import json
import os
import stat
import sys
import tempfile
import time

MANIFEST_LIMIT = 16 * 1024 * 1024  # bytes read of a manifest; more is not a manifest drift wrote
PAUSE_ENV = "DRIFT_APPLIER_PAUSE_FILE"  # test hook: pause after the first file is committed
NEW_FILE = ""  # before_sha256 of a file the patch creates (it must not exist before)
NEW_FILE_MODE = 0o644


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def fsync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path, data, mode=None):
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".drift-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, stat.S_IMODE(mode))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(directory)


def write_json(path, obj):
    atomic_write(path, (json.dumps(obj, indent=2, sort_keys=True) + "\n").encode())


def safe_join(root, rel):
    """root/rel, refusing absolute paths, `..`, and symlinks that lead outside root."""
    if not rel or rel.startswith(("/", "\\")) or "\x00" in rel:
        raise ValueError("unsafe path %r" % rel)
    parts = rel.replace("\\", "/").split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise ValueError("unsafe path %r" % rel)
    full = os.path.join(root, *parts)
    real = os.path.realpath(full)
    if not real.startswith(root.rstrip("/") + "/"):
        raise ValueError("path %r leaves %s" % (rel, root))
    return full


def manifest_path(state_dir, patch_id):
    return os.path.join(state_dir, patch_id, "manifest.json")


def do_apply(p):
    root = os.path.realpath(p["root"])
    if not os.path.isdir(root):
        return {"status": "refused", "reason": "root %s is not a directory" % p["root"]}
    patch_id = p["patch_id"]
    files = []
    for f in p["files"]:
        try:
            full = safe_join(root, f["path"])
        except ValueError as exc:
            return {"status": "refused", "reason": str(exc)}
        data = read(full)
        if data is None and f["before_sha256"] == NEW_FILE:
            files.append((f, full, "pending"))  # a module drift adds (a version helper): created below
            continue
        if data is None:
            return {"status": "refused", "reason": "%s does not exist under %s" % (f["path"], root)}
        cur = sha256(data)
        if cur == f["after_sha256"]:
            state = "applied"
        elif cur == f["before_sha256"]:
            state = "pending"
        else:
            return {
                "status": "refused",
                "reason": "%s changed since the diff was made (sha256 %s is neither before nor after)"
                % (f["path"], cur[:12]),
            }
        files.append((f, full, state))
    pdir = os.path.join(p["state_dir"], patch_id)
    mpath = manifest_path(p["state_dir"], patch_id)
    existing = None
    if os.path.exists(mpath):
        with open(mpath, "rb") as fh:
            existing = json.loads(fh.read().decode())
    todo = [(f, full) for f, full, state in files if state == "pending"]
    outcome = [{"path": f["path"], "action": "already" if state == "applied" else "applied"} for f, _, state in files]
    if not todo:
        if existing is not None and (
            existing.get("status") != "applied" or any(e["state"] != "applied" for e in existing["files"])
        ):
            for entry in existing["files"]:
                entry["state"] = "applied"
            existing["status"] = "applied"
            write_json(mpath, existing)
        return {"status": "already_applied", "patch_id": patch_id, "manifest": mpath if existing else None, "files": outcome}
    os.makedirs(os.path.join(pdir, "backup"), exist_ok=True)
    for f, full in todo:
        if f["before_sha256"] == NEW_FILE:
            continue  # nothing to back up: revert deletes it
        backup = safe_join(os.path.realpath(os.path.join(pdir, "backup")), f["path"])
        os.makedirs(os.path.dirname(backup), exist_ok=True)
        data = read(full)
        if sha256(data) != f["before_sha256"]:
            return {"status": "refused", "reason": "%s changed while backing it up" % f["path"]}
        old = read(backup)
        if old is None or sha256(old) != f["before_sha256"]:
            atomic_write(backup, data, os.stat(full).st_mode)
    manifest = dict(p["manifest"])
    manifest.update(
        {
            "patch_id": patch_id,
            "root": root,
            "created": (existing or {}).get("created") or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "applied_at": time.time(),
            "status": "applying",
            "files": [
                {
                    "path": f["path"],
                    "before_sha256": f["before_sha256"],
                    "after_sha256": f["after_sha256"],
                    "state": state,
                }
                for f, _, state in files
            ],
        }
    )
    write_json(mpath, manifest)  # before any file is touched
    by_path = {e["path"]: e for e in manifest["files"]}
    pause = os.environ.get(PAUSE_ENV)
    for f, full in todo:
        mode = os.stat(full).st_mode if f["before_sha256"] != NEW_FILE else NEW_FILE_MODE
        atomic_write(full, base64.b64decode(f["after_b64"]), mode)
        by_path[f["path"]]["state"] = "applied"
        write_json(mpath, manifest)
        if pause:
            with open(pause, "w") as fh:
                fh.write(str(os.getpid()))
            pause = None
            time.sleep(120)
    manifest["status"] = "applied"
    write_json(mpath, manifest)
    return {"status": "applied", "patch_id": patch_id, "manifest": mpath, "files": outcome}


def find_latest(state_dir):
    best = None
    for mpath in glob.glob(os.path.join(glob.escape(state_dir), "*", "manifest.json")):
        try:
            with open(mpath, "rb") as fh:
                m = json.loads(fh.read(MANIFEST_LIMIT + 1).decode())
        except (OSError, ValueError, RecursionError):
            continue
        if not isinstance(m, dict) or m.get("status") == "reverted":
            continue
        key = (m.get("applied_at") or 0, mpath)
        if best is None or key > best[0]:
            best = (key, m.get("patch_id"))
    return best[1] if best else None


def locate_consumer(top):
    """(root_dir, top-level name) where `top` is installed for this interpreter, or None.

    The same finder lookup as the probe's locate.find_package (never imports the package): the
    root a revert may write under is the one this host's Python resolves, not one a manifest names.
    """
    import importlib.util

    if not top or not isinstance(top, str) or "/" in top or top.startswith("."):
        return None
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return os.path.dirname(os.path.abspath(locations[0])), os.path.basename(locations[0])
    if spec.origin and spec.origin.endswith(".py"):
        return os.path.dirname(os.path.abspath(spec.origin)), os.path.basename(spec.origin)
    return None


def trusted_root(p, manifest):
    """(root, allowed first path parts, None) or (None, None, why not): the manifest's `root` is
    only believed when it is the consumer's install that drift computed (`root` in the payload,
    or where this interpreter finds `consumer`); an edited manifest naming another directory
    is refused before anything is read or written there."""
    named = manifest.get("root")
    files = manifest.get("files")
    if not isinstance(named, str) or not isinstance(files, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("before_sha256"), str)
            and isinstance(e.get("after_sha256"), str) for e in files):
        return None, None, "the manifest is malformed (root or files missing or of the wrong type)"
    allowed = None
    if p.get("root"):
        expected = p["root"]
    elif p.get("consumer"):
        found = locate_consumer(p["consumer"])
        if found is None:
            return None, None, "consumer %r is not installed for this interpreter: nothing to revert it against" % (
                p["consumer"],)
        expected, top = found
        allowed = {top}
    else:
        return None, None, "revert needs the consumer (or its root) to check the manifest against"
    if os.path.realpath(named) != os.path.realpath(expected):
        return None, None, "the manifest names root %s, but the consumer is installed at %s: refusing to write there" % (
            named, expected)
    if allowed is not None:
        for e in files:
            if e["path"].replace("\\", "/").split("/", 1)[0] not in allowed:
                return None, None, "the manifest names %s, which is not a file of consumer %s" % (e["path"], p["consumer"])
    return os.path.realpath(expected), allowed, None


def do_revert(p):
    state_dir = p["state_dir"]
    patch_id = p.get("patch_id") or find_latest(state_dir)
    if not patch_id:
        return {"status": "nothing", "reason": "no applied patch under %s" % state_dir}
    if "/" in patch_id or patch_id in (".", ".."):
        return {"status": "refused", "reason": "bad patch id %r" % patch_id}
    mpath = manifest_path(state_dir, patch_id)
    if not os.path.exists(mpath):
        return {"status": "nothing", "reason": "no manifest for patch %s under %s" % (patch_id, state_dir)}
    try:
        with open(mpath, "rb") as fh:
            manifest = json.loads(fh.read(MANIFEST_LIMIT + 1).decode())
    except (ValueError, RecursionError):
        manifest = None
    if not isinstance(manifest, dict):
        return {"status": "refused", "reason": "the manifest %s is not a JSON object" % mpath}
    root, _, why = trusted_root(p, manifest)
    if root is None:
        return {"status": "refused", "reason": why}
    backup_root = os.path.realpath(os.path.join(state_dir, patch_id, "backup"))
    plan = []
    outcome = []
    for entry in manifest["files"]:
        try:
            full = safe_join(root, entry["path"])
        except ValueError as exc:
            return {"status": "refused", "reason": str(exc)}
        data = read(full)
        cur = sha256(data) if data is not None else None
        if cur == entry["before_sha256"] or (cur is None and entry["before_sha256"] == NEW_FILE):
            outcome.append({"path": entry["path"], "action": "already"})
            continue
        if entry["before_sha256"] == NEW_FILE and cur == entry["after_sha256"]:
            plan.append((entry, full, None))  # a module the patch created: revert removes it
            outcome.append({"path": entry["path"], "action": "removed"})
            continue
        if cur != entry["after_sha256"] and not p.get("force"):
            return {
                "status": "refused",
                "reason": "%s was changed after the patch was applied (use force to overwrite)" % entry["path"],
            }
        backup = read(safe_join(backup_root, entry["path"]))
        if backup is None or sha256(backup) != entry["before_sha256"]:
            return {"status": "refused", "reason": "backup of %s is missing or damaged" % entry["path"]}
        plan.append((entry, full, backup))
        outcome.append({"path": entry["path"], "action": "restored"})
    for entry, full, backup in plan:
        if backup is None:
            os.unlink(full)
            entry["state"] = "reverted"
            write_json(mpath, manifest)
            continue
        mode = os.stat(full).st_mode if os.path.exists(full) else None
        atomic_write(full, backup, mode)
        if sha256(read(full) or b"") != entry["before_sha256"]:
            return {"status": "failed", "reason": "%s does not match its original after restore" % entry["path"]}
        entry["state"] = "reverted"
        write_json(mpath, manifest)
    for entry in manifest["files"]:
        entry["state"] = "reverted"
    manifest["status"] = "reverted"
    write_json(mpath, manifest)
    status = "reverted" if plan else "already_reverted"
    return {"status": status, "patch_id": patch_id, "manifest": mpath, "files": outcome}


def main(argv):
    payload = json.loads(sys.stdin.buffer.read().decode())
    try:
        if argv[1:] == ["apply"]:
            result = do_apply(payload)
        elif argv[1:] == ["revert"]:
            result = do_revert(payload)
        else:
            result = {"status": "failed", "reason": "usage: applier apply|revert < payload.json"}
    except OSError as exc:
        result = {"status": "failed", "reason": "%s: %s" % (exc.filename or "", exc.strerror or exc)}
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
