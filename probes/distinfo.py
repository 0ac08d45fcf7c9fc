"""Distribution metadata (name, version, requires, commit) read from `.dist-info` as text.

Reading the files directly works the same for a site-packages directory, an extracted wheel and
an unpacked sdist next to its dist-info, so the facts do not depend on how the code arrived.
`importlib.metadata` is the fallback for installs whose metadata lives elsewhere (editable).
"""

import json
import os
import re

_LOCAL_COMMIT = re.compile(r"\+(?:.*[.+])?g([0-9a-f]{7,40})(?:[.+]|$)")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def find_dist_dir(root_dir: str, package: str):
    """The `*.dist-info` directory in `root_dir` that ships top-level `package`, or None."""
    try:
        names = sorted(n for n in os.listdir(root_dir) if n.endswith(".dist-info"))
    except OSError:
        return None
    want = _norm(package)
    fallback = None
    for n in names:
        d = os.path.join(root_dir, n)
        top = _read(os.path.join(d, "top_level.txt"))
        if top is not None and package in top.split():
            return d
        if _norm(n[: -len(".dist-info")].split("-")[0]) == want:
            fallback = fallback or d
            continue
        if top is None and fallback is None:
            record = _read(os.path.join(d, "RECORD"), limit=1 << 20)
            if record and (("\n" + package + "/") in ("\n" + record) or ("\n" + package + ".py,") in ("\n" + record)):
                fallback = d
    return fallback


def _read(path, limit=4 << 20):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def parse_metadata(text: str) -> dict:
    """Name, Version and Requires-Dist lines (verbatim) from a METADATA header block."""
    name = version = None
    requires = []
    for line in text.splitlines():
        if not line.strip():
            break
        key, sep, value = line.partition(":")
        if not sep:
            continue
        value = value.strip()
        if key == "Name" and name is None:
            name = value
        elif key == "Version" and version is None:
            version = value
        elif key == "Requires-Dist":
            requires.append(value)
    return {"dist": name, "version": version, "requires": requires}


def commit_of(dist_dir, version):
    """VCS commit from direct_url.json, else a `+g<hash>` local version segment."""
    if dist_dir:
        raw = _read(os.path.join(dist_dir, "direct_url.json"))
        if raw:
            try:
                commit = json.loads(raw).get("vcs_info", {}).get("commit_id")
            except (ValueError, AttributeError):
                commit = None
            if isinstance(commit, str) and commit:
                return commit
    if version:
        m = _LOCAL_COMMIT.search(version)
        if m:
            return m.group(1)
    return None


def dist_for(root_dir: str, package: str, *, use_importlib: bool) -> dict:
    """{"dist", "version", "requires", "commit"} for `package`; unknown values are None / []."""
    d = find_dist_dir(root_dir, package)
    info = {"dist": None, "version": None, "requires": [], "commit": None}
    if d is not None:
        text = _read(os.path.join(d, "METADATA"))
        if text:
            info.update(parse_metadata(text))
        info["commit"] = commit_of(d, info["version"])
        return info
    if use_importlib:
        info.update(_from_importlib(package))
    return info


def _from_importlib(package: str) -> dict:
    try:
        from importlib import metadata
    except ImportError:
        return {}
    names = [package]
    try:
        names = metadata.packages_distributions().get(package, []) + names  # novermin: 3.10+, AttributeError on 3.9 is caught
    except (AttributeError, OSError, ValueError):
        pass
    for name in names:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        except (OSError, ValueError):
            continue
        version = dist.version
        commit = None
        try:
            raw = dist.read_text("direct_url.json")
            if raw:
                commit = json.loads(raw).get("vcs_info", {}).get("commit_id")
        except (ValueError, AttributeError, OSError):
            commit = None
        if not commit and version:
            m = _LOCAL_COMMIT.search(version)
            commit = m.group(1) if m else None
        return {"dist": dist.metadata["Name"], "version": version,
                "requires": list(dist.requires or []), "commit": commit}
    return {}
