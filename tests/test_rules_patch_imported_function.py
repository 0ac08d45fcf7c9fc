"""DRIFT070 for a function another module of the consumer defines and this one installs over a
target method (`from app.patches import cache_blocks` then `Pool.cache_blocks = cache_blocks`):
the target's own code calls it, so its parameters must take what the target now passes, as for a
function defined beside the patch (synthetic before/after pairs). The module that defines it is
one the probe reads: it names the target (a module that never does is not read at all)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

POOL_BEFORE = """
    class Pool:
        def cache_blocks(self, request, blocks):
            return blocks


    def save(pool: Pool, request, blocks):
        return pool.cache_blocks(request, blocks)
    """
POOL_AFTER = """
    class Pool:
        def cache_blocks(self, request, blocks, block_mask=None):
            return blocks


    def save(pool: Pool, request, blocks, mask=None):
        return pool.cache_blocks(request, blocks, block_mask=mask)
    """
PATCHES = """
    from gizmo.pool import Pool


    def cache_blocks(self: Pool, request, blocks):
        return list(blocks)
    """
INSTALL = """
    from gizmo.pool import Pool

    from app.patches import cache_blocks

    Pool.cache_blocks = cache_blocks
    """


def _case(patches=PATCHES, install=INSTALL):
    return Case("imported-patch", {"gizmo/pool.py": POOL_BEFORE}, {"gizmo/pool.py": POOL_AFTER},
                {"app/__init__.py": "", "app/patches.py": patches, "app/install.py": install})


def test_a_function_from_another_module_is_held_to_how_the_target_calls_it(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT070", line_of(PATCHES, "def cache_blocks"))])
    f = findings[0]
    assert f.consumer_site.path == "app/patches.py"
    assert "block_mask" in f.title and f.severity.value == "breaking"
    # Python agrees: the target's own caller now fails through the installed function
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert "unexpected keyword argument 'block_mask'" in raised_by(
        roots, "app.install", "__import__('gizmo.pool', fromlist=['save']).save(Pool(), 1, [2])")


def test_one_that_takes_what_the_target_passes_is_no_finding(tmp_path):
    fits = PATCHES.replace("(self: Pool, request, blocks)", "(self: Pool, request, blocks, block_mask=None)")
    assert fits != PATCHES
    assert findings_of(tmp_path, _case(patches=fits)) == ()
