"""An import the patch left unused goes; one that was unused before, or that a string spells, stays.

The patch here drops `dtype=torch_dtype(...)` from a call (`drop_keyword`): the file's only use of
`torch_dtype` (imported beside `untouched`: the statement is thinned) and of `json` (a statement
of its own: it goes whole) goes with it.
"""

from __future__ import annotations

from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.fixes.orphaned_imports import drop_orphaned_imports
from drift.fixes.plan import plan

SOURCE = '''import json
import os
from typing import Optional

from helpers import torch_dtype, untouched
from vllm import LLM


def build(path: Optional[str]):
    return LLM(path, dtype=torch_dtype(json.loads("{}")))
'''


def _drop(line: int = 10) -> Finding:
    return Finding(rule_id="DRIFT010", kind=RuleKind.KEYWORD_REMOVED, severity=Severity.BREAKING, title="t",
                   consumer_site=Location("app/main.py", line),
                   fix=Fix("drop dtype=", codemod="drop_keyword", args={"callee": "LLM", "keyword": "dtype"},
                           tier="safe"))


def test_the_patch_removes_the_imports_it_orphaned_and_keeps_the_rest():
    after = plan({"app/main.py": SOURCE.encode()}, [_drop()]).changes[0].after.decode()
    assert "LLM(path)" in after
    # json and torch_dtype lost their only use to the patch; `os` and `untouched` were unused before
    assert "torch_dtype" not in after and "from helpers import untouched\n" in after
    # `import json`, alone in its statement, goes whole
    assert "import json" not in after and after.startswith("import os\n")
    assert "from typing import Optional\n" in after and "from vllm import LLM\n" in after


def test_a_statement_removed_whole_leaves_its_blank_line_and_comment_to_the_next():
    """The statement that opened an isort section goes; the next one opens it, so the sections
    stay apart (ruff I001) and the comment above stays where it was."""
    before = "import os\n\n# third party\nimport numpy as np\nfrom vllm import LLM\n\nLLM(np.zeros(1), os)\n"
    after = before.replace("np.zeros(1), ", "")
    assert drop_orphaned_imports(before, after) == "import os\n\n# third party\nfrom vllm import LLM\n\nLLM(os)\n"


def test_a_second_run_of_the_pass_changes_nothing():
    once = drop_orphaned_imports(SOURCE, SOURCE.replace(", dtype=torch_dtype(json.loads(\"{}\"))", ""))
    assert drop_orphaned_imports(SOURCE, once) == once
    assert drop_orphaned_imports(once, once) == once


def test_a_name_a_string_spells_stays_as_a_re_export():
    before = SOURCE + '\n__all__ = ["torch_dtype"]\n'
    after = before.replace(", dtype=torch_dtype(json.loads(\"{}\"))", "")
    out = drop_orphaned_imports(before, after)
    assert "from helpers import torch_dtype, untouched\n" in out


def test_an_aliased_import_and_a_dotted_import_are_removed_by_their_binding():
    before = "import os.path, sys\nimport numpy as np, math\n\nx = np.zeros(os.path.sep), sys, math\n"
    after = "import os.path, sys\nimport numpy as np, math\n\nx = sys, math\n"
    assert drop_orphaned_imports(before, after) == "import sys\nimport math\n\nx = sys, math\n"


def test_code_that_does_not_parse_is_left_as_it_is():
    assert drop_orphaned_imports("import json\njson.dumps(1)\n", "import json\ndef (\n") == "import json\ndef (\n"


def test_an_import_of_the_consumers_own_package_stays_though_the_patch_orphaned_it():
    """Importing one of its own modules may be what installs the consumer's patches."""
    before = "from app.patches import apply, other\nfrom vllm import LLM\n\nLLM(apply(), other)\n"
    after = "from app.patches import apply, other\nfrom vllm import LLM\n\nLLM(other)\n"
    assert drop_orphaned_imports(before, after, first_party=("app",)) == after
    assert drop_orphaned_imports(before, after) == "from app.patches import other\nfrom vllm import LLM\n\nLLM(other)\n"
