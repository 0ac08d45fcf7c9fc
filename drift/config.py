"""Project settings from `drift.toml` or `[tool.drift]` in `pyproject.toml`.

Why: a launch command line for an extraction job is long and the same every time; the host,
interpreter, consumer and baseline rarely change either. The file is found like git finds its
repository (from the current directory upwards) so drift works from any subdirectory, and any
flag on the command line wins over the file. Unknown keys are errors, not silently ignored, so
a typo cannot quietly launch with the defaults.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

__all__ = ["Config", "ConfigError", "DEFAULT_RUN_DIR", "find_config", "load_config", "parse_config"]

DEFAULT_RUN_DIR = "~/.drift/runs"
_TOP_KEYS = {
    "host": str, "python": str, "consumer": str, "target": str, "baseline": str,
    "identity": str, "jump": str, "accept_new": bool, "port": int, "ssh_config": str,
}


class ConfigError(ValueError):
    """The config file cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    host: str | None = None
    python: str | None = None
    consumer: str | None = None
    target: str | None = None
    baseline: str | None = None
    identity: str | None = None
    jump: str | None = None
    accept_new: bool = False
    port: int | None = None
    ssh_config: str | None = None
    launch_command: tuple[str, ...] = ()
    run_dir: str = DEFAULT_RUN_DIR
    progress_patterns: Mapping[str, str] = field(default_factory=dict)
    source: Path | None = None  # the file these values came from, None for defaults

    def override(self, **values: Any) -> "Config":
        """A copy with every value that is not None replaced: how CLI flags win over the file."""
        known = {f.name for f in fields(self)}
        unknown = set(values) - known
        if unknown:
            raise TypeError(f"unknown config fields: {sorted(unknown)}")
        return replace(self, **{k: v for k, v in values.items() if v is not None})


def find_config(start: Path) -> Path | None:
    """Nearest `drift.toml`, or `pyproject.toml` with a [tool.drift] table, from start upwards."""
    start = start.resolve()
    for directory in (start, *start.parents):
        candidate = directory / "drift.toml"
        if candidate.is_file():
            return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue  # a broken pyproject without drift settings is not ours to report
            if isinstance(data.get("tool"), dict) and "drift" in data["tool"]:
                return pyproject
    return None


def load_config(explicit: str | Path | None = None, *, cwd: Path | None = None) -> Config:
    """The Config for this invocation: `--config PATH` if given, else the nearest file, else defaults."""
    if explicit is not None:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist")
    else:
        found = find_config(cwd or Path.cwd())
        if found is None:
            return Config()
        path = found
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("drift")
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: no [tool.drift] table")
        return parse_config(table, source=path, prefix="tool.drift.")
    return parse_config(data, source=path)


def parse_config(data: Mapping[str, Any], *, source: Path | None = None, prefix: str = "") -> Config:
    """Validate one settings table; every error names the file and the dotted key."""
    where = f"{source}: " if source else ""
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in _TOP_KEYS:
            values[key] = _typed(value, _TOP_KEYS[key], f"{where}{prefix}{key}")
        elif key == "launch":
            values.update(_launch(value, where=where, prefix=f"{prefix}launch."))
        elif key == "watch":
            values.update(_watch(value, where=where, prefix=f"{prefix}watch."))
        else:
            raise ConfigError(f"{where}unknown key {prefix}{key!s} (known: {', '.join(sorted([*_TOP_KEYS, 'launch', 'watch']))})")
    return Config(source=source, **values)


def _typed(value: Any, kind: type, name: str) -> Any:
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        wanted = {str: "a string", bool: "true or false", int: "an integer"}.get(kind, kind.__name__)
        raise ConfigError(f"{name} must be {wanted}, not {type(value).__name__} {value!r}")
    return value


def _table(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{name} must be a table")
    return value


def _launch(value: Any, *, where: str, prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in _table(value, f"{where}{prefix.rstrip('.')}").items():
        name = f"{where}{prefix}{key}"
        if key == "command":
            out["launch_command"] = parse_command(item, name=name)
        elif key == "run_dir":
            out["run_dir"] = _typed(item, str, name)
        else:
            raise ConfigError(f"{where}unknown key {prefix}{key} (known: command, run_dir)")
    return out


def _watch(value: Any, *, where: str, prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in _table(value, f"{where}{prefix.rstrip('.')}").items():
        if key != "progress":
            raise ConfigError(f"{where}unknown key {prefix}{key} (known: progress)")
        patterns = _table(item, f"{where}{prefix}progress")
        for label, regex in patterns.items():
            name = f"{where}{prefix}progress.{label}"
            _typed(regex, str, name)
            try:
                compiled = re.compile(regex)
            except re.error as exc:
                raise ConfigError(f"{name}: bad regular expression: {exc}") from None
            if "done" not in compiled.groupindex:
                raise ConfigError(f"{name}: the pattern needs a (?P<done>...) group (and optionally (?P<total>...))")
        out["progress_patterns"] = dict(patterns)
    return out


def parse_command(value: Any, *, name: str = "command") -> tuple[str, ...]:
    """An argv from a list of strings, or from one string split the way a shell would."""
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise ConfigError(f"{name}: cannot split {value!r}: {exc}") from None
    elif isinstance(value, list) and all(isinstance(a, str) for a in value):
        argv = list(value)
    else:
        raise ConfigError(f"{name} must be a list of strings or one string")
    if not argv:
        raise ConfigError(f"{name} is empty")
    return tuple(argv)
