"""User rule packs (`--rules FILE`), the baseline read from metadata, and `drift check` on trees."""

from __future__ import annotations

import json

import pytest

from drift import exitcodes
from drift.consumer.baseline import baseline_from_requires
from drift.cli import main
from tests.rule_cases import Case, assert_findings, findings_of, line_of, run_case, src, write_tree

MAKE = "def make(a):\n    return a\n"
CALLS_MAKE = """
    from gizmo.core import make

    def main():
        return make(1)
    """
MAKE_LINE = line_of(CALLS_MAKE, "make(1)")

USER_RULES = '''
    from drift.findings import Finding, RuleKind, Severity
    from drift.analysis.rules.base import rule


    def no_make(ctx):
        """Every call to gizmo.core.make is reported (a house policy)."""
        for rc in ctx.calls:
            if rc.target is not None and rc.target.dotted == "gizmo.core.make":
                yield Finding(rule_id="USER001", kind=RuleKind.SEMANTIC, severity=Severity.BREAKING,
                              title="`make` is banned here", consumer_site=rc.site, symbol=rc.dotted)


    def explodes(ctx):
        """A rule with a bug of its own."""
        raise ValueError("boom")
        yield


    RULES = [rule("USER001", RuleKind.SEMANTIC)(no_make), rule("USER002", RuleKind.SEMANTIC)(explodes)]
    '''


def rules_file(tmp_path, text: str, name: str = "house_rules.py") -> str:
    path = tmp_path / name
    path.write_text(src(text))
    return str(path)


def run_simple(tmp_path, **kwargs):
    return run_case(tmp_path, before={"gizmo/core.py": MAKE}, after={"gizmo/core.py": MAKE},
                    consumer={"app/main.py": CALLS_MAKE}, **kwargs)


# -- rule packs -------------------------------------------------------------------------------

def test_user_rules_file_runs_beside_the_built_in_rules(tmp_path):
    out = run_simple(tmp_path, rule_paths=[rules_file(tmp_path, USER_RULES)])
    assert out.error is None
    assert_findings(out.report.findings, [("USER001", MAKE_LINE)])
    assert out.exit_code == exitcodes.DRIFT
    # the rule that raised is a caveat and makes the check incomplete; the others still ran
    assert any(n.startswith("rule USER002 failed: ValueError: boom") for n in out.report.caveats)
    assert out.report.incomplete == ("rule USER002 failed: ValueError: boom",)


EXPLODES_ONLY = USER_RULES.replace(
    'RULES = [rule("USER001", RuleKind.SEMANTIC)(no_make), rule("USER002", RuleKind.SEMANTIC)(explodes)]',
    'RULES = [rule("USER002", RuleKind.SEMANTIC)(explodes)]')


def test_a_rule_that_raises_never_lets_a_clean_check_pass(tmp_path, capsys):
    """Trees with nothing to report and one rule that raises: its findings are unknown, so the
    check is not clean: exit 1, the verdict says incomplete, and the JSON report says which rule."""
    rules = rules_file(tmp_path, EXPLODES_ONLY)
    out = run_simple(tmp_path, rule_paths=[rules])
    assert out.error is None and out.report.findings == ()
    assert out.exit_code == exitcodes.DRIFT
    trees = tmp_path
    code = main(["check", str(trees / "consumer"), "--target", str(trees / "after"), "--baseline",
                 str(trees / "before"), "--package", "gizmo", "--rules", rules, "--format", "json"])
    captured = capsys.readouterr()
    assert code == exitcodes.DRIFT
    report = json.loads(captured.out)
    assert report["exit_code"] == 1 and report["findings"] == []
    assert report["incomplete"] == ["rule USER002 failed: ValueError: boom"]
    assert "incomplete: 1 rule failed" in report["verdict"]
    assert any("USER002" in c and "incomplete" in c for c in report["caveats"])
    assert "Traceback" not in captured.err
    code = main(["check", str(trees / "consumer"), "--target", str(trees / "after"), "--baseline",
                 str(trees / "before"), "--package", "gizmo", "--rules", rules])
    terminal = capsys.readouterr().out
    assert code == exitcodes.DRIFT and "incomplete" in terminal and "USER002" in terminal


def test_without_the_rules_file_the_same_trees_are_clean(tmp_path):
    out = run_simple(tmp_path)
    assert out.error is None and out.report.findings == () and out.exit_code == exitcodes.CLEAN


@pytest.mark.parametrize("text,message", [
    ("def broken(:\n", "failed to load: SyntaxError"),
    ("raise ImportError('no torch here')\n", "failed to load: ImportError: no torch here"),
    ("RULES = [print]\n", "must define RULES = [rule, ...]"),
    ("X = 1\n", "must define RULES = [rule, ...]"),
])
def test_broken_rules_file_is_a_clear_usage_error(tmp_path, text, message):
    path = rules_file(tmp_path, text, name="bad_rules.py")
    out = run_simple(tmp_path, rule_paths=[path])
    assert out.report is None
    assert out.exit_code == exitcodes.USAGE == 2
    assert path in out.error and message in out.error
    assert "\n" not in out.error


def test_missing_rules_file_is_a_usage_error(tmp_path):
    out = run_simple(tmp_path, rule_paths=[str(tmp_path / "nope.py")])
    assert (out.report, out.exit_code) == (None, exitcodes.USAGE)
    assert out.error == f"no such rules file: {tmp_path / 'nope.py'}"


MODEL_DECORATOR = """
    def model(cls):
        return cls
    """
OPTIONS = """
    from gizmo.base import model


    @model
    class Options:
        {field}
        name: str = "x"
    """
CALLS_OPTIONS = """
    from gizmo.core import Options

    def main():
        return Options(name="y")
    """


def test_rules_file_can_declare_dataclass_decorators(tmp_path):
    case = Case("custom-dataclass",
                {"gizmo/base.py": MODEL_DECORATOR, "gizmo/core.py": OPTIONS.format(field="size: int = 1")},
                {"gizmo/base.py": MODEL_DECORATOR, "gizmo/core.py": OPTIONS.format(field="depth: int")},
                {"app/main.py": CALLS_OPTIONS}, [("DRIFT011", "`Options` now requires `depth` (field: int)")])
    path = rules_file(tmp_path, 'RULES = []\nDATACLASS_DECORATORS = {"gizmo.base.model"}\n')
    assert_findings(findings_of(tmp_path / "with", case, rule_paths=[path]), case.expected)
    assert_findings(findings_of(tmp_path / "without", case), [])


# -- baseline from the consumer's metadata ------------------------------------------------------

def test_baseline_from_a_pin_in_an_extra():
    spec, why = baseline_from_requires(["torch>=2.1", 'vllm==0.11.0; extra == "datagen"'], "vllm")
    assert spec == "vllm==0.11.0"
    assert why == "from the consumer's metadata (Requires-Dist: vllm==0.11.0; extra == \"datagen\")"


def test_baseline_name_is_matched_canonically():
    assert baseline_from_requires(["Gizmo_Lib===2.0"], "gizmo-lib")[0] == "Gizmo_Lib==2.0"


RELEASES = ["0.13.0", "0.12.0rc1", "0.11.2", "0.11.0", "0.10.2", "0.9.0"]


@pytest.mark.parametrize("requires,want", [(["vllm>=0.10"], "vllm==0.13.0"), (["vllm==0.11.*"], "vllm==0.11.2"),
                                           (["vllm>=0.10.2,<0.12.0"], "vllm==0.11.2"),
                                           (['vllm<=0.11.0,>=0.8.5; extra == "vllm"'], "vllm==0.11.0")])
def test_baseline_from_a_range_is_the_highest_release_it_admits(requires, want):
    spec, why = baseline_from_requires(["not a requirement !!"] + requires, "vllm", versions=lambda name: RELEASES)
    assert spec == want  # pre-releases are never a baseline
    assert why == f"the highest release admitted by the consumer's range (Requires-Dist: {requires[0]})"


def test_baseline_from_a_range_without_an_index_is_none_with_a_hint():
    def unreachable(name):
        raise OSError("Connection refused")

    spec, why = baseline_from_requires(["vllm>=0.10,<0.12"], "vllm", versions=unreachable)
    assert spec is None
    assert "only gives a range (vllm>=0.10,<0.12)" in why and "Connection refused" in why
    assert "pass --baseline vllm==VERSION" in why
    spec, why = baseline_from_requires(["vllm>=0.10,<0.12"], "vllm", versions=lambda name: ["0.9.0"])
    assert spec is None and "pass --baseline vllm==VERSION" in why


def test_baseline_absent():
    spec, why = baseline_from_requires(["torch>=2.1"], "vllm")
    assert spec is None
    assert why == "the consumer's metadata names no vllm version; pass --baseline vllm==VERSION"


# -- `drift check` on synthetic trees -----------------------------------------------------------

FUNC_BEFORE = "def make(a, size=1):\n    return [a] * size\n"
CALLS_SIZE = """
    from gizmo.core import make

    def main():
        return make(1, size=2)
    """


@pytest.fixture
def trees(tmp_path, monkeypatch):
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    write_tree(tmp_path / "before", {"gizmo/core.py": FUNC_BEFORE})
    write_tree(tmp_path / "after", {"gizmo/core.py": MAKE})
    write_tree(tmp_path / "consumer", {"app/main.py": CALLS_SIZE})
    return tmp_path


def test_cli_check_exits_1_on_breaking_drift(trees, capsys):
    code = main(["check", str(trees / "consumer"), "--target", str(trees / "after"),
                 "--baseline", str(trees / "before"), "--package", "gizmo", "--format", "json"])
    out = capsys.readouterr()
    assert code == exitcodes.DRIFT
    report = json.loads(out.out)
    assert [(f["rule_id"], f["consumer_site"]["path"], f["consumer_site"]["line"]) for f in report["findings"]] == [
        ("DRIFT010", "app/main.py", line_of(CALLS_SIZE, "make(1, size=2)"))]
    assert "Traceback" not in out.err


def test_cli_check_exits_0_when_clean(trees, capsys):
    code = main(["check", str(trees / "consumer"), "--target", str(trees / "before"),
                 "--baseline", str(trees / "before"), "--package", "gizmo", "--format", "json"])
    out = capsys.readouterr()
    assert code == exitcodes.CLEAN
    assert json.loads(out.out)["findings"] == []


def test_cli_check_user_rules_and_broken_rules(trees, capsys):
    good = rules_file(trees, USER_RULES)
    code = main(["check", str(trees / "consumer"), "--target", str(trees / "before"), "--baseline",
                 str(trees / "before"), "--package", "gizmo", "--rules", good, "--format", "json"])
    assert code == exitcodes.DRIFT
    assert [f["rule_id"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["USER001"]
    bad = rules_file(trees, "def broken(:\n", name="bad_rules.py")
    code = main(["check", str(trees / "consumer"), "--target", str(trees / "before"), "--package", "gizmo",
                 "--rules", bad])
    out = capsys.readouterr()
    assert code == exitcodes.USAGE
    assert out.out == ""
    assert out.err.startswith(f"drift: error: rules file {bad} failed to load: SyntaxError")
    assert "Traceback" not in out.err


def test_cli_check_missing_target_is_one_clear_line(trees, capsys):
    code = main(["check", str(trees / "consumer"), "--target", "/no/such/path", "--package", "gizmo"])
    out = capsys.readouterr()
    assert code == exitcodes.USAGE
    assert out.out == ""
    assert out.err == "drift: error: target: no such path: /no/such/path\n"


def test_cli_check_missing_consumer_is_one_clear_line(trees, capsys):
    code = main(["check", "/no/such/consumer", "--target", str(trees / "after"), "--package", "gizmo"])
    out = capsys.readouterr()
    assert code == exitcodes.USAGE
    assert out.err == "drift: error: consumer: no such path: /no/such/consumer\n"


def test_cli_check_without_baseline_says_so(trees, capsys):
    code = main(["check", str(trees / "consumer"), "--target", str(trees / "after"), "--package", "gizmo",
                 "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == exitcodes.DRIFT  # against the target alone, make(1, size=2) still fails
    assert [f["rule_id"] for f in report["findings"]] == ["DRIFT010"]
    assert report["baseline"] is None
    assert any(n.startswith("no baseline: the consumer's metadata names no gizmo version") for n in report["notes"])


def test_cli_check_target_without_the_package_is_one_clear_line(trees, capsys):
    code = main(["check", str(trees / "consumer"), "--target", str(trees / "consumer"), "--package", "gizmo"])
    out = capsys.readouterr()
    assert code == exitcodes.USAGE
    assert out.err.startswith("drift: error: target: ") and "no Python package named gizmo" in out.err
    assert out.err.count("\n") == 1
