"""Synthetic Report objects for the renderer tests, shaped like a speculators-on-vLLM check.

Written for these tests: the paths, lines and messages look like what drift reports for
speculators 0.3.0 (written for vllm 0.11.0) against newer vLLM, but no source is copied.
"""

from __future__ import annotations

from drift.findings import Finding, Fix, Location, Report, RuleKind, Severity, UseChecked

GEN = "speculators/data_generation/vllm_hidden_states_generator.py"
COMPAT = "speculators/utils/vllm_compat.py"

CONSUMER = {"name": "speculators", "version": "0.3.0", "spec": "speculators==0.3.0"}
BASELINE = {"name": "vllm", "version": "0.11.0", "spec": "vllm==0.11.0"}

ENV = {
    "python": "3.12.3",
    "executable": "/opt/venv/bin/python",
    "platform": "Linux-6.8.0-x86_64",
    "hostname": "gpu-01",
    "packages": {
        "vllm": {"version": "0.16.0", "commit": "9f1e2d3c4b5a", "location": "/opt/venv/lib/python3.12/site-packages"},
        "torch": {"version": "2.9.0", "cuda": "12.8", "location": "/opt/venv/lib/python3.12/site-packages"},
    },
    "gpus": [{"name": "NVIDIA H100 80GB HBM3", "memory": "81559 MiB", "driver": "570.86"}] * 8,
}


def _use(symbol: str, line: int, what: str, snippet: str | None = None) -> UseChecked:
    return UseChecked(symbol=symbol, site=Location(GEN, line, snippet=snippet), what=what)


USES = (
    _use("vllm.config.CacheConfig", 6, "import"),
    _use("vllm.sampling_params.SamplingParams", 14, "import"),
    _use("vllm.v1.core.kv_cache_utils.get_kv_cache_config_from_groups", 16, "import"),
    _use("vllm.v1.core.kv_cache_utils.unify_hybrid_kv_cache_specs", 17, "import"),
    _use("vllm.v1.core.kv_cache_utils._get_kv_cache_groups_uniform_spec", 18, "import"),
    _use("vllm.v1.core.sched.scheduler.Scheduler", 20, "import"),
    _use("vllm.v1.executor.multiproc_executor.MultiprocExecutor", 21, "import"),
    _use("vllm.v1.request.Request", 22, "import"),
    _use("vllm.v1.executor.multiproc_executor.MultiprocExecutor", 120, "call"),
    _use("vllm.v1.executor.multiproc_executor.MultiprocExecutor.collective_rpc", 126, "method"),
    _use("vllm.v1.core.kv_cache_utils._get_kv_cache_groups_uniform_spec", 131, "call"),
    _use("vllm.v1.core.kv_cache_utils.get_kv_cache_config_from_groups", 136, "call"),
    _use("vllm.v1.core.sched.scheduler.Scheduler", 148, "call"),
    _use("vllm.config.CacheConfig", 166, "call"),
    _use("vllm.v1.request.Request", 234, "call"),
    _use("vllm.v1.core.sched.scheduler.Scheduler.schedule", 253, "method"),
    _use("vllm.v1.executor.multiproc_executor.MultiprocExecutor.execute_model", 261, "method"),
    _use("vllm.v1.executor.multiproc_executor.MultiprocExecutor.collective_rpc", 267, "method"),
)

KEYWORD_REMOVED = Finding(
    rule_id="DRIFT101",
    kind=RuleKind.KEYWORD_REMOVED,
    severity=Severity.BREAKING,
    title="get_kv_cache_config_from_groups() no longer accepts 'kv_cache_specs'",
    # The keyword sits three lines into a multi-line call that starts at line 136.
    consumer_site=Location(GEN, 139, snippet="kv_cache_specs=kv_cache_spec,"),
    target_evidence=(Location("vllm/v1/core/kv_cache_utils.py", 1069, symbol="vllm.v1.core.kv_cache_utils.get_kv_cache_config_from_groups"),),
    baseline_evidence=(Location("vllm/v1/core/kv_cache_utils.py", 1004),),
    predicted_failure="TypeError: get_kv_cache_config_from_groups() got an unexpected keyword argument 'kv_cache_specs'",
    fix=Fix("drop the keyword argument 'kv_cache_specs'", codemod="remove-keyword", args={"keyword": "kv_cache_specs"}),
    symbol="vllm.v1.core.kv_cache_utils.get_kv_cache_config_from_groups",
)

REQUEST_BLOCK_HASHER = Finding(
    rule_id="VLLM001",
    kind=RuleKind.SEMANTIC,
    severity=Severity.BREAKING,
    title="Request() built without block_hasher: the scheduler now asserts block hashes exist",
    consumer_site=Location(GEN, 234, snippet="req = Request("),
    target_evidence=(
        Location("vllm/v1/request.py", 59, symbol="vllm.v1.request.Request.__init__"),
        Location("vllm/v1/core/kv_cache_manager.py", 188, snippet="assert len(request.block_hashes) >= num_computed_blocks"),
    ),
    baseline_evidence=(Location("vllm/v1/request.py", 28),),
    predicted_failure="AssertionError in KVCacheManager.get_computed_blocks on the first schedule()",
    fix=Fix(
        "pass block_hasher=get_request_block_hasher(block_size, hash_fn) to Request()",
        codemod="pass-block-hasher",
        args={"call": "vllm.v1.request.Request"},
    ),
    symbol="vllm.v1.request.Request.__init__",
    details="prefix caching is on by default; block hashes are computed by the hasher the engine used to pass",
)

TWO_PHASE = Finding(
    rule_id="DRIFT201",
    kind=RuleKind.TWO_PHASE_PROTOCOL,
    severity=Severity.BREAKING,
    title="MultiprocExecutor.execute_model() returns None; outputs now come from sample_tokens()",
    consumer_site=Location(GEN, 261, snippet="self.executor.execute_model(scheduler_output)"),
    target_evidence=(
        Location("vllm/v1/executor/multiproc_executor.py", 270, symbol="MultiprocExecutor.execute_model"),
        Location("vllm/v1/executor/multiproc_executor.py", 282, symbol="MultiprocExecutor.sample_tokens"),
        Location("vllm/v1/worker/gpu_model_runner.py", 2950, snippet="self.execute_model_state = ExecuteModelState("),
    ),
    baseline_evidence=(Location("vllm/v1/executor/multiproc_executor.py", 173),),
    predicted_failure="RuntimeError: State error: sample_tokens() must be called after execute_model() returns None",
    fix=Fix("call sample_tokens(None) after execute_model() when it returns None", codemod="call-sample-tokens"),
    symbol="vllm.v1.executor.multiproc_executor.MultiprocExecutor.execute_model",
)

IMPORT_MOVED = Finding(
    rule_id="DRIFT002",
    kind=RuleKind.IMPORT_MOVED,
    severity=Severity.BREAKING,
    title="unify_hybrid_kv_cache_specs moved out of vllm.v1.core.kv_cache_utils",
    consumer_site=Location(GEN, 17, snippet="unify_hybrid_kv_cache_specs,"),
    target_evidence=(Location("vllm/v1/core/kv_cache_spec_utils.py", 41, symbol="vllm.v1.core.kv_cache_spec_utils.unify_hybrid_kv_cache_specs"),),
    baseline_evidence=(Location("vllm/v1/core/kv_cache_utils.py", 772),),
    predicted_failure="ImportError: cannot import name 'unify_hybrid_kv_cache_specs' from 'vllm.v1.core.kv_cache_utils'",
    fix=Fix(
        "import it from vllm.v1.core.kv_cache_spec_utils",
        codemod="rewrite-import",
        args={"old": "vllm.v1.core.kv_cache_utils", "new": "vllm.v1.core.kv_cache_spec_utils"},
    ),
    symbol="vllm.v1.core.kv_cache_utils.unify_hybrid_kv_cache_specs",
)

POSITIONAL = Finding(
    rule_id="DRIFT104",
    kind=RuleKind.POSITIONAL_ARITY,
    severity=Severity.BREAKING,
    title="Scheduler() takes its arguments by keyword only after vllm_config",
    consumer_site=Location(GEN, 148, snippet="self.scheduler = Scheduler("),
    target_evidence=(Location("vllm/v1/core/sched/scheduler.py", 63, symbol="vllm.v1.core.sched.scheduler.Scheduler.__init__"),),
    baseline_evidence=(Location("vllm/v1/core/sched/scheduler.py", 47),),
    predicted_failure="TypeError: Scheduler.__init__() takes 2 positional arguments but 3 were given",
    fix=Fix("name the arguments after vllm_config", codemod="positional-to-keyword"),
    symbol="vllm.v1.core.sched.scheduler.Scheduler.__init__",
)

RETURN_SHAPE = Finding(
    rule_id="DRIFT301",
    kind=RuleKind.RETURN_SHAPE,
    severity=Severity.RISKY,
    title="collective_rpc() returns one value per rank unless unique_reply_rank is set",
    consumer_site=Location(GEN, 267, snippet="captured_states_list = self.executor.collective_rpc("),
    target_evidence=(Location("vllm/v1/executor/multiproc_executor.py", 318, snippet="return result if unique_reply_rank is None else result[0]"),),
    baseline_evidence=(Location("vllm/v1/executor/multiproc_executor.py", 221),),
    predicted_failure="IndexError or silently mixed ranks when indexing the per-rank list",
    fix=Fix("index the reply by rank", manual_reason="which rank holds the captured states depends on the consumer"),
    symbol="vllm.v1.executor.multiproc_executor.MultiprocExecutor.collective_rpc",
)

DEFAULT_CHANGED = Finding(
    rule_id="DRIFT401",
    kind=RuleKind.DEFAULT_CHANGED,
    severity=Severity.RISKY,
    title="CacheConfig(enable_prefix_caching) now defaults to True",
    consumer_site=Location(GEN, 166, snippet="cache_config = CacheConfig("),
    target_evidence=(Location("vllm/config/cache.py", 74, snippet="enable_prefix_caching: bool = True"),),
    baseline_evidence=(Location("vllm/config/cache.py", 70, snippet="enable_prefix_caching: Optional[bool] = None"),),
    predicted_failure="prefix-cache hits skip prefill, so some hidden states are never captured",
    fix=Fix("pass enable_prefix_caching=False", codemod="add-keyword", args={"keyword": "enable_prefix_caching", "value": "False"}),
    symbol="vllm.config.cache.CacheConfig",
)

VANISHED_INFO = Finding(
    rule_id="DRIFT501",
    kind=RuleKind.METHOD_VANISHED,
    severity=Severity.INFO,
    title="get_kv_cache_spec is now get_kv_cache_specs on every worker class",
    consumer_site=Location(COMPAT, 12, snippet='"get_kv_cache_spec",'),
    target_evidence=(Location("vllm/v1/worker/gpu_worker.py", 301, symbol="Worker.get_kv_cache_specs"),),
    baseline_evidence=(Location("vllm/v1/worker/gpu_worker.py", 266),),
    predicted_failure=None,
    fix=None,
    symbol="vllm.v1.worker.gpu_worker.Worker.get_kv_cache_spec",
    details="string names passed to collective_rpc are not resolved statically",
)

SEED_FINDINGS = (
    REQUEST_BLOCK_HASHER,
    TWO_PHASE,
    KEYWORD_REMOVED,
    IMPORT_MOVED,
    POSITIONAL,
    RETURN_SHAPE,
    DEFAULT_CHANGED,
    VANISHED_INFO,
)


def target(version: str, commit: str | None = None) -> dict:
    return {"name": "vllm", "version": version, "spec": f"vllm=={version}", "commit": commit}


def seed_report() -> Report:
    """vllm 0.16.0 on a GPU host: five breaking, two risky, one info."""
    return Report(
        consumer=dict(CONSUMER),
        target=target("0.16.0", "9f1e2d3c4b5a"),
        baseline=dict(BASELINE),
        findings=SEED_FINDINGS,
        uses=USES,
        env=ENV,
        host="gpu-01",
        notes=("speculators/utils/vllm_compat.py: 1 string-dispatched call not resolved",),
    )


def middle_report() -> Report:
    """vllm 0.12.0 from PyPI: one keyword gone, one risky default."""
    return Report(
        consumer=dict(CONSUMER),
        target=target("0.12.0"),
        baseline=dict(BASELINE),
        findings=(KEYWORD_REMOVED, DEFAULT_CHANGED),
        uses=USES,
    )


def clean_report() -> Report:
    """The baseline itself: nothing to report."""
    return Report(consumer=dict(CONSUMER), target=target("0.11.0"), baseline=dict(BASELINE), findings=(), uses=USES)


def matrix_reports() -> list[Report]:
    return [clean_report(), middle_report(), seed_report()]
