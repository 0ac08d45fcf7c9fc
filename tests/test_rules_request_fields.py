"""DRIFT136: a key a client sends a server in `extra_body` that the server's request models no longer have.

The fake `gizmo` server's protocol module holds pydantic request models; the consumer never
imports gizmo, it sends the keys over HTTP through an OpenAI-style client. The probe records the
keys (probes/extra_body.py); the rule compares them with the models' fields on each release.
"""

from __future__ import annotations

import ast

from drift.probes.extra_body import extra_body_keys
from drift.pipeline.run import check
from tests.rule_cases import Case, consumer_of, facts_of, findings_of, line_of, src, write_tree

BASE = """
    from pydantic import BaseModel


    class ServerModel(BaseModel):
        pass
    """
BEFORE = {
    "gizmo/entrypoints/base.py": BASE,
    "gizmo/entrypoints/web/protocol.py": """
        from typing import Optional

        from pydantic import Field

        from gizmo.entrypoints.base import ServerModel


        class SamplingMixin(ServerModel):
            top_k: int = 0


        class ChatRequest(SamplingMixin):
            messages: list = []
            shape_spec: Optional[dict] = Field(
                default=None,
                description="`shape_spec` is deprecated. Please pass `spec` to `shaping` instead.")
            pattern_hint: Optional[str] = None
            shaping: Optional[dict] = None


        class TextRequest(ServerModel):
            prompt: str = ""
            echo_back: bool = False
        """,
}
AFTER = {
    "gizmo/entrypoints/base.py": BASE,
    "gizmo/entrypoints/web/protocol.py": """
        from typing import Optional

        from gizmo.entrypoints.base import ServerModel


        class SamplingMixin(ServerModel):
            top_k: int = 0


        class ChatRequest(SamplingMixin):
            messages: list = []
            shaping: Optional[dict] = None


        class TextRequest(ServerModel):
            prompt: str = ""
            echo_back: bool = False
        """,
}
CLIENT = """
    def ask(client, spec):
        body = {"top_k": 5}
        body["shape_spec"] = spec
        return client.chat.completions.create(model="m", messages=[], extra_body=body)


    def complete(client):
        return client.completions.create(model="m", prompt="x", extra_body={"pattern_hint": "a+", "echo_back": True})


    def unrelated(client):
        return client.post("/x", json={"shape_spec": 1})
    """


def test_removed_request_fields_are_reported_with_the_successor_named(tmp_path):
    case = Case("http", BEFORE, AFTER, {"app/client.py": CLIENT})
    found = findings_of(tmp_path, case)
    assert sorted((f.rule_id, f.consumer_site.line, f.consumer_site.symbol) for f in found) == [
        ("DRIFT136", line_of(CLIENT, 'body["shape_spec"]'), "shape_spec"),
        ("DRIFT136", line_of(CLIENT, '"pattern_hint"'), "pattern_hint")]
    moved = next(f for f in found if f.consumer_site.symbol == "shape_spec")
    assert moved.severity.value == "risky"
    assert "use `shaping`" in moved.title
    assert moved.fix.description == "send the value through `shaping` (the baseline's field: \"Please pass `spec` to `shaping` instead.\")"
    assert moved.baseline_evidence[0].symbol == "gizmo.entrypoints.web.protocol.ChatRequest.shape_spec"
    dropped = next(f for f in found if f.consumer_site.symbol == "pattern_hint")
    assert "use `" not in dropped.title  # no deprecation text on the baseline's field: no successor claimed


def test_a_field_the_target_still_reads_by_name_is_silent(tmp_path):
    after = dict(AFTER)
    after["gizmo/entrypoints/web/legacy.py"] = """
        def upgrade(data):
            if "shape_spec" in data:
                data["shaping"] = {"spec": data.pop("shape_spec")}
            return data
        """
    consumer = {"app/client.py": """
        def ask(client, spec):
            return client.chat.completions.create(model="m", messages=[], extra_body={"shape_spec": spec})
        """}
    assert not _with_sources(tmp_path, Case("legacy", BEFORE, after, consumer))
    elsewhere = dict(AFTER, **{"gizmo/config.py": 'KNOWN = ["shape_spec"]  # a table outside the server\n',
                               "gizmo/entrypoints/web/formats.py": """
        from typing import Literal

        from gizmo.entrypoints.base import ServerModel


        class Format(ServerModel):
            type: Literal["shape_spec"]


        def is_shape(fmt):
            return fmt.type == "shape_spec"  # the word as a value, not a key read from the body
        """})
    assert len(_with_sources(tmp_path / "config", Case("config", BEFORE, elsewhere, consumer))) == 1
    assert len(_with_sources(tmp_path / "plain", Case("plain", BEFORE, AFTER, consumer))) == 1


def _with_sources(tmp_path, case):
    """The check with the releases' files on this machine (as for a release drift fetched): the rule
    asks the target's text whether it still quotes the key."""
    target = facts_of(write_tree(tmp_path / "after", case.after))
    target["target"] = {"root": str(tmp_path / "after")}
    baseline = facts_of(write_tree(tmp_path / "before", case.before))
    baseline["target"] = {"root": str(tmp_path / "before")}
    outcome = check(consumer=consumer_of(write_tree(tmp_path / "consumer", case.consumer)), target_facts=target,
                    baseline_facts=baseline, target_package="gizmo")
    assert outcome.error is None and outcome.report is not None and not outcome.report.incomplete
    return outcome.report.findings


def test_no_finding_without_a_change_of_the_models(tmp_path):
    assert not findings_of(tmp_path, Case("same", BEFORE, BEFORE, {"app/client.py": CLIENT}))


def test_extra_body_keys_reach_through_names_updates_and_params_dicts():
    code = src("""
        BASE = {"a": 1}


        def f(client, extra):
            eb = dict(b=2)
            eb.update({"c": 3})
            eb.setdefault("d", 4)
            params = {"model": "m", "extra_body": {**BASE, "e": 5}}
            params["extra_body"] = eb
            client.create(**params)
            client.create(extra_body=extra)  # a parameter: unknown keys, nothing recorded


        def g(client):
            eb = {"zz": 1}
            return client.create(json=eb)
        """)
    got = sorted(k for k, _line, _col in extra_body_keys(ast.parse(code)))
    assert got == ["a", "b", "c", "d", "e"]


def test_extra_body_keys_reach_from_a_helper_of_the_module_that_returns_them():
    # a type adapter builds the request fields and hands them back; the client merges them in
    code = src("""
        class Adapter:
            def fields(self, kind):
                if kind == "json":
                    out = {"shape": 1}
                    out["spacing"] = 2
                    return out
                return {"pattern": 3}


        class Client:
            def args(self, kind, **kw):
                extra = kw.pop("extra_body", {})
                extra.update(self.adapter.fields(kind))
                return {"extra_body": extra}

            def size(self, kind):
                return len(self.adapter.fields(kind))  # not sent: nothing recorded from here
        """)
    got = sorted((k, line) for k, line, _col in extra_body_keys(ast.parse(code)))
    lines = code.splitlines()
    at = {k: next(i for i, t in enumerate(lines, 1) if f'"{k}"' in t) for k in ("shape", "spacing", "pattern")}
    assert got == sorted(at.items())
