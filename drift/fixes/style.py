"""The consumer's own line length, so drift's edits and comments fit the lines its linters allow.

Read from the files its formatters read, first found wins: `ruff.toml` / `.ruff.toml`
(`line-length`), `pyproject.toml` (`[tool.ruff] line-length`, `[tool.black] line-length`),
`setup.cfg` / `tox.ini` / `.flake8` (`[flake8] max-line-length`); else 88, black's and
ruff's default.
"""

from __future__ import annotations

import configparser
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI
    import tomli as tomllib

DEFAULT_LINE_LENGTH = 88


def _toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _length(value: object) -> int | None:
    try:
        n = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return n if 40 <= n <= 1000 else None


def line_length(root: str | Path) -> int:
    """The line length `root`'s project configures (checked in `root` and up to two parents)."""
    here = Path(root)
    for folder in (here, *list(here.parents)[:2]):
        for name in ("ruff.toml", ".ruff.toml"):
            n = _length(_toml(folder / name).get("line-length"))
            if n:
                return n
        tool = _toml(folder / "pyproject.toml").get("tool") or {}
        for key in ("ruff", "black"):
            n = _length((tool.get(key) or {}).get("line-length"))
            if n:
                return n
        for name in ("setup.cfg", "tox.ini", ".flake8"):
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read(folder / name, encoding="utf-8")
            except (configparser.Error, UnicodeDecodeError):
                continue
            n = _length(parser.get("flake8", "max-line-length", fallback=None))
            if n:
                return n
    return DEFAULT_LINE_LENGTH
