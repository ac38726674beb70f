"""`make bench`: audit throughput against a plain orjson parse of the same synthetic log.

Generates an OpenAI-format JSON Lines log (BENCH_CONVERSATIONS conversations, default 20000,
a few percent with injected failures), then measures in one run: the time orjson takes to
parse every line, the time `audit -f json` takes on the same file, their ratio, and the peak
memory of the audit process. Figures, not assertions: tests never assert timings.
"""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import orjson

OUT = Path(__file__).resolve().parent / "out"


def conversation(i: int, rng: random.Random) -> dict:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_order",
                "parameters": {
                    "type": "object",
                    "properties": {"order_id": {"type": "string"}},
                    "required": ["order_id"],
                },
            },
        }
    ]
    messages: list[dict] = [
        {"role": "system", "content": "You are a support agent. " * 20},
        {"role": "user", "content": f"Where is my order A-{i}? " + "Please help. " * 10},
    ]
    for step in range(rng.randint(1, 4)):
        cid = f"call_{i}_{step}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {
                            "name": "get_order",
                            "arguments": orjson.dumps({"order_id": f"A-{i}"}).decode(),
                        },
                    }
                ],
            }
        )
        if rng.random() > 0.03:  # a few percent of calls lose their result
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": cid,
                    "content": '{"status": "shipped", "eta": "2 days"}' * 3,
                }
            )
    messages.append(
        {"role": "assistant", "content": "Your order has shipped and arrives in two days. " * 4}
    )
    return {"id": f"bench-{i}", "tools": tools, "messages": messages}


def generate(path: Path, n: int) -> None:
    rng = random.Random(42)
    with open(path, "wb") as f:
        for i in range(n):
            f.write(orjson.dumps(conversation(i, rng)) + b"\n")


def parse_only(path: Path) -> float:
    start = time.perf_counter()
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                orjson.loads(line)
    return time.perf_counter() - start


def audit_run(path: Path) -> tuple[float, float]:
    """Wall time and peak RSS (MB) of `audit -f json` in its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "auditor",
            str(path),
            "-f",
            "json",
            "--no-progress",
            "--exit-zero",
            "-o",
            os.devnull,
        ],
        check=True,
    )
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before) / 1024


def main() -> None:
    n = int(os.environ.get("BENCH_CONVERSATIONS", "20000"))
    OUT.mkdir(exist_ok=True)
    path = OUT / f"synthetic-{n}.jsonl"
    if not path.exists():
        generate(path, n)
    size_mb = path.stat().st_size / 1e6
    parse = parse_only(path)
    audit, peak = audit_run(path)
    print(f"log: {path.name}, {size_mb:.1f} MB, {n} conversations, {os.cpu_count()} cores")
    print(f"orjson parse : {parse:6.2f} s  {size_mb / parse:7.1f} MB/s")
    print(f"audit --jobs 1: {audit:6.2f} s  {size_mb / audit:7.1f} MB/s  (process start included)")
    print(f"ratio audit/orjson throughput: {parse / audit:.2f}x (target >= 0.5x)")
    print(f"peak RSS of audit: {peak:.0f} MB")


if __name__ == "__main__":
    main()
