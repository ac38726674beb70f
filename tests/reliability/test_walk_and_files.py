"""Hostile trees and files named by option (issue 28, items 0 and 7-9): a checkout from a pull
request is untrusted input. Links out of the tree are not followed, a directory that cannot be
searched or a path past PATH_MAX costs one line, a hostile .gitignore cannot exhaust memory,
block or backtrack, and every file opened by name must be a regular file."""

from __future__ import annotations

import json
import os
import random
import re
import stat

import pytest

from auditor import sources
from auditor.config.files import shown
from auditor.sources import gitignore, walk
from tests.helpers import FIXTURES, ROOT, audit_process

LOG = FIXTURES / "rules" / "EX001" / "bad_moved_on_without_result.jsonl"
SECRET = '{"id": "creds", "messages": [{"role": "user", "content": "AWS_SECRET=hunter2"}]}\n'


def json_run(*args):
    proc = audit_process(*args, "-f", "json", "--no-progress")
    assert "Traceback" not in proc.stderr.decode(), proc.stderr.decode()
    return proc.returncode, json.loads(proc.stdout), proc.stderr.decode()


@pytest.fixture
def linked_tree(tmp_path):
    """logs/ with its own log, a link inside it, and links to a secret beside it, to a
    directory beside it and to /proc/self/environ."""
    logs, outside = tmp_path / "logs", tmp_path / "outside"
    logs.mkdir()
    outside.mkdir()
    (logs / "run.jsonl").write_bytes(LOG.read_bytes())
    (outside / "creds.jsonl").write_text(SECRET)
    os.symlink("run.jsonl", logs / "again.jsonl")  # inside the tree: followed
    os.symlink(outside / "creds.jsonl", logs / "creds.jsonl")
    os.symlink(outside, logs / "elsewhere")
    os.symlink("/proc/self/environ", logs / "env.jsonl")
    return logs


# 0. A link committed into a log folder was followed: every line of its target became an IN001
# quoting it, in every report CI uploads.
def test_links_out_of_the_named_path_are_not_followed_and_said_once(linked_tree):
    status, doc, _ = json_run(linked_tree)
    assert status == 1
    read = sorted({os.path.basename(f["path"]) for f in doc["findings"]})
    assert read == ["again.jsonl", "run.jsonl"]
    assert "hunter2" not in json.dumps(doc) and "PATH=" not in json.dumps(doc)
    assert doc["coverage"]["skipped_files"] == [
        {"path": str(linked_tree / name), "reason": "link"}
        for name in ("creds.jsonl", "elsewhere", "env.jsonl")
    ]
    concise = audit_process(linked_tree, "-f", "concise", "--no-progress").stderr.decode()
    assert concise.count("symlinked out of the path named") == 1
    assert (
        f"audit: skipped 3 files: 3 symlinked out of the path named ({linked_tree / 'creds.jsonl'}"
        f", {linked_tree / 'elsewhere'}, {linked_tree / 'env.jsonl'}) (--follow-links follows "
        "links)\n"
    ) in concise


def test_follow_links_follows_them_but_never_into_proc(linked_tree):
    found = list(sources.discover([str(linked_tree)], follow_links=True))
    named = {os.path.relpath(f.path, linked_tree): type(f).__name__ for f in found}
    assert named == {
        "again.jsonl": "Source",
        "creds.jsonl": "Source",
        os.path.join("elsewhere", "creds.jsonl"): "Source",
        "env.jsonl": "Linked",
        "run.jsonl": "Source",
    }


def test_a_named_link_into_proc_is_refused(linked_tree):
    status, doc, stderr = json_run(linked_tree / "env.jsonl")
    assert status == 2
    assert doc["summary"]["records"] == 0
    assert re.fullmatch(
        rf"audit: error: {re.escape(str(linked_tree))}/env\.jsonl: is a link to /proc/\d+/environ: "
        r"not read\n",
        stderr,
    )


# 7. A directory without search permission (simulated: root ignores permissions) or a path past
# PATH_MAX ended the run with `internal error`.
def test_an_entry_that_cannot_be_examined_is_one_line_and_the_rest_is_read(tmp_path, monkeypatch):
    (tmp_path / "a.jsonl").write_bytes(LOG.read_bytes())
    (tmp_path / "locked").mkdir()
    (tmp_path / "z.jsonl").write_bytes(LOG.read_bytes())
    real_scandir = os.scandir

    class Entry:
        def __init__(self, entry):
            self.entry, self.name = entry, entry.name

        def stat(self):
            if self.name == "locked":
                raise PermissionError(13, "Permission denied", self.name)
            return self.entry.stat()

        def is_symlink(self):
            return self.entry.is_symlink()

    class Listing:
        def __init__(self, path):
            self.it = real_scandir(path)

        def __enter__(self):
            return (Entry(e) for e in self.it)

        def __exit__(self, *exc):
            self.it.close()

    monkeypatch.setattr(walk.os, "scandir", Listing)
    found = list(sources.discover([str(tmp_path)]))
    assert [(type(f).__name__, os.path.basename(f.path)) for f in found] == [
        ("Source", "a.jsonl"),
        ("PathError", "locked"),
        ("Source", "z.jsonl"),
    ]
    assert found[1] == sources.PathError(str(tmp_path / "locked"), "permission denied")


def deep_tree(top, depth: int, name: str) -> None:
    """Directories `depth` deep below `top`, a log at the bottom (made through descriptors, as
    no path to it fits in PATH_MAX)."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        out = os.open("deep.jsonl", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, LOG.read_bytes())
        os.close(out)
    finally:
        os.close(fd)


def test_a_path_past_path_max_is_one_short_line_and_the_rest_is_read(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(LOG.read_bytes())
    deep_tree(tmp_path, 25, "d" * 200)  # 5,000 characters: past Linux's 4,096
    status, doc, stderr = json_run(tmp_path)
    assert status == 2
    assert {os.path.basename(f["path"]) for f in doc["findings"]} == {"a.jsonl"}
    [line] = stderr.splitlines()
    assert line.startswith(f"audit: error: {tmp_path}/ddd") and "…" in line
    assert line.endswith("ddd: file name too long") and len(line) < 400
    assert doc["errors"][0]["path"].startswith(str(tmp_path / ("d" * 200)))


def test_a_tree_deeper_than_the_recursion_limit_is_walked(tmp_path):
    deep_tree(tmp_path, 1200, "d")  # 2,400 characters: within PATH_MAX, past 1,000 frames
    try:
        found = list(sources.discover([str(tmp_path)]))
        assert [type(f).__name__ for f in found] == ["Source"]
        assert found[0].path.endswith("/d" * 1200 + "/deep.jsonl")
    finally:  # pytest's own clean-up recurses once per level
        os.unlink(f"{tmp_path}{'/d' * 1200}/deep.jsonl")
        for depth in range(1200, 0, -1):
            os.rmdir(f"{tmp_path}{'/d' * depth}")


# 8. A .gitignore linked to /dev/zero exhausted memory, a FIFO blocked forever, and a pattern
# such as `*a*a*a…b` took minutes (a backtracking translation to a regular expression).
def test_a_hostile_gitignore_is_not_read_and_said_in_one_line(tmp_path):
    for name in ("zero", "fifo", "big"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "log.jsonl").write_bytes(LOG.read_bytes())
    os.symlink("/dev/zero", tmp_path / "zero" / ".gitignore")
    os.mkfifo(tmp_path / "fifo" / ".gitignore")
    (tmp_path / "big" / ".gitignore").write_text("x.jsonl\n" * (gitignore.MAX_BYTES // 8 + 1))
    found = list(sources.discover([str(tmp_path)]))
    assert [f for f in found if isinstance(f, sources.PathError)] == [
        sources.PathError(
            str(tmp_path / "big" / ".gitignore"),
            "is larger than 256 KiB: not read: its ignore rules do not apply",
        ),
        sources.PathError(
            str(tmp_path / "fifo" / ".gitignore"),
            "is a named pipe, not a file: its ignore rules do not apply",
        ),
        sources.PathError(
            str(tmp_path / "zero" / ".gitignore"),
            "is a symbolic link: not followed: its ignore rules do not apply",
        ),
    ]
    read = [os.path.relpath(f.path, tmp_path) for f in found if isinstance(f, sources.Source)]
    assert sorted(read) == [
        "big/log.jsonl",
        "fifo/log.jsonl",
        "zero/log.jsonl",
    ]


def test_gitignore_patterns_match_in_linear_time():
    # 13 stars against a long name: a backtracking regular expression tries ~n^13 ways.
    rules = gitignore.Rules("/r", tuple(gitignore.parse("*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n")))
    assert rules.decide("/r/" + "a" * 5000, False) is None
    assert rules.decide("/r/" + "a" * 5000 + "b", False) is True


def reference(pattern: str) -> re.Pattern[str]:
    """The translation to a regular expression the walk used before (exact, but backtracking)."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            whole = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if j - i >= 2 and whole:
                out.append(".*" if j == n else "(?:.*/)?")
                j += 0 if j == n else 1
            else:
                out.append("[^/]*")
            i = j
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return re.compile("^" + "".join(out) + "$", re.DOTALL)


def test_the_linear_matcher_matches_what_the_regular_expressions_did():
    rng = random.Random(28)
    atoms = ["a", "b", "/", "*", "**", "?", "\\*"]
    checked = 0
    for _ in range(3000):
        pattern = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 7))).strip("/")
        if not pattern or "//" in pattern:
            continue
        expected = reference(pattern)
        glob = gitignore.Glob(pattern)
        for _ in range(12):
            path = "/".join(
                "".join(rng.choice("ab*") for _ in range(rng.randint(0, 3)))
                for _ in range(rng.randint(1, 4))
            )
            if "//" in path or not path or path.startswith("/") or path.endswith("/"):
                continue
            assert glob.match(path) == bool(expected.match(path)), (pattern, path)
            checked += 1
    assert checked > 10_000


# 9. --config, --baseline, --tools and `tools = "…"` naming /dev/zero or a FIFO exhausted memory
# or blocked.
@pytest.mark.parametrize("option", ["--config", "--baseline", "--tools"])
@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_files_named_by_option_must_be_regular_files(tmp_path, option, target):
    if target == "fifo":
        target = tmp_path / "fifo"
        os.mkfifo(target)
    proc = audit_process(LOG, option, target, "--no-progress")
    what = "a device" if target == "/dev/zero" else "a named pipe"
    named = {"--config": "config", "--baseline": "baseline", "--tools": "--tools"}[option]
    assert proc.returncode == 2
    said = f"audit: error: cannot read {named} {target}: is {what}, not a file\n"
    assert proc.stderr.decode() == said


def test_the_configured_tools_file_must_be_a_regular_file(tmp_path, monkeypatch):
    os.mkfifo(tmp_path / "tools.json")
    (tmp_path / "audit.toml").write_text('tools = "tools.json"\n')
    proc = audit_process(LOG, "--config", tmp_path / "audit.toml", "--no-progress")
    assert proc.returncode == 2
    monkeypatch.chdir(ROOT)  # the config is named as the child, run there, shows it
    assert proc.stderr.decode() == (
        f"audit: error: cannot read tools file (from {shown(tmp_path / 'audit.toml')}) "
        f"{tmp_path / 'tools.json'}: is a named pipe, not a file\n"
    )
    assert stat.S_ISFIFO(os.stat(tmp_path / "tools.json").st_mode)


EVENTS = FIXTURES / "formats" / "openhands" / "confirmation-mode"


@pytest.mark.parametrize(
    ("hostile", "reason"),
    [
        ("dangling", "is a symbolic link: not followed"),
        ("loop", "is a symbolic link: not followed"),
        ("environ", "is a symbolic link: not followed"),
        ("outside", "is a symbolic link: not followed"),
        ("fifo", "is a named pipe, not a file"),
        ("device", "is a device, not a file"),
        ("directory", "is a directory"),
    ],
)
def test_an_event_folder_reads_each_event_file_as_any_file_is_read(tmp_path, hostile, reason):
    # issue 37, item 1: the event files of one conversation were opened with plain open()
    events = tmp_path / "logs" / "events"
    events.mkdir(parents=True)
    for f in sorted(EVENTS.iterdir()):
        if f.name.startswith("event-"):
            (events / f.name).write_bytes(f.read_bytes())
    (tmp_path / "creds.json").write_text('{"kind": "MessageEvent", "AWS_SECRET": "hunter2"}')
    bad = events / "event-00099-ffffffff-0000-0000-0000-000000000000.json"
    if hostile == "dangling":
        os.symlink(tmp_path / "gone.json", bad)
    elif hostile == "loop":
        os.symlink(bad.name, bad)
    elif hostile == "environ":
        os.symlink("/proc/self/environ", bad)
    elif hostile == "outside":
        os.symlink(tmp_path / "creds.json", bad)
    elif hostile == "fifo":
        os.mkfifo(bad)
    elif hostile == "device":
        try:
            os.mknod(bad, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # a /dev/zero of its own
        except PermissionError:
            pytest.skip("making a device needs CAP_MKNOD")
    else:
        bad.mkdir()
    code, report, stderr = json_run(str(tmp_path / "logs"))
    # the folder's conversation is read whole, and the hostile file is one IN001 naming it
    assert (code, report["summary"]["conversations"]) == (1, 1)
    unread = [(f["code"], f["path"], f["message"]) for f in report["findings"] if f["code"] < "IO"]
    assert unread == [("IN001", str(bad), f"event file not read: {reason}")]
    text = json.dumps(report) + stderr
    assert "hunter2" not in text and "PATH=" not in text


def test_show_files_escapes_what_a_log_says(tmp_path):
    # issue 37, item 6: a log's JSON keys reached the terminal raw
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "x.json").write_text(json.dumps({"\x1b]0;pwned\x07\x1b[2J": 1}))
    (tmp_path / "logs" / "y.\x1b[31mlog").write_text("plain text\n")
    proc = audit_process("logs", "--show-files", cwd=tmp_path)
    out = proc.stdout.decode()
    assert "\x1b" not in out and "\x07" not in out
    assert "JSON object of no known log format (keys: \\x1b]0;pwned\\x07\\x1b[2J)" in out
    # and a declared format's name, which the checkout's configuration gives
    (tmp_path / "logs" / "x.json").write_text(json.dumps({"run": [{"who": "user", "say": "hi"}]}))
    (tmp_path / "pyproject.toml").write_text(
        '[tool.auditor.formats."acme\\u001b]0;pwned\\u0007"]\n'
        'detect = "run"\nmessages = "run"\nrole = "who"\ntext = "say"\n'
    )
    for option in ("--show-files", "--show-reading"):
        out = audit_process("logs", option, cwd=tmp_path).stdout.decode()
        assert "\x1b" not in out and "\x07" not in out
        assert "acme\\x1b]0;pwned\\x07" in out, (option, out)


def test_binary_noise_after_a_valid_line_is_twenty_findings_and_a_count(tmp_path):
    # issue 37, item 7: each byte value made its own kind, so 2,000 noisy lines gave ~800
    rng = random.Random(7)
    noise = [bytes(rng.randrange(0x80, 0x100) for _ in range(30)) for _ in range(2000)]
    log = tmp_path / "noisy.jsonl"
    log.write_bytes(LOG.read_bytes().splitlines(keepends=True)[0] + b"\n".join(noise) + b"\n")
    code, report, _ = json_run(str(log))
    unread = [f for f in report["findings"] if f["code"] == "IN001"]
    assert (code, len(unread)) == (1, 21)
    assert unread[-1]["message"].startswith("1980 more like this (lines 22, 23, 24, 25, 26, …)")
    assert [f["code"] for f in report["findings"] if f["code"] != "IN001"] == ["EX001"]
