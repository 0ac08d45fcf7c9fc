"""Package collection: hostile trees, the facts cache, and one set of facts for every layout."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest

from drift.probes import cache as probe_cache
from drift.probes.collect import collect_package
from drift.probes.main import collect_tree, run

SYNTH = Path(__file__).parent / "synth"
N_MODULES = 7  # widgetlib v1: __init__, compat, core, models, runner, sub/__init__, sub/helpers


@pytest.fixture
def v1(tmp_path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(SYNTH / "v1", root)
    return root


def test_collect_package_object(v1):
    stats: dict = {}
    pkg = collect_package(v1, "widgetlib", cache_dir=None, stats=stats)
    assert pkg["name"] == "widgetlib" and pkg["dist"] == "widgetlib" and pkg["version"] == "1.0"
    assert pkg["requires"] == ["numpy>=1.20", 'typing-extensions; python_version < "3.10"']
    assert pkg["root"] == str(v1) and pkg["errors"] == []
    assert sorted(pkg["modules"]) == ["widgetlib", "widgetlib.compat", "widgetlib.core", "widgetlib.models",
                                      "widgetlib.runner", "widgetlib.sub", "widgetlib.sub.helpers"]
    assert pkg["modules"]["widgetlib.sub.helpers"]["path"] == "widgetlib/sub/helpers.py"
    assert len(pkg["digest"]) == 64
    assert stats == {"parsed": N_MODULES, "cached": 0}


def test_hostile_tree_is_recorded_and_scan_goes_on(v1):
    pkg_dir = v1 / "widgetlib"
    (pkg_dir / "bad_syntax.py").write_text("def f(:\n")
    (pkg_dir / "binary.py").write_bytes(bytes(range(256)) * 4)
    (pkg_dir / "huge.py").write_text("X = 1\n" * 5000)  # 30 kB, over the 20 kB limit below
    os.symlink("..", pkg_dir / "sub" / "loop")  # sub/loop -> widgetlib: a directory cycle
    os.symlink("/nonexistent/drift-test.py", pkg_dir / "gone.py")
    os.symlink("/nonexistent/drift-dir", pkg_dir / "ghost")
    os.mkfifo(pkg_dir / "fifo.py")  # would block a naive open(); root cannot be denied by chmod
    clean = collect_package(SYNTH / "v1", "widgetlib", cache_dir=None)
    pkg = collect_package(v1, "widgetlib", cache_dir=None, max_file_bytes=20_000)
    errors = {e["path"]: e["error"] for e in pkg["errors"]}
    assert errors["widgetlib/bad_syntax.py"].startswith("SyntaxError: ")
    assert errors["widgetlib/binary.py"].startswith(("UnicodeDecodeError: ", "ValueError: "))
    assert errors["widgetlib/huge.py"] == "too large: 30000 bytes"
    assert errors["widgetlib/gone.py"].startswith("unreadable: FileNotFoundError")
    assert errors["widgetlib/fifo.py"] == "unreadable: not a regular file"
    assert errors["widgetlib/ghost"] == "unreadable: dangling symlink"
    assert errors["widgetlib/sub/loop"].startswith("symlink loop")
    mods = pkg["modules"]
    assert mods["widgetlib.huge"]["error"] == "too large: 30000 bytes" and mods["widgetlib.huge"]["sha256"] is None
    assert mods["widgetlib.bad_syntax"]["sha256"] is not None
    for name, facts in clean["modules"].items():  # every good module is still there, unchanged
        assert mods[name] == facts


@pytest.mark.skipif(os.geteuid() != 0, reason="checks the documented root behaviour of chmod 000")
def test_chmod_000_as_root_is_still_read(v1):
    """Root ignores file modes, so a 000 file is parsed; unreadable cases are covered by FIFO/links."""
    target = v1 / "widgetlib" / "core.py"
    target.chmod(0)
    pkg = collect_package(v1, "widgetlib", cache_dir=None)
    assert pkg["modules"]["widgetlib.core"]["error"] is None


def test_cache_second_run_parses_nothing(v1, tmp_path):
    cache_dir = tmp_path / "cache"
    first = collect_tree(v1, ["widgetlib"], cache_dir=str(cache_dir))
    assert first["probe"]["parsed"] == N_MODULES and first["probe"]["cached"] == 0
    assert first["probe"]["cache_dir"] == str(cache_dir)
    second = collect_tree(v1, ["widgetlib"], cache_dir=str(cache_dir))
    assert second["probe"]["parsed"] == 0 and second["probe"]["cached"] == N_MODULES
    assert second["packages"] == first["packages"]

    os.utime(v1 / "widgetlib" / "core.py", ns=(1, 1))  # new mtime, same bytes: sha says unchanged
    third = collect_tree(v1, ["widgetlib"], cache_dir=str(cache_dir))
    assert third["probe"]["parsed"] == 0 and third["packages"] == first["packages"]

    runner = v1 / "widgetlib" / "runner.py"
    runner.write_text(runner.read_text() + "\n\ndef added():\n    return 1\n")
    fourth = collect_tree(v1, ["widgetlib"], cache_dir=str(cache_dir))
    assert fourth["probe"]["parsed"] == 1 and fourth["probe"]["cached"] == N_MODULES - 1
    assert "added" in fourth["packages"]["widgetlib"]["modules"]["widgetlib.runner"]["functions"]
    assert fourth["packages"]["widgetlib"]["digest"] != first["packages"]["widgetlib"]["digest"]


def test_corrupt_cache_is_a_miss(v1, tmp_path):
    cache_dir = tmp_path / "cache"
    first = collect_tree(v1, ["widgetlib"], cache_dir=str(cache_dir))
    files = list(cache_dir.iterdir())
    assert files
    for f in files:
        f.write_bytes(b"\x00garbage" * 10)
    again = collect_tree(v1, ["widgetlib"], cache_dir=str(cache_dir))
    assert again["probe"]["parsed"] == N_MODULES and again["packages"] == first["packages"]
    for f in cache_dir.iterdir():  # truncated marshal
        f.write_bytes(f.read_bytes()[:50])
    assert collect_tree(v1, ["widgetlib"], cache_dir=str(cache_dir))["packages"] == first["packages"]


def test_no_cache_dir_writes_nothing(v1, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    doc = collect_tree(v1, ["widgetlib"], cache_dir=None)
    assert doc["probe"]["cache_dir"] is None
    assert not (tmp_path / "home").exists()
    assert probe_cache.resolve_dir("~/x") == str(tmp_path / "home" / "x")


def test_parallel_and_serial_give_the_same_facts(v1):
    serial = collect_package(v1, "widgetlib", cache_dir=None, workers=1)
    parallel = collect_package(v1, "widgetlib", cache_dir=None, workers=2)
    assert parallel == serial
    assert list(parallel["modules"]) == sorted(parallel["modules"])


def test_wheel_source_tree_and_install_give_identical_facts(tmp_path, monkeypatch):
    wheel = tmp_path / "widgetlib-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for p in sorted((SYNTH / "v1").rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(SYNTH / "v1").as_posix())
    extracted = tmp_path / "wheel"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(extracted)
    checkout = tmp_path / "checkout" / "src"
    shutil.copytree(SYNTH / "v1" / "widgetlib", checkout / "widgetlib")
    site = tmp_path / "site-packages"
    shutil.copytree(SYNTH / "v1", site)
    monkeypatch.syspath_prepend(str(site))

    from_wheel = collect_tree(extracted, ["widgetlib"])["packages"]["widgetlib"]
    from_checkout = collect_tree(checkout, ["widgetlib"])["packages"]["widgetlib"]
    installed = run({"packages": ["widgetlib"], "env_packages": ["widgetlib"], "cache_dir": None})
    from_install = installed["packages"]["widgetlib"]
    assert from_wheel["modules"] == from_checkout["modules"] == from_install["modules"]
    assert from_wheel["digest"] == from_checkout["digest"] == from_install["digest"]
    assert from_checkout["version"] is None  # a checkout has no dist-info
    assert from_install["version"] == "1.0" and installed["env"]["packages"]["widgetlib"]["version"] == "1.0"
    assert installed["env"]["python"] and installed["env"]["platform"]


def test_run_known_digest_and_missing(v1, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(v1))
    cache_dir = str(tmp_path / "cache")
    first = run({"packages": ["widgetlib", "surely_not_installed_pkg"], "cache_dir": cache_dir})
    assert first["schema"] == 1 and first["missing"] == ["surely_not_installed_pkg"]
    digest = first["packages"]["widgetlib"]["digest"]
    again = run({"packages": ["widgetlib"], "cache_dir": cache_dir, "known": {"widgetlib": digest}})
    assert again["packages"]["widgetlib"] == {"unchanged": True, "digest": digest}
    assert again["probe"]["parsed"] == 0
    no_cache = run({"packages": ["widgetlib"], "cache_dir": None, "known": {"widgetlib": digest}})
    assert no_cache["packages"]["widgetlib"] == {"unchanged": True, "digest": digest}
    stale = run({"packages": ["widgetlib"], "cache_dir": cache_dir, "known": {"widgetlib": "0" * 64}})
    assert stale["packages"]["widgetlib"]["digest"] == digest and "modules" in stale["packages"]["widgetlib"]


@pytest.mark.parametrize("request_, fragment", [
    ([], "JSON object"),
    ({"packages": "vllm"}, "'packages'"),
    ({"packages": ["vllm-cli"]}, "top-level import names"),
    ({"known": {"vllm": 3}}, "'known'"),
    ({"max_file_bytes": -1}, "max_file_bytes"),
    ({"cache_dir": 5}, "cache_dir"),
])
def test_bad_request_is_a_document_with_error(request_, fragment):
    doc = run(request_)
    assert doc["schema"] == 1 and doc["error"].startswith("bad request: ") and fragment in doc["error"]


def test_collect_tree_missing_and_single_module(tmp_path):
    (tmp_path / "solo.py").write_text("def hello(name, *, loud=False):\n    return name\n")
    doc = collect_tree(tmp_path, ["solo", "absent"])
    assert doc["missing"] == ["absent"]
    mods = doc["packages"]["solo"]["modules"]
    assert list(mods) == ["solo"] and mods["solo"]["path"] == "solo.py"
    assert doc["env"]["python"] is None


def test_warm_snapshot_reads_no_source_but_sees_an_edit_that_kept_size_and_mtime(v1, tmp_path):
    """An untouched tree is served from the index without opening a file; a file rewritten
    with its old size and mtime (`cp -p`, `touch -r`, a checkout restored with its times) is
    hashed and parsed again, because its ctime changed (the index keys on it, as git's does)."""
    cache_dir = str(tmp_path / "cache")
    first = collect_tree(v1, ["widgetlib"], cache_dir=cache_dir)
    assert collect_tree(v1, ["widgetlib"], cache_dir=cache_dir)["probe"]["parsed"] == 0
    core = v1 / "widgetlib" / "core.py"
    st = core.stat()
    data = core.read_bytes()
    edited = data.replace(b"DEFAULT_SIZE = 16", b"DEFAULT_SIZE = 99")
    assert len(edited) == len(data)
    core.write_bytes(edited)
    os.utime(core, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert core.stat().st_size == st.st_size and core.stat().st_mtime_ns == st.st_mtime_ns
    warm = collect_tree(v1, ["widgetlib"], cache_dir=cache_dir)
    assert warm["probe"]["parsed"] == 1
    assert warm["packages"]["widgetlib"]["modules"]["widgetlib.core"]["names"]["DEFAULT_SIZE"]["value"] == "99"
    assert warm["packages"]["widgetlib"]["digest"] != first["packages"]["widgetlib"]["digest"]
    assert collect_tree(v1, ["widgetlib"], cache_dir=cache_dir)["probe"]["parsed"] == 0


def test_consumer_usage_cache_reuses_unchanged_files(tmp_path, monkeypatch):
    """A second probe of an unchanged consumer opens none of its files; a file edited with its
    size and mtime kept (`cp -p`, `touch -r`, a restored tarball) is read again, as any edit is:
    the cache is keyed by each file's content (probes/consumer_scan.py `_consumer_usage`)."""
    from drift.probes import consumer_scan
    from drift.probes.consumer_scan import consumer_usage

    monkeypatch.setattr(consumer_scan, "RACY_NS", 0)  # the files were written just now: trust their stamps at once
    root = tmp_path / "site"
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "a.py").write_text("from lib.core import f\n\ndef g():\n    return f(x=1)\n")
    cache = tmp_path / "cache"
    first = consumer_usage(str(root), "app", ["lib"], use_importlib=False, cache_dir=str(cache))
    assert [c["keywords"] for m in first["modules"] for c in m["calls"]] == [["x"]]
    assert list(cache.glob("usage-*.marshal"))
    opened = _opens_under(root / "app")  # the package's files (its metadata is read every time)
    second = consumer_usage(str(root), "app", ["lib"], use_importlib=False, cache_dir=str(cache))
    assert [c["keywords"] for m in second["modules"] for c in m["calls"]] == [["x"]]
    assert opened() == []  # served from the cache without reading a file
    st = (root / "app" / "a.py").stat()
    (root / "app" / "a.py").write_text("from lib.core import f\n\ndef g():\n    return f(y=1)\n")
    os.utime(root / "app" / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    third = consumer_usage(str(root), "app", ["lib"], use_importlib=False, cache_dir=str(cache))
    assert [c["keywords"] for m in third["modules"] for c in m["calls"]] == [["y"]]
    assert set(opened()) == {str(root / "app" / "a.py")}  # the edited file alone
    (root / "app" / "a.py").write_text("from lib.core import f\n\ndef g():\n    return f(zz=1)\n")
    fourth = consumer_usage(str(root), "app", ["lib"], use_importlib=False, cache_dir=str(cache))
    assert [c["keywords"] for m in fourth["modules"] for c in m["calls"]] == [["zz"]]
    # the digest of what the records were read from: the same content, the same key
    assert first["content_key"] == second["content_key"] != third["content_key"] != fourth["content_key"]
    (root / "app" / "a.py").write_text("from lib.core import f\n\ndef g():\n    return f(x=1)\n")
    back = consumer_usage(str(root), "app", ["lib"], use_importlib=False, cache_dir=str(cache))
    assert back["content_key"] == first["content_key"]


def _opens_under(root):
    """The paths under `root` that `open()` was called on since the last call (a real audit hook:
    CPython raises the `open` event for every file opened from Python code)."""
    import sys

    seen = []
    prefix = str(root) + os.sep

    def hook(event, args):
        if event == "open" and isinstance(args[0], str) and args[0].startswith(prefix):
            seen.append(args[0])

    sys.addaudithook(hook)  # an audit hook cannot be removed; it only records paths under this test's tmp dir

    def since():
        out = list(seen)
        seen.clear()
        return out

    return since
