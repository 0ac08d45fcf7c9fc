"""Demand-driven facts (drift/model/demand.py): a check parses only the target modules it reads, and
its report is the report of whole-package facts.

The synthetic cases count parses on a real tree written here; the needle cases check that the
text prefilter matches wherever the probe records the fact it stands for (soundness: a module
the prefilter skips can never hold an answer). The whole-package comparison runs the checks
themselves, both ways.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from drift.pipeline.run import check
from drift.consumer.load import load_consumer
from drift.model.demand import ModuleCache, package_facts
from drift.model.index import PackageIndex, call_of, def_of, word
from drift.probes.ast_facts import module_facts
from drift.probes.main import collect_tree


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _doc(pkg: dict) -> dict:
    return {"schema": 1, "env": {}, "packages": {"tgt": pkg}, "missing": []}


def _findings(outcome) -> set:
    assert outcome.report is not None, outcome.error
    return {(f.rule_id, f.consumer_site.path, f.consumer_site.line, f.title) for f in outcome.report.findings}


def _target(version: str, engine_body: str, filler: int) -> dict[str, str]:
    files = {
        "tgt/__init__.py": "from tgt.engine import Engine\n",
        "tgt/engine.py": f"""
            class Engine:
{textwrap.indent(textwrap.dedent(engine_body), ' ' * 16)}
            """,
        "tgt-%s.dist-info/METADATA" % version: f"Metadata-Version: 2.1\nName: tgt\nVersion: {version}\n",
    }
    for i in range(filler):  # the rest of a big package: nothing the consumer reaches
        files[f"tgt/models/m{i:03d}.py"] = f"""
            from tgt.engine import Engine

            class Model{i}(Engine):
                def forward_{i}(self, x, *, scale=1.0):
                    return self.step(x) * scale
            """
    return files


@pytest.fixture()
def isolated_cache(tmp_path, monkeypatch):
    """A fresh drift cache, so no facts or query answers from another run stand in."""
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _case(tmp_path: Path):
    base, tgt, cons = tmp_path / "base", tmp_path / "tgt", tmp_path / "cons"
    _write(base, _target("1.0", """
        def step(self, x, flag=False):
            return x
        """, 60))
    _write(tgt, _target("2.0", """
        def step(self, x, *, mode):
            return x
        """, 60))
    _write(cons, {"app/__init__.py": "", "app/run.py": """
        from tgt.engine import Engine

        def go(e: Engine):
            return e.step(1, True)
        """})
    return base, tgt, cons


def test_a_check_parses_a_fraction_of_the_target(tmp_path, isolated_cache):
    base, tgt, cons = _case(tmp_path)
    cache = ModuleCache(isolated_cache / "modules")
    consumer = load_consumer(str(cons), target_package="tgt")
    tpkg, bpkg = package_facts(str(tgt), "tgt", cache=cache), package_facts(str(base), "tgt", cache=cache)
    demand = check(consumer=consumer, target_facts=_doc(tpkg), baseline_facts=_doc(bpkg), target_package="tgt")
    parsed = tpkg["modules"].parsed + bpkg["modules"].parsed
    total = len(tpkg["modules"]) + len(bpkg["modules"])
    assert total == 124
    assert 0 < parsed <= total // 4, parsed  # the engine, the package, what the rules ask for

    whole_t, whole_b = collect_tree(str(tgt), ["tgt"]), collect_tree(str(base), ["tgt"])
    whole = check(consumer=consumer, target_facts=whole_t, baseline_facts=whole_b, target_package="tgt")
    assert _findings(demand) == _findings(whole)
    assert any(f[0] == "DRIFT010" or "step" in f[3] for f in _findings(demand)), _findings(demand)
    # the digest is the whole-package probe's, so stored whole facts and these are interchangeable
    assert tpkg["digest"] == whole_t["packages"]["tgt"]["digest"]
    assert bpkg["digest"] == whole_b["packages"]["tgt"]["digest"]


def test_modules_are_cached_by_content_across_trees(tmp_path, isolated_cache):
    base, tgt, _cons = _case(tmp_path)
    cache = ModuleCache(isolated_cache / "modules")
    first = package_facts(str(base), "tgt", cache=cache)["modules"]
    first.load(list(first))
    assert first.parsed == len(first) == 62
    again = package_facts(str(base), "tgt", cache=cache)["modules"]
    again.load(list(again))
    assert again.parsed == 0 and again.from_cache == 62
    # the other release shares every model file byte for byte: only what differs is parsed
    other = package_facts(str(tgt), "tgt", cache=cache)["modules"]
    other.load(list(other))
    assert other.parsed == 1  # tgt/engine.py (the __init__ is the same file in both)
    assert other["tgt.engine"]["classes"]["Engine"]["methods"]["step"]["params"][2]["kind"] == "KEYWORD_ONLY"


def test_a_changed_file_is_hashed_again_and_changes_the_digest(tmp_path, isolated_cache):
    base, _tgt, _cons = _case(tmp_path)
    cache = ModuleCache(isolated_cache / "modules")
    before = package_facts(str(base), "tgt", cache=cache)
    (base / "tgt/models/m007.py").write_text("X = 1\n")
    after = package_facts(str(base), "tgt", cache=cache)
    assert after["digest"] != before["digest"]
    assert after["digest"] == collect_tree(str(base), ["tgt"])["packages"]["tgt"]["digest"]
    assert after["modules"]["tgt.models.m007"]["names"]["X"]["line"] == 1


def test_a_file_rewritten_with_its_old_size_and_mtime_is_hashed_again(tmp_path, isolated_cache):
    """A vLLM tree restored with its old times (`cp -p`, `touch -r`, a tarball) must not keep
    the old digest: the index compares ctime, device and inode too, which no user call sets."""
    import os
    base, _tgt, _cons = _case(tmp_path)
    cache = ModuleCache(isolated_cache / "modules")
    before = package_facts(str(base), "tgt", cache=cache)
    path = base / "tgt/models/m007.py"
    st, data = path.stat(), path.read_bytes()
    edited = data.replace(b"Model7", b"Model8", 1)
    assert edited != data and len(edited) == len(data)
    path.write_bytes(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = package_facts(str(base), "tgt", cache=cache)
    assert after["digest"] != before["digest"]
    assert after["digest"] == collect_tree(str(base), ["tgt"])["packages"]["tgt"]["digest"]
    assert "Model8" in after["modules"]["tgt.models.m007"]["classes"]
    assert package_facts(str(base), "tgt", cache=cache)["digest"] == after["digest"]


def test_query_parses_only_modules_mentioning_the_name(tmp_path, isolated_cache):
    _base, tgt, _cons = _case(tmp_path)
    pkg = package_facts(str(tgt), "tgt", cache=None)
    index = PackageIndex(_doc(pkg))
    assert index.demand
    assert index.definitions_named("Model7") == ["tgt.models.m007.Model7"]
    assert pkg["modules"].parsed == 0 and pkg["modules"].outlined == 1  # the one mentioning it, as an outline
    assert index.modules_mentioning(call_of("forward_12")) == ["tgt.models.m012"]
    # every model calls self.step(...); `def step(` matches too: a prefilter may only over-match
    assert len(index.modules_mentioning(call_of("step"))) == 61
    whole = PackageIndex(collect_tree(str(tgt), ["tgt"]))
    assert not whole.demand and len(whole.modules_mentioning(call_of("step"))) == len(whole.modules)


# Sources where the fact sits far from its plain spelling: each needle must still match.
_TRICKY = '''
async def  spaced(a):
    return (a.run
            )(1)

def lined \\
        (x):
    y = [x.go  # a comment
         (2)]
    (x.stop)(3)
    Builder(
        size=1)
    assert x.block_hashes is not None
    ﬁnd = 1
'''


def test_needles_match_where_the_probe_records_facts():
    facts = module_facts(_TRICKY.encode(), module="m", path="m.py")
    fns = facts["functions"]
    assert set(fns) == {"spaced", "lined"}
    src = _TRICKY.encode()
    sites = set(fns["spaced"]["behaviour"]["call_sites"]) | set(fns["lined"]["behaviour"]["call_sites"])
    assert sites == {"run", "go", "stop"}
    for name in sites:
        assert call_of(name).search(src), name
    for name in fns:
        assert def_of(name).search(src), name
    ctor = fns["lined"]["behaviour"]["ctor_calls"][0]["callee"]
    assert call_of(ctor).search(src)
    assert word(fns["lined"]["behaviour"]["asserts"][0]["attr"]).search(src)
    assert not call_of("go2").search(src) and not def_of("line").search(src) and not word("block").search(src)


def test_needles_match_nfkc_identifiers(tmp_path):
    """`ﬁnd` is the identifier `find` to the parser: the search reads the normalised text."""
    _write(tmp_path, {"p/__init__.py": _TRICKY})
    pkg = package_facts(str(tmp_path), "p", cache=None)
    index = PackageIndex({"packages": {"p": pkg}})
    assert index.modules_mentioning(word("find")) == ["p"]
    assert index.modules_mentioning(word("nothing_here")) == []


# -- the real releases --------------------------------------------------------------------------

@pytest.mark.corpus
def test_needles_are_sound_on_a_real_vllm(corpus_src):
    """Every name the probe records in vLLM 0.16.0 (call sites, self calls, constructions,
    methods, definitions, assert attributes) is matched by its needle in that module's source."""
    root = corpus_src("vllm==0.16.0")
    pkg = package_facts(str(root), "vllm", cache=None)
    mods = pkg["modules"]
    text = mods._search_text()
    checked = 0
    for name in list(mods)[::7]:  # every 7th module: ~200 modules, all kinds of code
        mod, src = mods[name], text.get(name)
        if src is None:
            continue
        fns = list((mod.get("functions") or {}).values())
        stack = list((mod.get("classes") or {}).values())
        for cls in stack:
            for m in (cls.get("methods") or {}):
                assert def_of(m).search(src), (name, m)
        while stack:
            cls = stack.pop()
            fns += list((cls.get("methods") or {}).values())
            stack += list((cls.get("nested") or {}).values())
        for n in list(mod.get("names") or {}) + list(mod.get("classes") or {}) + list(mod.get("functions") or {}):
            assert word(n).search(src), (name, n)
        for fn in fns:
            b = fn.get("behaviour") or {}
            for n in b.get("call_sites") or {}:  # calls through aliases and partial(): the name is mentioned
                assert word(n).search(src), (name, n)
                checked += 1
            for n in b.get("self_calls") or {}:
                assert call_of(n).search(src), (name, n)
                checked += 1
            for c in b.get("ctor_calls") or []:
                assert call_of(c["callee"].rsplit(".", 1)[-1]).search(src), (name, c["callee"])
            for a in b.get("asserts") or []:
                assert word(a["attr"]).search(src), (name, a["attr"])
    assert checked > 1000


# The demand-vs-whole comparison runs two full checks per consumer, more than scoring it does: on
# every corpus consumer it was over half of CI's time (80 minutes in all, round 21). It is a
# property of the demand machinery (prefilters, query answers), not of any one consumer, so CI
# runs it on the consumers that ask the most kinds of question, one or two per kind of reach:
# platform plugins that patch and subclass much of vLLM, a multimodal model runner, connectors,
# RL trainers, serving frameworks. DRIFT_DEMAND_ALL=1 runs every corpus consumer (a round's end).
DEMAND_CASES = (
    "vllm_ascend_i", "tpu_inference_k", "vllm_spyre_e", "vllm_rbln_e",  # platform plugins
    "vllm_omni_i", "arctic_inference",  # model runners, speculative decoding
    "dynamo_d", "lmcache_c", "kvcached",  # connectors, KV cache
    "verl", "trl_b", "unsloth_zoo_d",  # RL trainers
    "sglang_b",  # serving
)


def _corpus_cases():
    import os

    from tests.corpus_score import ground_truth, names

    cases = [("speculators", "speculators==0.3.0", "vllm==0.16.0", "vllm==0.11.0", None)]
    every = os.environ.get("DRIFT_DEMAND_ALL", "") not in ("", "0")
    for name in (names() if every else DEMAND_CASES):
        gt = ground_truth(name)
        cases.append((name, gt.get("consumer_source", gt["consumer"]), gt["target"], gt["baseline"],
                      gt.get("consumer_packages")))
    return cases


@pytest.fixture(scope="module")
def demand_cache(tmp_path_factory):
    return ModuleCache(tmp_path_factory.mktemp("modules"))


@pytest.mark.corpus
@pytest.mark.parametrize("name,consumer,target,baseline,packages", _corpus_cases(), ids=lambda v: str(v))
def test_demand_report_is_the_whole_package_report(name, consumer, target, baseline, packages, corpus_src,
                                                    demand_cache, tmp_path, monkeypatch):
    from drift.model.targets import load_facts

    cons = load_consumer(consumer, target_package="vllm", packages=packages)
    whole_t = load_facts(target, packages=["vllm"])
    whole_b = load_facts(baseline, packages=["vllm"])
    assert whole_t.ok and whole_b.ok
    assert not hasattr(whole_t.facts["packages"]["vllm"]["modules"], "mentioning")
    whole = check(consumer=cons, target_facts=whole_t.facts, baseline_facts=whole_b.facts)

    # demand-driven: parsed here (module cache shared by the cases only), query answers
    # computed afresh in an empty facts store
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    t = package_facts(str(corpus_src(target)), "vllm", cache=demand_cache)
    b = package_facts(str(corpus_src(baseline)), "vllm", cache=demand_cache)
    t["version"] = whole_t.facts["packages"]["vllm"]["version"]
    b["version"] = whole_b.facts["packages"]["vllm"]["version"]
    tdoc = dict(whole_t.facts, packages={"vllm": t})
    bdoc = dict(whole_b.facts, packages={"vllm": b})
    # as drift.pipeline.run.analyse runs it: DRIFT020's and DRIFT040's questions answered by a worker
    from drift.model.ahead import answered_ahead
    from drift.analysis.rules.family import family_jobs
    from drift.analysis.rules.protocol import two_phase_jobs
    from drift.model.store import default_store

    with answered_ahead(tdoc, bdoc, two_phase_jobs(cons.usage) + family_jobs(cons.usage), store=default_store()):
        demand = check(consumer=cons, target_facts=tdoc, baseline_facts=bdoc)
    assert _findings(demand) == _findings(whole)
    if name == "speculators":  # a consumer that patches much of vLLM (vllm_ascend) reads most of it
        read = t["modules"].parsed + t["modules"].from_cache + b["modules"].parsed + b["modules"].from_cache
        assert read < (len(t["modules"]) + len(b["modules"])) // 3, read


_SCHED = """
    class SchedulerInterface:
        def schedule(self):
            raise NotImplementedError


    class Scheduler(SchedulerInterface):
        def __init__(self):
            self.connector = None
            self.ec_connector = None
            self.kv_events = None

        def schedule(self):
            return []


    class SchedulerConfig:
        scheduler_cls = Scheduler
    """
_FACTORY = """
    from tgt.sched import SchedulerInterface


    def make_scheduler(config) -> SchedulerInterface:
        return config.scheduler_cls()
    """
_CORE = """
    from tgt.factory import make_scheduler


    class Core:{note}
        def __init__(self, config):
            self.scheduler = make_scheduler(config)
            if self.scheduler.ec_connector is not None:
                self.scheduler.schedule(){more}
    """
_MINE = """
    from tgt.sched import SchedulerConfig, SchedulerInterface


    class MyScheduler(SchedulerInterface):
        def __init__(self):
            self.connector = None

        def schedule(self):
            return []


    def configure(config: SchedulerConfig):
        config.scheduler_cls = MyScheduler
    """


def test_a_holder_built_through_a_factory_is_found_on_demand_as_in_the_whole_package(tmp_path, isolated_cache):
    """The holder never names the slot's class (`self.scheduler = make_scheduler(config)`, the
    factory's return annotation does): searching only the modules that name the class misses the
    baseline's use of `ec_connector`, and the target's use (whose module happens to name the class
    in a comment) would look new. The demand-driven check asks for the factory's callers too."""
    base, tgt, cons = tmp_path / "base", tmp_path / "tgt", tmp_path / "cons"
    meta = "tgt-%s.dist-info/METADATA"
    _write(base, {"tgt/__init__.py": "", "tgt/sched.py": _SCHED, "tgt/factory.py": _FACTORY,
                  "tgt/core.py": _CORE.format(note="", more=""),
                  meta % "1.0": "Metadata-Version: 2.1\nName: tgt\nVersion: 1.0\n"})
    _write(tgt, {"tgt/__init__.py": "", "tgt/sched.py": _SCHED, "tgt/factory.py": _FACTORY,
                 "tgt/core.py": _CORE.format(
                     note="  # holds a SchedulerInterface",
                     more="\n            if self.scheduler.kv_events is not None:\n                self.scheduler.schedule()"),
                 meta % "2.0": "Metadata-Version: 2.1\nName: tgt\nVersion: 2.0\n"})
    _write(cons, {"app/__init__.py": "", "app/sched.py": _MINE})
    consumer = load_consumer(str(cons), target_package="tgt")
    cache = ModuleCache(isolated_cache / "modules")
    tpkg, bpkg = package_facts(str(tgt), "tgt", cache=cache), package_facts(str(base), "tgt", cache=cache)
    demand = check(consumer=consumer, target_facts=_doc(tpkg), baseline_facts=_doc(bpkg), target_package="tgt")
    whole = check(consumer=consumer, target_facts=collect_tree(str(tgt), ["tgt"]),
                  baseline_facts=collect_tree(str(base), ["tgt"]), target_package="tgt")
    assert _findings(demand) == _findings(whole)
    slots = [f for f in _findings(demand) if f[0] == "DRIFT082"]
    assert len(slots) == 1 and "`kv_events`" in slots[0][3] and "ec_connector" not in slots[0][3], slots
