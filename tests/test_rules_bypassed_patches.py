"""A patch of a module's function that the target's callers no longer see (DRIFT095), on synthetic
before/after trees: the caller moved into a module that binds the function with `from m import f`.
The synthetic code is really run to show the patch applies before and is bypassed after."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

KERNEL_BEFORE = """
    def kern(x):
        return "original"


    def run(x):
        return kern(x)
    """
KERNEL_AFTER = """
    def kern(x):
        return "original"
    """
RUNNER_AFTER = """
    from gizmo.kern import kern


    def run(x):
        return kern(x)
    """
PATCH = """
    import gizmo.kern as km


    def mine(x):
        return "mine"


    def install():
        setattr(km, "kern", mine)
    """
LOOPED = """
    import importlib

    km = importlib.import_module("gizmo.kern")
    CANDIDATES = ("kern", "kern_v0")
    LIVE = tuple(n for n in CANDIDATES if hasattr(km, n))


    def mine(x):
        return "mine"


    def install():
        for n in LIVE:
            setattr(km, n, mine)
    """
# the caller's module is loaded, then the consumer patches (as a plugin patching at run time does);
# raises unless the patch reaches the caller (`kern.run` in the before tree, `runners.run` in the after tree)
REACHED = ("(__import__('gizmo.{where}', fromlist=['run']), install())[0].run(1) == 'mine' "
           "or (_ for _ in ()).throw(AssertionError('the original ran'))")


def _case(patch: str, after_runner: str = RUNNER_AFTER, before: dict | None = None) -> Case:
    return Case("bypass", before or {"gizmo/kern.py": KERNEL_BEFORE},
                {"gizmo/kern.py": KERNEL_AFTER, "gizmo/runners.py": after_runner}, {"app/patch.py": patch})


def test_a_patch_the_target_now_bypasses_through_a_from_import(tmp_path):
    found = findings_of(tmp_path, _case(PATCH))
    assert_findings(found, [("DRIFT095", line_of(PATCH, "setattr(km"))])
    f = only(found, "DRIFT095")
    assert "`gizmo.runners`" in f.title and f.severity.value == "risky"
    assert f.target_evidence[0].line == line_of(RUNNER_AFTER, "from gizmo.kern import kern")
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("before"), "app.patch", REACHED.format(where="kern")) is None
    assert raised_by(roots("after"), "app.patch", REACHED.format(where="runners")) == "AssertionError: the original ran"


def test_names_patched_from_a_hasattr_filtered_list_are_followed_and_a_gone_one_is_not_a_patch(tmp_path):
    found = findings_of(tmp_path, _case(LOOPED))
    # reported at the setattr (not at the name's literal); `kern_v0`, skipped by the hasattr filter, is no DRIFT080
    assert_findings(found, [("DRIFT095", line_of(LOOPED, "setattr(km"))])
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("after"), "app.patch", REACHED.format(where="runners")) == "AssertionError: the original ran"


def test_silent_when_the_consumer_patches_the_binder_too_or_the_baseline_already_bound_it(tmp_path):
    both = PATCH.replace("import gizmo.kern as km", "import gizmo.kern as km\n    import gizmo.runners as rn").rstrip() \
        + "\n        rn.kern = mine\n"
    assert_findings(findings_of(tmp_path / "both", Case("both", {"gizmo/kern.py": KERNEL_BEFORE,
                                                                  "gizmo/runners.py": RUNNER_AFTER},
                                                         {"gizmo/kern.py": KERNEL_AFTER, "gizmo/runners.py": RUNNER_AFTER},
                                                         {"app/patch.py": both})), [])
    already = {"gizmo/kern.py": KERNEL_AFTER, "gizmo/runners.py": RUNNER_AFTER}
    assert_findings(findings_of(tmp_path / "already", _case(PATCH, before=already)), [])
    # a caller of the baseline already bound it by name (in a module since renamed): the patch was
    # never the only way in, so a new binder is no new bypass
    renamed = {"gizmo/kern.py": KERNEL_AFTER, "gizmo/old_runners.py": RUNNER_AFTER}
    assert_findings(findings_of(tmp_path / "renamed", _case(PATCH, before=renamed)), [])


def test_a_patch_made_when_the_consumer_module_is_imported_is_left_alone(tmp_path):
    # a plugin's module-level patch runs before vLLM imports the module that binds the name
    at_import = """
    import gizmo.kern as km


    def mine(x):
        return "mine"


    km.kern = mine
    """
    assert_findings(findings_of(tmp_path, _case(at_import)), [])
