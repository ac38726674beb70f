"""The jq recipes and the configuration example, run as users run them.

Each jq recipe runs through `sh` on a copy of the fixtures under `logs/`, and its output is
compared with the same question asked of `audit logs/ -f json` in Python: a recipe that stops
doing what docs/usage.md says fails here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from auditor import config
from auditor.findings import Severity
from auditor.rules import RULES
from tests.helpers import FIXTURES, ROOT, audit_process

USAGE = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
BLOCK = re.search(
    r"<!-- jq-recipes:begin -->\n```sh\n(.*?)```\n<!-- jq-recipes:end -->", USAGE, re.S
)
RECIPES = BLOCK.group(1).splitlines() if BLOCK else []
BIN = str(Path(sys.executable).parent)  # where `audit` is installed next to this Python

needs_jq = pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    """A folder holding `logs/`: the demo and every bad fixture, so that every rule fires."""
    home = tmp_path_factory.mktemp("recipes")
    (home / "logs").mkdir()
    shutil.copy(FIXTURES / "demo" / "agent-runs.jsonl", home / "logs" / "demo.jsonl")
    for bad in sorted((FIXTURES / "rules").glob("*/bad_*")):
        if bad.suffix != ".expected":
            shutil.copy(bad, home / "logs" / f"{bad.parent.name}-{bad.name}")
    return home


def sh(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PATH": BIN + os.pathsep + os.environ["PATH"], **env}
    return subprocess.run(
        ["sh", "-c", command], cwd=cwd, env=environment, capture_output=True, text=True, timeout=60
    )


def report(logs: Path, *args: str) -> dict:
    return json.loads(audit_process("logs/", "-f", "json", "--exit-zero", *args, cwd=logs).stdout)


def worst_conversations(doc: dict) -> list[str]:
    counts = Counter(f["conversation"] for f in doc["findings"] if f["conversation"])
    groups = sorted(counts.items())  # group_by sorts by the key
    groups.sort(key=lambda item: -item[1])  # stable, as jq's sort_by
    return [f"{n}\t{conversation}" for conversation, n in groups[:5]]


def statistics_rows(out: str, logs: Path) -> bool:
    rows = report(logs, "--statistics")["statistics"]
    got = [line.split("\t") for line in out.splitlines()]
    return bool(rows) and [(int(c), code, float(p)) for c, code, p in got] == [
        (r["count"], r["code"], r["per_100_conversations"]) for r in rows
    ]


def baseline_review(out: str, logs: Path) -> bool:
    entries = json.loads((logs / "baseline.json").read_text())["findings"]
    # jq writes a missing conversation (an unreadable line's finding) as `null`.
    conversation = lambda e: "null" if e["conversation"] is None else e["conversation"]  # noqa: E731
    return bool(entries) and out.splitlines() == [
        f"{e['path']} {e['code']} {conversation(e)}: {e['message']}" for e in entries
    ]


# What each recipe must print, from the JSON report `doc` (True when the output is right).
EXPECTED: dict[str, Callable[[str, dict, Path], bool]] = {
    r"""audit logs/ -f json | jq -r '.findings[] | "\(.path):\(.line) \(.code) \(.message)"'""": (
        lambda out, doc, _: (
            out.splitlines()
            == [f"{f['path']}:{f['line']} {f['code']} {f['message']}" for f in doc["findings"]]
        )
    ),
    "audit logs/ -f json | jq '.summary.by_rule'": (
        lambda out, doc, _: json.loads(out) == doc["summary"]["by_rule"]
    ),
    "audit logs/ -f jsonl | jq -c 'select(.severity == \"error\") | {conversation, turn, code}'": (
        lambda out, doc, _: (
            [json.loads(line) for line in out.splitlines()]
            == [
                {"conversation": f["conversation"], "turn": f["turn"], "code": f["code"]}
                for f in doc["findings"]
                if f["severity"] == "error"
            ]
        )
    ),
    "audit logs/ -f json | jq -r '.findings | map(select(.conversation)) | "
    "group_by(.conversation) | map([length, .[0].conversation]) | sort_by(-.[0]) | .[:5][] "
    "| @tsv'": (lambda out, doc, _: out.splitlines() == worst_conversations(doc)),
    "audit logs/ -f json | jq '[.coverage.families[] | .not_examined[]]'": (
        lambda out, doc, _: (
            json.loads(out)
            == [gap for fam in doc["coverage"]["families"].values() for gap in fam["not_examined"]]
        )
    ),
    "audit logs/ -f json --exit-zero | jq -e '.summary.by_severity.error == 0'": (
        lambda out, doc, _: json.loads(out) is (doc["summary"]["by_severity"]["error"] == 0)
    ),
    "audit logs/ --statistics -f json | jq -r '.statistics[] | "
    r""""\(.count)\t\(.code)\t\(.per_100_conversations)"' """: (
        lambda out, doc, logs: statistics_rows(out, logs)
    ),
    "audit logs/ --write-baseline baseline.json -q; jq -r '.findings[] | "
    r""""\(.path) \(.code) \(.conversation): \(.message)"' baseline.json""": (
        lambda out, doc, logs: baseline_review(out, logs)
    ),
}


def test_every_documented_recipe_is_checked():
    assert RECIPES, "docs/usage.md lost its jq-recipes block"
    assert {r.strip() for r in RECIPES} == {r.strip() for r in EXPECTED}


@needs_jq
@pytest.mark.parametrize("recipe", RECIPES, ids=range(len(RECIPES)))
def test_jq_recipe_prints_what_the_readme_says(recipe, logs):
    doc = report(logs)
    assert doc["summary"]["findings"] > 5, "the recipes need findings to work on"
    proc = sh(recipe, logs)
    # Only the `jq -e` check may fail, and only when there are error-level findings.
    failing = "jq -e" in recipe and doc["summary"]["by_severity"]["error"] > 0
    assert proc.returncode == (1 if failing else 0), proc.stderr
    (check,) = [v for k, v in EXPECTED.items() if k.strip() == recipe.strip()]
    assert proc.stdout.strip(), f"no output from {recipe}"
    assert check(proc.stdout, doc, logs), proc.stdout


def test_documented_configuration_example_is_valid(tmp_path):
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```toml\n(\[tool\.auditor\]\n.*?)```", page, re.S)
    path = tmp_path / "pyproject.toml"
    path.write_text(example)
    read = config.read(path)  # every key is known
    assert set(read.values) == {
        "select",
        "ignore",
        "fail-on",
        "exclude",
        "severity",
        "respect-gitignore",
        "per-file-ignores",
        "max-record-mb",
        "read-timeout",
        "fail-on-increase",
        "loops",
        "approvals",
    }
    assert config.build(file=read).per_file_ignores == (("logs/legacy/**", frozenset({"EX002"})),)
    from auditor import compare

    assert compare.config_limits(read.values, read.error) == {"LP001": 10.0, "EX": 25.0}
    settings = config.build(file=read)
    assert settings.max_record_bytes == 128 * 1024 * 1024
    assert settings.read_timeout == 60.0
    assert settings.exclude == ("logs/archive/**", "*.partial.jsonl")
    assert settings.fail_on is Severity.WARNING
    assert [r.code for r in settings.rules] == [
        r.code for r in RULES if r.code != "EX002" and not r.preview
    ]
    assert settings.severity["LP001"] is Severity.ERROR
    assert {settings.severity[r.code] for r in RULES if r.family == "CF"} == {Severity.NOTE}
    # The family tables reach the rules' own options.
    loops = [r for r in RULES if r.family == "LP" and r.options is not None]
    approvals = [r for r in RULES if r.family == "CF" and r.options is not None]
    assert loops and approvals
    for rule in loops:
        options = settings.options_of(rule)
        assert (options.min_repeats, options.exempt_tools) == (3, ("wait_for_*", "poll_*"))
    for rule in approvals:
        options = settings.options_of(rule)
        assert options.require_approval == ("book_*", "cancel_*", "update_*")
        assert options.pending_patterns == ("confirmation_required", "awaiting (user )?approval")
