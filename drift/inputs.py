"""Reading what someone else wrote and drift is handed: side files (snapshots, accepted-findings
files, inventories) by bytes read, and JSON (snapshots, accepted files, job-runner replies) with
one bounded parser and one clear error for every way it can be hostile. The inward twin of
`drift/output.py`.
"""

from __future__ import annotations

import json
import os
from typing import Any

JSON_MAX_DIGITS = 100  # an offset, a line or a size fits in 20


class JsonError(ValueError):
    """A JSON document drift refuses: not JSON, nested too deep, a number too long."""


class InputTooLarge(ValueError):
    """A side file (snapshot, accepted findings, inventory) longer than drift reads."""


def read_bounded(path: str | os.PathLike[str], *, limit: int, what: str) -> bytes:
    """At most `limit` bytes of the file at `path`, counted as read: InputTooLarge past that.
    Why not `st_size`: a device (`/dev/zero`), a FIFO or /proc says 0 and never ends. OSError
    (missing, a directory, unreadable) propagates for the caller to word."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputTooLarge(f"{what} is larger than {limit // 2**20} MB; drift reads at most that")
    return data


def loads_bounded(text: str | bytes, *, what: str, max_digits: int = JSON_MAX_DIGITS) -> Any:
    """`json.loads` for a document someone else wrote, with one clear JsonError for every way it
    can be hostile. Why: the standard parser answers 100,000 nested brackets with RecursionError
    and a 5,000-digit number with an int-conversion ValueError, both tracebacks in drift. Depth is
    bounded by the parser's own recursion guard (caught here); a pre-scan for it cost 3 s on a
    15 MB snapshot. `what` names the document in the message ("snapshot x.json")."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonError(f"{what}: not UTF-8 JSON ({exc.reason} at byte {exc.start})") from None

    def number(kind: type) -> Any:
        def parse(token: str) -> Any:
            if len(token) > max_digits:
                raise JsonError(f"{what}: a number of {len(token)} characters; drift reads at most {max_digits}")
            return kind(token)
        return parse

    def constant(token: str) -> Any:
        raise JsonError(f"{what}: {token} is not a JSON value")

    try:
        return json.loads(text, parse_int=number(int), parse_float=number(float), parse_constant=constant)
    except JsonError:
        raise
    except RecursionError:
        raise JsonError(f"{what}: nested too deep") from None
    except ValueError as exc:
        raise JsonError(f"{what}: invalid JSON ({exc})") from None
