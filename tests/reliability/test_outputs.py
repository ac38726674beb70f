"""Outputs (issue 28, item 10): `-o` and `--write-baseline` replace the previous file whole, or
leave it as it was. A full disk is made real with RLIMIT_FSIZE in the child process: a write
past the limit fails with EFBIG (Python ignores SIGXFSZ), as one past a full disk does."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from tests.helpers import FIXTURES, ROOT

DEMO = FIXTURES / "demo"


def audit_limited(limit: int | None, *args) -> subprocess.CompletedProcess:
    def cap() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "auditor", DEMO, "--no-progress", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        preexec_fn=cap,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ("-o", "cannot write {path}: File too large"),
        ("--write-baseline", "cannot write baseline {path}: file too large"),
    ],
)
def test_a_write_that_fails_leaves_the_previous_file_whole(tmp_path, option, said):
    path = tmp_path / "out.json"
    first = audit_limited(None, "-f", "json", option, path)
    assert first.returncode in (0, 1), first.stderr.decode()
    previous = path.read_bytes()
    assert len(previous) > 8192
    os.chmod(path, 0o640)
    failed = audit_limited(4096, "-f", "json", option, path)
    assert failed.returncode == 2
    assert failed.stderr.decode().splitlines()[-1] == f"audit: error: {said.format(path=path)}"
    assert path.read_bytes() == previous  # not truncated to 4 KB
    assert sorted(os.listdir(tmp_path)) == ["out.json"]  # no temporary file left behind
    again = audit_limited(None, "-f", "json", option, path)
    assert again.returncode in (0, 1)
    assert path.read_bytes() == previous
    assert os.stat(path).st_mode & 0o777 == 0o640  # the file's permissions are kept
