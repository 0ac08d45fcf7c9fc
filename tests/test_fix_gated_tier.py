"""A fix that is safe only inside a vLLM-version branch (`Fix.gated_tier`), through the real CLI.

A synthetic `vllm` in two releases: 0.12.0 removes `make`'s `label=` and `init`'s positional
`cfg` and adds nothing in their place (pure removals), while `build` loses `tag=` and gains
`kind=` (the value may have a successor). For a consumer that supports 0.10 to 0.11 the pure
removals are written by `drift check --fix` without `--unsafe-fixes`, each in a version branch
whose old arm is the original call, so 0.11 still gets the consumer's values; `build`'s drop stays
unsafe. A consumer pinned to 0.11 (it moves to 0.12 whole) gets none of them by default.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from drift.fixes.gate import MARK
from tests.rule_cases import write_tree


def _vllm(version: str, body: str) -> dict[str, str]:
    return {"vllm/__init__.py": f'__version__ = "{version}"\n',
            f"vllm-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n",
            "vllm/utils/__init__.py": body}


BEFORE = _vllm("0.11.0", """
    def make(a, size=1, label=None):
        return [a if label is None else label] * size


    def init(a, cfg, state):
        return (a, cfg, state)


    def build(a, tag=None):
        return (a, tag)
    """)
AFTER = _vllm("0.12.0", """
    def make(a, size=1):
        return [a] * size


    def init(a, state):
        return (a, state)


    def build(a, kind=None):
        return (a, kind)
    """)
MAIN = """
    from vllm.utils import build, init, make


    def run():
        return make(1, label="L"), init(1, "cfg", "st"), build(1, tag="T")
    """


def drift(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "drift.cli", *argv], capture_output=True, text=True, timeout=600)


def trees(tmp_path: Path, requires: str) -> tuple[Path, Path, Path]:
    consumer = {"pyproject.toml": f'[project]\nname = "app"\nversion = "1.0"\ndependencies = ["{requires}"]\n',
                "app/__init__.py": "", "app/main.py": MAIN}
    return (write_tree(tmp_path / "before", BEFORE), write_tree(tmp_path / "after", AFTER),
            write_tree(tmp_path / "consumer", consumer))


def run_under(vllm_tree: Path, consumer: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{vllm_tree}{os.pathsep}{consumer}", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-c", "from app.main import run; print(run())"],
                          capture_output=True, text=True, env=env, timeout=60)


def fixes(consumer: Path, before: Path, after: Path) -> dict[str, dict]:
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--format", "json")
    assert res.returncode == 1, res.stderr
    findings = json.loads(res.stdout)["findings"]
    return {f["title"]: f["fix"] for f in findings if f.get("fix")}


def test_pure_removals_are_safe_in_a_version_branch_and_the_baseline_keeps_its_values(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0")
    assert "TypeError" in run_under(after, consumer).stderr
    by_title = fixes(consumer, before, after)
    label = next(f for t, f in by_title.items() if "`label=`" in t)
    tag = next(f for t, f in by_title.items() if "`tag=`" in t)
    cfg = next(f for t, f in by_title.items() if "positional" in t)
    assert (label["tier"], label["gated_tier"]) == ("unsafe", "safe")
    assert (cfg["codemod"], cfg["tier"], cfg["gated_tier"]) == ("drop_argument", "unsafe", "safe")
    assert tag["tier"] == "unsafe" and "gated_tier" not in tag  # `kind=` is new: it may be tag's successor

    shown = drift("check", str(consumer), "-t", str(after), "-b", str(before))
    assert "unsafe (--unsafe-fixes; safe when version-gated): drop `label=\"L\"`" in shown.stdout
    assert "unsafe (--unsafe-fixes): drop `tag=\"T\"`" in shown.stdout
    sarif = json.loads(drift("check", str(consumer), "-t", str(after), "-b", str(before), "--format", "sarif").stdout)
    props = {r["message"]["text"].split("`")[1]: r["properties"] for r in sarif["runs"][0]["results"]}
    assert props["make"]["fixGatedTier"] == "safe" and "fixGatedTier" not in props["build"]

    args = ["check", str(consumer), "-t", str(after), "-b", str(before), "--fix"]
    res = drift(*args)
    assert res.returncode == 1, res.stderr  # build's drop is held: one breaking finding is left
    assert "re-checked against the baseline 0.11.0: nothing new" in res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert main.count('if vllm_version_at_least("0.12.0"):') == 1
    assert f"# {MARK} vllm>=0.12.0:" in main and "make(1), init(1, \"st\"), build(1, tag=\"T\")" in main
    assert 'make(1, label="L"), init(1, "cfg", "st"), build(1, tag="T")' in main  # the old arm, verbatim
    # the baseline still gets the consumer's label and config; the target runs up to build's break
    assert run_under(before, consumer).stdout.strip() == "(['L'], (1, 'cfg', 'st'), (1, 'T'))"
    assert "unexpected keyword argument 'tag'" in run_under(after, consumer).stderr
    again = drift(*args)
    assert "nothing to change" in again.stderr and (consumer / "app" / "main.py").read_text() == main


def test_unsafe_drops_of_a_range_consumer_are_gated_too(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0")
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix", "--unsafe-fixes")
    assert res.returncode == 0, res.stderr
    main = (consumer / "app" / "main.py").read_text()
    assert "make(1), init(1, \"st\"), build(1)\n" in main
    assert run_under(before, consumer).stdout.strip() == "(['L'], (1, 'cfg', 'st'), (1, 'T'))"
    assert run_under(after, consumer).stdout.strip() == "([1], (1, 'st'), (1, None))"


def test_a_pinned_consumer_gets_no_gated_promotion(tmp_path):
    before, after, consumer = trees(tmp_path, "vllm==0.11.0")
    original = (consumer / "app" / "main.py").read_text()
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert (consumer / "app" / "main.py").read_text() == original  # every drop here is unsafe: held
    res = drift("check", str(consumer), "-t", str(after), "-b", str(before), "--fix", "--single-version")
    assert (consumer / "app" / "main.py").read_text() == original  # plain edits: no branch, no promotion


def test_drift_patch_on_a_host_gates_and_rechecks_the_promoted_edits(tmp_path):
    """What `drift patch` does with the files it fixes for a range consumer (its `_baseline_checked`):
    the plain plan holds the unsafe drops, the gated one writes the pure removals in a branch, and
    the re-check with baseline and target swapped finds nothing new."""
    from drift.fixes import plan
    from drift.fixes.version_helper import choose_gate
    from drift.pipeline.recheck import gate_on_files
    from drift.pipeline.run import run_check

    before, after, consumer = trees(tmp_path, "vllm>=0.10.0,<=0.11.0")
    report = run_check(consumer_spec=str(consumer), target_spec=str(after), baseline_spec=str(before)).report
    files = {"app/main.py": (consumer / "app" / "main.py").read_bytes()}
    findings = list(report.findings)
    plain = plan(files, findings)
    assert plain.empty and len(plain.held) == 4  # no gate: every drop is unsafe (DRIFT013 carries DRIFT012's)
    gate = choose_gate(files, top="app", since="0.12.0", before="0.11.0")
    gated, new, why = gate_on_files(files, plain, lambda lines: plan(files, findings, gate=gate, gate_lines=lines),
                                    packages=["app"], baseline_spec=str(before), target_spec=str(after))
    assert why is None and new == []
    assert len(gated.finding_keys) == 3 and len(gated.held) == 1 and "`tag=`" in gated.held[0][0].title
    main = next(c.after.decode() for c in gated.changes if c.path == "app/main.py")
    assert 'make(1), init(1, "st"), build(1, tag="T")' in main and 'make(1, label="L")' in main


def test_the_gated_tier_survives_the_report_and_the_check_cache_round_trip():
    """A warm check reads findings back with `Finding.from_dict` (drift/pipeline/check_cache.py):
    the branch's tier must come back, or a second run would hold what the first one wrote."""
    from drift.findings import Finding, Fix, Location, RuleKind, Severity

    def finding(fix: Fix) -> Finding:
        return Finding(rule_id="DRIFT010", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING, title="t",
                       consumer_site=Location("app/main.py", 3), fix=fix)

    gated = finding(Fix("drop", codemod="drop_keyword", args={"callee": "f", "keyword": "k"}, tier="unsafe",
                        gated_tier="safe"))
    assert Finding.from_dict(gated.to_dict()).fix == gated.fix
    plain = finding(Fix("drop", codemod="drop_keyword", args={"callee": "f", "keyword": "k"}, tier="unsafe"))
    assert "gated_tier" not in plain.to_dict()["fix"] and Finding.from_dict(plain.to_dict()).fix == plain.fix
    # a tier equal to the fix's own, or on a manual fix, is no separate tier
    assert Fix("drop", codemod="drop_keyword", tier="safe", gated_tier="safe").gated_tier is None
    assert Fix("by hand", manual_reason="why", gated_tier="safe").gated_tier is None


# `generate` loses `options=` typed with a request class the target deletes (its constraint now
# rides on `Params(constraint=...)`), and `close` loses a plain `flush: bool`: only the plain one is
# a pure removal; the typed value had a meaning the target may say elsewhere
TYPED_BEFORE = _vllm("0.11.0", """
    class OptionsRequest:
        def __init__(self, regex=None):
            self.regex = regex


    class Params:
        def __init__(self, n=1):
            self.n = n


    def generate(prompt, params=None, options: "OptionsRequest | None" = None):
        return (prompt, None if options is None else options.regex)


    def close(handle, flush: bool = False):
        return (handle, flush)
    """)
TYPED_AFTER = _vllm("0.12.0", """
    class Params:
        def __init__(self, n=1, constraint=None):
            self.n = n
            self.constraint = constraint


    def generate(prompt, params=None):
        return (prompt, None if params is None else params.constraint)


    def close(handle):
        return (handle, True)
    """)
TYPED_MAIN = """
    from vllm.utils import OptionsRequest, Params, close, generate


    def run(regex):
        return generate("p", Params(), options=OptionsRequest(regex)), close(1, flush=True)
    """


def test_a_dropped_value_of_a_class_the_target_deleted_stays_unsafe_in_a_version_branch(tmp_path):
    consumer = {"pyproject.toml": '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["vllm>=0.10.0,<=0.11.0"]\n',
                "app/__init__.py": "", "app/main.py": TYPED_MAIN}
    before, after = write_tree(tmp_path / "before", TYPED_BEFORE), write_tree(tmp_path / "after", TYPED_AFTER)
    root = write_tree(tmp_path / "consumer", consumer)
    by_title = fixes(root, before, after)
    options = next(f for t, f in by_title.items() if "`options=`" in t)
    flush = next(f for t, f in by_title.items() if "`flush=`" in t)
    assert (flush["codemod"], flush["tier"], flush["gated_tier"]) == ("drop_keyword", "unsafe", "safe")
    assert options["codemod"] == "drop_keyword" and options["tier"] == "unsafe" and "gated_tier" not in options
    assert "`OptionsRequest`, which the target no longer defines" in options["description"]
