"""Outputs (issue 28, item 10): `-o` and `--write-baseline` replace the previous file whole, or
leave it as it was. A full disk is made real with RLIMIT_FSIZE in the child process: a write
past the limit fails with EFBIG (Python ignores SIGXFSZ), as one past a full disk does."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys

import pytest

from tests.helpers import FIXTURES, ROOT, audit_process

LOG = FIXTURES / "rules" / "EX001" / "bad_moved_on_without_result.jsonl"

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


def test_an_output_is_never_written_through_a_link_nor_over_what_the_run_reads(tmp_path):
    # issue 37, item 5: a checkout may commit `report.html -> ~/.bashrc`, or bring its own
    # configuration and tools file, which an output must not replace
    shutil.copy(LOG, tmp_path / "run.jsonl")
    (tmp_path / "bashrc").write_text("keep\n")
    (tmp_path / "report.json").symlink_to(tmp_path / "bashrc")
    (tmp_path / "a.json").symlink_to("b.json")  # two outputs reaching one new file
    tools = '[{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]'
    (tmp_path / "tools.json").write_text(tools)
    (tmp_path / ".auditor.toml").write_text('fail-on = "error"\n')
    cases = [
        (["-o", "report.json"], "-o report.json is a symbolic link (to "),
        (["-f", "json:a.json", "-f", "concise:b.json"], "two outputs name the same file b.json"),
        (["-o", ".auditor.toml"], "-o .auditor.toml would overwrite .auditor.toml, which"),
        (["--tools", "tools.json", "-o", "tools.json"], "-o tools.json would overwrite tools"),
        (["-o", "out/report.json"], "-o out/report.json: no directory out"),
    ]
    for args, said in cases:
        proc = audit_process("run.jsonl", *args, cwd=tmp_path)
        assert proc.returncode == 2, args
        assert said in proc.stderr.decode(), (args, proc.stderr.decode())
    assert (tmp_path / "bashrc").read_text() == "keep\n"
    assert (tmp_path / ".auditor.toml").read_text() == 'fail-on = "error"\n'
    assert (tmp_path / "tools.json").read_text() == tools
    assert not (tmp_path / "b.json").exists()
    # a device is still written in place
    proc = audit_process("run.jsonl", "-q", "-o", "/dev/stdout", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout.count(b'"code":"EX001"') == 2


@pytest.mark.parametrize(
    "args",
    [
        ["-o", "out/report.json"],
        ["-f", "json:a.json", "-f", "concise:b.json"],
        ["-f", "json:tools.json"],
    ],
)
def test_outputs_are_refused_before_anything_is_read(tmp_path, args):
    # issue 37, item 5: a missing directory was found after the whole audit; here the input is
    # a pipe that never ends, so only a refusal made before reading can end the run
    (tmp_path / "a.json").symlink_to("b.json")
    tools = '[{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]'
    (tmp_path / "tools.json").write_text(tools)
    (tmp_path / ".auditor.toml").write_text('tools = "tools.json"\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "auditor", "-", *args],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _, stderr = proc.communicate(timeout=60)  # stdin is left open: reading would block
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 2
    [line] = stderr.decode().splitlines()
    assert line.startswith("audit: error: ") and args[-1].split(":")[-1] in line
