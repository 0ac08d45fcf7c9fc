"""The `env` block: interpreter, host, package versions, GPUs — nothing heavy is imported.

torch's CUDA version is read from `torch/version.py` as text (importing torch costs seconds and
may initialise CUDA); GPUs come from `nvidia-smi` with a short timeout. Nothing here is fatal:
whatever cannot be read is null.
"""

import os
import platform
import re
import shutil
import socket
import subprocess
import sys

from .distinfo import dist_for
from .locate import find_package

_CUDA_LINE = re.compile(r"""^cuda\s*(?::\s*[^=]+)?=\s*['"]([^'"]+)['"]""", re.M)
_NVIDIA_SMI_TIMEOUT_S = 2.0


def torch_cuda(torch_dir):
    """`cuda = '12.8'` from torch/version.py, without importing torch."""
    if not torch_dir:
        return None
    try:
        with open(os.path.join(torch_dir, "version.py"), "r", encoding="utf-8", errors="replace") as f:
            m = _CUDA_LINE.search(f.read(65536))
    except OSError:
        return None
    return m.group(1) if m else None


def package_env(name: str) -> dict:
    """{"version", "commit", "location"} of an importable top-level package, or None."""
    found = find_package(name)
    if found is None:
        return None
    root, pkg_dir = found
    info = dist_for(root, name, use_importlib=True)
    out = {"version": info["version"], "commit": info["commit"], "location": root}
    if name == "torch":
        out["cuda"] = torch_cuda(pkg_dir if os.path.isdir(pkg_dir) else None)
        out.pop("commit", None)
    return out


def gpus():
    """GPUs as nvidia-smi lists them; None when there is no nvidia-smi or it fails."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        res = subprocess.run(
            [exe, "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            timeout=_NVIDIA_SMI_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if res.returncode != 0:
        return None
    return parse_nvidia_smi(res.stdout.decode("utf-8", "replace"))


def parse_nvidia_smi(text: str) -> list:
    out = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 3 and parts[0]:
            out.append({"name": parts[0], "memory": parts[1], "driver": parts[2]})
    return out


def _platform() -> str:
    """`Linux-6.1.0-x86_64`; platform.platform() is avoided (it scans the python binary)."""
    u = platform.uname()
    return "%s-%s-%s" % (u.system, u.release, u.machine)


def environment(env_packages) -> dict:
    """The env block of SCHEMA.md for the running interpreter."""
    packages = {}
    for name in env_packages or ():
        info = package_env(name)
        if info is not None:
            packages[name] = info
    try:
        hostname = socket.gethostname()
    except OSError:
        hostname = None
    return {
        "python": platform.python_version(),
        "executable": sys.executable,
        "platform": _platform(),
        "hostname": hostname,
        "packages": packages,
        "gpus": gpus(),
    }


def tree_environment(root_dir, env_packages) -> dict:
    """The env block for a directory: only what its .dist-info dirs say; no interpreter facts."""
    packages = {}
    for name in env_packages or ():
        info = dist_for(root_dir, name, use_importlib=False)
        if info["version"] is None:
            continue
        entry = {"version": info["version"], "commit": info["commit"], "location": os.path.abspath(root_dir)}
        if name == "torch":
            entry.pop("commit")
            pkg = os.path.join(root_dir, "torch")
            entry["cuda"] = torch_cuda(pkg if os.path.isdir(pkg) else None)
        packages[name] = entry
    return {"python": None, "executable": None, "platform": None, "hostname": None,
            "packages": packages, "gpus": None}
