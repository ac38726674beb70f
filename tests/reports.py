"""What the reporters' tests share: one set of findings every reporter renders (with hostile
text in them), an HTML reader for the report's structure, and GitHub code scanning's limits on
an uploaded SARIF file."""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser

from auditor import config, engine
from auditor.findings import Finding, fingerprint, identity
from auditor.report import Counts, Gap, Report, RunError, Suppressed, Tally
from auditor.rules import BY_CODE, RULES
from tests.helpers import FIXTURES, render

# One shared set of findings every reporter renders

HOSTILE = (
    "\x1b[31mred\x1b[0m [bold]markup[/bold] [link=http://x]y[/link] "
    "\u202eevil\u202c\n::error::owned"
)


def _finding(
    code, path, line, pointer, conversation, turn, message, evidence="", tool=None, call_id=None
):
    rule = BY_CODE[code]
    same = identity(code, conversation or "", turn, evidence or message)
    return Finding(
        code=code,
        name=rule.name,
        severity=rule.severity,
        message=message,
        path=path,
        line=line,
        pointer=pointer,
        conversation=conversation,
        turn=turn,
        tool=tool,
        call_id=call_id,
        evidence=evidence,
        fingerprint=fingerprint(same, path),
        identity=same,
    )


FINDINGS = (
    _finding(
        "IN001",
        "logs/a run.jsonl",
        2,
        "",
        None,
        None,
        "not valid JSON: unexpected text where a JSON value should start at column 1",
        evidence="this is not json",
    ),
    _finding(
        "EX001",
        "logs/a run.jsonl",
        7,
        "/messages/3/tool_calls/0",
        "refund-17",
        3,
        "`issue_refund` call `call_7` got no result before the assistant spoke again at turn 4; "
        "it went on without the tool's output",
        evidence='issue_refund({"order": "A-1041"})',
        tool="issue_refund",
        call_id="call_7",
    ),
    _finding(
        "EX002",
        "logs/a run.jsonl",
        7,
        "/messages/9",
        "refund-17",
        9,
        "tool result for call `call_x` answers no earlier call",
        evidence=HOSTILE,
        call_id="call_x",
    ),
    _finding(
        "IN002",
        "logs/tau:2025-10-13T11:43.json",
        15,
        "/3",
        None,
        None,
        "JSON object of no known log format (keys: event, ts)",
    ),
    _finding(
        "EX002",
        "logs/tau:2025-10-13T11:43.json",
        420,
        "/simulations/0/messages/5",
        "sim-1",
        5,
        "tool result for call `" + HOSTILE + "` answers no earlier call",
    ),
)

SUPPRESSED = _finding(
    "EX001",
    "logs/a run.jsonl",
    12,
    "/messages/2/tool_calls/0",
    "refund-18",
    2,
    "`lookup` call `call_9` got no result before the assistant spoke again at turn 3; "
    "it went on without the tool's output",
    evidence='lookup({"order": "A-1042"})',
    tool="lookup",
    call_id="call_9",
)

USED = Tally(
    1,
    "the lookup service was down",
    {"path": "logs/*.jsonl", "code": "EX001"},
    'entry 1 (path "logs/*.jsonl", code "EX001")',
    1,
)
STALE = Tally(
    2,
    "an old harness",
    {"fingerprint": "0123456789abcdef0123"},
    'entry 2 (fingerprint "0123456789abcdef0123")',
    0,
)

REPORT = Report(
    findings=FINDINGS,
    counts=Counts(
        files=2, records=9, conversations=7, assistant_turns=31, tool_calls=24, tool_results=23
    ),
    rules=RULES,
    gaps=(Gap("EX", "no tools declared", ("EX005", "EX007"), 6),),
    errors=(
        RunError(
            "rule",
            "EX001 (unanswered-tool-call) crashed on conversation c9: KeyError: 'x'",
            "logs/a run.jsonl",
            "EX001",
        ),
    ),
    accepted=FINDINGS[1:2] * 2,  # two findings the baseline hid
    config_file="pyproject.toml",
    suppressed=(Suppressed(SUPPRESSED, 1, "the lookup service was down on " + HOSTILE),),
    suppressions=(USED, STALE),
)


# The HTML report

CANARY = FIXTURES / "html" / "xss-canary.jsonl"


class Page(HTMLParser):
    """Everything a structural check needs: elements with attributes, text, script and style."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._raw: str | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._raw = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == self._raw:
            self._raw = None

    def handle_data(self, data):
        if self._raw == "script":
            self.scripts[-1] += data
        elif self._raw == "style":
            self.styles[-1] += data
        else:
            self.text.append(data)

    def ids(self) -> list[str]:
        return [a["id"] for _, a in self.elements if a.get("id")]

    def all_text(self) -> str:
        return "".join(self.text)


def html_of(*paths, jobs: int = 1, timelines: bool = True) -> str:
    settings = dataclasses.replace(config.build(), timelines=timelines)
    return render(engine.audit([str(p) for p in paths], settings, jobs=jobs), "html")


# GitHub code scanning's documented limits and required properties of an uploaded SARIF file
# ("SARIF support for code scanning" and "SARIF results exceed limits" in GitHub's docs).

GITHUB_SARIF_LIMITS = {
    "runs": 20,
    "results": 25_000,
    "rules": 25_000,
    "tags": 20,
    "locations": 1_000,
}


def github_sarif_problems(doc: dict) -> list[str]:
    """What GitHub code scanning would reject or mis-file in a SARIF document: past a limit,
    a result without `ruleId`, message, file or `region.startLine`, a description over 1024
    characters, or without `partialFingerprints.primaryLocationLineHash` (what it matches
    alerts on; unique here, as each finding has its own)."""
    problems = []
    if len(doc["runs"]) > GITHUB_SARIF_LIMITS["runs"]:
        problems.append(f"{len(doc['runs'])} runs")
    for run in doc["runs"]:
        rules = run["tool"]["driver"]["rules"]
        if len(rules) > GITHUB_SARIF_LIMITS["rules"]:
            problems.append(f"{len(rules)} rules")
        for rule in rules:
            if len(rule.get("properties", {}).get("tags", [])) > GITHUB_SARIF_LIMITS["tags"]:
                problems.append(f"{rule['id']}: too many tags")
            problems.extend(
                f"{rule['id']}: {key} over 1024 characters"
                for key in ("shortDescription", "fullDescription")
                if len(rule[key]["text"]) > 1024
            )
        results = run["results"]
        if len(results) > GITHUB_SARIF_LIMITS["results"]:
            problems.append(f"{len(results)} results")
        hashes = set()
        for i, result in enumerate(results):
            where = f"result {i}"
            if not result.get("ruleId") or not result.get("message", {}).get("text"):
                problems.append(f"{where}: no ruleId or message")
            locations = result.get("locations") or []
            if not 0 < len(locations) <= GITHUB_SARIF_LIMITS["locations"]:
                problems.append(f"{where}: {len(locations)} locations")
            for location in locations:
                physical = location.get("physicalLocation", {})
                if not physical.get("artifactLocation", {}).get("uri"):
                    problems.append(f"{where}: no artifactLocation.uri")
                if not isinstance(physical.get("region", {}).get("startLine"), int):
                    problems.append(f"{where}: no region.startLine")
            line_hash = result.get("partialFingerprints", {}).get("primaryLocationLineHash")
            if not line_hash or line_hash in hashes:
                problems.append(f"{where}: primaryLocationLineHash missing or repeated")
            hashes.add(line_hash)
    return problems
