"""What a run says besides its report: `--write-baseline`'s one line instead of the findings,
and `-v`'s lines per file, whose findings add up to the summary's."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from dataclasses import replace

from auditor.cli import table
from auditor.commands import run
from tests.cli.test_ci import conversation, jsonl
from tests.helpers import FIXTURES, LOST, REALDATA, audit_main, requires_realdata

# FB003 holds back a claim in this log until the run's tools are known, then drops it: no
# tool of its file does what the claim says. `-v` once counted it all the same.
DROPPED = FIXTURES / "rules" / "FB003" / "good_no_tool_of_the_file_does_it.jsonl"


# --write-baseline: one line, what was written where.


def test_write_baseline_prints_one_line_and_no_finding(tmp_path):
    shutil.copy(LOST, tmp_path / "runs.jsonl")
    proc = audit_main("runs.jsonl", "--write-baseline", "b.json", cwd=tmp_path)
    assert proc.returncode == 0  # today's findings are accepted: docs/ci.md
    assert proc.stdout == b""
    assert proc.stderr == b"audit: wrote 2 findings to b.json\n"
    written = json.loads((tmp_path / "b.json").read_text())["findings"]
    assert [(e["code"], e["conversation"], e["turn"]) for e in written] == [
        ("EX001", "moved-on", 1),
        ("EX001", "parallel-one-lost", 1),
    ]
    quiet = audit_main("runs.jsonl", "--write-baseline", "b.json", "-q", cwd=tmp_path)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")


def test_write_baseline_prints_no_table_on_a_terminal_either():
    """The default output is a table on a terminal, concise lines in a pipe: neither is
    written; a report asked for with `-f` or `-o` is."""
    default = table.invocation({table.PATHS: ["runs.jsonl"], table.WRITE_BASELINE: "b.json"})
    assert run.reports(default) == ()
    asked = (run.Output("table"), run.Output(None, "out.txt"), run.Output("sarif", "a.sarif"))
    assert run.reports(replace(default, outputs=asked)) == asked
    plain = table.invocation({table.PATHS: ["runs.jsonl"]})
    assert run.reports(plain) == (run.Output(),)


def test_write_baseline_still_writes_the_reports_asked_for(tmp_path):
    shutil.copy(LOST, tmp_path / "runs.jsonl")
    args = ("runs.jsonl", "--write-baseline", "b.json", "-q")
    proc = audit_main(*args, "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 0
    assert [(f["code"], f["conversation"]) for f in jsonl(proc)] == [
        ("EX001", "moved-on"),
        ("EX001", "parallel-one-lost"),
    ]
    proc = audit_main(
        "runs.jsonl", "--write-baseline", "b.json", "-f", "sarif:a.sarif", cwd=tmp_path
    )
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert proc.stderr.decode().splitlines() == [
        "audit: wrote 2 findings to b.json",
        "audit: wrote 2 findings to a.sarif (sarif)",
    ]
    (results,) = [r["results"] for r in json.loads((tmp_path / "a.sarif").read_text())["runs"]]
    assert [r["ruleId"] for r in results] == ["EX001", "EX001"]


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
    proc = audit_main(DROPPED, LOST, "-v", "-f", "concise")
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
    assert audit_main("runs.jsonl", "--write-baseline", "b.json", cwd=tmp_path).returncode == 0
    (tmp_path / "runs.jsonl").write_text(
        conversation("alpha") + conversation("beta") + conversation("gamma")
    )
    proc = audit_main("runs.jsonl", "--baseline", "b.json", "-v", "-f", "concise", cwd=tmp_path)
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
    proc = audit_main(REALDATA, "-v", "-f", "json", "--exit-zero")
    doc = json.loads(proc.stdout)
    reported = Counter(f["path"] for f in doc["findings"])
    counted = {
        path: int(re.search(r", (\d+) findings?$", line)[1])  # type: ignore[index]
        for path, line in verbose(proc).items()
    }
    assert sum(counted.values()) == doc["summary"]["findings"] == sum(reported.values()) > 0
    assert {p: n for p, n in counted.items() if n} == dict(reported)
