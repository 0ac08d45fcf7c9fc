"""A removed attribute read only inside the value of a keyword the target's callable no longer
accepts (`load(path, padding=cfg.vocab + cfg.extra_vocab)`): the keyword's drop takes the read
with it, so DRIFT060 carries the same drop as DRIFT010, tiered the same way, and one edit fixes
both findings; the patched consumer runs on the target and re-checks clean."""

from __future__ import annotations

from drift.findings import UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/lora.py": """
    class Config:
        def __init__(self):
            self.vocab, self.extra_vocab = 10, 2


    def load(path, *, dtype="f32", padding=0):
        return (path, dtype, padding)
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/lora.py": """
    class Config:
        def __init__(self):
            self.vocab = 10


    def load(path, *, dtype="f32"):
        return (path, dtype)
    """}
CONSUMER = {"app/__init__.py": "", "app/use.py": """
    from gizmo.lora import Config, load


    def read(path, cfg: Config):
        return load(
            path,
            dtype="f16",
            padding=cfg.vocab + cfg.extra_vocab,
        )


    def run():
        return read("p", Config())
    """}


def test_the_keyword_drop_takes_the_removed_read_with_it(tmp_path):
    findings = findings_of(tmp_path, Case("dropped-with", BEFORE, AFTER, CONSUMER))
    by_rule = {f.rule_id: f for f in findings}
    assert sorted(by_rule) == ["DRIFT010", "DRIFT060"] and len(findings) == 2
    kw, attr = by_rule["DRIFT010"], by_rule["DRIFT060"]
    assert kw.consumer_site.line == attr.consumer_site.line
    assert attr.fix.codemod == "drop_keyword" and attr.fix.args == kw.fix.args and attr.fix.tier == kw.fix.tier == UNSAFE
    assert "the read of `extra_vocab` goes with it" in attr.fix.description

    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("after"), "app.use", "run()").startswith("AttributeError")
    rel = "app/use.py"
    source = (tmp_path / "consumer" / rel).read_bytes()
    assert plan({rel: source}, list(findings)).empty  # the value is the consumer's: unsafe
    patch = plan({rel: source}, list(findings), unsafe_fixes=True)
    assert sorted(patch.finding_keys) == sorted(f.key for f in findings)  # one edit, both findings
    patched = patch.changes[0].after.decode()
    assert "padding" not in patched and "extra_vocab" not in patched
    (tmp_path / "consumer" / rel).write_text(patched)
    assert raised_by(roots("after"), "app.use", "None if run() == ('p', 'f16') else 1 / 0") is None
    again = findings_of(tmp_path / "again", Case("dropped-with-again", BEFORE, AFTER, {"app/__init__.py": "", rel: patched}))
    assert again == ()
    assert plan({rel: patched.encode()}, list(findings), unsafe_fixes=True).empty


def test_a_read_outside_the_dropped_keyword_keeps_its_own_manual_fix(tmp_path):
    consumer = {"app/__init__.py": "", "app/use.py": CONSUMER["app/use.py"].replace(
        "padding=cfg.vocab + cfg.extra_vocab,", "padding=cfg.vocab,\n        ) + (cfg.extra_vocab,")}
    findings = findings_of(tmp_path, Case("dropped-apart", BEFORE, AFTER, consumer))
    attr = [f for f in findings if f.rule_id == "DRIFT060"]
    assert len(attr) == 1 and attr[0].fix.codemod is None and attr[0].fix.tier == "manual"
