"""A consumer subclass that writes no `__init__` is built by its target base's constructor:
`Sub(..., kw=...)` is checked against the base's parameters (or fields) on both sides.

Real rules over synthetic before/after packages; each predicted TypeError is held to what Python
raises when the consumer really runs against the `after` package.
"""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

BEFORE = {"gizmo/core.py": """
    from dataclasses import dataclass

    class Engine:
        def __init__(self, config, cache=None):
            self.config = config

    @dataclass
    class Request:
        rid: str
        eos: int = 0
    """}
AFTER = {"gizmo/core.py": """
    from dataclasses import dataclass

    class Engine:
        def __init__(self, config, *, renderer):
            self.config = config

    @dataclass
    class Request:
        rid: str
        arrival: float
    """}

CONSUMER = """
    from dataclasses import dataclass

    from gizmo.core import Engine, Request

    class MyEngine(Engine):
        def run(self):
            return self.config

    class Plain:
        pass

    class Mixed(Plain, MyEngine):
        pass

    @dataclass
    class MyRequest(Request):
        extra: int = 0

    class OwnInit(Engine):
        def __init__(self, config, cache=None):
            self.config = config

    def engine():
        return MyEngine(1, cache=2)

    def mixed():
        return Mixed(1)

    def request():
        return MyRequest("a", eos=1, extra=2)

    def own():
        return OwnInit(1, cache=2)
    """


def test_a_subclass_without_init_is_checked_against_the_base_constructor(tmp_path):
    case = Case("inherited", BEFORE, AFTER, {"app/main.py": CONSUMER}, [
        ("DRIFT010", line_of(CONSUMER, "MyEngine(1, cache=2)")),
        ("DRIFT011", line_of(CONSUMER, "MyEngine(1, cache=2)")),
        ("DRIFT011", line_of(CONSUMER, "Mixed(1)")),
        ("DRIFT010", line_of(CONSUMER, 'MyRequest("a"')),
        ("DRIFT011", line_of(CONSUMER, 'MyRequest("a"')),
    ])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)  # OwnInit writes its own __init__: its call is its own
    kw = next(f for f in findings if f.rule_id == "DRIFT010" and "MyEngine" in f.title)
    assert kw.title == "`MyEngine` no longer accepts `cache=`" and kw.symbol == "gizmo.core.Engine"
    assert kw.predicted_failure == "TypeError: Engine.__init__() got an unexpected keyword argument 'cache'"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "engine()") == kw.predicted_failure
    req = next(f for f in findings if f.rule_id == "DRIFT011" and "MyRequest" in f.title)
    assert "`arrival`" in req.title  # the subclass's own field `extra` is a parameter, never reported
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "request()").startswith("TypeError")


@pytest.mark.parametrize("consumer", [
    pytest.param("from gizmo.core import Engine\n\nclass E(Engine):\n    def __init__(self, config, cache=None):\n"
                 "        self.config = config\n\ndef f():\n    return E(1, cache=2)\n", id="own-init"),
    pytest.param("from gizmo.core import Engine\n\nclass E(Engine):\n    pass\n\ndef new_init(self, config, cache=None):\n"
                 "    self.config = config\n\nE.__init__ = new_init\n\ndef f():\n    return E(1, cache=2)\n",
                 id="init-bound-after-the-class"),
    pytest.param("import threading\n\nfrom gizmo.core import Engine\n\nclass E(threading.Thread, Engine):\n    pass\n\n"
                 "def f():\n    return E(1, cache=2)\n", id="another-base-first"),
])
def test_a_subclass_that_is_given_another_constructor_is_left_alone(tmp_path, consumer):
    findings = findings_of(tmp_path, Case("own", BEFORE, AFTER, {"app/main.py": consumer}))
    assert not [f for f in findings if f.rule_id in ("DRIFT010", "DRIFT011", "DRIFT012", "DRIFT013")], \
        [f.title for f in findings]
