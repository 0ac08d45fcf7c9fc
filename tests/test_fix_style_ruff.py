"""Every codemod's plain edit passes the consumer's own ruff: `ruff check` (isort order, line
length, pyflakes) and `ruff format --check` are no worse on the patched file than on the
original. The consumer is synthetic and ruff-clean; each module exercises one fix kind, through
the real planner (`drift.fixes.plan`) and the real ruff binary.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.fixes.kinds import REGISTRY
from drift.fixes.plan import plan

PYPROJECT = """\
[project]
name = "acme"
version = "1.0"

[tool.ruff]
line-length = 88

[tool.ruff.lint]
select = ["E", "F", "I", "W"]
"""

HEADER = '''\
"""A synthetic consumer module."""

import os

import torch
{imports}

from acme.base import Base

from .helpers import helper

USED = (os, torch, Base, helper)  # the header's imports are the consumer's, in use
'''

# kind -> (imports, body, needle on the site line, codemod args)
CASES: dict[str, tuple[str, str, str, dict]] = {
    "drop_keyword": (
        "from vllm.config import CacheConfig",
        """
        def build() -> CacheConfig:
            return CacheConfig(block_size=16, swap_space=4, cache_dtype=os.environ["DT"])
        """,
        "CacheConfig(block_size", dict(callee="CacheConfig", keyword="swap_space"),
    ),
    "add_keyword": (
        "from vllm.v1.request import Request",
        """
        def make(params, eos_token_id, arrival_time, config) -> Request:
            return Request(request_id="r", prompt_token_ids=[1], sampling_params=params)
        """,
        "Request(request_id",
        dict(callee="Request", keyword="block_hasher", value="_block_hasher(config.cache_config.block_size)",
             imports=[["vllm.v1.core.kv_cache_utils", "get_request_block_hasher"],
                      ["vllm.utils.hashing", "sha256"]],
             helper_name="_block_hasher",
             helper_src="def _block_hasher(block_size):\n    return get_request_block_hasher(block_size, sha256)\n"),
    ),
    "rename_method": (
        "from vllm.config import VllmConfig",
        """
        class Model(Base):
            def embed(self, config: VllmConfig, ids: torch.Tensor) -> torch.Tensor:
                return self.model.get_input_embeddings(ids)
        """,
        "get_input_embeddings", dict(old="get_input_embeddings", new="embed_input_ids"),
    ),
    "add_second_phase": (
        "from vllm.v1.executor.multiproc_executor import MultiprocExecutor",
        """
        def step(executor: MultiprocExecutor, scheduler_output) -> None:
            executor.execute_model(scheduler_output)
        """,
        "execute_model", {},
    ),
    "unwrap_index": (
        "from vllm.v1.executor.multiproc_executor import MultiprocExecutor",
        """
        def capture(executor: MultiprocExecutor) -> torch.Tensor:
            states = executor.collective_rpc("_get_captured_states", unique_reply_rank=0)
            return states[0]
        """,
        "states[0]", dict(index="0", name="states"),
    ),
    "move_import": (
        "from vllm.sampling_params import SamplingParams\n"
        "from vllm.utils import FlexibleArgumentParser, cdiv\n"
        "from vllm.v1.request import Request",
        """
        def blocks(n: int, params: SamplingParams, request: Request) -> int:
            FlexibleArgumentParser()
            return cdiv(n, 16)
        """,
        "from vllm.utils import",
        dict(module="vllm.utils", moves={"cdiv": "vllm.utils.math_utils",
                                         "FlexibleArgumentParser": "vllm.utils.argparse_utils"}),
    ),
    "rename_attribute_owner": (
        "from vllm.config import VllmConfig",
        """
        def max_len(config: VllmConfig) -> int:
            return config.scheduler_config.max_model_len
        """,
        "scheduler_config", dict(attr="max_model_len", old="scheduler_config", new="model_config"),
    ),
    "rename_keyword": (
        "from vllm.sampling_params import SamplingParams",
        """
        def params(constraint) -> SamplingParams:
            return SamplingParams(temperature=0.0, max_tokens=256, guided_decoding=constraint)
        """,
        "guided_decoding", dict(callee="SamplingParams", old="guided_decoding", new="structured_outputs"),
    ),
    "rename_attribute": (
        "from vllm.engine.arg_utils import AsyncEngineArgs",
        """
        def quiet(args: AsyncEngineArgs) -> bool:
            return args.disable_log_requests
        """,
        "disable_log_requests", dict(old="disable_log_requests", new="enable_log_requests", convert="not"),
    ),
    "rename_import": (
        "from vllm.sampling_params import GuidedDecodingParams, SamplingParams",
        """
        def params(regex: str) -> SamplingParams:
            return SamplingParams(guided_decoding=GuidedDecodingParams(regex=regex))
        """,
        "import GuidedDecodingParams", dict(old="GuidedDecodingParams", new="StructuredOutputsParams"),
    ),
    "rename_constants_class": (
        "from vllm.config import CompilationLevel, VllmConfig",
        """
        def eager(config: VllmConfig) -> bool:
            config.compilation_config.level = CompilationLevel.NO_COMPILATION
            return config.compilation_config.level == CompilationLevel.PIECEWISE
        """,
        "import CompilationLevel",
        dict(old="CompilationLevel", new="CompilationMode", fields={"level": "mode"},
             members={"NO_COMPILATION": "NONE", "PIECEWISE": "VLLM_COMPILE"}),
    ),
    "drop_check": (
        "from vllm.lora.models import LoRAModel",
        """
        def checked(lora: LoRAModel, limit: int) -> LoRAModel:
            helper(lora)

            if lora.extra_vocab_size > limit:
                raise ValueError("too big")
            return lora
        """,
        "if lora.extra", dict(guard="lora.extra_vocab_size > limit"),
    ),
    "keywordize_arguments": (
        "from vllm.v1.core.kv_cache_utils import get_kv_cache_config_from_groups",
        """
        def kv(vllm_config, groups, available_memory):
            return get_kv_cache_config_from_groups(vllm_config, groups, available_memory)
        """,
        "get_kv_cache_config_from_groups(vllm",
        dict(callee="get_kv_cache_config_from_groups", start=0,
             names=["vllm_config", "kv_cache_groups", "available_memory"]),
    ),
    "add_parameters": (
        "from vllm.v1.metrics.loggers import StatLoggerBase",
        """
        class Logger(StatLoggerBase):
            def record(self, scheduler_stats, iteration_stats, engine_idx: int = 0) -> None:
                helper(scheduler_stats, iteration_stats, engine_idx)
        """,
        "def record", dict(function="record", params=[["mm_cache_stats", "None", "iteration_stats"]]),
    ),
    "alias_member": (
        "from vllm.model_executor.models.registry import ModelRegistry",
        """
        class Model(Base):
            def get_input_embeddings(self, input_ids):
                return helper(input_ids)

            def forward(self, input_ids, positions):
                return helper(input_ids, positions)


        ModelRegistry.register_model("Acme", Model)
        """,
        "def get_input_embeddings", dict(old="get_input_embeddings", new="embed_input_ids"),
    ),
    "bind_parameters": (
        "from vllm.model_executor.layers.fused_moe import FusedMoEMethodBase",
        """
        class Method(FusedMoEMethodBase):
            def apply(
                self,
                layer: torch.nn.Module,
                x: torch.Tensor,
                router_logits: torch.Tensor,
                top_k: int,
                renormalize: bool,
            ) -> torch.Tensor:
                \"\"\"Route with the layer's settings.\"\"\"
                return helper(x, router_logits, top_k, renormalize)
        """,
        "def apply", dict(function="apply", params=[["top_k", "layer.top_k"], ["renormalize", "layer.renormalize"]]),
    ),
    "unpack_rest": (
        "from vllm.v1.kv_offload.worker.cpu_gpu import DualQueueThreadPool",
        """
        def drain(pool: DualQueueThreadPool) -> list[int]:
            done = []
            for job_id, success in pool.get_finished():
                if success:
                    done.append(job_id)
            return done
        """,
        "for job_id, success", dict(callee="get_finished", names=2),
    ),
    "drop_argument": (
        "from vllm.entrypoints.openai.api_server import init_app_state",
        """
        async def serve(engine_client, vllm_config, state, args) -> None:
            await init_app_state(engine_client, vllm_config, state, args)
        """,
        "await init_app_state", dict(callee="init_app_state", positions=[1], count=4),
    ),
    "call_to_attribute": (
        "from vllm.v1.core.kv_cache_manager import KVCacheManager",
        """
        def empty_blocks(manager: KVCacheManager) -> object:
            return manager.create_empty_block_list()
        """,
        "create_empty_block_list", dict(method="create_empty_block_list", attr="empty_kv_cache_blocks"),
    ),
    "compare_versions": (
        "import vllm",
        """
        def new_engine() -> bool:
            return vllm.__version__ >= "0.9.0"
        """,
        "__version__", dict(op=">=", version="0.9.0"),
    ),
    "build_from_factory": (
        "from vllm.utils import logger",
        """
        def run() -> None:
            logger.info("run")
        """,
        "from vllm.utils import logger",
        dict(module="vllm.utils", name="logger", factory_module="vllm.logger", factory="init_logger",
             call='init_logger("vllm.utils")'),
    ),
    "rewrite_arguments": (
        "from vllm.v1.core.kv_cache_manager import KVCacheManager",
        """
        def common_blocks(manager: KVCacheManager, request: object, running: list) -> int:
            return manager.get_num_common_prefix_blocks(request, len(running))
        """,
        "get_num_common_prefix_blocks",
        dict(callee="get_num_common_prefix_blocks", before=["request", "len(running)"],
             after=["request.request_id"]),
    ),
    "settle_setting": (
        "import vllm.envs as envs",
        """
        def check() -> None:
            if not envs.VLLM_USE_V1:
                raise ValueError("V0")
            helper()
        """,
        "if not envs", dict(attr="VLLM_USE_V1", value=True),
    ),
    "read_env": (
        "import vllm.envs as envs",
        """
        def gap() -> int:
            return envs.VLLM_PADDING_GAP * 2
        """,
        "envs.VLLM_PADDING_GAP", dict(attr="VLLM_PADDING_GAP", expr='int(os.getenv("VLLM_PADDING_GAP", "0"))'),
    ),
    "replace_removed_call": (
        "from vllm.model_executor.layers.batch_invariant import vllm_is_batch_invariant",
        """
        def deterministic() -> bool:
            return bool(vllm_is_batch_invariant())
        """,
        "import vllm_is_batch_invariant", dict(name="vllm_is_batch_invariant", expression="envs.VLLM_BATCH_INVARIANT",
                                               head="envs", module="vllm.envs"),
    ),
    "import_moved_member": (
        "from vllm.model_executor.layers.quantization import ct_moe as vllm_ctm",
        """
        class MacaCompressedTensorsMarlinLayer(vllm_ctm.CompressedTensorsWNA16MarlinMoEMethod):
            pass
        """,
        "class MacaCompressedTensorsMarlinLayer(",
        dict(module="vllm.model_executor.layers.quantization.ct_moe", name="CompressedTensorsWNA16MarlinMoEMethod",
             new_module="vllm.model_executor.layers.quantization.ct_moe.wna16_marlin"),
    ),
}


def _ruff() -> list[str]:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.fail("ruff is in the test extras: install them (pip install -e .[test])")
    return [exe]


def _source(kind: str) -> str:
    imports, body, _, _ = CASES[kind]
    return HEADER.format(imports=imports) + "\n\n" + textwrap.dedent(body).lstrip("\n")


def _violations(project: Path, rel: str) -> list[str]:
    out = subprocess.run([*_ruff(), "check", "--no-cache", "--output-format", "json", rel], cwd=project,
                         capture_output=True, text=True, check=False)
    return sorted(f"{v['code']} {v['message']}" for v in json.loads(out.stdout or "[]"))


def _formatted(project: Path, rel: str) -> bool:
    out = subprocess.run([*_ruff(), "format", "--no-cache", "--check", rel], cwd=project,
                         capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    return out.returncode == 0


def _project(root: Path, rel: str, text: str) -> Path:
    (root / "acme").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    for name in ("__init__.py", "base.py", "helpers.py"):
        (root / "acme" / name).write_text("")
    (root / rel).write_text(text)
    return root


def test_every_kind_is_exercised():
    assert set(CASES) == set(REGISTRY)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_patched_file_is_as_ruff_clean_as_the_original(kind, tmp_path):
    rel = f"acme/{kind}.py"
    source = _source(kind)
    orig = _project(tmp_path / "orig", rel, source)
    assert _violations(orig, rel) == [] and _formatted(orig, rel), "the synthetic original must be ruff-clean"

    needle, args = CASES[kind][2], CASES[kind][3]
    line = next(n for n, text in enumerate(source.splitlines(), 1) if needle in text)
    finding = Finding(rule_id="T001", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING, title="t",
                      consumer_site=Location(rel, line), symbol=kind,
                      fix=Fix("fix it", codemod=kind, args=args, tier="unsafe"))
    result = plan({rel: source.encode()}, [finding], unsafe_fixes=True, line_length=88)
    assert [c.finding_keys for c in result.changes] == [(finding.key,)], result.skipped
    patched_text = result.changes[0].after.decode()

    patched = _project(tmp_path / "patched", rel, patched_text)
    assert _violations(patched, rel) == [], patched_text
    assert _formatted(patched, rel), patched_text
    # and a second plan over the patched file changes nothing more than the codemod's own idempotence
    again = plan({rel: patched_text.encode()}, [finding], unsafe_fixes=True, line_length=88)
    assert not again.changes


def test_an_import_merged_into_an_existing_statement_stays_in_its_section(tmp_path):
    """A name joining `from vllm.config import ...` edits that statement where it is; only
    statements of a module new to the file move (the first-party section keeps its blank line)."""
    rel = "acme/merge.py"
    source = HEADER.format(imports="from vllm.config import CacheConfig") + "\n\n" + textwrap.dedent("""
        def build(n: int) -> CacheConfig:
            return CacheConfig(block_size=n)
        """).lstrip("\n")
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "CacheConfig(block_size" in text)
    finding = Finding(rule_id="T001", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING, title="t",
                      consumer_site=Location(rel, line), symbol="merge",
                      fix=Fix("fix it", codemod="add_keyword",
                              args=dict(callee="CacheConfig", keyword="kv_cache_dtype", value="KVDtype(n).name",
                                        imports=[["vllm.config", "KVDtype"], ["vllm.attention", "Backend"]]),
                              tier="safe"))
    text = plan({rel: source.encode()}, [finding], line_length=88).changes[0].after.decode()
    assert ("import torch\nfrom vllm.attention import Backend\nfrom vllm.config import CacheConfig, KVDtype\n\n"
            "from acme.base import Base\n") in text, text
    patched = _project(tmp_path, rel, text + "\n\nUSED_TOO = Backend\n")
    assert _violations(patched, rel) == [] and _formatted(patched, rel), text


def test_two_fixes_emptying_the_statement_that_opens_a_section_keep_the_sections_apart(tmp_path):
    """`from vllm.utils import logger, sha256` first of the third-party section: the name that moved
    and the value built from its factory both leave it, both statements that replace it move to
    their sorted places, and the blank line between stdlib and third party stays."""
    rel = "acme/values.py"
    source = textwrap.dedent('''\
        """A synthetic consumer module."""

        import os

        from vllm.utils import logger, sha256
        from vllm.v1.core import BlockPool

        from acme.base import Base

        USED = (os, logger, sha256, BlockPool, Base)
        ''')
    orig = _project(tmp_path / "orig", rel, source)
    assert _violations(orig, rel) == [] and _formatted(orig, rel)
    line = source.splitlines().index("from vllm.utils import logger, sha256") + 1
    fixes = [Fix("move", codemod="move_import", args={"module": "vllm.utils", "moves": {"sha256": "vllm.utils.hashing"}},
                 tier="safe"),
             Fix("build", codemod="build_from_factory",
                 args=dict(module="vllm.utils", name="logger", factory_module="vllm.logger", factory="init_logger",
                           call='init_logger("vllm.utils")'), tier="safe")]
    findings = [Finding(rule_id="T001", kind=RuleKind.IMPORT_MOVED, severity=Severity.BREAKING, title="t",
                        consumer_site=Location(rel, line), symbol=f.codemod or "", fix=f) for f in fixes]
    patched_text = plan({rel: source.encode()}, findings, line_length=88).changes[0].after.decode()
    assert "import os\n\nfrom vllm.logger import init_logger\nfrom vllm.utils.hashing import sha256\n" in patched_text
    patched = _project(tmp_path / "patched", rel, patched_text)
    assert _violations(patched, rel) == [], patched_text
    assert _formatted(patched, rel), patched_text
