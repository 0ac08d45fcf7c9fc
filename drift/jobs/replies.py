"""Check a job-runner reply before drift acts on it: a host is untrusted input.

The runner's JSON decides a local file name (the watch offset store is keyed by `run_id`), how
far the next poll reads (`next_offset`) and what is shown. A hostile or broken host must not
make drift write outside its cache, poll forever or end in a traceback, so every field drift
uses is checked here for type and range, the way probe replies are (drift/remote/reply.py).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

__all__ = ["ReplyError", "SAFE_RUN_ID", "checked_poll", "checked_status", "safe_run_id"]

# what runner.py's run directories are called (launch.new_run_id), with room for hand-made
# names: one path component, never hidden, never `..`, nothing a file name or terminal minds
SAFE_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
STATES = ("running", "exited", "killed", "lost")


class ReplyError(ValueError):
    """A runner reply drift will not act on; the message says which field and why."""


def safe_run_id(value: object) -> str:
    if not isinstance(value, str) or not SAFE_RUN_ID.fullmatch(value) or ".." in value:
        raise ReplyError(f"the run id {_show(value)} is not a plain name")
    return value


def _int(data: dict, key: str, *, optional: bool = False, low: int | None = 0) -> int | None:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or (low is not None and value < low):
        raise ReplyError(f"`{key}` is {_show(value)}, not a{' non-negative' if low == 0 else 'n'} integer")
    return value


def _opt_str(data: dict, key: str) -> None:
    if data.get(key) is not None and not isinstance(data.get(key), str):
        raise ReplyError(f"`{key}` is {_show(data.get(key))}, not a string")


def checked_status(data: object) -> dict[str, Any]:
    """A run's status object with the types RunInfo relies on."""
    if not isinstance(data, dict):
        raise ReplyError(f"a run status is {_show(data)}, not an object")
    safe_run_id(data.get("run_id"))
    if data.get("state") not in STATES:
        raise ReplyError(f"`state` is {_show(data.get('state'))}, not one of {', '.join(STATES)}")
    for key in ("exit_code", "signal"):
        _int(data, key, optional=True, low=None)
    _int(data, "pid", optional=True)
    for key in ("started_at", "finished_at", "detail", "error", "run_dir"):
        _opt_str(data, key)
    command = data.get("command")
    if command is not None and not (isinstance(command, list) and all(isinstance(c, str) for c in command)):
        raise ReplyError(f"`command` is {_show(command)}, not a list of strings")
    return data


def checked_poll(data: dict[str, Any], *, asked: int | None, max_bytes: int) -> tuple[int, int, int, bool, bytes]:
    """(offset, next_offset, size, reset, bytes) of a `poll` reply asked at `asked` for at most
    `max_bytes` (None: a tail, from wherever the end is): offsets in order, the data as long as they say, and progress unless at the end,
    so the loop that follows always ends."""
    checked_status(data.get("status"))
    offset, nxt, size = _int(data, "offset"), _int(data, "next_offset"), _int(data, "size")
    reset = data.get("reset", False)
    if not isinstance(reset, bool):
        raise ReplyError(f"`reset` is {_show(reset)}, not true or false")
    if not offset <= nxt <= size:
        raise ReplyError(f"offsets out of order (offset {offset}, next_offset {nxt}, size {size})")
    if not reset and asked is not None and offset != asked:
        raise ReplyError(f"asked for byte {asked}, the reply starts at {offset}")
    if nxt - offset > max_bytes:
        raise ReplyError(f"asked for at most {max_bytes} bytes, the reply claims {nxt - offset}")
    if nxt == offset and nxt < size:
        raise ReplyError(f"no progress: nothing read at byte {offset} of {size}")
    raw = data.get("data")
    try:
        blob = base64.b64decode(raw, validate=True) if isinstance(raw, str) else None
    except (binascii.Error, ValueError):
        blob = None
    if blob is None or len(blob) != nxt - offset:
        raise ReplyError(f"`data` is not {nxt - offset} bytes of base64")
    return offset, nxt, size, reset, blob


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
