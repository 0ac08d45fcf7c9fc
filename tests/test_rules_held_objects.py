"""DRIFT099: an object of the consumer's that a target object keeps, and whose methods the
target's inherited code calls. The consumer's subclass hands it over through the base's
constructor (`super().__init__(model=adapter)`, kept as `self.model = model`) or stores it itself
(`self.helper = Helper()`); the adapter extends nothing of the target's, so no override rule
sees it, yet the target now calls `self.model.forward(x, path=path)`."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/enc.py": """
    class Manager:
        def __init__(self, config, model):
            self.config = config
            self.model = model

        def run(self, x):
            out = self.model.forward(x)
            return self.helper.tidy(out)
    """}
AFTER = {"gizmo/enc.py": """
    class Manager:
        def __init__(self, config, model):
            self.config = config
            self.model = model

        def run(self, x, path="default"):
            out = self.model.forward(x, path=path)
            return self.helper.tidy(out, path)
    """}
CONSUMER_SRC = """
    from gizmo.enc import Manager


    class Adapter:
        def __init__(self, inner):
            self.inner = inner

        def forward(self, x):
            return x


    class Helper:
        def tidy(self, out):
            return out


    class Mine(Manager):
        def __init__(self, config, inner):
            adapter = Adapter(inner)
            super().__init__(config=config, model=adapter)
            self.helper = Helper()
    """
CONSUMER = {"app/enc.py": CONSUMER_SRC}


def test_objects_the_target_keeps_are_held_to_its_calls(tmp_path):
    findings = findings_of(tmp_path, Case("held", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [
        ("DRIFT099", line_of(CONSUMER_SRC, "def forward(self, x)")),
        ("DRIFT099", line_of(CONSUMER_SRC, "def tidy(self, out)")),
    ])
    by_line = {f.consumer_site.line: f for f in findings}
    forward = by_line[line_of(CONSUMER_SRC, "def forward(self, x)")]
    assert forward.severity.value == "breaking"
    assert forward.predicted_failure == "TypeError: Adapter.forward() got an unexpected keyword argument 'path'"
    tidy = by_line[line_of(CONSUMER_SRC, "def tidy(self, out)")]
    assert tidy.predicted_failure == "TypeError: Helper.tidy() takes 2 positional arguments but 3 were given"


def test_an_object_that_takes_the_new_call_says_nothing(tmp_path):
    consumer = {"app/enc.py": CONSUMER_SRC.replace("def forward(self, x):", "def forward(self, x, **kw):")
                .replace("def tidy(self, out):", "def tidy(self, out, path=None):")}
    assert_findings(findings_of(tmp_path, Case("held-fits", BEFORE, AFTER, consumer)), [])


def test_an_object_the_target_does_not_keep_says_nothing(tmp_path):
    """The adapter handed as `config` (a parameter the target keeps, but never calls `forward`
    on) and no helper stored: nothing of the consumer's is called by the target."""
    consumer = {"app/enc.py": CONSUMER_SRC.replace("super().__init__(config=config, model=adapter)",
                                                   "super().__init__(config=adapter, model=inner)")
                .replace("self.helper = Helper()", "self.helper = None")}
    assert_findings(findings_of(tmp_path, Case("held-none", BEFORE, AFTER, consumer)), [])


def test_python_fails_where_the_findings_say(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    assert raised_by([before, app], "app.enc", "Mine({}, None).run(1)") is None
    assert raised_by([after, app], "app.enc", "Mine({}, None).run(1)") == \
        "TypeError: Adapter.forward() got an unexpected keyword argument 'path'"
    fixed = {"app/enc.py": CONSUMER_SRC.replace("def forward(self, x):", "def forward(self, x, **kw):")}
    app2 = write_tree(tmp_path / "app2", fixed)
    assert raised_by([after, app2], "app.enc", "Mine({}, None).run(1)") == \
        "TypeError: Helper.tidy() takes 2 positional arguments but 3 were given"


RETYPE_BEFORE = {"gizmo/post.py": """
    class Encoder:
        def post(self, output: list, dest: dict) -> None:
            dest[0] = output


    class Manager:
        def __init__(self, model: Encoder):
            self.model = model

        def run(self, x):
            dest = {}
            self.model.post([x], dest)
            return dest
    """}
RETYPE_AFTER = {"gizmo/post.py": """
    class Encoder:
        def post(self, outputs: dict[str, list], dest: dict) -> None:
            dest[0] = outputs["default"]


    class Manager:
        def __init__(self, model: Encoder):
            self.model = model

        def run(self, x):
            dest = {}
            self.model.post({"default": [x]}, dest)
            return dest
    """}
RETYPE_SRC = """
    from gizmo.post import Manager


    class Adapter:
        def post(self, output, dest):
            output.append(None)
            dest[0] = output


    class Mine(Manager):
        def __init__(self):
            adapter = Adapter()
            super().__init__(model=adapter)
    """


def test_a_slot_the_declared_class_retyped_is_held_against_the_held_object(tmp_path):
    """The target declares `model: Encoder`; Encoder.post's first slot went from `output: list` to
    `outputs: dict[str, list]` (its outermost type changed) and the target's call passes it by
    position: the adapter's `output` now receives a dict it appends to as a list."""
    findings = findings_of(tmp_path, Case("held-retyped", RETYPE_BEFORE, RETYPE_AFTER, {"app/post.py": RETYPE_SRC}))
    assert_findings(findings, [("DRIFT099", line_of(RETYPE_SRC, "def post(self, output, dest)"))])
    assert "takes `output` (list) where the target's `run` now passes `outputs: dict[str, list]`" in findings[0].title
    before = write_tree(tmp_path / "rb", RETYPE_BEFORE)
    after = write_tree(tmp_path / "ra", RETYPE_AFTER)
    app = write_tree(tmp_path / "rapp", {"app/post.py": RETYPE_SRC})
    assert raised_by([before, app], "app.post", "Mine().run(1)") is None
    assert raised_by([after, app], "app.post", "Mine().run(1)") == "AttributeError: 'dict' object has no attribute 'append'"
