"""DRIFT012's drop_argument over synthetic before/after packages: the target deleted a parameter
from the middle of a signature and reads that value elsewhere now (`init_state(client, config,
state, args)` -> `init_state(client, state, args)`, the config read from the client); the call's
argument at that position is dropped (unsafe), the rest bind to the baseline's names again, the
patched consumer runs on the target, re-checks clean, and a second plan changes nothing. A
signature whose kept parameters changed order gets no such edit."""

from __future__ import annotations

from drift.findings import UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/api.py": """
    class Client:
        config = "cfg"


    def init_state(client, config, state, args):
        return (config, state, args)
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/api.py": """
    class Client:
        config = "cfg"


    def init_state(client, state, args):
        if not isinstance(client, Client):
            raise TypeError("client must be a Client")
        return (client.config, state, args)
    """}
CONSUMER = {"app/__init__.py": "", "app/serve.py": """
    from gizmo.api import Client, init_state


    def serve(args):
        client = Client()
        return init_state(client, client.config, {"s": 1}, args)
    """}


def test_the_argument_at_the_deleted_parameter_is_dropped(tmp_path):
    findings = findings_of(tmp_path, Case("removed-slot", BEFORE, AFTER, CONSUMER))
    f = only(findings, "DRIFT012")
    assert f.fix.codemod == "drop_argument" and f.fix.tier == UNSAFE
    assert f.fix.args == {"callee": "init_state", "positions": [1], "count": 4}
    assert "`config`" in f.fix.description
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("after"), "app.serve", "serve('a')").startswith("TypeError")

    rel = "app/serve.py"
    source = (tmp_path / "consumer" / rel).read_bytes()
    assert plan({rel: source}, list(findings)).empty
    patched = plan({rel: source}, list(findings), unsafe_fixes=True).changes[0].after.decode()
    assert "return init_state(client, {\"s\": 1}, args)" in patched
    (tmp_path / "consumer" / rel).write_text(patched)
    assert raised_by(roots("after"), "app.serve", "None if serve('a') == ('cfg', {'s': 1}, 'a') else 1 / 0") is None
    again = findings_of(tmp_path / "again", Case("removed-slot-again", BEFORE, AFTER, {"app/__init__.py": "", rel: patched}))
    assert [g for g in again if g.severity.value == "breaking"] == []
    assert plan({rel: patched.encode()}, list(findings), unsafe_fixes=True).empty


def test_kept_parameters_in_another_order_get_no_edit(tmp_path):
    after = {**AFTER, "gizmo/api.py": AFTER["gizmo/api.py"].replace("def init_state(client, state, args):",
                                                                    "def init_state(state, client, args):")}
    f = only(findings_of(tmp_path, Case("reordered", BEFORE, after, CONSUMER)), "DRIFT012")
    assert f.fix.codemod is None and f.fix.tier == "manual"


def test_a_deleted_parameter_replaced_by_a_new_required_one_gets_no_drop(tmp_path):
    """`(request, count)` -> `(request_id)`: dropping arguments alone leaves the call short."""
    before = {"gizmo/__init__.py": "", "gizmo/api.py": "def common(request, count):\n    return count\n"}
    after = {"gizmo/__init__.py": "", "gizmo/api.py": "def common(request_id):\n    return request_id\n"}
    consumer = {"app/__init__.py": "", "app/serve.py": "from gizmo.api import common\n\n\ndef f(r):\n    return common(r, 2)\n"}
    f = only(findings_of(tmp_path, Case("replaced", before, after, consumer)), "DRIFT012")
    assert f.fix.codemod is None


def test_a_range_consumer_gets_the_drop_in_a_version_branch_even_when_the_baseline_recheck_sees_nothing(tmp_path):
    """The baseline still has the parameter: the dropped argument shifts the others there, a
    shift its re-check may not report, so drop_argument is always version-gated."""
    from drift.fixes.version_helper import choose_gate

    findings = findings_of(tmp_path, Case("removed-slot-range", BEFORE, AFTER, CONSUMER))
    rel = "app/serve.py"
    files = {rel: (tmp_path / "consumer" / rel).read_bytes()}
    gate = choose_gate(files, top="app", since="0.12.0", before="0.11.0")
    gated = plan(files, list(findings), unsafe_fixes=True, gate=gate, gate_lines={})
    text = {c.path: c.after.decode() for c in gated.changes}
    assert "app/vllm_version.py" in text
    serve = text[rel]
    assert serve.count("if vllm_version_at_least") == 1
    assert "init_state(client, {\"s\": 1}, args)" in serve and "init_state(client, client.config, {\"s\": 1}, args)" in serve
    compile(serve, rel, "exec")
