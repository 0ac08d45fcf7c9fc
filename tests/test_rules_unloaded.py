"""Findings in consumer modules that never load on the target are risky, with the reason
(drift/analysis/unloaded.py over the probe's map of the package's own imports, probes/links.py):
a copy of a target module that nothing in the package imports or names, and a per-release
subpackage imported only under a version test the target fails. A module of the package that
loads (imported, named by a dotted string, enumerated at run time, or simply a library module
mirroring nothing) keeps its breaking finding."""

from __future__ import annotations

from drift.consumer.usage import collect_usage
from drift.pipeline.run import check
from tests.rule_cases import consumer_of, facts_of, line_of, write_tree

BEFORE = {
    "gizmo/__init__.py": "__version__ = 'x'\n",
    "gizmo/util.py": """
        def helper():
            return 1

        def other():
            return 2
        """,
    "gizmo/worker/runner.py": """
        class Runner:
            def step(self):
                return 0
        """,
}
AFTER = {
    "gizmo/__init__.py": "__version__ = 'x'\n",
    "gizmo/util.py": """
        def other():
            return 2
        """,
    "gizmo/worker/runner.py": """
        class Runner:
            def step(self):
                return 0
        """,
}
# a package loaded by its host through a plugin entry point (as a vLLM platform plugin is)
PLUGIN = {"pyproject.toml": '[project.entry-points."gizmo.plugins"]\napp = "app:register"\n'}
USES_HELPER = """
    from gizmo.util import helper

    def run():
        return helper()
    """


def _report(tmp_path, consumer, *, target_version="0.9.0", baseline_version="0.8.4"):
    a = facts_of(write_tree(tmp_path / "after", AFTER))
    a["packages"]["gizmo"]["version"] = target_version
    b = facts_of(write_tree(tmp_path / "before", BEFORE))
    b["packages"]["gizmo"]["version"] = baseline_version
    cons = consumer_of(write_tree(tmp_path / "consumer", consumer))
    report = check(consumer=cons, target_facts=a, baseline_facts=b, target_package="gizmo").report
    assert report is not None
    return report


def _severities(report, rule_id="DRIFT001"):
    return {f.consumer_site.path: f.severity.value for f in report.findings if f.rule_id == rule_id}


def _title(report, path):
    return next(f.title for f in report.findings if f.consumer_site.path == path and f.rule_id == "DRIFT001")


def test_a_copy_of_a_target_module_nothing_names_is_risky_with_the_reason(tmp_path):
    report = _report(tmp_path, {**PLUGIN,
        "app/__init__.py": "from app import platform\n",
        "app/platform.py": USES_HELPER,
        "app/worker/runner.py": USES_HELPER,  # where gizmo keeps gizmo.worker.runner; nothing imports it
        "app/extra.py": USES_HELPER,  # nothing imports it either, but it mirrors no gizmo module
    })
    assert _severities(report) == {"app/platform.py": "breaking", "app/worker/runner.py": "risky",
                                   "app/extra.py": "breaking"}
    assert ("no module of app imports or names app.worker.runner, a copy kept where gizmo has "
            "gizmo.worker.runner; it runs only if a user imports it directly") in _title(report, "app/worker/runner.py")
    assert report.findings[0].consumer_site.line == line_of(USES_HELPER, "import helper")


def test_a_copy_kept_in_a_folder_of_the_plugins_own_is_a_copy_too(tmp_path):
    """`app/custom/worker/runner.py` ends as gizmo's `worker/runner.py` does: the copy moved under
    the plugin's own folder. One shared part (`app/custom/runner.py`) is not enough."""
    report = _report(tmp_path, {**PLUGIN,
        "app/__init__.py": "",
        "app/custom/worker/runner.py": USES_HELPER,
        "app/custom/runner.py": USES_HELPER,
    })
    assert _severities(report) == {"app/custom/worker/runner.py": "risky", "app/custom/runner.py": "breaking"}
    assert "a copy kept where gizmo has gizmo.worker.runner" in _title(report, "app/custom/worker/runner.py")


def test_a_copy_the_package_names_by_string_or_imports_stays_breaking(tmp_path):
    named = _report(tmp_path / "named", {**PLUGIN,
        "app/__init__.py": 'RUNNER_CLS = "app.worker.runner.Runner"\n',
        "app/worker/runner.py": USES_HELPER,
    })
    assert _severities(named) == {"app/worker/runner.py": "breaking"}
    imported = _report(tmp_path / "imported", {**PLUGIN,
        "app/__init__.py": "",
        "app/plugin.py": "from .worker import runner\n",  # a plain module of the package imports it
        "app/worker/runner.py": USES_HELPER,
    })
    assert _severities(imported) == {"app/worker/runner.py": "breaking"}


def test_a_package_that_imports_its_modules_by_computed_names_marks_none(tmp_path):
    report = _report(tmp_path, {**PLUGIN,
        "app/__init__.py": """
            import importlib
            import pkgutil

            for info in pkgutil.iter_modules(__path__):
                importlib.import_module(f"{__name__}.{info.name}")
            """,
        "app/worker/__init__.py": """
            import importlib
            import pkgutil

            for info in pkgutil.iter_modules(__path__):
                importlib.import_module(f"{__name__}.{info.name}")
            """,
        "app/worker/runner.py": USES_HELPER,
    })
    assert _severities(report) == {"app/worker/runner.py": "breaking"}


REGISTERING = """
    from gizmo import util


    def register():
        util.other(
            util.helper,  # gone: the call fails before the class path is handed on
            "app.backends.tree.TreeBackend",
        )
        util.other("app.backends.flat.FlatBackend")
    """


def test_a_module_named_only_in_a_call_that_fails_first_is_risky(tmp_path):
    report = _report(tmp_path, {
        "app/__init__.py": "from app import platform\n",
        "app/platform.py": REGISTERING,
        "app/backends/tree.py": USES_HELPER,
        "app/backends/flat.py": USES_HELPER,
    })
    assert _severities(report) == {"app/backends/tree.py": "risky", "app/backends/flat.py": "breaking"}
    assert ("app names app.backends.tree only by a string handed to calls that fail first on gizmo 0.9.0 "
            f"(app/platform.py:{line_of(REGISTERING, 'util.other(')}), so it never loads there") in _title(
        report, "app/backends/tree.py")
    # the same module imported anywhere loads: breaking again
    imported = _report(tmp_path / "imported", {
        "app/__init__.py": "from app import platform\nfrom app.backends import tree\n",
        "app/platform.py": REGISTERING,
        "app/backends/tree.py": USES_HELPER,
    })
    assert _severities(imported)["app/backends/tree.py"] == "breaking"


VERSIONED_INIT = """
    import gizmo
    from packaging.version import Version

    if Version(gizmo.__version__) == Version("0.8.4"):
        from app import gizmo_0_8_4  # the patches for that release only
    """


def test_a_subpackage_imported_only_for_another_release_is_risky(tmp_path):
    consumer = {
        "app/__init__.py": VERSIONED_INIT,
        "app/gizmo_0_8_4/__init__.py": "from .patch import run\n",
        "app/gizmo_0_8_4/patch.py": USES_HELPER,
        "app/current.py": USES_HELPER,  # unreferenced, mirrors nothing: a library module users import
    }
    report = _report(tmp_path, consumer)
    assert _severities(report) == {"app/gizmo_0_8_4/patch.py": "risky", "app/current.py": "breaking"}
    assert ("app imports app.gizmo_0_8_4.patch only under tests that are false on gizmo 0.9.0 (version tests, "
            "module switches), so it never loads there") in _title(report, "app/gizmo_0_8_4/patch.py")


PARSED_PREDICATE = {
    "app/utils.py": """
        from packaging import version


        def is_gizmo_equal(target):  # the parameter reaches the comparison through a parsed local
            try:
                import gizmo
                running = version.parse(str(gizmo.__version__)).base_version
                wanted = version.parse(target).base_version
                return running == wanted
            except Exception:
                return False
        """,
    "app/__init__.py": """
        from app.utils import is_gizmo_equal

        if is_gizmo_equal("0.8.4"):
            from app import gizmo_0_8_4
        elif is_gizmo_equal("0.9.0"):
            from app import gizmo_0_9_0
        """,
    "app/gizmo_0_8_4/__init__.py": "import app.gizmo_0_8_4.patch\n",
    "app/gizmo_0_8_4/patch.py": USES_HELPER,
    "app/gizmo_0_9_0/__init__.py": "import app.gizmo_0_9_0.patch\n",
    "app/gizmo_0_9_0/patch.py": USES_HELPER,
}


def test_a_version_predicate_that_compares_a_local_parsed_from_its_parameter_gates_subpackages(tmp_path):
    """`is_gizmo_equal(v)` compares the running version with `version.parse(v)` held in a local:
    the subpackage for 0.8.4 never loads on 0.9.0 (risky), the one for 0.9.0 does (breaking)."""
    report = _report(tmp_path, PARSED_PREDICATE)
    assert _severities(report) == {"app/gizmo_0_8_4/patch.py": "risky", "app/gizmo_0_9_0/patch.py": "breaking"}
    assert "only under tests that are false on gizmo 0.9.0" in _title(report, "app/gizmo_0_8_4/patch.py")


def test_the_same_subpackage_stays_breaking_where_its_test_holds(tmp_path):
    """Target 0.8.4 (the release the subpackage is for), baseline 0.8.3: it loads, so it breaks."""
    consumer = {"app/__init__.py": VERSIONED_INIT, "app/gizmo_0_8_4/__init__.py": "from .patch import run\n",
                "app/gizmo_0_8_4/patch.py": USES_HELPER}
    report = _report(tmp_path, consumer, target_version="0.8.4", baseline_version="0.8.3")
    assert _severities(report) == {"app/gizmo_0_8_4/patch.py": "breaking"}


def test_a_module_imported_only_under_a_constant_false_switch_is_risky(tmp_path):
    report = _report(tmp_path, {
        "app/__init__.py": """
            import gizmo  # a file that never names the target is read for links only, without its branches

            USE_POOL = False

            if USE_POOL:
                from app import pool  # a feature switched off in the source
            """,
        "app/pool.py": USES_HELPER,
    })
    assert _severities(report) == {"app/pool.py": "risky"}
    assert "app imports app.pool only under tests that are false on gizmo 0.9.0" in _title(report, "app/pool.py")


def test_an_unguarded_importer_keeps_the_subpackage_loaded(tmp_path):
    consumer = {"app/__init__.py": VERSIONED_INIT, "app/gizmo_0_8_4/__init__.py": "from .patch import run\n",
                "app/gizmo_0_8_4/patch.py": USES_HELPER,
                "app/tools.py": "from app.gizmo_0_8_4.patch import run\n"}  # no version test around it
    report = _report(tmp_path, consumer)
    assert _severities(report) == {"app/gizmo_0_8_4/patch.py": "breaking"}


def test_the_marks_come_from_files_that_never_mention_the_target(tmp_path):
    """The importer of a module may not name the target at all: its link is read from its bytes."""
    root = write_tree(tmp_path / "consumer", {**PLUGIN,
        "app/__init__.py": "from app import glue\n",
        "app/glue.py": "from .worker import runner  # no gizmo here\n",
        "app/worker/runner.py": USES_HELPER,
        "app/worker/spare.py": USES_HELPER,
    })
    marks = {m["path"]: m.get("unreferenced") for m in collect_usage(root, ["app"], ["gizmo"])}
    assert marks == {"app/worker/runner.py": None, "app/worker/spare.py": True}


CLASS_COPIES = """
    import gizmo.util


    class Helper:
        def go(self):
            return gizmo.util.other()


    class Runner:  # a copy of the class gizmo keeps in gizmo.worker.runner; nothing in app names it
        def step(self):
            return gizmo.util.helper()


    class Spare:  # nothing names it either, but gizmo has no such class
        def step(self):
            return gizmo.util.helper()
    """


def _by_line(report):
    return {f.consumer_site.line: f for f in report.findings if f.consumer_site.path == "app/worker/runner.py"}


def test_a_copy_of_a_target_class_nothing_names_is_risky_with_the_reason(tmp_path):
    report = _report(tmp_path, {**PLUGIN,
        "app/__init__.py": "from app.worker.runner import Helper\n",  # the module loads; Runner is never taken
        "app/worker/runner.py": CLASS_COPIES,
    })
    found = _by_line(report)
    copy, own = found[line_of(CLASS_COPIES, "helper()", 1)], found[line_of(CLASS_COPIES, "helper()", 2)]
    assert (copy.severity.value, own.severity.value) == ("risky", "breaking")
    assert ("nothing in app names Runner, a copy of gizmo.worker.runner.Runner kept in app.worker.runner; "
            "its code runs only if a user builds it") in copy.title


def test_a_copied_class_the_package_takes_stays_breaking(tmp_path):
    for how, init in (("by name", "from app.worker.runner import Helper, Runner\n"),
                      ("whole", "from app.worker import runner\n"),
                      ("by string", 'from app.worker.runner import Helper\nRUNNER = "app.worker.runner.Runner"\n')):
        report = _report(tmp_path / how.replace(" ", "_"), {**PLUGIN, "app/__init__.py": init,
                                                           "app/worker/runner.py": CLASS_COPIES})
        found = _by_line(report)
        assert found[line_of(CLASS_COPIES, "helper()", 1)].severity.value == "breaking", how


def test_the_marks_follow_the_package_when_a_cached_read_is_reused(tmp_path):
    """The marks are kept in the usage cache beside the files' links: a new importer, or an entry
    point in the package's metadata, takes the mark away on the next read."""
    root = write_tree(tmp_path / "consumer", {**PLUGIN, "app/__init__.py": "", "app/worker/spare.py": USES_HELPER})
    cache = tmp_path / "cache"

    def mark():
        (rec,) = [m for m in collect_usage(root, ["app"], ["gizmo"], cache_dir=str(cache))
                  if m["path"] == "app/worker/spare.py"]
        return rec.get("unreferenced")

    assert mark() is True and mark() is True  # read, then served from the cache
    (root / "pyproject.toml").write_text(PLUGIN["pyproject.toml"] + 'spare = "app.worker.spare:run"\n')
    assert mark() is None
    (root / "pyproject.toml").write_text(PLUGIN["pyproject.toml"])
    assert mark() is True
    (root / "app" / "glue.py").write_text("from app.worker import spare\n")
    assert mark() is None


def test_a_library_without_plugin_entry_points_keeps_its_unreferenced_copies_breaking(tmp_path):
    """A library is imported by its users module by module (a patch module a user imports to apply
    it may well sit at the target's path): nothing in it is judged dead for being unreferenced."""
    consumer = {"app/__init__.py": "", "app/worker/runner.py": USES_HELPER}
    assert _severities(_report(tmp_path / "lib", consumer)) == {"app/worker/runner.py": "breaking"}
    scripts = {"pyproject.toml": '[project.scripts]\napp = "app.cli:main"\n'}  # console scripts only
    assert _severities(_report(tmp_path / "cli", {**scripts, **consumer})) == {"app/worker/runner.py": "breaking"}
    assert _severities(_report(tmp_path / "plugin", {**PLUGIN, **consumer})) == {"app/worker/runner.py": "risky"}


def test_a_copy_an_editor_left_in_the_package_is_risky_with_the_reason(tmp_path):
    """nnsight 0.5.12's wheel ships `modeling/vllm/sampling copy.py` beside `sampling.py`: no import
    statement can spell that name, so neither the package nor its users load it (no plugin entry
    point needed to say so). The module it copies stays breaking."""
    report = _report(tmp_path, {
        "app/__init__.py": "",
        "app/sampling.py": USES_HELPER,
        "app/sampling copy.py": USES_HELPER,
        "app/utils (1).py": USES_HELPER,
    })
    assert _severities(report) == {"app/sampling.py": "breaking", "app/sampling copy.py": "risky",
                                   "app/utils (1).py": "risky"}
    assert ("the file's name is a copy's (a space or parentheses in it), which no import statement can spell, so "
            "neither app nor its users import it; it runs only if someone starts the file itself"
            ) in _title(report, "app/sampling copy.py")


INSTALLER = """
    def get_gizmo_version():
        import gizmo
        return gizmo.__version__


    def apply_all_patches():
        version = get_gizmo_version()
        match version:
            case "0.8.3" | "0.8.4":
                _apply_patches_084()
            case _:
                pass


    def _apply_patches_084():
        from .v084.patch import run  # the patches written for that release only
        run()
    """


def test_a_module_imported_by_a_private_installer_called_only_under_a_version_match_is_risky(tmp_path):
    """unified-cache-management 0.3.0: `match version: case "0.9.2": _apply_patches_v092()`, and that
    function imports `patch_funcs.v092.*` (117 false breaking findings against vLLM 0.11.0). The
    installer runs only where the case matches, so the modules it imports load only there."""
    consumer = {"app/__init__.py": "from app.patch.apply import apply_all_patches\n",
                "app/patch/apply.py": INSTALLER,
                "app/patch/v084/__init__.py": "",
                "app/patch/v084/patch.py": USES_HELPER}
    report = _report(tmp_path, consumer)
    assert _severities(report) == {"app/patch/v084/patch.py": "risky"}
    assert "only under tests that are false on gizmo 0.9.0" in _title(report, "app/patch/v084/patch.py")
    # on the release it is written for, it loads
    loaded = _report(tmp_path / "own", consumer, target_version="0.8.4", baseline_version="0.8.3")
    assert _severities(loaded) == {"app/patch/v084/patch.py": "breaking"}


def test_an_installer_also_named_outside_its_calls_keeps_its_imports_loaded(tmp_path):
    handed = INSTALLER + "\n\n    HOOKS = [_apply_patches_084]  # run by whoever reads the table\n"
    consumer = {"app/__init__.py": "from app.patch.apply import apply_all_patches\n",
                "app/patch/apply.py": handed,
                "app/patch/v084/__init__.py": "",
                "app/patch/v084/patch.py": USES_HELPER}
    assert _severities(_report(tmp_path, consumer)) == {"app/patch/v084/patch.py": "breaking"}


def test_a_module_whose_import_was_commented_out_is_risky_with_the_reason(tmp_path):
    """vllm-metax's `patch/bugfix/triton_support/__init__.py` has `# from . import jit_monitor`: the
    maintainers switched the patch off, and nothing else names it. Its findings are risky; the same
    package whose `__init__` still imports it keeps them breaking; a library (no plugin entry point)
    too, since its users may import any module."""
    off = {"app/__init__.py": "from app import patches\n", "app/patches/__init__.py":
           "from . import active\n# from . import monitor  # disabled until the kernel is fixed\n",
           "app/patches/active.py": USES_HELPER, "app/patches/monitor.py": USES_HELPER}
    report = _report(tmp_path / "off", {**PLUGIN, **off})
    assert _severities(report) == {"app/patches/active.py": "breaking", "app/patches/monitor.py": "risky"}
    assert "its import is commented out (app/patches/__init__.py)" in _title(report, "app/patches/monitor.py")
    on = dict(off, **{"app/patches/__init__.py": "from . import active\nfrom . import monitor\n"})
    assert _severities(_report(tmp_path / "on", {**PLUGIN, **on})) == {
        "app/patches/active.py": "breaking", "app/patches/monitor.py": "breaking"}
    assert _severities(_report(tmp_path / "lib", off)) == {
        "app/patches/active.py": "breaking", "app/patches/monitor.py": "breaking"}
