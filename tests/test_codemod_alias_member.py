"""alias_member: a member defined under the name the target now asks for, bound to the member the
class has (class body, type() namespace literal, namespace filled step by step): before/after,
idempotence, the old name kept, comments and layout kept, and what it refuses."""

from __future__ import annotations

from drift.fixes.kinds import run_codemod

ARGS = {"old": "get_input_embeddings", "new": "embed_input_ids"}

CLASS = '''\
class Model(Base):
    """A model."""

    @torch.no_grad()
    def get_input_embeddings(self, ids):  # the old name
        return self.embed(ids)

    def forward(self, x):
        return x
'''


def _twice(src: str, line: int) -> str:
    new, out = run_codemod(src, "alias_member", line=line, args=ARGS)
    assert out.status == "applied", out.reason
    again, out2 = run_codemod(new, "alias_member", line=line, args=ARGS)
    assert again == new and out2.status == "already", out2
    compile(new, "m.py", "exec")
    return new


def test_a_method_gets_an_alias_after_it_in_the_class_body():
    assert _twice(CLASS, 5) == CLASS.replace(
        "        return self.embed(ids)\n",
        "        return self.embed(ids)\n\n    embed_input_ids = get_input_embeddings\n")


def test_a_type_namespace_literal_gets_the_entry_beside_the_old_one():
    src = (
        "Wrapped = type(\n"
        "    \"Wrapped\",\n"
        "    (model,),\n"
        "    {\n"
        "        \"forward\": fwd,\n"
        "        \"get_input_embeddings\": emb,  # keep\n"
        "        \"load_weights\": lambda self, *a: None,\n"
        "    })\n"
    )
    assert _twice(src, 6) == src.replace(
        "        \"get_input_embeddings\": emb,  # keep\n",
        "        \"get_input_embeddings\": emb,  # keep\n        \"embed_input_ids\": emb,\n")


def test_the_last_entry_of_a_one_line_namespace_keeps_its_quotes_and_layout():
    src = "Other = type('O', (), {'forward': f, 'get_input_embeddings': emb})\n"
    assert _twice(src, 1) == "Other = type('O', (), {'forward': f, 'get_input_embeddings': emb, 'embed_input_ids': emb})\n"


def test_the_last_entry_with_a_trailing_comma_stays_last_with_its_comma():
    src = "ns = {\n    \"forward\": f,\n    \"get_input_embeddings\": emb,\n}\n"
    assert _twice(src, 3) == "ns = {\n    \"forward\": f,\n    \"get_input_embeddings\": emb,\n    \"embed_input_ids\": emb,\n}\n"


def test_a_namespace_filled_step_by_step_gets_the_alias_on_the_next_line():
    src = (
        "def make():\n"
        "    ns = {}\n"
        "    ns[\"get_input_embeddings\"] = emb  # old\n"
        "    return type(\"Built\", (object,), ns)\n"
    )
    assert _twice(src, 3) == src.replace(
        "  # old\n", "  # old\n    ns[\"embed_input_ids\"] = ns[\"get_input_embeddings\"]\n")


def test_a_class_that_has_the_new_name_already_is_left_alone():
    src = CLASS.replace("    def forward", "    embed_input_ids = get_input_embeddings\n\n    def forward")
    new, out = run_codemod(src, "alias_member", line=5, args=ARGS)
    assert new == src and out.status == "already"


def test_a_module_function_or_another_line_is_not_a_class_member():
    src = "def get_input_embeddings(ids):\n    return ids\n"
    new, out = run_codemod(src, "alias_member", line=1, args=ARGS)
    assert new == src and out.status == "not_found" and "get_input_embeddings" in out.reason
    new, out = run_codemod(CLASS, "alias_member", line=8, args=ARGS)
    assert new == CLASS and out.status == "not_found"
