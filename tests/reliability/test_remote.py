"""Remote reads (issue 28, items 3-6): an error while a URL is read is that source's IN001, a
stalled server is given up on after `read-timeout`, a redirect to another URL is refused unless
`--follow-links`, and `file://` gets the local walk's guards.

Servers listen on 127.0.0.1 only, are started by the test (`python -m http.server` itself for
the server without byte ranges) and stopped when it ends, whatever happened.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.server
import os
import re
import subprocess
import sys
import threading

import pytest

from auditor import config, engine, sources
from tests.helpers import FIXTURES

pytest.importorskip("fsspec")
pytest.importorskip("aiohttp")  # fsspec's HTTP driver: in the `dev` extra

DEMO = str(FIXTURES / "demo" / "agent-runs.jsonl")
DEMO_TEXT = (FIXTURES / "demo" / "agent-runs.jsonl").read_text()
BOUND = 60  # seconds: a hang detector, never a speed assertion


def big_log(path, lines: int = 4000) -> list[str]:
    """A log of several MiB (past fsspec's 2 MiB block), one conversation a line."""
    demo = DEMO_TEXT.splitlines()
    text = [demo[i % len(demo)].replace('"id": "', f'"id": "r{i}-', 1) for i in range(lines)]
    path.write_text("\n".join(text) + "\n")
    return text


def settings(**changes) -> config.Settings:
    return dataclasses.replace(config.build(), **changes)


@pytest.fixture
def plain_server(tmp_path):
    """`python -m http.server`, which answers no byte range, serving tmp_path/www."""
    www = tmp_path / "www"
    www.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", www],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        line = proc.stdout.readline().decode()  # "Serving HTTP on 127.0.0.1 port 41234 …"
        port = int(re.search(r"port (\d+)", line).group(1))
        yield www, f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=BOUND)


class Handler(http.server.BaseHTTPRequestHandler):
    """`/moved.jsonl` redirects to `/log.jsonl`; `/stalled.jsonl` sends its headers and two
    bytes, then nothing until the test ends."""

    body = b""
    stop = threading.Event()

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.answer(send=False)

    def do_GET(self):
        self.answer(send=True)

    def answer(self, send: bool) -> None:
        if self.path == "/moved.jsonl":
            self.send_response(302)
            self.send_header("Location", "/log.jsonl")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path not in ("/log.jsonl", "/stalled.jsonl"):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.body)))
        self.send_header("Accept-Ranges", "none")
        self.end_headers()
        if not send:
            return
        if self.path == "/stalled.jsonl":
            self.wfile.write(self.body[:2])
            self.wfile.flush()
            self.stop.wait(BOUND)
            return
        self.wfile.write(self.body)


@pytest.fixture
def server():
    Handler.body = DEMO_TEXT.encode()
    Handler.stop = threading.Event()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        Handler.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(BOUND)


# 3. A log past 2 MiB on a server without byte ranges was `internal error: ValueError`, and no
# report at all, local files included.
def test_an_error_while_reading_a_url_is_its_in001_and_the_rest_is_audited(plain_server):
    www, url = plain_server
    lines = big_log(www / "big.jsonl")
    report = engine.audit([f"{url}/big.jsonl", DEMO], settings())
    stopped = [f for f in report.findings if f.code == "IN001"]
    assert [(f.path, f.message) for f in stopped] == [
        (
            f"{url}/big.jsonl",
            "reading stopped here: the HTTP server does not support byte ranges, which reading "
            "a large file needs",
        )
    ]
    assert 1 < stopped[0].line < len(lines)  # what came before it was read
    before = [f.line for f in report.findings if f.path.endswith("big.jsonl") and f.code != "IN001"]
    assert before and max(before) < stopped[0].line
    assert any(f.path == DEMO for f in report.findings)
    assert report.errors == ()


# 4. A stalled server blocked five minutes, then the reason printed was empty.
def test_a_stalled_server_is_given_up_on_after_the_read_timeout(server):
    report = engine.audit([f"{server}/stalled.jsonl", DEMO], settings(read_timeout=0.5))
    stalled = [f for f in report.findings if f.path.endswith("stalled.jsonl")]
    assert [(f.code, f.line, f.message) for f in stalled] == [
        (
            "IN001",
            1,
            "reading stopped here: the server sent nothing for 0.5 s: given up (`read-timeout` "
            "in the configuration sets the wait)",
        )
    ]
    assert any(f.path == DEMO for f in report.findings)


def test_read_timeout_is_a_configuration_key(tmp_path):
    (tmp_path / "audit.toml").write_text("read-timeout = 2.5\n")
    assert config.build(file=config.read(tmp_path / "audit.toml")).read_timeout == 2.5
    (tmp_path / "audit.toml").write_text("read-timeout = 0\n")
    with pytest.raises(config.ConfigError, match="read-timeout must be seconds, above 0"):
        config.build(file=config.read(tmp_path / "audit.toml"))


# 5. A redirect to another URL was followed without a word, its findings under the URL named.
def test_a_redirect_is_refused_unless_links_may_be_followed(server):
    report = engine.audit([f"{server}/moved.jsonl"], settings())
    assert [e.message for e in report.errors] == [
        f"{server}/moved.jsonl: redirects to {server}/log.jsonl: not followed (--follow-links "
        "follows redirects)"
    ]
    assert report.findings == ()
    followed = engine.audit([f"{server}/moved.jsonl"], settings(follow_links=True))
    assert followed.errors == ()
    direct = engine.audit([f"{server}/log.jsonl"], settings())
    assert [(f.code, f.line, f.message) for f in followed.findings] == [
        (f.code, f.line, f.message) for f in direct.findings
    ]


# 6. `file:///dev/zero` went past the local device guard (and was read for ever).
def test_file_urls_get_the_local_guards(tmp_path):
    logs, outside = tmp_path / "logs", tmp_path / "outside"
    logs.mkdir()
    outside.mkdir()
    (logs / "run.jsonl").write_text(DEMO_TEXT)
    (outside / "creds.jsonl").write_text('{"messages": []}\n')
    os.symlink(outside / "creds.jsonl", logs / "creds.jsonl")
    os.symlink("/proc/self/environ", logs / "env.jsonl")
    os.mkfifo(tmp_path / "fifo.jsonl")
    found = list(
        sources.discover(["file:///dev/zero", f"file://{tmp_path}/fifo.jsonl", f"file://{logs}"])
    )
    assert found == [
        sources.PathError("file:///dev/zero", "is a device, not a file"),
        sources.PathError(f"file://{tmp_path}/fifo.jsonl", "is a named pipe, not a file"),
        sources.Linked(f"file://{logs}/creds.jsonl"),
        sources.Linked(f"file://{logs}/env.jsonl"),
        sources.Source(
            f"file://{logs}/run.jsonl",
            "jsonl",
            False,
            False,
            size=os.path.getsize(logs / "run.jsonl"),
        ),
    ]
    [named] = sources.discover([f"file://{logs}/env.jsonl"])
    assert isinstance(named, sources.PathError)
    assert re.fullmatch(r"is a link to /proc/\d+/environ: not read", named.reason)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp_path / "fifo.jsonl")
