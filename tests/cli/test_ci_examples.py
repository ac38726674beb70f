"""The CI examples, run as their consumers run them: the pre-commit hook through a real
`pre-commit run` in a scratch repository, offline. The workflow template's audit is the Action,
run in tests/cli/test_action.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib.util import find_spec
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

from auditor import REPOSITORY
from tests.helpers import FIXTURES, LOST, ORPHAN, ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "audit.yml"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


# The workflow template.


def test_workflow_uses_current_actions_and_is_fork_safe():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert workflow["permissions"] == {"contents": "read"}
    job = workflow["jobs"]["audit"]
    assert job["permissions"] == {"contents": "read", "security-events": "write"}
    uses = [s["uses"] for s in job["steps"] if "uses" in s]
    # Node 24 majors; upload-sarif v3 (Node 20) is deprecated in December 2026. The audit is
    # this project's Action (tests/cli/test_action.py runs it with the workflow's inputs).
    home = urlparse(REPOSITORY).path.strip("/")
    assert uses == [
        "actions/checkout@v6",
        "actions/setup-python@v6",
        f"{home}@main",
        "github/codeql-action/upload-sarif@v4",
    ]
    (upload,) = [s for s in job["steps"] if "upload-sarif" in s.get("uses", "")]
    # A fork's pull request has a read-only token: the upload is skipped there, not failed.
    assert "github.event.pull_request.head.repo.full_name == github.repository" in upload["if"]
    assert "!cancelled()" in upload["if"]
    assert upload["with"] == {"sarif_file": "audit.sarif", "category": "auditor"}
    assert not [s for s in job["steps"] if "pip install" in s.get("run", "")]  # the Action's
    assert "v0.1.0" not in WORKFLOW.read_text()


# The pre-commit hook, through pre-commit itself.


def snippets(pattern: str) -> list[str]:
    """The ```yaml blocks of the README and docs/ that match `pattern`."""
    blocks = []
    for page in DOCS:
        blocks += re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    return [b for b in blocks if re.search(pattern, b)]


def test_the_hook_passes_every_file_and_lets_audit_choose():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert (hook["id"], hook["entry"], hook["language"]) == ("audit", "audit", "python")
    assert "files" not in hook  # every file: which are logs is audit's walk's decision
    assert hook["args"] == ["--force-exclude", "--allow-empty", "--no-progress"]
    assert snippets(r"repo: https://") and snippets(r"repo: local")


needs_pre_commit = pytest.mark.skipif(
    find_spec("pre_commit") is None or shutil.which("git") is None,
    reason="needs pre-commit (a dev extra) and git",
)


def git(*args: str, cwd: Path) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory) -> tuple[Path, str]:
    """This checkout's working tree (what pip needs to build it) as a git repository, and its
    commit: what `repo:` and `rev:` name."""
    repo = tmp_path_factory.mktemp("hook") / "auditor"
    tracked = git("ls-files", "pyproject.toml", "README.md", "auditor", cwd=ROOT).splitlines()
    for name in [*tracked, ".pre-commit-hooks.yaml"]:
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, repo / name)
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "hook", cwd=repo)
    return repo, git("rev-parse", "HEAD", cwd=repo)


def scratch_repository(root: Path) -> Path:
    """A repository holding logs of several kinds and what lies beside them."""
    repo = root / "project"
    logs = repo / "logs"
    (logs / "tau").mkdir(parents=True)
    shutil.copy(LOST, logs / "runs.jsonl")
    tau = sorted((FIXTURES / "formats" / "tau").glob("*.json"))[0]
    shutil.copy(tau, logs / "tau" / "results.json")
    shutil.copy(FIXTURES / "formats" / "inspect-ai" / "approval-demo.eval", logs / "demo.eval")
    (logs / "README.md").write_text("# Regression runs\n\nOne file per nightly run.\n")
    (logs / "package.json").write_text('{"name": "logs", "version": "1.0.0"}\n')
    (logs / "plot.png").write_bytes((ROOT / "docs" / "report.png").read_bytes()[:4000])
    (repo / "notes.jsonl").write_bytes(ORPHAN.read_bytes())  # outside logs/
    git("init", "-q", cwd=repo)
    return repo


def pre_commit(repo: Path, config: str, home: Path, **env: str) -> subprocess.CompletedProcess:
    import pre_commit as installed

    where = [str(Path(installed.__file__).parent.parent)]  # pre-commit itself, wherever it is
    if "PYTHONPATH" in env:
        where.append(env.pop("PYTHONPATH"))
    (repo / ".pre-commit-config.yaml").write_text(config)
    git("add", "-A", cwd=repo)
    # Offline: pip builds and installs the hook's package from the checkout alone, without the
    # index; its dependencies, and hatchling to build it, come from this test environment
    # (PYTHONPATH). PIP_NO_BUILD_ISOLATION=0 sets pip's build_isolation to false.
    environment = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "PIP_NO_INDEX": "1",
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
        "PYTHONPATH": os.pathsep.join(dict.fromkeys([sysconfig.get_paths()["purelib"], *where])),
        "NO_COLOR": "1",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def findings(output: str) -> list[str]:
    """The concise finding lines in pre-commit's output: `path:line: CODE`."""
    return [m.group(0) for m in re.finditer(r"^\S+?:[^\s]*: [A-Z]{2}\d{3}", output, re.M)]


@needs_pre_commit
@pytest.mark.parametrize("config", snippets(r"repo: https://"))
def test_the_documented_hook_audits_exactly_what_a_walk_audits(tmp_path, hook_repository, config):
    hook, rev = hook_repository
    assert f"repo: {REPOSITORY}" in config
    config = config.replace(f"repo: {REPOSITORY}", f"repo: {hook}")
    config = re.sub(r"rev: \S+", f"rev: {rev}", config)
    repo = scratch_repository(tmp_path)
    proc = pre_commit(repo, config, hook.parent / "home")
    assert "audit agent transcripts" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # What `audit logs/` reports, no more (README.md, package.json, plot.png are not logs) and
    # no less (the tau-bench .json and the Inspect .eval are).
    walk = subprocess.run(
        [sys.executable, "-m", "auditor", "logs/", "-f", "concise", "--exit-zero"],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    assert findings(walk.stdout)
    assert findings(proc.stdout) == findings(walk.stdout), proc.stdout + proc.stderr
    assert not [f for f in findings(proc.stdout) if "README.md" in f or "plot.png" in f]
    # README.md and package.json are looked at and skipped, as the walk skips them, in its words
    said = (walk.stdout + walk.stderr).splitlines()
    skipped = [line for line in said if line.startswith("audit: skipped")]
    assert skipped and all(line in proc.stdout for line in skipped), proc.stdout
    assert "notes.jsonl" not in proc.stdout  # files: ^logs/
    assert "read 3 files" in proc.stdout  # runs.jsonl, results.json, demo.eval


@needs_pre_commit
def test_the_local_hook_for_offline_ci_audits_the_same(tmp_path):
    (config,) = snippets(r"repo: local")
    repo = scratch_repository(tmp_path)
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "audit").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m auditor "$@"\n')
    (shim / "audit").chmod(0o755)
    path = f"{shim}{os.pathsep}{os.environ['PATH']}"
    proc = pre_commit(repo, config, tmp_path / "home", PATH=path, PYTHONPATH=str(ROOT))
    assert "audit agent transcripts" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert findings(proc.stdout)[:2] == [
        "logs/runs.jsonl:1: EX001",
        "logs/runs.jsonl:2: EX001",
    ]
    assert not [f for f in findings(proc.stdout) if "README.md" in f]  # looked at, skipped
    assert "notes.jsonl" not in proc.stdout
