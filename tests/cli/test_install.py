"""Installing it: the wheel from a clean clone (what pipx, uv and pre-commit build)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from importlib.util import find_spec

import pytest

from tests.helpers import FIXTURES, ROOT, audit_process


@pytest.mark.skipif(
    find_spec("hatchling") is None or shutil.which("git") is None or not (ROOT / ".git").exists(),
    reason="needs git, a git checkout and hatchling (a dev extra) to build offline",
)
def test_a_wheel_built_from_a_clean_clone_installs_and_audits(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", ROOT.as_uri(), str(clone)], check=True)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [
            *pip,
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(clone),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = (tmp_path / "dist").glob("transcript_auditor-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )
    audit = venv / "bin" / "audit"
    version = subprocess.run([str(audit), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("audit (transcript-auditor) ")
    # Its dependencies from this test environment (no network here), the package from the wheel.
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    where = subprocess.run(
        [str(python), "-c", "import auditor; print(auditor.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tmp_path,  # not the checkout, which `python -c` would put first on sys.path
    )
    assert where.stdout.startswith(str(venv))
    proc = subprocess.run(
        [str(audit), str(FIXTURES / "demo"), "-f", "concise", "--exit-zero"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    # The same findings as this checkout's own `audit` (a count would go stale with the demo).
    here = audit_process(FIXTURES / "demo", "-f", "concise", "--exit-zero", cwd=tmp_path)
    assert proc.stdout.splitlines() and proc.stdout == here.stdout.decode()
