"""Configuration and declared formats a checkout brings (issue 37, items 2 and 3): a
configuration found beside the logs is named (stderr, the JSON and SARIF reports) or not read
(`--isolated`), and names no file outside its tree; a declared format's expressions are
bounded in depth and in what they may build before any record is read, and one that fails on a
record costs that record (IN002 naming the format and the key)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.config.test_config import LOST, pyproject
from tests.helpers import audit_process


def test_a_configuration_beside_the_logs_is_named_and_isolated_reads_none(tmp_path):
    # issue 37, item 2: a pull request adds logs/.auditor.toml with fail-on = "never"
    (tmp_path / "logs").mkdir()
    shutil.copy(LOST, tmp_path / "logs" / "run.jsonl")
    pyproject(tmp_path / "logs", 'fail-on = "never"\n', name=".auditor.toml")
    found = audit_process("logs", "-q", cwd=tmp_path)
    assert found.returncode == 0  # the file's setting holds, but is not silent
    assert found.stderr.decode().splitlines() == [
        "audit: settings from logs/.auditor.toml, found beside the logs (--isolated reads none)"
    ]
    isolated = audit_process("logs", "-q", "--isolated", cwd=tmp_path)
    assert (isolated.returncode, isolated.stderr.decode()) == (1, "")
    settings = audit_process("logs", "--isolated", "--show-settings", cwd=tmp_path)
    assert "# configuration file: none found" in settings.stdout.decode()
    both = audit_process("logs", "--isolated", "--config", "logs/.auditor.toml", cwd=tmp_path)
    assert both.returncode == 2
    assert "--isolated reads no configuration file" in both.stderr.decode()
    # run from the logs' own directory, the same file is the project's: no line
    here = audit_process(".", "-q", cwd=tmp_path / "logs")
    assert (here.returncode, here.stderr.decode()) == (0, "")


def test_the_reports_name_the_configuration_read(tmp_path):
    (tmp_path / "logs").mkdir()
    shutil.copy(LOST, tmp_path / "logs" / "run.jsonl")
    pyproject(tmp_path, '[tool.auditor]\nfail-on = "error"\n')
    report = json.loads(audit_process("logs", "-f", "json", cwd=tmp_path).stdout)
    assert report["tool"]["configuration"] == "pyproject.toml"
    sarif = json.loads(audit_process("logs", "-f", "sarif", cwd=tmp_path).stdout)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["properties"] == {"configurationFile": "pyproject.toml"}
    isolated = audit_process("logs", "-f", "json", "--isolated", cwd=tmp_path)
    assert json.loads(isolated.stdout)["tool"]["configuration"] is None


def test_a_configuration_found_names_no_file_outside_its_directory(tmp_path):
    # issue 37, item 2: `tools = "../../…"` in a checkout's config put a file outside it in
    # the report
    tools = '[{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]'
    (tmp_path / "outside.json").write_text(tools)
    (tmp_path / "repo" / "logs").mkdir(parents=True)
    shutil.copy(LOST, tmp_path / "repo" / "logs" / "run.jsonl")
    pyproject(tmp_path / "repo", '[tool.auditor]\ntools = "../outside.json"\n')
    found = audit_process("logs", "-q", cwd=tmp_path / "repo")
    assert found.returncode == 2
    assert found.stderr.decode() == (
        'audit: error: invalid config in pyproject.toml: [tool.auditor] tools = "../outside.json" '
        "lies outside ., the directory of the configuration found: name it with --tools, or the "
        "file with --config\n"
    )
    # named on the command line, the same file is the user's own choice
    named = audit_process("logs", "-q", "--config", "pyproject.toml", cwd=tmp_path / "repo")
    assert named.returncode == 1
    # and a tools file inside the tree is read as before
    shutil.copy(tmp_path / "outside.json", tmp_path / "repo" / "tools.json")
    pyproject(tmp_path / "repo", '[tool.auditor]\ntools = "tools.json"\n')
    assert audit_process("logs", "-q", cwd=tmp_path / "repo").returncode == 1


# --- declared formats -----------------------------------------------------------------------

MAPPING = """[tool.auditor.formats.acme]
detect = "{detect}"
messages = "steps"
role = "actor"
text = "say"
"""


def runs(tmp_path: Path, detect: str, records: list[dict]) -> tuple[int, dict, str]:
    """Audit `records` (JSON Lines) with the `acme` format's `detect` given."""
    pyproject(tmp_path, MAPPING.format(detect=detect.replace('"', '\\"')))
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    proc = audit_process("runs.jsonl", "-f", "json", "--no-progress", cwd=tmp_path)
    stderr = proc.stderr.decode()
    assert "Traceback" not in stderr, stderr
    return proc.returncode, json.loads(proc.stdout) if proc.stdout else {}, stderr


def run_of(schema: object, n: int) -> dict:
    steps = [{"actor": "user", "say": f"hi {n}"}, {"actor": "assistant", "say": "hello"}]
    return {"schema": schema, "steps": steps}


def test_an_expression_that_fails_on_a_record_costs_that_record(tmp_path):
    # `length()` of a number in one record of five ended the run
    records = [run_of("acme" if n != 2 else 7, n) for n in range(5)]
    status, report, _ = runs(tmp_path, "length(schema) > `0`", records)
    assert (status, report["summary"]["conversations"]) == (1, 4)
    (unread,) = [f for f in report["findings"] if f["code"] == "IN002"]
    assert unread["line"] == 3
    assert unread["message"].startswith(
        "could not be read: declared format acme: `detect` = `length(schema) > `0`` fails: "
        "In function length(), invalid type for value: 7"
    )


def test_a_join_that_would_repeat_its_separator_without_bound_costs_its_record(tmp_path):
    # the separator, the whole record as text, repeated once per key: gigabytes
    record = run_of("acme", 0) | {f"k{i}": i for i in range(5_000)}
    status, report, _ = runs(tmp_path, "length(join(to_string(@), keys(@))) > `0`", [record])
    assert status == 2 and report["summary"]["conversations"] == 0
    (unread,) = [f["message"] for f in report["findings"] if f["code"] == "IN002"]
    assert "`detect` = `length(join(to_string(@), keys(@))) > `0`` fails: join() would" in unread


def nested(template: str, levels: int) -> str:
    expression = "@"
    for _ in range(levels):
        expression = template.format(expression)
    return expression


LITERAL = "`[" + ",".join("1" * 200) + "]`"


@pytest.mark.parametrize(
    ("detect", "said"),
    [
        # each stage doubles what the one before built: past 16 GB from 200 bytes
        ("[@,@][] | " * 20 + "[0].schema", "could build 24,407,490,803 times the size of"),
        # each stage merges two copies of the one before
        ("merge(@, {a: @}) | " * 12 + "a", "could build 78,293,671 times"),
        # each level escapes the text of the one below
        (f"length({nested('to_string([{}])', 30)}) > `0`", "could build over 1,000,000,000,000"),
        # a literal list of 200 items for each item of a list, twice over
        (f"map(&{LITERAL}, steps)[] | map(&{LITERAL}, @)", "could build 81,405 times"),
        # deep, and short enough to be read: a config error, not a RecursionError
        ("steps" + "[]" * 300, "is nested 601 levels deep: at most 64"),
        ("{a:" * 300 + "schema" + "}" * 300, "is nested 601 levels deep: at most 64"),
        (" | ".join(["@"] * 450), "is nested 450 levels deep: at most 64"),
        # 3,000 deep
        ("(" * 3000 + "schema" + ")" * 3000, "is 6,006 characters long: at most 2,000"),
    ],
)
def test_an_expression_without_bound_is_a_config_error_naming_the_key(tmp_path, detect, said):
    status, _, stderr = runs(tmp_path, detect, [run_of("acme", 0)])
    assert status == 2
    (line,) = stderr.splitlines()
    assert line.startswith(
        "audit: error: invalid config in pyproject.toml: [tool.auditor.formats.acme] `detect` "
    )
    assert said in line, line
