"""A break whose error the consumer's own handler swallows is risky with the reason, not breaking
(drift/analysis/caught.py over probes/reach.py `caught_ranges`): the fallback runs instead. A
handler that catches another error, one that re-raises, one that catches only broadly (`except
Exception:` turns a crash into an error path, the feature is broken all the same), and a function
merely defined inside the `try` (its body runs later, outside it) leave the finding breaking. Each case is run on the
target to show what Python does."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/runner.py": """
        class Runner:
            def __init__(self):
                self.backends = [1, 2]
                self.size = 2
        """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/runner.py": """
        class Runner:
            def __init__(self):
                self.size = 2
        """,
}
CONSUMER = """
    from gizmo.runner import Runner


    def counted(runner: Runner):
        try:
            n = len(runner.backends)  # caught
        except (AttributeError, NotImplementedError):
            n = 1
        return n


    def broad(runner: Runner):
        try:
            return runner.backends[0]  # broad
        except Exception:
            return None


    def other_error(runner: Runner):
        try:
            return runner.backends[1]  # other
        except KeyError:
            return None


    def reraised(runner: Runner):
        try:
            return runner.backends  # reraised
        except AttributeError as exc:
            raise RuntimeError("no backends") from exc


    def defined_inside():
        try:
            def later(runner: Runner):
                return runner.backends  # later
        except AttributeError:
            later = None
        return later
    """


def test_a_break_the_handler_catches_is_risky_and_the_rest_stay_breaking(tmp_path):
    found = findings_of(tmp_path, Case("caught", BEFORE, AFTER, {"app/use.py": CONSUMER}))
    severity = {f.consumer_site.line: f.severity.value for f in found if f.rule_id == "DRIFT060"}
    assert severity == {line_of(CONSUMER, "# caught"): "risky", line_of(CONSUMER, "# broad"): "breaking",
                        line_of(CONSUMER, "# other"): "breaking", line_of(CONSUMER, "# reraised"): "breaking",
                        line_of(CONSUMER, "# later"): "breaking"}
    caught = next(f for f in found if f.consumer_site.line == line_of(CONSUMER, "# caught"))
    assert (f"the AttributeError is raised inside the `try` at line {line_of(CONSUMER, 'try:')}, whose handler "
            "catches it and runs its fallback instead") in caught.title
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.use", "counted(Runner())") is None
    assert raised_by(after, "app.use", "broad(Runner())") is None
    assert raised_by(after, "app.use", "other_error(Runner())").startswith("AttributeError")
    assert raised_by(after, "app.use", "reraised(Runner())").startswith("RuntimeError")
    assert raised_by(after, "app.use", "defined_inside()(Runner())").startswith("AttributeError")



def test_a_patch_the_consumer_applies_only_where_the_target_has_it_is_risky(tmp_path):
    """unsloth-zoo: `try: import gizmo.old_engine; gizmo.old_engine.Manager = Patched` / `except:
    pass`, for an engine the target removed. The broad handler makes the patch optional by design:
    risky, not a break; the same patch outside a `try` stays breaking."""
    before = {**BEFORE, "gizmo/old_engine.py": "class Manager:\n    pass\n"}
    consumer = """
        class Patched:
            pass


        def optional():
            try:
                import gizmo.old_engine
                gizmo.old_engine.Manager = Patched  # optional
            except:
                pass


        def required():
            import gizmo.old_engine
            gizmo.old_engine.Manager = Patched  # required
        """
    found = findings_of(tmp_path, Case("patch", before, AFTER, {"app/use.py": consumer}))
    patches = {f.consumer_site.line: f.severity.value for f in found if f.rule_id == "DRIFT080"}
    assert patches == {line_of(consumer, "# optional"): "risky", line_of(consumer, "# required"): "breaking"}
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.use", "optional()") is None
    assert raised_by(after, "app.use", "required()").startswith("ModuleNotFoundError")
