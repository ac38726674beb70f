"""JUnit XML, the test report format CI systems ingest (GitLab `artifacts:reports:junit`,
Jenkins, Azure Pipelines, CircleCI).

One `<testsuite>` per file audited, named by its path: a `<testcase>` with a `<failure>` for
each finding (named by code, conversation and turn, with `file` and `line`), or one passing
test case when the file has none, so that a clean log shows as passed rather than absent.
Something that stopped part of the run is an `<error>` in a suite of its own. Log text is made
visible as in the table (`safe`), and characters XML 1.0 cannot hold are escaped as `\\uXXXX`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby
from typing import TextIO

from auditor.common.patterns import lazy
from auditor.common.text import safe
from auditor.findings import Finding
from auditor.report import Context, Report

# Not allowed anywhere in an XML 1.0 document, escaped or not (C0/C1 are made visible by safe).
_NOT_XML = lazy("[\ud800-\udfff\ufffe\uffff]")


def _text(value: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", safe(value))


def _case(suite: ET.Element, f: Finding) -> None:
    name = f.code + (f" {f.conversation}" if f.conversation else "")
    name += f" turn {f.turn}" if f.turn is not None else ""
    case = ET.SubElement(suite, "testcase", name=_text(name), classname=_text(f.path))
    case.set("file", _text(f.path))
    if f.line is not None:
        case.set("line", str(f.line))
    failure = ET.SubElement(
        case, "failure", message=_text(f.message), type=f"{f.code} {f.name} ({f.severity.value})"
    )
    where = f"{f.path}:{f.line}" if f.line is not None else f.path
    body = f"{where}: {f.code} {f.message}"
    if f.evidence:
        body += f"\n{f.evidence}"
    failure.text = _text(body)


def _suite(root: ET.Element, name: str, tests: int, failures: int, errors: int) -> ET.Element:
    return ET.SubElement(
        root,
        "testsuite",
        name=_text(name),
        tests=str(tests),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
    )


def document(report: Report) -> ET.Element:
    root = ET.Element("testsuites", name="auditor")
    by_path = {path: list(group) for path, group in groupby(report.findings, key=lambda f: f.path)}
    paths = [f.path for f in report.files if f.path not in by_path]
    for path in sorted({*by_path, *paths}):
        findings = by_path.get(path, [])
        suite = _suite(root, path, max(len(findings), 1), len(findings), 0)
        for f in findings:
            _case(suite, f)
        if not findings:
            ET.SubElement(suite, "testcase", name="no findings", classname=_text(path))
    if report.errors:
        suite = _suite(root, "auditor", len(report.errors), 0, len(report.errors))
        for error in report.errors:
            case = ET.SubElement(suite, "testcase", name=_text(error.kind), classname="auditor")
            ET.SubElement(case, "error", message=_text(error.message), type=error.kind)
    tests = sum(int(s.get("tests", 0)) for s in root)
    root.set("tests", str(tests))
    root.set("failures", str(len(report.findings)))
    root.set("errors", str(len(report.errors)))
    return root


def write(report: Report, out: TextIO, context: Context) -> None:
    tree = document(report)
    ET.indent(tree)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(tree, encoding="unicode"))
    out.write("\n")
