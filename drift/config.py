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
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (a dependency only there)
    import tomli as tomllib

__all__ = ["Config", "ConfigError", "DEFAULT_RUN_DIR", "TRUST_ENV", "find_config", "load_config", "parse_config",
           "program_keys", "require_trust", "trust_requested"]

TRUST_ENV = "DRIFT_TRUST_CONFIG"  # "1": honour a config file's python: targets and ssh_config (CI sets it on purpose)

DEFAULT_RUN_DIR = "~/.drift/runs"
_TOP_KEYS = {
    "host": str, "python": str, "consumer": str, "target": str, "baseline": str,
    "identity": str, "jump": str, "accept_new": bool, "port": int, "ssh_config": str,
    "accepted": str, "fail_on": str, "strict": bool, "supports": str,
}
_CODE_LISTS = ("select", "ignore")
_GLOB_LISTS = ("include", "exclude")  # which files of a source-tree consumer are read (drift.consumer.discover)
FAIL_ON = ("breaking", "risky")


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
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    accepted: str | None = None  # accepted-findings file, relative to the config file
    fail_on: str | None = None  # breaking | risky
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    strict: bool = False  # unused `# drift: ignore` comments and accepted entries fail the run
    supports: str | None = None  # the vLLM releases the consumer supports (">=0.10.2"): its fixes are version-gated
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
    for written, value in data.items():
        # the silencing keys read like ruff's (per-file-ignores) or like drift's (per_file_ignores)
        key = written.replace("-", "_") if written.replace("-", "_") in (*_CODE_LISTS, "per_file_ignores", "fail_on") else written
        if key in _TOP_KEYS:
            values[key] = _typed(value, _TOP_KEYS[key], f"{where}{prefix}{written}")
            if key == "fail_on" and value not in FAIL_ON:
                raise ConfigError(f"{where}{prefix}{written} must be one of {', '.join(FAIL_ON)}, not {value!r}")
        elif key in _CODE_LISTS:
            values[key] = _codes(value, f"{where}{prefix}{written}")
        elif key in _GLOB_LISTS:
            values[key] = _globs(value, f"{where}{prefix}{written}")
        elif key == "per_file_ignores":
            table = _table(value, f"{where}{prefix}{written}")
            values[key] = {str(glob): _codes(codes, f"{where}{prefix}{written}.{glob!r}") for glob, codes in table.items()}
        elif key == "launch":
            values.update(_launch(value, where=where, prefix=f"{prefix}launch."))
        elif key == "watch":
            values.update(_watch(value, where=where, prefix=f"{prefix}watch."))
        else:
            known = sorted([*_TOP_KEYS, *_CODE_LISTS, *_GLOB_LISTS, "per_file_ignores", "launch", "watch"])
            raise ConfigError(f"{where}unknown key {prefix}{written!s} (known: {', '.join(known)})")
    return Config(source=source, **values)


def _codes(value: Any, name: str) -> tuple[str, ...]:
    """A list of rule ids or prefixes (DRIFT050, DRIFT0, VLLM, ALL)."""
    from drift.suppress import SuppressError, parse_codes

    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{name} must be a list of rule ids or prefixes, e.g. [\"DRIFT050\"]")
    try:
        return parse_codes(value, what=name)
    except SuppressError as exc:
        raise ConfigError(str(exc)) from None


def _globs(value: Any, name: str) -> tuple[str, ...]:
    """A list of gitignore-style globs (`scripts/`, `tests/**/fixtures/*.py`), checked to parse."""
    import pathspec

    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{name} must be a list of gitignore-style globs, e.g. [\"examples/\"]")
    try:
        pathspec.PathSpec.from_lines("gitwildmatch", value)
    except ValueError as exc:
        raise ConfigError(f"{name}: {exc}") from None
    return tuple(value)


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


def program_keys(config: Config) -> list[str]:
    """The settings of a config file that would make drift run a program on this machine: a
    `python:PATH` target, baseline or consumer runs PATH, and an ssh config file may hold a
    ProxyCommand or a Match exec. Why these need consent: the file is part of the checkout, and
    a pull request can change it, so `drift gate` in CI would run what the pull request says."""
    keys = [f"{key} = {getattr(config, key)!r}" for key in ("target", "baseline", "consumer")
            if isinstance(getattr(config, key), str) and getattr(config, key).strip().startswith("python:")]
    if config.ssh_config:
        keys.append(f"ssh_config = {config.ssh_config!r}")
    return keys


def trust_requested(args: Any = None) -> bool:
    """`--trust-config`, or DRIFT_TRUST_CONFIG=1 in the environment (set deliberately, e.g. by CI)."""
    import os

    return bool(getattr(args, "trust_config", False)) or os.environ.get(TRUST_ENV, "") == "1"


def require_trust(config: Config, *, trusted: bool) -> Config:
    """`config` unchanged when it runs nothing or is trusted; otherwise ConfigError (exit 2)
    naming the settings, before anything could run them."""
    keys = program_keys(config) if config.source is not None else []
    if keys and not trusted:
        raise ConfigError(
            f"{config.source} would make drift run a program ({'; '.join(keys)}); a repository's config is "
            f"not trusted to do that unasked: pass --trust-config (or set {TRUST_ENV}=1) if you trust this file, "
            "or give the setting on the command line instead")
    return config
