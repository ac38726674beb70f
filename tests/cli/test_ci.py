"""CI gating through the real command: configuration, selection, baselines, statistics, outputs.

Every test runs the command's entry point with the arguments, working directory, files and
streams of a CI step (`audit_main`, held to a child process by tests/cli/test_cli.py), and
checks the exit status.
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.helpers import FIXTURES, audit_main

LOST = FIXTURES / "rules" / "EX001" / "bad_moved_on_without_result.jsonl"
ORPHAN = FIXTURES / "rules" / "EX002" / "bad_unknown_call_id.jsonl"


def conversation(tag: str, *, own_id: bool = True, answered: bool = False) -> str:
    """One OpenAI-style conversation whose `lookup` call is answered or not (EX001)."""
    messages = [
        {"role": "user", "content": f"Look up {tag}"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{tag}",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": json.dumps({"key": tag})},
                }
            ],
        },
    ]
    if answered:
        messages.append({"role": "tool", "tool_call_id": f"call_{tag}", "content": "found"})
    messages.append({"role": "assistant", "content": f"Here is {tag}."})
    record = {"messages": messages}
    if own_id:
        record = {"id": f"run-{tag}", **record}
    return json.dumps(record) + "\n"


def jsonl(proc) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


def brief(proc) -> list[tuple]:
    return [(f["code"], f["line"], f["conversation"], f["turn"]) for f in jsonl(proc)]


# [tool.auditor] in the nearest pyproject.toml, and --config.


def test_pyproject_ignore_silences_a_rule_when_run_from_that_folder(tmp_path):
    shutil.copy(LOST, tmp_path / "runs.jsonl")
    assert audit_main("runs.jsonl", cwd=tmp_path).returncode == 1
    (tmp_path / "pyproject.toml").write_text('[tool.auditor]\nignore = ["EX001"]\n')
    proc = audit_main("runs.jsonl", "-f", "jsonl", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, b"")
    # No finding, but not a clean bill either: stderr says what could not be examined.
    notes = proc.stderr.decode().splitlines()
    gap = (
        "EX005, EX007 could not examine 2 of 2 conversations: "
        "no tools declared or given with --tools; --tools FILE declares them"
    )
    assert f"audit: coverage: {gap}" in notes
    assert all(note.startswith("audit: coverage: ") for note in notes)
    # From a folder below, the same pyproject.toml is found.
    (tmp_path / "sub").mkdir()
    assert audit_main("../runs.jsonl", cwd=tmp_path / "sub").returncode == 0
    # The command line wins: --select starts over.
    proc = audit_main("runs.jsonl", "--select", "EX001", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 1
    assert brief(proc) == [("EX001", 1, "moved-on", 1), ("EX001", 2, "parallel-one-lost", 1)]


def test_pyproject_fail_on_and_severity(tmp_path):
    shutil.copy(ORPHAN, tmp_path / "runs.jsonl")  # EX002: a warning
    (tmp_path / "pyproject.toml").write_text('[tool.auditor]\nfail-on = "error"\n')
    assert audit_main("runs.jsonl", cwd=tmp_path).returncode == 0
    assert audit_main("runs.jsonl", "--fail-on", "warning", cwd=tmp_path).returncode == 1
    (tmp_path / "pyproject.toml").write_text(
        '[tool.auditor]\nfail-on = "error"\nseverity = { EX002 = "error" }\n'
    )
    proc = audit_main("runs.jsonl", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 1
    assert {f["severity"] for f in jsonl(proc)} == {"error"}


def test_family_options_from_the_pyproject_change_what_fires(tmp_path):
    shutil.copy(FIXTURES / "rules" / "LP001" / "bad_five_repeats.jsonl", tmp_path / "runs.jsonl")
    args = ("runs.jsonl", "--select", "LP001", "-f", "jsonl")
    proc = audit_main(*args, cwd=tmp_path)
    assert proc.returncode == 1
    assert [f["message"].split(" called ")[1][:7] for f in jsonl(proc)] == ["5 times"]
    (tmp_path / "pyproject.toml").write_text("[tool.auditor.loops]\nmin-repeats = 6\n")
    proc = audit_main(*args, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, b"")
    (tmp_path / "pyproject.toml").write_text("[tool.auditor.loops]\nexempt-tools = ['get_*']\n")
    assert audit_main(*args, cwd=tmp_path).returncode == 0


def test_config_option_reads_a_standalone_file(tmp_path):
    (tmp_path / "audit.toml").write_text('select = ["EX002"]\n')
    proc = audit_main(LOST, ORPHAN, "--config", tmp_path / "audit.toml", "-f", "jsonl")
    assert proc.returncode == 1
    assert brief(proc) == [("EX002", 1, "unknown-id", 1)]
    proc = audit_main(LOST, "--config", tmp_path / "audit.toml")
    assert proc.returncode == 0


def test_bad_config_is_exit_2_with_one_line(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.auditor]\nfail-on = "sometimes"\n')
    shutil.copy(LOST, tmp_path / "runs.jsonl")
    proc = audit_main("runs.jsonl", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        "audit: error: invalid config in pyproject.toml: [tool.auditor] fail-on must be one of "
        'error, warning, note, never, got "sometimes"\n'
    )
    proc = audit_main(LOST, "--config", tmp_path / "missing.toml")
    assert proc.returncode == 2
    assert proc.stderr.decode() == (
        f"audit: error: cannot read config {tmp_path / 'missing.toml'}: no such file or directory\n"
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "[tool.auditor]\nselect = " + "[" * 3000 + "]" * 3000 + "\n",
            "not valid TOML: arrays or tables nested too deeply",
        ),
        ('[tool.auditor]\nselect = [""]\n', 'select: blank rule selector ""'),
    ],
)
def test_config_that_breaks_the_parser_or_selects_nothing_is_invalid_config(
    tmp_path, body, message
):
    (tmp_path / "pyproject.toml").write_text(body)
    shutil.copy(LOST, tmp_path / "runs.jsonl")
    proc = audit_main("runs.jsonl", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == b""
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith("audit: error: invalid config in pyproject.toml: ")
    assert message in line


def test_exclude_in_the_config_leaves_paths_unread(tmp_path):
    (tmp_path / "logs" / "archive").mkdir(parents=True)
    shutil.copy(LOST, tmp_path / "logs" / "archive" / "old.jsonl")
    shutil.copy(ORPHAN, tmp_path / "logs" / "new.jsonl")
    (tmp_path / "pyproject.toml").write_text('[tool.auditor]\nexclude = ["logs/archive/**"]\n')
    proc = audit_main("logs", "-f", "json", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert [f["path"] for f in doc["findings"]] == ["logs/new.jsonl"]
    assert (doc["summary"]["files"], doc["summary"]["excluded"]) == (1, 1)


# --select, --ignore, -f github, -f sarif: exit statuses.


@pytest.mark.parametrize(
    ("args", "status", "codes"),
    [
        (("--select", "EX002"), 1, ["EX002"]),
        (("--select", "IN"), 0, []),
        (("--select", "orphan-tool-result,EX001"), 1, ["EX001", "EX001", "EX002"]),
        (("--ignore", "EX"), 0, []),
        (("--ignore", "EX00"), 0, []),
        (("--ignore", "EX001", "--fail-on", "error"), 0, ["EX002"]),
        (("--select", "EX", "--ignore", "unanswered-tool-call"), 1, ["EX002"]),
    ],
)
def test_select_and_ignore_set_the_exit_status(args, status, codes):
    proc = audit_main(LOST, ORPHAN, "-f", "jsonl", *args)
    assert proc.returncode == status, proc.stderr
    assert [f["code"] for f in jsonl(proc)] == codes


def test_unknown_selector_is_exit_2():
    proc = audit_main(LOST, "--ignore", "EX9")
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("audit: error: unknown rule selector `EX9`")


def test_github_annotations_and_exit_status():
    proc = audit_main("fixtures/rules/EX002/bad_unknown_call_id.jsonl", "-f", "github")
    assert proc.returncode == 1
    annotation, *notices = proc.stdout.decode().splitlines()
    assert annotation == (
        "::warning file=fixtures/rules/EX002/bad_unknown_call_id.jsonl,line=1,"
        "title=EX002 orphan-tool-result::tool result for call `call_9` answers no earlier call "
        "(conversation unknown-id, turn 1)"
    )
    # The log declares no tools: the rules that need them say so, on the run's summary page.
    gap = (
        "EX005, EX007 could not examine 1 of 1 conversations: "
        "no tools declared or given with --tools; --tools FILE declares them"
    )
    assert f"::notice title=auditor::coverage: {gap}" in notices
    assert all(n.startswith("::notice title=auditor::coverage: ") for n in notices)
    assert audit_main(ORPHAN, "-f", "github", "--fail-on", "error").returncode == 0
    proc = audit_main(ORPHAN, "-f", "github", "--select", "EX002")  # no gap: no notice
    assert (proc.returncode, len(proc.stdout.splitlines())) == (1, 1)


def test_sarif_exit_status_follows_findings(tmp_path):
    assert audit_main(LOST, "-f", "sarif", "-o", tmp_path / "a.sarif").returncode == 1
    clean = FIXTURES / "rules" / "EX001" / "good_answered.jsonl"
    assert audit_main(clean, "-f", "sarif", "-o", tmp_path / "b.sarif").returncode == 0
    doc = json.loads((tmp_path / "b.sarif").read_text())
    assert doc["runs"][0]["results"] == []
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is True


# --statistics.


def test_statistics_table():
    proc = audit_main(LOST, ORPHAN, "--statistics", "--select", "EX001,EX002")
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines() == [
        "count  code   name                  severity  per 100 conversations",
        "    2  EX001  unanswered-tool-call  error                      66.7",
        "    1  EX002  orphan-tool-result    warning                    33.3",
        "3 findings in 3 conversations",
        # the orphan result's conversation makes no call: EX001 had nothing to examine there
        "Coverage: EX001 could not examine 1 of 3 conversations: no tool calls",
    ]
    # With every rule, coverage follows: these logs declare no tools.
    lines = audit_main(LOST, ORPHAN, "--statistics").stdout.decode().splitlines()
    gap = (
        "EX005, EX007 could not examine 3 of 3 conversations: "
        "no tools declared or given with --tools; --tools FILE declares them"
    )
    assert f"Coverage: {gap}" in lines


def test_statistics_json_and_jsonl():
    proc = audit_main(LOST, ORPHAN, "--statistics", "-f", "json", "--fail-on", "error")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert list(doc) == [
        "version",
        "tool",
        "summary",
        "coverage",
        "statistics",
        "suppressions",
        "errors",
    ]
    assert doc["statistics"] == [
        {
            "code": "EX001",
            "name": "unanswered-tool-call",
            "severity": "error",
            "count": 2,
            "per_100_conversations": 66.7,
        },
        {
            "code": "EX002",
            "name": "orphan-tool-result",
            "severity": "warning",
            "count": 1,
            "per_100_conversations": 33.3,
        },
    ]
    proc = audit_main(ORPHAN, "--statistics", "-f", "jsonl", "--exit-zero")
    assert proc.returncode == 0
    assert jsonl(proc) == [
        {
            "code": "EX002",
            "name": "orphan-tool-result",
            "severity": "warning",
            "count": 1,
            "per_100_conversations": 100.0,
        }
    ]


def test_statistics_cannot_be_sarif():
    proc = audit_main(LOST, "--statistics", "-f", "sarif")
    assert proc.returncode == 2
    assert proc.stderr == b"audit: error: --statistics prints as table, json, jsonl, not as sarif\n"


# Baselines: the "done when" of the issue, literally.


def test_baseline_written_today_silences_todays_findings_tomorrow(tmp_path):
    today = tmp_path / "today"
    today.mkdir()
    (today / "runs.jsonl").write_text(
        conversation("alpha")
        + conversation("nameless", own_id=False)
        + conversation("ok", answered=True)
    )
    proc = audit_main("today/runs.jsonl", "--write-baseline", "baseline.json", cwd=tmp_path)
    assert proc.returncode == 0  # the findings are accepted
    assert proc.stderr.splitlines()[0] == b"audit: wrote 2 findings to baseline.json"
    written = json.loads((tmp_path / "baseline.json").read_text())
    assert written["version"] == 2
    assert [(e["code"], e["path"], e["conversation"], e["turn"]) for e in written["findings"]] == [
        ("EX001", "today/runs.jsonl", "run-alpha", 1),
        ("EX001", "today/runs.jsonl", "today/runs.jsonl:2", 1),
    ]

    # Tomorrow: new conversations inserted above the old ones (every old line shifts by 3),
    # and the log moved to another folder under another name.
    tomorrow = tmp_path / "archive" / "2025"
    tomorrow.mkdir(parents=True)
    (tomorrow / "renamed.jsonl").write_text(
        conversation("beta")
        + conversation("nameless-too", own_id=False)
        + "\n"
        + (today / "runs.jsonl").read_text()
    )
    shutil.rmtree(today)
    args = ("archive/2025/renamed.jsonl", "--baseline", "baseline.json")
    proc = audit_main(*args, "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 1  # the new findings fail the run
    assert brief(proc) == [
        ("EX001", 1, "run-beta", 1),
        ("EX001", 2, "archive/2025/renamed.jsonl:2", 1),
    ]
    assert proc.stderr.decode().splitlines()[0] == "audit: 2 findings in the baseline not shown"
    doc = json.loads(audit_main(*args, "-f", "json", cwd=tmp_path).stdout)
    assert (doc["summary"]["findings"], doc["summary"]["baselined"]) == (2, 2)

    # Only the old findings: the run passes, and says why nothing is shown.
    (tomorrow / "renamed.jsonl").write_text(
        "\n\n" + conversation("nameless", own_id=False) + conversation("alpha")
    )
    proc = audit_main(*args, "-f", "table", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert b"No new findings." in proc.stdout
    assert b"2 findings in the baseline not shown" in proc.stdout


def test_baseline_counts_duplicates_instead_of_collapsing_them(tmp_path):
    same = conversation("copy", own_id=False)
    (tmp_path / "runs.jsonl").write_text(same * 2)
    proc = audit_main("runs.jsonl", "--write-baseline", "b.json", cwd=tmp_path)
    assert proc.returncode == 0
    first, second = json.loads((tmp_path / "b.json").read_text())["findings"]
    assert first["identity"] == second["identity"]  # alike, but each its own fingerprint
    assert first["fingerprint"] != second["fingerprint"]
    (tmp_path / "runs.jsonl").write_text(same * 3)
    proc = audit_main("runs.jsonl", "--baseline", "b.json", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 1
    assert brief(proc) == [("EX001", 3, "runs.jsonl:3", 1)]  # the third copy is new
    (tmp_path / "runs.jsonl").write_text(same)
    assert audit_main("runs.jsonl", "--baseline", "b.json", cwd=tmp_path).returncode == 0


def test_baseline_entry_of_one_log_never_hides_the_same_finding_in_another(tmp_path):
    """Two logs whose conversations share an id: their findings read the same, yet are two."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_text(conversation("alpha"))
    proc = audit_main("logs", "--write-baseline", "b.json", cwd=tmp_path)
    assert proc.returncode == 0
    # a.jsonl is fixed; b.jsonl gets the finding a.jsonl had, word for word.
    (logs / "a.jsonl").write_text(conversation("alpha", answered=True))
    (logs / "b.jsonl").write_text(conversation("alpha"))
    proc = audit_main("logs", "--baseline", "b.json", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 1
    (new,) = jsonl(proc)
    assert (new["code"], new["path"], new["conversation"], new["turn"]) == (
        "EX001",
        "logs/b.jsonl",
        "run-alpha",
        1,
    )
    assert "1 baseline entry matched no finding" in proc.stderr.decode()
    # Both logs with the finding: one entry accepts a.jsonl's, b.jsonl's is new.
    (logs / "a.jsonl").write_text(conversation("alpha"))
    proc = audit_main("logs", "--baseline", "b.json", "-f", "jsonl", cwd=tmp_path)
    assert [(f["path"], f["conversation"]) for f in jsonl(proc)] == [("logs/b.jsonl", "run-alpha")]


def test_version_1_baseline_is_still_read_and_matched_as_it_was_written(tmp_path):
    (tmp_path / "runs.jsonl").write_text(conversation("alpha") + conversation("beta"))
    assert audit_main("runs.jsonl", "--write-baseline", "b.json", cwd=tmp_path).returncode == 0
    # What auditor 0.1 wrote: the identity as `fingerprint`, a count, no identity field.
    old = [
        {"fingerprint": e["identity"], "count": 1, "code": e["code"], "path": e["path"]}
        for e in json.loads((tmp_path / "b.json").read_text())["findings"]
    ]
    (tmp_path / "v1.json").write_text(json.dumps({"version": 1, "findings": old}))
    (tmp_path / "moved.jsonl").write_text(
        conversation("gamma") + (tmp_path / "runs.jsonl").read_text()
    )
    proc = audit_main("moved.jsonl", "--baseline", "v1.json", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 1
    assert brief(proc) == [("EX001", 1, "run-gamma", 1)]
    assert proc.stderr.decode().splitlines()[0] == "audit: 2 findings in the baseline not shown"


def test_write_baseline_still_exits_2_when_a_path_is_missing(tmp_path):
    proc = audit_main(LOST, "nope.jsonl", "--write-baseline", tmp_path / "b.json")
    assert proc.returncode == 2
    assert len(json.loads((tmp_path / "b.json").read_text())["findings"]) == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "audit: error: cannot read baseline {path}: no such file or directory\n"),
        ("{", "audit: error: invalid baseline {path}: not valid JSON: "),
        ('{"version": 9, "findings": []}', "expected a version 2 baseline"),
        ('{"version": 1, "findings": [{"count": 2}]}', "findings[0] needs a string `fingerprint`"),
        (
            '{"version": 2, "findings": [{"fingerprint": "f"}]}',
            "findings[0] needs a string `fingerprint` and a string `identity`",
        ),
    ],
)
def test_bad_baseline_is_exit_2(tmp_path, content, message):
    path = tmp_path / "b.json"
    if content is not None:
        path.write_text(content)
    proc = audit_main(LOST, "--baseline", path)
    assert proc.returncode == 2
    assert proc.stdout == b""  # nothing was audited
    assert message.format(path=path) in proc.stderr.decode()


def test_write_baseline_to_an_unwritable_place_is_exit_2(tmp_path):
    proc = audit_main(LOST, "--write-baseline", tmp_path / "no" / "b.json")
    assert proc.returncode == 2
    # said before the audit, not after it (issue 37, item 5)
    assert f"--write-baseline {tmp_path / 'no' / 'b.json'}: no directory".encode() in proc.stderr


def test_baseline_survives_items_inserted_above_in_a_json_document(tmp_path):
    """Records of no known shape have no id: their index in the document must not matter."""
    unknown = {"event": "heartbeat", "ts": 1}
    lost = json.loads(conversation("doc"))
    (tmp_path / "runs.json").write_text(json.dumps([lost, unknown], indent=2))
    proc = audit_main("runs.json", "--write-baseline", "b.json", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 0
    assert [(f["code"], f["pointer"]) for f in jsonl(proc)] == [
        ("EX001", "/0/messages/1/tool_calls/0"),
        ("IN002", "/1"),
    ]
    # A new conversation and a new unknown item above the old ones: every index shifts by 2.
    newcomer = {"metric": "latency"}
    items = [json.loads(conversation("new")), newcomer, lost, unknown]
    (tmp_path / "runs.json").write_text(json.dumps(items, indent=2))
    proc = audit_main("runs.json", "--baseline", "b.json", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 1
    assert [(f["code"], f["pointer"], f["conversation"], f["evidence"]) for f in jsonl(proc)] == [
        ("EX001", "/0/messages/1/tool_calls/0", "run-new", 'lookup({"key": "new"})'),
        ("IN002", "/1", None, '{"metric":"latency"}'),
    ]
    assert proc.stderr.decode().splitlines()[0] == "audit: 2 findings in the baseline not shown"


# -o and --write-baseline never destroy what the run reads.


@pytest.mark.parametrize("option", ["-o", "--write-baseline"])
@pytest.mark.parametrize("target", ["logs/runs.jsonl", "./logs/../logs/runs.jsonl", "link.jsonl"])
def test_an_output_naming_an_input_log_is_refused_before_anything_is_written(
    tmp_path, option, target
):
    (tmp_path / "logs").mkdir()
    log = tmp_path / "logs" / "runs.jsonl"
    shutil.copy(LOST, log)
    (tmp_path / "link.jsonl").symlink_to(log)
    before = log.read_bytes()
    for named in ("logs", "logs/runs.jsonl"):  # found by the walk, or named
        proc = audit_main(named, option, target, "-f", "json", cwd=tmp_path)
        assert proc.returncode == 2
        assert proc.stdout == b""
        assert proc.stderr.decode() == (
            f"audit: error: {option} {target} would overwrite logs/runs.jsonl, which this run "
            "reads: write it somewhere else\n"
        )
        assert log.read_bytes() == before


def test_o_naming_the_baseline_or_the_written_baseline_is_refused(tmp_path):
    shutil.copy(LOST, tmp_path / "runs.jsonl")
    assert audit_main("runs.jsonl", "--write-baseline", "b.json", cwd=tmp_path).returncode == 0
    before = (tmp_path / "b.json").read_bytes()
    proc = audit_main("runs.jsonl", "--baseline", "b.json", "-o", "b.json", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (
        2,
        b"audit: error: -o b.json would overwrite the baseline this run reads\n",
    )
    proc = audit_main("runs.jsonl", "--write-baseline", "c.json", "-o", "c.json", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (
        2,
        b"audit: error: -o and --write-baseline name the same file c.json\n",
    )
    assert (tmp_path / "b.json").read_bytes() == before
    # Rewriting the baseline that is read is how a baseline is refreshed: allowed.
    proc = audit_main(
        "runs.jsonl", "--baseline", "b.json", "--write-baseline", "b.json", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
