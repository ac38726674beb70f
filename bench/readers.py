"""What each agent-framework reader costs per megabyte, beside the OpenAI chat reader.

For each format a file of about BENCH_READERS_MB (default 20) megabytes is made from the
format's fixtures (repeated: JSON documents one per line, text logs end to end) and read in
process twice: reading alone (framing, detection, the reader: records to Conversations), and
the whole audit (replay and every rule too). The OpenAI line is the synthetic tau-like log of
`bench.py` cut to the same size. A file of many small actions (a browser agent's) holds far
more messages per megabyte than a chat log, so each format's transcripts are also written as
OpenAI chat conversations and read by the OpenAI reader: the second ratio is the cost of the
same messages, calls and results. Printed by `make bench` (BENCH_READERS=0 skips it); never
asserted, since tests do not time things. Each time is the best of BENCH_RUNS runs.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson

from auditor import config, engine, sources
from auditor.formats import FileReader
from auditor.model import Conversation

OUT = Path(__file__).resolve().parent / "out"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "formats"
RUNS = int(os.environ.get("BENCH_RUNS", "3"))

# (format, fixture, how it is repeated: `lines` one JSON document per line, `text` end to end)
CASES = (
    ("browser-result", "browser-result/abp-0b838cd5-excerpt.json", "lines"),
    ("browser-use", "browser-use/agent-history-list-excerpt.json", "lines"),
    ("letta", "letta/composio_github_star_agent.af", "lines"),
    ("autogen", "autogen/agent_history-unanswered-call.json", "lines"),
    ("cline", "cline/edit-retried-ui_messages.json", "lines"),
    ("smolagents", "smolagents/run-56371001-messages.jsonl", "text"),
    ("chatdev", "chatdev/background-removal-test-cycles-excerpt.log", "text"),
    ("aider", "aider/aider-author-chat-history-excerpt.md", "text"),
)


def _made(name: str, fixture: str, how: str, megabytes: int) -> Path:
    suffix = Path(fixture).suffix if how == "text" else ".jsonl"
    path = OUT / f"readers-{name}-{megabytes}mb{suffix}"
    if path.exists():
        return path
    data = (FIXTURES / fixture).read_bytes()
    unit = orjson.dumps(orjson.loads(data)) + b"\n" if how == "lines" else data
    if how == "text" and not unit.endswith(b"\n"):
        unit += b"\n"
    OUT.mkdir(exist_ok=True)
    path.write_bytes(unit * max(1, megabytes * 1024 * 1024 // len(unit)))
    return path


def _read(path: Path, keep: list | None = None) -> int:
    """Conversations read: framing, detection, the reader."""
    reader = FileReader()
    source = sources.Source(str(path), *sources.kind_of(path.name), True)
    n = 0
    for record in sources.read(source):
        if isinstance(record, sources.Record):
            for item in reader.feed(record):
                n += _kept(item, keep)
    return n + sum(_kept(item, keep) for item in reader.finish())


def _kept(item: object, keep: list | None) -> int:
    if not isinstance(item, Conversation):
        return 0
    if keep is not None:
        keep.append(item)
    return 1


def _as_openai(conversations: list[Conversation], path: Path) -> Path:
    """The same transcripts written as OpenAI chat conversations, one per line: what the
    OpenAI reader would have to read for the same messages, calls and results."""
    with open(path, "wb") as out:
        for c in conversations:
            messages = []
            for m in c.messages:
                item: dict = {"role": m.role, "content": m.text}
                if m.tool_calls:
                    item["tool_calls"] = [
                        {
                            "id": t.id,
                            "type": "function",
                            "function": {
                                "name": t.name,
                                "arguments": orjson.dumps(t.arguments).decode(),
                            },
                        }
                        for t in m.tool_calls
                    ]
                if m.result is not None:
                    item["tool_call_id"] = m.result.call_id
                messages.append(item)
            out.write(orjson.dumps({"id": c.id, "messages": messages}) + b"\n")
    return path


def _best(run) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main(openai_log: Path) -> None:
    megabytes = int(os.environ.get("BENCH_READERS_MB", "20"))
    settings = config.build()
    print(f"\nreaders, {megabytes} MB each, in process (best of {RUNS}): read / whole audit")
    cut = OUT / f"readers-openai-{megabytes}mb.jsonl"
    if not cut.exists():
        with open(openai_log, "rb") as src, open(cut, "wb") as dst:
            for line in src:
                dst.write(line)
                if dst.tell() >= megabytes * 1024 * 1024:
                    break
    rows = [("openai", cut)] + [(n, _made(n, f, how, megabytes)) for n, f, how in CASES]
    base = None
    for name, path in rows:
        size = path.stat().st_size / (1024 * 1024)
        kept: list[Conversation] = []
        conversations = _read(path, kept)
        read = _best(lambda p=path: _read(p)) / size
        whole = _best(lambda p=path: engine.audit([str(p)], settings)) / size
        base = base or (read, whole)
        same = OUT / f"readers-{name}-{megabytes}mb-as-openai.jsonl"
        if name != "openai":
            _as_openai(kept, same)
        del kept
        twin = _best(lambda p=same: _read(p)) if name != "openai" else read * size
        print(
            f"  {name:<15} {read * 1000:7.1f} ms/MB read ({read / base[0]:5.2f}x openai/MB, "
            f"{read * size / twin:4.2f}x openai on the same transcripts)  "
            f"{whole * 1000:7.1f} ms/MB audit  {conversations:>7,} conversations"
        )
