"""Every rule's fixtures, one parametrized test (sqlfluff's yaml cases, ruff's `for_rule`).

`fixtures/rules/<CODE>/bad_*.<ext>` must give exactly the findings listed in the `.expected`
file beside it (one JSON object per line), with only that rule enabled; `good_*` must give
none. `AUDITOR_UPDATE_EXPECTED=1 make test` rewrites the expected files: review the diff.
"""

from __future__ import annotations

import pytest

from tests.helpers import FIXTURES, audit, check_case

RULE_DIR = FIXTURES / "rules"
CASES = sorted(
    p
    for p in RULE_DIR.glob("*/*")
    if p.suffix != ".expected" and p.name.startswith(("bad_", "good_"))
)


def _id(path) -> str:
    return f"{path.parent.name}_{path.stem}"


@pytest.mark.parametrize("case", CASES, ids=[_id(p) for p in CASES])
def test_rule_case(case):
    code = case.parent.name
    check_case(case, audit([case], select=[code]), code)


def test_every_rule_has_fixtures():
    from auditor.rules import RULES

    for rule in RULES:
        folder = RULE_DIR / rule.code
        names = [p.name for p in folder.iterdir()] if folder.is_dir() else []
        assert any(n.startswith("bad_") for n in names), f"{rule.code} has no bad_ fixture"
        assert any(n.startswith("good_") for n in names), f"{rule.code} has no good_ fixture"
