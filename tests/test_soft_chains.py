"""Values read through `getattr(x, "name", default)` chains, and bindings past an `if` branch that
leaves (probes/reach.py soft steps `.?name`, `_leaves`; drift/analysis/paths.py `is_soft`).

- `getattr(getattr(self, "manager", None), "coordinator", None)` is the target's coordinator
  wherever the names are there: a later `getattr(coord, "_cap", None)` of a name the target
  renamed is DRIFT065 (risky: the default now always applies), and Python really returns it;
- where a soft step's own name is gone, what follows reads the consumer's default, never an
  AttributeError: no DRIFT060 downstream, only the soft read's DRIFT065 at its line;
- `for m in ...: if isinstance(m, Special): continue` keeps `m` typed for the rest of the loop
  body, so a removed attribute read there is DRIFT060, with the error Python raises.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/sched.py": """
        class Special:
            def __init__(self):
                self._cap = 0
                self.size = 1


        class Coordinator:
            def __init__(self):
                self._cap = 4
                self.size = 2
                self.old_mgr = None


        class Manager:
            def __init__(self):
                self.coordinator: Coordinator = Coordinator()
                self.managers: list[Coordinator] = [Coordinator()]


        class Scheduler:
            def __init__(self):
                self.manager = Manager()
        """,
}
AFTER = {
    "gizmo/sched.py": """
        class Special:
            def __init__(self):
                self.cap = 0
                self.width = 1


        class Coordinator:
            def __init__(self):
                self.cap = 4
                self.width = 2


        class Manager:
            def __init__(self):
                self.coordinator: Coordinator = Coordinator()
                self.managers: list[Coordinator] = [Coordinator()]


        class Scheduler:
            def __init__(self):
                self.manager = Manager()
        """,
}
CONSUMER = """
    from gizmo.sched import Scheduler, Special


    class Mine(Scheduler):
        def cap(self):
            coord = getattr(getattr(self, "manager", None), "coordinator", None)
            return getattr(coord, "_cap", None)

        def old(self):
            mgr = getattr(getattr(self, "manager", None), "coordinator", None)
            old = getattr(mgr, "old_mgr", None)
            if old is not None:
                return old.size
            return 0

        def sizes(self):
            out = []
            for m in self.manager.managers:
                if isinstance(m, Special):
                    continue
                out.append(m.size)
            return out
    """


def test_soft_chains_and_exiting_branches(tmp_path):
    found = findings_of(tmp_path, Case("soft", BEFORE, AFTER, {"app/sched.py": CONSUMER}))
    assert_findings(found, [("DRIFT065", line_of(CONSUMER, 'getattr(coord, "_cap", None)')),
                            ("DRIFT065", line_of(CONSUMER, 'getattr(mgr, "old_mgr", None)')),
                            ("DRIFT060", line_of(CONSUMER, "out.append(m.size)"))])
    after, before = [tmp_path / "after", tmp_path / "consumer"], [tmp_path / "before", tmp_path / "consumer"]
    assert raised_by(after, "app.sched", "Mine().cap() is None or 1/0") is None  # the default won
    assert raised_by(before, "app.sched", "Mine().cap() == 4 or 1/0") is None
    assert raised_by(after, "app.sched", "Mine().old() == 0 or 1/0") is None  # never an AttributeError
    size = next(f for f in found if f.rule_id == "DRIFT060")
    assert raised_by(after, "app.sched", "Mine().sizes()") == size.predicted_failure
    assert raised_by(before, "app.sched", "Mine().sizes()") is None


def test_soft_chains_are_silent_where_the_target_kept_the_names(tmp_path):
    found = findings_of(tmp_path, Case("soft-kept", BEFORE, BEFORE, {"app/sched.py": CONSUMER}))
    assert_findings(found, [])
