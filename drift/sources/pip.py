"""`pip download` as the fallback fetch (no range reads, a proxy in the way), and its failures
read back into drift's errors (unreachable index, no such project, no matching release)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import Version

from drift.sources.errors import FetchError, IndexUnreachable, NoMatchingRelease, ProjectNotFound


def _pip_download(requirement: str, dest: Path, *, quiet: bool, built_for: str | None = None) -> Path:
    """`built_for`: the name of a wheel built for another platform or Python; pip is told that
    platform, Python and ABI, since it would otherwise refuse a wheel that cannot install here."""
    log = dest / "pip.log"  # pip logs why an index page failed only at debug level, in --log
    argv = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--log", str(log), "--dest", str(dest), *_foreign_options(built_for),
        requirement,
    ]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise _pip_failure(requirement, proc.stderr + proc.stdout, _read_log(log))
    wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        raise FetchError(f"pip found no wheel for {requirement}")
    return wheels[0]


def _foreign_options(wheel_name: str | None) -> list[str]:
    """pip's --platform/--python-version/--implementation/--abi for one tag of `wheel_name`."""
    if not wheel_name:
        return []
    from packaging.utils import parse_wheel_filename

    tag = sorted(parse_wheel_filename(wheel_name)[3], key=str)[0]
    impl, digits = tag.interpreter[:2], tag.interpreter[2:]
    argv = ["--platform", tag.platform, "--implementation", impl, "--abi", tag.abi]
    if digits:
        argv += ["--python-version", digits]
    return argv


def _read_log(log: Path) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


_UNREACHABLE = re.compile(r"Could not fetch URL (\S+?): (?!404|410)(.*?)(?: - skipping)?$", re.MULTILINE)


_MISSING = re.compile(r"Could not fetch URL (\S+?): (?:404|410)", re.MULTILINE)


def _newest_first(versions) -> list[str]:
    from packaging.version import InvalidVersion

    parsed = {}
    for text in versions:
        try:
            parsed.setdefault(Version(text), text)
        except InvalidVersion:
            continue
    return [parsed[v] for v in sorted(parsed, reverse=True)]


def _pip_failure(requirement: str, output: str, log: str = "") -> FetchError:
    """Tell apart an index that did not answer, a project no index knows, and no matching release."""
    name = requirement
    try:
        name = Requirement(requirement).name
    except InvalidRequirement:
        pass
    if "No matching distribution" in output or "Could not find a version" in output:
        versions = re.search(r"\(from versions: ([^)]*)\)", output)
        known = [v.strip() for v in versions.group(1).split(",")] if versions else []
        known = [v for v in known if v and v != "none"]
        if known:
            return NoMatchingRelease(f"no release matches {requirement}; newest versions: {', '.join(_newest_first(known)[:8])}")
        down = _UNREACHABLE.search(log)
        if down:
            why = re.search(r"\[Errno -?\d+\] ([^'\")]+)|(Name or service not known|timed out|SSLError[^'\")]*)",
                            down.group(2))
            reason = (why.group(1) or why.group(2)).strip() if why else down.group(2).strip()[:160]
            return IndexUnreachable(f"the package index is unreachable: {_redact(down.group(1))} ({reason})")
        return ProjectNotFound(f"no project named {name!r} on the package index (nor any release of it "
                               "with a wheel for this platform)")
    lines = [ln for ln in output.strip().splitlines() if ln.startswith("ERROR")] or output.strip().splitlines()[-3:]
    return FetchError(f"pip could not fetch {requirement}: " + " ".join(lines))


def _redact(url: str) -> str:
    """An index URL without its credentials."""
    return re.sub(r"//[^/@]+@", "//***@", url)
