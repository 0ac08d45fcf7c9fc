"""vLLM knowledge: a request field a client sends vLLM's OpenAI-compatible server over HTTP.

A consumer that talks to a running vLLM server never imports vLLM: it sends vLLM's own request
fields as keys, `client.chat.completions.create(..., extra_body={"guided_json": schema})`. The
server parses the body into its pydantic request models (`ChatCompletionRequest`,
`CompletionRequest`, ... under `vllm/entrypoints/`), and a key that is no field of them is
dropped with a warning in the log (or rejected, where a model forbids extra keys): the call still
answers, and the consumer's constraint or feature silently stops working. vLLM 0.12 removed the
`guided_*` fields this way, after a release that marked them deprecated in their descriptions.

Read from the probe's `extra_body` keys (probes/extra_body.py, recorded in any consumer module,
importing vLLM or not) and, on each release, the fields of every pydantic class named `*Request`
under the server's modules, through their bases. A key that was such a field on the baseline and
is none on the target, and that the server's modules never quote (a validator reading the raw body
by name would still take it), is reported. Risky: the consumer may talk to another server, or
guard the key by the server's version. When the baseline's field says where its value goes now
(a description naming another field the target's models have), that field is named.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Needle, PackageIndex

# The server's modules (vLLM's OpenAI-compatible entrypoints) and how its request models are named.
SERVER_MODULES = ("entrypoints",)
REQUEST_SUFFIX = "Request"
_REQUEST_CLASS = Needle(REQUEST_SUFFIX.encode(), re.compile(rb"class\s+\w*%s\b" % REQUEST_SUFFIX.encode()))
_QUOTED = re.compile(r"`([A-Za-z_]\w*)`")


def _in_server(module: str, package: str) -> bool:
    parts = module.split(".")
    return parts[0] == package and any(p in parts for p in SERVER_MODULES)


def _build_fields(index: PackageIndex, modules) -> dict[str, Any]:
    """{"fields": {field: [class dotted, path, line, default text]}} over every request model."""
    out: dict[str, list] = {}
    for mod_name in modules:
        if not _in_server(mod_name, mod_name.split(".")[0]):
            continue
        for cls in index.iter_classes([mod_name]):
            if not cls.dotted.endswith(REQUEST_SUFFIX) or not index.is_pydantic(cls):
                continue
            for owner in index.mro(cls):
                for f in owner.as_class.fields:
                    if f.classvar or f.name.startswith("_"):
                        continue
                    out.setdefault(f.name, [owner.dotted, owner.path, f.raw.get("line") or owner.line,
                                            f.default or ""])
    return {"fields": out}


def request_fields(index: PackageIndex | None) -> dict[str, list]:
    """field name -> [class dotted, path, line, default text] of the server's request models."""
    if index is None:
        return {}
    return index.query("vllm_request_fields.v1", "fields", needle=_REQUEST_CLASS, build=_build_fields,
                       default={}) or {}


def _server_quotes(index: PackageIndex, key: str, package: str) -> bool:
    """Whether one of the server's modules reads `key` from a mapping by name (`data["key"]`,
    `data.get("key")`, `data.pop("key")`, `"key" in data`: a validator of the raw body). The rest
    of the package does not count (a config's or a CLI table's `"logits_processors"` in vLLM 0.18),
    nor does the same word as a value (`Literal["structural_tag"]`, `fmt.type == "structural_tag"`
    in vLLM 0.12's response formats): neither says the server reads it from a request."""
    word = key.encode()
    q = rb"[\"']%s[\"']" % re.escape(word)
    needle = Needle(word, re.compile(rb"(?<!Literal)\[\s*%s\s*\]|\.(?:get|pop|setdefault)\(\s*%s|%s\s+(?:not\s+)?in\b"
                                     % (q, q, q)))
    return any(_in_server(m, package) for m in index.source_search(needle))


def _advice(default: str, successor: str) -> str | None:
    """The sentence of the baseline field's description that names the successor, as written
    (`Please pass `json` to `structured_outputs` instead.`): it says in what shape the value goes."""
    text = re.sub(r"[\"']\s*\n?\s*[\"']|\s+", " ", default)  # implicit concatenation of string literals
    m = re.search(r"[^.\"'(]*`%s`[^.\"']*\." % re.escape(successor), text)
    return m.group(0).strip() if m else None


def _successor(default: str, key: str, fields: dict[str, list]) -> str | None:
    """The one other field of the target's request models that the baseline field's description
    names in backquotes (`"Please pass `json` to `structured_outputs` instead."`), when it says
    the field is deprecated."""
    if "deprecat" not in default.lower():
        return None
    named = {n for n in _QUOTED.findall(default) if n != key and n in fields}
    return named.pop() if len(named) == 1 else None


@rule("DRIFT136", RuleKind.KEYWORD_REMOVED, Severity.RISKY, pack="vllm")
def request_field_dropped(ctx: CheckContext) -> Iterator[Finding]:
    """A key a consumer sends vLLM's server in `extra_body` that was a field of the baseline's
    request models and is a field of none of the target's: the server drops it (or rejects the
    request), and what the key asked for no longer happens."""
    sent = [(mod, row) for mod in ctx.usage if isinstance(mod, dict) for row in mod.get("extra_body") or ()]
    if not sent or ctx.baseline is None:
        return
    before, after = request_fields(ctx.baseline), request_fields(ctx.target)
    if not before or not after:
        return  # no request models read on one side: nothing to compare
    seen = set()
    for mod, (key, line, col) in sent:
        if key not in before or key in after or (mod["path"], line, key) in seen:
            continue
        if _server_quotes(ctx.target, key, ctx.target_package):
            continue  # the server names it as text: a validator may still read it from the raw body
        seen.add((mod["path"], line, key))
        owner, path, bline, default = before[key]
        label = owner.rsplit(".", 1)[-1]
        successor = _successor(default, key, after)
        details = (f"vLLM's server parses the request body into its request models; on the baseline "
                   f"`{label}.{key}` took this key, on the target no request model has a field `{key}`, so the "
                   f"server ignores it (logged as an unknown field) or rejects the request, and the call runs without "
                   f"it. Risky: the client may talk to another server, or send the key only to older vLLM releases.")
        if successor:
            advice = _advice(default, successor)
            fix = Fix(f"send the value through `{successor}`" + (f" (the baseline's field: \"{advice}\")" if advice else ""),
                      manual_reason="the successor field may take the value in another shape")
            sid, spath, sline, _ = after[successor]
            target_evidence = (Location(spath, sline, symbol=f"{sid}.{successor}"),)
        else:
            fix = Fix(f"drop `{key}` from extra_body or send what replaced it",
                      manual_reason="which field replaced it is vLLM's")
            target_evidence = ()
        yield Finding(
            rule_id="DRIFT136", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.RISKY,
            title=f"vLLM's server no longer has request field `{key}` (sent in extra_body; it is ignored)"
                  + (f": use `{successor}`" if successor else ""),
            consumer_site=Location(mod["path"], line, col=col + 1, symbol=key),
            target_evidence=target_evidence,
            baseline_evidence=(Location(path, bline, symbol=f"{owner}.{key}"),),
            predicted_failure=None,
            details=details,
            fix=fix,
            symbol=f"{owner}.{key}",
        )
