"""A cold demand scan with --baseline asks ahead (drift/pipeline/scan.py `_ahead`): while the host's first
probe runs, a small probe reads the consumer's usage, the baseline's side of the check is warmed
here, and the target modules of DRIFT040's family (which the host cannot know: they are the
baseline's classes) are asked in a `more` on a third channel. Over a real sshd: the findings
are the whole-package scan's and the scan without it, in one exchange instead of two; what
came ahead is adopted only where the first reply shows the same module with the same hash; a
forked reader of a host package fails instead of answering from placeholders.
"""

from __future__ import annotations

import os

import pytest

from drift.model.host_modules import ForkedRead, HostModules
from drift.remote.reply import ReplyError, ahead_modules, validate_ahead
from tests.test_scan_demand import _findings, _scan, synthetic_host  # noqa: F401 - the fixture is used

pytestmark = [pytest.mark.ssh]


def test_the_family_asked_ahead_saves_the_second_exchange_with_the_same_findings(
        sshd, synthetic_host, tmp_path, monkeypatch):  # noqa: F811
    python, base = synthetic_host
    common = dict(python=python, consumer="app", target="tgt", baseline=str(base))
    whole = _scan(sshd, monkeypatch, tmp_path / "cw", host_cache_dir=str(tmp_path / "hw"), demand=False, **common)
    after = _scan(sshd, monkeypatch, tmp_path / "cs", host_cache_dir=str(tmp_path / "hs"), ahead=False, **common)
    ahead = _scan(sshd, monkeypatch, tmp_path / "ca", host_cache_dir=str(tmp_path / "ha"), **common)
    assert _findings(whole), "the case must have findings to compare"
    assert any(f[0] == "DRIFT040" for f in _findings(whole)), _findings(whole)
    assert _findings(ahead) == _findings(after) == _findings(whole)
    assert after.probe_stats["exchanges"] >= 2 and after.probe_stats["ahead_modules"] == 0, after.probe_stats
    # the 30 model modules came ahead: the collecting run read them all, nothing was left to ask
    assert ahead.probe_stats["ahead_modules"] >= 30, ahead.probe_stats
    # as outlines: the host outlined them instead of parsing them, and DRIFT040 read no more
    assert ahead.probe_stats["ahead_outlines"] >= 30, ahead.probe_stats
    assert ahead.probe_stats["exchanges"] == 1 and ahead.probe_stats["check_runs"] == 1, ahead.probe_stats
    # warm: the host answers "unchanged", the stored package holds what came ahead; nothing is asked
    warm = _scan(sshd, monkeypatch, tmp_path / "ca", host_cache_dir=str(tmp_path / "ha"), **common)
    assert _findings(warm) == _findings(whole)
    assert warm.probe_stats["exchanges"] == 1 and warm.probe_stats["ahead_modules"] == 0, warm.probe_stats


def test_the_usage_asked_ahead_reads_the_hosts_probe_cache(
        sshd, synthetic_host, tmp_path, monkeypatch):  # noqa: F811
    """The small probe that reads the consumer's usage ahead uses the host's probe cache as the
    first probe does: on a host drift has scanned before (here: drift's own cache is new, so
    the scan is cold on drift's side), its code and the consumer's usage are read back, not
    compiled and parsed again (vllm-omni's usage is ~2-3 s); with --no-host-cache it writes none."""
    import drift.pipeline.scan as scan_mod

    python, base = synthetic_host
    common = dict(python=python, consumer="app", target="tgt", baseline=str(base),
                  host_cache_dir=str(tmp_path / "h"))
    seen = []
    real = scan_mod.probe

    async def spy(connector, request, **kw):
        res = await real(connector, request, **kw)
        if not request["packages"]:  # the usage asked ahead
            seen.append((request["cache_dir"], (res.facts or {}).get("probe", {})))
        return res

    monkeypatch.setattr(scan_mod, "probe", spy)
    first = _scan(sshd, monkeypatch, tmp_path / "c1", **common)
    second = _scan(sshd, monkeypatch, tmp_path / "c2", **common)
    assert _findings(first) == _findings(second)
    (dir1, p1), (dir2, p2) = seen
    assert dir1 == dir2 == str(tmp_path / "h")
    assert p2["code"]["compiled"] == 0 and p2["code"]["cached"] > 0, p2
    assert any(f.name.startswith("usage-") for f in (tmp_path / "h").iterdir())
    seen.clear()
    off = _scan(sshd, monkeypatch, tmp_path / "c3", **dict(common, host_cache=False))
    assert _findings(off) == _findings(first) and seen[0][0] is None


SHA = "a" * 64


def _module(path: str, sha: str) -> dict:
    return {"path": path, "sha256": sha, "is_package": False, "error": None, "all": None, "imports": {},
            "names": {}, "functions": {}, "classes": {}}


def test_what_came_ahead_is_kept_only_where_the_first_reply_agrees():
    shape = {"t.a": ["t/a.py", SHA, None], "t.b": ["t/b.py", SHA, None]}
    ans = {"digest": "d" * 64, "modules": {
        "t.a": _module("t/a.py", SHA),            # kept
        "t.b": _module("t/b.py", "b" * 64),       # another hash than the first reply said: dropped
        "t.c": _module("t/c.py", SHA),            # not a module the first reply left unparsed: dropped
    }, "answers": {}}
    assert list(ahead_modules(ans, shape, "d" * 64)) == ["t.a"]
    assert ahead_modules(ans, shape, "e" * 64) == {}  # the package changed in between: nothing kept
    assert ahead_modules(ans, shape, None) == {}


@pytest.mark.parametrize("doc, says", [
    ({"more": {"other": {}}}, "expected an answer for t only"),
    ({"more": {"t": {"digest": "../x", "modules": {}, "answers": {}}}}, "not a sha256 hex digest"),
    ({"more": {"t": {"digest": SHA, "modules": {"t.a": {"path": 5}}, "answers": {}}}}, "t.a"),
    ({"more": {"t": {"digest": SHA, "modules": {}, "answers": {"x": ["t.a"]}}}}, "nobody asked"),
])
def test_a_malformed_answer_asked_ahead_is_refused(doc, says):
    with pytest.raises(ReplyError, match=says):
        validate_ahead({"schema": 1, **doc}, {}, "t")


def test_a_forked_reader_of_a_host_package_fails_instead_of_reading_placeholders():
    parsed = {"t.a": _module("t/a.py", SHA)}
    modules = HostModules(parsed, {"t.b": ["t/b.py", SHA, None]}, {}, fetch=None)
    modules.collecting = True
    assert modules["t.b"]["classes"] == {}  # here, a collecting read: a placeholder, recorded
    assert modules.wanted() == 1
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: what drift.model.demand's worker answering ahead would read
        code = 1
        try:
            os.close(rfd)
            said = []
            for read in (lambda: modules["t.b"], lambda: modules.load(["t.b"])):
                try:
                    read()
                    said.append("read")
                except ForkedRead:
                    said.append("ForkedRead")
            said.append("parsed" if modules["t.a"]["path"] == "t/a.py" else "?")
            os.write(wfd, " ".join(said).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(wfd)
    got = os.read(rfd, 200).decode()
    os.close(rfd)
    assert os.waitpid(pid, 0)[1] == 0
    assert got == "ForkedRead ForkedRead parsed"  # what the host sent is still read
    assert modules.wanted() == 1  # the child's reads were not recorded here either


def test_a_request_asked_ahead_may_only_lower_the_probe_priority():
    from drift.probes.main import run, validate_request

    base = {"packages": [], "env_packages": [], "cache_dir": None, "known": {}}
    assert validate_request(dict(base, nice=10)) == ""
    for bad in (-5, 20, True, "10", 2.5):
        assert "'nice' must be an integer 0-19" in validate_request(dict(base, nice=bad)), bad
    assert run(dict(base, nice=-1))["error"].startswith("bad request")


def _outline_rec(path: str, sha: str) -> dict:
    return {"path": path, "sha256": sha, "is_package": False, "error": None, "imports": {"nn": {"target": "torch.nn", "line": 1}},
            "functions": {"helper": {"name": "helper", "line": 3}},
            "classes": {"M": {"name": "M", "line": 5, "bases": ["nn.Module"], "methods": {"forward": {"name": "forward", "line": 6}},
                              "nested": {}}}}


@pytest.mark.parametrize("outlines, says", [
    ({"t.z": "OUT"}, "t.z: was not asked for"),
    ({"t.a": "OUT", "t.a2": "x"}, "t.a2: was not asked for"),
    ({"t.a": {"path": "../a.py"}}, "not a plain relative path"),
    ({"t.a": "CLS+fields"}, "holds its name, line, bases, methods and nested classes only"),
    ({"t.a": "DEF+params"}, "holds its name and line only"),
    ({"t.a": "LINE"}, "expected int"),
])
def test_a_malformed_outline_asked_ahead_is_refused(outlines, says):
    def rec(kind):
        r = _outline_rec("t/a.py", SHA)
        if kind == "CLS+fields":
            r["classes"]["M"]["fields"] = [{"name": "x"}]
        elif kind == "DEF+params":
            r["classes"]["M"]["methods"]["forward"]["params"] = 5
        elif kind == "LINE":
            r["functions"]["helper"]["line"] = "3"
        return r

    outlines = {k: rec(v) if isinstance(v, str) and v.isupper() or "+" in str(v) else v for k, v in outlines.items()}
    doc = {"schema": 1, "more": {"t": {"digest": SHA, "modules": {}, "answers": {}, "outlines": outlines}}}
    with pytest.raises(ReplyError, match=says.replace("+", r"\+")):
        validate_ahead(doc, {"more": {"outlines": ["t.a"]}}, "t")


def test_outlines_that_came_ahead_are_kept_only_where_the_first_reply_agrees():
    from drift.remote.reply import ahead_outlines

    shape = {"t.a": ["t/a.py", SHA, None], "t.b": ["t/b.py", SHA, None]}
    ans = {"digest": "d" * 64, "modules": {}, "answers": {}, "outlines": {
        "t.a": _outline_rec("t/a.py", SHA), "t.b": _outline_rec("t/b.py", "b" * 64), "t.c": _outline_rec("t/c.py", SHA)}}
    validate_ahead({"schema": 1, "more": {"t": ans}}, {"more": {"outlines": ["t.a", "t.b", "t.c"]}}, "t")
    assert list(ahead_outlines(ans, shape, "d" * 64)) == ["t.a"]
    assert ahead_outlines(ans, shape, "e" * 64) == {} and ahead_outlines(ans, shape, None) == {}


def test_an_outline_answers_its_keys_and_reads_the_facts_for_any_other():
    """What the host outlined is read without asking; a key beyond the outline is the module's
    facts: recorded by a collecting run, fetched (once) by an exact one."""
    full = _module("t/a.py", SHA)
    full["classes"] = {"M": {"name": "M", "line": 5, "bases": ["nn.Module"], "decorators": ["dataclass"],
                             "methods": {"forward": {"name": "forward", "line": 6, "params": []}}, "nested": {}}}
    full["names"] = {"X": {"line": 9}}
    asked = []

    def fetch(modules, needles, have):
        asked.append(list(modules))
        return {m: full for m in modules}, {}

    shape = {"t.a": ["t/a.py", SHA, None]}
    modules = HostModules({}, shape, {}, fetch)
    modules.adopt({}, "w" * 64, {"t.a": _outline_rec("t/a.py", SHA)})
    assert modules.ahead_modules == modules.ahead_outlines == 1
    modules.collecting = True
    view = modules.outline("t.a")
    cls = view["classes"]["M"]
    assert (cls["bases"], list(cls["methods"]), cls["line"]) == (["nn.Module"], ["forward"], 5)
    assert view["imports"]["nn"]["target"] == "torch.nn" and list(view["functions"]) == ["helper"]
    assert modules.wanted() == 0 and asked == []  # the outline's own keys ask nothing
    with pytest.raises(KeyError):
        cls["decorators"]  # noqa: B018 - beyond the outline: the placeholder has no such class
    assert modules.wanted() == 1 and asked == []  # recorded, not asked
    modules.collecting = False
    modules.fetch_wanted()
    assert asked == [["t.a"]]
    assert modules.outline("t.a") is full  # facts now: the outline is no longer what serves it
    assert cls["decorators"] == ["dataclass"] and "X" in view["names"] and asked == [["t.a"]]
    parsed, rest, _answers, outlines = modules.snapshot()
    assert list(parsed) == ["t.a"] and rest == {} and outlines == {}
