"""Growth on the input shapes that were once quadratic: each is audited at size N and 4N.

Linear code takes about 4x as long on the 4x input; a quadratic path takes about 16x. Printed
by `make bench` (BENCH_SHAPES=0 skips it); never asserted, since tests do not time things.

- replay-waiting: one conversation whose assistant keeps calling and never gets a result;
- replay-unordered: results that arrive in the reverse order of their calls;
- exchange-threads: a gateway log of many one-exchange conversations;
- stream-sessions: a session stream (peak memory too: sessions close at their last line);
- approval-requests: one session asking approval for n different calls of one tool, each
  approved and none run yet (each request was compared with every earlier approved one).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson

OUT = Path(__file__).resolve().parent / "out"


def _call(i: int) -> dict:
    arguments = orjson.dumps({"n": i}).decode()
    return {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": arguments}}


def replay_waiting(n: int) -> bytes:
    messages = [{"role": "user", "content": "go"}]
    for i in range(n):
        messages.append({"role": "assistant", "content": None, "tool_calls": [_call(i)]})
        messages.append({"role": "user", "content": "and?"})
    return orjson.dumps({"id": "waiting", "messages": messages}) + b"\n"


def replay_unordered(n: int) -> bytes:
    calls = [_call(i) for i in range(n)]
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
    messages += [
        {"role": "tool", "tool_call_id": f"c{i}", "content": "ok"} for i in reversed(range(n))
    ]
    return orjson.dumps({"id": "unordered", "messages": messages}) + b"\n"


def exchange_threads(n: int) -> bytes:
    lines = []
    for i in range(n):
        request = {"messages": [{"role": "user", "content": f"question {i}"}]}
        response = {"choices": [{"message": {"role": "assistant", "content": f"answer {i}"}}]}
        lines.append(orjson.dumps({"request": request, "response": response}))
    return b"\n".join(lines) + b"\n"


def stream_sessions(n: int) -> bytes:
    lines = []
    filler = "lorem ipsum dolor sit amet " * 40
    for i in range(n):
        for j in range(10):
            role = "user" if j % 2 == 0 else "assistant"
            lines.append(orjson.dumps({"session_id": f"s{i}", "role": role, "content": filler}))
    return b"\n".join(lines) + b"\n"


def approval_requests(n: int) -> bytes:
    lines = [{"session_id": "s", "role": "user", "content": "Shorten these links."}]
    for i in range(n):
        arguments = {"url": f"https://example.com/{i}", "max_clicks": i}
        request = {"type": "approval_request", "id": f"r{i}", "call_id": None}
        request |= {"name": "create_short_url", "arguments": arguments}
        decision = {"type": "approval_response", "request_id": f"r{i}", "approved": True}
        lines += [{"session_id": "s", **request}, {"session_id": "s", **decision}]
    return b"\n".join(orjson.dumps(line) for line in lines) + b"\n"


SHAPES: dict[str, tuple[Callable[[int], bytes], int]] = {
    "replay-waiting": (replay_waiting, 20_000),
    "replay-unordered": (replay_unordered, 40_000),
    "exchange-threads": (exchange_threads, 40_000),
    "stream-sessions": (stream_sessions, 4_000),
    "approval-requests": (approval_requests, 4_000),
}


def main(audit: Callable[[Path, int | None], tuple[float, float]]) -> None:
    """`audit(path, jobs)` gives the wall time and peak RSS (MB) of one run."""
    OUT.mkdir(exist_ok=True)
    print("growth on once-quadratic shapes (4x the input should take about 4x the time):")
    for name, (make, n) in SHAPES.items():
        figures = []
        for size in (n, 4 * n):
            path = OUT / f"shape-{name}-{size}.jsonl"
            if not path.exists():
                path.write_bytes(make(size))
            runs = [audit(path, 1) for _ in range(2)]
            figures.append((min(r[0] for r in runs), max(r[1] for r in runs), path))
        (t1, m1, p1), (t4, m4, p4) = figures
        print(
            f"  {name:<18} {p1.stat().st_size / 1e6:6.1f} MB {t1:6.2f} s {m1:5.0f} MB | "
            f"{p4.stat().st_size / 1e6:6.1f} MB {t4:6.2f} s {m4:5.0f} MB | time x{t4 / t1:4.1f}"
        )
