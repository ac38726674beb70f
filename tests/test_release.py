"""What is installed and pinned: one distribution name, one version, a changelog that keeps up,
one place for the project's home, and distributions `twine check` accepts (docs/development.md,
"Releasing")."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from importlib.util import find_spec
from pathlib import Path
from urllib.parse import urlparse

import pytest

from auditor import DISTRIBUTION, REPOSITORY, VERSION, __version__
from tests.helpers import ROOT

HOME = urlparse(REPOSITORY).path.strip("/")
SEMVER = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def tracked() -> list[Path]:
    """The checkout's files as a commit of it would hold them (tracked, or new and not
    ignored); without git, the files the tests know of."""
    if shutil.which("git") and (ROOT / ".git").exists():
        names = subprocess.run(
            ["git", "ls-files", "-z", "-co", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
        return [ROOT / n for n in names.split("\0") if n and (ROOT / n).is_file()]
    return [p for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]


def texts() -> dict[Path, str]:
    found = {}
    for path in tracked():
        if path.suffix in {".md", ".py", ".toml", ".yml", ".yaml", ".cfg", ".txt"} or (
            path.name == "Makefile"
        ):
            found[path] = path.read_text(encoding="utf-8", errors="replace")
    return found


def test_the_version_has_one_place():
    """`__version__` in auditor/__init__.py: the package's version (hatchling reads it) and
    what `audit --version` prints; no other file sets one."""
    project = pyproject()
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "auditor/__init__.py"
    assert SEMVER.fullmatch(__version__)
    assert f"audit ({DISTRIBUTION}) {__version__}" == VERSION
    setters = [
        str(path.relative_to(ROOT))
        for path, text in texts().items()
        if path.suffix == ".py" and re.search(r"^__version__\s*=", text, re.M)
    ]
    assert setters == ["auditor/__init__.py"]


def test_the_distribution_is_installed_by_its_name():
    """pip installs `transcript-auditor` (`auditor` on PyPI is another project's): the project,
    its extras naming themselves, every install line and hint say so."""
    project = pyproject()["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"audit": "auditor.__main__:main"}
    assert f"{DISTRIBUTION}[dask,zstd]" in project["optional-dependencies"]["dev"]
    wrong = re.compile(r"""["']auditor @ |(?<![\w-])auditor\[(dask|zstd|dev)""")
    for path, text in texts().items():
        if path.name != "test_release.py":
            assert not wrong.search(text), f"{path.relative_to(ROOT)}: {wrong.search(text)}"
    from auditor.sources import remote

    assert f"pip install '{DISTRIBUTION}[dask]'" == remote.INSTALL


def test_the_project_home_is_set_in_one_place():
    """Every page, workflow and example names the project's home as REPOSITORY says: its URL
    (`https://github.com/OWNER/NAME`, `git+…@ref`, a pre-commit `repo:`) or the Action's
    `uses: OWNER/NAME@ref`. Set REPOSITORY to the real home and this names each file still
    saying the old one (YOUR-ORG is the placeholder until then)."""
    owner, name = HOME.split("/")
    homes = re.compile(r"github\.com/([\w.-]+)/(auditor|transcript-auditor)\b")
    uses = re.compile(r"uses:\s*([\w.-]+)/(auditor|transcript-auditor)@")
    seen = 0
    for path, text in texts().items():
        if path.name == "test_release.py":
            continue
        for match in [*homes.finditer(text), *uses.finditer(text)]:
            seen += 1
            if match.group(1) == "OWNER":
                continue  # a placeholder in prose (`uses: OWNER/auditor@vX.Y.Z`)
            assert (match.group(1), match.group(2)) == (owner, name), (
                f"{path.relative_to(ROOT)}: {match.group(0)} is not {HOME}"
            )
        if owner != "YOUR-ORG":
            assert "YOUR-ORG" not in text, path
    assert seen >= 8  # README, docs/ci.md, the workflow, __init__.py, ...


def test_the_changelog_keeps_a_changelog():
    """CHANGELOG.md: `[Unreleased]` first, then releases `[X.Y.Z] - YYYY-MM-DD`, newest first,
    the newest not past `__version__` (set at release, with its heading); Keep a Changelog's
    kinds of change only."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    assert "https://keepachangelog.com/en/1.1.0/" in text
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "[Unreleased]"
    released = []
    for heading in headings[1:]:
        match = re.fullmatch(r"\[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}", heading)
        assert match, heading
        released.append(tuple(map(int, match.group(1).split("."))))
    assert released == sorted(released, reverse=True)
    current = tuple(map(int, SEMVER.fullmatch(__version__).groups()))  # type: ignore[union-attr]
    assert not released or released[0] <= current
    kinds = set(re.findall(r"^### (.+)$", text, re.M))
    assert kinds and kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


needs_build = pytest.mark.skipif(
    any(find_spec(m) is None for m in ("build", "twine", "hatchling")),
    reason="needs build, twine and hatchling (dev extras) to build and check offline",
)


@needs_build
def test_the_distributions_build_and_pass_twine_check(tmp_path):
    """`python -m build` (without isolation: offline, hatchling from this environment) makes an
    sdist and a wheel of the checkout as a commit of it would be, and `twine check --strict`
    accepts both, as PyPI's upload would."""
    tree = tmp_path / "tree"
    for path in tracked():
        (tree / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, tree / path.relative_to(ROOT))
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(tree)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    stem = f"{DISTRIBUTION.replace('-', '_')}-{__version__}"
    assert sorted(p.name for p in dist.iterdir()) == [
        f"{stem}-py3-none-any.whl",
        f"{stem}.tar.gz",
    ]
    check = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
        capture_output=True,
        text=True,
        timeout=300,
        env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2, check.stdout

    with zipfile.ZipFile(dist / f"{stem}-py3-none-any.whl") as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(f"{stem}.dist-info/METADATA").decode()
        entry_points = wheel.read(f"{stem}.dist-info/entry_points.txt").decode()
    assert f"\nName: {DISTRIBUTION}\n" in metadata and f"\nVersion: {__version__}\n" in metadata
    assert "audit = auditor.__main__:main" in entry_points
    for data in ("auditor/report.schema.json", "auditor/reporters/templates/report.html.j2"):
        assert data in names  # what a run reads besides the code
    with tarfile.open(dist / f"{stem}.tar.gz") as sdist:
        shipped = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert {"pyproject.toml", "README.md", "CHANGELOG.md", "action.yml"} <= shipped
    assert not [n for n in shipped if n.startswith((".venv/", "dist/"))]
