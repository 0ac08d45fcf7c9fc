"""DRIFT040: a method that duck-typed consumer code calls on `self`, gone from a class family."""

from __future__ import annotations

import os
import time

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only


def models(renamed: set[str], names=("Alpha", "Beta", "Gamma", "Delta"), *, new: str = "embed_ids") -> str:
    """A family of model classes; those in `renamed` define `new` instead of `get_embeds`."""
    out = []
    for i, name in enumerate(names):
        method = f"{new}{i if new.startswith('_') else ''}" if name in renamed else "get_embeds"
        out.append(f"""
    class {name}:
        def {method}(self, ids):
            return ids

        def forward(self, ids):
            return self.{method}(ids)
""")
    return "".join(out)


BEFORE = {"gizmo/models.py": models(set())}
MOST_RENAMED = {"gizmo/models.py": models({"Alpha", "Beta", "Gamma"})}
FEW_RENAMED = {"gizmo/models.py": models({"Alpha"})}
# each class renamed it differently (_impl0, _impl1, ...): nothing in common to rename to
ALL_DROPPED = {"gizmo/models.py": models({"Alpha", "Beta", "Gamma", "Delta"}, new="_impl")}

# `install` takes any model of the family (duck-typed, no annotation): an object annotated with one
# class would type the bound function's `self` as that class (DRIFT060, tests/test_rules_bound_methods.py)
BINDS = """
    import types

    from gizmo.models import Alpha


    def patched_forward(self, ids):
        embeds = self.get_embeds(ids)
        return embeds


    def install(model):
        model.forward = types.MethodType(patched_forward, model)
        return model
    """
CALL_LINE = line_of(BINDS, "self.get_embeds(ids)")

CASES = [
    Case("renamed-in-most", BEFORE, MOST_RENAMED, {"app/main.py": BINDS}, [("DRIFT040", CALL_LINE)]),
    Case("renamed-in-few", BEFORE, FEW_RENAMED, {"app/main.py": BINDS}, []),
    Case("unchanged", BEFORE, BEFORE, {"app/main.py": BINDS}, []),
    Case("gone-without-a-common-replacement", BEFORE, ALL_DROPPED, {"app/main.py": BINDS}, [("DRIFT040", CALL_LINE)]),
    Case("family-too-small", {"gizmo/models.py": models(set(), names=("Alpha", "Beta"))},
         {"gizmo/models.py": models({"Alpha", "Beta"}, names=("Alpha", "Beta"))}, {"app/main.py": BINDS}, []),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_method_vanished(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_rename_fix_and_evidence(tmp_path):
    f = only(findings_of(tmp_path, CASES[0]), "DRIFT040")
    assert f.title == "`self.get_embeds()` in `patched_forward` is gone from 3 of 4 target classes; renamed to `embed_ids`"
    assert (f.fix.codemod, f.fix.args) == ("rename_method", {"old": "get_embeds", "new": "embed_ids"})
    assert f.predicted_failure.endswith("object has no attribute 'get_embeds'")
    assert any(e.symbol and e.symbol.endswith(".embed_ids") for e in f.target_evidence)
    assert [e.symbol for e in f.baseline_evidence][0].endswith(".get_embeds")
    assert f"line {line_of(BINDS, 'types.MethodType')}" in f.details


def test_no_common_replacement_is_manual(tmp_path):
    f = only(findings_of(tmp_path, CASES[3]), "DRIFT040")
    assert "renamed" not in f.title
    assert f.fix.codemod is None and f.fix.manual_reason


def _demand(root, package="gizmo"):
    from drift.model.demand import package_facts

    return {"packages": {package: package_facts(str(root), package, cache=None)}}


def test_family_answered_by_a_forked_worker_as_in_process(tmp_path, monkeypatch):
    """`drift.pipeline.run.analyse` forks a worker that answers DRIFT040's family questions from the
    trees on disk while the other rules run; the rule takes its answers. The report is the one
    the check gives alone, the family's text search ran in the worker, not here, and the
    worker is reaped."""
    from drift.model import ahead
    from drift.model.index import PackageIndex
    from drift.pipeline.run import Baseline, analyse
    from drift.analysis.rules.family import family_jobs
    from tests.rule_cases import consumer_of, write_tree

    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    case = CASES[0]
    before, after = write_tree(tmp_path / "before", case.before), write_tree(tmp_path / "after", case.after)
    cons = consumer_of(write_tree(tmp_path / "consumer", case.consumer))

    alone = findings_of(tmp_path / "alone", case)
    forked = []
    real_fork = ahead._fork_ahead
    # the worker has taken its one job before the rules run (else the rule may claim it first)
    monkeypatch.setattr(ahead, "_fork_ahead", lambda *a: forked.append(_started(real_fork(*a))) or forked[-1])
    bfacts, tfacts = _demand(before), _demand(after)
    outcome = analyse(cons, tfacts, Baseline("gizmo==1", "given", bfacts), target_label="gizmo==2",
                      target_package="gizmo")
    assert [w is not None for w in forked] == [True]
    assert [(f.rule_id, f.title) for f in outcome.report.findings] == [(f.rule_id, f.title) for f in alone]
    assert bfacts["packages"]["gizmo"]["modules"]._text is None  # the `def get_embeds` search ran in the worker
    with pytest.raises(ChildProcessError):
        os.waitpid(forked[0].pid, os.WNOHANG)

    # the worker's answers are the ones computed here
    jobs = family_jobs(cons.usage)
    assert [j.topic for j in jobs] == [("family", "get_embeds")]
    t, b = PackageIndex(_demand(after)), PackageIndex(_demand(before))
    jobs[0].run(t, b)
    worker = _started(real_fork(jobs, PackageIndex(_demand(after)), PackageIndex(_demand(before))))
    worker.wait_for(("family", "get_embeds"))
    here = {("target",) + k: v for k, v in t.__dict__["_memo"].items()}
    here.update({("baseline",) + k: v for k, v in b.__dict__["_memo"].items()})
    assert worker.received == here and here[("baseline", "definers", "get_embeds")]
    worker.close(kill=False)


def _started(worker):
    """`worker` once it has claimed every job (it runs them last-asked first)."""
    from drift.model import ahead

    deadline = time.monotonic() + 30
    while any(worker.claims[i] == ahead.FREE for i in range(len(worker.topics))):
        assert time.monotonic() < deadline, "the worker never started"
        time.sleep(0.001)
    return worker


def test_worker_and_rules_share_the_jobs_from_opposite_ends(tmp_path):
    """The worker takes the job asked last first; a job it has not started when a rule asks is
    claimed by the rule (answered here, no wait) and skipped by the worker."""
    from drift.model import ahead
    from drift.model.index import PackageIndex
    from tests.rule_cases import write_tree

    root = write_tree(tmp_path / "t", CASES[0].after)
    target = PackageIndex(_demand(root))
    gate_r, gate_w = os.pipe()
    def first(t, b):  # asked first by the rules: the worker comes to it last
        t.memo("probe", "first", lambda: "worker")

    def last(t, b):  # the worker's first job: holds it until the test lets go
        os.read(gate_r, 1)
        t.memo("probe", "last", lambda: "worker")

    jobs = [ahead.AheadJob(("probe", "first"), first, lambda t, b: False),
            ahead.AheadJob(("probe", "last"), last, lambda t, b: False)]
    worker = ahead._fork_ahead(jobs, target, None)
    deadline = time.monotonic() + 30
    while worker.claims[1] != ahead.WORKER:
        assert time.monotonic() < deadline
        time.sleep(0.001)
    t0 = time.monotonic()
    worker.wait_for(("probe", "first"))  # not started: claimed here at once
    assert time.monotonic() - t0 < 5 and worker.claims[0] == ahead.HERE
    assert ("probe", "first") not in worker.done
    os.write(gate_w, b"x")
    worker.wait_for(("probe", "last"))  # in the worker's hands: waited for
    assert ("probe", "last") in worker.done
    assert worker.received == {("target", "probe", "last"): "worker"}
    worker.wait_for(("probe", "never asked"))  # not a job: returns
    while worker.fd >= 0:  # read to the end: the worker skips the job claimed here and exits
        assert time.monotonic() < deadline
        worker._drain()
        time.sleep(0.001)
    assert ("probe", "first") not in worker.done and ("target", "probe", "first") not in worker.received
    os.close(gate_r), os.close(gate_w)


def test_ahead_worker_not_taken_is_reaped_and_warm_checks_do_not_fork(tmp_path, monkeypatch):
    from drift.model import ahead
    from drift.pipeline.run import Baseline, analyse
    from drift.analysis.rules.family import family_jobs
    from drift.model.store import default_store
    from tests.rule_cases import consumer_of, write_tree

    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    case = CASES[0]
    bfacts = _demand(write_tree(tmp_path / "before", case.before))
    tfacts = _demand(write_tree(tmp_path / "after", case.after))
    cons = consumer_of(write_tree(tmp_path / "consumer", case.consumer))
    forked = []
    real_fork = ahead._fork_ahead
    monkeypatch.setattr(ahead, "_fork_ahead", lambda *a: forked.append(real_fork(*a)) or forked[-1])
    with ahead.answered_ahead(tfacts, bfacts, family_jobs(cons.usage), store=default_store()):
        pass  # no rule ran: nobody takes the answers
    assert len(forked) == 1 and not ahead._AHEAD
    with pytest.raises(ChildProcessError):
        os.waitpid(forked[0].pid, os.WNOHANG)

    # a check asks a worker once: its answers are in the store for the next check
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache2"))
    analyse(cons, tfacts, Baseline("gizmo==1", "given", bfacts), target_label="gizmo==2", target_package="gizmo")
    assert len(forked) == 2
    analyse(cons, _demand(tmp_path / "after"), Baseline("gizmo==1", "given", _demand(tmp_path / "before")),
            target_label="gizmo==2", target_package="gizmo")
    assert len(forked) == 2
    # a gate's next target: the baseline's family is stored, that target's class shapes are not
    other = _demand(write_tree(tmp_path / "other", CASES[1].after))
    analyse(cons, other, Baseline("gizmo==1", "given", bfacts), target_label="gizmo==3", target_package="gizmo")
    assert len(forked) == 3


# the target renamed `get_embeds` on Alpha/Beta and moved Gamma's to a shared base that defines the new
# name: every class that lost the old name reaches the new one, own or inherited
INHERITED = {"gizmo/models.py": models({"Alpha", "Beta"}) + """
    class Base:
        def embed_ids(self, ids):
            return ids


    class Omega(Base):
        def forward(self, ids):
            return self.embed_ids(ids)
"""}
BEFORE_WITH_OMEGA = {"gizmo/models.py": models(set()) + """
    class Base:
        pass


    class Omega(Base):
        def get_embeds(self, ids):
            return ids
"""}
# as INHERITED, but Omega's base lacks the new name: a call bound onto Omega would still raise
NOT_INHERITED = {"gizmo/models.py": INHERITED["gizmo/models.py"].replace(
    "class Base:\n        def embed_ids(self, ids):\n            return ids", "class Base:\n        pass")}


@pytest.mark.parametrize("after, tier", [(MOST_RENAMED, "safe"), (INHERITED, "safe"), (NOT_INHERITED, "unsafe")],
                         ids=["every-loser-gained-it", "one-loser-inherits-it", "one-loser-lacks-it"])
def test_rename_is_safe_only_when_every_class_that_lost_it_has_the_new_name(tmp_path, after, tier):
    before = BEFORE if after is MOST_RENAMED else BEFORE_WITH_OMEGA
    f = only(findings_of(tmp_path, Case("tier", before, after, {"app/main.py": BINDS}, [])), "DRIFT040")
    assert (f.fix.codemod, f.fix.args["new"], f.fix.tier) == ("rename_method", "embed_ids", tier)
