"""DRIFT005: a name the target removed, reported at each use away from its import."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {
    "gizmo/utils.py": """
        def need_keys(req):
            return bool(req)

        def keep(req):
            return req

        class Hasher:
            @staticmethod
            def digest(req):
                return hash(req)

        def relocated(req):
            return req
        """,
}
AFTER = {
    "gizmo/utils.py": """
        def keep(req):
            return req
        """,
    "gizmo/moved.py": """
        def relocated(req):
            return req
        """,
}
CONSUMER = """
    from gizmo.utils import Hasher, keep, need_keys, relocated


    def block_hash(req):
        use_extra = req is not None and need_keys(req)
        if use_extra:
            return Hasher.digest(req)
        return relocated(keep(req))
    """
# what a user who fixes only the import line is left with
IMPORT_FIXED = CONSUMER.replace("from gizmo.utils import Hasher, keep, need_keys, relocated",
                                "from gizmo.utils import keep\n    from gizmo.moved import relocated")


def test_each_use_of_a_removed_name_is_its_own_risky_finding(tmp_path):
    case = Case("gone", before=BEFORE, after=AFTER, consumer={"app/hashing.py": CONSUMER})
    findings = findings_of(tmp_path, case)
    uses = sorted((f.consumer_site.line, f.symbol) for f in findings if f.rule_id == "DRIFT005")
    assert uses == [(line_of(CONSUMER, "need_keys(req)"), "gizmo.utils.need_keys"),
                    (line_of(CONSUMER, "Hasher.digest"), "gizmo.utils.Hasher")]
    assert all(f.severity.value == "risky" for f in findings if f.rule_id == "DRIFT005")
    # the import itself stays DRIFT001's (and the moved name DRIFT002's), once per name
    import_line = line_of(CONSUMER, "from gizmo.utils import")
    assert sorted(f.rule_id for f in findings if f.consumer_site.line == import_line) == ["DRIFT001", "DRIFT001",
                                                                                          "DRIFT002"]


def test_the_predicted_failure_is_what_python_raises_once_the_import_is_fixed(tmp_path):
    case = Case("gone", before=BEFORE, after=AFTER, consumer={"app/hashing.py": CONSUMER})
    use = next(f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT005" and "need_keys" in f.title)
    after = write_tree(tmp_path / "run_after", AFTER)
    app = write_tree(tmp_path / "run_app", {"app/hashing.py": IMPORT_FIXED})
    raised = raised_by([after, app], "app.hashing", "block_hash(1)")
    assert raised is not None and use.predicted_failure.startswith(raised)


def test_names_still_there_or_moved_are_silent(tmp_path):
    same = Case("same", before=BEFORE, after=BEFORE, consumer={"app/hashing.py": CONSUMER})
    assert not [f for f in findings_of(tmp_path, same) if f.rule_id == "DRIFT005"]
    moved_only = CONSUMER.replace("Hasher, keep, need_keys, relocated", "keep, relocated").replace(
        "req is not None and need_keys(req)", "req is not None").replace("Hasher.digest(req)", "hash(req)")
    case = Case("moved", before=BEFORE, after=AFTER, consumer={"app/hashing.py": moved_only})
    assert not [f for f in findings_of(tmp_path / "m", case) if f.rule_id == "DRIFT005"]


# a removed class used where Python evaluates it without calling it or reading an attribute of it
TYPED_BEFORE = {"gizmo/config.py": """
    class MoeSpec:
        pass

    class Kept:
        pass
    """}
TYPED_AFTER = {"gizmo/config.py": """
    class Kept:
        pass
    """}
TYPED = """
    from typing import TYPE_CHECKING, Optional

    from gizmo.config import Kept, MoeSpec

    if TYPE_CHECKING:
        hint = MoeSpec


    class Method(Kept):
        spec_cls: type = MoeSpec

        def __init__(self, moe: MoeSpec = None):
            self.moe = moe

        def local_only(self, x):
            y: MoeSpec = x
            return y

        def quoted(self, x: "MoeSpec"):
            return x


    def build(x) -> Optional[MoeSpec]:
        return x if isinstance(x, MoeSpec) else None
    """


def test_each_evaluated_bare_use_of_a_removed_name_is_reported(tmp_path):
    case = Case("typed", before=TYPED_BEFORE, after=TYPED_AFTER, consumer={"app/moe.py": TYPED})
    lines = sorted(f.consumer_site.line for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT005")
    # a class attribute, a parameter annotation, a return annotation, an isinstance argument;
    # never the TYPE_CHECKING block, a local variable's annotation or a string annotation
    assert lines == [line_of(TYPED, "spec_cls: type = MoeSpec"), line_of(TYPED, "moe: MoeSpec = None"),
                     line_of(TYPED, "-> Optional[MoeSpec]"), line_of(TYPED, "return x if isinstance")]


def test_an_annotation_evaluated_at_def_time_raises_once_the_import_is_fixed(tmp_path):
    case = Case("typed", before=TYPED_BEFORE, after=TYPED_AFTER, consumer={"app/moe.py": TYPED})
    use = next(f for f in findings_of(tmp_path, case)
               if f.rule_id == "DRIFT005" and f.consumer_site.line == line_of(TYPED, "moe: MoeSpec = None"))
    fixed = TYPED.replace("from gizmo.config import Kept, MoeSpec", "from gizmo.config import Kept").replace(
        "spec_cls: type = MoeSpec", "spec_cls: type = Kept")
    after = write_tree(tmp_path / "run_after", TYPED_AFTER)
    app = write_tree(tmp_path / "run_app", {"app/moe.py": fixed})
    raised = raised_by([after, app], "app.moe", "None")
    assert raised is not None and use.predicted_failure.startswith(raised)


def test_postponed_annotations_and_rebound_names_are_silent(tmp_path):
    postponed = TYPED.replace("from typing import", "from __future__ import annotations\n    from typing import").replace("return x if isinstance(x, MoeSpec) else None",
                                                                       "return x").replace(
        "spec_cls: type = MoeSpec", "spec_cls: type = Kept")
    case = Case("postponed", before=TYPED_BEFORE, after=TYPED_AFTER, consumer={"app/moe.py": postponed})
    assert not [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT005"]
    # bound again at module level: the annotations may read the rebinding, not the import
    rebound = TYPED.replace("if TYPE_CHECKING:", "MoeSpec = MoeSpec or Kept\n    if TYPE_CHECKING:")
    case = Case("rebound", before=TYPED_BEFORE, after=TYPED_AFTER, consumer={"app/moe.py": rebound})
    lines = {f.consumer_site.line for f in findings_of(tmp_path / "r", case) if f.rule_id == "DRIFT005"}
    assert not lines & {line_of(rebound, "moe: MoeSpec = None"), line_of(rebound, "-> Optional[MoeSpec]")}
