"""Targets of any platform, and nightlies from an extra index (issue 24, item 9).

A local PEP 503 / PEP 691 index serves a final release with a universal wheel; an extra
"nightly" index serves dev builds whose only wheels are built for macOS and CPython 3.12, as
vLLM's CPU nightlies are. drift reads a target, it never installs it: the macOS wheel is read
all the same, the report says which file it was, the dev versions sort as PEP 440 sorts them,
and `==nightly` / `--pre` pick the newest. A release with a wheel for this platform is still
read from that one.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from drift.sources.index import open_index
from tests.fetch_fixtures import IndexServer, isolated_pip, running

MAC = "cp312-cp312-macosx_14_0_arm64"

OLD_API = "def run(job, retries=3):\n    return job\n"
NEW_API = "def run(job, *, retries=3):\n    return job\n"  # retries became keyword-only in the nightlies


def _wheel(dest: Path, version: str, tag: str, api: str) -> Path:
    """A wheel of distribution `demo-nightly` holding the import package `demo`."""
    dist = f"demo_nightly-{version}.dist-info"
    files = {
        "demo/__init__.py": "",
        "demo/api.py": api,
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: demo-nightly\nVersion: {version}\n",
        f"{dist}/WHEEL": f"Wheel-Version: 1.0\nGenerator: drift-tests\nRoot-Is-Purelib: false\nTag: {tag}\n",
        f"{dist}/top_level.txt": "demo\n",
        f"{dist}/RECORD": "",
    }
    path = dest / f"demo_nightly-{version}-{tag}.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return path


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    d = tmp_path_factory.mktemp("nightly-dists")
    return {
        "final": _wheel(d, "1.0", "py3-none-any", OLD_API),
        "dev1": _wheel(d, "1.1.dev20260901", MAC, NEW_API),
        "dev2": _wheel(d, "1.1.dev20260902", MAC, NEW_API),
        "rc": _wheel(d, "1.1rc1", MAC, NEW_API),
    }


@pytest.fixture
def consumer(tmp_path) -> Path:
    root = tmp_path / "consumer"
    (root / "uses_demo").mkdir(parents=True)
    (root / "uses_demo" / "__init__.py").write_text("from demo.api import run\n\n\ndef go(job):\n    return run(job, 5)\n")
    return root


def _drift(*argv: str, env_extra: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", DRIFT_CACHE=str(tmp_path / "cache"),
               **env_extra)
    return subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", *argv],
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("api", ["html", "json"])
def test_dev_builds_from_an_extra_index_sort_and_resolve(api, dists, monkeypatch) -> None:
    with running(IndexServer(api=api)) as main, running(IndexServer(api=api)) as nightly:
        main.add(dists["final"])
        for key in ("dev1", "dev2", "rc"):
            nightly.add(dists[key])
        isolated_pip(monkeypatch, index_url=main.simple, extra_index_url=nightly.simple)
        with open_index() as index:
            assert index.versions("demo-nightly") == ["1.1rc1", "1.1.dev20260902", "1.1.dev20260901", "1.0"]
            plain = index.resolve(Requirement("demo-nightly"))
            assert (plain.version, plain.foreign) == ("1.0", False)  # a final release that installs here wins
            newest = index.resolve(Requirement("demo-nightly"), pre=True)
            assert (newest.version, newest.filename, newest.foreign) == ("1.1rc1", dists["rc"].name, True)
            dev = index.resolve(Requirement("demo-nightly==1.1.dev20260901"))
            assert (dev.filename, dev.foreign) == (dists["dev1"].name, True)
            assert dev.url.startswith(nightly.url)


def test_a_wheel_for_this_platform_is_preferred_to_a_foreign_one(dists, tmp_path, monkeypatch) -> None:
    here = _wheel(tmp_path, "1.1.dev20260902", "py3-none-any", NEW_API)
    with running(IndexServer()) as srv:
        srv.add(dists["dev2"])
        srv.add(here)
        isolated_pip(monkeypatch, index_url=srv.simple)
        with open_index() as index:
            res = index.resolve(Requirement("demo-nightly==1.1.dev20260902"))
            assert (res.filename, res.foreign) == (here.name, False)


@pytest.mark.parametrize("spelling", [["-t", "demo-nightly==nightly"], ["--pre", "-t", "demo-nightly<1.1rc1"]])
def test_check_reads_the_macos_only_nightly_and_says_which_file(spelling, dists, consumer, tmp_path) -> None:
    with running(IndexServer()) as main, running(IndexServer(api="json")) as nightly:
        main.add(dists["final"])
        nightly.add(dists["dev1"])
        nightly.add(dists["dev2"])
        env = {"PIP_INDEX_URL": main.simple, "PIP_EXTRA_INDEX_URL": nightly.simple}
        proc = _drift("check", str(consumer), *spelling, "-b", "demo-nightly==1.0", "--package", "demo",
                      "--consumer-package", "uses_demo", "--format", "json", env_extra=env, tmp_path=tmp_path)
        served = [s.path for s in nightly.log if s.path.endswith(".whl")]
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["target"]["version"] == "1.1.dev20260902"
    assert report["target"]["spec"] == "demo-nightly==1.1.dev20260902"
    assert len(report["findings"]) == 1, report["findings"]
    assert report["findings"][0]["severity"] == "breaking"
    assert report["findings"][0]["consumer_site"]["path"] == "uses_demo/__init__.py"
    # said under the header in every format, -v or not
    assert any(dists["dev2"].name in n and "macosx_14_0_arm64" in n for n in report["caveats"]), report["caveats"]
    assert served and all(dists["dev2"].name in p for p in served)


def test_a_pinned_nightly_that_does_not_exist_names_the_ones_that_do(dists, consumer, tmp_path) -> None:
    with running(IndexServer()) as nightly:
        nightly.add(dists["dev1"])
        proc = _drift("check", str(consumer), "-t", "demo-nightly==1.1.dev20990101", "--package", "demo",
                      "--consumer-package", "uses_demo", env_extra={"PIP_INDEX_URL": nightly.simple},
                      tmp_path=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "1.1.dev20260901" in proc.stderr  # the foreign release is listed, not "installs on no platform"
