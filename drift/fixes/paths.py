"""Path rules for patched files: relative, no `..`, always under the root we were given."""

from __future__ import annotations

import posixpath


def check_relpath(path: str) -> str | None:
    """None when `path` is a safe relative POSIX path, else the reason it is not."""
    if not isinstance(path, str) or not path:
        return "empty path"
    if "\x00" in path or "\\" in path:
        return f"unsafe characters in path {path!r}"
    if path.startswith("/"):
        return f"absolute path {path!r} (paths are relative to the root)"
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return f"path {path!r} must not contain '..', '.' or empty parts"
    return None


def join_under(root: str, path: str) -> str:
    """root/path for a path that passed `check_relpath`; raises ValueError otherwise."""
    problem = check_relpath(path)
    if problem:
        raise ValueError(problem)
    full = posixpath.join(root, path)
    if not posixpath.normpath(full).startswith(posixpath.normpath(root).rstrip("/") + "/"):
        raise ValueError(f"path {path!r} leaves {root}")
    return full
