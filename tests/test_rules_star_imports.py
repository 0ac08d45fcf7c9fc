"""`from gizmo.x import *` in the consumer: the names it binds are the target's names
(probes/star_imports.py binds the module's free names; drift/analysis/star_names.py decides with
each release's facts which ones the star really gave)."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only

CORE = """
    def helper(x):
        return x

    def _private(x):
        return x

    class Engine:
        def run(self, a):
            return a
    """

CORE_WITHOUT_HELPER = """
    def _private(x):
        return x

    class Engine:
        def run(self, a):
            return a
    """

USES_STAR = """
    from gizmo.core import *


    class Mine(Engine):
        pass


    def main(value):
        return helper(value)
    """

USE_LINE = line_of(USES_STAR, "return helper(")
STAR_LINE = line_of(USES_STAR, "import *")

CASES = [
    # the star statement still imports; the first evaluation of the name raises NameError
    Case("name-gone", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE_WITHOUT_HELPER},
         {"app/main.py": USES_STAR}, [("DRIFT001", USE_LINE)]),
    Case("name-moved", {"gizmo/core.py": CORE},
         {"gizmo/core.py": CORE_WITHOUT_HELPER, "gizmo/util.py": "def helper(x):\n    return x\n"},
         {"app/main.py": USES_STAR}, [("DRIFT002", "it lives in `gizmo.util`")]),
    Case("unchanged", {"gizmo/core.py": CORE}, {"gizmo/core.py": CORE}, {"app/main.py": USES_STAR}, []),
    # a name the baseline's module only imported is exported by its star too (no `__all__`)
    Case("re-exported-name-dropped",
         {"gizmo/core.py": "from gizmo.util import helper\n\nclass Engine:\n    pass\n",
          "gizmo/util.py": "def helper(x):\n    return x\n"},
         {"gizmo/core.py": "class Engine:\n    pass\n", "gizmo/util.py": "def helper(x):\n    return x\n"},
         {"app/main.py": USES_STAR}, [("DRIFT002", "it lives in `gizmo.util`")]),
    # `__all__` decides what the star gives: a name outside it was never bound on either side
    Case("outside-all", {"gizmo/core.py": "__all__ = ['Engine']\n" + "\n".join(l[4:] for l in CORE.splitlines())},
         {"gizmo/core.py": CORE_WITHOUT_HELPER}, {"app/main.py": USES_STAR}, []),
    # `__all__` of the target leaves the name out: the star stops binding it though it is still defined
    Case("dropped-from-all", {"gizmo/core.py": CORE},
         {"gizmo/core.py": "__all__ = ['Engine']\n" + "\n".join(l[4:] for l in CORE.splitlines())},
         {"app/main.py": USES_STAR}, [("DRIFT001", USE_LINE)]),
    # a private name is never the star's, and a name neither release has is not vLLM's either
    Case("private-and-unknown-names", {"gizmo/core.py": CORE}, {"gizmo/core.py": "class Engine:\n    pass\n"},
         {"app/main.py": "from gizmo.core import *\n\nx = _private(1)\ny = mystery(2)\n"}, []),
    Case("module-gone", {"gizmo/core.py": CORE}, {"gizmo/other.py": CORE},
         {"app/main.py": USES_STAR}, [("DRIFT001", STAR_LINE)]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_star_import_names(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_lost_name_finding_names_the_star_and_the_failure(tmp_path):
    f = only(findings_of(tmp_path, CASES[0]), "DRIFT001")
    assert f.title == f"`helper` is no longer bound by `from gizmo.core import *` (line {STAR_LINE})"
    assert f.predicted_failure == "NameError: name 'helper' is not defined"
    assert [(e.path, e.symbol) for e in f.baseline_evidence] == [("gizmo/core.py", "gizmo.core.helper")]


def test_star_names_type_the_module_calls(tmp_path):
    """A name bound by the star is a target name like any import: a call of it is checked against
    the target's signature (here a removed keyword)."""
    case = Case("call-through-star", {"gizmo/core.py": "def helper(x, scale=1):\n    return x\n"},
                {"gizmo/core.py": "def helper(x):\n    return x\n"},
                {"app/main.py": "from gizmo.core import *\n\n\ndef main():\n    return helper(1, scale=2)\n"},
                [("DRIFT010", 5)])
    assert_findings(findings_of(tmp_path, case), case.expected)
