"""Attributes the consumer installs on target classes (`Cls.m = fn`, `setattr(Cls, "m", fn)`)
exist whatever the target removed: reading them, on the class, its subclasses or their
instances, is not a break (the patch of a name the target lost is DRIFT080's to judge)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/serving.py": """
    class Serving:
        def helper(self):
            return 1

        def gone(self):
            return 0

        def other(self):
            return 2

        def third(self):
            return 3

    class Chat(Serving):
        pass
    """}
AFTER = {"gizmo/serving.py": """
    class Serving:
        pass

    class Chat(Serving):
        pass
    """}
CONSUMER = {"app/main.py": """
    from gizmo.serving import Chat, Serving


    def _helper(self):
        return 10


    _saved_other = Serving.other  # read at import, before any patch: fails here


    def _other(self):
        return _saved_other(self)


    Serving.helper = _helper
    setattr(Chat, "third", _helper)
    Serving.other = _other


    class Mine(Chat):
        def go(self):
            return self.helper() + self.third()


    def use(c: Chat):
        return c.helper() + Chat.helper(c) + c.third()


    def control(c: Chat):
        return c.gone()
    """}


def test_reads_of_installed_attributes_are_not_breaks(tmp_path):
    main = CONSUMER["app/main.py"]
    findings = findings_of(tmp_path, Case("installed", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [
        ("DRIFT080", line_of(main, "Serving.helper = _helper")),
        ("DRIFT080", line_of(main, 'setattr(Chat, "third", _helper)')),
        ("DRIFT080", line_of(main, "Serving.other = _other")),
        ("DRIFT060", line_of(main, "_saved_other = Serving.other")),
        ("DRIFT060", line_of(main, "return c.gone()")),
    ])


def test_python_finds_the_installed_attribute(tmp_path):
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    assert raised_by([after, app], "app.main", "0") == "AttributeError: type object 'Serving' has no attribute 'other'"
    installed = {"app/main.py": CONSUMER["app/main.py"].replace("_saved_other = Serving.other", "_saved_other = None")}
    app2 = write_tree(tmp_path / "app2", installed)
    assert raised_by([after, app2], "app.main", "Mine().go() + use(Chat())") is None
    assert raised_by([after, app2], "app.main", "control(Chat())") == "AttributeError: 'Chat' object has no attribute 'gone'"


LAYERS_BEFORE = {"gizmo/layers.py": """
    class Layer:
        def __init__(self, cfg, prefix=""):
            self.cfg = cfg

    class Other:
        def __init__(self, cfg, prefix=""):
            self.cfg = cfg
    """}
LAYERS_AFTER = {"gizmo/layers.py": """
    class Layer:
        def __init__(self, cfg, config=None, prefix=""):
            self.cfg = cfg

    class Other:
        def __init__(self, cfg, config=None, prefix=""):
            self.cfg = cfg
    """}
LAYERS_CONSUMER = {"app/layers.py": """
    from gizmo.layers import Layer, Other


    class StandIn:
        def __init__(self, cfg, prefix=""):
            self.cfg = cfg
            self.prefix = prefix


    Layer.__init__ = StandIn.__init__
    _orig_init = Other.__init__


    def _wrapped_init(self, *args, **kwargs):
        _orig_init(self, *args, **kwargs)


    Other.__init__ = _wrapped_init


    def build():
        return Layer(1, "p"), Other(1, "p")
    """}


def test_constructions_run_an_init_the_consumer_installed(tmp_path):
    """`Layer.__init__ = StandIn.__init__`: `Layer(1, "p")` runs the stand-in's `__init__`, so
    the target's inserted parameter does not shift it; a wrapper passing `*args, **kwargs` on
    to the saved original still reaches the target's and is judged by it."""
    src = LAYERS_CONSUMER["app/layers.py"]
    findings = findings_of(tmp_path, Case("inits", LAYERS_BEFORE, LAYERS_AFTER, LAYERS_CONSUMER))
    shifted = [f for f in findings if f.rule_id == "DRIFT013"]
    assert [(f.consumer_site.line, f.symbol) for f in shifted] == [(line_of(src, 'return Layer(1, "p")'),
                                                                    "gizmo.layers.Other")]
    after = write_tree(tmp_path / "real", LAYERS_AFTER)
    app = write_tree(tmp_path / "realapp", LAYERS_CONSUMER)
    assert raised_by([after, app], "app.layers", 'build()[0].prefix == "p" or 1 / 0') is None  # the stand-in's prefix
