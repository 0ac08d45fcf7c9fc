"""Fetch releases with pip itself and keep only their Python sources, once.

pip is used (not an HTTP client of ours) so the user's pip configuration, index and
credentials are respected. A wheel is a zip: only `.py` files and the `.dist-info` metadata
are extracted, into a user cache, so a 500 MB vLLM wheel costs ~20 MB on disk after the first
fetch and nothing after that.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

COMPLETE_MARKER = ".drift-complete"


class FetchError(Exception):
    """A release could not be fetched or read; the message is for the user."""


@dataclass(frozen=True)
class Sources:
    """An extracted release: `root` holds the top-level package dirs and the .dist-info."""

    root: Path
    name: str
    version: str


def cache_root() -> Path:
    base = os.environ.get("DRIFT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "drift"
    )
    return Path(base)


def cache_name(text: str) -> str:
    """`text` (a host spec, a label) as one safe file name under the cache."""
    return "".join(c if c.isalnum() or c in "._-@" else "_" for c in text)


def pinned_version(req: Requirement) -> str | None:
    specs = list(req.specifier)
    if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
        return specs[0].version
    return None


def parse_requirement(spec: str) -> Requirement:
    try:
        req = Requirement(spec)
    except InvalidRequirement as exc:
        raise FetchError(f"not a valid requirement: {spec!r} ({exc})") from None
    if req.url:
        raise FetchError(f"direct URL requirements are not supported here: {spec!r}; pass the wheel path")
    return req


def fetch_sources(spec: str, *, cache: Path | None = None, quiet: bool = True) -> Sources:
    """Return the extracted sources of a PyPI requirement such as `vllm==0.16.0`."""
    req = parse_requirement(spec)
    name = canonicalize_name(req.name)
    base = (cache or cache_root()) / "sources"
    version = pinned_version(req)
    if version is not None:
        hit = base / f"{name}-{version}"
        if (hit / COMPLETE_MARKER).exists():
            return Sources(root=hit, name=name, version=version)
    with tempfile.TemporaryDirectory(prefix="drift-dl-") as tmp:
        wheel = _pip_download(str(req), Path(tmp), quiet=quiet)
        version = _wheel_version(wheel)
        dest = base / f"{name}-{version}"
        if not (dest / COMPLETE_MARKER).exists():
            extract_wheel(wheel, dest)
    return Sources(root=dest, name=name, version=version)


def _pip_download(requirement: str, dest: Path, *, quiet: bool) -> Path:
    argv = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--dest", str(dest), requirement,
    ]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise FetchError(_explain_pip_failure(requirement, proc.stderr + proc.stdout))
    wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        raise FetchError(f"pip found no wheel for {requirement}")
    return wheels[0]


def _explain_pip_failure(requirement: str, output: str) -> str:
    if "No matching distribution" in output or "Could not find a version" in output:
        versions = re.search(r"\(from versions: ([^)]*)\)", output)
        known = ""
        if versions and versions.group(1).strip() not in ("", "none"):
            tail = [v.strip() for v in versions.group(1).split(",")][-8:]
            known = f"; recent versions: {', '.join(tail)}"
        return f"no release matches {requirement}{known}"
    lines = [ln for ln in output.strip().splitlines() if ln.startswith("ERROR")] or output.strip().splitlines()[-3:]
    return f"pip could not fetch {requirement}: " + " ".join(lines)


def _wheel_version(wheel: Path) -> str:
    parts = wheel.name[: -len(".whl")].split("-")
    if len(parts) < 5:
        raise FetchError(f"not a wheel file name: {wheel.name}")
    return parts[1]


def extract_wheel(wheel: Path, dest: Path) -> Path:
    """Extract .py files and dist-info of a wheel into dest, atomically (tmp dir + rename)."""
    try:
        archive = zipfile.ZipFile(wheel)
    except (zipfile.BadZipFile, OSError) as exc:
        raise FetchError(f"{wheel} is not a wheel (not a zip archive: {exc})") from None
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=dest.name + ".", dir=dest.parent))
    try:
        with archive:
            names = archive.namelist()
            if not any(".dist-info/" in n for n in names):
                raise FetchError(f"{wheel} is not a wheel (no .dist-info inside)")
            for info in archive.infolist():
                name = info.filename
                if info.is_dir() or not (name.endswith(".py") or ".dist-info/" in name):
                    continue
                if name.startswith("/") or ".." in Path(name).parts:
                    continue  # never write outside dest
                target = tmp / name
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
        (tmp / COMPLETE_MARKER).write_text(wheel.name)
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def wheel_sources(wheel: Path, *, cache: Path | None = None) -> Sources:
    """Extract a local wheel file once, keyed by its content hash."""
    if not wheel.is_file():
        raise FetchError(f"no such wheel: {wheel}")
    digest = hashlib.sha256()
    with open(wheel, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    name = canonicalize_name(wheel.name.split("-")[0])
    version = _wheel_version(wheel)
    dest = (cache or cache_root()) / "wheels" / f"{name}-{version}-{digest.hexdigest()[:16]}"
    if not (dest / COMPLETE_MARKER).exists():
        extract_wheel(wheel, dest)
    return Sources(root=dest, name=name, version=version)


def top_level_packages(root: Path, dist_name: str) -> list[str]:
    """Import names a distribution provides, from top_level.txt or RECORD."""
    norm = canonicalize_name(dist_name).replace("-", "_")
    for info in root.glob("*.dist-info"):
        if canonicalize_name(info.name[: -len(".dist-info")].rsplit("-", 1)[0]).replace("-", "_") != norm:
            continue
        top = info / "top_level.txt"
        if top.exists():
            names = [n.strip() for n in top.read_text().splitlines() if n.strip()]
            if names:
                return names
        record = info / "RECORD"
        if record.exists():
            tops = set()
            for line in record.read_text().splitlines():
                first = line.split(",", 1)[0].split("/", 1)[0]
                if first and not first.endswith((".dist-info", ".data")) and (root / first).is_dir():
                    tops.add(first)
            if tops:
                return sorted(tops)
    guess = norm
    return [guess] if (root / guess).is_dir() else []
