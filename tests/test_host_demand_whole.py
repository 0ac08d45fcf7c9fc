"""The demand-driven host probe goes back whole when the consumer reaches most of the target
(probes.closure.WHOLE_SHARE): parsing that much in rounds, then what the check still lacks in
a follow-up, is slower than parsing it all at once, so the host parses the rest in the same
batch and sends the whole-package probe's package, which drift checks in one run."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from drift.probes import closure
from drift.probes.main import run


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture()
def site(tmp_path, monkeypatch):
    """tgt: a package of ten modules; app: a consumer of some of them (`app.uses`)."""
    files = {"tgt/__init__.py": "", "tgt-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tgt\nVersion: 1.0\n"}
    for i in range(9):
        files[f"tgt/m{i}.py"] = f"class C{i}:\n    def run(self, x):\n        return x\n"
    files["app/__init__.py"] = ""
    _write(tmp_path, files)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _probe(site: Path, modules: list[int]) -> dict:
    _write(site, {"app/uses.py": "".join(f"from tgt.m{i} import C{i}\n" for i in modules)})
    doc = run({"packages": ["tgt"], "env_packages": [], "cache_dir": None, "known": {},
               "usage": {"packages": ["app"], "prefixes": ["tgt"]}, "demand": {"words": []}})
    assert "error" not in doc, doc
    return doc["packages"]["tgt"]


def test_a_consumer_of_a_few_modules_gets_the_demand_package(site):
    pkg = _probe(site, [0, 1])
    assert "demand" in pkg
    assert set(pkg["modules"]) == {"tgt", "tgt.m0", "tgt.m1"}
    assert len(pkg["demand"]["shape"]) == 7


def test_a_consumer_of_most_modules_gets_the_whole_package(site):
    reached = list(range(int(closure.WHOLE_SHARE * 10) + 1))  # with tgt/__init__: past the share
    pkg = _probe(site, reached)
    assert "demand" not in pkg
    assert set(pkg["modules"]) == {"tgt"} | {f"tgt.m{i}" for i in range(9)}
    whole = run({"packages": ["tgt"], "env_packages": [], "cache_dir": None, "known": {}})["packages"]["tgt"]
    assert pkg["digest"] == whole["digest"]
    assert pkg["modules"] == whole["modules"] and pkg["errors"] == whole["errors"]


def test_definitions_are_answered_on_the_host_as_the_whole_package_finds_them(tmp_path, monkeypatch):
    """`definitions_named` over a host's package reads the modules the host's `defines` answer
    names: only those that define the name (a class, a function, an assigned name; not an
    attribute, a parameter or a call of the same word), and the answer is the whole package's."""
    from drift.model.index import PackageIndex, defines

    files = {"tgt/__init__.py": "", "tgt/core.py": "def helper():\n    return 1\n",
             "tgt-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tgt\nVersion: 1.0\n",
             "app/__init__.py": "", "app/uses.py": "from tgt.core import gone\n"}
    for i in range(closure.PARSE_HITS + 5):  # the word everywhere, defined nowhere (attributes, parameters):
        files[f"tgt/w{i}.py"] = f"class K{i}:\n    def __init__(self, layers):\n        self.layers = layers\n"
    for i in range(150):  # the rest of the package, which the consumer never reaches
        files[f"tgt/other{i}.py"] = "X = 1\n"
    files["tgt/new.py"] = "class gone:\n    pass\n"
    files["tgt/alias.py"] = "from tgt.new import gone as _g\ngone = _g\n"
    files["tgt/both.py"] = "if True:\n    def gone():\n        pass\nelse:\n    gone = None\n"
    _write(tmp_path, files)
    monkeypatch.syspath_prepend(str(tmp_path))
    doc = run({"packages": ["tgt"], "env_packages": [], "cache_dir": None, "known": {},
               "usage": {"packages": ["app"], "prefixes": ["tgt"]}, "demand": {"words": ["layers"]}})
    pkg = doc["packages"]["tgt"]
    answers = pkg["demand"]["answers"]
    assert answers[defines("gone").pattern.pattern.decode()] == ["tgt.alias", "tgt.both", "tgt.new"]
    assert answers[defines("layers").pattern.pattern.decode()] == []
    assert {"tgt.alias", "tgt.both", "tgt.new"} <= set(pkg["modules"])  # what drift reads next
    assert not {f"tgt.w{i}" for i in range(closure.PARSE_HITS + 5)} & set(pkg["modules"])  # never sent
    whole = run({"packages": ["tgt"], "env_packages": [], "cache_dir": None, "known": {}})["packages"]["tgt"]
    assert PackageIndex.of_package("tgt", whole).definitions_named("gone") == [
        "tgt.alias.gone", "tgt.both.gone", "tgt.both.gone", "tgt.new.gone"]


def test_the_whole_decision_comes_before_the_searches_it_makes_moot(tmp_path, monkeypatch):
    """Search hits past the share decide the whole package at once: the remaining needles are
    not answered, the `defines` needles' outlines not read, and no answers go with it (a whole
    package carries none). vllm-omni: ~1.2 s of the host's probe went to answers then dropped."""
    files = {"tgt/__init__.py": "", "tgt-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tgt\nVersion: 1.0\n",
             "app/__init__.py": "",
             # the consumer reaches one module and overrides `run`, which every other module defines
             "app/uses.py": "from tgt.m0 import C0\nfrom tgt.m1 import gone\n\nclass Mine(C0):\n    def run(self, x):\n        return x\n"}
    for i in range(12):
        files[f"tgt/m{i}.py"] = f"class C{i}:\n    def run(self, x):\n        return x\n"
    _write(tmp_path, files)
    monkeypatch.syspath_prepend(str(tmp_path))
    answered, needs = [], []
    real_answer = closure.answer
    monkeypatch.setattr(closure, "answer", lambda needle, *a, **k: answered.append(needle) or real_answer(needle, *a, **k))
    from drift.probes import hostdemand

    real_needs = hostdemand._Tree.needs
    monkeypatch.setattr(hostdemand._Tree, "needs", lambda self, *a: needs.append(a) or real_needs(self, *a))
    doc = run({"packages": ["tgt"], "env_packages": [], "cache_dir": None, "known": {},
               "usage": {"packages": ["app"], "prefixes": ["tgt"]}, "demand": {"words": ["gone", "other"]}})
    pkg = doc["packages"]["tgt"]
    assert "demand" not in pkg and len(pkg["modules"]) == 13  # whole
    _dotted, names = closure.usage_names(doc["usage"]["app"]["modules"], ["tgt"])
    asked = closure.needles_for(names, ["gone", "other", "m1"])  # with the parts of `tgt.m1.gone`, unresolved
    assert 0 < len(answered) < len(asked) and needs == []
