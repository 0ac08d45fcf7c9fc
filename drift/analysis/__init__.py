"""What changed in the target, and what of it breaks the consumer.

`diff/` (detectors: the changes between two packages' facts, `drift diff`), `rules/` (one
file per rule, generic; `rules/vllm/` is the vLLM pack; `rules/loader.py` adds entry-point and
file packs), `context` (`CheckContext`: the consumer's uses resolved against both indexes),
`paths` and `moves` (how a use reaches a target symbol; where a moved name went), `engine`
(runs the rules), `ruledocs` (each rule's page, from its docstring). Imports: consumer/,
model/ and below.

A new rule: a file in `rules/` (or `rules/vllm/` when only vLLM has the pattern), listed in its
pack's `__init__`, with a test `tests/test_rules_<name>.py` (synthetic before/after packages,
`tests/rule_cases.py`); regenerate the pages with `python -m drift.analysis.ruledocs`.
"""
