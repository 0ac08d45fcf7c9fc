"""vLLM knowledge: a Request built by hand needs a block hasher once prefix caching is on."""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.model.facts import AssertFacts, FieldFacts, ModuleFacts
from drift.findings import SAFE, Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol, word
from drift.analysis.rules.base import rule

HELPER_NAME = "_drift_block_hasher"
HELPER_SRC = '''
def _drift_block_hasher(vllm_config):
    """Added by drift: vLLM asserts on Request.block_hashes if prefix caching is on."""
    cache = _drift_block_hasher.__dict__.setdefault("cache", {})
    key = id(vllm_config)
    if key not in cache:
        cache_config = vllm_config.cache_config
        parallel = vllm_config.parallel_config
        hash_fn = get_hash_fn_by_name(cache_config.prefix_caching_hash_algo)
        init_none_hash(hash_fn)
        block_size = (
            cache_config.block_size
            * getattr(parallel, "decode_context_parallel_size", 1)
            * getattr(parallel, "prefill_context_parallel_size", 1)
        )
        cache[key] = get_request_block_hasher(block_size, hash_fn)
    return cache[key]
'''
# Where the Request is built in a method of a class whose __init__ sets what the helper reads,
# the hasher is built once there (as vLLM's EngineCore does) and the helper needs no cache.
INIT_ATTR = "_drift_block_hasher"
INIT_HELPER_SRC = '''
def _drift_block_hasher(vllm_config):
    """Added by drift: vLLM asserts on Request.block_hashes if prefix caching is on."""
    cache_config = vllm_config.cache_config
    parallel = vllm_config.parallel_config
    hash_fn = get_hash_fn_by_name(cache_config.prefix_caching_hash_algo)
    init_none_hash(hash_fn)
    block_size = (
        cache_config.block_size
        * getattr(parallel, "decode_context_parallel_size", 1)
        * getattr(parallel, "prefill_context_parallel_size", 1)
    )
    return get_request_block_hasher(block_size, hash_fn)
'''


def _build_asserts(index: PackageIndex, modules=None) -> dict[str, list]:
    """attr -> [(module path, method dotted, assert record)] for asserts on `<param>.<attr>`
    (records as the probe wrote them: the answer is written to the facts store)."""
    out: dict[str, list] = {}
    for mod_name in index.modules if modules is None else modules:
        mod = ModuleFacts(index.modules[mod_name])
        for cls in mod.classes.values():
            for fn in cls.methods.values():
                for a in fn.behaviour.asserts:
                    out.setdefault(a.attr, []).append(
                        ({"path": mod.path}, f"{mod_name}.{cls.name}.{fn.name}", a.raw))
    return out


def _asserts_on(index: PackageIndex, attr: str) -> list[tuple[dict, str, AssertFacts]]:
    found = index.query("asserts_by_attr", attr, needle=word(attr), build=_build_asserts, default=[], scoped=True)
    return [(where, dotted, AssertFacts(a)) for where, dotted, a in found]


def _field(index: PackageIndex | None, dotted: str, name: str) -> tuple[Symbol | None, FieldFacts | None]:
    cls = index.lookup(dotted) if index else None
    if cls is None or cls.kind != "class":
        return None, None
    for owner in index.mro(cls):
        f = owner.as_class.field(name)
        if f is not None:
            return owner, f
    return None, None


def _module_of(index, name: str, prefer: str) -> str | None:
    found = index.definitions_named(name)
    for d in found:
        if d.startswith(prefer):
            return d.rsplit(".", 1)[0]
    return found[0].rsplit(".", 1)[0] if found else None


@rule("VLLM001", RuleKind.SEMANTIC, pack="vllm",
      searches=("block_hashes", "get_request_block_hasher", "get_hash_fn_by_name", "init_none_hash"))
def request_needs_block_hasher(ctx: CheckContext) -> Iterator[Finding]:
    """`Request(...)` built without `block_hasher` while the target turns prefix caching on by
    default and the KV-cache manager asserts `len(request.block_hashes) >= ...`: the first
    scheduled step fails with an AssertionError. The root-cause fix passes a block hasher built
    the way vLLM's EngineCore builds it.
    """
    requests = [rc for rc in ctx.calls if rc.is_constructor and rc.dotted.endswith("v1.request.Request")
                or (rc.target is not None and rc.target.dotted.endswith("v1.request.Request"))]
    if not requests:
        return
    # the scheduler's own KV-cache path (block pool) first; connectors' asserts are secondary
    asserts = sorted(_asserts_on(ctx.target, "block_hashes"),
                     key=lambda t: (t[2].subject != "request", "v1/core/" not in t[0]["path"], t[0]["path"]))
    if not asserts:
        return
    owner, fld = _field(ctx.target, "vllm.config.CacheConfig", "enable_prefix_caching")
    if fld is None or fld.default not in ("True",):
        return
    for rc in ctx.calls:
        if rc.label == "CacheConfig" and (ctx.kw_value(rc, "enable_prefix_caching") or "").strip() == "False":
            return  # the consumer turned prefix caching off: nothing asserts
    b_owner, b_fld = _field(ctx.baseline, "vllm.config.CacheConfig", "enable_prefix_caching")
    if b_fld is not None and b_fld.default == "True":
        return  # prefix caching was already on in the baseline: not drift
    vllm_config = next((ctx.kw_value(rc, "vllm_config") for rc in ctx.calls if ctx.kw_value(rc, "vllm_config")), None)
    hasher_mod = _module_of(ctx.target, "get_request_block_hasher", "vllm.v1.core")
    hash_mod = _module_of(ctx.target, "get_hash_fn_by_name", "vllm.utils")
    none_mod = _module_of(ctx.target, "init_none_hash", "vllm.v1.core")
    mod, where, a = asserts[0]
    for rc in requests:
        if "block_hasher" in rc.rec["keywords"] or rc.rec["star_kwargs"]:
            continue
        if vllm_config and hasher_mod and hash_mod and none_mod:
            fix = Fix(
                "pass `block_hasher=` built as vLLM's EngineCore builds it (get_request_block_hasher over the "
                "prefix-caching hash function); or set `enable_prefix_caching=False` on CacheConfig",
                codemod="add_keyword", tier=SAFE,  # the value vLLM's own EngineCore passes
                args={"callee": "Request", "keyword": "block_hasher", "value": f"{HELPER_NAME}({vllm_config})",
                      "imports": [[hasher_mod, "get_request_block_hasher"], [none_mod, "init_none_hash"],
                                  [hash_mod, "get_hash_fn_by_name"]],
                      "helper_name": HELPER_NAME, "helper_src": HELPER_SRC.strip() + "\n",
                      "init_attr": INIT_ATTR, "init_helper_src": INIT_HELPER_SRC.strip() + "\n"},
            )
        else:
            fix = Fix("pass `block_hasher=` or disable prefix caching",
                      manual_reason="the consumer passes no vllm_config drift can build the hasher from")
        evidence = [Location(mod["path"], a.line, symbol=where, snippet=f"assert {a.src}")]
        evidence.append(Location(owner.path, fld.line, symbol=f"{owner.dotted}.enable_prefix_caching",
                                 snippet=f"enable_prefix_caching: {fld.annotation} = {fld.default}"))
        base_ev = ()
        if b_fld is not None:
            base_ev = (Location(b_owner.path, b_fld.line, symbol=f"{b_owner.dotted}.enable_prefix_caching",
                                snippet=f"enable_prefix_caching: {b_fld.annotation} = {b_fld.default}"),)
        yield Finding(
            rule_id="VLLM001", kind=RuleKind.SEMANTIC, severity=Severity.BREAKING,
            title="`Request` is built without `block_hasher`; prefix caching is now on by default",
            consumer_site=rc.site,
            target_evidence=tuple(evidence),
            baseline_evidence=base_ev,
            predicted_failure=f"AssertionError: assert {a.src} (in {where.rsplit('.', 2)[-2]}.{where.rsplit('.', 1)[-1]}, "
                              "on the first scheduled step)",
            fix=fix,
            symbol="vllm.v1.request.Request",
        )
