"""DRIFT141 over synthetic before/after packages: a call through what a target class holds, built by
a factory drift cannot type (`self.model = get_model()`), that still passes the arguments the
baseline's own class passed there, where the target's own class now passes another number (vLLM 0.10
dropped `sampling_metadata` from every model's `compute_logits`, and its runner's calls with it)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/runner.py": """
    class Model:
        def compute(self, hidden, meta):
            return hidden


    def build():
        return Model()


    class Runner:
        def __init__(self):
            self.model = build()
            self.cache: dict[str, int] = {}

        def step(self, hidden):
            self.cache.get("k")
            return self.model.compute(hidden, None)
    """}
# the target: the model's method lost `meta`, and the runner's own calls lost the argument with it
AFTER = {"gizmo/runner.py": BEFORE["gizmo/runner.py"]
         .replace("def compute(self, hidden, meta):", "def compute(self, hidden):")
         .replace('self.cache.get("k")', 'self.cache.get("k", 0)')
         .replace("self.model.compute(hidden, None)", "self.model.compute(hidden)")}
CONSUMER = """
    from gizmo.runner import Runner


    class MyRunner(Runner):
        def step(self, hidden):
            self.cache.get("k")
            return self.model.compute(hidden, None)

        def fresh(self, hidden):
            return self.model.compute(hidden)
    """


def test_a_call_through_a_factory_built_holder_the_target_calls_otherwise(tmp_path):
    found = findings_of(tmp_path, Case("holder", BEFORE, AFTER, {"app/__init__.py": "", "app/runner.py": CONSUMER}))
    mine = tuple(f for f in found if f.rule_id == "DRIFT141")
    # only the model call: the dict's `.get` is typed by its annotation, and the call already fit stays quiet
    assert_findings(mine, [("DRIFT141", line_of(CONSUMER, "return self.model.compute(hidden, None)"))])
    f = mine[0]
    assert f.severity.value == "risky"
    assert f.predicted_failure == "TypeError: compute() takes 2 positional arguments but 3 were given"
    run = "__import__('app.runner', fromlist=['MyRunner']).MyRunner().step(1)"
    # Python names the model's class, which drift does not know: the rest is what it predicted
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.runner", run)
    assert raised == "TypeError: Model." + f.predicted_failure.removeprefix("TypeError: ")
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.runner", run) is None


def test_a_holder_the_consumer_sets_itself_is_its_own(tmp_path):
    own = CONSUMER.replace("class MyRunner(Runner):\n", "class MyRunner(Runner):\n        def __init__(self):\n"
                           "            self.model = object()\n\n")
    found = findings_of(tmp_path, Case("own", BEFORE, AFTER, {"app/__init__.py": "", "app/runner.py": own}))
    assert not [f for f in found if f.rule_id == "DRIFT141"]
