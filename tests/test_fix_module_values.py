"""Module-level values a consumer imported that left their module (DRIFT001/DRIFT002's fixes).

A value the baseline built with a factory call (`logger = init_logger(__name__)`) is built by the
consumer the same way (`build_from_factory`); a constant is imported from its new home when the
target's own code moved its import there, or both releases bind one literal (`move_import`).
Real rules over synthetic before/after trees, the real planner, and the patched code really run.
"""

from __future__ import annotations

from drift.findings import MANUAL, SAFE, UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only, raised_by

LOG = """
    import logging

    def init_logger(name):
        logger = logging.getLogger(name)
        logger.tagged = True
        return logger
    """
CACHE = """
    def make_cache(name, size=4):
        return {"name": name, "size": size}
    """
BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/log.py": LOG,
    "gizmo/cache.py": CACHE,
    "gizmo/utils/__init__.py": """
        from gizmo.cache import make_cache
        from gizmo.log import init_logger

        logger = init_logger(__name__)
        cache = make_cache(__name__, size=8)
        GiB_bytes = 1 << 30
        DTYPES = {"float32": "f4", "half": "f2", "bfloat16": "bf16", "float": "f4", "float16": "f2", "int8": "i1"}
        UNITS = {"float32": "f4", "half": "f2", "bfloat16": "bf16", "float": "f4", "float16": "f2", "int8": "i1"}

        def cdiv(a, b):
            return -(a // -b)
        """,
    "gizmo/worker.py": """
        from gizmo.utils import DTYPES
        """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/log.py": LOG,
    "gizmo/cache.py": CACHE,
    "gizmo/utils/__init__.py": "",
    "gizmo/utils/math_utils.py": """
        from gizmo.log import init_logger

        logger = init_logger(__name__)

        def cdiv(a, b):
            return -(a // -b)
        """,
    "gizmo/utils/mem_constants.py": "GiB_bytes = 1 << 30\n",
    "gizmo/utils/torch_utils.py": """
        DTYPES = {"float32": "f4", "half": "f2", "bfloat16": "bf16", "float": "f4", "float16": "f2", "int8": "i1"}
        UNITS = {"float32": "f4", "half": "f2", "bfloat16": "bf16", "float": "f4", "float16": "f2", "int8": "i1"}
        """,
    "gizmo/worker.py": """
        from gizmo.utils.torch_utils import DTYPES
        """,
}


def _case(consumer: str) -> Case:
    return Case("values", BEFORE, AFTER, {"app/__init__.py": "", "app/main.py": consumer})


def _plan(tmp_path, findings, **kw):
    return plan({"app/main.py": (tmp_path / "consumer/app/main.py").read_bytes()}, findings, **kw)


def _breaking(tmp_path, text: str) -> list:
    return [g for g in findings_of(tmp_path, _case(text)) if g.severity.value == "breaking"]


def test_a_logger_the_baseline_built_is_built_by_the_consumer_as_the_same_object(tmp_path):
    findings = findings_of(tmp_path, _case("""
        from gizmo.utils import cdiv, logger


        def pages(n):
            logger.info("pages")
            return cdiv(n, 16)
        """))
    f = next(g for g in findings if g.symbol == "gizmo.utils.logger")
    assert f.rule_id == "DRIFT001" and "lives in" not in f.title  # no same-named logger elsewhere is its home
    assert f.fix.tier == SAFE and f.fix.codemod == "build_from_factory"
    assert f.fix.description.startswith('import `init_logger` from `gizmo.log` and set `logger = init_logger("gizmo.utils")`')
    text = _plan(tmp_path, findings).changes[0].after.decode()
    assert 'from gizmo.log import init_logger\n' in text and 'logger = init_logger("gizmo.utils")\n' in text
    assert "from gizmo.utils.math_utils import cdiv" in text
    # the patched module runs on both releases and holds the very logger the baseline's module bound
    (tmp_path / "patched/app").mkdir(parents=True)
    (tmp_path / "patched/app/__init__.py").write_text("")
    (tmp_path / "patched/app/main.py").write_text(text.replace("from gizmo.utils.math_utils import cdiv",
                                                               "from gizmo.utils import cdiv"))
    check = "None if __import__('app.main').main.logger is __import__('gizmo.utils').utils.logger else 1/0"
    assert raised_by([tmp_path / "patched", tmp_path / "before"], "app.main", check) is None
    (tmp_path / "patched/app/main.py").write_text(text)
    assert raised_by([tmp_path / "patched", tmp_path / "after"], "app.main", "pages(40)") is None
    # re-checked: nothing breaks any more, and a second plan changes nothing
    assert not _breaking(tmp_path / "again", text)
    (tmp_path / "consumer/app/main.py").write_text(text)
    assert _plan(tmp_path, findings_of(tmp_path / "third", _case(text))).empty


def test_a_value_from_a_factory_that_is_no_registry_is_rebuilt_only_as_unsafe(tmp_path):
    findings = findings_of(tmp_path, _case("""
        from gizmo.utils import cache
        """))
    f = only(findings, "DRIFT001")
    assert f.fix.tier == UNSAFE and f.fix.codemod == "build_from_factory"
    assert '`cache = make_cache("gizmo.utils", size=8)`' in f.fix.description
    assert _plan(tmp_path, findings).empty
    text = _plan(tmp_path, findings, unsafe_fixes=True).changes[0].after.decode()
    assert text == 'from gizmo.cache import make_cache\n\ncache = make_cache("gizmo.utils", size=8)\n'


def test_a_constant_the_targets_own_code_imports_from_its_new_home_moves_safely(tmp_path):
    findings = findings_of(tmp_path, _case("""
        from gizmo.utils import DTYPES, GiB_bytes
        """))
    by_name = {g.symbol.rsplit(".", 1)[1]: g for g in findings}
    assert {n: (g.rule_id, g.fix.tier, g.fix.codemod) for n, g in by_name.items()} == {
        "DTYPES": ("DRIFT002", SAFE, "move_import"), "GiB_bytes": ("DRIFT002", SAFE, "move_import")}
    assert "gizmo.worker imports it there too" in by_name["DTYPES"].fix.description
    assert "the same literal in both" in by_name["GiB_bytes"].fix.description
    text = _plan(tmp_path, findings).changes[0].after.decode()
    assert text == ("from gizmo.utils.mem_constants import GiB_bytes\n"
                    "from gizmo.utils.torch_utils import DTYPES\n")
    assert not _breaking(tmp_path / "again", text)


def test_a_constant_nothing_vouches_for_stays_manual(tmp_path):
    # UNITS moved too, but its value is too long for the facts to compare and no code of the
    # target's imports it: a same-named value may be another one
    findings = findings_of(tmp_path, _case("""
        from gizmo.utils import UNITS
        """))
    f = only(findings, "DRIFT002")
    assert f.fix.tier == MANUAL
    assert _plan(tmp_path, findings, unsafe_fixes=True).empty

