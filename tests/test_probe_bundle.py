"""The stdin bundle: run for real with `python3 -` and compare with the in-process probe."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from drift.probes.bundle import MAGIC, build_script, decode_output
from drift.probes.main import run

SYNTH = Path(__file__).parent / "synth"


def _run_bundle(script: bytes, pythonpath: Path, *, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, "-"], input=script, capture_output=True, env=env, cwd=cwd,
                          timeout=120, check=False)


@pytest.fixture
def site(tmp_path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(SYNTH / "v2", root)
    return root


def test_bundle_output_equals_in_process_run(site, tmp_path, monkeypatch):
    request = {"packages": ["widgetlib", "not_here_pkg"], "env_packages": ["widgetlib"],
               "cache_dir": str(tmp_path / "remote-cache")}
    script = build_script(request)
    assert script.startswith(b"# drift probe bundle")
    res = _run_bundle(script, site, cwd=tmp_path)
    assert res.returncode == 0, res.stderr.decode()
    assert res.stdout.startswith(MAGIC)
    remote = decode_output(res.stdout)
    assert "error" not in remote, remote

    monkeypatch.syspath_prepend(str(site))
    local = run(dict(request, cache_dir=None))
    assert remote["schema"] == local["schema"] == 1
    assert remote["packages"] == local["packages"]
    assert remote["missing"] == local["missing"] == ["not_here_pkg"]
    assert remote["env"]["packages"] == local["env"]["packages"]
    assert remote["env"]["python"] == local["env"]["python"]
    assert remote["probe"]["parsed"] == 7 and remote["probe"]["cache_dir"] == str(tmp_path / "remote-cache")

    again = decode_output(_run_bundle(script, site, cwd=tmp_path).stdout)
    assert again["probe"]["parsed"] == 0 and again["packages"] == remote["packages"]


def test_the_probes_compiled_code_is_kept_in_its_cache_dir_and_read_back(site, tmp_path):
    """A probe process compiles the embedded modules it imports (~0.1 s); the next one on the
    host (a follow-up, a warm scan, a scan after an upgrade) reads them back from `code/` of
    the cache dir, keyed by source hash and interpreter, with the same facts. A file that does
    not read is compiled over; without a cache dir nothing is written."""
    cache = tmp_path / "remote-cache"
    script = build_script({"packages": ["widgetlib"], "env_packages": [], "cache_dir": str(cache)})
    first = decode_output(_run_bundle(script, site, cwd=tmp_path).stdout)
    assert first["probe"]["code"]["cached"] == 0 and first["probe"]["code"]["compiled"] >= 5
    files = sorted((cache / "code").iterdir())
    assert len(files) == first["probe"]["code"]["compiled"]
    assert all(sys.implementation.cache_tag in f.name for f in files)
    again = decode_output(_run_bundle(script, site, cwd=tmp_path).stdout)
    assert again["probe"]["code"] == {"compiled": 0, "cached": first["probe"]["code"]["compiled"]}
    assert again["packages"] == first["packages"]
    files[0].write_bytes(b"not marshal")
    third = decode_output(_run_bundle(script, site, cwd=tmp_path).stdout)
    assert third["probe"]["code"]["compiled"] == 1 and third["packages"] == first["packages"]
    none = tmp_path / "none"
    none.mkdir()
    off = decode_output(_run_bundle(build_script({"packages": ["widgetlib"], "cache_dir": None}), site,
                                    cwd=none).stdout)
    assert off["probe"]["code"]["cached"] == 0 and off["packages"]["widgetlib"]["digest"] == first["packages"]["widgetlib"]["digest"]
    assert not list(none.iterdir())


def test_bundle_parallel_parse_from_stdin_uses_fork(tmp_path):
    """Enough files to take the worker pool path while __main__ is `<stdin>`."""
    site = tmp_path / "site"
    pkg = site / "manymods"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for i in range(40):
        (pkg / ("m%02d.py" % i)).write_text("def f%d(a, b=%d):\n    return a + b\n" % (i, i))
    res = _run_bundle(build_script({"packages": ["manymods"], "cache_dir": None}), site, cwd=tmp_path)
    assert res.returncode == 0, res.stderr.decode()
    doc = decode_output(res.stdout)
    mods = doc["packages"]["manymods"]["modules"]
    assert len(mods) == 41 and mods["manymods.m07"]["functions"]["f7"]["params"][1]["default"] == "7"
    assert doc["probe"]["parsed"] == 41


def test_bundle_reports_known_digest_unchanged(site, tmp_path):
    first = decode_output(_run_bundle(build_script({"packages": ["widgetlib"], "cache_dir": None}), site,
                                      cwd=tmp_path).stdout)
    digest = first["packages"]["widgetlib"]["digest"]
    req = {"packages": ["widgetlib"], "cache_dir": None, "known": {"widgetlib": digest}}
    doc = decode_output(_run_bundle(build_script(req), site, cwd=tmp_path).stdout)
    assert doc["packages"]["widgetlib"] == {"unchanged": True, "digest": digest}


def test_bundle_bad_request_comes_back_as_error(tmp_path):
    doc = decode_output(_run_bundle(build_script({"packages": "oops"}), tmp_path, cwd=tmp_path).stdout)
    assert doc["error"].startswith("bad request: ")


def test_decode_output_skips_shell_noise():
    payload = MAGIC + zlib.compress(json.dumps({"schema": 1}).encode())
    assert decode_output(b"Welcome to gpu-01\n" + payload) == {"schema": 1}


@pytest.mark.parametrize("garbage, fragment", [
    (b"", "no 'DRIFT1' marker"),
    (b"bash: python3: command not found\n", "no 'DRIFT1' marker"),
    (MAGIC + b"not zlib at all", "truncated or corrupt"),
    (MAGIC + zlib.compress(b"{not json"), "not JSON"),
    (MAGIC + zlib.compress(b"[1, 2]"), "not an object"),
    (MAGIC + zlib.compress(json.dumps({"schema": 1}).encode())[:-4], "truncated or corrupt"),
])
def test_decode_output_garbage_is_a_clear_value_error(garbage, fragment):
    with pytest.raises(ValueError, match=fragment):
        decode_output(garbage)


def test_script_is_self_contained_and_stdlib_only():
    script = build_script({"packages": ["x"]}).decode()
    compile(script, "<bundle>", "exec")
    assert "from drift" not in script and "import drift" not in script
    assert "json.loads(" in script


def _interpreters() -> list[str]:
    """Other Pythons 3.9+ on this machine (PATH or pyenv), one per minor version."""
    found: dict[str, str] = {}
    candidates = [shutil.which("python3.%d" % minor) for minor in (9, 10, 12, 13)]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3")))
    for exe in candidates:
        if not exe:
            continue
        res = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, check=False, text=True)
        minor = res.stdout.strip()
        if res.returncode == 0 and minor and tuple(map(int, minor.split("."))) >= (3, 9) \
                and minor != "%d.%d" % sys.version_info[:2]:
            found.setdefault(minor, exe)
    return [found[k] for k in sorted(found)]


@pytest.mark.parametrize("exe", _interpreters() or [pytest.param(None, marks=pytest.mark.skip(
    reason="no other python3.x (3.9+) on PATH"))])
def test_bundle_runs_on_other_pythons_with_same_facts(exe, site, tmp_path, monkeypatch):
    script = build_script({"packages": ["widgetlib"], "cache_dir": None})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    res = subprocess.run([exe, "-"], input=script, capture_output=True, env=env, cwd=tmp_path, timeout=120,
                         check=False)
    assert res.returncode == 0, res.stderr.decode()
    remote = decode_output(res.stdout)
    monkeypatch.syspath_prepend(str(site))
    assert remote["packages"] == run({"packages": ["widgetlib"], "cache_dir": None})["packages"]


def test_probes_import_only_the_stdlib():
    import ast as _ast

    probes_dir = Path(__file__).resolve().parent.parent / "probes"
    for path in sorted(probes_dir.glob("*.py")):
        for node in _ast.walk(_ast.parse(path.read_bytes())):
            if isinstance(node, _ast.Import):
                tops = [a.name.partition(".")[0] for a in node.names]
            elif isinstance(node, _ast.ImportFrom) and not node.level:
                tops = [(node.module or "").partition(".")[0]]
            else:
                continue
            for top in tops:
                assert top in sys.stdlib_module_names, f"{path.name} imports non-stdlib {top!r}"


@pytest.mark.parametrize("exe", [sys.executable] + _interpreters())
def test_a_family_asked_as_outlines_gets_the_outlines_drift_reads_on_every_python(exe, site, tmp_path, monkeypatch):
    """A `more` asking outlines (drift/pipeline/scan.py asks DRIFT040's family so): the probe under each
    Python (3.9 up) sends what drift.model.outline reads from the same files, and parses only what
    an outline cannot say."""
    from drift.model import outline as drift_outline

    monkeypatch.syspath_prepend(str(site))
    whole = run({"packages": ["widgetlib"], "cache_dir": None})["packages"]["widgetlib"]["modules"]
    ask = {"packages": ["widgetlib"], "env_packages": [], "cache_dir": None, "known": {},
           "more": {"modules": [], "needles": [], "have": [], "outlines": sorted(whole)}}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    res = subprocess.run([exe, "-"], input=build_script(ask), capture_output=True, env=env, cwd=tmp_path,
                         timeout=120, check=False)
    assert res.returncode == 0, res.stderr.decode()
    ans = decode_output(res.stdout)["more"]["widgetlib"]
    assert ans["outlines"], ans
    assert sorted([*ans["outlines"], *ans["modules"]]) == sorted(whole)
    for name, rec in ans["outlines"].items():
        path = site / whole[name]["path"]
        want = drift_outline.outline(path.read_bytes(), module=name, path=whole[name]["path"])
        assert {k: rec[k] for k in ("classes", "functions", "imports")} == want, name
        assert (rec["path"], rec["sha256"]) == (whole[name]["path"], whole[name]["sha256"])
        for cname, cls in rec["classes"].items():  # the outline's classes are the parse's, on those keys
            assert sorted(cls["methods"]) == sorted(whole[name]["classes"][cname]["methods"])
            assert cls["bases"] == whole[name]["classes"][cname]["bases"]
    for name, mod in ans["modules"].items():
        assert mod == whole[name]
