"""Every command the README and docs/ show, run from a fresh clone of the repository.

Each ```sh block (one command a line, `\\` continuing it) and each `$ ` line of a ```console
block runs with `sh` in a clone of this checkout, `audit` on the PATH (this clone's code), next
to a `logs/` folder of sample logs, `runs.jsonl`, `tools.json` and a baseline. A command may
find something (exit 1) but not fail (exit 2) or raise. The CI snippets in ```yaml blocks run
their `audit` commands the same way. A block that cannot run here is preceded by
`<!-- not run: why -->`; the jq recipes are run and checked by test_recipes.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
import yaml

from tests.helpers import FIXTURES, ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(<!-- not run: ([^>]*?) -->\n)?```(sh|console|yaml)\n(.*?)```", re.S)
RECIPES = re.compile(r"<!-- jq-recipes:begin -->.*?<!-- jq-recipes:end -->", re.S)


def commands(text: str, language: str) -> list[str]:
    """The commands of a block: its lines (joined where one ends in `\\`), comments dropped;
    in a console block only the `$ ` lines."""
    if language == "console":
        return [line[2:] for line in text.splitlines() if line.startswith("$ ")]
    joined = re.sub(r"\\\n\s*", "", text)
    return [line for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def yaml_commands(text: str) -> list[str]:
    """The `audit` commands of a CI snippet: the `run:` of its steps, a GitLab job's `script`."""
    doc = yaml.safe_load(text)
    found: list[str] = []

    def visit(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("run", "script"):  # pre-commit's `entry` is run by pre-commit
                    lines = value if isinstance(value, list) else str(value).splitlines()
                    found.extend(str(line) for line in lines if str(line).startswith("audit "))
                else:
                    visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    visit(doc)
    return found


def documented() -> list[tuple[str, str]]:
    """(where, command) for every command the pages show, in page order."""
    out = []
    for page in PAGES:
        text = RECIPES.sub("", page.read_text(encoding="utf-8"))
        for match in BLOCK.finditer(text):
            skipped, language, body = match.group(2), match.group(3), match.group(4)
            if skipped is not None:
                assert skipped.strip(), f"{page.name}: a not-run block must say why"
                continue
            found = yaml_commands(body) if language == "yaml" else commands(body, language)
            line = text[: match.start()].count("\n") + 1
            out.extend((f"{page.relative_to(ROOT)}:{line}", command) for command in found)
    return out


COMMANDS = documented()


def test_the_pages_show_commands_and_run_them_all():
    from tests.cli.test_action import uses_of_the_action

    where = {w.split(":")[0] for w, _ in COMMANDS}
    assert {"docs/usage.md", "docs/ci.md", "docs/formats.md"} <= where
    assert len(COMMANDS) > 20
    # The README's CI lines use the Action: tests/cli/test_action.py runs them with their inputs.
    assert "README.md" in {w for w, _, _ in uses_of_the_action()}


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A fresh clone of this checkout (its committed files; the working tree's pages and code
    are copied over them, so what is tested is what is being changed), with sample inputs."""
    home = tmp_path_factory.mktemp("snippets")
    repo = home / "auditor"
    if shutil.which("git") and (ROOT / ".git").exists():
        subprocess.run(["git", "clone", "-q", ROOT.as_uri(), str(repo)], check=True)
    else:
        repo.mkdir()
    for name in ("auditor", "fixtures", "docs"):
        shutil.copytree(ROOT / name, repo / name, dirs_exist_ok=True)
    shutil.copy(ROOT / "README.md", repo / "README.md")
    logs = repo / "logs"
    logs.mkdir()
    shutil.copy(FIXTURES / "demo" / "agent-runs.jsonl", logs / "demo.jsonl")
    for bad in sorted((FIXTURES / "rules").glob("*/bad_*.jsonl")):
        shutil.copy(bad, logs / f"{bad.parent.name}-{bad.name}")
    shutil.copy(FIXTURES / "demo" / "agent-runs.jsonl", repo / "runs.jsonl")
    shutil.copy(FIXTURES / "tools" / "openai-tools.json", repo / "tools.json")
    shim = home / "bin"
    shim.mkdir()
    (shim / "audit").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m auditor "$@"\n')
    (shim / "audit").chmod(0o755)
    assert sh("audit logs/ --write-baseline .audit-baseline.json -q", repo).returncode == 0
    return repo


def sh(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PATH": f"{cwd.parent / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(cwd),
        "NO_COLOR": "1",
    }
    return subprocess.run(
        ["sh", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )


@pytest.mark.parametrize(("where", "command"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_documented_command_runs_from_a_fresh_clone(clone, where, command):
    if "jq " in command and shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    if "--engine dask" in command and find_spec("distributed") is None:
        pytest.skip("the dask extra is not installed")
    proc = sh(command, clone)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), f"{where}: {command}\n{proc.stderr}"
    assert "audit: error:" not in proc.stderr, proc.stderr


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_links_between_pages_resolve(page):
    """A relative link names a file of the repository, and its #anchor a heading of it."""
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.exists(), f"{page.name}: {target}"
        if anchor and file.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", file.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{page.name}: {target}"


def test_install_lines_name_what_a_reader_can_install_today():
    """No pin to a tag that does not exist (v0.1.0 was never tagged): the repository at `main`
    (or a commit), and the pages say how releases will be tagged."""
    from auditor import REPOSITORY

    files = [
        *PAGES,
        ROOT / "CONTRIBUTING.md",
        ROOT / ".pre-commit-hooks.yaml",
        ROOT / ".github" / "workflows" / "audit.yml",
    ]
    urls = []
    for file in files:
        text = file.read_text(encoding="utf-8")
        assert not re.search(r"auditor@v\d|rev: v\d", text), file.name  # actions' @v4 are fine
        urls += re.findall(r"git\+https://[^\s\"']+", text)
    assert urls and set(urls) == {f"git+{REPOSITORY}@main"}
    ci = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "Releases\nwill be tags `vMAJOR.MINOR.PATCH`" in ci


def test_the_readme_is_a_front_door():
    """At most 15 KB (ruff's README is 20, semgrep's 18): the manual lives in docs/, and the
    README links every page of it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) <= 15_000
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name not in ("README.md", "prepass.md"):
            assert f"(docs/{page.name})" in readme, page.name
