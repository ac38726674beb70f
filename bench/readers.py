"""What each reader of issue 26 costs per megabyte, beside the OpenAI chat reader: one table.

For each format a file of about BENCH_READERS_MB (default 10) megabytes is made by repeating a
seed: the format's real logs in `../shared/realdata-3` when present, else its excerpt in
`fixtures/formats` (BENCH_READERS_SEEDS=fixtures forces the excerpts of the agent frameworks:
cut for tests, they hold more messages per megabyte than real logs). JSON documents are
repeated one a line, text logs end to end; the coding agents' shapes are
`coding_readers.build`'s. The OpenAI line is the synthetic tau-like log of `synthetic.py`, cut to
the same size.

Each file is decoded (framing alone), read (framing, detection, the reader: records to
Conversations) and audited (replay and every rule too), in process, CPU time, the best of
BENCH_RUNS runs. Beside each time: its ratio to the OpenAI chat log's per megabyte, and its
ratio to the time of the same conversations written as OpenAI chat (`as_openai_record`). The
first is the measure where a format's bytes are transcript; the second where they are not:
a file of many small actions (a browser agent's, one event or message a line) holds more
messages per megabyte than a chat log, and one that carries screenshots or whole API requests
(browser-use, Cline) fewer. A reader costs no more than OpenAI's when either ratio is at most
1. Printed by `make bench` (BENCH_READERS=0 skips it; `python bench/readers.py` runs it
alone); never asserted, since tests do not time things.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import orjson

# The auditor of this checkout, whatever is installed, and the sibling modules of this script.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import coding_readers

from auditor import config, engine, sources
from auditor.formats import FileReader
from auditor.model import Conversation

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).resolve().parent / "out"
FIXTURES = ROOT / "fixtures" / "formats"
R3 = ROOT.parent / "shared" / "realdata-3"
RUNS = int(os.environ.get("BENCH_RUNS", "3"))

# (format, real logs under realdata-3 (globs), fixture, how they are repeated: `lines` one JSON
# document a line, `text` end to end)
CASES = (
    (
        "browser-result",
        ("browser-agent-results/**/result.json",),
        "browser-result/abp-0b838cd5-excerpt.json",
        "lines",
    ),
    (
        "browser-use",
        ("browser-use-history/**/AgentHistoryList.json",),
        "browser-use/agent-history-list-excerpt.json",
        "lines",
    ),
    ("letta", ("letta-agent-file/**/*.af",), "letta/composio_github_star_agent.af", "lines"),
    (
        "autogen",
        ("autogen-agentchat/**/agent_history.json",),
        "autogen/agent_history-unanswered-call.json",
        "lines",
    ),
    (
        "cline",
        ("cline-ui-messages/**/ui_messages.json",),
        "cline/edit-retried-ui_messages.json",
        "lines",
    ),
    (
        "smolagents",
        ("smolagents-decentralized-example/**/messages.jsonl",),
        "smolagents/run-56371001-messages.jsonl",
        "text",
    ),
    (
        "chatdev",
        ("chatdev-warehouse/**/*.log",),
        "chatdev/background-removal-test-cycles-excerpt.log",
        "text",
    ),
    (
        "aider",
        ("aider-chat-history/**/chat-history.md", "aider-chat-history/**/.aider.chat.history.md"),
        "aider/aider-author-chat-history-excerpt.md",
        "text",
    ),
)
CODING = (
    "mini-swe-agent-1",
    "mini-swe-agent-1.1",
    "litellm",
    "openhands-v0",
    "openhands (records)",
    "openhands (events)",
    "openhands (real events)",
    "swe-agent",
    "multiagent",
    "message-lines",
    "stream (keyed lines)",
)
"""The coding agents' shapes of `coding_readers.build`, in its names. The last is no reader of
issue 26: the session stream's, on the message lines with a session key, what one message a
line costs a reader that came before (not counted in the summary)."""
BASELINES = frozenset(("stream (keyed lines)",))
SYNTHETIC = frozenset(("message-lines", "stream (keyed lines)"))
"""Shapes made from the synthetic chat log."""


def _seeds(real: tuple[str, ...], fixture: str) -> tuple[str, list[Path]]:
    """("real" or "fixture", the files to repeat)."""
    if os.environ.get("BENCH_READERS_SEEDS") != "fixtures" and R3.is_dir():
        found = sorted({p for pattern in real for p in R3.glob(pattern) if p.is_file()})
        if found:
            return "real", found
    return "fixture", [FIXTURES / fixture]


def _made(name: str, real: tuple[str, ...], fixture: str, how: str, mb: int) -> tuple[str, Path]:
    origin, seeds = _seeds(real, fixture)
    suffix = seeds[0].suffix if how == "text" else ".jsonl"
    path = OUT / f"readers-{name}-{origin}-{mb}mb{suffix}"
    if path.exists():
        return origin, path
    if how == "lines":
        unit = b"".join(orjson.dumps(orjson.loads(p.read_bytes())) + b"\n" for p in seeds)
    else:
        texts = [p.read_bytes() for p in seeds]
        unit = b"".join(t if t.endswith(b"\n") else t + b"\n" for t in texts)
    OUT.mkdir(exist_ok=True)
    path.write_bytes(unit * max(1, mb * 1024 * 1024 // len(unit)))
    return origin, path


def _read(path: Path, keep: list[Conversation] | None = None) -> int:
    """Conversations read: framing, detection, the reader."""
    reader = FileReader()
    source = sources.Source(str(path), *sources.kind_of(path.name), True)
    n = 0
    for record in sources.read(source):
        if isinstance(record, sources.Record):
            for item in reader.feed(record):
                n += _kept(item, keep)
    return n + sum(_kept(item, keep) for item in reader.finish())


def _kept(item: object, keep: list[Conversation] | None) -> int:
    if not isinstance(item, Conversation):
        return 0
    if keep is not None:
        keep.append(item)
    return 1


def _twin(path: Path, conversations: list[Conversation]) -> Path:
    """The conversations written as OpenAI chat, one a line (`coding_readers.as_openai`)."""
    twin = path.with_name(f"{path.stem}{path.suffix.replace('.', '-')}-as-openai.jsonl")
    if not twin.exists():
        with open(twin, "wb") as f:
            for c in conversations:
                f.write(orjson.dumps(coding_readers.as_openai_record(c)) + b"\n")
    return twin


def _decode(path: Path) -> None:
    """Framing alone: the file's bytes to records."""
    source = sources.Source(str(path), *sources.kind_of(path.name), True)
    for _ in sources.read(source):
        pass


def _costs(paths: list[Path], settings: config.Settings) -> dict[Path, tuple[float, ...]]:
    """CPU seconds to decode each file into records, to read it (decoding, detection and the
    reader), and to audit it: the fastest of RUNS runs, the files' runs taken in turn so that
    a machine shared with others slows them alike (CPU time: waiting is not counted)."""
    best: dict[Path, list[float]] = {p: [float("inf")] * 3 for p in paths}
    for _ in range(RUNS):
        for path in paths:
            for k in range(3):
                start = time.process_time()
                if k == 0:
                    _decode(path)
                elif k == 1:
                    _read(path)
                else:
                    engine.audit([str(path)], settings)
                best[path][k] = min(best[path][k], time.process_time() - start)
    return {p: tuple(t) for p, t in best.items()}


def _cut(openai_log: Path, mb: int) -> Path:
    cut = OUT / f"readers-openai-{mb}mb.jsonl"
    if not cut.exists():
        with open(openai_log, "rb") as src, open(cut, "wb") as dst:
            for line in src:
                dst.write(line)
                if dst.tell() >= mb * 1024 * 1024:
                    break
    return cut


def main(openai_log: Path) -> None:
    mb = int(os.environ.get("BENCH_READERS_MB", "10"))
    settings = config.build()
    OUT.mkdir(exist_ok=True)
    rows: list[tuple[str, str, Path]] = [("openai (chat)", "synthetic", _cut(openai_log, mb))]
    rows += [(name, *_made(name, real, fixture, how, mb)) for name, real, fixture, how in CASES]
    built = coding_readers.build(mb, openai_log)
    rows += [
        (shape, _origin(shape, built[shape]), built[shape]) for shape in CODING if shape in built
    ]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"\nreaders of issue 26, {mb} MB a format (BENCH_READERS_MB), CPU ms per MB in process, "
        f"best of {RUNS}; load average {load}\n"
        "  decode: the bytes to records; read: decoding, detection and the reader; audit: the "
        "whole audit. x/MB: against the OpenAI chat log per megabyte; x same: against the "
        "same conversations written as OpenAI chat (read, audit)"
    )
    print(
        f"  {'format':<24}{'seed':<10}{'msgs/MB':>8}{'decode':>8}{'read':>8}{'x/MB':>7}"
        f"{'x same':>8}{'audit':>9}{'x/MB':>7}{'x same':>8}"
    )
    openai = rows[0][2]
    above: list[str] = []  # readers that cost more than OpenAI's per MB and on the same transcripts
    per_mb = same_transcripts = 0
    for name, origin, path in rows:
        size = path.stat().st_size / (1024 * 1024)
        kept: list[Conversation] = []
        _read(path, kept)
        messages = sum(len(c.messages) for c in kept) / size
        twin = _twin(path, kept) if path != openai else openai
        del kept
        # Each reader is timed with the OpenAI chat log and its own twin, in turn: the ratios
        # are of times taken under the same load.
        costs = _costs(list(dict.fromkeys((path, openai, twin))), settings)
        decode, read, audit = (t / size for t in costs[path])
        base_size = openai.stat().st_size / (1024 * 1024)
        base = [t / base_size for t in costs[openai]]
        same = (costs[path][1] / costs[twin][1], costs[path][2] / costs[twin][2])
        if name not in BASELINES and path != openai:
            per_mb += read <= base[1]
            same_transcripts += same[0] <= 1.0
            if read > base[1] and same[0] > 1.0:
                above.append(f"{name} ({read / base[1]:.2f}x, {same[0]:.2f}x)")
        print(
            f"  {name:<24}{origin:<10}{messages:8,.0f}{decode * 1000:8.1f}"
            f"{read * 1000:8.1f}{read / base[1]:7.2f}{same[0]:8.2f}"
            f"{audit * 1000:9.1f}{audit / base[2]:7.2f}{same[1]:8.2f}"
        )
    readers = len([r for r in rows[1:] if r[0] not in BASELINES])
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"  reading costs at most the OpenAI chat log's per MB for {per_mb} of {readers} "
        f"readers, at most the OpenAI reader's on the same transcripts for {same_transcripts}; "
        f"more on both: {', '.join(above) or 'none'}; load average at the end {load}"
    )


def _origin(shape: str, path: Path) -> str:
    if shape in SYNTHETIC:
        return "synthetic"
    return "real" if "-real-" in path.name else "fixture"


if __name__ == "__main__":
    from synthetic import generate

    chat = OUT / "synthetic-v3-30mb.jsonl"
    if not chat.exists():
        OUT.mkdir(exist_ok=True)
        generate(chat, 30)
    main(chat)
