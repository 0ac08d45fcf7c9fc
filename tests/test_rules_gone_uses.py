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
