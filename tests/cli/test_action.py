"""The GitHub Action (action.yml): read as GitHub reads it, and run as a runner runs it.

A runner gives a composite action's steps `GITHUB_ACTION_PATH` (the action's checkout),
`RUNNER_TEMP`, `GITHUB_PATH`, and runs each `run:` with `bash --noprofile --norc -eo pipefail`,
the `${{ inputs.* }}` of its `env:` replaced by the inputs the workflow's `with:` gives (or their
defaults). Here the same, offline: the install step builds this working tree with pip, without
the index (its dependencies and hatchling come from this test environment), into a virtual
environment, and the audit step runs with the inputs of the example workflow and of every
snippet of the docs that uses the Action.
"""

from __future__ import annotations

import json
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
from tests.helpers import LOST, ORPHAN, ROOT
from tests.reports import github_sarif_problems

ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / ".github" / "workflows" / "audit.yml"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
HOME = urlparse(REPOSITORY).path.strip("/")
"""`OWNER/NAME` of the repository, what `uses:` names: set by REPOSITORY alone."""
EXPRESSION = re.compile(r"\$\{\{\s*(inputs|env)\.([\w-]+)\s*\}\}")


def action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def uses_of_the_action() -> list[tuple[str, dict, dict]]:
    """(where, the step's `with:`, the workflow's `env:`) for every step of the example
    workflow and of the docs' YAML snippets that uses this Action."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    env = workflow.get("env", {})
    found = [(WORKFLOW.name, s, env) for s in workflow["jobs"]["audit"]["steps"] if ours(s)]
    for page in PAGES:
        for block in re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            steps = yaml.safe_load(block)
            if isinstance(steps, list):
                found += [(page.name, s, {}) for s in steps if ours(s)]
    return found


def ours(step: object) -> bool:
    return isinstance(step, dict) and str(step.get("uses", "")).startswith(f"{HOME}@")


def test_action_yml_is_a_composite_action_github_accepts():
    spec = action()
    assert set(spec) <= {"name", "description", "author", "branding", "inputs", "outputs", "runs"}
    assert spec["name"] and spec["description"] and spec["branding"]["icon"]
    inputs = spec["inputs"]
    assert set(inputs) == {"paths", "format", "baseline", "fail-on", "args"}
    for name, given in inputs.items():
        assert set(given) <= {"description", "required", "default"}, name
        assert given["description"].strip(), name
        assert isinstance(given.get("default", ""), str), name  # every input is a string
    assert inputs["paths"]["required"] is True and "default" not in inputs["paths"]
    assert inputs["format"]["default"] == "github"
    runs = spec["runs"]
    assert runs["using"] == "composite"
    used = set()
    for step in runs["steps"]:
        assert step["shell"] == "bash", step["name"]  # a composite run step names its shell
        # Inputs reach a script through env only: spliced into its text, a value would be code.
        assert "${{" not in step["run"], step["name"]
        for value in step.get("env", {}).values():
            match = EXPRESSION.fullmatch(value)
            assert match and match.group(1) == "inputs", value
            used.add(match.group(2))
    assert used == set(inputs)
    (install,) = [s for s in runs["steps"] if "pip install" in s["run"]]
    assert '"$GITHUB_ACTION_PATH"' in install["run"]  # the action's own checkout


def test_the_workflow_and_the_docs_use_the_action_at_what_exists():
    """The example workflow and the README use it, at `main` until a release is tagged, with
    inputs it has."""
    uses = uses_of_the_action()
    assert {where for where, _, _ in uses} >= {"audit.yml", "README.md", "ci.md"}
    inputs = set(action()["inputs"])
    for where, step, _ in uses:
        assert step["uses"] == f"{HOME}@main", where
        assert "paths" in step["with"] and set(step["with"]) <= inputs, where


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> dict[str, str]:
    """A runner's environment with the Action's install step run: this working tree copied as
    the action's checkout, installed offline into `RUNNER_TEMP/auditor`."""
    home = tmp_path_factory.mktemp("runner")
    checkout = home / "action"
    checkout.mkdir()
    for name in ("pyproject.toml", "README.md", "action.yml"):
        shutil.copy(ROOT / name, checkout / name)
    shutil.copytree(
        ROOT / "auditor", checkout / "auditor", ignore=shutil.ignore_patterns("__pycache__")
    )
    shim = home / "bin"
    shim.mkdir()
    (shim / "python3").symlink_to(sys.executable)  # the runner's python3 (setup-python's)
    (home / "temp").mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_"))},
        "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_ACTION_PATH": str(checkout),
        "RUNNER_TEMP": str(home / "temp"),
        "GITHUB_PATH": str(home / "github_path"),
        "NO_COLOR": "1",
        # Offline: no index; the dependencies, and hatchling to build, from this environment.
        # PIP_NO_BUILD_ISOLATION=0 sets pip's build_isolation to false.
        "PIP_NO_INDEX": "1",
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
    }
    (install,) = [s for s in action()["runs"]["steps"] if "pip install" in s["run"]]
    proc = run_step(install, {}, env, home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return env


def run_step(step: dict, inputs: dict[str, str], env: dict[str, str], cwd: Path):
    """One step of the action as a runner runs it: its env's expressions replaced by inputs."""
    given = {
        k: EXPRESSION.sub(lambda m: inputs.get(m.group(2), ""), v)
        for k, v in step.get("env", {}).items()
    }
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env={**env, **given},
        capture_output=True,
        text=True,
        timeout=600,
    )


def run_action(with_: dict, env: dict[str, str], cwd: Path, workflow_env: dict | None = None):
    """The Action's audit step with a `with:` as a workflow gives it (its `${{ env.X }}`
    resolved from the workflow's env), the defaults filling what it leaves out."""
    defined = action()["inputs"]
    inputs = {name: spec.get("default", "") for name, spec in defined.items()}
    for name, value in with_.items():
        value = str(value)
        inputs[name] = EXPRESSION.sub(lambda m: str((workflow_env or {})[m.group(2)]), value)
    (step,) = [s for s in action()["runs"]["steps"] if s["name"] == "Audit"]
    return run_step(step, inputs, env, cwd)


needs_hatchling = pytest.mark.skipif(
    find_spec("hatchling") is None, reason="needs hatchling (a dev extra) to build offline"
)


def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "logs").mkdir(parents=True)
    (repo / ".git").mkdir()
    shutil.copy(LOST, repo / "logs" / "a.jsonl")
    return repo


@needs_hatchling
def test_the_install_step_puts_audit_from_the_checkout_on_the_path(runner):
    venv = Path(runner["RUNNER_TEMP"]) / "auditor"
    assert Path(runner["GITHUB_PATH"]).read_text().splitlines() == [str(venv / "bin")]
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import auditor; print(auditor.__file__)"],
        capture_output=True,
        text=True,
        env=runner,
        cwd=venv,
        check=True,
    )
    assert where.stdout.startswith(str(venv))  # installed, not this checkout


@needs_hatchling
def test_the_workflow_runs_the_action_first_without_a_baseline_then_with_one(runner, tmp_path):
    (_, step, workflow_env) = next(u for u in uses_of_the_action() if u[0] == "audit.yml")
    repo = repository(tmp_path)

    # A first run: no baseline yet. Every finding is new: annotated, and the step fails.
    proc = run_action(step["with"], runner, repo, workflow_env)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == (
        "::notice title=auditor::no baseline at .audit-baseline.json: every finding is new"
    )
    assert [a.split("::")[1].split(",title=")[0] for a in lines[1:3]] == [
        "error file=logs/a.jsonl,line=1",
        "error file=logs/a.jsonl,line=2",
    ]
    assert "audit: wrote 2 findings to audit.sarif (sarif)" in proc.stderr.splitlines()
    sarif = json.loads((repo / "audit.sarif").read_text())
    assert github_sarif_problems(sarif) == []
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["EX001", "EX001"]

    # With a baseline (written by the `audit` the Action put on the PATH): nothing new passes.
    audit = Path(runner["RUNNER_TEMP"]) / "auditor" / "bin" / "audit"
    write = [str(audit), "logs/", "--write-baseline", ".audit-baseline.json", "-q"]
    assert subprocess.run(write, cwd=repo, env=runner).returncode == 0
    proc = run_action(step["with"], runner, repo, workflow_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == (
        "::notice title=auditor::2 findings in the baseline not shown"
    )
    results = json.loads((repo / "audit.sarif").read_text())["runs"][0]["results"]
    assert [r["baselineState"] for r in results] == ["unchanged", "unchanged"]

    # A new finding fails the step, and only it is annotated.
    shutil.copy(ORPHAN, repo / "logs" / "b.jsonl")
    proc = run_action(step["with"], runner, repo, workflow_env)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith(
        "::warning file=logs/b.jsonl,line=1,title=EX002 orphan-tool-result::"
    )
    assert not any(line.startswith("::error") for line in proc.stdout.splitlines())


@needs_hatchling
@pytest.mark.parametrize("where", sorted({w for w, _, _ in uses_of_the_action()} - {"audit.yml"}))
def test_every_documented_use_of_the_action_runs(runner, tmp_path, where):
    (_, step, _) = next(u for u in uses_of_the_action() if u[0] == where)
    repo = repository(tmp_path)
    proc = run_action(step["with"], runner, repo)
    assert proc.returncode == 1, proc.stderr  # the findings of logs/a.jsonl fail the step
    assert "::error file=logs/a.jsonl,line=1," in proc.stdout
    for output in str(step["with"].get("format", "")).split():
        if ":" in output:
            assert (repo / output.split(":", 1)[1]).is_file(), output


@needs_hatchling
@pytest.mark.parametrize(
    ("with_", "status", "said"),
    [
        ({"paths": " \n "}, 2, "::error title=auditor::the input paths names no log file"),
        ({"paths": "logs/", "fail-on": "never"}, 0, "::error file=logs/a.jsonl,line=1,"),
        ({"paths": "logs/", "args": "--select EX002", "baseline": ""}, 0, ""),
        ({"paths": "logs/a.jsonl\nlogs/", "format": "concise json:out.json"}, 1, "EX001"),
    ],
)
def test_inputs_become_arguments(runner, tmp_path, with_, status, said):
    repo = repository(tmp_path)
    proc = run_action(with_, runner, repo)
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert said in proc.stdout
    if "json:out.json" in with_.get("format", ""):
        assert json.loads((repo / "out.json").read_text())["findings"]


@needs_hatchling
def test_an_input_is_never_run_as_a_command(runner, tmp_path):
    repo = repository(tmp_path)
    hostile = {"paths": "logs/ $(touch pwned) `touch pwned2`", "args": "; touch pwned3 #"}
    proc = run_action(hostile, runner, repo)
    assert proc.returncode == 2  # `$(touch` and `pwned)` are paths that do not exist
    assert not list(repo.glob("pwned*")) and not list(tmp_path.glob("pwned*"))
