"""One finding per line, each a JSON object with the same fields as in `-f json`."""

from __future__ import annotations

from typing import TextIO

import jsonlines
import orjson

from auditor.report import Context, Report


def write(report: Report, out: TextIO, context: Context) -> None:
    with jsonlines.Writer(out, dumps=lambda v: orjson.dumps(v).decode(), flush=False) as writer:
        writer.write_all(f.to_dict() for f in report.findings)
