"""What a directory walk reads: .gitignore as git reads it, no virtualenvs, side-car JSON and
other file types skipped but listed, and a run that read no conversation is an error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from auditor import sources
from auditor.sources import gitignore
from tests.helpers import FIXTURES, audit_main

LOST = FIXTURES / "rules" / "EX001" / "bad_moved_on_without_result.jsonl"
ORPHAN = FIXTURES / "rules" / "EX002" / "bad_unknown_call_id.jsonl"
CLEAN = FIXTURES / "rules" / "EX001" / "good_answered.jsonl"

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def walked(directory, **kwargs) -> list[tuple[str, str]]:
    return [
        (type(item).__name__, os.path.relpath(item.path, directory))
        for item in sources.discover([str(directory)], **kwargs)
    ]


# .gitignore, checked against git itself.

GITIGNORE = """\
# comments and blank lines are nothing

*.tmp.jsonl
/root-only.jsonl
build/
!build/keep.jsonl
logs/**/scratch
docs/*.jsonl
**/cache/*.jsonl
a?c.jsonl
[xy]z.jsonl
trailing-space.jsonl\\{space}
\\#hash.jsonl
!important.tmp.jsonl
deep/**/x.jsonl
""".format(space=" ")  # an escaped trailing space is kept

TREE = [
    "keep.jsonl",
    "a.tmp.jsonl",
    "important.tmp.jsonl",
    "root-only.jsonl",
    "sub/root-only.jsonl",
    "build/keep.jsonl",
    "build/out.jsonl",
    "sub/build/also.jsonl",
    "logs/scratch/a.jsonl",
    "logs/x/y/scratch/b.jsonl",
    "logs/scratch.jsonl",
    "docs/a.jsonl",
    "docs/sub/a.jsonl",
    "cache/c.jsonl",
    "q/cache/c.jsonl",
    "q/cache/d/c.jsonl",
    "abc.jsonl",
    "ac.jsonl",
    "a/c.jsonl",
    "xz.jsonl",
    "zz.jsonl",
    "trailing-space.jsonl ",
    "#hash.jsonl",
    "deep/x.jsonl",
    "deep/1/2/x.jsonl",
    "nested/local.jsonl",
    "nested/kept.jsonl",
    "nested/inner/local.jsonl",
    "nested/inner/again.jsonl",
]
NESTED = {"nested/.gitignore": "local.jsonl\n!inner/\n", "nested/inner/.gitignore": "again.jsonl\n"}


@needs_git
def test_the_walk_reads_what_git_does_not_ignore(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(GITIGNORE)
    for name, text in NESTED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    for name in TREE:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(CLEAN.read_bytes())
    git = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "-z"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    expected = sorted(p for p in git.stdout.decode().split("\0") if p.endswith(".jsonl"))
    found = sorted(path for kind, path in walked(tmp_path) if kind == "Source")
    assert found == expected
    # The cases that tell real gitignore rules from fnmatch, spelled out.
    assert "important.tmp.jsonl" in found and "a.tmp.jsonl" not in found  # `!` re-includes
    assert "sub/root-only.jsonl" in found and "root-only.jsonl" not in found  # `/` anchors
    assert "build/keep.jsonl" not in found  # a file in an ignored directory stays out
    assert "docs/sub/a.jsonl" in found  # `*` does not cross `/`
    assert "q/cache/d/c.jsonl" in found and "q/cache/c.jsonl" not in found  # `**/` any depth
    assert "nested/kept.jsonl" in found and "nested/inner/again.jsonl" not in found


@needs_git
def test_a_parents_gitignore_applies_but_a_named_directory_is_read(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("logs/\n*.tmp.jsonl\n")
    (tmp_path / "logs").mkdir()
    shutil.copy(LOST, tmp_path / "logs" / "a.jsonl")
    shutil.copy(LOST, tmp_path / "logs" / "b.tmp.jsonl")
    # From the root, logs/ is ignored as a whole.
    assert walked(tmp_path) == [("Ignored", "logs")]
    # Named, it is read, and the root's other patterns still apply inside it.
    assert walked(tmp_path / "logs") == [("Source", "a.jsonl"), ("Ignored", "b.tmp.jsonl")]
    assert walked(tmp_path, gitignore=False) == [
        ("Source", "logs/a.jsonl"),
        ("Source", "logs/b.tmp.jsonl"),
    ]


def test_gitignore_patterns_translate_like_wildmatch():
    def ignored(pattern: str, path: str, is_dir: bool = False) -> bool:
        rules = gitignore.Rules("/r", tuple(gitignore.parse(pattern)))
        return rules.decide("/r/" + path, is_dir) is True

    assert ignored("*.log", "a/b/c.log")
    assert not ignored("/*.log", "a/c.log")
    assert ignored("a/**/b", "a/b") and ignored("a/**/b", "a/x/y/b")
    assert ignored("a/**", "a/x/y") and not ignored("a/**", "a")
    assert ignored("dir/", "x/dir", is_dir=True) and not ignored("dir/", "x/dir")
    assert ignored("[!a]b", "cb") and not ignored("[!a]b", "ab")
    assert ignored("a[", "a[")  # an unclosed bracket is a literal
    assert not ignored("#x", "#x") and ignored("\\#x", "#x")


def test_virtualenvs_and_node_modules_are_not_walked_unless_named(tmp_path):
    for name in ("env", "conda", "node_modules", "logs"):
        (tmp_path / name).mkdir()
        shutil.copy(CLEAN, tmp_path / name / "run.jsonl")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "conda" / "conda-meta").mkdir()
    assert walked(tmp_path, gitignore=False) == [("Source", "logs/run.jsonl")]
    assert walked(tmp_path / "env", gitignore=False) == [
        ("Skipped", "pyvenv.cfg"),
        ("Source", "run.jsonl"),
    ]


# Side-car JSON and other file types: skipped, listed, never failing the gate.


def test_side_car_json_in_a_walk_is_skipped_and_named_not_in002(tmp_path):
    (tmp_path / "logs").mkdir()
    shutil.copy(CLEAN, tmp_path / "logs" / "run.jsonl")
    (tmp_path / "logs" / "package.json").write_text('{"name": "x", "version": "1.0.0"}')
    (tmp_path / "logs" / "tools.json").write_text('[{"name": "get_weather"}]')
    (tmp_path / "logs" / "notes.md").write_text("# notes")
    (tmp_path / "logs" / "plot.png").write_bytes(b"\x89PNG")
    (tmp_path / "logs" / "readme.txt").write_text("Just prose, no transcript.")
    proc = audit_main("logs", "-f", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr  # no IN002: the gate passes
    doc = json.loads(proc.stdout)
    assert doc["findings"] == []
    assert doc["summary"]["files"] == 1 and doc["summary"]["skipped_files"] == 5
    prose = "text in no known transcript format"
    assert doc["coverage"]["skipped_files"] == [
        {"path": "logs/notes.md", "reason": "no transcript", "detail": prose},
        {
            "path": "logs/package.json",
            "reason": "no log shape",
            "detail": "JSON object of no known log format (keys: name, version)",
        },
        {"path": "logs/plot.png", "reason": "type"},
        {"path": "logs/readme.txt", "reason": "no transcript", "detail": prose},
        {
            "path": "logs/tools.json",
            "reason": "no log shape",
            "detail": "JSON array of no known log format (1 items)",
        },
    ]
    # Listed once, grouped, in every human output.
    note = (
        "skipped 5 files: 2 JSON of no log shape (logs/package.json, logs/tools.json), "
        "2 text of no transcript (logs/notes.md, logs/readme.txt), 1 *.png"
    )
    concise = audit_main("logs", cwd=tmp_path)
    assert f"audit: {note}" in concise.stderr.decode().splitlines()
    table = audit_main("logs", "-f", "table", cwd=tmp_path).stdout.decode()
    assert note[0].upper() + note[1:] in " ".join(table.split())  # wrapped at the table's width


def test_json_named_on_the_command_line_or_unknown_records_in_a_log_stay_in002(tmp_path):
    (tmp_path / "package.json").write_text('{"name": "x"}')
    proc = audit_main("package.json", "--allow-empty", "-f", "jsonl", cwd=tmp_path)
    assert [json.loads(line)["code"] for line in proc.stdout.splitlines()] == ["IN002"]
    assert proc.returncode == 1
    # In a walk, one unknown record inside a recognised log is still reported.
    (tmp_path / "logs").mkdir()
    assert CLEAN.read_bytes().count(b"\n") == 4
    (tmp_path / "logs" / "run.jsonl").write_bytes(CLEAN.read_bytes() + b'{"event": "tick"}\n')
    proc = audit_main("logs", "-f", "jsonl", cwd=tmp_path)
    found = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(f["code"], f["line"], f["message"]) for f in found] == [
        ("IN002", 5, "JSON object of no known log format (keys: event)")
    ]


def test_a_walked_file_that_does_not_parse_is_still_in001(tmp_path):
    (tmp_path / "logs").mkdir()
    shutil.copy(CLEAN, tmp_path / "logs" / "run.jsonl")
    (tmp_path / "logs" / "cut.json").write_text('{"messages": [')
    proc = audit_main("logs", "-f", "jsonl", cwd=tmp_path)
    assert [json.loads(line)["code"] for line in proc.stdout.splitlines()] == ["IN001"]


# IN001 whatever the selection.


@pytest.mark.parametrize(
    "selection", [("--select", "FB"), ("--ignore", "IN"), ("--select", "EX001")]
)
def test_an_unreadable_record_is_reported_whatever_the_selection(tmp_path, selection):
    (tmp_path / "runs.jsonl").write_bytes(LOST.read_bytes() + b'{"messages": [\n')
    proc = audit_main("runs.jsonl", *selection, "-f", "jsonl", cwd=tmp_path)
    found = [json.loads(line) for line in proc.stdout.splitlines()]
    assert ("IN001", 3) in [(f["code"], f["line"]) for f in found]
    assert proc.returncode == 1


# A run that read no conversation.


@pytest.mark.parametrize(
    ("setup", "args", "said"),
    [
        (lambda d: (d / "logs").mkdir(), ("logs",), "no conversation found in logs: 0 files read"),
        (
            lambda d: ((d / "logs").mkdir(), (d / "logs" / "notes.md").write_text("x")),
            ("logs",),
            "0 files read; skipped 1 file: 1 text of no transcript (logs/notes.md)",
        ),
        (
            lambda d: (
                (d / "logs").mkdir(),
                (d / "logs" / "package.json").write_text("{}"),
                (d / "logs" / "old.jsonl").write_bytes(LOST.read_bytes()),
            ),
            ("logs", "--exclude", "*.jsonl"),
            "skipped 1 file: 1 JSON of no log shape (logs/package.json); 1 excluded",
        ),
    ],
    ids=["empty directory", "only other file types", "everything excluded"],
)
def test_reading_no_conversation_is_exit_2_with_one_line(tmp_path, setup, args, said):
    setup(tmp_path)
    proc = audit_main(*args, "-q", cwd=tmp_path)
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith("audit: error: no conversation found in logs: ")
    assert said in line
    assert line.endswith("Check the paths, or pass --allow-empty if that is expected")
    assert audit_main(*args, "-q", "--allow-empty", cwd=tmp_path).returncode == 0


def test_a_gitignored_directory_is_named_in_the_empty_run_line(tmp_path):
    (tmp_path / ".gitignore").write_text("*.jsonl\n")
    shutil.copy(LOST, tmp_path / "a.jsonl")
    proc = audit_main(".", "-q", cwd=tmp_path)
    assert proc.returncode == 2
    assert "1 ignored by .gitignore (--no-respect-gitignore reads them)" in proc.stderr.decode()
    proc = audit_main(".", "-q", "--no-respect-gitignore", "-f", "jsonl", cwd=tmp_path)
    assert proc.returncode == 1


def test_a_missing_path_alone_is_one_error_line_not_two(tmp_path):
    proc = audit_main("nope.jsonl", "-q", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == b"audit: error: nope.jsonl: no such file or directory\n"
