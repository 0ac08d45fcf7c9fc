"""DRIFT010 / DRIFT011 on pydantic constructors, held to what pydantic really raises.

Whether an unknown keyword fails depends on the model's `extra` setting: pydantic dataclasses
and BaseModels ignore extras by default; vLLM's `@config` forbids them.
"""

from __future__ import annotations

import pydantic  # noqa: F401 - in the test extra: without it this module fails, it never skips
import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by


PYD_DATACLASS = """
    from pydantic import ConfigDict
    from pydantic.dataclasses import dataclass


    @dataclass(config=ConfigDict(extra="forbid"))
    class Options:
        {field}
        name: str = "x"
    """
BASE_MODEL = """
    from pydantic import BaseModel


    class Options(BaseModel):
        {field}
        name: str = "x"
    """
# a fake vLLM-style `@config`: a pydantic dataclass that forbids extra fields
VLLM_UTILS = """
    from pydantic import ConfigDict
    from pydantic.dataclasses import dataclass


    def config(cls):
        return dataclass(cls, config=ConfigDict(extra="forbid"))
    """
VLLM_CONFIG = """
    from vllm.config.utils import config


    @config
    class LoadConfig:
        {field}
        name: str = "x"
    """

PASSES_DEPTH = """
    from gizmo.core import Options

    def main():
        return Options(name="y", depth=2)
    """
PASSES_NAME = """
    from gizmo.core import Options

    def main():
        return Options(name="y")
    """
VLLM_PASSES_DEPTH = """
    from vllm.config.load import LoadConfig

    def main():
        return LoadConfig(name="y", depth=2)
    """
VLLM_PASSES_NAME = """
    from vllm.config.load import LoadConfig

    def main():
        return LoadConfig(name="y")
    """
OLD, NEW = "depth: int = 1", "depth: int"


def lib(template, field, **extra):
    return {"gizmo/core.py": template.format(field=field if field else "pass"), **extra}


def vllm(field):
    return {"vllm/config/utils.py": VLLM_UTILS, "vllm/config/load.py": VLLM_CONFIG.format(field=field or "pass")}


CASES = [
    # (case, vLLM?, what Python raises: a substring, or None for nothing)
    (Case("pydantic-dataclass-forbid-keyword-removed", lib(PYD_DATACLASS, OLD), lib(PYD_DATACLASS, None),
          {"app/main.py": PASSES_DEPTH}, [("DRIFT010", line_of(PASSES_DEPTH, "Options("))]), False,
     "Unexpected keyword argument"),
    (Case("pydantic-dataclass-field-required", lib(PYD_DATACLASS, None), lib(PYD_DATACLASS, NEW),
          {"app/main.py": PASSES_NAME}, [("DRIFT011", line_of(PASSES_NAME, "Options("))]), False, "Field required"),
    (Case("base-model-field-required", lib(BASE_MODEL, None), lib(BASE_MODEL, NEW),
          {"app/main.py": PASSES_NAME}, [("DRIFT011", line_of(PASSES_NAME, "Options("))]), False, "Field required"),
    (Case("vllm-config-keyword-removed", vllm(OLD), vllm(None), {"app/main.py": VLLM_PASSES_DEPTH},
          [("DRIFT010", line_of(VLLM_PASSES_DEPTH, "LoadConfig("))]), True, "Unexpected keyword argument"),
    (Case("vllm-config-field-required", vllm(None), vllm(NEW), {"app/main.py": VLLM_PASSES_NAME},
          [("DRIFT011", line_of(VLLM_PASSES_NAME, "LoadConfig("))]), True, "Field required"),
]


@pytest.mark.parametrize("case,is_vllm,real", CASES, ids=[c[0].id for c in CASES])
def test_pydantic_constructors(tmp_path, case, is_vllm, real):
    findings = findings_of(tmp_path, case, lib="vllm" if is_vllm else "gizmo")
    assert_findings(findings, case.expected)
    (f,) = findings
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "main()",
                       packages=("vllm", "app") if is_vllm else ("gizmo", "app"))
    assert raised is not None and raised.startswith("pydantic_core._pydantic_core.ValidationError: ")
    assert real in raised and "depth" in raised
    assert f.predicted_failure == f"pydantic_core.ValidationError: depth: {real}"


def test_base_model_ignores_an_unknown_keyword(tmp_path):
    case = Case("base-model-keyword-removed", lib(BASE_MODEL, OLD), lib(BASE_MODEL, None),
                {"app/main.py": PASSES_DEPTH}, [])
    findings = findings_of(tmp_path, case)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "main()") is None
    assert not [f for f in findings if f.severity.value == "breaking"], [f.title for f in findings]
