"""DRIFT010 / DRIFT011 / DRIFT012: calls whose arguments the target's signature no longer takes."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

# -- DRIFT010: keyword removed ----------------------------------------------------------------

FUNC_BEFORE = """
    def make(a, size=1):
        return [a] * size
    """
FUNC_AFTER = """
    def make(a):
        return [a]
    """
FUNC_AFTER_KWARGS = """
    def make(a, **kwargs):
        return [a]
    """
CALLS_MAKE_SIZE = """
    from gizmo.core import make

    def main():
        return make(1, size=2)
    """
CALLS_MAKE_BOGUS = """
    from gizmo.core import make

    def main():
        return make(1, bogus=2)
    """

ENGINE_BEFORE = """
    class Engine:
        def __init__(self, size=1):
            self.size = size

        def start(self, fast=False):
            return fast
    """
ENGINE_AFTER = """
    class Engine:
        def __init__(self):
            self.size = 1

        def start(self):
            return True
    """
METHOD_ON_SELF_ATTR = """
    from gizmo.core import Engine

    class App:
        def __init__(self):
            self.engine = Engine()

        def go(self):
            return self.engine.start(fast=True)
    """
CTOR_WITH_SIZE = """
    from gizmo.core import Engine

    def main():
        return Engine(size=2)
    """
REEXPORT_INIT = """
    from gizmo.core import Engine

    __all__ = ["Engine"]
    """
CTOR_VIA_REEXPORT = """
    from gizmo import Engine

    def main():
        return Engine(size=2)
    """

DC_BEFORE = """
    from dataclasses import dataclass

    @dataclass
    class Config:
        name: str = "x"
        depth: int = 2
    """
DC_AFTER = """
    from dataclasses import dataclass

    @dataclass
    class Config:
        name: str = "x"
    """
DC_CALL = """
    from gizmo.core import Config

    def main():
        return Config(name="y", depth=3)
    """

KEYWORD_CASES = [
    Case("function", {"gizmo/core.py": FUNC_BEFORE}, {"gizmo/core.py": FUNC_AFTER}, {"app/main.py": CALLS_MAKE_SIZE},
         [("DRIFT010", line_of(CALLS_MAKE_SIZE, "make(1, size=2)"))]),
    Case("function-unchanged", {"gizmo/core.py": FUNC_BEFORE}, {"gizmo/core.py": FUNC_BEFORE},
         {"app/main.py": CALLS_MAKE_SIZE}, []),
    # no TypeError now; the value is ignored, which DRIFT152 says (risky)
    Case("function-now-takes-kwargs", {"gizmo/core.py": FUNC_BEFORE}, {"gizmo/core.py": FUNC_AFTER_KWARGS},
         {"app/main.py": CALLS_MAKE_SIZE}, [("DRIFT152", "`make` no longer declares `size`")]),
    Case("function-already-wrong", {"gizmo/core.py": FUNC_BEFORE}, {"gizmo/core.py": FUNC_AFTER},
         {"app/main.py": CALLS_MAKE_BOGUS}, []),
    Case("method-on-instance-made-in-init", {"gizmo/core.py": ENGINE_BEFORE}, {"gizmo/core.py": ENGINE_AFTER},
         {"app/main.py": METHOD_ON_SELF_ATTR}, [("DRIFT010", line_of(METHOD_ON_SELF_ATTR, "start(fast=True)"))]),
    Case("method-unchanged", {"gizmo/core.py": ENGINE_BEFORE}, {"gizmo/core.py": ENGINE_BEFORE},
         {"app/main.py": METHOD_ON_SELF_ATTR}, []),
    Case("constructor", {"gizmo/core.py": ENGINE_BEFORE}, {"gizmo/core.py": ENGINE_AFTER},
         {"app/main.py": CTOR_WITH_SIZE}, [("DRIFT010", line_of(CTOR_WITH_SIZE, "Engine(size=2)"))]),
    Case("constructor-through-re-export",
         {"gizmo/__init__.py": REEXPORT_INIT, "gizmo/core.py": ENGINE_BEFORE},
         {"gizmo/__init__.py": REEXPORT_INIT, "gizmo/core.py": ENGINE_AFTER},
         {"app/main.py": CTOR_VIA_REEXPORT}, [("DRIFT010", line_of(CTOR_VIA_REEXPORT, "Engine(size=2)"))]),
    Case("constructor-through-re-export-unchanged",
         {"gizmo/__init__.py": REEXPORT_INIT, "gizmo/core.py": ENGINE_BEFORE},
         {"gizmo/__init__.py": REEXPORT_INIT, "gizmo/core.py": ENGINE_BEFORE},
         {"app/main.py": CTOR_VIA_REEXPORT}, []),
    Case("dataclass-field-removed", {"gizmo/core.py": DC_BEFORE}, {"gizmo/core.py": DC_AFTER},
         {"app/main.py": DC_CALL}, [("DRIFT010", "`Config` no longer accepts `depth=`")]),
    Case("dataclass-unchanged", {"gizmo/core.py": DC_BEFORE}, {"gizmo/core.py": DC_BEFORE},
         {"app/main.py": DC_CALL}, []),
]


@pytest.mark.parametrize("case", KEYWORD_CASES, ids=lambda c: c.id)
def test_keyword_removed(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_keyword_removed_predicts_the_type_error_and_drops_the_keyword(tmp_path):
    f = only(findings_of(tmp_path, KEYWORD_CASES[0]), "DRIFT010")
    assert f.predicted_failure == "TypeError: make() got an unexpected keyword argument 'size'"
    assert (f.fix.codemod, f.fix.args) == ("drop_keyword", {"callee": "make", "keyword": "size"})
    assert f.symbol == "gizmo.core.make"


def test_keyword_removed_names_init_for_constructors_and_resolves_the_re_export(tmp_path):
    f = only(findings_of(tmp_path, KEYWORD_CASES[7]), "DRIFT010")
    assert f.predicted_failure == "TypeError: Engine.__init__() got an unexpected keyword argument 'size'"
    assert [(e.path, e.symbol) for e in f.target_evidence] == [("gizmo/core.py", "gizmo.core.Engine.__init__")]


def test_keyword_removed_on_a_method_names_the_method(tmp_path):
    f = only(findings_of(tmp_path, KEYWORD_CASES[4]), "DRIFT010")
    assert f.title == "`Engine.start` no longer accepts `fast=`"
    assert f.fix.args == {"callee": "start", "keyword": "fast"}


# -- DRIFT011: new required parameter ---------------------------------------------------------

MAKE_B_AFTER = """
    def make(a, b):
        return [a, b]
    """
MAKE_B_BEFORE = """
    def make(a, b=None):
        return [a, b]
    """
MAKE_B_ALWAYS = MAKE_B_AFTER
CALLS_MAKE_1 = """
    from gizmo.core import make

    def main():
        return make(1)
    """
CALLS_MAKE_1_B = """
    from gizmo.core import make

    def main():
        return make(1, b=2)
    """

DC_REQ_BEFORE = """
    from dataclasses import dataclass, field, InitVar

    @dataclass
    class Options:
        name: str = "x"
    """
DC_REQ_FIELD = """
    from dataclasses import dataclass, field, InitVar

    @dataclass
    class Options:
        depth: int
        name: str = "x"
    """
DC_REQ_INITVAR = """
    from dataclasses import dataclass, field, InitVar

    @dataclass
    class Options:
        seed: InitVar[int]
        name: str = "x"

        def __post_init__(self, seed):
            self.rng = seed
    """
DC_INIT_FALSE = """
    from dataclasses import dataclass, field, InitVar

    @dataclass
    class Options:
        cache: dict = field(init=False)
        name: str = "x"
    """
DC_CALL_NAME = """
    from gizmo.core import Options

    def main():
        return Options(name="y")
    """

BASE_BEFORE = """
    class Base:
        def __init__(self, cfg):
            self.cfg = cfg
    """
BASE_AFTER = """
    class Base:
        def __init__(self, cfg, size):
            self.cfg = cfg
            self.size = size
    """
THING_ON_BASE = """
    from gizmo.base import Base

    class Thing(Base):
        pass
    """
THING_CALL = """
    from gizmo.core import Thing

    class App:
        def __init__(self, cfg):
            self.cfg = cfg

        def build(self):
            return Thing(cfg=self.cfg)
    """

FACTORY_BEFORE = """
    from dataclasses import dataclass

    @dataclass
    class Options:
        name: str = "x"

        @classmethod
        def create(cls, name, **kw):
            kwargs = dict(kw)
            return cls(name=name, **kwargs)
    """
FACTORY_AFTER = """
    from dataclasses import dataclass

    @dataclass
    class Options:
        strict: bool
        name: str = "x"

        @classmethod
        def create(cls, name, **kw):
            kwargs = dict(kw)
            kwargs["strict"] = False
            return cls(name=name, **kwargs)
    """

OWN_CTOR_BEFORE = """
    class Thing:
        def __init__(self, cfg):
            self.cfg = cfg


    def build(cfg):
        return Thing(cfg=cfg)
    """
OWN_CTOR_AFTER = """
    class Thing:
        def __init__(self, cfg, size):
            self.cfg = cfg
            self.size = size


    def build(cfg):
        return Thing(cfg=cfg, size=cfg.block * 2)
    """
OWN_CTOR_VIA_LOCAL = """
    class Thing:
        def __init__(self, cfg, size):
            self.cfg = cfg
            self.size = size


    def build(cfg):
        size = cfg.block * 2
        return Thing(cfg=cfg, size=size)
    """
THING_CALL_LINE = line_of(THING_CALL, "Thing(cfg=self.cfg)")

REQUIRED_CASES = [
    Case("plain-param", {"gizmo/core.py": MAKE_B_BEFORE}, {"gizmo/core.py": MAKE_B_AFTER},
         {"app/main.py": CALLS_MAKE_1}, [("DRIFT011", line_of(CALLS_MAKE_1, "make(1)"))]),
    Case("plain-param-passed", {"gizmo/core.py": MAKE_B_BEFORE}, {"gizmo/core.py": MAKE_B_AFTER},
         {"app/main.py": CALLS_MAKE_1_B}, []),
    Case("plain-param-required-before-too", {"gizmo/core.py": MAKE_B_ALWAYS}, {"gizmo/core.py": MAKE_B_AFTER},
         {"app/main.py": CALLS_MAKE_1}, []),
    Case("dataclass-field-without-default", {"gizmo/core.py": DC_REQ_BEFORE}, {"gizmo/core.py": DC_REQ_FIELD},
         {"app/main.py": DC_CALL_NAME}, [("DRIFT011", "`Options` now requires `depth` (field: int)")]),
    Case("initvar-without-default", {"gizmo/core.py": DC_REQ_BEFORE}, {"gizmo/core.py": DC_REQ_INITVAR},
         {"app/main.py": DC_CALL_NAME}, [("DRIFT011", "`Options` now requires `seed` (initvar")]),
    Case("field-init-false-is-not-a-parameter", {"gizmo/core.py": DC_REQ_BEFORE}, {"gizmo/core.py": DC_INIT_FALSE},
         {"app/main.py": DC_CALL_NAME}, []),
    Case("inherited-init-from-another-module",
         {"gizmo/base.py": BASE_BEFORE, "gizmo/core.py": THING_ON_BASE},
         {"gizmo/base.py": BASE_AFTER, "gizmo/core.py": THING_ON_BASE},
         {"app/main.py": THING_CALL}, [("DRIFT011", THING_CALL_LINE)]),
    Case("factory-fills-the-field", {"gizmo/core.py": FACTORY_BEFORE}, {"gizmo/core.py": FACTORY_AFTER},
         {"app/main.py": DC_CALL_NAME}, [("DRIFT011", "`Options` now requires `strict`")]),
    Case("target-builds-it-itself", {"gizmo/core.py": OWN_CTOR_BEFORE}, {"gizmo/core.py": OWN_CTOR_AFTER},
         {"app/main.py": THING_CALL}, [("DRIFT011", THING_CALL_LINE)]),
    Case("target-builds-it-through-a-local", {"gizmo/core.py": OWN_CTOR_BEFORE}, {"gizmo/core.py": OWN_CTOR_VIA_LOCAL},
         {"app/main.py": THING_CALL}, [("DRIFT011", THING_CALL_LINE)]),
]
BY_ID = {c.id: c for c in REQUIRED_CASES}


@pytest.mark.parametrize("case", REQUIRED_CASES, ids=lambda c: c.id)
def test_required_added(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_required_param_predicts_the_type_error_and_stays_manual(tmp_path):
    f = only(findings_of(tmp_path, BY_ID["plain-param"]), "DRIFT011")
    assert f.predicted_failure == "TypeError: make() missing 1 required positional argument: 'b'"
    assert f.fix.codemod is None and f.fix.manual_reason


def test_inherited_init_points_at_the_base_class_and_stays_manual(tmp_path):
    f = only(findings_of(tmp_path, BY_ID["inherited-init-from-another-module"]), "DRIFT011")
    assert f.title == "`Thing` now requires `size` (parameter)"
    assert [(e.path, e.symbol) for e in f.target_evidence] == [("gizmo/base.py", "gizmo.base.Base.__init__")]
    assert f.fix.codemod is None


def test_factory_value_becomes_an_add_keyword_fix(tmp_path):
    f = only(findings_of(tmp_path, BY_ID["factory-fills-the-field"]), "DRIFT011")
    assert f.fix.codemod == "add_keyword"
    assert f.fix.args == {"callee": "Options", "keyword": "strict", "value": "False"}
    factory_line = line_of(FACTORY_AFTER, 'kwargs["strict"] = False')
    assert ("gizmo/core.py", factory_line) in [(e.path, e.line) for e in f.target_evidence]


@pytest.mark.parametrize("case_id", ["target-builds-it-itself", "target-builds-it-through-a-local"])
def test_target_construction_is_rewritten_in_consumer_terms(tmp_path, case_id):
    f = only(findings_of(tmp_path, BY_ID[case_id]), "DRIFT011")
    assert f.fix.codemod == "add_keyword"
    assert f.fix.args == {"callee": "Thing", "keyword": "size", "value": "self.cfg.block * 2"}
    source = BY_ID[case_id].after["gizmo/core.py"]
    assert ("gizmo/core.py", line_of(source, "return Thing(")) in [(e.path, e.line) for e in f.target_evidence]


def test_dataclass_field_evidence_is_the_field_line(tmp_path):
    f = only(findings_of(tmp_path, BY_ID["dataclass-field-without-default"]), "DRIFT011")
    assert [(e.path, e.line) for e in f.target_evidence] == [("gizmo/core.py", line_of(DC_REQ_FIELD, "depth: int"))]
    assert f.predicted_failure == "TypeError: Options.__init__() missing 1 required positional argument: 'depth'"


# -- DRIFT012: too many positionals -----------------------------------------------------------

POS_BEFORE = """
    def make(a, b=0):
        return a + b
    """
POS_AFTER = """
    def make(a):
        return a
    """
POS_STAR = """
    def make(a, *rest):
        return a
    """
CALLS_MAKE_2 = """
    from gizmo.core import make

    def main():
        return make(1, 2)
    """
CALLS_MAKE_3 = """
    from gizmo.core import make

    def main():
        return make(1, 2, 3)
    """

POSITIONAL_CASES = [
    Case("too-many", {"gizmo/core.py": POS_BEFORE}, {"gizmo/core.py": POS_AFTER}, {"app/main.py": CALLS_MAKE_2},
         [("DRIFT012", line_of(CALLS_MAKE_2, "make(1, 2)"))]),
    Case("fits", {"gizmo/core.py": POS_BEFORE}, {"gizmo/core.py": POS_AFTER}, {"app/main.py": CALLS_MAKE_1}, []),
    Case("now-takes-star-args", {"gizmo/core.py": POS_BEFORE}, {"gizmo/core.py": POS_STAR},
         {"app/main.py": CALLS_MAKE_2}, []),
    Case("too-many-already", {"gizmo/core.py": POS_BEFORE}, {"gizmo/core.py": POS_AFTER},
         {"app/main.py": CALLS_MAKE_3}, []),
]


@pytest.mark.parametrize("case", POSITIONAL_CASES, ids=lambda c: c.id)
def test_positional_arity(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_positional_arity_predicts_the_type_error(tmp_path):
    f = only(findings_of(tmp_path, POSITIONAL_CASES[0]), "DRIFT012")
    assert f.title == "`make` takes 1 positional argument(s), the call passes 2"


# -- the predicted failure is what Python really raises -----------------------------------------

ALL = {c.id: c for c in KEYWORD_CASES + REQUIRED_CASES + POSITIONAL_CASES}

RUNS = [
    pytest.param("function", "main()"),
    pytest.param("method-on-instance-made-in-init", "App().go()"),
    pytest.param("constructor", "main()"),
    pytest.param("constructor-through-re-export", "main()"),
    pytest.param("dataclass-field-removed", "main()"),
    pytest.param("plain-param", "main()"),
    pytest.param("dataclass-field-without-default", "main()"),
    pytest.param("initvar-without-default", "main()"),
    pytest.param("inherited-init-from-another-module", "App(None).build()"),
    pytest.param("target-builds-it-itself", "App(None).build()"),
    pytest.param("too-many", "main()"),
]


@pytest.mark.parametrize("case_id,expr", RUNS, ids=[r.values[0] for r in RUNS])
def test_predicted_failure_is_what_python_raises(tmp_path, case_id, expr):
    case = ALL[case_id]
    (f,) = findings_of(tmp_path, case)
    real = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", expr)
    assert f.predicted_failure == real


# -- more call shapes, each also held to what Python raises --------------------------------------

def _one(before: str, after: str, consumer: str) -> tuple[dict, dict, dict]:
    return {"gizmo/core.py": before}, {"gizmo/core.py": after}, {"app/main.py": consumer}


QUALNAME = ("drift/analysis/rules/base.py error_call_name names methods by their bare name (`start()`); "
            "Python 3.10+ uses the qualname (`E.start()`)")
SHAPES = [
    ("local-instance", *_one("class E:\n    def start(self, fast=False):\n        pass\n",
                             "class E:\n    def start(self):\n        pass\n",
                             "from gizmo.core import E\n\ndef main():\n    e = E()\n    return e.start(fast=True)\n"),
     ("DRIFT010", 5), QUALNAME),
    ("staticmethod-keyword", *_one("class E:\n    @staticmethod\n    def build(a, size=1):\n        pass\n",
                                   "class E:\n    @staticmethod\n    def build(a):\n        pass\n",
                                   "from gizmo.core import E\n\ndef main():\n    return E.build(1, size=2)\n"),
     ("DRIFT010", 4), QUALNAME),
    ("classmethod-positional", *_one("class E:\n    @classmethod\n    def build(cls, a, size=1):\n        pass\n",
                                     "class E:\n    @classmethod\n    def build(cls, a):\n        pass\n",
                                     "from gizmo.core import E\n\ndef main():\n    return E.build(1, 2)\n"),
     ("DRIFT012", 4), QUALNAME),
    ("kw-only-dataclass-positional",
     *_one("from dataclasses import dataclass\n\n@dataclass\nclass P:\n    a: int\n    b: int = 0\n",
           "from dataclasses import dataclass\n\n@dataclass(kw_only=True)\nclass P:\n    a: int\n    b: int = 0\n",
           "from gizmo.core import P\n\ndef main():\n    return P(1)\n"),
     ("DRIFT012", 4), "positional_arity says `takes 1 positional arguments`; Python says `argument` for 1"),
    ("keyword-only-required", *_one("def f(a):\n    pass\n", "def f(a, *, b):\n    pass\n",
                                    "from gizmo.core import f\n\ndef main():\n    return f(1)\n"),
     ("DRIFT011", 4), None),
    ("module-alias", *_one("def f(a, b=1):\n    pass\n", "def f(a):\n    pass\n",
                           "import gizmo.core as gc\n\ndef main():\n    return gc.f(1, b=2)\n"),
     ("DRIFT010", 4), None),
    ("dotted-module", *_one("def f(a, b=1):\n    pass\n", "def f(a):\n    pass\n",
                            "import gizmo.core\n\ndef main():\n    return gizmo.core.f(1, b=2)\n"),
     ("DRIFT010", 4), None),
    ("now-positional-only", *_one("def f(a, b=1):\n    pass\n", "def f(a, b=1, /):\n    pass\n",
                                  "from gizmo.core import f\n\ndef main():\n    return f(1, b=2)\n"),
     ("DRIFT010", 4), "keyword_removed predicts `unexpected keyword argument`; Python says `got some "
                      "positional-only arguments passed as keyword arguments: 'b'`"),
    ("init-removed", *_one("class E:\n    def __init__(self, size=1):\n        pass\n", "class E:\n    pass\n",
                           "from gizmo.core import E\n\ndef main():\n    return E(size=2)\n"),
     ("DRIFT010", 4), "a class left without any __init__ raises `E() takes no arguments`, drift predicts "
                      "`E.__init__() got an unexpected keyword argument 'size'`"),
]


@pytest.mark.parametrize("cid,before,after,consumer,expected,_bug", SHAPES, ids=[s[0] for s in SHAPES])
def test_call_shapes_are_resolved(tmp_path, cid, before, after, consumer, expected, _bug):
    assert_findings(findings_of(tmp_path, Case(cid, before, after, consumer)), [expected])


@pytest.mark.parametrize("cid,before,after,consumer,expected", [
    pytest.param(*s[:5], id=s[0]) for s in SHAPES])
def test_call_shapes_predict_what_python_raises(tmp_path, cid, before, after, consumer, expected):
    (f,) = findings_of(tmp_path, Case(cid, before, after, consumer))
    assert f.predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "main()")


@pytest.mark.parametrize("before,after", [
    ("from dataclasses import dataclass, field\n\n@dataclass\nclass P:\n    a: int = 0\n",
     "from dataclasses import dataclass, field\n\n@dataclass\nclass P:\n    a: int = 0\n"
     "    tags: list = field(default_factory=list)\n    n: int = field(default=3)\n"),
    ("from dataclasses import dataclass\n\n@dataclass\nclass Base:\n    a: int = 0\n\n@dataclass\nclass P(Base):\n"
     "    b: int = 1\n",
     "from dataclasses import dataclass\n\n@dataclass\nclass Base:\n    a: int = 0\n\n@dataclass\nclass P(Base):\n"
     "    b: int = 1\n    c: int = 2\n"),
], ids=["field-with-default-factory", "dataclass-inheriting-fields"])
def test_new_optional_fields_are_silent(tmp_path, before, after):
    consumer = "from gizmo.core import P\n\ndef main():\n    return P(a=1)\n"
    assert_findings(findings_of(tmp_path, Case("optional", *_one(before, after, consumer))), [])


def test_keyword_passed_through_super_init_of_a_consumer_subclass(tmp_path):
    consumer = ("from gizmo.core import Engine\n\n\nclass Mine(Engine):\n    def __init__(self):\n"
                "        super().__init__(size=2)\n")
    case = Case("super-init", *_one(ENGINE_BEFORE, ENGINE_AFTER, consumer), [("DRIFT010", 6)])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_call_with_star_kwargs_may_carry_the_new_parameter(tmp_path):
    case = Case("star-kwargs", *_one("def f(a):\n    pass\n", "def f(a, b):\n    pass\n",
                                     "from gizmo.core import f\n\ndef main(**kw):\n    return f(1, **kw)\n"), [])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_renamed_keyword_is_one_removed_and_one_required(tmp_path):
    case = Case("renamed", *_one("def f(a, size=1):\n    pass\n", "def f(a, *, block_size):\n    pass\n",
                                 "from gizmo.core import f\n\ndef main():\n    return f(1, size=2)\n"),
                [("DRIFT010", "no longer accepts `size=`"), ("DRIFT011", "now requires `block_size`")])
    assert_findings(findings_of(tmp_path, case), case.expected)


INIT_FACTORY_BEFORE = """
    class Options:
        def __init__(self, name):
            self.name = name

        @classmethod
        def create(cls, name, **kw):
            kwargs = dict(kw)
            return cls(name=name, **kwargs)
    """
INIT_FACTORY_AFTER = """
    class Options:
        def __init__(self, name, strict):
            self.name = name
            self.strict = strict

        @classmethod
        def create(cls, name, **kw):
            kwargs = dict(kw)
            kwargs["strict"] = False
            return cls(name=name, **kwargs)
    """


def test_factory_value_for_a_class_with_an_explicit_init(tmp_path):
    case = Case("init-factory", {"gizmo/core.py": INIT_FACTORY_BEFORE}, {"gizmo/core.py": INIT_FACTORY_AFTER},
                {"app/main.py": DC_CALL_NAME}, [("DRIFT011", "`Options` now requires `strict`")])
    f = only(findings_of(tmp_path, case), "DRIFT011")
    assert f.fix.args == {"callee": "Options", "keyword": "strict", "value": "False"}


# -- DRIFT013: a parameter inserted before a positional argument ---------------------------------

def _shift(before: str, after: str, call: str) -> Case:
    return Case("shift", {"gizmo/core.py": before}, {"gizmo/core.py": after},
                {"app/main.py": f"from gizmo.core import make\n\ndef main():\n    return {call}\n"})


SHIFT_CASES = [
    # optional parameter inserted mid-signature: runs, with 2 and 3 in the wrong parameters
    ("optional-inserted", _shift("def make(a, b=0, c=0):\n    return a\n",
                                 "def make(a, flag=False, b=0, c=0):\n    return a\n", "make(1, 2, 3)"),
     [("DRIFT013", 4)], "risky"),
    # a required parameter pushed past the last positional argument: TypeError
    ("required-displaced", _shift("def make(a, b):\n    return a\n",
                                  "def make(a, c, b):\n    return a\n", "make(1, 2)"),
     [("DRIFT013", 4)], "breaking"),
    # a keyword-only parameter became positional before the argument the consumer also names
    ("multiple-values", _shift("def make(a, b=0, *, k=1):\n    return a\n",
                               "def make(a, k=1, b=0):\n    return a\n", "make(1, 2, k=3)"),
     [("DRIFT013", 4)], "breaking"),
    # annotations disagree: a str now goes into a bool
    ("types-disagree", _shift("def make(a: int, b: str = ''):\n    return a\n",
                              "def make(a: int, flag: bool = False, b: str = ''):\n    return a\n", "make(1, 'x')"),
     [("DRIFT013", 4)], "breaking"),
    # not shifted: appended, renamed in place, arguments before the insertion, keywords only
    ("appended", _shift("def make(a, b=0):\n    return a\n", "def make(a, b=0, c=None):\n    return a\n",
                        "make(1, 2)"), [], None),
    ("renamed-in-place", _shift("def make(a, b=0):\n    return a\n", "def make(a, width=0):\n    return a\n",
                                "make(1, 2)"), [], None),
    ("before-insertion", _shift("def make(a, b=0):\n    return a\n", "def make(a, new=None, b=0):\n    return a\n",
                                "make(1)"), [], None),
    ("keywords", _shift("def make(a, b=0):\n    return a\n", "def make(a, new=None, b=0):\n    return a\n",
                        "make(a=1, b=2)"), [], None),
]


@pytest.mark.parametrize("case,expected,severity", [s[1:] for s in SHIFT_CASES], ids=[s[0] for s in SHIFT_CASES])
def test_positional_shift(tmp_path, case, expected, severity):
    findings = findings_of(tmp_path, case)
    assert_findings(findings, expected)
    if severity:
        assert only(findings, "DRIFT013").severity.value == severity


def test_positional_shift_says_which_argument_binds_what(tmp_path):
    f = only(findings_of(tmp_path, SHIFT_CASES[0][1]), "DRIFT013")
    assert f.title == "`make`: positional argument 2 was `b`, now binds `flag` (flag inserted before it)"
    assert f.details == "argument 2 (b) now binds flag, argument 3 (c) now binds b"
    assert f.predicted_failure is None and f.kind.name == "POSITIONAL_SHIFT"
    typed = only(findings_of(tmp_path / "typed", SHIFT_CASES[3][1]), "DRIFT013")
    assert "`b: str` is passed as `flag: bool`" in typed.details


def test_positional_shift_names_a_removal_as_a_removal(tmp_path):
    """Issue 24: DRIFT013 said "(X inserted before it)" when parameters were removed."""
    case = _shift("def make(a, old=0, b=0, c=0):\n    return a\n",
                  "def make(a, b=0, c=0, new=None):\n    return a\n", "make(1, 2, 3, 4)")
    f = only(findings_of(tmp_path, case), "DRIFT013")
    assert f.title == "`make`: positional argument 2 was `old`, now binds `b` (old removed)"
    assert f.details == ("argument 2 (old) now binds b, argument 3 (b) now binds c, "
                         "argument 4 (c) now binds new")
    assert "inserted" not in f.title


def test_a_removed_positional_parameter_shifts_the_next_onto_a_keyword_the_call_also_passes(tmp_path):
    """`f(a, b, gone, mla=False)` called `f(1, 2, 3, mla=True)`: the value written for `gone` now
    binds `mla`, which the call names too."""
    case = _shift("def make(a, b, gone=False, mla=False):\n    return a\n",
                  "def make(a, b, mla=False):\n    return a\n", "make(1, 2, False, mla=True)")
    f = only(findings_of(tmp_path, case), "DRIFT013")
    assert f.severity.value == "breaking"
    assert f.title == "`make`: positional argument 3 was `gone`, now binds `mla` (gone removed)"
    assert f.predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "main()")
    assert "multiple values for argument 'mla'" in f.predicted_failure


@pytest.mark.parametrize("cid", ["required-displaced", "multiple-values"])
def test_positional_shift_predicts_what_python_raises(tmp_path, cid):
    case = next(s[1] for s in SHIFT_CASES if s[0] == cid)
    f = only(findings_of(tmp_path, case), "DRIFT013")
    assert f.predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "main()")


OWN_CTORS_DISAGREE = """
    class Thing:
        def __init__(self, cfg, size):
            self.cfg = cfg
            self.size = size


    def build(cfg):
        return Thing(cfg=cfg, size=cfg.block * 2)


    def build_small(cfg):
        return Thing(cfg=cfg, size=1)
    """
OWN_CTORS_AGREE = OWN_CTOR_AFTER + """

    def build_again(cfg):
        return Thing(cfg=cfg, size=cfg.block * 2)
    """


def test_a_value_the_target_constructions_disagree_on_is_unsafe(tmp_path):
    """The value vLLM's own callers pass is safe only when every one of them passes it."""
    agree = only(findings_of(tmp_path / "a", Case("agree", {"gizmo/core.py": OWN_CTOR_BEFORE},
                                                  {"gizmo/core.py": OWN_CTORS_AGREE}, {"app/main.py": THING_CALL})),
                 "DRIFT011")
    assert (agree.fix.codemod, agree.fix.tier) == ("add_keyword", "safe")
    assert "all 2 of the target's constructions agree" in agree.fix.description
    split = only(findings_of(tmp_path / "d", Case("disagree", {"gizmo/core.py": OWN_CTOR_BEFORE},
                                                  {"gizmo/core.py": OWN_CTORS_DISAGREE}, {"app/main.py": THING_CALL})),
                 "DRIFT011")
    assert (split.fix.codemod, split.fix.tier) == ("add_keyword", "unsafe")
    assert split.fix.args["value"] in ("self.cfg.block * 2", "1")
    assert "pass something else" in split.fix.description


OWN_CTOR_FROM_ITS_LOCALS = """
    class Thing:
        def __init__(self, cfg, size):
            self.cfg = cfg
            self.size = size


    def build(cfg, counts):
        size = sum(counts) * 2
        return Thing(cfg=cfg, size=size)
    """


def test_a_value_built_from_the_targets_own_locals_is_manual_and_said_as_code(tmp_path):
    """`size` comes from `counts`, a parameter the consumer's call has no counterpart for: no
    value is written, but the manual edit shows the target's own construction, as vLLM's
    `SpecDecodeMetadata(cu_num_sampled_tokens=...)` in GPUModelRunner is shown to vllm-ascend."""
    f = only(findings_of(tmp_path, Case("locals", {"gizmo/core.py": OWN_CTOR_BEFORE},
                                        {"gizmo/core.py": OWN_CTOR_FROM_ITS_LOCALS}, {"app/main.py": THING_CALL})),
             "DRIFT011")
    assert f.fix.codemod is None and f.fix.tier == "manual"
    line = line_of(OWN_CTOR_FROM_ITS_LOCALS, "return Thing(")
    assert f.fix.description == ("pass `size=` as the target's own construction does: `size=size` in `build`, "
                                 f"where `size = sum(counts) * 2` (gizmo/core.py:{line})")
    assert "own locals" in f.fix.manual_reason


def test_too_many_positionals_for_a_reworked_signature_name_both_signatures(tmp_path):
    """vLLM 0.13's get_num_common_prefix_blocks(request, num_running_requests) became
    (running_request_id): no argument drops into place, so the manual edit shows both signatures
    and names the parameter the call must now fill."""
    before = {"gizmo/core.py": "def common(request, num_running):\n    return 0\n"}
    after = {"gizmo/core.py": "def common(running_request_id):\n    return 0\n"}
    consumer = {"app/main.py": "from gizmo.core import common\n\ndef main(r, rs):\n    return common(r, len(rs))\n"}
    f = only(findings_of(tmp_path, Case("reworked", before, after, consumer)), "DRIFT012")
    assert f.fix.codemod is None and f.fix.tier == "manual"
    assert f.fix.description == ("call `common` as the target declares it (running_request_id) where the baseline "
                                 "took (request, num_running): pass what `running_request_id` names (new in the target)")


def test_a_call_that_already_passed_too_many_positionals_is_no_shift(tmp_path):
    """`make(1, 2, 3, 4)` against the baseline's `make(a, b, gone=0)` raised there already: the
    removal of `gone` is no drift of that call."""
    case = _shift("def make(a, b, gone=0):\n    return a\n", "def make(a, b):\n    return a\n", "make(1, 2, 3, 4)")
    assert [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT013"] == []


OWN_CALL_BEFORE = """
    def alloc(cfg):
        return [cfg]


    def serve(config):
        return alloc(cfg=config)
    """
OWN_CALL_AFTER = """
    def alloc(cfg, block):
        return [cfg] * block


    def serve(config):
        return alloc(cfg=config, block=config.block)


    def serve_again(config):
        return alloc(cfg=config, block=config.block)
    """
ALLOC_CALL = """
    from gizmo.core import alloc

    class App:
        def __init__(self, cfg):
            self.cfg = cfg

        def build(self):
            return alloc(cfg=self.cfg)
    """


def test_a_new_required_argument_of_a_function_takes_the_value_the_targets_own_calls_pass(tmp_path):
    """A function's new parameter, not a class's: the target's own calls (facts +kwc `kw_calls`)
    give the value in the consumer's terms, safe when all of them agree."""
    f = only(findings_of(tmp_path, Case("own-call", {"gizmo/core.py": OWN_CALL_BEFORE},
                                        {"gizmo/core.py": OWN_CALL_AFTER}, {"app/main.py": ALLOC_CALL})), "DRIFT011")
    assert (f.fix.codemod, f.fix.tier, f.fix.args["value"]) == ("add_keyword", "safe", "self.cfg.block")
    assert "as `serve` calls it; all 2 of the target's calls agree" in f.fix.description


def test_a_shift_from_a_deleted_slot_shares_drift012s_drop_argument(tmp_path):
    """`init(a, cfg, state)` -> `init(a, state)` called `init(1, "cfg", "st")`: DRIFT012 (one argument
    too many) and DRIFT013 (`cfg`'s value now binds `state`) are one break; naming the arguments
    cannot be written (`cfg` is gone), so DRIFT013 carries DRIFT012's very `drop_argument`, and the
    one edit fixes both."""
    from drift.fixes import plan

    case = Case("deleted-slot", {"gizmo/core.py": "def init(a, cfg, state):\n    return (a, cfg, state)\n"},
                {"gizmo/core.py": "def init(a, state):\n    return (a, state)\n"},
                {"app/main.py": "from gizmo.core import init\n\n\ndef main():\n    return init(1, \"cfg\", \"st\")\n"})
    found = findings_of(tmp_path, case)
    arity, shift = only(found, "DRIFT012"), only(found, "DRIFT013")
    assert shift.fix == arity.fix and shift.fix.codemod == "drop_argument"
    assert shift.consumer_site == arity.consumer_site
    src = (tmp_path / "consumer" / "app" / "main.py").read_bytes()
    written = plan({"app/main.py": src}, [arity, shift], unsafe_fixes=True)
    assert set(written.finding_keys) == {arity.key, shift.key}
    assert written.changes[0].after.decode().endswith('    return init(1, "st")\n')
