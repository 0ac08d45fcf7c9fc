"""DRIFT122: a hand-built `argparse.Namespace(...)` handed to a target function that now reads a
field the Namespace lacks (probes/built_namespaces.py, the facts' `param_reads`)."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = """
    def run_server(args, log=None):
        return args.host, args.port
    """

AFTER = """
    def run_server(args, log=None):
        if args.ssl_keyfile:
            pass
        return args.host, args.port
    """

CONSUMER = """
    import argparse

    from gizmo.serve import run_server


    def main():
        args = argparse.Namespace(host="0.0.0.0", port=8000)
        return run_server(args)


    def by_keyword():
        ns = argparse.Namespace(host="h")
        ns.port = 1
        return run_server(args=ns)


    def complete():
        args = argparse.Namespace(host="h", port=1, ssl_keyfile=None)
        return run_server(args)


    def filled_elsewhere(fill):
        args = argparse.Namespace(host="h", port=1)
        fill(args)
        return run_server(args)


    def opened(extra):
        args = argparse.Namespace(host="h", port=1)
        vars(args).update(extra)
        return run_server(args)
    """

CASES = [
    Case("new-read", {"gizmo/serve.py": BEFORE}, {"gizmo/serve.py": AFTER}, {"app/main.py": CONSUMER},
         [("DRIFT122", line_of(CONSUMER, "return run_server(args)")),
          ("DRIFT122", line_of(CONSUMER, "return run_server(args=ns)"))]),
    Case("unchanged", {"gizmo/serve.py": BEFORE}, {"gizmo/serve.py": BEFORE}, {"app/main.py": CONSUMER}, []),
    # the baseline read it already: the Namespace was failing (or the field guarded) before, not drift
    Case("read-on-both", {"gizmo/serve.py": AFTER}, {"gizmo/serve.py": AFTER}, {"app/main.py": CONSUMER}, []),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_namespace_fields(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_finding_names_the_field_and_the_read(tmp_path):
    f = next(f for f in findings_of(tmp_path, CASES[0]) if f.consumer_site.line == line_of(CONSUMER, "return run_server(args)"))
    assert f.predicted_failure == "AttributeError: 'Namespace' object has no attribute 'ssl_keyfile'"
    assert [(e.path, e.line) for e in f.target_evidence] == [("gizmo/serve.py", 2)]
