"""What a run says besides its report: `-v`'s lines per file, whose findings add up to the
summary's."""

from __future__ import annotations

import json
import re
from collections import Counter

from tests.cli.test_ci import conversation
from tests.helpers import FIXTURES, LOST, REALDATA, audit_process, requires_realdata

# FB003 holds back a claim in this log until the run's tools are known, then drops it: no
# tool of its file does what the claim says. `-v` once counted it all the same.
DROPPED = FIXTURES / "rules" / "FB003" / "good_no_tool_of_the_file_does_it.jsonl"


# -v: a file's findings are the report's.


def verbose(proc) -> dict[str, str]:
    """`-v`'s line of each file: path -> what follows its formats."""
    lines = {}
    for line in proc.stderr.decode().splitlines():
        m = re.match(r"audit: (.+?): [^;]+; (\d+ records?, .*)$", line)
        if m:
            lines[m[1]] = m[2]
    return lines


def test_verbose_counts_only_the_findings_the_run_reports():
    proc = audit_process(DROPPED, LOST, "-v", "-f", "concise")
    assert proc.returncode == 1
    assert verbose(proc) == {
        str(DROPPED): "2 records, 2 conversations, 0 findings",
        str(LOST): "2 records, 2 conversations, 2 findings",
    }
    summary = "audit: read 2 files, 4 conversations, 8 assistant turns, 5 tool calls: 2 findings"
    assert f"{summary} (2 errors)" in proc.stderr.decode().splitlines()
    assert [line.split(":")[0] for line in proc.stdout.decode().splitlines()] == [str(LOST)] * 2


def test_verbose_counts_baselined_findings_apart(tmp_path):
    (tmp_path / "runs.jsonl").write_text(conversation("alpha") + conversation("beta"))
    assert audit_process("runs.jsonl", "--write-baseline", "b.json", cwd=tmp_path).returncode == 0
    (tmp_path / "runs.jsonl").write_text(
        conversation("alpha") + conversation("beta") + conversation("gamma")
    )
    proc = audit_process("runs.jsonl", "--baseline", "b.json", "-v", "-f", "concise", cwd=tmp_path)
    assert proc.returncode == 1
    assert verbose(proc) == {
        "runs.jsonl": "3 records, 3 conversations, 1 finding (2 in the baseline not shown)"
    }
    notes = proc.stderr.decode().splitlines()
    assert notes[1].startswith("audit: read 1 file, 3 conversations, ")
    assert notes[1].endswith(": 1 finding (1 error)")
    assert notes[2] == "audit: 2 findings in the baseline not shown"


@requires_realdata
def test_verbose_counts_on_the_real_logs_add_up_to_the_report():
    """tau2 logs where FB003 drops claims once the run's tools are known: -v said 10 findings
    of a file the report gave 2."""
    proc = audit_process(REALDATA, "-v", "-f", "json", "--exit-zero")
    doc = json.loads(proc.stdout)
    reported = Counter(f["path"] for f in doc["findings"])
    counted = {
        path: int(re.search(r", (\d+) findings?$", line)[1])  # type: ignore[index]
        for path, line in verbose(proc).items()
    }
    assert sum(counted.values()) == doc["summary"]["findings"] == sum(reported.values()) > 0
    assert {p: n for p, n in counted.items() if n} == dict(reported)
