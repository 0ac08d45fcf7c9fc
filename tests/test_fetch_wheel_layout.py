"""Wheels that ship their package under `<dist>.data/purelib/` (openrlhf does) are read where pip
installs them: at the root, beside the .dist-info. Scripts and data are never code to check."""

from __future__ import annotations

import zipfile

from drift.consumer.load import load_consumer
from drift.sources.wheels import extract_wheel


def _wheel(tmp_path):
    wheel = tmp_path / "rlpkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("rlpkg-1.0.data/purelib/rlpkg/__init__.py", "")
        zf.writestr("rlpkg-1.0.data/purelib/rlpkg/engine.py",
                    "import vllm\n\ndef check():\n    assert vllm.__version__ > '0.8.2'\n")
        zf.writestr("rlpkg-1.0.data/scripts/run.py", "print('not a module')\n")
        zf.writestr("rlpkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: rlpkg\nVersion: 1.0\n"
                                                     "Requires-Dist: vllm==0.9.2\n")
        zf.writestr("rlpkg-1.0.dist-info/top_level.txt", "rlpkg\n")
    return wheel


def test_purelib_members_land_at_the_root(tmp_path):
    root = extract_wheel(_wheel(tmp_path), tmp_path / "out")
    assert (root / "rlpkg" / "engine.py").is_file()
    assert not any(p.name == "run.py" for p in root.rglob("*.py"))
    assert not (root / "rlpkg-1.0.data").exists()


def test_a_purelib_consumer_is_read(tmp_path):
    consumer = load_consumer(str(_wheel(tmp_path)), target_package="vllm")
    assert consumer.packages == ["rlpkg"]
    engine = [m for m in consumer.usage if m["path"] == "rlpkg/engine.py"]
    assert engine and engine[0]["version_compares"][0]["version"] == "0.8.2"


def test_members_naming_a_place_outside_the_release_are_never_written(tmp_path):
    """A wheel is untrusted input: a member named with `..` or from the root is skipped, the
    rest extracted."""
    wheel = tmp_path / "evil-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("evil/__init__.py", "")
        zf.writestr("../escaped.py", "x = 1\n")
        zf.writestr("evil/../../escaped2.py", "x = 2\n")
        zf.writestr("evil//..//..//escaped3.py", "x = 3\n")
        zf.writestr("/abs_escaped.py", "x = 4\n")
        zf.writestr("evil/ok..py", "x = 5\n")  # dots in a name are a name
        zf.writestr("evil-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n")
    out = tmp_path / "deep" / "out"
    root = extract_wheel(wheel, out)
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*.py")) == ["evil/__init__.py", "evil/ok..py"]
    assert not any(tmp_path.rglob("escaped*.py")) and not any(tmp_path.rglob("abs_escaped.py"))
