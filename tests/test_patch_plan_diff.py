"""plan() and unified_diff(): the diff is accepted by real `git apply` and `patch -p1`."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.fixes import plan, unified_diff


def finding(path: str, line: int, codemod: str | None, *, tier: str = "safe", **args) -> Finding:
    # the plumbing under test writes what a rule judged safe; tests/test_patch_tiers.py covers tiers
    fix = Fix("f", codemod=codemod, args=args, tier=tier) if codemod else Fix("by hand", manual_reason="needs a human")
    return Finding(
        rule_id="T002",
        kind=RuleKind.KEYWORD_REMOVED,
        severity=Severity.BREAKING,
        title="t",
        consumer_site=Location(path, line),
        fix=fix,
        symbol=f"{codemod}:{line}",
    )


FILES = {
    "pkg/a.py": b"import os\n\ncfg = make(spec=1, b=2)\n",
    "pkg/sub/b.py": b"x = states[0]\ny = 1",  # no newline at end of file
    "pkg/c.py": b"untouched = True\n",
    "pkg/sub/d.py": b"# last line changes\nz = s[0]",
}


def findings() -> list[Finding]:
    return [
        finding("pkg/a.py", 3, "drop_keyword", callee="make", keyword="spec"),
        finding("pkg/sub/b.py", 1, "unwrap_index", index="0", name="states"),
        finding("pkg/c.py", 1, None),
        finding("pkg/sub/d.py", 2, "unwrap_index", index="0"),
        finding("pkg/c.py", 1, "drop_keyword", callee="nothing", keyword="k"),
        finding("pkg/missing.py", 1, "drop_keyword", callee="f", keyword="k"),
        finding("../evil.py", 1, "drop_keyword", callee="f", keyword="k"),
    ]


def test_plan_collects_changes_manual_and_skipped():
    p = plan(FILES, findings())
    assert [c.path for c in p.changes] == ["pkg/a.py", "pkg/sub/b.py", "pkg/sub/d.py"]
    a = p.changes[0]
    assert a.after == b"import os\n\ncfg = make(b=2)\n" and a.before == FILES["pkg/a.py"]
    assert len(a.before_sha256) == 64 and a.before_sha256 != a.after_sha256
    assert p.changes[1].after == b"x = states\ny = 1"
    assert [(f.consumer_site.path, why) for f, why in p.manual] == [("pkg/c.py", "needs a human")]
    reasons = dict(p.skipped)
    assert len(reasons) == 3
    assert any("no call to nothing()" in r for r in reasons.values())
    assert any("pkg/missing.py was not provided" in r for r in reasons.values())
    assert any("'..'" in r for r in reasons.values())
    assert plan(FILES, findings()).patch_id == p.patch_id
    assert p.finding_keys == (findings()[0].key, findings()[1].key, findings()[3].key)


def test_plan_of_already_patched_files_is_empty():
    p = plan(FILES, findings())
    patched = dict(FILES, **{c.path: c.after for c in p.changes})
    again = plan(patched, findings()[:2])
    assert again.empty and len(again.already) == 2 and not again.skipped


def write_tree(root, files):
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


def test_diff_headers_and_missing_newline():
    text = unified_diff(plan(FILES, findings()))
    assert text.startswith("diff --git a/pkg/a.py b/pkg/a.py\n--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ ")
    assert "-cfg = make(spec=1, b=2)\n+cfg = make(b=2)\n" in text
    assert "+x = states\n y = 1\n\\ No newline at end of file\n" in text
    assert "-z = s[0]\n\\ No newline at end of file\n+z = s\n\\ No newline at end of file\n" in text


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_apply_accepts_the_diff(tmp_path):
    write_tree(tmp_path, FILES)
    p = plan(FILES, findings())
    (tmp_path / "fix.diff").write_text(unified_diff(p))
    subprocess.run(["git", "apply", "--check", "fix.diff"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["git", "apply", "fix.diff"], cwd=tmp_path, check=True, capture_output=True)
    for c in p.changes:
        assert (tmp_path / c.path).read_bytes() == c.after


@pytest.mark.skipif(shutil.which("patch") is None, reason="patch is not installed")
def test_patch_p1_accepts_the_diff(tmp_path):
    write_tree(tmp_path, FILES)
    p = plan(FILES, findings())
    (tmp_path / "fix.diff").write_text(unified_diff(p))
    subprocess.run(["patch", "-p1", "--dry-run", "-i", "fix.diff"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["patch", "-p1", "-i", "fix.diff"], cwd=tmp_path, check=True, capture_output=True)
    for c in p.changes:
        assert (tmp_path / c.path).read_bytes() == c.after


@pytest.mark.corpus
@pytest.mark.skipif(shutil.which("git") is None or shutil.which("patch") is None, reason="git/patch missing")
def test_real_speculators_diff_applies_with_git_and_patch(corpus_src, tmp_path):
    from tests.test_codemod_apply_fixes import GEN, speculators_fixes

    original = (corpus_src("speculators==0.3.0") / GEN).read_bytes()
    p = plan({GEN: original}, speculators_fixes(original.decode()))
    assert len(p.changes) == 1 and len(p.changes[0].finding_keys) == 6 and not p.skipped
    for tool in (["git", "apply", "--check"], ["patch", "-p1", "--dry-run", "-i"]):
        work = tmp_path / tool[0]
        write_tree(work, {GEN: original})
        (work / "fix.diff").write_text(unified_diff(p))
        done = subprocess.run([*tool, "fix.diff"], cwd=work, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr + done.stdout
