"""Writing what drift produces (reports, accepted-findings files, diffs, snapshots) to the path
the user named: one writer for every command, below the renderers and the commands that call it.
"""

from __future__ import annotations

import os
import pathlib
import tempfile


def write_text(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        # mkstemp makes 0600; a report is meant to be read (CI uploads, web servers)
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise
