"""DRIFT002's fix: import a moved name from its new home, safe only when nothing else changed.

Real rules over synthetic before/after trees, then the real planner on the consumer's file.
"""

from __future__ import annotations

from drift.findings import MANUAL, SAFE, UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only

UTILS_BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/utils/__init__.py": """
        import logging

        logger = logging.getLogger(__name__)

        def cdiv(a, b):
            return -(a // -b)

        def get_ip(family=4):
            return "127.0.0.1"
        """,
}
UTILS_AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/utils/__init__.py": "",
    "gizmo/utils/math_utils.py": """
        def cdiv(a, b):
            return -(a // -b)
        """,
    "gizmo/utils/network_utils.py": """
        import logging

        logger = logging.getLogger(__name__)

        def get_ip(family=6, *, timeout=1.0):
            return "::1"
        """,
}


def _case(consumer: str) -> Case:
    return Case("moved", UTILS_BEFORE, UTILS_AFTER, {"app/__init__.py": "", "app/main.py": consumer})


def _plan(tmp_path, findings, **kw):
    return plan({"app/main.py": (tmp_path / "consumer/app/main.py").read_bytes()}, findings, **kw)


def test_a_pure_move_is_a_safe_import_rewrite(tmp_path):
    findings = findings_of(tmp_path, _case("""
        from gizmo.utils import cdiv

        def pages(n):
            return cdiv(n, 16)
        """))
    f = only(findings, "DRIFT002")
    assert f.fix.tier == SAFE and f.fix.codemod == "move_import"
    assert f.fix.description == "import `cdiv` from `gizmo.utils.math_utils`"
    p = _plan(tmp_path, findings)
    text = p.changes[0].after.decode()
    assert text.startswith("from gizmo.utils.math_utils import cdiv\n")
    assert "return cdiv(n, 16)" in text
    # the patched tree re-checks clean, and a second plan changes nothing
    (tmp_path / "consumer/app/main.py").write_bytes(p.changes[0].after)
    assert not [g for g in findings_of(tmp_path / "again", _case(text)) if g.severity.value == "breaking"]
    assert _plan(tmp_path, findings).empty


def test_a_move_that_changed_the_api_is_unsafe(tmp_path):
    findings = findings_of(tmp_path, _case("""
        from gizmo.utils import get_ip
        """))
    f = only(findings, "DRIFT002")
    assert f.fix.tier == UNSAFE
    assert _plan(tmp_path, findings).empty
    assert b"from gizmo.utils.network_utils import get_ip" in _plan(tmp_path, findings, unsafe_fixes=True).changes[0].after


def test_a_move_the_target_itself_made_is_safe_even_when_the_api_changed(tmp_path):
    """vLLM 0.16 moved `OpenAIServingChat` from `serving_chat` to `chat_completion.serving` and changed
    its constructor; its own api_server switched its import the same way. The import edit binds the
    very object vLLM now uses in its place: safe. What changed in its API is reported at each use."""
    before = {"gizmo/__init__.py": "", "gizmo/utils/__init__.py": "def get_ip(family=4):\n    return 1\n",
              "gizmo/server.py": "from gizmo.utils import get_ip\n"}
    after = {"gizmo/__init__.py": "", "gizmo/utils/__init__.py": "",
             "gizmo/utils/network_utils.py": "def get_ip(family=6, *, timeout):\n    return 1\n",
             "gizmo/server.py": "from gizmo.utils.network_utils import get_ip\n"}
    consumer = """
        from gizmo.utils import get_ip

        def addr():
            return get_ip(4)
        """
    findings = findings_of(tmp_path, Case("moved-own", before, after, {"app/__init__.py": "", "app/main.py": consumer}))
    f = only(findings, "DRIFT002")
    assert f.fix.tier == SAFE and f.fix.codemod == "move_import"
    assert "the target's own gizmo.server imports it from there" in f.fix.description
    text = _plan(tmp_path, findings).changes[0].after.decode()
    assert text.startswith("from gizmo.utils.network_utils import get_ip\n")
    # the changed API is not hidden: the call lacking the new required keyword is its own finding
    assert only(findings, "DRIFT011").consumer_site.line == 4
    # without the target's own switch the same move is only judged compatible: unsafe
    alone = findings_of(tmp_path / "alone", Case("moved-alone", {k: v for k, v in before.items() if k != "gizmo/server.py"},
                                                 {k: v for k, v in after.items() if k != "gizmo/server.py"},
                                                 {"app/__init__.py": "", "app/main.py": consumer}))
    assert only(alone, "DRIFT002").fix.tier == UNSAFE


def test_a_move_made_in_a_refactor_that_moved_its_importers_too_is_safe(tmp_path):
    """vLLM 0.16's `ChatCompletionRequest` left `openai.protocol` in the refactor that also moved the
    modules importing it: no module switched in place, but every target module that imports the
    name takes it from the new home. Not when one of them takes a same-named name from elsewhere."""
    def case(extra: dict[str, str]) -> Case:
        before = {"gizmo/__init__.py": "", "gizmo/utils/__init__.py": "def get_ip(family=4):\n    return 1\n",
                  "gizmo/server.py": "from gizmo.utils import get_ip\n"}
        after = {"gizmo/__init__.py": "", "gizmo/utils/__init__.py": "",
                 "gizmo/utils/network_utils.py": "def get_ip(family=6, *, timeout):\n    return 1\n",
                 "gizmo/serve/__init__.py": "", "gizmo/serve/api.py": "from gizmo.utils.network_utils import get_ip\n",
                 **extra}
        return Case("moved-refactor", before, after, {"app/__init__.py": "", "app/main.py": """
            from gizmo.utils import get_ip
            """})
    f = only(findings_of(tmp_path / "sole", case({})), "DRIFT002")
    assert f.fix.tier == SAFE and "the target's own gizmo.serve.api imports it from there" in f.fix.description
    other = {"gizmo/compat.py": "def get_ip():\n    return 0\n", "gizmo/serve/old.py": "from gizmo.compat import get_ip\n"}
    assert only(findings_of(tmp_path / "two", case(other)), "DRIFT002").fix.tier == UNSAFE


def test_a_module_level_name_of_the_same_name_elsewhere_is_manual(tmp_path):
    findings = findings_of(tmp_path, _case("""
        from gizmo.utils import logger
        """))
    hits = [g for g in findings if g.rule_id in ("DRIFT001", "DRIFT002")]
    assert hits and all(g.fix.tier == MANUAL for g in hits)
    assert _plan(tmp_path, findings, unsafe_fixes=True).empty


def test_a_gone_module_whose_names_all_moved_is_rewritten_name_by_name(tmp_path):
    """`from gone import (a, b)`: one finding per name, each with its own move; applied
    together they leave no import of the gone module and the tree re-checks clean."""
    before = {"gizmo/__init__.py": "", "gizmo/old.py": "def cdiv(a, b):\n    return -(a // -b)\n\n"
                                                     "def floor(a, b):\n    return a // b\n"}
    after = {"gizmo/__init__.py": "", "gizmo/math_utils.py": "def cdiv(a, b):\n    return -(a // -b)\n\n"
                                                             "def floor(a, b):\n    return a // b\n"}
    consumer = "from gizmo.old import (\n    cdiv,\n    floor,\n)\n\n\ndef pages(n):\n    return cdiv(n, 16) + floor(n, 2)\n"
    case = Case("gone", before, after, {"app/__init__.py": "", "app/main.py": consumer})
    findings = findings_of(tmp_path, case)
    # each at the statement's first line, where Python raises; the name's own line is use_line
    assert sorted((g.rule_id, g.consumer_site.line, g.consumer_site.use_line, g.fix.tier) for g in findings) == [
        ("DRIFT002", 1, 2, SAFE), ("DRIFT002", 1, 3, SAFE)]
    p = _plan(tmp_path, findings)
    text = p.changes[0].after.decode()
    assert text.startswith("from gizmo.math_utils import cdiv, floor\n") and "gizmo.old" not in text
    again = Case("gone", before, after, {"app/__init__.py": "", "app/main.py": text})
    assert not [g for g in findings_of(tmp_path / "again", again) if g.severity.value == "breaking"]


def _prompts(extra_key: str) -> Case:
    """`gizmo.inputs.data` (a TypedDict module) goes; its `TokensIn` lives on in `gizmo.inputs.llm`
    with the shared keys moved to a base and one key added (`extra_key`)."""
    before = {"gizmo/__init__.py": "", "gizmo/inputs/__init__.py": "", "gizmo/inputs/data.py": """
        from typing import TypedDict
        from typing_extensions import NotRequired

        class TokensIn(TypedDict):
            token_ids: list[int]
            salt: NotRequired[str]
            media: NotRequired[dict]
        """}
    after = {"gizmo/__init__.py": "", "gizmo/inputs/__init__.py": "", "gizmo/inputs/llm.py": f"""
        from typing import TypedDict
        from typing_extensions import NotRequired

        class _Options(TypedDict):
            salt: NotRequired[str]
            media: NotRequired[dict]

        class TokensIn(_Options):
            token_ids: list[int]
            {extra_key}
        """}
    return Case("typeddict-moved", before, after, {"app/__init__.py": "", "app/main.py": """
        from gizmo.inputs.data import TokensIn

        def wrap(ids):
            return TokensIn(token_ids=ids)
        """})


def test_a_typeddict_whose_keys_moved_to_a_base_is_a_safe_move(tmp_path):
    f = only(findings_of(tmp_path, _prompts("offsets: NotRequired[list[int]]")), "DRIFT002")
    assert (f.fix.codemod, f.fix.tier) == ("move_import", SAFE)
    assert f.fix.args["moves"] == {"TokensIn": "gizmo.inputs.llm"}
    done = _plan(tmp_path, [f]).changes[0].after
    assert done.decode().startswith("from gizmo.inputs.llm import TokensIn\n")
    assert plan({"app/main.py": done}, [f]).empty  # a second run changes nothing


def test_a_typeddict_that_now_requires_a_new_key_is_no_safe_move(tmp_path):
    findings = findings_of(tmp_path, _prompts("offsets: list[int]"))
    assert not any(f.rule_id == "DRIFT002" and f.fix and f.fix.tier == SAFE for f in findings)
