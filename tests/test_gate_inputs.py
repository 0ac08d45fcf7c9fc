"""`drift gate` on bad input and on small consumer checkouts written here.

Bad input must end in one clear line on stderr and exit 2, never a traceback; a checkout
that does not use vLLM passes with "nothing to check"; a checkout whose pyproject pins the
vLLM it was written for gets that pin as its baseline, like a published wheel's metadata.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from drift import exitcodes
from drift.cli import main
from drift.sources.errors import FetchError

pytestmark = pytest.mark.corpus

KV_CALL = """\
from vllm.v1.core.kv_cache_utils import get_kv_cache_config_from_groups


def kv_cache_config(c, g, s):
    return get_kv_cache_config_from_groups(
        vllm_config=c, kv_cache_groups=g, kv_cache_specs=s, available_memory=1
    )
"""


def _checkout(root: Path, *, name: str, deps: str, code: str, src_layout: bool = False) -> Path:
    """A consumer repository: pyproject.toml plus one package."""
    pkg = root / "src" / name if src_layout else root / name
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text(textwrap.dedent(f"""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{name}"
        version = "0.1.0"
        {deps}
        """), encoding="utf-8")
    (pkg / "__init__.py").write_text(code, encoding="utf-8")
    return root


@pytest.fixture
def uses_vllm(tmp_path: Path) -> Path:
    """A checkout that calls vLLM but pins no version (so no baseline is fetched)."""
    return _checkout(tmp_path / "repo", name="kvtool", deps='dependencies = ["vllm"]', code=KV_CALL)


@pytest.fixture(scope="module")
def releases(corpus_src) -> None:
    for spec in ("vllm==0.11.0", "vllm==0.16.0"):
        try:
            corpus_src(spec)
        except FetchError as exc:
            pytest.skip(f"cannot fetch {spec}: {exc}")


def _one_line_error(capsys) -> str:
    captured = capsys.readouterr()
    assert captured.out == "", "no report on stdout when the gate could not run"
    err = captured.err.strip()
    lines = err.splitlines()
    # the one error shape: `drift: error: …`, then at most one `  hint: …`
    assert "Traceback" not in err and len(lines) <= 2, err
    assert lines[0].startswith("drift: error: ")
    assert all(line.startswith("  hint: ") for line in lines[1:]), err
    return err


# --- bad input -> exit 2, one line ------------------------------------------------------------


def test_unknown_release_names_the_version(uses_vllm, capsys, monkeypatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code = main(["gate", "--consumer", str(uses_vllm), "--target", "vllm==0.0.0"])
    assert code == exitcodes.USAGE
    err = _one_line_error(capsys)
    assert "vllm==0.0.0" in err and "no release matches" in err


def test_whl_that_is_not_a_zip(uses_vllm, tmp_path, capsys) -> None:
    for name in ("x.whl", "vllm-0.16.0-py3-none-any.whl"):
        bogus = tmp_path / name
        bogus.write_text("this is not a zip archive\n")
        assert main(["gate", "--consumer", str(uses_vllm), "--target", str(bogus)]) == exitcodes.USAGE
        err = _one_line_error(capsys)
        assert "not a wheel" in err and name in err


def test_missing_consumer_path(tmp_path, capsys) -> None:
    code = main(["gate", "--consumer", str(tmp_path / "nope"), "--target", "vllm==0.16.0"])
    assert code == exitcodes.USAGE
    assert "no such path" in _one_line_error(capsys)


def test_more_outputs_than_formats(uses_vllm, tmp_path, capsys) -> None:
    argv = ["gate", "--consumer", str(uses_vllm), "--format", "sarif", "-o", str(tmp_path / "a"), "-o", str(tmp_path / "b")]
    assert main(argv) == exitcodes.USAGE
    assert "--output" in _one_line_error(capsys)
    assert not (tmp_path / "a").exists()


# --- consumer checkouts -----------------------------------------------------------------------


def test_checkout_without_vllm_has_nothing_to_check(tmp_path, capsys, monkeypatch) -> None:
    repo = _checkout(tmp_path / "repo", name="plain", deps='dependencies = ["numpy"]',
                     code="import json\n\n\ndef dump(x):\n    return json.dumps(x)\n")
    monkeypatch.chdir(repo)  # the default --consumer is "." (the checkout, as in CI)
    assert main(["gate", "--target", "vllm==0.16.0"]) == exitcodes.CLEAN
    captured = capsys.readouterr()
    assert "nothing to check" in captured.err and "vllm" in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("src_layout", [False, True], ids=["flat", "src-layout"])
def test_checkout_pinned_in_extra_breaks_on_newer_release(releases, tmp_path, capsys, monkeypatch, src_layout) -> None:
    deps = '[project.optional-dependencies]\nserve = ["vllm==0.11.0"]'
    repo = _checkout(tmp_path / "repo", name="kvtool", deps=deps, code=KV_CALL, src_layout=src_layout)
    monkeypatch.chdir(repo)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert main(["gate", "--consumer", ".", "--target", "vllm==0.16.0", "--json"]) == exitcodes.DRIFT
    report = json.loads(capsys.readouterr().out)
    assert report["baseline"]["spec"] == "vllm==0.11.0"
    assert 'vllm==0.11.0; extra == "serve"' in report["baseline"]["source"]  # read from pyproject.toml
    [finding] = [f for f in report["findings"] if f["rule_id"] == "DRIFT010"]
    assert finding["severity"] == "breaking" and "kv_cache_specs" in finding["title"]
    assert finding["consumer_site"]["path"].endswith("kvtool/__init__.py")
    assert finding["consumer_site"]["line"] in (5, 6)


def test_checkout_pinned_in_extra_passes_on_its_own_release(releases, tmp_path, capsys, monkeypatch) -> None:
    deps = '[project.optional-dependencies]\nserve = ["vllm==0.11.0"]'
    repo = _checkout(tmp_path / "repo", name="kvtool", deps=deps, code=KV_CALL)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    sarif = tmp_path / "gate.sarif"
    code = main(["gate", "--consumer", str(repo), "--target", "vllm==0.11.0", "--format", "sarif", "-o", str(sarif)])
    assert code == exitcodes.CLEAN
    log = json.loads(sarif.read_text(encoding="utf-8"))
    assert log["runs"][0]["results"] == []
