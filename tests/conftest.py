"""Shared helpers: paths to fixtures and the real data, and a one-call audit."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pytest

from auditor import config, engine
from auditor.findings import Finding
from auditor.report import Report

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
# The shared real logs live beside the checkout on our machines only; tests that need them skip.
REALDATA = ROOT.parent / "shared" / "realdata"
UPDATE = "AUDITOR_UPDATE_EXPECTED"
FUZZ = int(os.environ.get("AUDITOR_FUZZ", "1"))
"""Multiplies the examples of the property-based tests: `make fuzz` sets it to run for minutes."""

requires_realdata = pytest.mark.skipif(
    not REALDATA.is_dir(),
    reason="../shared/realdata is not present (it exists on dev machines only)",
)
requires_corpora = pytest.mark.skipif(
    not any(REALDATA.parent.glob("realdata*")),
    reason="../shared/realdata* is not present (it exists on dev machines only)",
)


def audit(
    paths: Iterable[str | Path],
    select: Iterable[str] | None = None,
    input_format: str | None = None,
) -> Report:
    """Audit paths in-process with the given rules enabled."""
    settings = config.build(select=list(select) if select else None, input_format=input_format)
    return engine.audit([str(p) for p in paths], settings)


def brief(f: Finding) -> dict:
    """A finding without its path and fingerprint (which depend on where the checkout is),
    with its identity (which does not) in the fingerprint's place."""
    d = f.to_dict()
    del d["path"], d["fingerprint"]
    d["identity"] = f.identity
    return d
