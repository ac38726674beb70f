"""The coding agents' readers against the OpenAI chat reader, per megabyte (whole audits).

For each shape a JSON Lines file of about BENCH_READERS_MB (default 30) megabytes is made by
repeating a seed, one record a line: a real log from `../shared/realdata-3` (or
`../shared/realdata`) when present, else the excerpt in `fixtures/formats`. The OpenAI chat file
is `synthetic.generate`'s tau-like log of the same size. Each is audited (`audit -f json`, one job,
best of BENCH_RUNS) and its seconds per megabyte printed beside the OpenAI chat file's; a
reader costs no more than OpenAI's when its ratio is at most 1. Printed, never asserted.

Shapes: mini-swe-agent 1.x (text actions) and 2.x (tool calls, `exit`), a LiteLLM completion
log in OpenHands' non-function-calling mode, OpenHands V0 evaluation records, OpenHands V1
benchmark records and one V1 conversation of events one per line, plain message lines, and the
two readers moved onto the text-action protocol (SWE-agent text mode, Who&When multi-agent).
One record a message or an event (500-800 bytes against the chat log's 16 KB a conversation)
pays decoding and detection per record: the same lines with a session key, read by the session
stream's reader, are the baseline for that.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FIXTURES = ROOT / "fixtures" / "formats"
OUT = Path(__file__).resolve().parent / "out"
R3 = SHARED / "realdata-3"
sys.path.insert(0, str(ROOT))  # the auditor of this checkout, as `stages` reads it

# (shape, seeds in order of preference): each seed is a file whose records are repeated
SEEDS: dict[str, tuple[Path, ...]] = {
    "mini-swe-agent-1": (
        R3 / "mini-swe-agent/gruckion-mini-swe-agent/swebench_results/20251118_gemini-3-pro-74pct"
        "/trajs/psf__requests-1921/psf__requests-1921.traj.json",
        FIXTURES / "mini-swe-agent/requests-1921-text-actions-excerpt.traj.json",
    ),
    "mini-swe-agent-1.1": (
        R3 / "mini-swe-agent/SWE-agent-mini-swe-agent/output/deepseek_chat_dev"
        "/pydicom__pydicom-1256/pydicom__pydicom-1256.traj.json",
        FIXTURES / "mini-swe-agent/pydicom-1256-tool-calls-excerpt.traj.json",
    ),
    "litellm": (
        R3 / "litellm-completion-logs/OpenHands-software-agent-sdk/tests/fixtures/llm_data"
        "/nonfncall-llm-logs/litellm_proxy__deepseek__deepseek-chat-1757015076.651.json",
        FIXTURES / "litellm/deepseek-nonfncall-log-excerpt.json",
    ),
    "openhands-v0": (
        R3 / "openhands-v0-events/OpenHands-OpenHands/evaluation/benchmarks/multi_swe_bench"
        "/examples/output.jsonl",
        FIXTURES / "openhands-v0/multi-swe-bench-excerpt.jsonl",
    ),
    "openhands (records)": (FIXTURES / "openhands/benchmark-record.jsonl",),
    "swe-agent": (
        SHARED / "realdata/swe-agent/tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first"
        "_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj",
        FIXTURES / "swe-agent/fenced-actions.traj",
    ),
    "multiagent": (
        SHARED / "realdata/who_and_when/Who&When/Algorithm-Generated/17.json",
        FIXTURES / "multiagent/who-and-when-algorithm-generated-112.json",
    ),
}


def _records(path: Path) -> list[bytes]:
    data = path.read_bytes()
    if path.suffix == ".jsonl":
        return [orjson.dumps(orjson.loads(line)) for line in data.splitlines() if line.strip()]
    return [orjson.dumps(orjson.loads(data))]


def _seed(paths: tuple[Path, ...]) -> Path:
    return next(p for p in paths if p.exists())


def _repeat(
    records: list[bytes], target: int, vary: Callable[[bytes, int], bytes]
) -> Iterator[bytes]:
    written = n = 0
    while written < target:
        for record in records:
            line = vary(record, n) + b"\n"
            written += len(line)
            n += 1
            yield line


def _same(record: bytes, n: int) -> bytes:
    return record


def _instance(record: bytes, n: int) -> bytes:
    """A fresh instance id per copy (records named by it would otherwise be one conversation)."""
    value = orjson.loads(record)
    value["instance_id"] = f"{value.get('instance_id', 'bench')}-{n}"
    return orjson.dumps(value)


EVENTS = (
    R3 / "openhands-v1-sdk-events/OpenHands-OpenHands-CLI/tests/trajectories/confirmation_mode",
    FIXTURES / "openhands" / "confirmation-mode",
)
"""The real CLI session (its system prompt event alone is 76 KB), and the fixture's copy of it
with every string cut at 300 characters: 800-byte events, the worst case per megabyte."""


def _events(target: int, folder: Path) -> Iterator[bytes]:
    """One V1 conversation, an event a line: a folder's events, repeated with fresh ids (a
    call's id repeated would pair its results with the first call)."""
    events = [orjson.loads(p.read_bytes()) for p in sorted(folder.glob("event-*.json"))]
    written = n = 0
    while written < target:
        for event in events:
            copy = dict(event)
            if "tool_call_id" in copy:
                copy["tool_call_id"] = f"{copy['tool_call_id']}-{n}"
                if isinstance(copy.get("tool_call"), dict):
                    copy["tool_call"] = {**copy["tool_call"], "id": copy["tool_call_id"]}
            line = orjson.dumps(copy) + b"\n"
            written += len(line)
            yield line
        n += 1


def _message_lines(chat: Path, target: int) -> Iterator[bytes]:
    """The OpenAI chat log's conversations as bare messages, one a line."""
    written = 0
    with open(chat, "rb") as f:
        for line in f:
            for message in orjson.loads(line)["messages"]:
                out = orjson.dumps(message) + b"\n"
                written += len(out)
                yield out
                if written >= target:
                    return


def _keyed(lines: Iterator[bytes]) -> Iterator[bytes]:
    """The same message lines with a session key: the session stream's existing reader, the
    baseline for one message a line."""
    session = 0
    for line in lines:
        message = orjson.loads(line)
        session += message["role"] == "system"
        yield orjson.dumps({"session_id": f"s{session}", **message}) + b"\n"


def build(megabytes: int, chat: Path) -> dict[str, Path]:
    """The files to audit, made once and kept in bench/out."""
    target = megabytes * 1_000_000
    files: dict[str, Path] = {}
    for shape, seeds in SEEDS.items():
        seed = _seed(seeds)
        origin = "real" if SHARED in seed.parents else "fixture"
        path = OUT / f"reader-{shape.split()[0]}-{origin}-{megabytes}mb.jsonl"
        if not path.exists():
            vary = _instance if shape.startswith("openhands") else _same
            with open(path, "wb") as f:
                f.writelines(_repeat(_records(seed), target, vary))
        files[shape] = path
    shapes: list[tuple[str, Callable[[], Iterator[bytes]]]] = [
        ("openhands (events)", lambda: _events(target, EVENTS[-1])),
        ("message-lines", lambda: _message_lines(chat, target)),
        ("stream (keyed lines)", lambda: _keyed(_message_lines(chat, target))),
    ]
    if EVENTS[0].is_dir():
        shapes.insert(1, ("openhands (real events)", lambda: _events(target, EVENTS[0])))
    for shape, lines in shapes:
        name = shape.replace(" (", "-").strip(")").replace(" ", "-")
        path = OUT / f"reader-{name}-{megabytes}mb.jsonl"
        if not path.exists():
            with open(path, "wb") as f:
                f.writelines(lines())
        files[shape] = path
    return files


def read_cost(path: Path, runs: int) -> tuple[float, float]:
    """Seconds of one core, in process, the best of `runs`: to decode the file into records
    (framing, the same for every format of the same record sizes), and to read the records
    into conversations (detection and the reader: the reader's own cost). Rules left out."""
    from auditor import sources
    from auditor.formats import FileReader

    source = sources.Source(str(path), *sources.kind_of(str(path)), True)
    decode = read = float("inf")
    for _ in range(runs):
        start = time.process_time()
        records = [r for r in sources.read(source) if isinstance(r, sources.Record)]
        decoded = time.process_time()
        reader = FileReader()
        for record in records:
            for _item in reader.feed(record):
                pass
        for _item in reader.finish():
            pass
        decode = min(decode, decoded - start)
        read = min(read, time.process_time() - decoded)
    return decode, read


def as_openai(path: Path) -> Path:
    """The file's conversations written back as OpenAI chat, one a line: the same turns, calls,
    results and declared tools, so that auditing both differs only by the reader."""
    from auditor import sources
    from auditor.formats import FileReader
    from auditor.model import Conversation

    out = path.with_name(path.stem + "-as-openai.jsonl")
    if out.exists():
        return out
    source = sources.Source(str(path), *sources.kind_of(str(path)), True)
    reader = FileReader()
    with open(out, "wb") as f:
        records = (r for r in sources.read(source) if isinstance(r, sources.Record))
        items = (i for r in records for i in reader.feed(r))
        for item in (*items, *reader.finish()):
            if isinstance(item, Conversation):
                f.write(orjson.dumps(as_openai_record(item)) + b"\n")
    return out


def as_openai_record(conversation: Any) -> dict[str, Any]:
    """A conversation as an OpenAI chat record: its turns, calls, results and declared tools."""
    record: dict[str, Any] = {
        "id": conversation.id,
        "messages": [_message(m) for m in conversation.messages],
    }
    if conversation.tools is not None:
        record["tools"] = [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in conversation.tools
        ]
    return record


def _message(message: Any) -> dict:
    out: dict[str, Any] = {"role": message.role, "content": message.text}
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": c.raw_arguments or orjson.dumps(c.arguments).decode(),
                },
            }
            for c in message.tool_calls
        ]
    if message.result is not None:
        out["tool_call_id"] = message.result.call_id
        if message.result.is_error is not None:
            out["is_error"] = message.result.is_error
    return out


def main(
    audit_run: Callable[..., tuple[float, float]], generate: Callable[[Path, int], int]
) -> None:
    megabytes = int(os.environ.get("BENCH_READERS_MB", "30"))
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    OUT.mkdir(exist_ok=True)
    chat = OUT / f"synthetic-v3-{megabytes}mb.jsonl"
    if not chat.exists():
        generate(chat, megabytes)
    files = {"openai (chat)": chat, **build(megabytes, chat)}
    print(
        f"readers, {megabytes} MB a shape, best of {runs}, in ms per MB: decoding the records, "
        "reading them (detection and the reader, in process) and the whole audit, each against "
        "OpenAI chat; then the whole audit of the same conversations written as OpenAI chat"
    )
    read_cost(chat, 1)  # imports paid here, not by the first shape timed
    base_read = base_audit = 0.0
    for shape, path in files.items():
        size = path.stat().st_size / 1e6
        decode, read = (t / size for t in read_cost(path, runs))
        audit = min(audit_run(path, 1)[0] for _ in range(runs)) / size
        base_read, base_audit = base_read or read, base_audit or audit
        same = ""
        if shape != "openai (chat)":
            twin = as_openai(path)
            twin_size = twin.stat().st_size / 1e6
            twin_audit = min(audit_run(twin, 1)[0] for _ in range(runs))
            same = f"  as OpenAI chat {twin_size:5.1f} MB {twin_audit:6.2f} s"
            same += f" vs {audit * size:6.2f} s"
        print(
            f"  {shape:<20} {size:5.1f} MB  decode {decode * 1000:5.1f}  read {read * 1000:5.1f}"
            f" ms/MB {read / base_read:5.2f}x  audit {audit * 1000:6.1f} ms/MB"
            f" {audit / base_audit:5.2f}x{same}"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from process import audit_run
    from synthetic import generate

    main(audit_run, generate)
